//! Reading OpenCode's SQLite database (the `opencode` feature): read-only, never a
//! write lock, every column read by its type, a row that cannot be read marked
//! `opencode.unreadable`.

use super::{push_line, rfc3339, unreadable, SessionRow, Signature};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why the database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    /// Another program holds the database's lock.
    #[error("{path}: the database is locked by another program{}; try again when it is done", by.as_deref().map(|b| format!(" ({b})")).unwrap_or_default())]
    Locked {
        /// The database's path.
        path: String,
        /// The program that holds it, when it can be told.
        by: Option<String>,
    },
    /// Not a database OpenCode wrote, or one this version cannot read.
    #[error("{path}: not an OpenCode database that can be read: {source}")]
    Unreadable {
        /// The database's path.
        path: String,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
}

impl DatabaseError {
    fn new(path: &Path, source: rusqlite::Error) -> DatabaseError {
        use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
        let path_text = path.display().to_string();
        match source.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked) => DatabaseError::Locked {
                by: holders_of(path),
                path: path_text,
            },
            _ => DatabaseError::Unreadable {
                path: path_text,
                source,
            },
        }
    }
}

/// The processes that have `path` open, when `/proc` says (`"opencode (pid 12)"`).
fn holders_of(path: &Path) -> Option<String> {
    let target = path.canonicalize().ok()?;
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let pid = entry.file_name();
        let Some(pid) = pid
            .to_str()
            .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if pid == std::process::id().to_string() {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        if fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == target))
        {
            let name = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            found.push(format!("{} (pid {pid})", name.trim()));
        }
    }
    (!found.is_empty()).then(|| found.join(", "))
}

/// An OpenCode database opened to read: read-only, and no mutex (one thread reads).
/// OpenCode's WAL is read through, never checkpointed from here.
pub struct Database {
    path: PathBuf,
    connection: Connection,
    /// Whether `message` and `part` have a `time_updated` column (OpenCode's do; a
    /// database without one is still read, its in-place changes noticed by count).
    updated_column: [bool; 2],
    /// SQLite's work on this connection, in thousands of virtual machine steps: how a
    /// test holds reading linear in the rows without timing it.
    work: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Database {
    /// Opens the database at `db` read-only, without taking OpenCode's write lock.
    pub fn open(db: &Path) -> Result<Database, DatabaseError> {
        let error = |source| DatabaseError::new(db, source);
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(db, flags).map_err(error)?;
        // A writer holding the database a moment is waited for, not failed on.
        connection
            .busy_timeout(std::time::Duration::from_secs(2))
            .map_err(error)?;
        let has_updated = |table: &str| -> Result<bool, rusqlite::Error> {
            let mut statement = connection.prepare(&format!("PRAGMA table_info({table})"))?;
            let names = statement.query_map([], |row| row.get::<_, String>(1))?;
            let mut found = false;
            for name in names {
                found |= name? == "time_updated";
            }
            Ok(found)
        };
        let updated_column = [
            has_updated("message").map_err(error)?,
            has_updated("part").map_err(error)?,
        ];
        let work = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counter = std::sync::Arc::clone(&work);
        connection.progress_handler(
            1000,
            Some(move || {
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                false
            }),
        );
        Ok(Database {
            path: db.to_owned(),
            connection,
            updated_column,
            work,
        })
    }

    /// The work SQLite did for this connection so far, in thousands of steps.
    pub fn work(&self) -> u64 {
        self.work.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn error(&self, source: rusqlite::Error) -> DatabaseError {
        DatabaseError::new(&self.path, source)
    }

    /// SQLite's count of the commits other connections made since this one opened:
    /// when it has not moved, nothing was written.
    pub fn data_version(&self) -> Result<i64, DatabaseError> {
        self.connection
            .query_row("PRAGMA data_version", [], |row| row.get(0))
            .map_err(|e| self.error(e))
    }

    /// The sessions of the database, oldest first. A row whose id is not text is left
    /// out (no session can be named by it).
    pub fn sessions(&self) -> Result<Vec<SessionRow>, DatabaseError> {
        let mut statement = self
            .connection
            .prepare("SELECT id, title FROM session ORDER BY time_created, id")
            .map_err(|e| self.error(e))?;
        let mut rows = statement.query([]).map_err(|e| self.error(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            let Some(id) = row.get_ref(0).ok().and_then(|v| text_of(v).ok()) else {
                continue;
            };
            let title = row
                .get_ref(1)
                .ok()
                .and_then(|v| text_of(v).ok())
                .unwrap_or_default();
            out.push(SessionRow { id, title });
        }
        Ok(out)
    }

    /// The newest rowid of `message` and of `part`: rows added since have larger ones.
    /// Asked of each table's B-tree, not a scan.
    pub fn newest_rowids(&self) -> Result<[i64; 2], DatabaseError> {
        let newest = |table: &str| -> Result<i64, DatabaseError> {
            self.connection
                .query_row(
                    &format!("SELECT coalesce(max(rowid), 0) FROM {table}"),
                    [],
                    |row| row.get(0),
                )
                .map_err(|e| self.error(e))
        };
        Ok([newest("message")?, newest("part")?])
    }

    /// The sessions with a message or a part added after `rowids` (from
    /// [`Self::newest_rowids`]): work in proportion to the rows added, not the table.
    pub fn sessions_with_rows_after(
        &self,
        rowids: [i64; 2],
    ) -> Result<std::collections::HashSet<String>, DatabaseError> {
        let mut out = std::collections::HashSet::new();
        for (table, after) in ["message", "part"].into_iter().zip(rowids) {
            let mut statement = self
                .connection
                .prepare(&format!("SELECT session_id FROM {table} WHERE rowid > ?1"))
                .map_err(|e| self.error(e))?;
            let mut rows = statement.query([after]).map_err(|e| self.error(e))?;
            while let Some(row) = rows.next().map_err(|e| self.error(e))? {
                if let Some(id) = row.get_ref(0).ok().and_then(|v| text_of(v).ok()) {
                    out.insert(id);
                }
            }
        }
        Ok(out)
    }

    /// Each session's row, whole, as text: what tells a renamed session (the session
    /// table is small; read whole each look).
    pub fn session_rows(&self) -> Result<HashMap<String, String>, DatabaseError> {
        let mut out = HashMap::new();
        let mut sessions = self
            .connection
            .prepare("SELECT * FROM session")
            .map_err(|e| self.error(e))?;
        let columns = sessions.column_count();
        let mut rows = sessions.query([]).map_err(|e| self.error(e))?;
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            let Some(id) = row.get_ref(0).ok().and_then(|v| text_of(v).ok()) else {
                continue;
            };
            let mut whole = String::new();
            for column in 0..columns {
                if let Ok(value) = row.get_ref(column) {
                    whole.push_str(&format!("{value:?}\u{1f}"));
                }
            }
            out.insert(id, whole);
        }
        Ok(out)
    }

    /// Each session's [`Signature`], in one pass over each table.
    pub fn signatures(&self) -> Result<HashMap<String, Signature>, DatabaseError> {
        let mut out: HashMap<String, Signature> = HashMap::new();
        for (id, whole) in self.session_rows()? {
            out.entry(id).or_default().0 = whole;
        }
        for ((slot, table), has_updated) in [(0, "message"), (3, "part")]
            .into_iter()
            .zip(self.updated_column)
        {
            let updated = if has_updated {
                "max(time_updated)"
            } else {
                "NULL"
            };
            let sql = format!(
                "SELECT session_id, count(*), max(rowid), {updated} FROM {table} GROUP BY session_id"
            );
            let mut statement = self.connection.prepare(&sql).map_err(|e| self.error(e))?;
            let mut rows = statement.query([]).map_err(|e| self.error(e))?;
            while let Some(row) = rows.next().map_err(|e| self.error(e))? {
                let Some(id) = row.get_ref(0).ok().and_then(|v| text_of(v).ok()) else {
                    continue;
                };
                let entry = out.entry(id).or_default();
                for n in 0..3 {
                    if let Some(cell) = entry.1.get_mut(slot + n) {
                        *cell = row.get_ref(n + 1).ok().and_then(integer_of);
                    }
                }
            }
        }
        Ok(out)
    }

    /// One session as lines: its row, then each message with its parts, in order.
    /// `settled`: without a last message still being written (an answer not completed,
    /// a message whose parts are not there yet), so that what is read only grows.
    /// Also whether a last message was held back for that.
    pub fn session_lines(
        &self,
        session: &str,
        settled: bool,
    ) -> Result<(Vec<u8>, bool), DatabaseError> {
        let mut out = Vec::new();
        let session_row = self
            .connection
            .query_row(
                "SELECT directory, title, time_created FROM session WHERE id = ?1",
                [session],
                |row| {
                    let text = |n| row.get_ref(n).ok().and_then(|v| text_of(v).ok());
                    Ok(json!({
                        "type": "opencode.session",
                        "id": session,
                        "directory": text(0),
                        "title": text(1),
                        "ts": row.get_ref(2).ok().and_then(integer_of).and_then(rfc3339),
                    }))
                },
            )
            .map_err(|e| self.error(e))?;
        push_line(&mut out, &session_row);
        let mut parts = self.parts_of(session)?;
        let mut messages = self
            .connection
            .prepare("SELECT id, time_created, data FROM message WHERE session_id = ?1")
            .map_err(|e| self.error(e))?;
        let mut rows = messages.query([session]).map_err(|e| self.error(e))?;
        let mut read = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            let id = row.get_ref(0).map_or(Err("no id"), text_of);
            let created = row.get_ref(1).ok().and_then(integer_of);
            let data = row.get_ref(2).map_or(Err("no data"), json_of);
            read.push((created, id, data));
        }
        // In the order OpenCode wrote them (a time it could not store sorts first).
        read.sort_by(|a, b| (a.0, a.1.as_ref().ok()).cmp(&(b.0, b.1.as_ref().ok())));
        let last = read.len().saturating_sub(1);
        let mut held_back = false;
        for (n, (created, id, data)) in read.into_iter().enumerate() {
            let ts = created.and_then(rfc3339);
            let id = match id {
                Ok(id) => id,
                Err(why) => {
                    push_line(&mut out, &unreadable("message", None, why, &ts));
                    continue;
                }
            };
            let mut these = parts.remove(&id).unwrap_or_default();
            these.sort_by(|a, b| a.0.as_ref().ok().cmp(&b.0.as_ref().ok()));
            let mut kept = Vec::with_capacity(these.len());
            let mut bad = Vec::new();
            for (part_id, part_data) in these {
                match (part_id, part_data) {
                    (Ok(part_id), Ok(data)) => kept.push(json!({"id": part_id, "data": data})),
                    (part_id, data) => {
                        let why = data.err().or(part_id.as_ref().err().copied());
                        let why = why.unwrap_or("unreadable");
                        bad.push(unreadable("part", part_id.ok().as_deref(), why, &ts));
                    }
                }
            }
            let data = match data {
                Ok(data) => data,
                Err(why) => {
                    bad.push(unreadable("message", Some(&id), why, &ts));
                    Value::Object(Map::new())
                }
            };
            if settled && n == last && bad.is_empty() && !is_settled(&data, &kept) {
                held_back = true;
                break;
            }
            // An unreadable row stands just before the message it belongs to, inside
            // the same region.
            for line in &bad {
                push_line(&mut out, line);
            }
            let message = json!({
                "type": "opencode.message",
                "id": id,
                "ts": ts,
                "data": data,
                "parts": kept,
            });
            push_line(&mut out, &message);
        }
        // Parts of no message of the session are still the session's: shown unreadable.
        let mut orphans: Vec<_> = parts.into_iter().collect();
        orphans.sort_by(|a, b| a.0.cmp(&b.0));
        for (message, _) in orphans {
            let why = "a part of a message the session does not have";
            push_line(&mut out, &unreadable("part", Some(&message), why, &None));
        }
        Ok((out, held_back))
    }

    /// Every part of `session`, by message id, in one query.
    fn parts_of(&self, session: &str) -> Result<HashMap<String, Vec<PartRow>>, DatabaseError> {
        let mut statement = self
            .connection
            .prepare("SELECT message_id, id, data FROM part WHERE session_id = ?1")
            .map_err(|e| self.error(e))?;
        let mut rows = statement.query([session]).map_err(|e| self.error(e))?;
        let mut out: HashMap<String, Vec<PartRow>> = HashMap::new();
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            let message = row
                .get_ref(0)
                .ok()
                .and_then(|v| text_of(v).ok())
                .unwrap_or_default();
            let id = row.get_ref(1).map_or(Err("no id"), text_of);
            let data = row.get_ref(2).map_or(Err("no data"), json_of);
            out.entry(message).or_default().push((id, data));
        }
        Ok(out)
    }
}

/// A part row: its id and its data, or why either cannot be read.
type PartRow = (Result<String, &'static str>, Result<Value, &'static str>);

/// A text column: text as OpenCode writes it; a number, or a blob of UTF-8, as text.
fn text_of(value: ValueRef<'_>) -> Result<String, &'static str> {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| "not UTF-8 text"),
        ValueRef::Integer(n) => Ok(n.to_string()),
        ValueRef::Real(_) => Err("a number where text belongs"),
        ValueRef::Null => Err("empty"),
    }
}

/// An integer column (a time in milliseconds): a real is taken when it is a whole
/// number in range, text when it spells one.
fn integer_of(value: ValueRef<'_>) -> Option<i64> {
    match value {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Real(r) if r.is_finite() && r.fract() == 0.0 && r.abs() < 9.0e15 =>
        {
            #[allow(clippy::cast_possible_truncation)]
            Some(r as i64)
        }
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// A `data` column: a JSON object, or why it is none.
fn json_of(value: ValueRef<'_>) -> Result<Value, &'static str> {
    let text = text_of(value)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("data is JSON but not an object"),
        Err(e) if e.is_eof() => Err("data is JSON cut short"),
        Err(_) => Err("data is not valid JSON"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_that_is_not_a_json_object_says_why() {
        assert!(json_of(ValueRef::Text(br#"{"a":1}"#)).is_ok());
        assert_eq!(
            json_of(ValueRef::Text(br#"{"a":1"#)),
            Err("data is JSON cut short")
        );
        assert_eq!(
            json_of(ValueRef::Real(1.5)),
            Err("a number where text belongs")
        );
        assert_eq!(json_of(ValueRef::Blob(&[0xff])), Err("not UTF-8 text"));
        assert!(json_of(ValueRef::Blob(br#"{"a":1}"#)).is_ok());
        assert_eq!(integer_of(ValueRef::Real(12.0)), Some(12));
        assert_eq!(integer_of(ValueRef::Real(f64::NAN)), None);
    }
}
