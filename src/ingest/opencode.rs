//! OpenCode's session store: a SQLite database (`~/.local/share/opencode/opencode.db`)
//! with tables `session`, `message` and `part`, each row's fields in a JSON `data`
//! column. Opened read-only (never a write lock, never a change to the agent's files,
//! while OpenCode writes through its WAL); each session read into the lines
//! `ctxlens_core::parse::opencode` parses.

use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Value};
use std::io::Read;
use std::path::Path;

/// The 16 bytes every SQLite database starts with.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Whether `path` is a SQLite database (opened as logs are: never blocking).
pub fn is_database(path: &Path) -> bool {
    let mut head = [0u8; 16];
    super::open_log(path)
        .and_then(|mut file| file.read_exact(&mut head))
        .is_ok_and(|()| &head == SQLITE_HEADER)
}

/// A session of the database: its id and title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub title: String,
}

/// Why the database could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: not an OpenCode database that can be read: {source}")]
pub struct DatabaseError {
    path: String,
    #[source]
    source: rusqlite::Error,
}

fn open(db: &Path) -> Result<Connection, DatabaseError> {
    let error = |source| DatabaseError {
        path: db.display().to_string(),
        source,
    };
    // Read-only, and no mutex: one thread reads. OpenCode's WAL is read through, never
    // checkpointed from here.
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(db, flags).map_err(error)?;
    // A writer holding the database a moment is waited for, not failed on.
    connection
        .busy_timeout(std::time::Duration::from_secs(2))
        .map_err(error)?;
    Ok(connection)
}

/// The sessions of the database, oldest first.
pub fn sessions(db: &Path) -> Result<Vec<SessionRow>, DatabaseError> {
    let connection = open(db)?;
    let error = |source| DatabaseError {
        path: db.display().to_string(),
        source,
    };
    let mut statement = connection
        .prepare("SELECT id, title FROM session ORDER BY time_created, id")
        .map_err(error)?;
    let rows = statement
        .query_map([], |row| {
            Ok(SessionRow {
                id: row.get(0)?,
                title: row.get::<_, Option<String>>(1)?.unwrap_or_default(),
            })
        })
        .map_err(error)?;
    rows.collect::<Result<_, _>>().map_err(error)
}

/// One session as lines: its row, then each message with its parts, in order.
pub fn session_lines(db: &Path, session: &str) -> Result<Vec<u8>, DatabaseError> {
    let connection = open(db)?;
    let error = |source| DatabaseError {
        path: db.display().to_string(),
        source,
    };
    let mut out = Vec::new();
    let session_row = connection
        .query_row(
            "SELECT directory, title, time_created, tokens_input, tokens_output, \
             tokens_cache_read, tokens_cache_write FROM session WHERE id = ?1",
            [session],
            |row| {
                Ok(json!({
                    "type": "opencode.session",
                    "id": session,
                    "directory": row.get::<_, Option<String>>(0)?,
                    "title": row.get::<_, Option<String>>(1)?,
                    "ts": rfc3339(row.get::<_, Option<i64>>(2)?),
                    "tokens_input": row.get::<_, Option<i64>>(3)?,
                    "tokens_output": row.get::<_, Option<i64>>(4)?,
                    "tokens_cache_read": row.get::<_, Option<i64>>(5)?,
                    "tokens_cache_write": row.get::<_, Option<i64>>(6)?,
                }))
            },
        )
        .map_err(error)?;
    push_line(&mut out, &session_row);
    let mut messages = connection
        .prepare(
            "SELECT id, time_created, data FROM message WHERE session_id = ?1 \
             ORDER BY time_created, id",
        )
        .map_err(error)?;
    let mut parts = connection
        .prepare("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")
        .map_err(error)?;
    let rows = messages
        .query_map([session], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, Option<i64>>(1)?,
                row.get::<_, String>(2)?,
            ))
        })
        .map_err(error)?;
    for row in rows {
        let (id, created, data) = row.map_err(error)?;
        let parts: Vec<Value> = parts
            .query_map([&id], |part| {
                Ok(json!({"id": part.get::<_, String>(0)?, "data": parsed(&part.get::<_, String>(1)?)}))
            })
            .map_err(error)?
            .collect::<Result<_, _>>()
            .map_err(error)?;
        let message = json!({
            "type": "opencode.message",
            "id": id,
            "ts": rfc3339(created),
            "data": parsed(&data),
            "parts": parts,
        });
        push_line(&mut out, &message);
    }
    Ok(out)
}

/// A `data` column: its JSON, or the text as a string when it is none.
fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

fn push_line(out: &mut Vec<u8>, value: &Value) {
    out.extend_from_slice(value.to_string().as_bytes());
    out.push(b'\n');
}

/// Milliseconds since the epoch, as RFC 3339.
fn rfc3339(millis: Option<i64>) -> Option<String> {
    let millis = u64::try_from(millis?).ok()?;
    let time = std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_millis(millis))?;
    Some(humantime::format_rfc3339_millis(time).to_string())
}
