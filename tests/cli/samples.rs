//! Every sample session's audit outcome.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::{json, Value};

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
    // Lines of its region cannot be read, and line 3 may have declared what is at
    // stake: the gate does not approve what it cannot see.
    let k1 = &report["compactions"][0];
    assert_eq!(k1["verdict"], "spill");
    assert_eq!(
        k1["reasons"],
        serde_json::json!([
            "a line of its region or its summary cannot be read",
            "unreadable line 3 may hold a binding or an obligation"
        ])
    );
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

#[test]
fn choices_the_summary_turned_around_or_dropped_are_signal_6() {
    let (report, code) = audit_json(&sample("choices-and-entities.jsonl"), &[]);
    assert_eq!(code, 1);
    let k1 = &report["compactions"][0];
    assert_eq!(k1["verdict"], "refetch");
    assert_eq!(
        finding_kinds(&report),
        ["polarity_flip", "entity_dropped", "undecided"]
    );
    let flip = first_finding(&report, "polarity_flip");
    assert_eq!(flip["severity"], "error");
    // Entities compare case-insensitively, whitespace runs as one space.
    assert_eq!(flip["entity"], "in-place migration");
    assert_eq!(flip["expected"], "rejected");
    assert_eq!(flip["found"], "chosen");
    let dropped = first_finding(&report, "entity_dropped");
    assert_eq!(
        (
            &dropped["entity"],
            &dropped["polarity"],
            &dropped["severity"]
        ),
        (&json!("force push"), &json!("forbidden"), &json!("warning"))
    );
    // A refetch re-summarizes under the schema and resolves signal 6.
    let (_dir, log) = sample_copy("choices-and-entities.jsonl");
    assert_exit(&decide(&log, "k1", "refetch", "ops"), 0);
    let (report, code) = audit_json(&log, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        first_finding(&report, "polarity_flip")["resolved_by"],
        "refetch"
    );
}

#[test]
fn a_region_with_choices_and_no_schema_is_schema_missing() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("s.jsonl");
    let lines = std::fs::read_to_string(sample("choices-and-entities.jsonl"))
        .unwrap()
        .replace(
            r#", "entities": [{"entity": "In-place  migration", "polarity": "chosen"}, {"entity": "blue-green deploy", "polarity": "chosen"}]"#,
            "",
        );
    std::fs::write(&log, lines).unwrap();
    let (report, code) = audit_json(&log, &[]);
    assert_eq!(
        (code, &report["compactions"][0]["verdict"]),
        (0, &json!("approve"))
    );
    assert_eq!(finding_kinds(&report), ["schema_missing", "undecided"]);
    let (report, code) = audit_json(&log, &["--strict"]);
    assert_eq!(
        (code, &report["compactions"][0]["verdict"]),
        (1, &json!("refetch"))
    );
    assert_eq!(
        first_finding(&report, "schema_missing")["severity"],
        "error"
    );
}

#[test]
fn a_rotated_log_cannot_refetch_so_the_gate_degrades() {
    let (report, code) = audit_json(&sample("rotated-log.jsonl"), &[]);
    assert_eq!(code, 1);
    let verdicts: Vec<&Value> = report["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["verdict"])
        .collect();
    // k1's originals are in the previous file: its range holds no events here.
    assert_eq!(verdicts, [&json!("refuse"), &json!("degrade")]);
    assert_eq!(
        report["degraded"],
        json!({"since": "k2", "why": "an operator decided degrade"})
    );
    let degraded = first_finding(&report, "degraded");
    assert_eq!(
        (
            &degraded["severity"],
            &degraded["since"],
            &degraded["resolved_by"]
        ),
        (&json!("warning"), &json!("k2"), &Value::Null)
    );
    // Degrade resolves nothing: the summary of a summary stays an error.
    assert_eq!(
        first_finding(&report, "summary_of_summary")["resolved_by"],
        Value::Null
    );
}

#[test]
fn an_applied_summary_of_a_summary_degrades_the_session() {
    let (report, _) = audit_json(&sample("summary-of-summary.jsonl"), &[]);
    assert_eq!(report["degraded"], Value::Null, "k2 is only proposed");
    let (_dir, log) = sample_copy("summary-of-summary.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    let last_seq = report["events"].as_u64().unwrap() + 100;
    text.push_str(&format!(
        "{{\"type\":\"compaction\",\"seq\":{last_seq},\"id\":\"k2\",\"phase\":\"applied\"}}\n"
    ));
    std::fs::write(&log, text).unwrap();
    let (report, _) = audit_json(&log, &[]);
    assert_eq!(report["degraded"]["since"], "k2");
    assert_eq!(
        report["degraded"]["why"],
        "a summary of a summary was applied"
    );
}
