//! The rules of docs/transcripts.md on shapes taken from real transcripts: extraction, the failed
//! call on a regenerated identifier, and findings resolved by a standing decision.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use ctxlens_core::analysis::{extract, extract_directories};
use ctxlens_core::model::TokenClass;
use serde_json::Value;

fn tokens(text: &str) -> Vec<(String, TokenClass)> {
    extract(text)
        .iter()
        .map(|f| (f.text(text).to_owned(), f.class))
        .collect()
}

fn texts(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(|(t, _)| t).collect()
}

#[test]
fn grep_output_gives_the_path_alone() {
    let grep = "src/config/segment.go-88-\tfoo := 1\nsrc/config/segment.go:89:\tbar()\ndocs/guide.md:72:see above";
    assert_eq!(
        texts(grep),
        [
            "src/config/segment.go",
            "src/config/segment.go",
            "docs/guide.md"
        ]
    );
}

#[test]
fn urls_stop_at_brackets_and_the_prose_after_them() {
    let md =
        "詳細は[ドキュメント](https://docs.example.com/guide)を参照。次は https://x.io/a、それから";
    assert_eq!(
        texts(md),
        ["https://docs.example.com/guide", "https://x.io/a"]
    );
    assert_eq!(
        texts("see https://en.wikipedia.org/wiki/Foo_(bar)."),
        ["https://en.wikipedia.org/wiki/Foo_(bar)"]
    );
}

#[test]
fn template_leftovers_imports_and_system_paths_are_no_tokens() {
    for text in [
        "curl -o /tmp/gh_${GH_VERSION}.tar.gz",
        "import { Button } from '@/components/ui/button.tsx'",
        "import x from '~/lib/util.ts'",
        "2>/dev/null; /usr/bin/env python3; /usr/local/bin/node",
        "cat {dir}/<name>.json",
    ] {
        assert!(
            tokens(text).iter().all(|(t, _)| !t.starts_with('/')),
            "{text:?} holds no absolute path: {:?}",
            tokens(text)
        );
    }
    assert!(texts("import x from '~/lib/util.ts'").is_empty());
    assert!(texts("2>/dev/null and /usr/bin/env").is_empty());
}

#[test]
fn read_gutters_and_lines_apart_are_not_numbered_tokens() {
    assert!(texts("fixes the issue\n    59→fn main() {").is_empty());
    assert_eq!(texts("see issue #59 and PR: 381"), ["59", "381"]);
}

#[test]
fn diff_headers_ls_and_git_listings() {
    assert_eq!(
        texts("diff --git a/src/app.rs b/src/app.rs\n--- a/src/app.rs\n+++ b/src/app.rs"),
        ["src/app.rs", "src/app.rs", "src/app.rs", "src/app.rs"]
    );
    let log = "4f9a2c8 Fix upload\n9c3e5b7 Add MFA (#212)";
    assert_eq!(texts(log), ["4f9a2c8", "9c3e5b7"]);
    let status = "On branch feat/upload-e2e\n\tmodified:   web/src/pages/Upload.tsx";
    assert_eq!(
        tokens(status),
        [
            ("feat/upload-e2e".to_owned(), TokenClass::Branch),
            ("web/src/pages/Upload.tsx".to_owned(), TokenClass::Path)
        ]
    );
    let ls = "-rw-r--r--  1 ann staff  912 Feb 13 10:01 package.json\ndrwxr-xr-x  4 ann staff  128 Feb 13 10:01 src";
    assert!(
        texts(ls).is_empty(),
        "bare names in a listing are not paths"
    );
}

#[test]
fn the_identifier_kinds_operators_need() {
    assert_eq!(
        tokens("git checkout -b fix/login-42 && git push origin/release-2.1"),
        [
            ("fix/login-42".to_owned(), TokenClass::Branch),
            ("release-2.1".to_owned(), TokenClass::Branch)
        ]
    );
    assert_eq!(
        tokens("price pri_01h2xcejqtf2nbrexx3vqjhp41 for group.com.example.app"),
        [
            (
                "pri_01h2xcejqtf2nbrexx3vqjhp41".to_owned(),
                TokenClass::VendorId
            ),
            ("group.com.example.app".to_owned(), TokenClass::ReverseDns)
        ]
    );
    assert_eq!(
        texts("原稿/第3章_はじめに.mdを5回読んだ"),
        ["原稿/第3章_はじめに.md"]
    );
    let dirs: Vec<String> = extract_directories("ls -la src/components/ && cd /srv/app/")
        .iter()
        .map(|f| f.text("ls -la src/components/ && cd /srv/app/").to_owned())
        .collect();
    assert_eq!(dirs, ["src/components", "/srv/app"]);
    assert!(texts("the branch is main").is_empty());
}

fn log(lines: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (dir, path)
}

#[test]
fn a_failed_call_on_a_look_alike_of_a_dropped_token_is_regenerated_binding() {
    let (_dir, path) = log(&[
        r#"{"type":"session","seq":1,"cwd":"/srv"}"#,
        r#"{"type":"tool_result","seq":2,"call_id":"c0","text":"head is 4f9a2c81d0e7"}"#,
        r#"{"type":"compaction","seq":3,"id":"k1","phase":"applied","range":{"from":1,"to":2},"summary":"migrated staging"}"#,
        r#"{"type":"tool_call","seq":4,"call_id":"c1","name":"shell","input":{"cmd":"alembic downgrade 7b1e9d03c2a5"}}"#,
        r#"{"type":"tool_result","seq":5,"call_id":"c1","is_error":true,"text":"Can't locate revision identified by '7b1e9d03c2a5'"}"#,
    ]);
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 1);
    let finding = first_finding(&report, "regenerated_binding");
    assert_eq!(finding["severity"], "error");
    assert_eq!(finding["token"], "4f9a2c81d0e7");
    assert_eq!(finding["regenerated"], "7b1e9d03c2a5");
    assert_eq!(finding["step"], "shell c1 (seq 4)");
    assert_eq!(finding["resolved_by"], Value::Null, "what happened stays");
}

#[test]
fn a_call_that_worked_or_a_known_value_is_no_regeneration() {
    let (_dir, path) = log(&[
        r#"{"type":"tool_result","seq":1,"call_id":"c0","text":"head is 4f9a2c81d0e7, old 7b1e9d03c2a5"}"#,
        r#"{"type":"compaction","seq":2,"id":"k1","phase":"applied","range":{"from":1,"to":1},"summary":"migrated"}"#,
        r#"{"type":"tool_call","seq":3,"call_id":"c1","name":"shell","input":{"cmd":"alembic downgrade 7b1e9d03c2a5"}}"#,
        r#"{"type":"tool_result","seq":4,"call_id":"c1","is_error":true,"text":"failed"}"#,
    ]);
    let (report, _) = audit_json(&path, &[]);
    assert!(!finding_kinds(&report).contains(&"regenerated_binding".to_owned()));
}

/// The SSH harm: the summary dropped the server's address, the agent used another host
/// it knew (the CDN's), the call timed out, and it recovered only by reading the address
/// again.
#[test]
fn a_failed_call_on_another_known_host_then_the_dropped_one_is_regenerated_binding() {
    let (report, code) = audit_json(&sample("claude-code-ssh-host.jsonl"), &[]);
    assert_eq!(code, 1);
    let finding = first_finding(&report, "regenerated_binding");
    assert_eq!(finding["severity"], "error");
    assert_eq!(finding["token"], "203.0.113.7");
    assert_eq!(finding["regenerated"], "cdn.example.com");
    assert_eq!(finding["step"], "Bash toolu_10 (seq 11)");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("recovered only at Bash toolu_15 (seq 16)"),
        "{message}"
    );
    // audit marks each dropped token by what became of it, one glyph a meaning.
    let out = ctxlens()
        .arg("audit")
        .arg(sample("claude-code-ssh-host.jsonl"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("    ↺ 203.0.113.7 (host) re-derived"),
        "{text}"
    );
    assert!(
        text.contains("    ⚠ .github/workflows/deploy.yml (path) dropped, recalled"),
        "{text}"
    );
    // The address came back through a tool result before it was used: no loss warning.
    let dropped: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "dropped_binding" && f["token"] == "203.0.113.7")
        .collect();
    assert!(dropped.is_empty(), "{dropped:?}");
}

/// Without the recovery (the agent never used the dropped address), a failed call on a
/// host the session knew is no proof the agent regenerated it.
#[test]
fn a_failed_call_on_another_host_with_no_recovery_is_no_regeneration() {
    let text = std::fs::read_to_string(sample("claude-code-ssh-host.jsonl")).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("toolu_15") && !l.contains("Deployed and restarted"))
        .collect();
    let (_dir, path) = log(&kept);
    let (report, _) = audit_json(&path, &[]);
    assert!(
        !finding_kinds(&report).contains(&"regenerated_binding".to_owned()),
        "{report:#}"
    );
}

/// A file named after a call listed its folder (`ls .github/workflows/`) was found
/// again, not recalled: the listing brought it back.
#[test]
fn a_file_used_after_its_folder_was_listed_is_no_recalled_loss() {
    let recalled = |report: &Value| -> Vec<String> {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                f["kind"] == "dropped_binding" && f["token"] == ".github/workflows/deploy.yml"
            })
            .map(|f| f["message"].as_str().unwrap().to_owned())
            .collect()
    };
    let (before, _) = audit_json(&sample("claude-code-ssh-host.jsonl"), &[]);
    assert_eq!(recalled(&before).len(), 1, "the sample recalls it");
    let text = std::fs::read_to_string(sample("claude-code-ssh-host.jsonl")).unwrap();
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.contains(r#""id": "toolu_13""#) {
            let mut call: Value = serde_json::from_str(line).unwrap();
            call["message"]["content"][0] = serde_json::json!({
                "type": "tool_use", "id": "toolu_ls", "name": "Bash",
                "input": {"command": "ls .github/workflows/"}
            });
            let result = serde_json::json!({
                "type": "user", "uuid": "u_ls", "parentUuid": call["uuid"], "cwd": call["cwd"],
                "sessionId": call["sessionId"], "timestamp": call["timestamp"],
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_ls", "content": "ci.yml\ndeploy.yml"}
                ]}
            });
            call["uuid"] = Value::from("a_ls");
            lines.push(call.to_string());
            lines.push(result.to_string());
        }
        lines.push(line.to_owned());
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_dir, path) = log(&lines);
    let (after, _) = audit_json(&path, &[]);
    assert!(recalled(&after).is_empty(), "{:?}", recalled(&after));
}

/// How many `dropped_binding` findings `audit` reports on `path` for `token`.
fn dropped_bindings_of(path: &std::path::Path, token: &str) -> usize {
    let (report, _) = audit_json(path, &[]);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "dropped_binding" && f["token"] == token)
        .count()
}

/// A value the agent's memory folder or its project's `CLAUDE.md` names is put back in
/// every context: its use after a summary dropped it is no loss.
#[test]
fn a_value_named_in_memory_or_claude_md_is_carried_over() {
    let token = ".github/workflows/deploy.yml";
    let recalled = |path: &std::path::Path| dropped_bindings_of(path, token);
    let text = std::fs::read_to_string(sample("claude-code-ssh-host.jsonl")).unwrap();
    // Beside the transcript, as Claude Code keeps a project's memory.
    let (dir, path) = log(&text.lines().collect::<Vec<_>>());
    assert_eq!(recalled(&path), 1, "the sample recalls it");
    std::fs::create_dir(dir.path().join("memory")).unwrap();
    let memory = dir.path().join("memory").join("MEMORY.md");
    std::fs::write(&memory, format!("- deploys run from `{token}`\n")).unwrap();
    assert_eq!(recalled(&path), 0, "memory carries it");
    std::fs::remove_file(&memory).unwrap();
    // In the project's CLAUDE.md, in the session's cwd on this machine.
    let project = tempfile::tempdir().unwrap();
    let cwd = project.path().to_str().unwrap();
    let moved = text.replace("/home/dev/shop", cwd);
    let (_dir, path) = log(&moved.lines().collect::<Vec<_>>());
    assert_eq!(recalled(&path), 1);
    std::fs::write(
        project.path().join("CLAUDE.md"),
        format!("Deploy: {token}\n"),
    )
    .unwrap();
    assert_eq!(recalled(&path), 0, "CLAUDE.md carries it");
}

/// Codex reads `AGENTS.md` from the cwd and the folders above it into every context.
#[test]
fn a_value_named_in_a_codex_agents_md_is_carried_over() {
    let token = "migrations/0042_add_index.sql";
    let text = std::fs::read_to_string(sample("codex-rollout.jsonl")).unwrap();
    let project = tempfile::tempdir().unwrap();
    let cwd = project.path().join("api");
    std::fs::create_dir(&cwd).unwrap();
    let moved = text.replace("/home/dev/infra", cwd.to_str().unwrap());
    let (_dir, path) = log(&moved.lines().collect::<Vec<_>>());
    let recalled = || dropped_bindings_of(&path, token);
    assert_eq!(recalled(), 1);
    std::fs::write(project.path().join("AGENTS.md"), format!("Next: {token}\n")).unwrap();
    assert_eq!(recalled(), 0, "the parent folder's AGENTS.md carries it");
}

/// Claude Code's records of an automatic compaction after record `parent`: the boundary
/// (`cb`) and the summary (`u2`), made with `base`.
fn boundary_and_summary(
    base: &dyn Fn(&str, &str) -> Value,
    parent: &str,
    text: &str,
) -> [Value; 2] {
    let mut boundary = base("system", "cb");
    boundary["subtype"] = "compact_boundary".into();
    boundary["logicalParentUuid"] = parent.into();
    boundary["compactMetadata"] = serde_json::json!({"trigger": "auto", "preTokens": 1000});
    let mut summary = base("user", "u2");
    summary["isCompactSummary"] = true.into();
    summary["message"] = serde_json::json!({"role": "user", "content": text});
    [boundary, summary]
}

/// A Claude Code transcript that reads `file` before a compaction whose summary does
/// not name it, and again after it.
fn read_across_a_compaction(file: &str) -> Vec<String> {
    let base = |kind: &str, uuid: &str| {
        serde_json::json!({"type": kind, "uuid": uuid, "sessionId": "s", "cwd": "/w",
            "timestamp": "2026-11-20T10:00:00.000Z", "version": "2.1.40"})
    };
    let read = |uuid: &str, id: &str| {
        let mut call = base("assistant", uuid);
        call["message"] = serde_json::json!({"id": uuid, "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": file}}]});
        let mut result = base("user", &format!("{uuid}r"));
        result["message"] = serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "1→notes"}]});
        [call, result]
    };
    let mut prompt = base("user", "u1");
    prompt["message"] = serde_json::json!({"role": "user", "content": "Tidy the notes"});
    let [boundary, summary] = boundary_and_summary(
        &base,
        "a1r",
        "Summary:\n1. Primary Request:\n   Tidy the notes file.\n6. All user messages:\n   - Tidy the notes",
    );
    let [before, before_result] = read("a1", "t1");
    let [after, after_result] = read("a2", "t2");
    let mut records = [
        prompt,
        before,
        before_result,
        boundary,
        summary,
        after,
        after_result,
    ];
    // Each record follows the one before it, as Claude Code chains them.
    for at in 1..records.len() {
        let parent = records[at - 1]["uuid"].clone();
        records[at]["parentUuid"] = parent;
    }
    records.iter().map(|v| v.to_string()).collect()
}

/// A bare file name is the cwd's file: listed again or known by convention, its use is
/// no value recalled from outside the transcript; a file in a folder still is one.
#[test]
fn a_bare_file_name_used_again_is_no_recalled_loss() {
    let recalled = |file: &str| -> usize {
        let lines = read_across_a_compaction(file);
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (_dir, path) = log(&lines);
        dropped_bindings_of(&path, file)
    };
    assert_eq!(recalled("docs/notes.md"), 1, "a file in a folder");
    assert_eq!(recalled("notes.md"), 0, "a bare file name");
}

#[test]
fn a_standing_spill_resolves_what_the_summary_dropped_and_audit_passes() {
    let (_dir, path) = sample_copy("pending-compaction.jsonl");
    let (_, code) = audit_json(&path, &[]);
    assert_eq!(code, 1);
    let out = decide(&path, "k1", "spill", "ops");
    assert_exit(&out, 0);
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 0, "a handled compaction passes CI");
    let dropped = first_finding(&report, "dropped_binding");
    assert_eq!(dropped["resolved_by"], "spill");
    let human = ctxlens().arg("audit").arg(&path).output().unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("(resolved by spill)"));
}

#[test]
fn an_approve_resolves_nothing() {
    let (_dir, path) = sample_copy("pending-compaction.jsonl");
    assert_exit(&decide(&path, "k1", "approve", "ops"), 0);
    let (_, code) = audit_json(&path, &[]);
    assert_eq!(code, 1);
}

/// A user's message is quoted on one line: its line breaks read as spaces, never as a
/// literal `\n`.
#[test]
fn a_dropped_instruction_is_quoted_on_one_line() {
    let base = |kind: &str, uuid: &str| {
        serde_json::json!({"type": kind, "uuid": uuid, "sessionId": "s", "cwd": "/w",
            "timestamp": "2026-11-20T10:00:00.000Z", "version": "2.1.40"})
    };
    let mut prompt = base("user", "u1");
    prompt["message"] = serde_json::json!({"role": "user",
        "content": "Deploy the billing service\n\nthen rotate the signing keys"});
    let mut answer = base("assistant", "a1");
    answer["message"] = serde_json::json!({"id": "m1", "role": "assistant",
        "content": [{"type": "text", "text": "deploying"}]});
    let [boundary, summary] = boundary_and_summary(
        &base,
        "a1",
        "Summary:\n1. Primary Request:\n   docs\n6. All user messages:\n   - Please fix the typo in the README\n7. Pending Tasks:\n   - none",
    );
    let lines: Vec<String> = [prompt, answer, boundary, summary]
        .iter()
        .map(|v| v.to_string())
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_dir, path) = log(&lines);
    let (report, _) = audit_json(&path, &[]);
    let finding = first_finding(&report, "instruction_dropped");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("\"Deploy the billing service then rotate the signing keys\""),
        "{message}"
    );
    assert!(!message.contains('\n'), "{message}");
}

/// The facts a session is listed and exported by, from a Claude Code transcript: the
/// first prompt of a list of text blocks, the main model (the one that wrote the most
/// records, not a side model that titled the session), a title on one line, and a
/// task TaskCreate made and TaskUpdate closed by its number, once.
#[test]
fn a_transcripts_facts_are_read_as_a_person_would_state_them() {
    let base = r#""sessionId":"s1","cwd":"/w","version":"2.1.50","gitBranch":"main""#;
    let assistant = |uuid: &str, model: &str, content: &str| {
        format!(
            r#"{{{base},"type":"assistant","uuid":"{uuid}","timestamp":"2026-12-01T10:00:05Z","message":{{"id":"m{uuid}","role":"assistant","model":"{model}","content":{content}}}}}"#
        )
    };
    let lines = [
        format!(
            r#"{{{base},"type":"user","uuid":"u1","timestamp":"2026-12-01T10:00:00Z","message":{{"role":"user","content":[{{"type":"text","text":"Fix the flaky\ntest in ci"}},{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"AA"}}}}]}}}}"#
        ),
        r#"{"type":"ai-title","sessionId":"s1","aiTitle":"Fixing the flaky\n\ntest"}"#.to_owned(),
        assistant(
            "a0",
            "claude-haiku-4-5",
            r#"[{"type":"text","text":"title"}]"#,
        ),
        assistant(
            "a1",
            "claude-opus-4-6",
            r#"[{"type":"tool_use","id":"t1","name":"TaskCreate","input":{"subject":"Rerun tests/flaky_test.py","description":"rerun it"}}]"#,
        ),
        assistant(
            "a2",
            "claude-opus-4-6",
            r#"[{"type":"tool_use","id":"t2","name":"TaskUpdate","input":{"taskId":"1","status":"in_progress"}}]"#,
        ),
        assistant(
            "a3",
            "claude-opus-4-6",
            r#"[{"type":"tool_use","id":"t3","name":"TaskUpdate","input":{"taskId":"1","status":"completed"}}]"#,
        ),
    ];
    let session = ctxlens::ingest::parse_bytes((lines.join("\n") + "\n").as_bytes());
    let meta = &session.meta;
    assert_eq!(
        meta.first_prompt.as_deref(),
        Some("Fix the flaky test in ci")
    );
    assert_eq!(
        meta.models.first().map(String::as_str),
        Some("claude-opus-4-6")
    );
    let state = ctxlens_core::analysis::StateAt::of(session.events.iter());
    let tasks: Vec<_> = state
        .obligations
        .iter()
        .map(|o| (o.id.as_str(), o.name.as_deref(), o.status))
        .collect();
    assert_eq!(
        tasks,
        [(
            "task 1",
            Some("Rerun tests/flaky_test.py"),
            ctxlens_core::model::ObligationStatus::Done
        )]
    );
    assert_eq!(meta.title.as_deref(), Some("Fixing the flaky test"));
}
