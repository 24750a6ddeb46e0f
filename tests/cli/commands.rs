//! The commands' exit codes and outputs (docs/json-report.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::path::Path;

fn last_json(stdout: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stdout);
    serde_json::from_str(text.trim()).expect("one JSON line")
}

#[test]
fn every_command_has_help_with_an_example() {
    for command in [
        vec!["audit"],
        vec!["gate"],
        vec!["decide"],
        vec!["await"],
        vec!["spill", "get"],
    ] {
        let output = ctxlens().args(&command).arg("--help").output().unwrap();
        assert!(output.status.success(), "{command:?}");
        let help = String::from_utf8(output.stdout).unwrap();
        assert!(
            help.contains("Example"),
            "{command:?} help has no example:\n{help}"
        );
        assert!(
            help.contains("Exit status"),
            "{command:?} help has no exit status:\n{help}"
        );
    }
}

#[test]
fn audit_exit_codes_and_several_files() {
    ctxlens()
        .args(["audit"])
        .arg(sample("benign-compaction.jsonl"))
        .assert()
        .code(0);
    ctxlens()
        .args(["audit"])
        .arg(sample("seed-migration-rollback.jsonl"))
        .assert()
        .code(1);
    ctxlens()
        .args(["audit", "/nonexistent/log.jsonl"])
        .assert()
        .code(2);
    // With several files the highest code wins, and every file is still reported.
    let output = ctxlens()
        .args(["audit", "--json"])
        .arg(sample("benign-compaction.jsonl"))
        .arg("/nonexistent/log.jsonl")
        .arg(sample("seed-migration-rollback.jsonl"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[1]["error"].as_str().unwrap().contains("No such file"));
    assert_eq!(lines[2]["compactions"][0]["verdict"], "spill");
}

#[test]
fn audit_reads_an_empty_file_as_no_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").unwrap();
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["events"], 0);
    assert_eq!(report["compactions"], serde_json::json!([]));
    ctxlens().arg("audit").arg(dir.path()).assert().code(2);
}

#[test]
fn human_report_is_plain_when_piped_and_names_the_problem() {
    let output = ctxlens()
        .arg("audit")
        .arg(sample("seed-migration-rollback.jsonl"))
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "no colour when piped");
    assert!(text.contains("gate: SPILL"));
    assert!(text.contains("summary k1 dropped 4f9a2c81d0e7"));
    assert!(text.contains("2 errors, 2 warnings"));
}

#[test]
fn gate_exit_codes() {
    let out = ctxlens()
        .args(["gate"])
        .arg(sample("benign-compaction.jsonl"))
        .arg("k1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("APPROVE"));
    let out = ctxlens()
        .args(["gate", "--json"])
        .arg(sample("pending-compaction.jsonl"))
        .arg("k1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdict = last_json(&out.stdout);
    assert_eq!(verdict["verdict"], "spill");
    assert_eq!(verdict["findings"][0]["kind"], "density_collapse");
    ctxlens()
        .args(["gate"])
        .arg(sample("empty-range.jsonl"))
        .arg("k1")
        .assert()
        .code(1);
    let out = ctxlens()
        .args(["gate"])
        .arg(sample("benign-compaction.jsonl"))
        .arg("k9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("benign-compaction.jsonl: no compaction k9; it holds k1"),
        "{err}"
    );
    ctxlens()
        .args(["gate", "/nonexistent.jsonl", "k1"])
        .assert()
        .code(2);
}

#[test]
fn decide_records_once_and_the_first_decision_stands() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let out = ctxlens()
        .args(["decide"])
        .arg(&log)
        .args(["k1", "approve", "--by", "alice", "--reason", "tested"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let recorded = last_json(&out.stdout);
    assert_eq!(recorded["verdict"], "approve");
    assert_eq!(recorded["by"], "alice");
    assert_eq!(recorded["override"], true, "the gate says spill");
    let out = ctxlens()
        .args(["decide"])
        .arg(&log)
        .args(["k1", "refuse", "--by", "bob"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        last_json(&out.stdout)["by"],
        "alice",
        "prints the standing decision"
    );
    let sidecar = std::fs::read_to_string(log.with_extension("jsonl.decisions.jsonl")).unwrap();
    assert_eq!(sidecar.lines().count(), 1);
    // The audit now shows the decision and the override.
    let (report, _) = audit_json(&log, &[]);
    assert_eq!(report["compactions"][0]["decision"]["by"], "alice");
    assert!(finding_kinds(&report).contains(&"override".to_owned()));
    assert!(!finding_kinds(&report).contains(&"undecided".to_owned()));
}

#[test]
fn decide_refuses_unusable_input() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    ctxlens()
        .args(["decide"])
        .arg(&log)
        .args(["k7", "approve"])
        .assert()
        .code(2);
    ctxlens()
        .args(["decide"])
        .arg(&log)
        .args(["k1", "maybe"])
        .assert()
        .code(2);
    ctxlens()
        .args(["decide", "/nonexistent.jsonl", "k1", "approve"])
        .assert()
        .code(2);
    // A decision in the log itself stands ahead of the sidecar.
    let out = ctxlens()
        .args(["decide"])
        .arg(sample("seed-migration-rollback.jsonl"))
        .args(["k1", "spill"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(last_json(&out.stdout)["by"], "runtime-auto");
}

fn spill_handle(log: &Path) -> String {
    let out = ctxlens()
        .args(["decide"])
        .arg(log)
        .args(["k1", "spill", "--by", "ops"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    last_json(&out.stdout)["handle"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn spill_round_trip_is_the_exact_region() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let handle = spill_handle(&log);
    assert!(handle.starts_with("sha256:") && handle.len() == 71);
    let out = spill_get(&log, &handle);
    assert_eq!(out.status.code(), Some(0));
    // Seqs 2..=12 are lines 2..=12 of the log, newlines included.
    let log_text = std::fs::read_to_string(&log).unwrap();
    let expected: String = log_text.split_inclusive('\n').skip(1).take(11).collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    let (report, _) = audit_json(&log, &[]);
    assert_eq!(
        report["compactions"][0]["decision"]["handle"],
        handle.as_str()
    );
}

#[test]
fn corrupt_missing_and_malformed_handles_exit_2() {
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let handle = spill_handle(&log);
    let stored = dir
        .path()
        .join("pending-compaction.jsonl.spill")
        .join(handle.trim_start_matches("sha256:"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stored, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut bytes = std::fs::read(&stored).unwrap();
    bytes[10] ^= 1;
    std::fs::write(&stored, bytes).unwrap();
    let out = spill_get(&log, &handle);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing is printed from a corrupt spill"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("corrupt"));
    let missing = format!("sha256:{}", "0".repeat(64));
    ctxlens()
        .args(["spill", "get"])
        .arg(&log)
        .arg(missing)
        .assert()
        .code(2);
    ctxlens()
        .args(["spill", "get"])
        .arg(&log)
        .arg("sha256:xyz")
        .assert()
        .code(2);
}

#[test]
fn a_spill_that_cannot_be_stored_records_no_decision() {
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    // A file where the spill folder should be: the store cannot be created.
    std::fs::write(
        dir.path().join("pending-compaction.jsonl.spill"),
        "in the way",
    )
    .unwrap();
    let out = ctxlens()
        .args(["decide"])
        .arg(&log)
        .args(["k1", "spill"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot store the spill") && err.contains("no decision was recorded"),
        "{err}"
    );
    assert!(
        !dir.path()
            .join("pending-compaction.jsonl.decisions.jsonl")
            .exists()
            || std::fs::read_to_string(dir.path().join("pending-compaction.jsonl.decisions.jsonl"))
                .unwrap()
                .is_empty()
    );
}

#[test]
fn an_empty_range_cannot_be_spilled() {
    let (_dir, log) = sample_copy("empty-range.jsonl");
    let out = ctxlens()
        .args(["decide"])
        .arg(&log)
        .args(["k1", "spill"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no events"));
}
