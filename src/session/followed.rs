//! A log followed while it is written: read the first time a step at a time (so a
//! view can show the start of a large log at once), then looked at again whenever it
//! or what lies beside it (the decisions, the hooks' ledger) changes, and analysed
//! incrementally with the decisions that stand on its channel. The TUI's worker and
//! `await` follow a log through here; what they do with each look is theirs.

use super::SessionError;
use crate::ingest::declared::DeclaredPass;
use crate::ingest::follow::Follower;
use crate::store::channel::DecisionChannel;
use crate::store::paths::decisions_path;
use ctxlens_core::analysis::{Analyzer, SessionAnalysis};
use ctxlens_core::model::{Decision, Session};
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub(crate) use crate::ingest::follow::Change;
pub(crate) use crate::ingest::progress::ProgressCount;

/// A followed log, with what each look keeps for the next.
pub(crate) struct Followed {
    path: PathBuf,
    follower: Follower,
    analyzer: Analyzer,
    declared: DeclaredPass,
    decisions: Vec<Decision>,
    /// The files beside the log when last looked at.
    beside: Beside,
}

/// What a look found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Look {
    /// What became of the log.
    pub change: Change,
    /// Whether the decisions (or the hooks' ledger) may have changed, so that the
    /// decisions are to be read again ([`Followed::read_decisions`]).
    pub decided: bool,
}

impl Look {
    /// Whether the analysis may differ from the last one.
    pub(crate) fn changes_anything(&self) -> bool {
        self.change != Change::None || self.decided
    }
}

/// A session as a look analysed it.
pub(crate) struct Analysed {
    pub session: Session,
    pub analysis: SessionAnalysis,
}

impl Followed {
    /// Starts following the log at `path`; nothing is read yet: the first read goes a
    /// step at a time ([`Followed::read_first`]). The files beside the log are
    /// signed before the read, so that a decision recorded during it is seen by the
    /// first look after it.
    pub(crate) fn start(
        path: &Path,
        channel: &dyn DecisionChannel,
    ) -> Result<Followed, SessionError> {
        let beside = Beside::of(path);
        let follower = Follower::start(path).map_err(|source| file_error(path, source))?;
        Ok(Followed {
            path: path.to_owned(),
            follower,
            analyzer: Analyzer::default(),
            declared: DeclaredPass::default(),
            decisions: standing(channel)?,
            beside,
        })
    }

    /// Follows the log at `path`, read to its last complete line, without its
    /// decisions: what `await` watches for a decision written into the log.
    pub(crate) fn read_whole(path: &Path) -> Result<Followed, SessionError> {
        let follower = Follower::open(path).map_err(|source| file_error(path, source))?;
        Ok(Followed {
            path: path.to_owned(),
            follower,
            analyzer: Analyzer::default(),
            declared: DeclaredPass::default(),
            decisions: Vec::new(),
            beside: Beside::of(path),
        })
    }

    /// The log's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes the first read has read.
    pub(crate) fn read_to(&self) -> u64 {
        self.follower.read_to()
    }

    /// The size of the log now.
    pub(crate) fn size(&self) -> Result<u64, SessionError> {
        std::fs::metadata(&self.path)
            .map(|meta| meta.len())
            .map_err(|source| file_error(&self.path, source))
    }

    /// Reads about `step` more bytes of the first read, counting them in `count` and
    /// calling `meanwhile` every [`MEANWHILE_BYTES`]; whether the end is reached.
    pub(crate) fn read_first(
        &mut self,
        step: u64,
        count: &mut ProgressCount<'_>,
        meanwhile: &mut dyn FnMut(),
    ) -> Result<bool, SessionError> {
        self.follower
            .read_first(step, count, meanwhile)
            .map_err(|source| file_error(&self.path, source))
    }

    /// The session as read so far, without the declared tokens, the files beside the
    /// log or an analysis.
    pub(crate) fn session(&self) -> &Session {
        self.follower.session()
    }

    /// Looks at the log and at the files beside it again. A log truncated or
    /// replaced is analysed from scratch next; `decided_elsewhere` is a decision the
    /// caller heard of on the server.
    pub(crate) fn look(&mut self, decided_elsewhere: bool) -> Result<Look, SessionError> {
        let change = self
            .follower
            .poll()
            .map_err(|source| file_error(&self.path, source))?;
        let beside = Beside::of(&self.path);
        let decided = beside != self.beside || decided_elsewhere;
        self.beside = beside;
        if matches!(change, Change::Truncated | Change::Replaced) {
            self.analyzer = Analyzer::default();
            self.declared = DeclaredPass::default();
        }
        Ok(Look { change, decided })
    }

    /// Reads the decisions that stand on `channel` again: only when a look says they
    /// may have changed (on the server that is a round trip, and a live log grows far
    /// more often).
    pub(crate) fn read_decisions(
        &mut self,
        channel: &dyn DecisionChannel,
    ) -> Result<(), SessionError> {
        self.decisions = standing(channel)?;
        Ok(())
    }

    /// Analyses what is read, with the declared-token pass, the files beside the log
    /// and the decisions; what the last look computed is reused where it still holds.
    pub(crate) fn analyse(&mut self) -> Result<Analysed, SessionError> {
        let failed = |source| file_error(&self.path, source);
        let file = crate::ingest::open_log(&self.path).map_err(failed)?;
        self.follower
            .attach_declared(&mut self.declared, &file)
            .map_err(|source| file_error(&self.path, source))?;
        let mut session = self.follower.session().clone();
        super::attach_sidecars(&mut session, &self.path)
            .map_err(|source| file_error(&self.path, source))?;
        let analysis = self.analyzer.analyze(&session, &self.decisions, false);
        Ok(Analysed { session, analysis })
    }

    /// The compactions whose analysis in the last look is the look's before,
    /// unchanged: what a view built of that look can keep.
    pub(crate) fn reused(&self) -> &HashSet<String> {
        self.analyzer.reused()
    }
}

/// Size and time of the files beside a log that change its analysis: the decisions'
/// sidecar and the hooks' ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Beside([Option<(u64, SystemTime)>; 2]);

impl Beside {
    /// The files beside the log at `path` as they are now.
    pub(crate) fn of(path: &Path) -> Beside {
        let signature = |file: PathBuf| {
            let meta = std::fs::metadata(file).ok()?;
            Some((meta.len(), meta.modified().ok()?))
        };
        Beside([
            signature(decisions_path(path)),
            signature(crate::store::ledger::ledger_path(path)),
        ])
    }
}

/// The decisions that stand on `channel`.
fn standing(channel: &dyn DecisionChannel) -> Result<Vec<Decision>, SessionError> {
    channel
        .standing()
        .map(|sidecar| sidecar.decisions)
        .map_err(|source| SessionError::Channel {
            location: channel.location(),
            source,
        })
}

fn file_error(path: &Path, source: io::Error) -> SessionError {
    SessionError::Load(crate::ingest::LoadError {
        path: path.to_owned(),
        source,
    })
}
