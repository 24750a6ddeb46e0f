//! OpenCode's session store: a SQLite database (`~/.local/share/opencode/opencode.db`)
//! with tables `session`, `message` and `part`, each row's fields in a JSON `data`
//! column. Opened read-only (never a write lock, never a change to the agent's files,
//! while OpenCode writes through its WAL); each session read into the lines
//! `ctxlens_core::parse::opencode` parses.
//!
//! The database is another program's and may hold anything: a value of another type
//! than OpenCode writes, JSON cut short, a time past year 9999. Such a row becomes an
//! `opencode.unreadable` line, which the parser counts as a malformed line where the
//! row stood; a session that cannot be read at all is reported and the others are read.
//! No query depends on OpenCode's indexes: a session's rows are read in one pass over
//! each table (or through the index where there is one), never a query per message.

use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The 16 bytes every SQLite database starts with.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Whether `path` is a SQLite database (opened as logs are: never blocking).
pub fn is_database(path: &Path) -> bool {
    let mut head = [0u8; 16];
    super::open_log(path)
        .and_then(|mut file| file.read_exact(&mut head))
        .is_ok_and(|()| &head == SQLITE_HEADER)
}

/// OpenCode's database, where OpenCode keeps it: `$OPENCODE_DB`, or `opencode.db`
/// under `$XDG_DATA_HOME/opencode` (`~/.local/share/opencode`); when it is one.
pub fn default_database() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let db = var("OPENCODE_DB").or_else(|| {
        var("XDG_DATA_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".local/share")))
            .map(|d| d.join("opencode/opencode.db"))
    })?;
    is_database(&db).then_some(db)
}

/// A session of the database: its id and title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// OpenCode's id of the session (`ses_…`).
    pub id: String,
    /// Its title, as OpenCode shows it.
    pub title: String,
}

#[cfg(feature = "opencode")]
mod database;
#[cfg(not(feature = "opencode"))]
#[path = "database_off.rs"]
mod database;
pub use database::{Database, DatabaseError};

/// What tells whether a session's rows changed: its row, and for its messages and its
/// parts how many there are, the newest rowid and the latest `time_updated`.
pub type Signature = (String, [Option<i64>; 6]);

/// The sessions of the database, oldest first.
pub fn sessions(db: &Path) -> Result<Vec<SessionRow>, DatabaseError> {
    Database::open(db)?.sessions()
}

/// One session as lines, as it stands now (see [`Database::session_lines`]).
pub fn session_lines(db: &Path, session: &str) -> Result<Vec<u8>, DatabaseError> {
    Ok(Database::open(db)?.session_lines(session, false)?.0)
}

fn push_line(out: &mut Vec<u8>, value: &Value) {
    out.extend_from_slice(value.to_string().as_bytes());
    out.push(b'\n');
}

/// The last millisecond RFC 3339 can write (9999-12-31T23:59:59.999Z).
const LAST_WRITABLE_MILLIS: u64 = 253_402_300_799_999;

/// Milliseconds since the epoch, as RFC 3339; `None` for a time before the epoch or
/// past year 9999 (milliseconds stored as microseconds, a corrupt value): no
/// timestamp, never a failure.
pub fn rfc3339(millis: i64) -> Option<String> {
    let millis = u64::try_from(millis)
        .ok()
        .filter(|&m| m <= LAST_WRITABLE_MILLIS)?;
    let time = std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_millis(millis))?;
    Some(crate::clock::millis(time))
}

/// OpenCode's own export (`opencode export SESSION`): one JSON object with the session
/// as `info` and `messages`, each `{info, parts}`. Its lines, as the database's rows
/// make them; `None` when `bytes` is not one.
pub fn export_lines(bytes: &[u8]) -> Option<Vec<u8>> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes.get(start) != Some(&b'{') {
        return None;
    }
    let value: Value = serde_json::from_slice(bytes).ok()?;
    let info = value.get("info")?.as_object()?;
    let messages = value.get("messages")?.as_array()?;
    let millis = |v: Option<&Value>| v.and_then(Value::as_i64).and_then(rfc3339);
    let mut out = Vec::new();
    push_line(
        &mut out,
        &json!({
            "type": "opencode.session",
            "id": info.get("id"),
            "directory": info.get("directory"),
            "title": info.get("title"),
            "ts": millis(info.get("time").and_then(|t| t.get("created"))),
        }),
    );
    for message in messages {
        let Some(data) = message.get("info").filter(|i| i.is_object()) else {
            push_line(
                &mut out,
                &unreadable("message", None, "no info object", &None),
            );
            continue;
        };
        let parts: Vec<Value> = message
            .get("parts")
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .map(|p| json!({"id": p.get("id"), "data": p}))
                    .collect()
            })
            .unwrap_or_default();
        push_line(
            &mut out,
            &json!({
                "type": "opencode.message",
                "id": data.get("id"),
                "ts": millis(data.get("time").and_then(|t| t.get("created"))),
                "data": data,
                "parts": parts,
            }),
        );
    }
    Some(out)
}

/// The line that stands for a row that cannot be read.
pub(crate) fn unreadable(table: &str, id: Option<&str>, why: &str, ts: &Option<String>) -> Value {
    json!({"type": "opencode.unreadable", "table": table, "id": id, "why": why, "ts": ts})
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_time_rfc3339_cannot_write_is_no_timestamp() {
        assert_eq!(rfc3339(0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert!(rfc3339(LAST_WRITABLE_MILLIS as i64).is_some());
        for bad in [i64::MAX, i64::MIN, -1, LAST_WRITABLE_MILLIS as i64 + 1] {
            assert_eq!(rfc3339(bad), None, "{bad}");
        }
        // Milliseconds stored as microseconds.
        assert_eq!(rfc3339(1_796_383_340_000_000), None);
    }
}
