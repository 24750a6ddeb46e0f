//! `ctxlens decide LOG ID VERDICT [--by NAME] [--reason TEXT]`

use super::{json_line, require_compaction, CliError, Loaded, EXIT_FINDING, EXIT_OK};
use crate::cli::args::DecideArgs;
use crate::session::record::{default_operator, record_decision, Outcome};
use crate::store::channel::Backend;
use crate::store::ledger::{self, Entry};
use ctxlens_core::model::Verdict;
use std::io::Write;
use std::path::Path;

/// Records `verdict` for compaction `id` of a loaded log.
pub fn record(
    log: &Path,
    backend: &Backend,
    loaded: &Loaded,
    id: &str,
    verdict: Verdict,
    by: &str,
    reason: Option<String>,
) -> Result<Outcome, CliError> {
    if loaded.analysis.compaction(id).is_none() {
        // A compaction a pre-compact hook announced but no longer holds: a decision now
        // would reach nobody (docs/agents.md).
        let entries = ledger::read(log).unwrap_or_default();
        if let Some(why) = no_longer_held(&entries, id, loaded) {
            return Err(CliError::unusable(format!(
                "{} {why}; nothing was recorded",
                crate::sanitize::line(id)
            )));
        }
    }
    let compaction = require_compaction(loaded, log, id)?;
    record_decision(
        log,
        backend,
        &loaded.session,
        compaction,
        verdict,
        by,
        reason,
    )
    .map_err(CliError::from)
}

/// Why `id`, a hook's id in the ledger, can no longer be decided; `None` when the
/// ledger does not know it.
fn no_longer_held(entries: &[Entry], id: &str, loaded: &Loaded) -> Option<String> {
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
                crate::sanitize::line(ctxlens_core::analysis::finding::short_id(&c.info.id))
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

pub fn run(args: &DecideArgs, out: &mut impl Write) -> Result<u8, CliError> {
    let verdict = Verdict::parse(&args.verdict)
        .ok_or_else(|| CliError::unusable(format!("unknown verdict {}", args.verdict)))?;
    let backend = super::fleet::backend(&args.log, &args.fleet)?;
    let loaded = super::load_from(&args.log, &*backend.channel, false, &mut |_| {})?;
    let by = args.by.clone().unwrap_or_else(default_operator);
    match record(
        &args.log,
        &backend,
        &loaded,
        &args.id,
        verdict,
        &by,
        args.reason.clone(),
    )? {
        Outcome::Recorded(decision) => {
            let _ = writeln!(out, "{}", json_line(&decision));
            Ok(EXIT_OK)
        }
        Outcome::AlreadyStood(standing) => {
            eprintln!(
                "ctxlens: a decision already stands for {}; nothing was recorded",
                crate::sanitize::line(&args.id)
            );
            let _ = writeln!(out, "{}", json_line(&standing));
            Ok(EXIT_FINDING)
        }
    }
}
