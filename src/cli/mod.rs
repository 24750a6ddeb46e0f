//! Headless commands and their human and JSON output.

pub(crate) mod args;
pub(crate) mod audit;
pub(crate) mod await_decision;
pub(crate) mod check;
pub(crate) mod contract;
pub(crate) mod decide;
pub(crate) mod export;
pub(crate) mod fleet;
pub(crate) mod gate;
pub(crate) mod hook;
pub(crate) mod human;
pub(crate) mod pipe;
mod run;
#[cfg(feature = "fleet")]
pub(crate) mod ship;
pub(crate) mod spill;

pub use crate::session::Loaded;
use crate::store::channel::{Backend, DecisionChannel};
use ctxlens_core::analysis::{self};
pub use run::main;
use std::path::Path;

/// Exit codes of docs/json-report.md.
pub const EXIT_OK: u8 = 0;
/// Exit status: the gate holds a finding (an error-level one, or any with `--strict`).
pub const EXIT_FINDING: u8 = 1;
/// Exit status: the input cannot be used (docs/json-report.md).
pub const EXIT_UNUSABLE: u8 = 2;

/// A command that cannot go on (exit 2): each layer's error, or a message of the CLI's
/// own.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A message of the CLI's own, with no cause under it.
    #[error("{0}")]
    Unusable(String),
    /// The log cannot be read.
    #[error(transparent)]
    Load(#[from] crate::session::LoadError),
    /// A decision cannot be recorded.
    #[error(transparent)]
    Record(#[from] crate::session::record::RecordError),
    /// A hook cannot be installed or removed.
    #[error(transparent)]
    Install(#[from] hook::InstallError),
    /// The TUI cannot show the log.
    #[error(transparent)]
    Tui(#[from] crate::tui::TuiError),
    /// The session cannot be opened.
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    /// A spill cannot be read back.
    #[error(transparent)]
    Spill(#[from] crate::store::spill::ReadError),
    /// The path names no session to open.
    #[error(transparent)]
    Source(#[from] crate::session::source::SourceError),
    /// ctxlens's copy of a database session cannot be kept.
    #[error(transparent)]
    Mirror(#[from] crate::session::mirror::MirrorError),
    /// A store (the disk or the fleet's server) failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A file cannot be read or written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// What the command was to do cannot be done.
    #[error("{what}: {source}")]
    Io {
        /// What it was doing.
        what: &'static str,
        /// Why it cannot.
        #[source]
        source: std::io::Error,
    },
    /// The decisions cannot be read.
    #[error("{location}: {source}")]
    Channel {
        /// Where they live.
        location: String,
        /// What failed.
        #[source]
        source: crate::store::StoreError,
    },
    /// `--action` is not JSON.
    #[error("--action: {0}")]
    ActionNotJson(#[source] serde_json::Error),
    /// An OpenCode database cannot be read.
    #[error(transparent)]
    Database(#[from] crate::session::source::DatabaseError),
}

impl CliError {
    /// An error of the CLI's own, saying `message`.
    pub fn unusable(message: impl Into<String>) -> CliError {
        CliError::Unusable(message.into())
    }

    /// The exit code: every error here is unusable input (docs/json-report.md).
    pub fn code(&self) -> u8 {
        EXIT_UNUSABLE
    }
}

/// An error and what caused it, as one message: each cause the message does not
/// already say, after `: caused by: `.
pub fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let said = e.to_string();
        if !text.contains(&said) {
            text.push_str(": caused by: ");
            text.push_str(&said);
        }
        cause = e.source();
    }
    text
}

/// A log and its decisions beside it.
pub fn load(path: &Path, strict: bool) -> Result<Loaded, CliError> {
    load_from(path, &*Backend::files(path).channel, strict, &mut |_| {})
}

/// [`load`] with the decisions of `channel`, calling `report` while the log is read.
pub fn load_from(
    path: &Path,
    channel: &dyn DecisionChannel,
    strict: bool,
    report: &mut dyn FnMut(crate::session::Reading),
) -> Result<Loaded, CliError> {
    let loaded = crate::session::open(path, channel, strict, report)?;
    warn_unreadable(&loaded);
    Ok(loaded)
}

/// Says which lines of the decisions' sidecar are not decisions (they are ignored).
pub fn warn_unreadable(loaded: &Loaded) {
    for line in &loaded.unreadable_decisions {
        eprintln!(
            "ctxlens: warning: {}:{line}: not a decision, ignored",
            crate::sanitize::line(&loaded.decisions_at)
        );
    }
}

/// Lets go of what the command read last without freeing it: the process ends next,
/// and the system takes its memory back at once, where freeing a large log's session
/// (millions of allocations, one by one) is a noticeable part of `audit`'s time.
pub fn freed_by_exit<T>(value: T) {
    std::mem::forget(value);
}

/// The analysis of a session read already, with the decisions of `channel`.
pub fn analyze_with(
    session: ctxlens_core::model::Session,
    channel: &dyn DecisionChannel,
    strict: bool,
) -> Result<Loaded, CliError> {
    let loaded = crate::session::analyze(session, channel, strict)?;
    warn_unreadable(&loaded);
    Ok(loaded)
}

/// The shortest start of an id that names a compaction: ids are shown cut to 8
/// characters, and a shorter start would too often name several.
const SHORTEST_ID_START: usize = 6;

/// The compaction `id` names in a loaded log (its whole id, or a start of it of at least
/// [`SHORTEST_ID_START`] characters that one compaction's id has), or the error that
/// names what the log does hold, or the compactions an ambiguous start names.
pub fn require_compaction<'a>(
    loaded: &'a Loaded,
    path: &Path,
    id: &str,
) -> Result<&'a analysis::CompactionAnalysis, CliError> {
    if let Some(compaction) = loaded.analysis.compaction(id) {
        return Ok(compaction);
    }
    let compactions = &loaded.analysis.compactions;
    let starting: Vec<&analysis::CompactionAnalysis> = match id.chars().count() >= SHORTEST_ID_START
    {
        true => compactions
            .iter()
            .filter(|c| c.info.id.starts_with(id))
            .collect(),
        false => Vec::new(),
    };
    match starting.as_slice() {
        [one] => Ok(one),
        [] => Err(no_such_compaction(
            path,
            id,
            compactions.iter().map(|c| c.info.id.as_str()),
        )),
        several => Err(CliError::unusable(format!(
            "{}: {} starts the ids of {} compactions ({}); give more of it",
            path.display(),
            crate::sanitize::line(id),
            several.len(),
            several
                .iter()
                .map(|c| crate::sanitize::line(&c.info.id))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// "The log does not hold compaction `id`", naming the ones it does hold.
fn no_such_compaction<'a>(path: &Path, id: &str, known: impl Iterator<Item = &'a str>) -> CliError {
    let known: Vec<&str> = known.collect();
    let holds = if known.is_empty() {
        "it holds no compactions".to_owned()
    } else {
        format!("it holds {}", known.join(", "))
    };
    CliError::unusable(format!(
        "{}: no compaction {}; {holds}",
        path.display(),
        crate::sanitize::line(id)
    ))
}

/// One JSON value as a line that is safe on a terminal.
pub fn json_line<T: serde::Serialize>(value: &T) -> String {
    crate::sanitize::json(
        serde_json::to_string(value)
            .unwrap_or_else(|e| format!("{{\"error\":\"cannot serialize: {e}\"}}")),
    )
}

#[cfg(test)]
mod chain_tests {
    use super::chain;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot record the decision")]
    struct Outer(#[source] std::io::Error);

    #[derive(Debug, thiserror::Error)]
    #[error("log.jsonl: {0}")]
    struct Saying(#[source] std::io::Error);

    #[test]
    fn a_cause_the_message_does_not_say_is_added_once() {
        let disk = || std::io::Error::other("no space left on device");
        assert_eq!(
            chain(&Outer(disk())),
            "cannot record the decision: caused by: no space left on device"
        );
        assert_eq!(chain(&Saying(disk())), "log.jsonl: no space left on device");
    }
}
