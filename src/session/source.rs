//! What a command is given to open, made a log it can read: an OpenCode database of
//! one session, one of its sessions by the name `audit` prints (`opencode.db#ses_…`),
//! and OpenCode's own export (`opencode export SESSION > session.json`) are each
//! ctxlens's copy of that session (`session::mirror`), beside which decisions, spills
//! and the ledger live; any other path is the log itself.

use super::mirror::{self, MirrorError};
use crate::ingest::opencode;
use std::path::{Path, PathBuf};

/// Why a path cannot be opened as one session.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Mirror(#[from] MirrorError),
    #[error("{}: an OpenCode database with no sessions", path.display())]
    NoSessions { path: PathBuf },
    #[error("{}: an OpenCode database of {} sessions; name one: {}", path.display(), names.len(), names.join(", "))]
    ManySessions { path: PathBuf, names: Vec<String> },
    #[error("{}: no session {session} in this OpenCode database", path.display())]
    NoSuchSession { path: PathBuf, session: String },
    #[error("{}: cannot keep ctxlens's copy of this OpenCode export: {source}", path.display())]
    Export {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The name of one session of an OpenCode database, as `audit` prints it.
pub fn session_name(db: &Path, session: &str) -> String {
    format!("{}#{session}", db.display())
}

/// `db#session` split, when `path` is such a name of a database's session.
pub fn split_session_name(path: &Path) -> Option<(PathBuf, String)> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    let (db, session) = text.rsplit_once('#')?;
    let db = PathBuf::from(db);
    (!session.is_empty() && opencode::is_database(&db)).then(|| (db, session.to_owned()))
}

/// The log to read for `path`.
pub fn resolve(path: &Path) -> Result<PathBuf, SourceError> {
    if let Some((db, session)) = split_session_name(path) {
        return one_session(&db, &session);
    }
    if opencode::is_database(path) {
        let sessions = opencode::sessions(path).map_err(MirrorError::from)?;
        return match sessions.as_slice() {
            [] => Err(SourceError::NoSessions {
                path: path.to_owned(),
            }),
            [only] => one_session(path, &only.id),
            many => Err(SourceError::ManySessions {
                path: path.to_owned(),
                names: many.iter().map(|s| session_name(path, &s.id)).collect(),
            }),
        };
    }
    if let Some(copy) = export_copy(path)? {
        return Ok(copy);
    }
    Ok(path.to_owned())
}

/// ctxlens's copy of `session` of `db`, brought up to date: a session the database does
/// not have makes no copy.
fn one_session(db: &Path, session: &str) -> Result<PathBuf, SourceError> {
    let copy = mirror::refresh_one(db, session)?;
    if !copy.is_file() {
        return Err(SourceError::NoSuchSession {
            path: db.to_owned(),
            session: session.to_owned(),
        });
    }
    Ok(copy)
}

/// The most of a file read to tell whether it is an OpenCode export.
const EXPORT_HEAD: usize = 4096;

/// ctxlens's copy of an OpenCode export at `path`, made or brought up to date; `None`
/// when `path` is not one. An export is one pretty-printed JSON object: its first line
/// is `{` alone, which no JSONL log's is.
pub fn export_copy(path: &Path) -> Result<Option<PathBuf>, SourceError> {
    use std::io::Read;
    let Ok(file) = crate::ingest::open_log(path) else {
        return Ok(None);
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut head = Vec::new();
    let mut file = file;
    if (&mut file)
        .take(EXPORT_HEAD as u64)
        .read_to_end(&mut head)
        .is_err()
    {
        return Ok(None);
    }
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    if first_line.trim_ascii() != b"{" {
        return Ok(None);
    }
    let error = |source| SourceError::Export {
        path: path.to_owned(),
        source,
    };
    file.read_to_end(&mut head).map_err(error)?;
    let Some(lines) = opencode::export_lines(&head) else {
        return Ok(None);
    };
    let folder = crate::store::mirror::folder_for(path).map_err(error)?;
    crate::store::mirror::prepare(&folder).map_err(error)?;
    let copy = folder.join("export.jsonl");
    crate::store::mirror::sync(&copy, &lines).map_err(error)?;
    Ok(Some(copy))
}
