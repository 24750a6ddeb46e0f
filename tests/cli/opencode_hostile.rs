//! An OpenCode database is another program's file and may hold anything: a time past
//! year 9999, JSON cut short, a value of another type than OpenCode writes, no
//! sessions, a lock. Each is read (or marked unreadable where it stood), never a
//! crash, never a more lenient verdict, and every command takes the database and the
//! names `audit` prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::path::Path;

const SESSION: &str = "ses_dbf35cbc4ffexZCIwXw14GB2r3";
/// The tool part whose output holds the revision the summary drops.
const TOOL_PART: &str = "prt_240ca3d83001lvljVztNUq6CsA";
/// The summary message.
const SUMMARY: &str = "msg_240ca3ec8001dZzx8XrEiVBrEk";
/// The compaction (its request message).
const COMPACTION: &str = "msg_240ca3ebb001SXBT2t4iN9xR7X";

fn sql(db: &Path, statements: &str) {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(statements)
        .unwrap();
}

fn dropped_tokens(report: &Value) -> Vec<String> {
    report["compactions"][0]["dropped_tokens"]
        .as_array()
        .map(|tokens| {
            tokens
                .iter()
                .filter_map(|t| t["token"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The hook the OpenCode plugin runs, on `db`: its exit code and answer.
fn opencode_hook(db: &Path, state: &Path) -> (i32, Value, String) {
    let out = ctxlens()
        .args(["hook", "opencode", "pre-compact"])
        .env("OPENCODE_DB", db)
        .env("XDG_STATE_HOME", state)
        .write_stdin(format!(r#"{{"sessionID": "{SESSION}"}}"#))
        .output()
        .unwrap();
    let answer = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        answer,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A time past year 9999 (or microseconds taken for milliseconds) is no timestamp:
/// `audit` reads the session, and the hook answers with what is at risk.
#[test]
fn a_time_past_year_9999_is_no_timestamp_on_every_opencode_path() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    sql(
        &db,
        "UPDATE session SET time_created = 9223372036854775807;
         UPDATE message SET time_created = time_created * 1000;",
    );
    let (report, code) = audit_json(&db, &["--tokens"]);
    assert!(code <= 1, "{report}");
    assert_eq!(report["compactions"].as_array().unwrap().len(), 1);
    assert!(dropped_tokens(&report).contains(&"4f9a2c81d0e7".to_owned()));

    let before = tempfile::tempdir().unwrap();
    let db = opencode_before_its_compaction(before.path());
    sql(
        &db,
        "UPDATE message SET time_created = 9223372036854775807;",
    );
    let (code, answer, stderr) = opencode_hook(&db, state.path());
    assert_eq!(code, 0, "{stderr}");
    let context = answer["context"][0].as_str().unwrap_or_default();
    assert!(context.contains("4f9a2c81d0e7"), "{answer} {stderr}");
}

/// A row whose data is cut short is a malformed line where it stood: the tool part
/// that held the revision makes the gate withhold approve, and a summary message
/// that cannot be read still counts as its compaction.
#[test]
fn an_unreadable_opencode_row_is_a_malformed_line_and_never_approves() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    let (clean, _) = audit_json(&db, &[]);
    assert_eq!(clean["malformed_lines"], 0);
    sql(
        &db,
        &format!(
            "UPDATE part SET data = substr(data, 1, length(data) - 1) WHERE id = '{TOOL_PART}';"
        ),
    );
    let (report, _) = audit_json(&db, &[]);
    assert_eq!(report["malformed_lines"], 1, "{report}");
    let reason = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "malformed_line")
        .map(|f| f["message"].to_string())
        .unwrap_or_default();
    assert!(reason.contains(TOOL_PART), "{reason}");
    let name = format!("{}#{SESSION}", db.display());
    let gate = ctxlens()
        .args(["gate", "--json", &name, COMPACTION])
        .env("XDG_STATE_HOME", dir.path())
        .output()
        .unwrap();
    let verdict: Value = serde_json::from_slice(&gate.stdout).unwrap();
    assert_ne!(verdict["verdict"], "approve", "{verdict}");

    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    sql(
        &db,
        &format!(
            "UPDATE message SET data = substr(data, 1, length(data) - 1) WHERE id = '{SUMMARY}';"
        ),
    );
    let (report, _) = audit_json(&db, &["--tokens"]);
    assert_eq!(
        report["compactions"].as_array().unwrap().len(),
        1,
        "{report}"
    );
    assert_eq!(report["malformed_lines"], 1);
    assert!(dropped_tokens(&report).contains(&"4f9a2c81d0e7".to_owned()));
}

/// A BLOB or REAL where OpenCode writes text or an integer: a blob of JSON is read, a
/// whole real is a time, anything else is an unreadable row; one bad session never
/// hides another, and the hook still answers.
#[test]
fn any_column_type_is_read_or_marked_and_one_bad_value_hides_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let db = opencode_before_its_compaction(dir.path());
    sql(
        &db,
        &format!(
            "UPDATE part SET data = CAST(data AS BLOB) WHERE id = '{TOOL_PART}';
             UPDATE message SET time_created = time_created + 0.0;
             INSERT INTO session (id, directory, title, time_created) VALUES ('ses_other', '/o', X'FF00', 1.5);
             INSERT INTO message (id, session_id, time_created, data) VALUES ('msg_x', 'ses_other', 2, 3.25);
             INSERT INTO part (id, message_id, session_id, time_created, data) VALUES ('prt_x', 'msg_x', 'ses_other', 2, X'00FF');
             INSERT INTO session (id, directory, title, time_created) VALUES (X'0102', '/b', 't', 3);"
        ),
    );
    let output = ctxlens()
        .args(["audit", "--json"])
        .arg(&db)
        .output()
        .unwrap();
    let reports: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |id: &str| {
        reports
            .iter()
            .find(|r| r["file"].as_str().unwrap_or_default().ends_with(id))
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(of(SESSION)["malformed_lines"], 0, "{reports:?}");
    assert_eq!(of("ses_other")["malformed_lines"], 2, "{reports:?}");
    let (code, answer, stderr) = opencode_hook(&db, state.path());
    assert_eq!(code, 0);
    assert!(!stderr.contains("nothing done"), "{stderr}");
    assert!(answer["context"][0]
        .as_str()
        .unwrap_or_default()
        .contains("4f9a2c81d0e7"));
}

/// `audit --json` of a database with no sessions is valid JSON that says so.
#[test]
fn a_database_with_no_sessions_is_said_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    sql(
        &db,
        "DELETE FROM part; DELETE FROM message; DELETE FROM session;",
    );
    let (report, code) = audit_json(&db, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["sessions"], 0);
    assert!(report["note"].as_str().unwrap().contains("no sessions"));
}

/// `export`, `gate`, `decide` and `contract` take a database of one session, and any
/// session by the name `audit` prints; a database of several asks which.
#[test]
fn every_command_takes_a_database_and_the_names_audit_prints() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let db = opencode_database(dir.path());
    let (report, _) = audit_json(&db, &[]);
    let name = report["file"].as_str().unwrap().to_owned();
    assert!(name.ends_with(&format!("#{SESSION}")));
    let run = |args: &[&str]| {
        ctxlens()
            .args(args)
            .env("XDG_STATE_HOME", &state)
            .output()
            .unwrap()
    };
    let db_s = db.display().to_string();
    for log in [db_s.as_str(), name.as_str()] {
        let export = run(&["export", "--format", "json", log]);
        assert_exit(&export, 0);
        let exported: Value = serde_json::from_slice(&export.stdout).unwrap();
        assert_eq!(exported["report"]["format"], "opencode", "{exported}");
        let gate = run(&["gate", "--json", log, COMPACTION]);
        assert!(gate.status.code().unwrap() <= 1, "{gate:?}");
        let contract = run(&["contract", log, COMPACTION]);
        assert!(contract.status.code().unwrap() <= 1, "{contract:?}");
    }
    assert_exit(
        &run(&["decide", &name, COMPACTION, "spill", "--by", "ops"]),
        0,
    );
    // The decision lies beside ctxlens's copy, where the TUI and the hooks read it.
    let gate = run(&["gate", "--json", &db_s, COMPACTION]);
    let verdict: Value = serde_json::from_slice(&gate.stdout).unwrap();
    assert_eq!(verdict["findings"][0]["decided"], "spill", "{verdict}");
    // Two sessions: the command names them.
    add_opencode_message(&db, "ses_second", "msg_z", "user", "hello");
    sql(
        &db,
        "INSERT INTO session (id, directory, title, time_created) VALUES ('ses_second', '/w', 't', 5);",
    );
    let many = run(&["export", &db_s]);
    assert_exit(&many, 2);
    let stderr = String::from_utf8_lossy(&many.stderr);
    assert!(stderr.contains(&format!("{db_s}#ses_second")), "{stderr}");
}

/// OpenCode's own export (`opencode export SESSION`, one pretty-printed object of
/// `info` and `messages`) is read like the database: the same compaction, the same
/// dropped revision.
#[test]
fn opencode_s_own_export_is_read_like_the_database() {
    let rows = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode-compaction.jsonl"),
    )
    .unwrap();
    let mut info = Value::Null;
    let mut messages: Vec<Value> = Vec::new();
    let mut parts: Vec<Value> = Vec::new();
    for line in rows.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let row = &record["row"];
        match record["table"].as_str().unwrap() {
            "session" => {
                info = serde_json::json!({"id": row["id"], "title": row["title"],
                    "directory": row["directory"], "time": {"created": row["time_created"]}});
            }
            "message" => {
                let mut data: Value = serde_json::from_str(row["data"].as_str().unwrap()).unwrap();
                data["id"] = row["id"].clone();
                messages.push(serde_json::json!({"info": data, "parts": []}));
            }
            _ => {
                let mut data: Value = serde_json::from_str(row["data"].as_str().unwrap()).unwrap();
                data["id"] = row["id"].clone();
                data["messageID"] = row["message_id"].clone();
                parts.push(data);
            }
        }
    }
    for message in &mut messages {
        let id = message["info"]["id"].clone();
        message["parts"] = parts
            .iter()
            .filter(|p| p["messageID"] == id)
            .cloned()
            .collect();
    }
    let export = serde_json::json!({"info": info, "messages": messages});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.json");
    std::fs::write(&path, serde_json::to_string_pretty(&export).unwrap()).unwrap();
    let output = ctxlens()
        .args(["audit", "--json", "--tokens"])
        .arg(&path)
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["format"], "opencode", "{report}");
    assert_eq!(report["compactions"].as_array().unwrap().len(), 1);
    assert!(dropped_tokens(&report).contains(&"4f9a2c81d0e7".to_owned()));
    assert_eq!(report["usage"]["input"], 203_800);
}

/// A database another program holds locked says so, and who holds it, within the
/// busy wait; not "not an OpenCode database".
#[test]
fn a_locked_database_says_it_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    sql(&db, "PRAGMA journal_mode=DELETE;");
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM part WHERE 0;")
        .unwrap();
    let out = ctxlens().arg("audit").arg(&db).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("locked"), "{stderr}");
    assert!(!stderr.contains("not an OpenCode database"), "{stderr}");
    drop(holder);
}

/// The copies of a database's sessions are named from its resolved path alone: a link
/// to it, and the path itself, find the same copies (the hook and the TUI agree).
#[test]
fn a_link_to_a_database_finds_the_same_copies() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    let link = dir.path().join("work.sqlite");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    assert_eq!(
        ctxlens::store::mirror::folder_for(&db).unwrap(),
        ctxlens::store::mirror::folder_for(&link).unwrap()
    );
}

/// The follower copies again only the sessions whose rows changed: a commit to one
/// session of many reads that one; a message completed in place (no new row) is read
/// again too, since the copy held it back unsettled.
#[test]
fn only_the_sessions_whose_rows_changed_are_copied_again() {
    use ctxlens::ingest::opencode::Database;
    use ctxlens::session::mirror::Mirror;
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    for n in 0..20 {
        let id = format!("ses_other{n:02}");
        sql(
            &db,
            &format!("INSERT INTO session (id, directory, title, time_created) VALUES ('{id}', '/w', 't', {n});"),
        );
        add_opencode_message(&db, &id, &format!("msg_o{n:02}"), "user", "hello");
    }
    let folder = dir.path().join("state/ctxlens/mirror/opencode-test");
    let database = Database::open(&db).unwrap();
    let mut mirror = Mirror::default();
    let first = mirror.refresh(&database, &folder, None).unwrap();
    assert_eq!((first.copies.len(), first.read), (21, 21));
    assert_eq!(mirror.refresh(&database, &folder, None).unwrap().read, 0);
    add_opencode_message(&db, "ses_other07", "msg_o07b", "user", "again");
    let again = mirror.refresh(&database, &folder, None).unwrap();
    assert_eq!((again.copies.len(), again.read), (21, 1));
    // An answer still being written is held back, then read when it completes in place.
    sql(
        &db,
        r#"INSERT INTO message (id, session_id, time_created, data) VALUES ('msg_o07c', 'ses_other07', 1796383340001,
             '{"role":"assistant","time":{"created":1}}');
           INSERT INTO part (id, message_id, session_id, time_created, data) VALUES ('prt_o07c', 'msg_o07c', 'ses_other07', 1,
             '{"type":"text","text":"answer 7c1f2e3d4a5b"}');"#,
    );
    mirror.refresh(&database, &folder, None).unwrap();
    let copy = folder.join("ses_other07.jsonl");
    assert!(!std::fs::read_to_string(&copy)
        .unwrap()
        .contains("7c1f2e3d4a5b"));
    sql(
        &db,
        r#"UPDATE message SET data = '{"role":"assistant","time":{"created":1,"completed":2}}' WHERE id = 'msg_o07c';"#,
    );
    assert_eq!(mirror.refresh(&database, &folder, None).unwrap().read, 1);
    assert!(std::fs::read_to_string(&copy)
        .unwrap()
        .contains("7c1f2e3d4a5b"));
    // A settled row changed in place is found by the next full look, which is owed
    // once a look found a commit.
    assert!(mirror.full_look_due().is_some());
}
