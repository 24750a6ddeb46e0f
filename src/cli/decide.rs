//! `ctxlens decide LOG ID VERDICT [--by NAME] [--reason TEXT]`

use super::{json_line, require_compaction, CliError, Loaded, EXIT_FINDING, EXIT_OK};
use crate::cli::args::DecideArgs;
use crate::model::Verdict;
use crate::store::channel::Backend;
use crate::store::ledger::{self, Entry};
use crate::store::record::{default_operator, record_decision, record_pre_compact, Outcome};
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
        // A compaction a pre-compact hook is holding: it is in the ledger, not the log.
        let entries = ledger::read(log).unwrap_or_default();
        let held = entries.iter().find_map(|e| match e {
            Entry::PreCompact {
                id: held, handle, ..
            } if held == id => Some(handle.clone()),
            _ => None,
        });
        if let Some(handle) = held {
            if verdict == Verdict::Preserve {
                return Err(CliError::unusable(format!(
                    "{id} is no longer held: its hook has stopped waiting, so there is nothing to preserve"
                )));
            }
            return record_pre_compact(backend, (id, handle), verdict, by, reason, None)
                .map_err(|e| CliError::unusable(e.to_string()));
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
    .map_err(|e| CliError::unusable(e.to_string()))
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
