//! The operator's terminal UI: app state, worker threads, views.

pub mod app;
pub mod demo;
pub mod folder;
pub mod keys;
pub(crate) mod memory;
pub(crate) mod run;
pub mod snapshot;
pub(crate) mod terminal;
pub mod view;
pub mod worker;

use std::path::{Path, PathBuf};

/// Why the TUI (or the demo) cannot show a log.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// A file cannot be read.
    #[error("{}: {source}", path.display())]
    File {
        /// Its path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A folder was given where a log was wanted.
    #[error("{}: is a folder, not a log file", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
    },
    /// The log cannot be read.
    #[error(transparent)]
    Load(#[from] crate::session::LoadError),
    /// The session cannot be opened.
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    /// ctxlens's copy of a database session cannot be kept.
    #[error(transparent)]
    Mirror(#[from] crate::session::mirror::MirrorError),
    /// The decisions cannot be read.
    #[error("{location}: {source}")]
    Channel {
        /// Where they live.
        location: String,
        /// What failed.
        #[source]
        source: crate::store::StoreError,
    },
    /// The terminal cannot be used.
    #[error("cannot use the terminal: {0}")]
    Terminal(#[source] std::io::Error),
    /// No agent's sessions on this machine.
    #[error("no ~/.claude/projects, ~/.codex/sessions, ~/.copilot/session-state, ~/.gemini/tmp, ~/.qwen/projects or OpenCode database here (nor under $CLAUDE_CONFIG_DIR, $CODEX_HOME, $COPILOT_HOME, $QWEN_HOME or $OPENCODE_DB); give a log or a folder: ctxlens PATH")]
    NoSessions,
    /// The demo's scenario cannot be used.
    #[error("the demo: {0}")]
    Demo(String),
}

/// `TuiError::File` for `path`, as `map_err` takes it.
pub fn file_error(path: &Path) -> impl FnOnce(std::io::Error) -> TuiError + '_ {
    move |source| TuiError::File {
        path: path.to_owned(),
        source,
    }
}

/// Everything the event loop waits for, on one channel.
pub enum Msg {
    /// A key, a mouse event or a resize.
    Input(crossterm::event::Event),
    /// What the session view's worker sends.
    Worker(worker::Update),
    /// What the folder scanner found.
    Folder(Vec<folder::Entry>),
    /// What a search of the listed sessions' text found, for the query searched.
    FolderHits(String, Vec<crate::session::LogHit>),
    /// SIGTERM, SIGINT or SIGHUP.
    Signal,
}
