//! `ctxlens decide LOG ID VERDICT [--by NAME] [--reason TEXT]`

use super::{json_line, require_compaction, CliError, Loaded, EXIT_FINDING, EXIT_OK};
use crate::cli::args::DecideArgs;
use crate::session::record::{default_operator, record_decision, Outcome};
use crate::store::channel::Backend;
use ctxlens_core::model::Verdict;
use std::io::Write;
use std::path::Path;

/// Records `verdict` for compaction `id` of a loaded log.
pub(crate) fn record(
    log: &Path,
    backend: &Backend,
    loaded: &Loaded,
    id: &str,
    verdict: Verdict,
    by: &str,
    reason: Option<String>,
) -> Result<Outcome, CliError> {
    let compaction = match require_compaction(loaded, log, id) {
        Ok(compaction) => compaction,
        Err(not_found) => {
            // A held compaction that landed or timed out says so (exit 2), not "no
            // such compaction".
            crate::session::record::refuse_if_released(log, loaded, id)?;
            return Err(not_found);
        }
    };
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

pub(crate) fn run(args: &DecideArgs, out: &mut impl Write) -> Result<u8, CliError> {
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
