//! The fuzz targets' properties for the sidecar's line cap and the seq rule, run on
//! generated inputs in CI (`fuzz/` needs a nightly toolchain and is run by hand).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use ctxlens::store::decisions::parse_sidecar_with_max_line;
use ctxlens_core::model::{Decision, Format, Session};
use proptest::prelude::*;

/// A line of a sidecar: a decision, a torn one, garbage, or a long one.
fn sidecar_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "k[0-9]{1,3}".prop_map(|id| format!(r#"{{"compaction":"{id}","verdict":"spill"}}"#)),
        "k[0-9]{1,3}".prop_map(|id| format!(r#"{{"compaction":"{id}","verd"#)),
        "[ -~]{0,12}",
        "x{40,90}",
        Just(String::new()),
    ]
}

/// A line of a canonical log, with the seq it is given.
fn log_line(seq: u64, kind: u8) -> String {
    match kind % 4 {
        0 => format!(r#"{{"type":"message","seq":{seq},"role":"user","text":"rev 4f9a2c81d0e7"}}"#),
        1 => format!(
            r#"{{"type":"compaction","seq":{seq},"id":"k{seq}","phase":"applied","range":{{"from":1,"to":{}}},"summary":"s"}}"#,
            seq.saturating_sub(1).max(1)
        ),
        2 => "not json".to_owned(),
        _ => format!(r#"{{"type":"tool_result","seq":{seq},"text":"ok"}}"#),
    }
}

fn compaction_ids(session: &Session) -> Vec<String> {
    session.compactions().into_iter().map(|c| c.id).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A line over the cap is unreadable, and every decision under it is read, after
    /// an oversized line as before one.
    #[test]
    fn a_sidecar_line_over_the_cap_hides_no_decision(
        lines in proptest::collection::vec(sidecar_line(), 0..12),
        cap in 1usize..80,
    ) {
        let data = lines.join("\n");
        let sidecar = parse_sidecar_with_max_line(data.as_bytes(), cap);
        let mut decisions = 0;
        for (at, line) in data.split('\n').enumerate() {
            let number = at as u64 + 1;
            if line.len() > cap {
                prop_assert!(sidecar.unreadable.contains(&number), "line {} of {:?}", number, data);
            } else if serde_json::from_str::<Decision>(line).is_ok() {
                decisions += 1;
            }
        }
        prop_assert_eq!(sidecar.decisions.len(), decisions, "{:?}", data);
    }

    /// One line whose seq is `u64::MAX`, anywhere: it alone is malformed, and every
    /// compaction is still found.
    #[test]
    fn one_absurd_seq_is_malformed_alone(
        kinds in proptest::collection::vec(0u8..4, 1..14),
        at in 0usize..15,
    ) {
        let lines: Vec<String> = kinds
            .iter()
            .enumerate()
            .map(|(i, &kind)| log_line(i as u64 + 1, kind))
            .collect();
        let data = lines.join("\n") + "\n";
        let session = ctxlens::ingest::parse_bytes(data.as_bytes());
        prop_assume!(session.format == Format::Canonical);
        let mut with_absurd = lines.clone();
        with_absurd.insert(
            at.min(lines.len()),
            r#"{"type":"message","seq":18446744073709551615,"role":"user","text":"x"}"#.to_owned(),
        );
        let again = ctxlens::ingest::parse_bytes((with_absurd.join("\n") + "\n").as_bytes());
        prop_assert_eq!(again.malformed.total(), session.malformed.total() + 1, "{:?}", with_absurd);
        prop_assert_eq!(compaction_ids(&again), compaction_ids(&session));
    }
}
