//! Any bytes as the rows of an OpenCode database: each byte pair picks a column's
//! type and value (null, integer, an out-of-range time, real, text, JSON cut short,
//! blob) for a session's messages and parts. Read without a panic; every message row
//! is a message line or an unreadable row, and the parser counts each unreadable row
//! as a malformed line. `tests/cli/hostile_props.rs` runs the same checks in CI.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rusqlite::types::Value;

fn value(tag: u8, byte: u8) -> Value {
    match tag % 8 {
        0 => Value::Null,
        1 => Value::Integer(i64::from(byte) * 1_000_000_007),
        2 => Value::Integer([i64::MAX, -1, 253_402_300_800_000][usize::from(byte % 3)]),
        3 => Value::Real(f64::from(byte) / 3.0),
        4 => Value::Text(format!("m{}", byte % 4)),
        5 => Value::Text(
            [r#"{"role":"user"}"#, r#"{"type":"text","text":"rev 4f9a2c81d0e7"}"#, r#"{"type":"compaction"}"#, r#"{"type":"te"#]
                [usize::from(byte % 4)]
                .to_owned(),
        ),
        6 => Value::Blob(vec![byte, 0xff]),
        _ => Value::Text(char::from(byte).to_string()),
    }
}

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute_batch(
            "CREATE TABLE session (id, directory, title, time_created);
             CREATE TABLE message (id, session_id, time_created, data);
             CREATE TABLE part (id, message_id, session_id, time_created, data);
             INSERT INTO session VALUES ('ses_1', '/w', 't', 1);",
        )
        .unwrap();
    let mut messages = 0;
    for (n, chunk) in data.chunks_exact(7).take(64).enumerate() {
        let v = |i: usize| value(chunk[i], chunk[i + 1]);
        if chunk[6] % 2 == 0 {
            messages += 1;
            connection
                .execute("INSERT INTO message VALUES (?1, 'ses_1', ?2, ?3)", rusqlite::params![v(0), v(2), v(4)])
                .unwrap();
        } else {
            connection
                .execute(
                    "INSERT INTO part VALUES (?1, ?2, 'ses_1', ?3, ?4)",
                    rusqlite::params![format!("p{n}"), v(0), v(2), v(4)],
                )
                .unwrap();
        }
    }
    drop(connection);
    let database = ctxlens::ingest::opencode::Database::open(&db).unwrap();
    let (lines, _) = database.session_lines("ses_1", false).unwrap();
    let records: Vec<serde_json::Value> = lines
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let count = |f: &dyn Fn(&serde_json::Value) -> bool| records.iter().filter(|r| f(r)).count();
    let message_lines = count(&|r| r["type"] == "opencode.message");
    let without_id = count(&|r| r["type"] == "opencode.unreadable" && r["table"] == "message" && r["id"].is_null());
    assert_eq!(message_lines + without_id, messages);
    let session = ctxlens::ingest::parse_bytes(&lines);
    assert_eq!(session.malformed.total(), count(&|r| r["type"] == "opencode.unreadable"));
});
