//! Any bytes as a decision sidecar: parsed without a panic, and every line either a
//! decision or counted as unreadable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let sidecar = ctxlens::store::decisions::parse_sidecar(data);
    let lines = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    assert_eq!(sidecar.decisions.len() + sidecar.unreadable.len(), lines);
});
