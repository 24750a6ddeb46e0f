//! OpenCode's database as logs ctxlens can open, follow and ship: each session copied
//! into a JSONL file of its own (`store::mirror`), in the lines the core's OpenCode
//! parser reads, and kept up to date while OpenCode writes. A session's copy holds only
//! settled messages, so it grows by appends and a follower reads each line once.
//!
//! Only the sessions whose rows changed are copied again: a [`Mirror`] keeps each
//! session's signature (its row, and the count, newest rowid and latest update of its
//! messages and parts) and the sessions whose last message was still being written.

use crate::ingest::opencode::{Database, DatabaseError, Signature};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Why the copies could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    /// The database cannot be read.
    #[error(transparent)]
    Database(#[from] DatabaseError),
    /// The copy cannot be written.
    #[error("{}: cannot keep the copy of the database's sessions: {source}", path.display())]
    Copy {
        /// The copy's path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

fn copy_error(path: &Path) -> impl FnOnce(std::io::Error) -> MirrorError + '_ {
    move |source| MirrorError::Copy {
        path: path.to_owned(),
        source,
    }
}

/// The folder that holds the copies of `db`'s sessions.
pub fn folder_of(db: &Path) -> Result<PathBuf, MirrorError> {
    crate::store::mirror::folder_for(db).map_err(copy_error(db))
}

/// The copy of one session of `db` (made or not).
pub fn copy_of(db: &Path, session: &str) -> Result<PathBuf, MirrorError> {
    Ok(folder_of(db)?.join(format!("{session}.jsonl")))
}

/// Whether `id` can name a file in the folder: OpenCode's ids are `ses_…`; one that
/// could leave the folder is not copied.
fn is_file_name(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The copies of one database's sessions, and what was copied last.
#[derive(Default)]
pub struct Mirror {
    /// Each session's signature at the last full look.
    signatures: HashMap<String, Signature>,
    /// Each session's row at the last look.
    rows: HashMap<String, String>,
    /// The newest rowids of `message` and `part` at the last look.
    rowids: Option<[i64; 2]>,
    /// When the last full look (every session's signature) was.
    full_at: Option<std::time::Instant>,
    /// A look since the last full one found a commit: rows may have changed in place,
    /// which only a full look sees.
    owes_full_look: bool,
    /// Sessions whose last message was held back, still being written: read again on
    /// every look, as a message completes in place.
    unsettled: HashSet<String>,
}

/// How often a look compares every session's signature, a pass over each table that
/// finds rows changed in place (a pruned tool output, an edited message); the looks
/// between find added rows by rowid alone, in work proportional to what was added.
const FULL_LOOK_EVERY: Duration = Duration::from_secs(10);

/// What one refresh did.
#[derive(Debug, Default)]
pub struct Refreshed {
    /// The copies, one per session.
    pub copies: Vec<PathBuf>,
    /// How many sessions were read from the database again.
    pub read: usize,
    /// Sessions that could not be read, with why (the others were).
    pub failed: Vec<(String, DatabaseError)>,
}

impl Mirror {
    /// Brings the copies in `folder` up to date with `database`: only the sessions
    /// whose rows changed since the last refresh (every one on the first), or `only`
    /// that one.
    pub fn refresh(
        &mut self,
        database: &Database,
        folder: &Path,
        only: Option<&str>,
    ) -> Result<Refreshed, MirrorError> {
        crate::store::mirror::prepare(folder).map_err(copy_error(folder))?;
        // One writer of a folder's copies at a time (the TUI's follower, a hook, ship).
        let _lock = crate::store::mirror::lock(folder).map_err(copy_error(folder))?;
        let changed = self.changed(database, only.is_some())?;
        let mut out = Refreshed::default();
        for session in database.sessions()? {
            if !is_file_name(&session.id) || only.is_some_and(|o| o != session.id) {
                continue;
            }
            let path = folder.join(format!("{}.jsonl", session.id));
            let unchanged = changed.as_ref().is_some_and(|c| !c.contains(&session.id))
                && !self.unsettled.contains(&session.id)
                && path.is_file();
            if unchanged {
                out.copies.push(path);
                continue;
            }
            out.read += 1;
            let (lines, held_back) = match database.session_lines(&session.id, true) {
                Ok(read) => read,
                Err(e) => {
                    // Read again next look.
                    self.unsettled.insert(session.id.clone());
                    if path.is_file() {
                        out.copies.push(path);
                    }
                    out.failed.push((session.id, e));
                    continue;
                }
            };
            crate::store::mirror::sync(&path, &lines).map_err(copy_error(&path))?;
            out.copies.push(path);
            if held_back {
                self.unsettled.insert(session.id.clone());
            } else {
                self.unsettled.remove(&session.id);
            }
        }
        Ok(out)
    }

    /// How long until a full look is owed (a commit was seen since the last one), if
    /// one is: the follower looks then even if nothing else is committed.
    pub fn full_look_due(&self) -> Option<Duration> {
        let at = self.full_at?;
        self.owes_full_look
            .then(|| FULL_LOOK_EVERY.saturating_sub(at.elapsed()))
    }

    /// The sessions whose rows changed since the last look; `None`: read them all
    /// (the first look, or one asked for one session). Added rows are found by rowid;
    /// every [`FULL_LOOK_EVERY`], rows changed in place by every session's signature.
    fn changed(
        &mut self,
        database: &Database,
        one: bool,
    ) -> Result<Option<HashSet<String>>, MirrorError> {
        if one {
            return Ok(None);
        }
        let rows = database.session_rows()?;
        let newest = database.newest_rowids()?;
        let full = self
            .full_at
            .is_none_or(|at| at.elapsed() >= FULL_LOOK_EVERY);
        let mut changed = match (self.rowids, full) {
            (Some(rowids), false) => {
                self.owes_full_look = true;
                database.sessions_with_rows_after(rowids)?
            }
            _ => {
                self.owes_full_look = false;
                let signatures = database.signatures()?;
                let first = self.full_at.is_none();
                let changed = signatures
                    .iter()
                    .filter(|(id, s)| self.signatures.get(*id) != Some(s))
                    .map(|(id, _)| id.clone())
                    .collect();
                self.signatures = signatures;
                self.full_at = Some(std::time::Instant::now());
                if first {
                    self.rows = rows;
                    self.rowids = Some(newest);
                    return Ok(None);
                }
                changed
            }
        };
        changed.extend(
            rows.iter()
                .filter(|(id, row)| self.rows.get(*id) != Some(row))
                .map(|(id, _)| id.clone()),
        );
        self.rows = rows;
        self.rowids = Some(newest);
        Ok(Some(changed))
    }
}

/// Brings the copy of every session of `database` in `folder` up to date: their paths.
pub fn refresh(database: &Database, folder: &Path) -> Result<Vec<PathBuf>, MirrorError> {
    Ok(Mirror::default().refresh(database, folder, None)?.copies)
}

/// Brings the copy of one session of `db` up to date: its path.
pub fn refresh_one(db: &Path, session: &str) -> Result<PathBuf, MirrorError> {
    let folder = folder_of(db)?;
    let database = Database::open(db)?;
    let refreshed = Mirror::default().refresh(&database, &folder, Some(session))?;
    if let Some((_, e)) = refreshed.failed.into_iter().next() {
        return Err(e.into());
    }
    copy_of(db, session)
}

/// Why each followed database's copies stopped being brought up to date, by folder:
/// what the views show instead of "following" (a full disk, a database gone).
static STALLED: Mutex<Option<HashMap<PathBuf, String>>> = Mutex::new(None);

/// Who is told when a folder's copies stall: a view following one of them.
type StallListener = (PathBuf, Box<dyn Fn(Option<&str>) + Send>);
static LISTENERS: Mutex<Vec<StallListener>> = Mutex::new(Vec::new());

fn set_stalled(folder: &Path, why: Option<String>) {
    let Ok(mut stalled) = STALLED.lock() else {
        return;
    };
    let map = stalled.get_or_insert_with(HashMap::new);
    // Said when it changes, not on every look that finds it as it was.
    if map.get(folder) == why.as_ref() {
        return;
    }
    let said = why.as_ref().map(|why| {
        format!("stalled: ctxlens's copy of the database is not kept up to date: {why}")
    });
    match why {
        Some(why) => map.insert(folder.to_owned(), why),
        None => map.remove(folder),
    };
    if let Ok(listeners) = LISTENERS.lock() {
        for (_, tell) in listeners.iter().filter(|(f, _)| f == folder) {
            tell(said.as_deref());
        }
    }
}

/// Why the copy at `path` is no longer kept up to date, when it is one of a followed
/// database's copies that stalled.
pub fn stalled(path: &Path) -> Option<String> {
    let folder = path.parent()?;
    STALLED.lock().ok()?.as_ref()?.get(folder).cloned()
}

/// Calls `tell` with what to show each time the copies beside `copy` stall, and with
/// `None` when they are kept up to date again (nothing happens for a log that is no
/// such copy).
pub fn on_stall(copy: &Path, tell: impl Fn(Option<&str>) + Send + 'static) {
    // One view follows a database's copies at a time: the newest replaces the last.
    if let (Some(folder), Ok(mut listeners)) = (copy.parent(), LISTENERS.lock()) {
        listeners.retain(|(f, _)| f != folder);
        listeners.push((folder.to_owned(), Box::new(tell)));
    }
}

/// The file `db` is now (device, inode): another database put in its place.
fn identity(db: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(db).ok().map(|m| (m.dev(), m.ino()))
}

/// Makes the copies of `db`'s sessions now, then keeps them up to date on a thread of
/// their own for as long as the process runs: it sleeps until a file beside the
/// database changes, and copies again only when SQLite says another connection
/// committed (`PRAGMA data_version`), or the database was replaced. The folder of the
/// copies.
pub fn follow(db: &Path) -> Result<PathBuf, MirrorError> {
    let folder = folder_of(db)?;
    let first = Database::open(db)?;
    let mut mirror = Mirror::default();
    mirror.refresh(&first, &folder, None)?;
    let mut seen = first.data_version()?;
    let mut database = Some(first);
    let mut file = identity(db);
    let (db, into) = (db.to_owned(), folder.clone());
    std::thread::spawn(move || {
        let (wake, woken) = std::sync::mpsc::channel::<()>();
        // Kept alive by the loop. With it the thread sleeps until a file beside the
        // database changes; without it (no inotify) the version is asked every few
        // seconds.
        let watcher = crate::session::watch::watch_folder_of(&db, move || {
            let _ = wake.send(());
        });
        // Looks still to take after a file event that showed no commit: an event can
        // come while a commit is half written (its frames in the WAL, the index in
        // shared memory, which no event reports, not yet), and no other may follow.
        let mut again: &[Duration] = &[];
        // Whether the last look failed: an owed full look is then tried again after
        // a pause, never at once in a loop.
        let mut failing = false;
        loop {
            let waited = match (again.split_first(), &watcher) {
                (Some((wait, rest)), _) => {
                    again = rest;
                    woken.recv_timeout(*wait)
                }
                // A full look owed: taken when due, whatever is committed by then.
                (None, _) if mirror.full_look_due().is_some() => {
                    let due = mirror.full_look_due().unwrap_or(FALLBACK_LOOK);
                    woken.recv_timeout(if failing { due.max(FALLBACK_LOOK) } else { due })
                }
                (None, Some(_)) => woken
                    .recv()
                    .map_err(|_| std::sync::mpsc::RecvTimeoutError::Disconnected),
                (None, None) => woken.recv_timeout(FALLBACK_LOOK),
            };
            let by_event = waited.is_ok();
            if matches!(waited, Err(std::sync::mpsc::RecvTimeoutError::Disconnected)) {
                std::thread::sleep(FALLBACK_LOOK);
            }
            while woken.try_recv().is_ok() {}
            // A database replaced (moved over, restored) is opened again, as a rotated
            // log is: the old connection would never see another commit. The old
            // connection is closed first: closed after the new one opened, SQLite
            // would tidy the WAL files by their names, from under the new one.
            let now = identity(&db);
            if now != file {
                database = None;
                file = now;
            }
            let connection = match database.take() {
                Some(connection) => connection,
                None => match Database::open(&db) {
                    Ok(connection) => {
                        seen = i64::MIN;
                        connection
                    }
                    Err(e) => {
                        failing = true;
                        set_stalled(&into, Some(e.to_string()));
                        continue;
                    }
                },
            };
            let version = connection.data_version();
            if by_event && version.as_ref().is_ok_and(|v| *v == seen) {
                again = &LOOK_AGAIN;
            }
            let owed = mirror.full_look_due() == Some(Duration::ZERO);
            let refreshed = match version {
                Ok(version) if version == seen && !owed => Ok(()),
                Ok(version) => mirror
                    .refresh(&connection, &into, None)
                    .map(|_| seen = version),
                Err(e) => Err(e.into()),
            };
            failing = refreshed.is_err();
            match refreshed {
                Ok(()) => set_stalled(&into, None),
                Err(e) => set_stalled(&into, Some(e.to_string())),
            }
            database = Some(connection);
        }
    });
    Ok(folder)
}

/// When the database is asked again after a file event that showed no commit, each
/// wait after the last: a commit half written when its event came is seen soon after.
const LOOK_AGAIN: [Duration; 3] = [
    Duration::from_millis(100),
    Duration::from_millis(400),
    Duration::from_millis(1500),
];

/// How often the database is asked when no file event came.
const FALLBACK_LOOK: Duration = Duration::from_secs(2);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_stall_is_told_once_and_its_end_too() {
        let folder = PathBuf::from("/nowhere/mirror/db-1");
        let heard = std::sync::Arc::new(Mutex::new(Vec::new()));
        let into = std::sync::Arc::clone(&heard);
        on_stall(&folder.join("ses_1.jsonl"), move |why| {
            into.lock().unwrap().push(why.map(str::to_owned));
        });
        set_stalled(&folder, Some("No space left on device".into()));
        set_stalled(&folder, Some("No space left on device".into()));
        assert!(stalled(&folder.join("ses_1.jsonl")).is_some());
        set_stalled(&folder, None);
        let heard = heard.lock().unwrap().clone();
        assert_eq!(heard.len(), 2, "{heard:?}");
        assert!(heard[0]
            .as_deref()
            .is_some_and(|w| w.starts_with("stalled: ") && w.contains("No space")));
        assert_eq!(heard[1], None);
        assert_eq!(stalled(&folder.join("ses_1.jsonl")), None);
    }
}
