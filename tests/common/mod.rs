#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

pub mod nats;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-sessions")
        .join(name)
}

/// A copy of a sample in a fresh folder, so tests that write sidecars do not touch the
/// repository.
pub fn sample_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::copy(sample(name), &path).expect("copy sample");
    (dir, path)
}

pub fn ctxlens() -> Command {
    let mut cmd = Command::cargo_bin("ctxlens").expect("binary builds");
    cmd.env_remove("NO_COLOR");
    // Files beside the log, whatever the developer's shell says.
    cmd.env_remove("CTXLENS_NATS_URL");
    cmd
}

/// `audit --json` of one file: the report and the exit code.
pub fn audit_json(path: &Path, extra: &[&str]) -> (Value, i32) {
    let output = ctxlens()
        .arg("audit")
        .arg("--json")
        .args(extra)
        .arg(path)
        .output()
        .expect("runs");
    let stdout = String::from_utf8(output.stdout).expect("utf-8 report");
    let report = serde_json::from_str(stdout.trim()).expect("one JSON report");
    (report, output.status.code().expect("exit code"))
}

pub fn finding_kinds(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["kind"].as_str().expect("kind").to_owned())
        .collect()
}

/// The first finding of `kind` in a report; panics when there is none.
pub fn first_finding(report: &Value, kind: &str) -> Value {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} finding in {report}"))
        .clone()
}

/// The command ended with `code`; its stderr is shown when it did not.
pub fn assert_exit(out: &std::process::Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `ctxlens decide LOG ID VERDICT --by BY`.
pub fn decide(log: &Path, id: &str, verdict: &str, by: &str) -> std::process::Output {
    ctxlens()
        .arg("decide")
        .arg(log)
        .args([id, verdict, "--by", by])
        .output()
        .expect("runs")
}

/// `ctxlens spill get LOG HANDLE`, piped.
pub fn spill_get(log: &Path, handle: &str) -> std::process::Output {
    ctxlens()
        .args(["spill", "get"])
        .arg(log)
        .arg(handle)
        .output()
        .expect("runs")
}

/// `../shared/real-sessions`, or `None` with a skip notice on a plain clone that does not
/// have it (CI has it and runs the tests that need it).
pub fn real_sessions_dir(test: &str) -> Option<PathBuf> {
    shared_dir(test, "real-sessions")
}

/// `../shared/labelled`: the sessions labelled by `RULES.md`, or `None` with a skip
/// notice on a plain clone.
pub fn labelled_dir(test: &str) -> Option<PathBuf> {
    shared_dir(test, "labelled")
}

/// `../shared/<name>`, or `None` with a skip notice on a plain clone. Under CI (`CI`
/// set), where `../shared` is beside the clone, its absence fails the test instead.
fn shared_dir(test: &str, name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    skip(
        test,
        &format!("{} is not here (a plain clone)", dir.display()),
    );
    None
}

/// Says that `test` is skipped and why, on a machine without what it needs. Under CI
/// (`CI` set), which installs everything the tests need, a skip fails the test.
pub fn skip(test: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {why}, and CI must have it"
    );
    eprintln!("skipped {test}: {why}; CI runs it");
}

/// Every `.jsonl` file of the real sessions, sorted; empty (with a notice) without them.
pub fn real_session_files(test: &str) -> Vec<PathBuf> {
    let Some(dir) = real_sessions_dir(test) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the real-sessions folder reads")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

/// One real session by file name, or `None` (with a notice) on a plain clone.
pub fn real_session(test: &str, name: &str) -> Option<PathBuf> {
    real_sessions_dir(test).map(|dir| dir.join(name))
}

/// The Claude Code sample cut before its compact boundary, and the rest of it: the
/// transcript as it stands when PreCompact runs, and what Claude Code writes once the
/// compaction goes ahead.
pub fn claude_transcript_before_boundary() -> (tempfile::TempDir, PathBuf, String) {
    let full = std::fs::read_to_string(sample("claude-code-compaction.jsonl")).expect("sample");
    let cut = full
        .find("\"subtype\": \"compact_boundary\"")
        .expect("a boundary");
    let line_start = full[..cut].rfind('\n').map_or(0, |i| i + 1);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("8c1d2e3f.jsonl");
    std::fs::write(&path, &full[..line_start]).expect("write");
    (dir, path, full[line_start..].to_owned())
}

/// A recorded hook payload (`tests/hook-payloads/NAME`) for `transcript`: its
/// `transcript_path`, and a `cwd` the transcript lies under, as hooks require.
pub fn hook_payload(name: &str, transcript: &Path) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/hook-payloads")
            .join(name),
    )
    .expect("a recorded payload");
    let mut payload: Value = serde_json::from_str(&text).expect("JSON");
    payload["transcript_path"] = Value::from(transcript.display().to_string());
    if payload.get("cwd").is_some() {
        let folder = transcript.parent().expect("a folder");
        payload["cwd"] = Value::from(folder.display().to_string());
    }
    payload.to_string()
}

/// The pending sample's compaction applied, then the plan's next step taken: the
/// tripwire's starting point.
pub fn apply_k1_and_run_the_smoke_step(log: &Path) {
    let mut text = std::fs::read_to_string(log).unwrap();
    text.push_str("{\"type\":\"compaction\",\"seq\":14,\"id\":\"k1\",\"phase\":\"applied\"}\n");
    text.push_str(
        "{\"type\":\"action\",\"seq\":15,\"step\":\"s2\",\"name\":\"smoke\",\"target\":\"staging\"}\n",
    );
    std::fs::write(log, text).unwrap();
}

/// CPU time (user + system) of a process so far, in clock ticks.
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc is there");
    let after_name = &stat[stat.rfind(')').expect("stat has a name") + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

pub fn clock_ticks_per_second() -> u64 {
    let out = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("getconf runs");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(100)
}

/// Claude Code writes the boundary, its summary and what follows.
pub fn land(transcript: &Path, rest: &str) {
    let mut all = std::fs::read_to_string(transcript).unwrap();
    all.push_str(rest);
    std::fs::write(transcript, all).unwrap();
}

/// Lines of the transcript's binding ledger.
pub fn ledger_len(transcript: &Path) -> usize {
    let file = format!("{}.ctxlens-ledger.jsonl", transcript.display());
    std::fs::read_to_string(file).map_or(0, |t| t.lines().count())
}

/// Waits until the transcript's ledger has `lines` lines.
pub fn wait_for_ledger(transcript: &Path, lines: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ledger_len(transcript) < lines {
        assert!(std::time::Instant::now() < deadline, "the hook never held");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Starts `ctxlens ARGS` with `env`, `stdin` written to it, its output piped.
pub fn spawn_with_stdin(args: &[&str], env: &[(&str, &str)], stdin: &str) -> std::process::Child {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child
}

/// Starts Claude Code's held pre-compact hook (60 s) on `transcript` with the recorded
/// payload and `env`, and returns once it holds (its ledger line is written).
pub fn hold_claude_code(transcript: &Path, env: &[(&str, &str)]) -> std::process::Child {
    let held = ledger_len(transcript) + 1;
    let child = spawn_with_stdin(
        &[
            "hook",
            "claude-code",
            "pre-compact",
            "--hold",
            "--timeout",
            "60",
        ],
        env,
        &hook_payload("pre-compact.json", transcript),
    );
    wait_for_ledger(transcript, held);
    child
}

/// An OpenCode database built from rows cut from a run of the real client (1.18.33,
/// automatic compaction): the schema's tables as OpenCode has them, in WAL mode as
/// OpenCode keeps it.
pub fn opencode_database(dir: &Path) -> PathBuf {
    let db = dir.join("opencode.db");
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute_batch(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE session (id text PRIMARY KEY, directory text NOT NULL, title text NOT NULL,
               time_created integer NOT NULL, tokens_input integer, tokens_output integer,
               tokens_cache_read integer, tokens_cache_write integer);
             CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
               time_created integer NOT NULL, data text NOT NULL);
             CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL,
               session_id text NOT NULL, time_created integer NOT NULL, data text NOT NULL);",
        )
        .unwrap();
    let rows = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode-compaction.jsonl"),
    )
    .unwrap();
    for line in rows.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let row = record["row"].as_object().unwrap();
        let columns: Vec<&str> = row.keys().map(String::as_str).collect();
        let marks = vec!["?"; columns.len()].join(", ");
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({marks})",
            record["table"].as_str().unwrap(),
            columns.join(", ")
        );
        let values: Vec<rusqlite::types::Value> = row
            .values()
            .map(|v| match v {
                Value::String(s) => rusqlite::types::Value::Text(s.clone()),
                Value::Number(n) => rusqlite::types::Value::Integer(n.as_i64().unwrap()),
                Value::Null => rusqlite::types::Value::Null,
                other => rusqlite::types::Value::Text(other.to_string()),
            })
            .collect();
        connection
            .execute(&sql, rusqlite::params_from_iter(values))
            .unwrap();
    }
    db
}

/// [`opencode_database`] as it stood when OpenCode asked for its compaction: the
/// summary and what came after it not written yet.
pub fn opencode_before_its_compaction(dir: &Path) -> PathBuf {
    let db = opencode_database(dir);
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute_batch(
            "DELETE FROM message WHERE time_created > (SELECT m.time_created FROM message m
               JOIN part p ON p.message_id = m.id WHERE p.data LIKE '%\"type\": \"compaction\"%');
             DELETE FROM part WHERE message_id NOT IN (SELECT id FROM message);",
        )
        .unwrap();
    db
}

/// Adds a finished message with one text part to a session of an OpenCode database, as
/// OpenCode writes it (another connection, one transaction).
pub fn add_opencode_message(db: &Path, session: &str, id: &str, role: &str, text: &str) {
    let connection = rusqlite::Connection::open(db).unwrap();
    let data = serde_json::json!({"role": role, "time": {"created": 1_796_383_340_000u64,
        "completed": 1_796_383_340_100u64}, "modelID": "claude-fake",
        "tokens": {"input": 10, "output": 2, "cache": {"read": 0, "write": 0}}});
    let part = serde_json::json!({"type": "text", "text": text});
    connection
        .execute(
            "INSERT INTO message (id, session_id, time_created, data) VALUES (?1, ?2, 1796383340000, ?3)",
            rusqlite::params![id, session, data.to_string()],
        )
        .unwrap();
    connection
        .execute(
            "INSERT INTO part (id, message_id, session_id, time_created, data) VALUES (?1, ?2, ?3, 1796383340000, ?4)",
            rusqlite::params![format!("prt_{id}"), id, session, part.to_string()],
        )
        .unwrap();
}
