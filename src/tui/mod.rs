//! The operator's terminal UI: app state, worker threads, views.

pub mod app;
pub mod demo;
pub mod folder;
pub mod keys;
pub mod memory;
pub mod run;
pub mod snapshot;
pub mod terminal;
pub mod view;
pub mod worker;

use std::path::{Path, PathBuf};

/// Why the TUI (or the demo) cannot show a log.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("{}: {source}", path.display())]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: is a folder, not a log file", path.display())]
    Folder { path: PathBuf },
    #[error(transparent)]
    Load(#[from] crate::session::LoadError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error(transparent)]
    Mirror(#[from] crate::session::mirror::MirrorError),
    #[error("{location}: {source}")]
    Channel {
        location: String,
        #[source]
        source: crate::store::StoreError,
    },
    #[error("cannot use the terminal: {0}")]
    Terminal(#[source] std::io::Error),
    #[error("no ~/.claude/projects, ~/.codex/sessions, ~/.copilot/session-state, ~/.gemini/tmp, ~/.qwen/projects or OpenCode database here (nor under $CLAUDE_CONFIG_DIR, $CODEX_HOME, $COPILOT_HOME, $QWEN_HOME or $OPENCODE_DB); give a log or a folder: ctxlens PATH")]
    NoSessions,
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
    Input(crossterm::event::Event),
    Worker(worker::Update),
    Folder(Vec<folder::Entry>),
    /// SIGTERM, SIGINT or SIGHUP.
    Signal,
}
