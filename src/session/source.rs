//! What a command is given to open, made a log it can read: an OpenCode database of
//! one session, one of its sessions by the name `audit` prints (`opencode.db#ses_…`),
//! and OpenCode's own export (`opencode export SESSION > session.json`) are each
//! ctxlens's copy of that session (`session::mirror`), beside which decisions, spills
//! and the ledger live; any other path is the log itself.

use super::mirror::{self, MirrorError};
use super::{Loaded, SessionError};
use crate::ingest::opencode;
use ctxlens_core::model::Session;
use std::path::{Path, PathBuf};

pub(crate) use crate::ingest::opencode::{default_database, is_database, DatabaseError};

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
    #[error(transparent)]
    Database(#[from] DatabaseError),
    #[error("{}: no session logs (*.jsonl) under it", crate::sanitize::line(&path.display().to_string()))]
    NoLogs { path: PathBuf },
    #[error(
        "{}: no such file, and no session on the events stream matches it",
        crate::sanitize::line(filter)
    )]
    NoSubject { filter: String },
    #[error("{}: {source}", crate::sanitize::line(filter))]
    Server {
        filter: String,
        #[source]
        source: crate::store::StoreError,
    },
    #[error("{subject}: not an events subject")]
    NotASubject { subject: String },
    #[error("{}: not a session log (a binary file: no line of it is an event)", crate::sanitize::line(&path.display().to_string()))]
    Binary { path: PathBuf },
}

/// The name of one session of an OpenCode database, as `audit` prints it.
pub(crate) fn session_name(db: &Path, session: &str) -> String {
    format!("{}#{session}", db.display())
}

/// `db#session` split, when `path` is such a name of a database's session.
pub(crate) fn split_session_name(path: &Path) -> Option<(PathBuf, String)> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    let (db, session) = text.rsplit_once('#')?;
    let db = PathBuf::from(db);
    (!session.is_empty() && opencode::is_database(&db)).then(|| (db, session.to_owned()))
}

/// The log to read for `path`.
pub(crate) fn resolve(path: &Path) -> Result<PathBuf, SourceError> {
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
pub(crate) fn export_copy(path: &Path) -> Result<Option<PathBuf>, SourceError> {
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

/// Where a log to report on comes from.
pub(crate) enum Origin {
    /// A log file.
    File(PathBuf),
    /// An OpenCode database with no session.
    EmptyDatabase(PathBuf),
    /// A session of an OpenCode database.
    DatabaseSession(PathBuf, String),
    /// A subject of the fleet's events stream.
    Subject(String),
}

/// The logs `paths` name, in order: files (with the transcripts of their Claude Code
/// subagents, which compact on their own), the logs under a folder, each session of an
/// OpenCode database, and with a server, the subjects a name matches (wildcards
/// expanded). A path that names nothing comes with its name and why.
pub(crate) fn origins(
    paths: &[PathBuf],
    server: Option<&crate::store::nats::Nats>,
) -> Vec<Result<Origin, (String, SourceError)>> {
    let mut out = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        let failed = |e: SourceError| Err((name.clone(), e));
        // A session of an OpenCode database by the name `audit` prints.
        if let Some((db, session)) = split_session_name(path) {
            out.push(Ok(Origin::DatabaseSession(db, session)));
            continue;
        }
        // OpenCode's own export of a session: ctxlens's copy of it.
        match export_copy(path) {
            Ok(Some(copy)) => {
                out.push(Ok(Origin::File(copy)));
                continue;
            }
            Ok(None) => {}
            Err(e) => {
                out.push(failed(e));
                continue;
            }
        }
        if path.is_dir() {
            let mut logs = super::find_logs(path);
            logs.sort();
            if logs.is_empty() {
                out.push(failed(SourceError::NoLogs { path: path.clone() }));
            }
            out.extend(logs.into_iter().map(|log| Ok(Origin::File(log))));
            continue;
        }
        if path.is_file() && opencode::is_database(path) {
            match opencode::sessions(path) {
                Ok(sessions) if sessions.is_empty() => {
                    out.push(Ok(Origin::EmptyDatabase(path.clone())))
                }
                Ok(sessions) => out.extend(
                    sessions
                        .into_iter()
                        .map(|s| Ok(Origin::DatabaseSession(path.clone(), s.id))),
                ),
                Err(e) => out.push(failed(e.into())),
            }
            continue;
        }
        let Some(server) = server.filter(|_| !path.exists()) else {
            out.push(Ok(Origin::File(path.clone())));
            out.extend(
                super::subagents_of(path)
                    .into_iter()
                    .filter(|agent| !paths.contains(agent))
                    .map(|agent| Ok(Origin::File(agent))),
            );
            continue;
        };
        let filter = path.to_string_lossy().into_owned();
        match server.subjects(&filter) {
            Ok(subjects) if subjects.is_empty() => {
                out.push(failed(SourceError::NoSubject { filter }))
            }
            Ok(subjects) => out.extend(
                subjects
                    .into_iter()
                    .filter(|s| s.ends_with(".events"))
                    .map(|s| Ok(Origin::Subject(s))),
            ),
            Err(source) => out.push(failed(SourceError::Server { filter, source })),
        }
    }
    out
}

/// A session of an OpenCode database as it stands, with the decisions and the hooks'
/// ledger recorded beside ctxlens's copy of it (which the TUI and the hooks use).
pub(crate) fn from_database(
    db: &Path,
    session: &str,
    strict: bool,
) -> Result<Loaded, SessionError> {
    let bytes = opencode::session_lines(db, session).map_err(SourceError::from)?;
    let mut parsed = crate::ingest::parse_bytes(&bytes);
    let copy = mirror::copy_of(db, session).map_err(SourceError::from)?;
    // The hooks' ledger lies beside the copy, whose lines these are.
    super::attach_sidecars(&mut parsed, &copy).map_err(|source| crate::ingest::LoadError {
        path: copy.clone(),
        source,
    })?;
    let backend = crate::store::channel::Backend::files(&copy);
    super::analyze(parsed, &*backend.channel, strict)
}

/// A session replayed from the fleet's events stream, with its decisions from the
/// server.
pub(crate) fn from_stream(
    server: &std::sync::Arc<crate::store::nats::Nats>,
    subject: &str,
    strict: bool,
) -> Result<Loaded, SessionError> {
    let replayed = server
        .replay(subject)
        .map_err(|source| SourceError::Server {
            filter: subject.to_owned(),
            source,
        })?;
    let session = crate::ingest::parse_bytes(&replayed);
    let key = crate::store::nats::keys::session_of_subject(subject).ok_or_else(|| {
        SourceError::NotASubject {
            subject: subject.to_owned(),
        }
    })?;
    let backend = crate::store::nats::backend(server, &key);
    super::analyze(session, &*backend.channel, strict)
}

/// Refuses a file read as no event at all whose first block holds a NUL byte, which
/// no text log holds: a binary, not a log.
pub(crate) fn refuse_binary(path: &Path, session: &Session) -> Result<(), SourceError> {
    let lines = session.malformed.total();
    if session.events.is_empty() && lines > 0 && starts_with_a_nul_byte(path) {
        return Err(SourceError::Binary {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// Whether the first block of the file at `path` holds a NUL byte.
fn starts_with_a_nul_byte(path: &Path) -> bool {
    let mut first = [0u8; 8192];
    let read = crate::ingest::open_log(path)
        .ok()
        .and_then(|mut file| std::io::Read::read(&mut file, &mut first).ok())
        .unwrap_or(0);
    first.get(..read).is_some_and(|bytes| bytes.contains(&0))
}
