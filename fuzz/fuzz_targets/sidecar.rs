//! Any bytes as a decision sidecar: parsed without a panic, and every line either a
//! decision or counted as unreadable. Read again under a line cap the input can reach
//! (the first byte chooses it): a line over the cap is reported unreadable and never
//! hides a decision after it. `tests/cli/hostile_props.rs` runs the same checks in CI.
#![no_main]
use ctxlens::store::decisions::{parse_sidecar, parse_sidecar_with_max_line};
use ctxlens_core::model::Decision;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let sidecar = parse_sidecar(data);
    let lines = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    assert_eq!(sidecar.decisions.len() + sidecar.unreadable.len(), lines);

    let Some((&cap, data)) = data.split_first() else {
        return;
    };
    let cap = usize::from(cap);
    let capped = parse_sidecar_with_max_line(data, cap);
    let mut decisions = 0;
    for (at, line) in data.split(|&b| b == b'\n').enumerate() {
        let number = at as u64 + 1;
        if line.len() > cap {
            assert!(capped.unreadable.contains(&number), "line {number} over the cap");
        } else if serde_json::from_slice::<Decision>(line).is_ok() {
            decisions += 1;
        }
    }
    assert_eq!(capped.decisions.len(), decisions, "a decision under the cap was lost");
});
