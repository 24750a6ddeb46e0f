//! Any two paths as session logs: two logs in different session folders whose file
//! name is the same never share a fleet subject or a decision key, and the names the
//! fleet gives are valid subject tokens. `tests/cli/hostile_props.rs` runs the same
//! checks in CI.
#![no_main]
use ctxlens::store::nats::keys;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fuzz_target!(|data: (&str, &str, &str)| {
    let (a, b, stem) = data;
    if a == b || a.is_empty() || b.is_empty() || a.contains('/') || b.contains('/') {
        return;
    }
    // Two session folders that name their sessions (ids hold digits).
    let (a, b) = (format!("{a}0000000"), format!("{b}0000000"));
    let stem = if stem.is_empty() || !stem.bytes().all(|c| c.is_ascii_alphabetic()) { "events" } else { stem };
    let path = |id: &str| PathBuf::from(format!("/state/{id}/{stem}.jsonl"));
    let (sa, sb) = (keys::session_of_log("h", &path(&a)), keys::session_of_log("h", &path(&b)));
    assert_ne!(sa, sb);
    assert_ne!(keys::decision_key(&sa, "k"), keys::decision_key(&sb, "k"));
    for token in sa.split('.') {
        assert!(token.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }
});
