//! The Claude Code hooks, fed recorded stdin payloads (`tests/hook-payloads/`) against a
//! transcript written as Claude Code writes it: up to the compaction, then after it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn hook(args: &[&str], stdin: &str) -> std::process::Output {
    ctxlens()
        .arg("hook")
        .arg("claude-code")
        .args(args)
        .write_stdin(stdin.to_owned())
        .output()
        .unwrap()
}

/// The JSON lines of the file beside `transcript` named with `suffix` (none when it is
/// missing).
fn beside(transcript: &Path, suffix: &str) -> Vec<Value> {
    let path = format!("{}{suffix}", transcript.display());
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ledger(transcript: &Path) -> Vec<Value> {
    beside(transcript, ".ctxlens-ledger.jsonl")
}

#[test]
fn pre_compact_spills_the_region_and_records_the_ledger() {
    let (_dir, path, _) = claude_transcript_before_boundary();
    let out = hook(&["pre-compact"], &hook_payload("pre-compact.json", &path));
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pre-compact-1: stored"));
    let entries = ledger(&path);
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry["event"], "pre-compact");
    assert_eq!(entry["id"], "pre-compact-1");
    let tokens: Vec<&str> = entry["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["token"].as_str().unwrap())
        .collect();
    assert!(
        tokens.contains(&"3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"),
        "{tokens:?}"
    );
    // The spill is the whole transcript so far (no earlier compaction), and reads back.
    let handle = entry["handle"].as_str().unwrap();
    let back = spill_get(&path, handle);
    assert_eq!(back.status.code(), Some(0));
    assert_eq!(back.stdout, std::fs::read(&path).unwrap());
}

#[test]
fn session_start_gives_back_the_dropped_identifiers_and_the_handle() {
    let (_dir, path, rest) = claude_transcript_before_boundary();
    hook(&["pre-compact"], &hook_payload("pre-compact.json", &path));
    // Claude Code compacts: the boundary and the summary land in the transcript.
    let mut all = std::fs::read_to_string(&path).unwrap();
    all.push_str(&rest);
    std::fs::write(&path, all).unwrap();
    let output = hook_answer("claude-code", "session-start", "session-start.json", &path);
    assert_eq!(
        output["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    let context = output["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"),
        "{context}"
    );
    assert!(
        context.contains("dropped"),
        "the summary is known: {context}"
    );
    let handle = ledger(&path)[0]["handle"].as_str().unwrap().to_owned();
    assert!(
        // The installed binary's own path: the agent's shell may not have ctxlens on
        // its PATH.
        context.contains(&format!(
            "{} spill get {} {handle}",
            assert_cmd::cargo::cargo_bin("ctxlens").display(),
            path.display()
        )),
        "{context}"
    );
    // Other sources add nothing.
    let startup = hook_payload("session-start.json", &path).replace("\"compact\"", "\"startup\"");
    let out = hook(&["session-start"], &startup);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}

#[test]
fn post_compact_records_what_the_summary_dropped() {
    let (_dir, path, _) = claude_transcript_before_boundary();
    hook(&["pre-compact"], &hook_payload("pre-compact.json", &path));
    let out = hook(&["post-compact"], &hook_payload("post-compact.json", &path));
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("the summary dropped 3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"));
    let entries = ledger(&path);
    assert_eq!(entries[1]["event"], "post-compact");
    assert!(entries[1]["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["token"] == "3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"));
}

#[test]
fn bad_stdin_exits_0_and_changes_nothing() {
    let (dir, path, _) = claude_transcript_before_boundary();
    let before: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let missing = hook_payload("pre-compact.json", Path::new("/nonexistent/t.jsonl"));
    for (hook_name, stdin) in [
        ("pre-compact", "garbage"),
        ("pre-compact", "{}"),
        ("pre-compact", "[1,2]"),
        ("pre-compact", missing.as_str()),
        ("session-start", "\u{1b}]0;x\u{7}"),
        ("session-start", "{\"source\":\"compact\"}"),
        ("post-compact", "{\"transcript_path\":42}"),
    ] {
        let out = hook(&[hook_name], stdin);
        assert_eq!(out.status.code(), Some(0), "{hook_name} {stdin:?}");
        assert!(out.stdout.is_empty());
        assert!(!String::from_utf8_lossy(&out.stderr).contains('\u{1b}'));
    }
    // session-start before any pre-compact: nothing to add, nothing written.
    let out = hook(
        &["session-start"],
        &hook_payload("session-start.json", &path),
    );
    assert_eq!(out.status.code(), Some(0));
    let after: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn hold_waits_for_an_operator_and_refuse_blocks() {
    let (_dir, path, _) = claude_transcript_before_boundary();
    let out = held("claude-code", "pre-compact.json", &path, "refuse");
    assert_exit(&out, 2);
    // A timeout lets the compaction go ahead.
    let out = hook(
        &["pre-compact", "--hold", "--timeout", "0.2"],
        &hook_payload("pre-compact.json", &path),
    );
    assert_eq!(out.status.code(), Some(0));
    // A held compaction can be spilled: the decision names the hook's handle.
    let out = held("claude-code", "pre-compact.json", &path, "spill");
    assert_exit(&out, 0);
    let decision = &decisions(&path)[1];
    let third = ledger(&path)
        .into_iter()
        .find(|e| e["event"] == "pre-compact" && e["id"] == "pre-compact-3")
        .unwrap();
    assert_eq!(decision["compaction"], "pre-compact-3");
    assert_eq!(decision["handle"], third["handle"]);
}

fn decisions(transcript: &Path) -> Vec<Value> {
    beside(transcript, ".decisions.jsonl")
}

#[test]
fn a_decision_on_a_held_compaction_is_the_decision_of_the_compaction_that_lands() {
    let (_dir, path, rest) = claude_transcript_before_boundary();
    // Refused first: the agent does not compact, and nothing may link to that hold.
    assert_exit(&held("claude-code", "pre-compact.json", &path, "refuse"), 2);
    assert_exit(&held("claude-code", "pre-compact.json", &path, "spill"), 0);
    land(&path, &rest);
    let (report, code) = audit_json(&path, &[]);
    let compaction = &report["compactions"][0];
    assert_eq!(compaction["held_as"], "pre-compact-2", "{compaction}");
    assert_eq!(compaction["decision"]["verdict"], "spill", "{compaction}");
    assert_eq!(compaction["decision"]["compaction"], "pre-compact-2");
    // The spill resolves what the summary dropped (docs/remedies.md): a handled compaction
    // passes CI.
    let unresolved: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error" && f["resolved_by"].is_null())
        .collect();
    assert!(unresolved.is_empty(), "{unresolved:?}");
    assert_eq!(code, 0, "{report}");
    let text = ctxlens().arg("audit").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("decision: spill by ops") && text.contains("held as pre-compact-2"),
        "{text}"
    );
    // A decision recorded on the landed id now finds the held one standing.
    let id = compaction["id"].as_str().unwrap();
    let out = decide(&path, id, "approve", "late");
    assert_exit(&out, 1);
    assert_eq!(decisions(&path).len(), 2);
}

#[test]
fn a_compaction_that_lands_with_no_hold_before_it_carries_no_held_decision() {
    let (_dir, path, rest) = claude_transcript_before_boundary();
    assert_exit(&held("claude-code", "pre-compact.json", &path, "refuse"), 2);
    // The agent compacts all the same (no hook ran again): the refused hold is not it.
    land(&path, &rest);
    let (report, _) = audit_json(&path, &[]);
    let compaction = &report["compactions"][0];
    assert!(compaction.get("held_as").is_none(), "{compaction}");
    assert!(compaction["decision"].is_null(), "{compaction}");
}

#[test]
fn a_codex_compaction_carries_the_decision_its_hook_was_given() {
    let (_dir, path) = rollout();
    assert_exit(&held("codex", "codex-pre-compact.json", &path, "spill"), 0);
    let full = std::fs::read_to_string(sample("codex-rollout.jsonl")).unwrap();
    let cut = full.find("\"type\": \"compacted\"").unwrap();
    let line_start = full[..cut].rfind('\n').map_or(0, |i| i + 1);
    land(&path, &full[line_start..]);
    let (report, _) = audit_json(&path, &[]);
    let compaction = &report["compactions"][0];
    assert_eq!(compaction["held_as"], "pre-compact-1", "{compaction}");
    assert_eq!(compaction["decision"]["verdict"], "spill", "{compaction}");
    // Only the first compaction after the hold is the held one.
    let second = &report["compactions"][1];
    assert!(second["decision"].is_null(), "{second}");
}

#[test]
fn a_decision_that_differs_from_the_gate_on_a_held_compaction_is_an_override() {
    let (_dir, path, _) = claude_transcript_before_boundary();
    // The ledger names identifiers at risk: the gate says spill.
    assert_exit(
        &held("claude-code", "pre-compact.json", &path, "approve"),
        0,
    );
    assert_exit(&held("claude-code", "pre-compact.json", &path, "spill"), 0);
    let recorded = decisions(&path);
    assert_eq!(recorded[0]["verdict"], "approve");
    assert_eq!(recorded[0]["override"], true, "{:?}", recorded[0]);
    assert_eq!(recorded[1]["override"], false, "{:?}", recorded[1]);
}

#[test]
fn a_decision_after_the_hold_ended_is_refused_with_exit_2() {
    let (_dir, path, rest) = claude_transcript_before_boundary();
    let out = hook(
        &["pre-compact", "--hold", "--timeout", "0.2"],
        &hook_payload("pre-compact.json", &path),
    );
    assert_exit(&out, 0);
    for verdict in ["refuse", "spill", "approve", "preserve"] {
        let out = decide(&path, "pre-compact-1", verdict, "late");
        assert_exit(&out, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("timed out"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    // Once decided and released, a second word on it says what was decided.
    assert_exit(
        &held("claude-code", "pre-compact.json", &path, "approve"),
        0,
    );
    land(&path, &rest);
    let out = decide(&path, "pre-compact-2", "refuse", "late");
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("answered the agent with approve"), "{err}");
    assert!(err.contains("landed as"), "{err}");
    assert_eq!(decisions(&path).len(), 1);
}

#[test]
fn refetch_is_not_offered_on_a_held_compaction() {
    let (_dir, path, _) = claude_transcript_before_boundary();
    let child = hold_claude_code(&path, &[]);
    let out = decide(&path, "pre-compact-1", "refetch", "ops");
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("refetch is not offered"));
    assert_exit(&decide(&path, "pre-compact-1", "approve", "ops"), 0);
    assert_exit(&child.wait_with_output().unwrap(), 0);
}

#[test]
fn a_held_hook_sleeps_while_it_waits() {
    if !Path::new("/proc/self/stat").exists() {
        skip(
            "a_held_hook_sleeps_while_it_waits",
            "no /proc to count CPU ticks in",
        );
        return;
    }
    let (_dir, path, _) = claude_transcript_before_boundary();
    let child = hold_claude_code(&path, &[]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let before = cpu_ticks(child.id());
    let waited = std::time::Duration::from_secs(3);
    std::thread::sleep(waited);
    let used = cpu_ticks(child.id()) - before;
    // 1% of a core over the wait.
    let allowed = 3 * clock_ticks_per_second() / 100;
    assert!(
        used <= allowed,
        "the held hook used {used} ticks of CPU in {waited:?}"
    );
    // And it still hears a decision at once.
    assert_exit(&decide(&path, "pre-compact-1", "approve", "ops"), 0);
    assert_exit(&child.wait_with_output().unwrap(), 0);
}

#[test]
fn install_merges_with_existing_hooks_and_never_overwrites_them() {
    let project = tempfile::tempdir().unwrap();
    let settings = project.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let existing = r#"{"model":"opus","hooks":{"PreCompact":[{"matcher":"","hooks":[{"type":"command","command":"other-tool backup"}]}]}}"#;
    std::fs::write(&settings, existing).unwrap();
    let out = ctxlens()
        .args(["hook", "claude-code", "install", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let merged: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(merged["model"], "opus");
    let pre = merged["hooks"]["PreCompact"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["hooks"][0]["command"], "other-tool backup");
    assert!(pre[1]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with("hook claude-code pre-compact"));
    assert_eq!(merged["hooks"]["SessionStart"][0]["matcher"], "compact");
    assert!(merged["hooks"]["PostCompact"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with("post-compact"));
    // Twice is once.
    let out = ctxlens()
        .args(["hook", "claude-code", "install", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("already installed"));
    let again: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(again, merged);
    // Settings that are not JSON are left alone.
    std::fs::write(&settings, "{ not json").unwrap();
    let out = ctxlens()
        .args(["hook", "claude-code", "install", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{ not json");
}

#[test]
fn the_ledger_turns_a_drop_into_an_alert_as_the_compaction_lands() {
    let (_dir, path, rest) = claude_transcript_before_boundary();
    hook(&["pre-compact"], &hook_payload("pre-compact.json", &path));
    // Only the boundary and its summary have landed: no later use yet.
    let landed: String = rest.lines().take(2).map(|l| format!("{l}\n")).collect();
    let mut all = std::fs::read_to_string(&path).unwrap();
    all.push_str(&landed);
    std::fs::write(&path, all).unwrap();
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 1);
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["kind"] == "dropped_binding" && f["token"] == "3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"
        })
        .expect("the ledger's token, dropped")
        .clone();
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("binding ledger"),
        "{finding}"
    );
    // Without the ledger, nothing says it is needed yet.
    std::fs::remove_file(format!("{}.ctxlens-ledger.jsonl", path.display())).unwrap();
    let (report, _) = audit_json(&path, &[]);
    assert!(!finding_kinds(&report).contains(&"dropped_binding".to_owned()));
}

/// The Codex sample cut before its first `compacted` record.
fn rollout() -> (tempfile::TempDir, PathBuf) {
    let full = std::fs::read_to_string(sample("codex-rollout.jsonl")).unwrap();
    let cut = full.find("\"type\": \"compacted\"").expect("a compaction");
    let line_start = full[..cut].rfind('\n').map_or(0, |i| i + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("rollout-2026-11-21T09-00-00-0199a1b2.jsonl");
    std::fs::write(&path, &full[..line_start]).unwrap();
    (dir, path)
}

/// Starts `ctxlens ARGS` with `stdin` written to it, its output piped.
fn spawn_hook(args: &[&str], stdin: &str) -> std::process::Child {
    spawn_with_stdin(args, &[], stdin)
}

/// Runs a held pre-compact hook of `agent`, decides `verdict` once it holds, and
/// returns the hook's output.
fn held(agent: &str, payload_name: &str, path: &Path, verdict: &str) -> std::process::Output {
    held_with(agent, &hook_payload(payload_name, path), path, verdict)
}

/// [`held`] with the hook's stdin as given.
fn held_with(agent: &str, payload: &str, path: &Path, verdict: &str) -> std::process::Output {
    let child = spawn_hook(
        &["hook", agent, "pre-compact", "--hold", "--timeout", "60"],
        payload,
    );
    let n = ledger_len(path) + 1;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ledger_len(path) < n {
        assert!(std::time::Instant::now() < deadline, "the hook never held");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let id = format!(
        "pre-compact-{}",
        ledger(path)
            .iter()
            .filter(|e| e["event"] == "pre-compact")
            .count()
    );
    assert_exit(&decide(path, &id, verdict, "ops"), 0);
    child.wait_with_output().unwrap()
}

#[test]
fn claude_code_hears_each_decision_the_way_it_reads_a_hook() {
    let (_dir, path, _) = claude_transcript_before_boundary();
    // Approve and spill: exit 0, nothing on stdout (the region is spilled already).
    for verdict in ["approve", "spill"] {
        let out = held("claude-code", "pre-compact.json", &path, verdict);
        assert_exit(&out, 0);
        assert!(out.stdout.is_empty(), "{verdict}");
    }
    // Preserve: the contract on stdout, which Claude Code adds to the compaction
    // instructions; the held compaction's contract is what the ledger says is at risk.
    let out = held("claude-code", "pre-compact.json", &path, "preserve");
    assert_exit(&out, 0);
    let contract = String::from_utf8(out.stdout).unwrap();
    assert!(
        contract.starts_with("Keep these identifiers verbatim:\n- "),
        "{contract}"
    );
    assert!(
        contract.contains("3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"),
        "{contract}"
    );
    // Refuse: exit 2, which blocks the compaction, with the reason on stderr.
    let out = held("claude-code", "pre-compact.json", &path, "refuse");
    assert_exit(&out, 2);
    // Claude Code shows a blocking hook's stderr as the reason: one line, no log.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("refused by ops"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Every hook that stopped waiting said so: none is shown as held any more.
    let released = ledger(&path)
        .iter()
        .filter(|e| e["event"] == "released")
        .count();
    assert_eq!(released, 4);
}

#[test]
fn codex_hears_each_decision_the_way_it_reads_a_hook() {
    let (_dir, path) = rollout();
    let out = held("codex", "codex-pre-compact.json", &path, "approve");
    assert_exit(&out, 0);
    assert!(out.stdout.is_empty());
    // Refuse: `continue: false` stops the compaction (Codex ignores plain stdout and
    // treats a non-zero exit as a failed hook, not a block).
    let out = held("codex", "codex-pre-compact.json", &path, "refuse");
    assert_exit(&out, 0);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["continue"], false);
    assert!(answer["stopReason"]
        .as_str()
        .unwrap()
        .contains("refused by ops"));
    // Preserve of a manual /compact: no way to reach Codex's summarizer, so it stops
    // and shows the contract to the person.
    let manual = hook_payload("codex-pre-compact.json", &path).replace("\"auto\"", "\"manual\"");
    let out = held_with("codex", &manual, &path, "preserve");
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["continue"], false);
    assert!(answer["systemMessage"]
        .as_str()
        .unwrap()
        .contains("Keep these identifiers verbatim:"));
    // Preserve of an auto-compaction: stopping would end the user's turn, so it goes
    // ahead, and SessionStart (source compact) puts the contract into the context.
    let out = held("codex", "codex-pre-compact.json", &path, "preserve");
    assert_exit(&out, 0);
    assert!(out.stdout.is_empty());
    let answer = hook_answer("codex", "session-start", "codex-session-start.json", &path);
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("Keep these identifiers verbatim:"),
        "{context}"
    );
    assert!(context.contains("spill get"), "{context}");
    // After a compaction: what was at risk and the read-back command, by absolute path.
    let answer = hook_answer("codex", "post-compact", "codex-post-compact.json", &path);
    let message = answer["systemMessage"].as_str().unwrap();
    let binary = assert_cmd::cargo::cargo_bin("ctxlens");
    assert!(
        message.contains(&format!(
            "{} spill get {}",
            binary.display(),
            path.display()
        )),
        "{message}"
    );
    assert!(message.contains("arn:aws:rds"), "{message}");
}

/// The Qwen Code fixture cut before its compression record, as the transcript was when
/// its PreCompact hook ran.
fn qwen_recording() -> (tempfile::TempDir, PathBuf) {
    let full = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen-code-compression.jsonl"),
    )
    .unwrap();
    let cut = full
        .find("\"subtype\":\"chat_compression\"")
        .expect("a compression");
    let line_start = full[..cut].rfind('\n').map_or(0, |i| i + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("5b63a2d6-1839-4b44-98e8-0b0589ef1fda.jsonl");
    std::fs::write(&path, &full[..line_start]).unwrap();
    (dir, path)
}

/// What a Qwen Code PreCompact hook answered: its additionalContext.
fn qwen_context(out: &std::process::Output) -> String {
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreCompact");
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn qwen_code_hears_each_decision_the_way_it_reads_a_hook() {
    let (_dir, path) = qwen_recording();
    // Qwen Code adds a PreCompact hook's additionalContext (JSON) to its summariser's
    // instructions: the identifiers at risk and the read-back command go there always.
    let out = held("qwen-code", "qwen-pre-compact.json", &path, "approve");
    assert_exit(&out, 0);
    let context = qwen_context(&out);
    assert!(
        context.contains("Copy each into the summary verbatim:\n- 4f9a2c81d0e7"),
        "{context}"
    );
    assert!(context.contains(" spill get "), "{context}");
    assert!(
        !context.contains("Keep these identifiers verbatim"),
        "{context}"
    );
    // Preserve: the contract too.
    let out = held("qwen-code", "qwen-pre-compact.json", &path, "preserve");
    let context = qwen_context(&out);
    assert!(
        context.contains("Keep these identifiers verbatim:\n- 4f9a2c81d0e7"),
        "{context}"
    );
    // Refuse: Qwen Code ignores a block, so none is recorded, and the hook still holds
    // until a decision it can carry out.
    let child = spawn_hook(
        &[
            "hook",
            "qwen-code",
            "pre-compact",
            "--hold",
            "--timeout",
            "60",
        ],
        &hook_payload("qwen-pre-compact.json", &path),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ledger(&path)
        .iter()
        .filter(|e| e["event"] == "pre-compact")
        .count()
        < 3
    {
        assert!(std::time::Instant::now() < deadline, "the hook never held");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let before = decisions(&path).len();
    let refused = decide(&path, "pre-compact-3", "refuse", "ops");
    assert_exit(&refused, 2);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("Qwen Code's pre-compact hook, which cannot block"),
        "{stderr}"
    );
    assert_eq!(decisions(&path).len(), before, "nothing recorded");
    assert_exit(&decide(&path, "pre-compact-3", "spill", "ops"), 0);
    assert_exit(&child.wait_with_output().unwrap(), 0);
    // After the compression: what the summary dropped, into the ledger.
    let out = hook_of(
        "qwen-code",
        &["post-compact"],
        &hook_payload("qwen-post-compact.json", &path),
    );
    assert_exit(&out, 0);
    let post = ledger(&path)
        .into_iter()
        .rfind(|e| e["event"] == "post-compact")
        .expect("a post-compact entry");
    assert!(post["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["token"] == "4f9a2c81d0e7"));
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `hook` of `agent` on the recorded payload `payload` for `path`: its JSON answer
/// (it must exit 0).
fn hook_answer(agent: &str, hook: &str, payload: &str, path: &Path) -> Value {
    let out = hook_of(agent, &[hook], &hook_payload(payload, path));
    assert_exit(&out, 0);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn hook_of(agent: &str, args: &[&str], stdin: &str) -> std::process::Output {
    ctxlens()
        .args(["hook", agent])
        .args(args)
        .write_stdin(stdin.to_owned())
        .output()
        .unwrap()
}

#[test]
fn install_writes_timeouts_that_outlast_the_hold_and_absolute_commands() {
    let project = tempfile::tempdir().unwrap();
    let out = ctxlens()
        .args([
            "hook",
            "claude-code",
            "install",
            "--hold",
            "--timeout",
            "120",
            "--project",
        ])
        .arg(project.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let settings = read_json(&project.path().join(".claude/settings.json"));
    let binary = assert_cmd::cargo::cargo_bin("ctxlens");
    let pre = &settings["hooks"]["PreCompact"][0]["hooks"][0];
    assert_eq!(
        pre["command"],
        format!(
            "{} hook claude-code pre-compact --hold --timeout 120",
            binary.display()
        )
    );
    assert_eq!(pre["timeout"], 150);
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
        30
    );
    // Installing again without --hold replaces ctxlens's hook, never adds a second one.
    let out = ctxlens()
        .args(["hook", "claude-code", "install", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let settings = read_json(&project.path().join(".claude/settings.json"));
    let pre = settings["hooks"]["PreCompact"].as_array().unwrap();
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0]["hooks"][0]["timeout"], 30);
    // Codex: its own hooks.json, PreCompact and PostCompact.
    let out = ctxlens()
        .args(["hook", "codex", "install", "--hold", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Hooks need review"));
    let hooks = read_json(&project.path().join(".codex/hooks.json"));
    let pre = &hooks["hooks"]["PreCompact"][0]["hooks"][0];
    assert_eq!(
        pre["command"],
        format!(
            "{} hook codex pre-compact --hold --timeout 300",
            binary.display()
        )
    );
    assert_eq!(pre["timeout"], 330);
    assert!(hooks["hooks"]["PostCompact"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with("hook codex post-compact"));
}

#[test]
fn hooks_at_once_get_distinct_ids() {
    let (_dir, path, _) = claude_transcript_before_boundary();
    let input = hook_payload("pre-compact.json", &path);
    let children: Vec<_> = (0..6)
        .map(|_| spawn_hook(&["hook", "claude-code", "pre-compact"], &input))
        .collect();
    for child in children {
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let mut ids: Vec<String> = ledger(&path)
        .iter()
        .filter(|e| e["event"] == "pre-compact")
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6, "{ids:?}");
}

fn install_in(project: &Path, agent: &str, extra: &[&str]) -> std::process::Output {
    ctxlens()
        .args(["hook", agent, "install", "--project"])
        .arg(project)
        .args(extra)
        .output()
        .unwrap()
}

fn uninstall_in(project: &Path, agent: &str) -> std::process::Output {
    ctxlens()
        .args(["hook", agent, "uninstall", "--project"])
        .arg(project)
        .output()
        .unwrap()
}

#[test]
fn uninstall_gives_back_the_settings_byte_for_byte() {
    let project = tempfile::tempdir().unwrap();
    let settings = project.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    // A user's own layout: four spaces, CRLF line ends, a number spelled 1.50, and a
    // hook of theirs that merely mentions ctxlens's command.
    let theirs = "{\r\n    \"model\": \"opus\",\r\n    \"ratio\": 1.50,\r\n    \"hooks\": {\r\n        \"SessionStart\": [\r\n            {\r\n                \"matcher\": \"compact\",\r\n                \"hooks\": [\r\n                    {\r\n                        \"type\": \"command\",\r\n                        \"command\": \"echo ctxlens hook claude-code session-start >> notes\"\r\n                    }\r\n                ]\r\n            }\r\n        ]\r\n    }\r\n}\r\n";
    std::fs::write(&settings, theirs).unwrap();
    let out = install_in(project.path(), "claude-code", &["--hold"]);
    assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("the hooks run "), "{stdout}");
    let installed = std::fs::read_to_string(&settings).unwrap();
    // Minimal: every line of theirs is still there, spelled as it was.
    assert!(
        installed.contains("\r\n    \"ratio\": 1.50,\r\n"),
        "{installed}"
    );
    assert!(installed.contains("echo ctxlens hook claude-code session-start >> notes"));
    assert!(
        !installed.replace("\r\n", "").contains('\n'),
        "{installed:?}"
    );
    // Installing again (another hold) replaces ctxlens's hook only.
    assert_exit(
        &install_in(
            project.path(),
            "claude-code",
            &["--hold", "--timeout", "60"],
        ),
        0,
    );
    let again: Value = read_json(&settings);
    let starts = again["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(starts.len(), 2, "{again}");
    let out = uninstall_in(project.path(), "claude-code");
    assert_exit(&out, 0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), theirs);
    // A file install made is gone again.
    let fresh = tempfile::tempdir().unwrap();
    assert_exit(&install_in(fresh.path(), "codex", &[]), 0);
    assert_exit(&uninstall_in(fresh.path(), "codex"), 0);
    assert!(!fresh.path().join(".codex/hooks.json").exists());
}

#[test]
fn uninstall_keeps_what_the_user_changed_since_install() {
    let project = tempfile::tempdir().unwrap();
    let settings = project.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    assert_exit(&install_in(project.path(), "claude-code", &[]), 0);
    let mut changed = read_json(&settings);
    changed["model"] = Value::from("sonnet");
    std::fs::write(
        &settings,
        serde_json::to_string_pretty(&changed).unwrap() + "\n",
    )
    .unwrap();
    assert_exit(&uninstall_in(project.path(), "claude-code"), 0);
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\n  \"model\": \"sonnet\"\n}\n"
    );
}

#[test]
fn install_refuses_a_timeout_that_is_not_a_number_of_seconds() {
    let project = tempfile::tempdir().unwrap();
    for bad in ["nan", "inf", "1e300", "-1", "0", "86401"] {
        let out = install_in(project.path(), "claude-code", &["--hold", "--timeout", bad]);
        assert_exit(&out, 2);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--timeout"),
            "{bad}"
        );
        assert!(!project.path().join(".claude").exists(), "{bad}");
    }
    // A hook written by hand with a bad timeout still never breaks the agent: it holds
    // for the default time, and hears the decision.
    let (_dir, path, _) = claude_transcript_before_boundary();
    let child = spawn_hook(
        &[
            "hook",
            "claude-code",
            "pre-compact",
            "--hold",
            "--timeout",
            "nan",
        ],
        &hook_payload("pre-compact.json", &path),
    );
    wait_for_ledger(&path, 1);
    assert_exit(&decide(&path, "pre-compact-1", "spill", "ops"), 0);
    let out = child.wait_with_output().unwrap();
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("holding 300 s"));
}

#[test]
fn install_refuses_a_link_to_nothing() {
    let project = tempfile::tempdir().unwrap();
    let folder = project.path().join(".claude");
    std::fs::create_dir_all(&folder).unwrap();
    let target = project.path().join("elsewhere/deep/settings.json");
    std::os::unix::fs::symlink(&target, folder.join("settings.json")).unwrap();
    let out = install_in(project.path(), "claude-code", &[]);
    assert_exit(&out, 2);
    assert!(!project.path().join("elsewhere").exists());
}

#[test]
fn status_says_installed_current_and_for_codex_trusted() {
    let project = tempfile::tempdir().unwrap();
    let codex_home = tempfile::tempdir().unwrap();
    let status = || {
        ctxlens()
            .args(["hook", "codex", "status", "--project"])
            .arg(project.path())
            .env("CODEX_HOME", codex_home.path())
            .output()
            .unwrap()
    };
    let out = status();
    assert_exit(&out, 1);
    assert!(String::from_utf8_lossy(&out.stdout).contains("installed: no"));
    let out = ctxlens()
        .args(["hook", "codex", "install", "--project"])
        .arg(project.path())
        .env("CODEX_HOME", codex_home.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("Hooks need review"), "{said}");
    assert!(!said.contains("[features]"), "{said}");
    let out = status();
    assert_exit(&out, 1);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("installed: yes") && said.contains("current: yes"),
        "{said}"
    );
    assert!(said.contains("trusted: no"), "{said}");
    // The person trusts them in Codex's review: Codex writes the entries.
    let hooks_json = project
        .path()
        .join(".codex/hooks.json")
        .canonicalize()
        .unwrap();
    let trust = format!(
        "[hooks.state.\"{0}:pre_compact:0:0\"]\ntrusted_hash = \"sha256:00\"\n\n[hooks.state.\"{0}:session_start:0:0\"]\ntrusted_hash = \"sha256:22\"\n\n[hooks.state.\"{0}:post_compact:0:0\"]\ntrusted_hash = \"sha256:11\"\n",
        hooks_json.display()
    );
    std::fs::write(codex_home.path().join("config.toml"), trust).unwrap();
    let out = status();
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("trusted: a trust entry"));
}

#[test]
fn copilot_cli_gets_an_observing_hook_in_a_file_of_its_own() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        ctxlens()
            .args(["hook", "copilot-cli"])
            .args(args)
            .env("COPILOT_HOME", home.path())
            .output()
            .unwrap()
    };
    let file = home.path().join("hooks/ctxlens.json");
    assert_exit(&run(&["status"]), 1);
    assert_exit(&run(&["install"]), 0);
    let hooks = read_json(&file);
    assert_eq!(hooks["version"], 1);
    let command = hooks["hooks"]["preCompact"][0]["bash"].as_str().unwrap();
    assert!(
        command.ends_with(" hook copilot-cli pre-compact"),
        "{command}"
    );
    assert_exit(&run(&["status"]), 0);
    // It cannot hold: install --hold says so and changes nothing.
    let before = std::fs::read(&file).unwrap();
    let out = run(&["install", "--hold"]);
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot block"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_exit(&run(&["uninstall"]), 0);
    assert!(!file.exists());
    // A ctxlens.json with someone else's hooks is never touched.
    let theirs = r#"{"version": 1, "hooks": {"preCompact": [{"type": "command", "bash": "my-tool", "timeoutSec": 5}]}}"#;
    std::fs::write(&file, theirs).unwrap();
    assert_exit(&run(&["install"]), 2);
    assert_exit(&run(&["uninstall"]), 2);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), theirs);
}

#[test]
fn the_copilot_cli_hook_records_the_compaction_as_it_starts() {
    // The real client's session cut before its compaction started.
    let full = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot-cli-compaction.jsonl"),
    )
    .unwrap();
    let cut = full
        .find("\"session.compaction_start\"")
        .expect("a compaction");
    let line_start = full[..cut].rfind('\n').map_or(0, |i| i + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, &full[..line_start]).unwrap();
    // Copilot CLI names the fields in camelCase (transcriptPath).
    let mut payload: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/hook-payloads/copilot-pre-compact.json"),
        )
        .unwrap(),
    )
    .unwrap();
    payload["transcriptPath"] = Value::from(path.display().to_string());
    payload["cwd"] = Value::from(dir.path().display().to_string());
    let out = hook_of("copilot-cli", &["pre-compact"], &payload.to_string());
    assert_exit(&out, 0);
    assert!(out.stdout.is_empty(), "Copilot CLI reads nothing from it");
    let entries = ledger(&path);
    let entry = entries
        .iter()
        .find(|e| e["event"] == "pre-compact")
        .unwrap();
    assert_eq!(entry["trigger"], "manual");
    assert!(entry.get("hold_until").is_none());
    assert!(entry["handle"].as_str().unwrap().starts_with("sha256:"));
    assert!(entry["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["token"] == "4f9a2c81d0e7"));
    // The compaction lands: the ledger turns its drop into an alert.
    std::fs::write(&path, &full).unwrap();
    let (report, _) = audit_json(&path, &[]);
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["kind"] == "dropped_binding"
            && f["message"].as_str().unwrap().contains("4f9a2c81d0e7")
            && f["message"].as_str().unwrap().contains("binding ledger")));
}

/// The fixture's OpenCode database as it was when OpenCode asked for the compaction:
/// the summary and what came after are not written yet.
#[cfg(feature = "opencode")]
#[test]
fn opencode_hears_each_decision_the_way_its_plugin_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let db = opencode_before_its_compaction(dir.path());
    let (db_s, state_s) = (db.display().to_string(), state.path().display().to_string());
    let env = [
        ("OPENCODE_DB", db_s.as_str()),
        ("XDG_STATE_HOME", state_s.as_str()),
    ];
    let input = r#"{"sessionID": "ses_dbf35cbc4ffexZCIwXw14GB2r3"}"#;
    let child = spawn_with_stdin(
        &[
            "hook",
            "opencode",
            "pre-compact",
            "--hold",
            "--timeout",
            "60",
        ],
        &env,
        input,
    );
    // The hook holds the compaction on ctxlens's copy of the session.
    let copy = || {
        let mirror = state.path().join("ctxlens/mirror");
        std::fs::read_dir(&mirror).ok()?.find_map(|d| {
            let path = d.ok()?.path().join("ses_dbf35cbc4ffexZCIwXw14GB2r3.jsonl");
            path.exists().then_some(path)
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let path = loop {
        if let Some(path) = copy().filter(|p| !ledger(p).is_empty()) {
            break path;
        }
        assert!(std::time::Instant::now() < deadline, "the hook never held");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // Refuse: OpenCode cannot be made to refuse, so none is recorded.
    let refused = decide(&path, "pre-compact-1", "refuse", "ops");
    assert_exit(&refused, 2);
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("OpenCode's pre-compact hook, which cannot block"));
    assert_exit(&decide(&path, "pre-compact-1", "preserve", "ops"), 0);
    let out = child.wait_with_output().unwrap();
    assert_exit(&out, 0);
    // The plugin adds `context` to the summariser's prompt: what is at risk, the
    // read-back command, and the contract.
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let context = answer["context"][0].as_str().unwrap();
    assert!(
        context.contains("Copy each into the summary verbatim:\n- 4f9a2c81d0e7"),
        "{context}"
    );
    assert!(context.contains(" spill get "), "{context}");
    assert!(
        context.contains("Keep these identifiers verbatim:\n- 4f9a2c81d0e7"),
        "{context}"
    );
    // Nothing was written beside the database.
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("opencode.db")));
}

#[test]
fn the_opencode_plugin_is_a_file_of_its_own() {
    let config = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        ctxlens()
            .args(["hook", "opencode"])
            .args(args)
            .env("XDG_CONFIG_HOME", config.path())
            .output()
            .unwrap()
    };
    let plugin = config.path().join("opencode/plugins/ctxlens.js");
    assert_exit(&run(&["status"]), 1);
    assert_exit(&run(&["install", "--hold", "--timeout", "120"]), 0);
    let text = std::fs::read_to_string(&plugin).unwrap();
    assert!(
        text.contains("\"experimental.session.compacting\""),
        "{text}"
    );
    assert!(
        text.contains(r#""pre-compact", "--hold", "--timeout", "120""#),
        "{text}"
    );
    let binary = assert_cmd::cargo::cargo_bin("ctxlens");
    assert!(text.contains(&serde_json::Value::from(binary.display().to_string()).to_string()));
    assert_exit(&run(&["status"]), 0);
    assert_exit(&run(&["uninstall"]), 0);
    assert!(!plugin.exists());
    // Someone else's ctxlens.js is never touched.
    std::fs::write(&plugin, "export const Mine = async () => ({})\n").unwrap();
    assert_exit(&run(&["install"]), 2);
    assert_exit(&run(&["uninstall"]), 2);
    assert!(std::fs::read_to_string(&plugin)
        .unwrap()
        .starts_with("export const Mine"));
}

/// The plugin, run by node as OpenCode runs it: a hook that crashes, is killed or
/// answers what is not JSON is a failure, never "nothing to do": the summariser is
/// asked to keep every identifier, and the reason goes to OpenCode's log; a hook that
/// answers is passed on as it answered.
#[test]
fn the_opencode_plugin_treats_a_failed_hook_as_a_failure() {
    let Some(node) = ["node", "nodejs"].into_iter().find(|n| {
        std::process::Command::new(n)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        skip(
            "the_opencode_plugin_treats_a_failed_hook_as_a_failure",
            "no node here",
        );
        return;
    };
    let config = tempfile::tempdir().unwrap();
    let out = ctxlens()
        .args(["hook", "opencode", "install"])
        .env("XDG_CONFIG_HOME", config.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let plugin =
        std::fs::read_to_string(config.path().join("opencode/plugins/ctxlens.js")).unwrap();
    let binary = serde_json::Value::from(
        assert_cmd::cargo::cargo_bin("ctxlens")
            .display()
            .to_string(),
    )
    .to_string();
    let run_with = |program: &str| {
        let module = config.path().join("plugin.mjs");
        std::fs::write(
            &module,
            plugin.replace(&binary, &serde_json::Value::from(program).to_string()),
        )
        .unwrap();
        let script = format!(
            "const {{ Ctxlens }} = await import({module});\n\
             const hooks = await Ctxlens();\n\
             const output = {{ context: [] }};\n\
             await hooks['experimental.session.compacting']({{ sessionID: 'ses_1' }}, output);\n\
             console.log(JSON.stringify(output.context));",
            module = serde_json::Value::from(module.display().to_string())
        );
        let out = std::process::Command::new(node)
            .args(["--input-type=module", "-e", &script])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let context: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
        (context, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let script = |name: &str, body: &str| {
        let path = config.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        path.display().to_string()
    };
    for (name, body, why) in [
        (
            "crashes",
            "cat > /dev/null; echo 'thread main panicked' >&2; exit 101",
            "exited 101",
        ),
        ("killed", "cat > /dev/null; kill -9 $$", "killed by SIGKILL"),
        ("garbled", "cat > /dev/null; echo 'not json'", "not JSON"),
    ] {
        let (context, stderr) = run_with(&script(name, body));
        assert_eq!(context.len(), 1, "{name}: {context:?}");
        assert!(
            context[0].contains("Keep every identifier"),
            "{name}: {context:?}"
        );
        assert!(stderr.contains(why), "{name}: {stderr}");
    }
    let (context, _) = run_with("/no/such/ctxlens");
    assert!(context[0].contains("Keep every identifier"), "{context:?}");
    let (context, stderr) = run_with(&script(
        "answers",
        r#"cat > /dev/null; echo '{"context": ["keep 4f9a2c81d0e7"]}'"#,
    ));
    assert_eq!(context, ["keep 4f9a2c81d0e7"], "{stderr}");
}
