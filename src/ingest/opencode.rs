//! OpenCode's session store: a SQLite database (`~/.local/share/opencode/opencode.db`)
//! with tables `session`, `message` and `part`, each row's fields in a JSON `data`
//! column. Opened read-only (never a write lock, never a change to the agent's files,
//! while OpenCode writes through its WAL); each session read into the lines
//! `ctxlens_core::parse::opencode` parses.

use rusqlite::{Connection, OpenFlags};
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

/// An OpenCode database opened to read: read-only, and no mutex (one thread reads).
/// OpenCode's WAL is read through, never checkpointed from here.
pub struct Database {
    path: std::path::PathBuf,
    connection: Connection,
}

impl Database {
    pub fn open(db: &Path) -> Result<Database, DatabaseError> {
        let error = |source| DatabaseError {
            path: db.display().to_string(),
            source,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(db, flags).map_err(error)?;
        // A writer holding the database a moment is waited for, not failed on.
        connection
            .busy_timeout(std::time::Duration::from_secs(2))
            .map_err(error)?;
        Ok(Database {
            path: db.to_owned(),
            connection,
        })
    }

    fn error(&self, source: rusqlite::Error) -> DatabaseError {
        DatabaseError {
            path: self.path.display().to_string(),
            source,
        }
    }

    /// SQLite's count of the commits other connections made since this one opened:
    /// when it has not moved, nothing was written.
    pub fn data_version(&self) -> Result<i64, DatabaseError> {
        self.connection
            .query_row("PRAGMA data_version", [], |row| row.get(0))
            .map_err(|e| self.error(e))
    }

    /// The sessions of the database, oldest first.
    pub fn sessions(&self) -> Result<Vec<SessionRow>, DatabaseError> {
        let mut statement = self
            .connection
            .prepare("SELECT id, title FROM session ORDER BY time_created, id")
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([], |row| {
                Ok(SessionRow {
                    id: row.get(0)?,
                    title: row.get::<_, Option<String>>(1)?.unwrap_or_default(),
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.error(e))
    }

    /// One session as lines: its row, then each message with its parts, in order.
    /// `settled`: without a last message still being written (an answer not completed,
    /// a message whose parts are not there yet), so that what is read only grows.
    pub fn session_lines(&self, session: &str, settled: bool) -> Result<Vec<u8>, DatabaseError> {
        let mut out = Vec::new();
        let session_row = self
            .connection
            .query_row(
                "SELECT directory, title, time_created FROM session WHERE id = ?1",
                [session],
                |row| {
                    Ok(json!({
                        "type": "opencode.session",
                        "id": session,
                        "directory": row.get::<_, Option<String>>(0)?,
                        "title": row.get::<_, Option<String>>(1)?,
                        "ts": rfc3339(row.get::<_, Option<i64>>(2)?),
                    }))
                },
            )
            .map_err(|e| self.error(e))?;
        push_line(&mut out, &session_row);
        let mut messages = self
            .connection
            .prepare(
                "SELECT id, time_created, data FROM message WHERE session_id = ?1 \
                 ORDER BY time_created, id",
            )
            .map_err(|e| self.error(e))?;
        let mut parts = self
            .connection
            .prepare("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")
            .map_err(|e| self.error(e))?;
        let rows: Vec<(String, Option<i64>, String)> = messages
            .query_map([session], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .map_err(|e| self.error(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.error(e))?;
        let last = rows.len().saturating_sub(1);
        for (n, (id, created, data)) in rows.into_iter().enumerate() {
            let parts: Vec<Value> = parts
                .query_map([&id], |part| {
                    Ok(json!({"id": part.get::<_, String>(0)?, "data": parsed(&part.get::<_, String>(1)?)}))
                })
                .map_err(|e| self.error(e))?
                .collect::<Result<_, _>>()
                .map_err(|e| self.error(e))?;
            let data = parsed(&data);
            if settled && n == last && !is_settled(&data, &parts) {
                break;
            }
            let message = json!({
                "type": "opencode.message",
                "id": id,
                "ts": rfc3339(created),
                "data": data,
                "parts": parts,
            });
            push_line(&mut out, &message);
        }
        Ok(out)
    }
}

/// Whether a message is written whole: it has its parts, and an answer has completed
/// (or failed).
fn is_settled(data: &Value, parts: &[Value]) -> bool {
    let answered = data.get("role").and_then(Value::as_str) != Some("assistant")
        || data
            .get("time")
            .is_some_and(|t| t.get("completed").is_some())
        || data.get("error").is_some();
    answered && !parts.is_empty()
}

/// The sessions of the database, oldest first.
pub fn sessions(db: &Path) -> Result<Vec<SessionRow>, DatabaseError> {
    Database::open(db)?.sessions()
}

/// One session as lines, as it stands now (see [`Database::session_lines`]).
pub fn session_lines(db: &Path, session: &str) -> Result<Vec<u8>, DatabaseError> {
    Database::open(db)?.session_lines(session, false)
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
