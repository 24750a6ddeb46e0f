//! Any bytes as a log, in whatever format they are detected as (canonical, Claude
//! Code, Codex: the seeds cover all three), then the whole analysis, the report, the
//! contract and the tripwire: nothing may panic. A canonical log is read again with a
//! line whose seq is `u64::MAX` put in (the first byte chooses where): that line alone
//! is malformed, and every compaction is still found (spec 8.0's seq rule), where every
//! line names its seq.
//! `tests/cli/hostile_props.rs` runs the seq check in CI.
#![no_main]
use ctxlens_core::analysis::signals::continuation::{tripwire, ProposedAction};
use ctxlens_core::analysis::{analyze, contract, report, Options};
use ctxlens_core::model::Format;
use libfuzzer_sys::fuzz_target;

const ABSURD: &[u8] = br#"{"type":"message","seq":18446744073709551615,"role":"user","text":"x"}"#;

fuzz_target!(|data: &[u8]| {
    let session = ctxlens::ingest::parse_bytes(data);
    let analysis = analyze(&session, &[], true);
    let _ = report::report("fuzz", &session, &analysis, Options::default());
    let _ = contract::at_end(&session);
    for c in &analysis.compactions {
        let _ = contract::for_compaction(&session, c);
        let _ = ctxlens::tui::view::token_rows::token_rows(&session, c);
    }
    let action = ProposedAction {
        step: None,
        name: "x".into(),
        target: serde_json::Value::Null,
    };
    let _ = tripwire(&session, &analysis.compactions, &action);

    // A record without a seq takes its line number, which a line put before it moves:
    // the check holds where every line names its seq.
    let lines: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    let every_line_has_a_seq = lines
        .iter()
        .all(|line| line.windows(5).any(|w| w == b"\"seq\""));
    if session.format == Format::Canonical && data.ends_with(b"\n") && every_line_has_a_seq {
        let at = usize::from(data[0]) % (lines.len() + 1);
        let mut with_absurd = lines[..at].concat();
        with_absurd.extend_from_slice(ABSURD);
        with_absurd.push(b'\n');
        with_absurd.extend_from_slice(&lines[at..].concat());
        let again = ctxlens::ingest::parse_bytes(&with_absurd);
        if again.format == Format::Canonical {
            assert_eq!(again.malformed.total(), session.malformed.total() + 1);
            let ids = |s: &ctxlens_core::model::Session| -> Vec<String> {
                s.compactions().into_iter().map(|c| c.id).collect()
            };
            assert_eq!(ids(&again), ids(&session));
        }
    }
});
