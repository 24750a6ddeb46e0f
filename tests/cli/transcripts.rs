//! Real agents' transcripts (read from ../shared/real-sessions, never copied here) and
//! our own samples of both formats.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn real_sessions(test: &str) -> Vec<PathBuf> {
    let files = real_session_files(test);
    assert!(
        files.is_empty() || files.len() >= 20,
        "the shared real sessions: {} files",
        files.len()
    );
    files
}

/// `compact_boundary` and `compacted` records, counted straight from the file.
fn boundaries(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["subtype"] == "compact_boundary" || r["type"] == "compacted")
        .count()
}

#[test]
fn every_real_session_opens_and_every_compaction_is_found() {
    for path in real_sessions("every_real_session_opens_and_every_compaction_is_found") {
        let (report, code) = audit_json(&path, &[]);
        assert_ne!(code, 2, "{}", path.display());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let codex_records = std::fs::read_to_string(&path)
            .unwrap()
            .contains("\"type\":\"session_meta\"");
        let expected = if codex_records {
            "codex"
        } else {
            "claude-code"
        };
        assert_eq!(report["format"], expected, "{name}");
        assert_eq!(report["malformed_lines"], 0, "{name}");
        assert_eq!(
            report["compactions"].as_array().unwrap().len(),
            boundaries(&path),
            "{name}: one compaction per boundary"
        );
    }
}

#[test]
fn every_real_session_renders_in_the_tui() {
    use ctxlens::tui::app::{Action, App};
    use ctxlens::tui::snapshot::Snapshot;
    use ctxlens::tui::worker::{read_texts, Update};
    for path in real_sessions("every_real_session_renders_in_the_tui") {
        let snapshot = Snapshot::load(&path).unwrap();
        let mut app = App::new("real".into(), std::sync::Arc::new(snapshot), "t".into());
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 32)).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        for key in ['g', ']', ']', 'e', '\t'] {
            term.draw(|f| ctxlens::tui::view::draw(&app, f)).unwrap();
            let wanted = app.wanted_texts();
            let format = app.snapshot.session.format;
            app.update(Action::Worker(Update::Texts(read_texts(
                &file, format, &wanted,
            ))));
            let event = crossterm::event::KeyEvent::new(
                if key == '\t' {
                    crossterm::event::KeyCode::Tab
                } else {
                    crossterm::event::KeyCode::Char(key)
                },
                crossterm::event::KeyModifiers::NONE,
            );
            app.update(Action::Key(event));
        }
        // The view model the worker builds for the compaction shown.
        let shown = app.selected_compaction().map(|c| c.info.id.clone());
        if let Some(id) = &shown {
            app.snapshot.build_view(id);
        }
        term.draw(|f| ctxlens::tui::view::draw(&app, f)).unwrap();
        // What it rendered: the timeline, the compaction the keys went to, and no
        // control character.
        let buffer = term.backend().buffer().clone();
        let screen: String = (0..buffer.area.height)
            .map(|y| {
                (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol().to_owned())
                    .collect::<String>()
                    + "\n"
            })
            .collect();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(screen.contains("Timeline"), "{name}:\n{screen}");
        if app.snapshot.analysis.compactions.is_empty() {
            continue;
        }
        let short: String = shown
            .unwrap_or_else(|| panic!("{name}: a compaction is shown"))
            .chars()
            .take(8)
            .collect();
        assert!(
            screen.contains(&format!("Compaction {short}")),
            "{name}: the compaction pane names {short}:\n{screen}"
        );
        assert!(!screen.contains("building the view"), "{name}:\n{screen}");
        assert!(
            !screen.chars().any(|c| c.is_control() && c != '\n'),
            "{name}"
        );
    }
}

#[test]
fn a_real_claude_session_reports_a_path_used_again_after_the_compaction() {
    let Some(path) = real_session(
        "a_real_claude_session_reports_a_path_used_again_after_the_compaction",
        "kvsankar__agent-history__claude-session_with_compaction.jsonl",
    ) else {
        return;
    };
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(
        code, 0,
        "a verbatim use that worked is a note, not an error"
    );
    let finding = first_finding(&report, "dropped_binding");
    assert_eq!(
        finding["token"],
        "/home/testuser/compact-project/src/auth.py"
    );
    assert_eq!(finding["step"], "Edit toolu_c003 (seq 15)");
    assert_eq!(finding["severity"], "note", "a recalled use claims no loss");
    assert_eq!(finding["recalled"], true);
}

#[test]
fn rewound_branches_are_not_in_the_region() {
    let Some(path) = real_session(
        "rewound_branches_are_not_in_the_region",
        "daaain__claude-code-log__dag_compact_after_rewind.jsonl",
    ) else {
        return;
    };
    let session = ctxlens::ingest::load(&path).unwrap();
    let kind_of_line = |line: u64| {
        session
            .events
            .iter()
            .find(|e| e.line == line)
            .map(|e| e.kind.type_name().to_owned())
    };
    assert_eq!(kind_of_line(3).as_deref(), Some("rewound"), "First attempt");
    assert_eq!(kind_of_line(4).as_deref(), Some("rewound"), "First answer");
    assert_eq!(
        kind_of_line(5).as_deref(),
        Some("message"),
        "Second attempt"
    );
}

#[test]
fn remote_codex_compactions_are_opaque_not_everything_dropped() {
    let Some(path) = real_session(
        "remote_codex_compactions_are_opaque_not_everything_dropped",
        "jazzyalex__agent-sessions__codex-small.jsonl",
    ) else {
        return;
    };
    let (report, _) = audit_json(&path, &[]);
    let first = &report["compactions"][0];
    assert_eq!(first["id"], "compacted-1");
    assert_eq!(first["opaque_ratio"], Value::Null);
    assert_eq!(first["dropped"], serde_json::json!([]));
    assert_eq!(report["findings"][0]["kind"], "opaque_summary");
}

#[test]
fn claude_code_sample_infers_the_secret_version_the_agent_needed() {
    let (report, code) = audit_json(&sample("claude-code-compaction.jsonl"), &[]);
    assert_eq!(code, 0, "recalled, not lost: a warning");
    assert_eq!(report["format"], "claude-code");
    let k = &report["compactions"][0];
    assert_eq!(k["id"], "cb01");
    assert_eq!(k["verdict"], "approve");
    assert_eq!(k["dropped"][0]["recalled"], true);
    assert_eq!(
        k["dropped"][0]["token"],
        "3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"
    );
    assert_eq!(k["dropped"][0]["regenerable"], Value::Null);
    assert_eq!(
        k["dropped"][0]["required_by"],
        serde_json::json!(["Bash toolu_05 (seq 21)"])
    );
    assert_eq!(
        report["microcompactions"].as_array().unwrap().len(),
        1,
        "not a compaction"
    );
    let kinds = finding_kinds(&report);
    assert_eq!(kinds, ["density_collapse", "dropped_binding"]);
}

#[test]
fn a_continued_claude_session_points_to_an_earlier_file() {
    let (report, code) = audit_json(&sample("claude-code-continued.jsonl"), &[]);
    assert_eq!(code, 0);
    assert_eq!(finding_kinds(&report), ["region_elsewhere"]);
}

#[test]
fn codex_sample_reports_the_snapshot_arn_and_the_encrypted_summary() {
    let (report, code) = audit_json(&sample("codex-rollout.jsonl"), &[]);
    assert_eq!(code, 0, "the ARN was recalled: a warning");
    assert_eq!(report["format"], "codex");
    let dropped: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "dropped_binding")
        .map(|f| f["token"].as_str().unwrap())
        .collect();
    assert!(
        dropped.contains(&"arn:aws:rds:eu-west-1:123456789012:snapshot:orders-pre-0042"),
        "{dropped:?}"
    );
    assert_eq!(report["compactions"][1]["id"], "compacted-2");
    assert!(finding_kinds(&report).contains(&"opaque_summary".to_owned()));
}

#[test]
fn todos_become_obligations_and_plan() {
    let session = ctxlens::ingest::load(&sample("claude-code-compaction.jsonl")).unwrap();
    let state = ctxlens_core::analysis::StateAt::of(&session.events);
    let open: Vec<&str> = state.open_obligations().map(|o| o.id.as_str()).collect();
    assert_eq!(open.len(), 3, "{open:?}");
    assert_eq!(state.pending.len(), 3);
    let codex = ctxlens::ingest::load(&sample("codex-rollout.jsonl")).unwrap();
    let state = ctxlens_core::analysis::StateAt::of(&codex.events);
    let first = state
        .obligations
        .iter()
        .find(|o| o.name.as_deref() == Some("Apply migrations/0042_add_index.sql"))
        .unwrap();
    assert_eq!(first.requires, ["migrations/0042_add_index.sql"]);
}

#[test]
fn gate_and_decide_work_on_transcript_compactions() {
    let (_dir, log) = sample_copy("claude-code-compaction.jsonl");
    let out = ctxlens()
        .arg("gate")
        .arg(&log)
        .arg("cb01")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "approve: the reused token was recalled"
    );
    let out = decide(&log, "cb01", "spill", "ops");
    assert_exit(&out, 0);
    let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
    let handle = decision["handle"].as_str().unwrap();
    let region = spill_get(&log, handle);
    // The region is every record before the boundary.
    let text = String::from_utf8(region.stdout).unwrap();
    assert!(text.contains("3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d"));
    assert!(!text.contains(r#""subtype": "compact_boundary""#));
}

#[test]
fn the_timeline_marks_a_microcompaction() {
    use ctxlens::tui::app::App;
    use ctxlens::tui::snapshot::Snapshot;
    let snapshot = Snapshot::load(&sample("claude-code-compaction.jsonl")).unwrap();
    let app = App::new("t".into(), std::sync::Arc::new(snapshot), "t".into());
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 40)).unwrap();
    term.draw(|f| ctxlens::tui::view::draw(&app, f)).unwrap();
    let screen: String = term
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(screen.contains("MICROCOMPACT"), "{screen}");
}

/// Claude Code writes a message as several streamed records, each with the usage so
/// far: the message's last record counts, once.
#[test]
fn usage_counts_each_message_once_from_its_last_record() {
    let record = |uuid: &str, id: &str, output: u64| {
        serde_json::json!({
            "type": "assistant", "uuid": uuid, "sessionId": "s", "cwd": "/w",
            "timestamp": "2026-11-20T10:00:00.000Z", "version": "2.1.40",
            "message": {"id": id, "role": "assistant", "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": "working"}],
                "usage": {"input_tokens": 10, "output_tokens": output}}
        })
        .to_string()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let lines = [
        record("a1", "msg_1", 3),
        record("a2", "msg_1", 250),
        record("a3", "msg_2", 40),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (report, _) = audit_json(&path, &[]);
    assert_eq!(report["usage"]["output"], 290, "{}", report["usage"]);
    assert_eq!(report["usage"]["input"], 20);
}

/// A fixture cut from a real agent's run, audited with `--tokens`: the report, and the
/// one compaction's dropped tokens.
fn the_one_compaction_of(fixture: &str, format: &str) -> (Value, Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
    let (report, _) = audit_json(&path, &["--tokens"]);
    assert_eq!(report["format"], format);
    let compactions = report["compactions"].as_array().unwrap();
    assert_eq!(compactions.len(), 1, "{fixture}: one compaction");
    let dropped = compactions[0]["dropped_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["token"].as_str().map(str::to_owned))
        .collect();
    (report, dropped)
}

/// A Gemini CLI chat recording, cut from a run of the real client (0.61.0): a shell
/// call printed the revision, an automatic compression left it out of the snapshot,
/// and two resumes set the whole message list again, which are no compressions.
#[test]
fn a_gemini_cli_recording_has_one_compression_and_it_names_the_dropped_revision() {
    // One compaction: a resume's list is no compression.
    let (report, dropped) = the_one_compaction_of("gemini-cli-compression.jsonl", "gemini-cli");
    assert!(dropped.iter().any(|t| t == "4f9a2c81d0e7"), "{dropped:?}");
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-cli-compression.jsonl");
    assert_eq!(report["model"][0], "gemini-2.5-flash");
    // A message written again as it grew is read once: one tool call, one result.
    let session = ctxlens::ingest::parse_bytes(&std::fs::read(&path).unwrap());
    let calls = session
        .events
        .iter()
        .filter(|e| matches!(e.kind, ctxlens_core::model::EventKind::ToolCall { .. }))
        .count();
    assert_eq!(calls, 1);
}

/// A Qwen Code chat recording, from a run of the real client (0.24.4, in
/// tests/real-clients/run.sh): a shell call printed the revision, `/compress` left it
/// out of the `<state_snapshot>`, and the session went on after it.
#[test]
fn a_qwen_code_recording_is_read_and_its_compression_names_the_dropped_revision() {
    let (report, dropped) = the_one_compaction_of("qwen-code-compression.jsonl", "qwen-code");
    let compaction = &report["compactions"][0];
    assert_eq!(compaction["trigger"], "manual");
    assert_eq!(compaction["pre_tokens"], 1200);
    assert_eq!(compaction["post_tokens"], 111);
    assert!(dropped.iter().any(|t| t == "4f9a2c81d0e7"), "{dropped:?}");
    assert_eq!(report["model"][0], "qwen-fake");
    assert!(report["usage"]["output"].as_u64().unwrap() > 0);
    // Not Claude Code's, though its records have a uuid and a sessionId: one call, its
    // result, and the turn after the compression.
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen-code-compression.jsonl");
    let session = ctxlens::ingest::parse_bytes(&std::fs::read(&path).unwrap());
    let count = |pred: &dyn Fn(&ctxlens_core::model::EventKind) -> bool| {
        session.events.iter().filter(|e| pred(&e.kind)).count()
    };
    use ctxlens_core::model::EventKind;
    assert_eq!(count(&|k| matches!(k, EventKind::ToolCall { .. })), 1);
    assert_eq!(count(&|k| matches!(k, EventKind::ToolResult { .. })), 1);
    let compaction_at = session
        .events
        .iter()
        .position(|e| matches!(e.kind, EventKind::Compaction(_)))
        .unwrap();
    let messages_after = session
        .events
        .iter()
        .skip(compaction_at)
        .filter(|e| matches!(e.kind, EventKind::Message { .. }))
        .count();
    assert_eq!(
        messages_after, 2,
        "the prompt and the answer after /compress"
    );
}

/// A GitHub Copilot CLI session, cut from a run of the real client (1.0.102): a shell
/// call printed the revision, `/compact` left it out of the summary.
#[test]
fn a_copilot_cli_session_is_read_and_its_compaction_names_the_dropped_revision() {
    let (report, dropped) = the_one_compaction_of("copilot-cli-compaction.jsonl", "copilot-cli");
    let compaction = &report["compactions"][0];
    assert_eq!(compaction["trigger"], "manual");
    assert_eq!(compaction["pre_tokens"], 11814);
    assert_eq!(compaction["post_tokens"], 11757);
    assert!(dropped.iter().any(|t| t == "4f9a2c81d0e7"), "{dropped:?}");
    assert_eq!(report["model"][0], "claude-sonnet-4.5");
    assert!(report["usage"]["output"].as_u64().unwrap() > 0);
}

/// An OpenCode database opens like a folder of sessions: each is read, and its
/// compaction (a compaction part, then the summary message) names the revision its
/// summary left out. The database is read while its writer holds it open, and left as
/// it was.
#[cfg(feature = "opencode")]
#[test]
fn an_opencode_database_is_read_and_its_compaction_names_the_dropped_revision() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    // OpenCode stays connected, its WAL not checkpointed.
    let writer = rusqlite::Connection::open(&db).unwrap();
    let before = std::fs::read(&db).unwrap();
    let (report, code) = audit_json(&db, &["--tokens"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["format"], "opencode");
    assert!(report["file"]
        .as_str()
        .unwrap()
        .ends_with("#ses_dbf35cbc4ffexZCIwXw14GB2r3"));
    let compactions = report["compactions"].as_array().unwrap();
    assert_eq!(compactions.len(), 1);
    assert_eq!(compactions[0]["trigger"], "auto");
    let dropped: Vec<&str> = compactions[0]["dropped_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["token"].as_str())
        .collect();
    assert!(dropped.contains(&"4f9a2c81d0e7"), "{dropped:?}");
    assert_eq!(report["model"][0], "claude-fake");
    assert_eq!(report["usage"]["input"], 203_800);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the database is unchanged"
    );
    assert!(!dir
        .path()
        .join("opencode.db#ses_dbf35cbc4ffexZCIwXw14GB2r3.decisions.jsonl")
        .exists());
    drop(writer);
}

/// A Claude Code subagent's transcript (`SESSION/subagents/agent-*.jsonl`) is audited
/// with its session's: its compactions count, and it is named in the report.
#[test]
fn audit_of_a_session_reads_its_subagents_compactions_too() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("3f2a.jsonl");
    std::fs::write(
        &parent,
        r#"{"type":"user","uuid":"u1","sessionId":"3f2a","cwd":"/w","timestamp":"2026-12-04T10:00:00Z","message":{"role":"user","content":"Rotate the credentials, with a subagent."}}
"#,
    )
    .unwrap();
    let agents = dir.path().join("3f2a/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let agent = agents.join("agent-a1b2c3.jsonl");
    // A subagent's own transcript marks every record a sidechain.
    let records = std::fs::read_to_string(sample("claude-code-ssh-host.jsonl")).unwrap();
    std::fs::write(
        &agent,
        records.replace(
            r#""isSidechain": false"#,
            r#""isSidechain": true, "agentId": "a1b2c3""#,
        ),
    )
    .unwrap();
    // The summariser's own conversation is no subagent's work.
    std::fs::write(agents.join("agent-acompact-9e.jsonl"), "not a transcript\n").unwrap();
    let alone = ctxlens().arg("audit").arg(&agent).output().unwrap();
    let both = ctxlens().arg("audit").arg(&parent).output().unwrap();
    assert_eq!(both.status.code(), alone.status.code());
    assert_eq!(
        alone.status.code(),
        Some(1),
        "the sample's compaction is an error"
    );
    let text = String::from_utf8_lossy(&both.stdout);
    assert!(text.contains("agent-a1b2c3.jsonl"), "{text}");
    assert!(text.contains("3f2a.jsonl"), "{text}");
    assert!(!text.contains("acompact"), "{text}");
    // Named as well, it is read once.
    let named = ctxlens()
        .arg("audit")
        .arg(&parent)
        .arg(&agent)
        .output()
        .unwrap();
    let named = String::from_utf8_lossy(&named.stdout);
    assert_eq!(
        named.matches("agent-a1b2c3.jsonl").count(),
        text.matches("agent-a1b2c3.jsonl").count()
    );
}

/// OpenCode keeps the turns from a compaction part's `tail_start_id` verbatim after the
/// summary: what they hold is carried over, not dropped; what only the head held is.
#[test]
fn an_opencode_compaction_carries_the_tail_it_keeps_verbatim() {
    let message = |id: &str, role: &str, parts: serde_json::Value, extra: serde_json::Value| {
        let mut data = serde_json::json!({"role": role, "time": {"created": 1, "completed": 2}});
        for (k, v) in extra.as_object().unwrap() {
            data[k] = v.clone();
        }
        serde_json::json!({"type": "opencode.message", "id": id, "ts": "2026-12-04T10:00:00Z",
            "data": data, "parts": parts})
        .to_string()
    };
    let text = |t: &str| serde_json::json!([{"id": "prt_1", "data": {"type": "text", "text": t}}]);
    let lines = [
        serde_json::json!({"type": "opencode.session", "id": "ses_1", "directory": "/srv", "title": "t",
            "ts": "2026-12-04T10:00:00Z"})
        .to_string(),
        message("msg_01", "user", text("Deploy revision 9c1e7b3a5d20 first."), serde_json::json!({})),
        message("msg_02", "assistant", text("Deployed 9c1e7b3a5d20."), serde_json::json!({})),
        message("msg_03", "user", text("Now roll out canary a7d3e9f1b406."), serde_json::json!({})),
        message("msg_04", "assistant", text("Canary a7d3e9f1b406 is rolling out."), serde_json::json!({})),
        message(
            "msg_05",
            "user",
            serde_json::json!([{"id": "prt_5", "data": {"type": "compaction", "auto": true,
                "tail_start_id": "msg_03"}}]),
            serde_json::json!({}),
        ),
        message(
            "msg_06",
            "assistant",
            text("## Objective\n- Deploy, then a canary."),
            serde_json::json!({"summary": true, "mode": "compaction"}),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ses_1.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (report, _) = audit_json(&path, &["--tokens"]);
    assert_eq!(report["format"], "opencode");
    let tokens = report["compactions"][0]["dropped_tokens"]
        .as_array()
        .unwrap();
    let carried = |token: &str| {
        tokens
            .iter()
            .find(|t| t["token"] == token)
            .map(|t| t["carried"] == true)
    };
    assert_eq!(carried("9c1e7b3a5d20"), Some(false), "{tokens:?}");
    assert_eq!(
        carried("a7d3e9f1b406"),
        Some(true),
        "the tail is kept: {tokens:?}"
    );
}

/// The model's reasoning is thinking in every agent's log that records it, never the
/// assistant speaking: Claude Code's thinking blocks, Codex's reasoning items, Copilot
/// CLI's `assistant.reasoning`, Gemini CLI's thoughts (OpenCode's and Qwen Code's
/// reasoning parts are read the same way).
#[test]
fn reasoning_is_thinking_in_every_format() {
    use ctxlens_core::model::{EventKind, Role};
    let logs: [(&str, String); 4] = [
        (
            "claude-code",
            r#"{"type":"assistant","uuid":"a1","sessionId":"s","timestamp":"2026-12-01T10:00:00Z","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"thinking","thinking":"weigh the rollback"}]}}"#.to_owned(),
        ),
        (
            "codex",
            [
                r#"{"timestamp":"2026-11-02T09:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.171.0"}}"#,
                r#"{"timestamp":"2026-11-02T09:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"weigh the rollback"}]}}"#,
            ]
            .join("\n"),
        ),
        (
            "gemini-cli",
            [
                r#"{"sessionId":"s1","projectHash":"ab","startTime":"2026-12-04T09:15:37.541Z","lastUpdated":"2026-12-04T09:15:37.541Z","kind":"main"}"#,
                r#"{"id":"g1","timestamp":"2026-12-04T09:15:37.709Z","type":"gemini","content":"","thoughts":[{"subject":"Rollback","description":"weigh the rollback","timestamp":"2026-12-04T09:15:37.700Z"}],"model":"gemini-2.5-flash"}"#,
                // A later copy of the same message: its thoughts are not read twice.
                r#"{"id":"g1","timestamp":"2026-12-04T09:15:37.709Z","type":"gemini","content":"","thoughts":[{"subject":"Rollback","description":"weigh the rollback","timestamp":"2026-12-04T09:15:37.700Z"}],"model":"gemini-2.5-flash"}"#,
            ]
            .join("\n"),
        ),
        (
            "copilot-cli",
            [
                r#"{"type":"session.start","data":{"sessionId":"s","version":1,"producer":"copilot-agent","copilotVersion":"0.0.400","startTime":"2026-12-01T10:00:00Z","context":{"cwd":"/w"}},"id":"e1","timestamp":"2026-12-01T10:00:00Z","parentId":null}"#,
                r#"{"type":"assistant.reasoning","data":{"reasoningId":"r1","content":"weigh the rollback"},"id":"e2","timestamp":"2026-12-01T10:00:01Z","parentId":"e1"}"#,
            ]
            .join("\n"),
        ),
    ];
    for (format, log) in logs {
        let session = ctxlens::ingest::parse_bytes((log + "\n").as_bytes());
        assert_eq!(session.format.as_str(), format);
        let roles: Vec<&Role> = session
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Message { role, .. } => Some(role),
                _ => None,
            })
            .collect();
        assert_eq!(roles, [&Role::Thinking], "{format}");
    }
}
