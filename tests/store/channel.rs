//! The decision channel under concurrency, and `await` meeting a decision written by
//! another process.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("ctxlens")
}

/// A log with `n` proposed compactions k1..kn, each over one message.
fn log_with_compactions(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let path = dir.join("many.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    for i in 1..=n {
        let seq = 2 * i;
        writeln!(
            file,
            r#"{{"type":"message","seq":{},"role":"assistant","text":"step {i} done"}}"#,
            seq - 1
        )
        .unwrap();
        writeln!(
            file,
            r#"{{"type":"compaction","seq":{seq},"id":"k{i}","phase":"proposed","range":{{"from":{},"to":{}}},"summary":"step {i} done"}}"#,
            seq - 1,
            seq - 1
        )
        .unwrap();
    }
    path
}

#[test]
fn thirty_two_concurrent_deciders_leave_every_line_intact() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_compactions(dir.path(), 32);
    let children: Vec<_> = (1..=32)
        .map(|i| {
            let verdict = if i % 2 == 0 { "spill" } else { "approve" };
            Command::new(bin())
                .arg("decide")
                .arg(&log)
                .arg(format!("k{i}"))
                .arg(verdict)
                .args([
                    "--by",
                    &format!("writer-{i}"),
                    "--reason",
                    &"x".repeat(2000),
                ])
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let sidecar = std::fs::read_to_string(dir.path().join("many.jsonl.decisions.jsonl")).unwrap();
    let lines: Vec<Value> = sidecar
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a whole decision"))
        .collect();
    assert_eq!(lines.len(), 32);
    let mut ids: Vec<String> = lines
        .iter()
        .map(|d| d["compaction"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 32);
    let (report, _) = audit_json(&log, &[]);
    assert!(!finding_kinds(&report).contains(&"decision_conflict".to_owned()));
}

#[test]
fn thirty_two_racing_deciders_on_one_compaction_record_exactly_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_compactions(dir.path(), 1);
    let children: Vec<_> = (0..32)
        .map(|i| {
            Command::new(bin())
                .arg("decide")
                .arg(&log)
                .args(["k1", "approve", "--by", &format!("writer-{i}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let codes: Vec<i32> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap().status.code().unwrap())
        .collect();
    assert_eq!(codes.iter().filter(|&&c| c == 0).count(), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|&&c| c == 1).count(), 31, "{codes:?}");
    let sidecar = std::fs::read_to_string(dir.path().join("many.jsonl.decisions.jsonl")).unwrap();
    assert_eq!(sidecar.lines().count(), 1);
}

#[test]
fn conflicting_lines_from_lock_ignoring_writers_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_compactions(dir.path(), 1);
    std::fs::write(
        dir.path().join("many.jsonl.decisions.jsonl"),
        "{\"compaction\":\"k1\",\"verdict\":\"approve\",\"by\":\"alice\"}\n{\"compaction\":\"k1\",\"verdict\":\"refuse\",\"by\":\"bob\"}\n",
    )
    .unwrap();
    let (report, _) = audit_json(&log, &[]);
    let conflict = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "decision_conflict")
        .expect("conflict reported");
    assert_eq!(conflict["by"], "bob");
    assert_eq!(conflict["verdict"], "refuse");
    assert_eq!(report["compactions"][0]["decision"]["by"], "alice");
}

/// `ctxlens await LOG k1` in the background, given time to start waiting.
fn spawn_await(log: &std::path::Path) -> std::process::Child {
    let waiter = Command::new(bin())
        .arg("await")
        .arg(log)
        .args(["k1", "--timeout", "60"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    waiter
}

#[test]
fn await_returns_a_decision_another_process_writes() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let waiter = spawn_await(&log);
    assert_exit(&decide(&log, "k1", "refuse", "ops"), 0);
    let output = waiter.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let decision: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(decision["verdict"], "refuse");
    assert_eq!(decision["by"], "ops");
}

#[test]
fn await_sees_a_decision_event_appended_to_the_log() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let waiter = spawn_await(&log);
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(
        br#"{"type":"decision","seq":14,"compaction":"k1","verdict":"spill","by":"runtime"}"#,
    )
    .unwrap();
    file.write_all(b"\n").unwrap();
    let output = waiter.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let decision: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(decision["by"], "runtime");
}

#[test]
fn await_times_out_silently_or_records_the_gate_verdict_with_auto() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let out = ctxlens()
        .arg("await")
        .arg(&log)
        .args(["k1", "--timeout", "0.2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let out = ctxlens()
        .arg("await")
        .arg(&log)
        .args(["k1", "--timeout", "0.1", "--auto"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(decision["verdict"], "spill", "the gate's verdict");
    assert_eq!(decision["by"], "auto");
    assert_eq!(decision["override"], false);
    assert!(decision["handle"].as_str().unwrap().starts_with("sha256:"));
    // Now a decision stands: await returns it at once.
    let out = ctxlens().arg("await").arg(&log).arg("k1").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    ctxlens()
        .arg("await")
        .arg(&log)
        .args(["k9", "--timeout", "1"])
        .assert()
        .code(2);
}

#[test]
fn await_gives_up_when_its_log_is_deleted_or_replaced() {
    for replace in [false, true] {
        let (_dir, log) = sample_copy("pending-compaction.jsonl");
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
            .arg("await")
            .arg(&log)
            .arg("k1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        if replace {
            // Another file renamed over it, as log rotation does.
            let fresh = log.with_extension("new");
            std::fs::write(
                &fresh,
                "{\"type\":\"message\",\"seq\":1,\"text\":\"new\"}\n",
            )
            .unwrap();
            std::fs::rename(&fresh, &log).unwrap();
        } else {
            std::fs::remove_file(&log).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert_exit(&out, 2);
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(
            why.contains(if replace { "replaced" } else { "deleted" }),
            "{why}"
        );
    }
}
