//! The remedies of docs/remedies.md and docs/remedies.md as a runtime uses them: the contract, the
//! `preserve` verdict, and the tripwire `check`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

fn run(args: &[&str], log: &Path) -> (String, i32) {
    let out = ctxlens()
        .arg(args[0])
        .arg(log)
        .args(&args[1..])
        .output()
        .expect("runs");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        out.status.code().expect("exit code"),
    )
}

fn append(log: &Path, lines: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(log).unwrap();
    file.write_all(lines.as_bytes()).unwrap();
}

#[test]
fn the_contract_names_what_must_stay_verbatim_and_why() {
    let log = sample("pending-compaction.jsonl");
    let (text, code) = run(&["contract"], &log);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        "Keep these identifiers verbatim:\n\
         - 4f9a2c81d0e7: the staging revision before the migration: the rollback target (needed by ob-rollback, s3)\n"
    );
    let (json, code) = run(&["contract", "k1", "--json"], &log);
    assert_eq!(code, 0);
    let contract: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        contract,
        json!({"at": 13, "bindings": [{
            "token": "4f9a2c81d0e7",
            "regenerable": false,
            "note": "the staging revision before the migration: the rollback target",
            "required_by": ["ob-rollback", "s3"]
        }]})
    );
    // A summary that kept everything at stake leaves an empty contract: exit 1.
    let (text, code) = run(&["contract", "k1"], &sample("benign-compaction.jsonl"));
    assert_eq!(
        (text.as_str(), code),
        ("Keep these identifiers verbatim:\n", 1)
    );
    let (_, code) = run(&["contract", "nope"], &log);
    assert_eq!(code, 2);
}

#[test]
fn preserve_records_the_contract_and_resolves_what_the_summary_dropped() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let (_, code) = audit_json(&log, &[]);
    assert_eq!(code, 1);
    let out = decide(&log, "k1", "preserve", "alice");
    assert_exit(&out, 0);
    let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(decision["verdict"], "preserve");
    // Preserving what the gate would spill keeps the same bindings: no override.
    assert_eq!(decision["override"], false);
    let contract = decision["contract"].as_str().unwrap();
    assert!(contract.starts_with("Keep these identifiers verbatim:\n- 4f9a2c81d0e7: "));
    // The runtime's side: await hands it the contract to end the new summary with.
    let (awaited, code) = run(&["await", "k1"], &log);
    assert_eq!(code, 0);
    let awaited: Value = serde_json::from_str(&awaited).unwrap();
    assert_eq!(awaited["contract"], contract);
    // Signals 1 and 2 are resolved while the compaction is not applied.
    let (report, code) = audit_json(&log, &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        first_finding(&report, "dropped_binding")["resolved_by"],
        "preserve"
    );
    // Applied anyway: the runtime did not follow it, so nothing is resolved.
    append(
        &log,
        "{\"type\":\"compaction\",\"seq\":14,\"id\":\"k1\",\"phase\":\"applied\"}\n",
    );
    let (report, code) = audit_json(&log, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        first_finding(&report, "dropped_binding")["resolved_by"],
        Value::Null
    );
}

#[test]
fn preserve_with_an_empty_contract_records_nothing() {
    let (_dir, log) = sample_copy("malformed-lines.jsonl");
    let out = decide(&log, "k1", "preserve", "alice");
    assert_exit(&out, 2);
    assert!(!log.with_extension("jsonl.decisions.jsonl").exists());
}

#[test]
fn check_stops_a_regenerated_rollback_target_and_hands_back_the_spill() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let out = decide(&log, "k1", "spill", "alice");
    assert_exit(&out, 0);
    let handle = serde_json::from_slice::<Value>(&out.stdout).unwrap()["handle"]
        .as_str()
        .unwrap()
        .to_owned();
    append(
        &log,
        "{\"type\":\"compaction\",\"seq\":14,\"id\":\"k1\",\"phase\":\"applied\"}\n\
         {\"type\":\"action\",\"seq\":15,\"step\":\"s2\",\"name\":\"smoke\",\"target\":\"staging\"}\n",
    );
    // The agent is about to roll back to a revision it made up.
    let made_up = r#"{"name":"rollback","target":"7b1e9d03c2a5","step":"s3"}"#;
    let (text, code) = run(&["check", "--action", made_up], &log);
    assert_eq!(code, 1);
    let result: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        result,
        json!({
            "diverges": true,
            "expected": {"id": "s3", "action": "rollback", "target": "4f9a2c81d0e7"},
            "regenerated_from": "4f9a2c81d0e7",
            "compaction": "k1",
            "handle": handle,
        })
    );
    // The runtime restores from the handle: the region holds the right revision.
    let restored = spill_get(&log, &handle);
    assert_exit(&restored, 0);
    assert!(String::from_utf8_lossy(&restored.stdout).contains("4f9a2c81d0e7"));
    // The planned action passes.
    let planned = r#"{"name":"rollback","target":"4f9a2c81d0e7"}"#;
    let (text, code) = run(&["check", "--action", planned], &log);
    assert_eq!((text.trim(), code), (r#"{"diverges":false}"#, 0));
    // Once the log itself diverged, every check reports that first divergence.
    append(
        &log,
        "{\"type\":\"action\",\"seq\":16,\"step\":\"s3\",\"name\":\"rollback\",\"target\":\"7b1e9d03c2a5\"}\n",
    );
    let (text, code) = run(&["check", "--action", planned], &log);
    assert_eq!(code, 1);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["expected"]["target"],
        "4f9a2c81d0e7"
    );
}

#[test]
fn check_without_an_applied_compaction_or_with_bad_input() {
    let log = sample("pending-compaction.jsonl");
    let action = r#"{"name":"rollback","target":"x"}"#;
    let (text, code) = run(&["check", "--action", action], &log);
    assert_eq!((text.trim(), code), (r#"{"diverges":false}"#, 0));
    for bad in ["[1]", "{\"target\":\"x\"}", "{\"name\":3}", "not json"] {
        let (_, code) = run(&["check", "--action", bad], &log);
        assert_eq!(code, 2, "{bad}");
    }
}

/// The text block of an asset: what is between its first ```text fence and the next.
fn asset_block(name: &str) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(name),
    )
    .unwrap();
    let start = text.find("```text\n").unwrap() + "```text\n".len();
    let end = start + text[start..].find("```").unwrap();
    text[start..end].to_owned()
}

#[test]
fn the_assets_show_the_contract_as_the_tool_prints_it() {
    let log = sample("pending-compaction.jsonl");
    let (now, _) = run(&["contract"], &log);
    assert!(asset_block("summarizer-prompt.md").ends_with(&now));
    let (k1, _) = run(&["contract", "k1"], &log);
    let summary = asset_block("preserved-summary.md");
    assert!(summary.ends_with(&k1));
    // The re-proposed summary passes the gate: preserve did its job.
    let (_dir, copy) = sample_copy("pending-compaction.jsonl");
    assert_exit(&decide(&copy, "k1", "preserve", "ops"), 0);
    let k2 = json!({"type": "compaction", "seq": 14, "id": "k2", "phase": "proposed",
        "range": {"from": 2, "to": 12}, "input": "log", "summary": summary});
    append(&copy, &format!("{k2}\n"));
    let (verdict, code) = run(&["gate", "k2"], &copy);
    assert_eq!((verdict.trim(), code), ("k2: APPROVE", 0));
}

/// A runtime that follows `preserve` writes the summary refused, to re-propose it: the
/// report calls it preserved, not refused.
#[test]
fn a_preserved_compaction_is_not_titled_refused() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    assert_exit(&decide(&log, "k1", "preserve", "alice"), 0);
    append(
        &log,
        "{\"type\":\"compaction\",\"seq\":14,\"id\":\"k1\",\"phase\":\"refused\"}\n",
    );
    let out = ctxlens().arg("audit").arg(&log).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let title = text
        .lines()
        .find(|l| l.starts_with("compaction k1"))
        .unwrap();
    assert!(title.contains("preserved (to be re-proposed)"), "{title}");
    let (report, _) = audit_json(&log, &[]);
    assert_eq!(
        report["compactions"][0]["phase"], "refused",
        "the JSON keeps the log's word"
    );
}
