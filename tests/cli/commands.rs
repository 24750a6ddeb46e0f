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
    ctxlens().arg("audit").arg(dir.path()).assert().code(0);
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

/// Ids are shown cut to 8 characters: every command that takes one takes a start of 6
/// or more that names one compaction, and names the candidates of an ambiguous one.
#[test]
fn a_start_of_an_id_names_its_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("s.jsonl");
    let compaction = |seq: u64, id: &str| {
        format!(
            r#"{{"type":"compaction","seq":{seq},"id":"{id}","phase":"proposed","range":{{"from":1,"to":1}},"summary":"reads"}}"#
        )
    };
    let lines = [
        r#"{"type":"message","seq":1,"role":"user","text":"read the docs"}"#.to_owned(),
        compaction(2, "4b6c5733-0a0a-4b4b-8c8c-000000000001"),
        compaction(3, "4b6c5733-0a0a-4b4b-8c8c-000000000002"),
        compaction(4, "9e1f2a3b-0a0a-4b4b-8c8c-000000000003"),
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let run = |args: &[&str]| {
        ctxlens()
            .args([args[0]])
            .arg(&log)
            .args(&args[1..])
            .output()
            .unwrap()
    };
    let gate = run(&["gate", "9e1f2a3b"]);
    assert_ne!(
        gate.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&gate.stderr)
    );
    let said = String::from_utf8_lossy(&gate.stdout);
    assert!(
        said.starts_with("9e1f2a3b-0a0a-4b4b-8c8c-000000000003: "),
        "{said}"
    );
    assert_ne!(run(&["contract", "9e1f2a"]).status.code(), Some(2));
    let ambiguous = run(&["gate", "4b6c5733"]);
    assert_eq!(ambiguous.status.code(), Some(2));
    let said = String::from_utf8_lossy(&ambiguous.stderr);
    assert!(
        said.contains("000000000001") && said.contains("000000000002"),
        "{said}"
    );
    assert_eq!(
        run(&["gate", "9e1f2"]).status.code(),
        Some(2),
        "5 characters name nothing"
    );
    let decided = run(&["decide", "9e1f2a3b", "spill", "--by", "ops"]);
    assert_exit(&decided, 0);
    let decision = last_json(&decided.stdout);
    assert_eq!(
        decision["compaction"],
        "9e1f2a3b-0a0a-4b4b-8c8c-000000000003"
    );
    let handle = decision["handle"].as_str().unwrap();
    let short = &handle[..15];
    let region = spill_get(&log, short);
    assert_exit(&region, 0);
    assert_eq!(region.stdout, spill_get(&log, handle).stdout);
}

/// `audit` and the TUI count resolved findings by one rule: whatever its severity, a
/// finding a standing decision resolves is marked ✔ and counted as resolved.
#[test]
fn audit_counts_a_resolved_warning_as_resolved_as_the_tui_does() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    spill_handle(&log);
    let out = ctxlens().arg("audit").arg(&log).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let density = text
        .lines()
        .find(|l| l.contains("density_collapse"))
        .unwrap();
    assert!(density.starts_with("  ✔ warning"), "{density}");
    let (report, _) = audit_json(&log, &[]);
    let findings = report["findings"].as_array().unwrap();
    let resolved = findings
        .iter()
        .filter(|f| !f["resolved_by"].is_null())
        .count();
    let summary = text.lines().last().unwrap();
    assert!(
        summary.ends_with(&format!(", {resolved} resolved")),
        "{summary}"
    );
    let warnings = findings
        .iter()
        .filter(|f| f["severity"] == "warning" && f["resolved_by"].is_null())
        .count();
    assert!(
        summary.contains(&format!("{warnings} warning")),
        "{summary}"
    );
}

/// `audit` on a folder audits the session logs under it, as the TUI lists them; a file
/// with lines and not one event (a binary) is no log and exits 2.
#[test]
fn audit_reads_a_folders_logs_and_refuses_a_file_that_is_no_log() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::copy(
        sample("benign-compaction.jsonl"),
        dir.path().join("a.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        sample("pending-compaction.jsonl"),
        dir.path().join("sub/b.jsonl"),
    )
    .unwrap();
    let out = ctxlens()
        .args(["audit", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the pending one has an error");
    let text = String::from_utf8_lossy(&out.stdout);
    let files: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{text}");
    let empty = tempfile::tempdir().unwrap();
    let out = ctxlens().arg("audit").arg(empty.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session logs"));
    let binary = dir.path().join("binary.jsonl");
    let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    std::fs::write(&binary, bytes).unwrap();
    let out = ctxlens().arg("audit").arg(&binary).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a session log"));
}

/// A reader that goes away (`ctxlens audit | head`) ends every command quietly with
/// status 0, as `rg | head` does, even one that would have exited 1 on its findings.
#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let log = sample("claude-code-ssh-host.jsonl");
    for args in [
        vec!["audit", "--json", "--tokens"],
        vec!["audit"],
        vec!["export", "--format", "json"],
        vec!["contract"],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
            .args(&args)
            .arg(&log)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader is gone before the command writes.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Built without fleet mode, every command given a server says why it cannot use one.
#[cfg(not(feature = "fleet"))]
#[test]
fn without_fleet_mode_a_server_is_refused_saying_why() {
    let log = sample("seed-migration-rollback.jsonl");
    let log = log.to_str().unwrap();
    for args in [
        vec!["ship", log, "--once", "--nats", "nats://127.0.0.1:9"],
        vec!["fleet", "--nats", "nats://127.0.0.1:9"],
        vec!["audit", log, "--nats", "nats://127.0.0.1:9"],
    ] {
        let out = ctxlens().args(&args).output().unwrap();
        assert_exit(&out, 2);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("without fleet mode"), "{args:?}: {stderr}");
    }
}

/// Built without OpenCode support, a database is refused saying why.
#[cfg(not(feature = "opencode"))]
#[test]
fn without_opencode_support_a_database_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    let out = ctxlens().arg("audit").arg(&db).output().unwrap();
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("without OpenCode support"), "{stderr}");
}
