//! A session as the commands, the TUI and the hooks use it: a log read with what lies
//! beside it (the hooks' ledger and held compactions, the instruction files the agent
//! re-injects, the decisions of its channel) and analysed; and a decision recorded on
//! it. Everything that opens a log goes through here, so each view of it agrees.

mod context;
pub mod display;
mod find;
pub(crate) mod followed;
mod held;
pub mod mirror;
pub(crate) mod readable;
pub(crate) mod record;
pub(crate) mod source;
pub(crate) mod waiting;
pub(crate) mod watch;

/// The reading a command or a view does on a log's bytes themselves: opening it
/// safely, a range of it, a line of it; and how far a first read has got.
pub use crate::ingest::progress::Reading;
pub use crate::ingest::source::LineSource;
pub use crate::ingest::{open_log, open_range, LoadError};
pub use find::{find_logs, search_logs, subagent_parent, subagents_of, LogHit};

use crate::ingest;
use crate::store::channel::DecisionChannel;
use ctxlens_core::analysis::{Analyzer, SessionAnalysis};
use ctxlens_core::model::{Decision, Session};
use std::path::Path;

/// A log with its decisions, read and analysed once.
pub struct Loaded {
    /// The session, with its ledger and context files.
    pub session: Session,
    /// The decisions that stand for it.
    pub sidecar: Vec<Decision>,
    /// What each compaction did, with the decisions.
    pub analysis: SessionAnalysis,
    /// Lines of the decisions' sidecar that are not a decision (ignored).
    pub unreadable_decisions: Vec<u64>,
    /// Where the decisions were read: a sidecar's path, or the server's stream.
    pub decisions_at: String,
}

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The log cannot be read.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The path names no session to open.
    #[error(transparent)]
    Source(#[from] source::SourceError),
    /// The decisions cannot be read.
    #[error("{location}: {source}")]
    Channel {
        /// Where the decisions live.
        location: String,
        /// What failed.
        #[source]
        source: crate::store::StoreError,
    },
}

/// The log at `path` with what the hooks and the agent keep beside it: its ledger (and
/// a compaction a hook holds now) and the instruction files the agent re-injects.
pub fn read(path: &Path) -> Result<Session, LoadError> {
    read_with_progress(path, &mut |_| {})
}

/// [`read`], calling `report` as the first read goes.
pub fn read_with_progress(
    path: &Path,
    report: &mut dyn FnMut(Reading),
) -> Result<Session, LoadError> {
    let mut session = ingest::load_with_progress(path, report)?;
    attach_sidecars(&mut session, path).map_err(|source| LoadError {
        path: path.to_owned(),
        source,
    })?;
    Ok(session)
}

/// Adds to a session read from `path` what lies beside it: the hooks' ledger (and a
/// compaction a hook holds now), and the instruction files the agent re-injects. A
/// followed log's every look does this again: the ledger changes while it is open.
pub fn attach_sidecars(session: &mut Session, path: &Path) -> std::io::Result<()> {
    held::attach_ledger(session, path)?;
    context::attach_context_sources(session, path);
    Ok(())
}

/// The log at `path` read (as [`read`]) and analysed with the decisions of `channel`;
/// `report` hears how far the read has got.
pub fn open(
    path: &Path,
    channel: &dyn DecisionChannel,
    strict: bool,
    report: &mut dyn FnMut(Reading),
) -> Result<Loaded, SessionError> {
    let session = read_with_progress(path, report)?;
    analyze(session, channel, strict)
}

/// The analysis of a session read already, with the decisions of `channel`.
pub fn analyze(
    session: Session,
    channel: &dyn DecisionChannel,
    strict: bool,
) -> Result<Loaded, SessionError> {
    let sidecar = channel.standing().map_err(|source| SessionError::Channel {
        location: channel.location(),
        source,
    })?;
    // A whole log read once: its regions are analysed on every core.
    let analysis = Analyzer::on_every_core().analyze(&session, &sidecar.decisions, strict);
    Ok(Loaded {
        session,
        sidecar: sidecar.decisions,
        analysis,
        unreadable_decisions: sidecar.unreadable,
        decisions_at: channel.location(),
    })
}
