//! OpenCode's database as logs ctxlens can open, follow and ship: each session copied
//! into a JSONL file of its own (`store::mirror`), in the lines the core's OpenCode
//! parser reads, and kept up to date while OpenCode writes. A session's copy holds only
//! settled messages, so it grows by appends and a follower reads each line once.

use crate::ingest::opencode::{Database, DatabaseError};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why the copies could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    #[error(transparent)]
    Database(#[from] DatabaseError),
    #[error("{}: cannot keep the copy of the database's sessions: {source}", path.display())]
    Copy {
        path: PathBuf,
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

/// Brings the copy of every session of `database` in `folder` up to date: their paths.
pub fn refresh(database: &Database, folder: &Path) -> Result<Vec<PathBuf>, MirrorError> {
    crate::store::mirror::prepare(folder).map_err(copy_error(folder))?;
    let mut out = Vec::new();
    for session in database.sessions()? {
        // An id is OpenCode's (`ses_…`); one that could leave the folder is skipped.
        if session.id.is_empty()
            || !session
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            continue;
        }
        let lines = database.session_lines(&session.id, true)?;
        let path = folder.join(format!("{}.jsonl", session.id));
        crate::store::mirror::sync(&path, &lines).map_err(copy_error(&path))?;
        out.push(path);
    }
    Ok(out)
}

/// Makes the copies of `db`'s sessions now, then keeps them up to date on a thread of
/// their own for as long as the process runs: it sleeps until a file beside the
/// database changes, and copies again only when SQLite says another connection
/// committed (`PRAGMA data_version`). The folder of the copies.
pub fn follow(db: &Path) -> Result<PathBuf, MirrorError> {
    let folder = folder_of(db)?;
    let database = Database::open(db)?;
    refresh(&database, &folder)?;
    let mut seen = database.data_version()?;
    let (db, into) = (db.to_owned(), folder.clone());
    std::thread::spawn(move || {
        let (wake, woken) = std::sync::mpsc::channel::<()>();
        // Kept alive by the loop. With it the thread sleeps until a file beside the
        // database changes; without it (no inotify) the version is asked every few
        // seconds.
        let watcher = crate::ingest::watch::watch_folder_of(&db, move || {
            let _ = wake.send(());
        });
        loop {
            let woke = match &watcher {
                Some(_) => woken.recv().is_ok(),
                None => !matches!(
                    woken.recv_timeout(FALLBACK_LOOK),
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected)
                ),
            };
            if !woke {
                std::thread::sleep(FALLBACK_LOOK);
            }
            while woken.try_recv().is_ok() {}
            let Ok(version) = database.data_version() else {
                continue;
            };
            if version != seen && refresh(&database, &into).is_ok() {
                seen = version;
            }
        }
    });
    Ok(folder)
}

/// How often the database is asked when no file event came.
const FALLBACK_LOOK: Duration = Duration::from_secs(2);
