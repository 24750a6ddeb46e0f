//! Every sample session's audit outcome.

mod common;
use common::*;
use serde_json::json;

#[test]
fn seed_scenario_drops_the_rollback_revision_and_the_agent_regenerates_it() {
    let (report, code) = audit_json(&sample("seed-migration-rollback.jsonl"), &[]);
    assert_eq!(code, 1);
    assert_eq!(report["format"], "canonical");
    assert_eq!(report["events"], 23);
    assert_eq!(report["malformed_lines"], 0);
    let k1 = &report["compactions"][0];
    assert_eq!(k1["id"], "k1");
    assert_eq!(k1["phase"], "applied");
    assert_eq!(k1["range"], json!({"from": 2, "to": 12}));
    assert_eq!(k1["verdict"], "spill");
    assert_eq!(k1["decision"]["verdict"], "approve");
    assert_eq!(k1["opaque_ratio"], 0.0);
    assert_eq!(
        k1["dropped"][0],
        json!({"token": "4f9a2c81d0e7", "class": "hex", "regenerable": false, "required_by": ["ob-rollback", "s3"]})
    );
    assert_eq!(k1["dropped"][1]["regenerable"], true);
    assert_eq!(k1["dropped_counts"], json!({"hex": 2, "path": 2}));
    assert_eq!(
        finding_kinds(&report),
        [
            "density_collapse",
            "dropped_binding",
            "non_idempotent",
            "override"
        ]
    );
    let findings = report["findings"].as_array().unwrap();
    let dropped = &findings[1];
    assert_eq!(dropped["severity"], "error");
    assert_eq!(dropped["token"], "4f9a2c81d0e7");
    assert_eq!(dropped["obligation"], "ob-rollback");
    assert_eq!(dropped["step"], "s3");
    let diverged = &findings[2];
    assert_eq!(
        diverged["expected"],
        json!({"id": "s3", "action": "rollback", "target": "4f9a2c81d0e7"})
    );
    assert_eq!(
        diverged["actual"],
        json!({"seq": 22, "step": "s3", "name": "rollback", "target": "7b1e9d03c2a5"})
    );
    assert_eq!(diverged["regenerated_from"], "4f9a2c81d0e7");
    assert_eq!(findings[3]["verdict"], "spill");
    assert_eq!(findings[3]["decided"], "approve");
}

#[test]
fn benign_compaction_keeps_everything_that_matters() {
    let (report, code) = audit_json(&sample("benign-compaction.jsonl"), &[]);
    assert_eq!(code, 0);
    let k1 = &report["compactions"][0];
    assert_eq!(k1["verdict"], "approve");
    assert_eq!(k1["opaque_ratio"], 1.0);
    assert_eq!(k1["dropped"], json!([]));
    assert_eq!(finding_kinds(&report), Vec::<String>::new());
}

#[test]
fn summary_of_a_summary_is_refetched() {
    let (report, code) = audit_json(&sample("summary-of-summary.jsonl"), &[]);
    assert_eq!(code, 1);
    assert_eq!(report["compactions"][0]["verdict"], "approve");
    assert_eq!(report["compactions"][1]["verdict"], "refetch");
    let kinds = finding_kinds(&report);
    assert!(
        kinds.contains(&"summary_of_summary".to_owned()),
        "{kinds:?}"
    );
    assert_eq!(report["findings"][0]["compaction"], "k2");
}

#[test]
fn partial_overlap_is_a_coverage_gap_and_refetched() {
    let (report, code) = audit_json(&sample("partial-overlap.jsonl"), &[]);
    assert_eq!(code, 1);
    assert_eq!(report["compactions"][1]["verdict"], "refetch");
    assert_eq!(report["findings"][0]["kind"], "coverage_gap");
    assert_eq!(report["findings"][0]["compaction"], "k2");
}

#[test]
fn unknown_binding_is_refused() {
    let (report, code) = audit_json(&sample("unknown-binding.jsonl"), &[]);
    assert_eq!(code, 1);
    assert_eq!(report["compactions"][0]["verdict"], "refuse");
    let finding = &report["findings"][0];
    assert_eq!(finding["kind"], "unknown_binding");
    assert_eq!(finding["token"], "pwt_6c1e0f3a");
    assert_eq!(finding["obligation"], "ob-commit");
}

#[test]
fn empty_range_is_refused() {
    let (report, code) = audit_json(&sample("empty-range.jsonl"), &[]);
    assert_eq!(code, 1);
    assert_eq!(report["compactions"][0]["verdict"], "refuse");
    assert_eq!(finding_kinds(&report), ["empty_span", "undecided"]);
}

#[test]
fn malformed_lines_are_reported_and_reading_goes_on() {
    let (report, code) = audit_json(&sample("malformed-lines.jsonl"), &[]);
    assert_eq!(code, 0, "malformed lines are warnings");
    assert_eq!(report["events"], 7);
    assert_eq!(report["malformed_lines"], 6);
    let lines: Vec<(u64, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "malformed_line")
        .map(|f| (f["line"].as_u64().unwrap(), f["offset"].as_u64().unwrap()))
        .collect();
    let bytes = std::fs::read(sample("malformed-lines.jsonl")).unwrap();
    for (line, offset) in &lines {
        // The offset is the first byte of that (1-based) line.
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        assert_eq!(starts[*line as usize - 1] as u64, *offset);
    }
    assert_eq!(
        lines.iter().map(|l| l.0).collect::<Vec<_>>(),
        [3, 5, 6, 8, 9, 11]
    );
    assert_eq!(report["compactions"][0]["verdict"], "approve");
}

#[test]
fn pending_compaction_waits_with_the_gate_saying_spill() {
    let (report, code) = audit_json(&sample("pending-compaction.jsonl"), &[]);
    assert_eq!(code, 1);
    assert_eq!(report["compactions"][0]["phase"], "proposed");
    assert_eq!(
        report["compactions"][0]["decision"],
        serde_json::Value::Null
    );
    assert!(finding_kinds(&report).contains(&"undecided".to_owned()));
}

#[test]
fn strict_makes_density_collapse_an_error() {
    let (report, _) = audit_json(&sample("partial-overlap.jsonl"), &["--strict"]);
    let collapse = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "density_collapse")
        .expect("collapse");
    assert_eq!(collapse["severity"], "error");
    assert!(collapse["opaque_ratio"].as_f64().unwrap() < collapse["prose_ratio"].as_f64().unwrap());
}

#[test]
fn tokens_flag_lists_every_dropped_token() {
    let (report, _) = audit_json(&sample("seed-migration-rollback.jsonl"), &["--tokens"]);
    let tokens = report["compactions"][0]["dropped_tokens"]
        .as_array()
        .unwrap();
    let texts: Vec<&str> = tokens
        .iter()
        .map(|t| t["token"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "deploy/staging.ini",
            "4f9a2c81d0e7",
            "9c3e5b7a1f20",
            "/var/log/alembic/staging-20261114T0901.log"
        ]
    );
    let (plain, _) = audit_json(&sample("seed-migration-rollback.jsonl"), &[]);
    assert!(plain["compactions"][0].get("dropped_tokens").is_none());
}
