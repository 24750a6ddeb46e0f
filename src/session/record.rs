//! Recording an operator's decision: a spill stores the region first, and nothing is
//! recorded when it cannot be stored. Shared by `ctxlens decide`, `await --auto` and the
//! TUI.

use crate::ingest;
use crate::store::channel::Backend;
use crate::store::decisions::Recorded;
use crate::store::ledger::Entry;
use ctxlens_core::analysis::CompactionAnalysis;
use ctxlens_core::model::{Decision, RangeSpec, Session, Verdict};
use std::path::{Path, PathBuf};

/// Why a decision could not be recorded. In every case nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{log}: cannot preserve {id}: its contract is empty (nothing at stake was dropped); no decision was recorded")]
    EmptyContract { log: PathBuf, id: String },
    #[error("{log}: cannot spill {id}: its range is missing or invalid; no decision was recorded")]
    NoRange { log: PathBuf, id: String },
    #[error(
        "{log}: cannot spill {id}: its range {from}–{to} holds no events; no decision was recorded"
    )]
    EmptyRange {
        log: PathBuf,
        id: String,
        from: u64,
        to: u64,
    },
    #[error("{id} is held by an agent's pre-compact hook, which cannot re-summarize on request: refetch is not offered there (approve, spill, preserve or refuse); no decision was recorded")]
    RefetchHeld { id: String },
    #[error("{id} is held by {agent}'s pre-compact hook, which cannot block a compaction: refuse is not offered there (approve, spill or preserve); no decision was recorded")]
    RefuseNotCarriedOut { id: String, agent: &'static str },
    #[error("{} {why}; nothing was recorded", crate::sanitize::line(id))]
    NoLongerHeld { id: String, why: String },
    #[error("no compaction {id} in the log as read now; no decision was recorded")]
    NoCompaction { id: String },
    #[error("{id} has no region to spill; no decision was recorded")]
    NothingSpilled { id: String },
    #[error("cannot store the spill of {id}: {source}; no decision was recorded")]
    Spill {
        id: String,
        #[source]
        source: crate::store::StoreError,
    },
    #[error("{channel}: cannot record the decision: {source}")]
    Channel {
        channel: String,
        #[source]
        source: crate::store::StoreError,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Recorded(Decision),
    /// A decision already stood; nothing was written.
    AlreadyStood(Decision),
}

pub(crate) fn record_decision(
    log: &Path,
    backend: &Backend,
    session: &Session,
    compaction: &CompactionAnalysis,
    verdict: Verdict,
    by: &str,
    reason: Option<String>,
) -> Result<Outcome, RecordError> {
    let id = &compaction.info.id;
    if let Some(standing) = &compaction.decision {
        return Ok(Outcome::AlreadyStood(standing.clone()));
    }
    // Preserve carries the contract the re-proposed summary must end with.
    let contract = if verdict == Verdict::Preserve {
        let contract = ctxlens_core::analysis::contract::for_compaction(session, compaction);
        if contract.is_empty() {
            return Err(RecordError::EmptyContract {
                log: log.to_owned(),
                id: id.clone(),
            });
        }
        Some(contract.text())
    } else {
        None
    };
    let is_override = ctxlens_core::analysis::is_override(verdict, compaction.flags.verdict(false));
    // Held by a pre-compact hook: its region is spilled already.
    if let Some(held) = &compaction.extra.held {
        if verdict == Verdict::Refetch {
            return Err(RecordError::RefetchHeld { id: id.clone() });
        }
        if verdict == Verdict::Refuse && !session.format.refuses_held() {
            return Err(RecordError::RefuseNotCarriedOut {
                id: id.clone(),
                agent: session.format.agent_name(),
            });
        }
        if verdict == Verdict::Spill && held.handle.is_none() {
            return Err(RecordError::NothingSpilled { id: id.clone() });
        }
        let decision = Decision {
            compaction: id.clone(),
            verdict,
            by: Some(by.to_owned()),
            ts: now(),
            handle: held.handle.clone().filter(|_| verdict == Verdict::Spill),
            reason,
            is_override: Some(is_override),
            contract,
        };
        return write(backend, decision);
    }
    let handle = if verdict == Verdict::Spill {
        let RangeSpec::Seqs { from, to } = compaction.info.range else {
            return Err(RecordError::NoRange {
                log: log.to_owned(),
                id: id.clone(),
            });
        };
        let Some((start, end)) = session.region_bytes(from, to) else {
            return Err(RecordError::EmptyRange {
                log: log.to_owned(),
                id: id.clone(),
                from,
                to,
            });
        };
        let stored = ingest::open_range(log, start, end)
            .map_err(crate::store::StoreError::from)
            .and_then(|mut region| backend.spills.put(&mut region));
        let handle = stored.map_err(|source| RecordError::Spill {
            id: id.clone(),
            source,
        })?;
        Some(handle.to_string())
    } else {
        None
    };
    let decision = Decision {
        compaction: id.clone(),
        verdict,
        by: Some(by.to_owned()),
        ts: now(),
        handle,
        reason,
        is_override: Some(is_override),
        contract,
    };
    write(backend, decision)
}

/// Records the decision on the channel unless one stands already.
fn write(backend: &Backend, decision: Decision) -> Result<Outcome, RecordError> {
    match backend.channel.record(&decision) {
        Ok(Recorded::Written) => Ok(Outcome::Recorded(decision)),
        Ok(Recorded::AlreadyDecided(standing)) => Ok(Outcome::AlreadyStood(standing)),
        Err(source) => Err(RecordError::Channel {
            channel: backend.channel.location(),
            source,
        }),
    }
}

fn now() -> Option<String> {
    Some(crate::clock::now())
}

/// Refuses a decision on `id` when it is a compaction a pre-compact hook announced but
/// no longer holds (decided, timed out, or never held): a decision now would reach
/// nobody (docs/agents.md). Anything else passes.
pub(crate) fn refuse_if_released(
    log: &Path,
    loaded: &super::Loaded,
    id: &str,
) -> Result<(), RecordError> {
    let entries = crate::store::ledger::read(log).unwrap_or_default();
    match no_longer_held(&entries, id, loaded) {
        Some(why) => Err(RecordError::NoLongerHeld {
            id: id.to_owned(),
            why,
        }),
        None => Ok(()),
    }
}

/// Why `id`, a hook's id in the ledger, can no longer be decided; `None` when the
/// ledger does not know it.
fn no_longer_held(entries: &[Entry], id: &str, loaded: &super::Loaded) -> Option<String> {
    let held = entries
        .iter()
        .find(|e| matches!(e, Entry::PreCompact { id: held, .. } if held == id))?;
    let Entry::PreCompact { hold_until, .. } = held else {
        return None;
    };
    let released = entries.iter().find_map(|e| match e {
        Entry::Released {
            id: released,
            ts,
            verdict,
            ..
        } if released == id => Some((ts, verdict)),
        _ => None,
    });
    let landed = loaded
        .analysis
        .compactions
        .iter()
        .find(|c| c.held_as.as_deref() == Some(id))
        .map(|c| {
            format!(
                "; it landed as {}",
                crate::sanitize::line(ctxlens_core::analysis::short_id(&c.info.id))
            )
        })
        .unwrap_or_default();
    Some(match (released, hold_until) {
        (Some((ts, Some(verdict))), _) => format!(
            "is no longer held: its hook answered the agent with {} at {ts}{landed}",
            verdict.as_str()
        ),
        (Some((ts, None)), _) => format!(
            "is no longer held: its hook timed out at {ts} without a decision and the compaction went ahead{landed}"
        ),
        (None, Some(until)) => format!(
            "is no longer held: its hold ended at {until} (or the compaction landed){landed}"
        ),
        (None, None) => format!(
            "was never held: its hook was installed without --hold, so no decision can reach the agent{landed}"
        ),
    })
}

/// Who decides when nobody says: the login name, or "operator".
pub(crate) fn default_operator() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "operator".into())
}
