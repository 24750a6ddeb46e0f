//! `ctxlens decide LOG ID VERDICT [--by NAME] [--reason TEXT]`, and the recording step
//! that `await --auto` shares with it.

use super::{json_line, load, require_compaction, CliError, Loaded, EXIT_FINDING, EXIT_OK};
use crate::cli::args::DecideArgs;
use crate::ingest;
use crate::model::{Decision, RangeSpec, Verdict};
use crate::store::{decisions as channel, spill};
use std::io::Write;
use std::path::Path;

pub enum Outcome {
    Recorded(Decision),
    AlreadyStood(Decision),
}

/// Records `verdict` for compaction `id`: a spill stores the region first, and no
/// decision is recorded when it cannot be stored.
pub fn record(
    log: &Path,
    loaded: &Loaded,
    id: &str,
    verdict: Verdict,
    by: &str,
    reason: Option<String>,
) -> Result<Outcome, CliError> {
    let compaction = require_compaction(loaded, log, id)?;
    if let Some(standing) = &compaction.decision {
        return Ok(Outcome::AlreadyStood(standing.clone()));
    }
    let handle = if verdict == Verdict::Spill {
        let RangeSpec::Seqs { from, to } = compaction.info.range else {
            return Err(CliError::unusable(format!(
                "{}: cannot spill {id}: its range is missing or invalid; no decision was recorded",
                log.display()
            )));
        };
        let Some((start, end)) = loaded.session.region_bytes(from, to) else {
            return Err(CliError::unusable(format!(
                "{}: cannot spill {id}: its range {from}–{to} holds no events; no decision was recorded",
                log.display()
            )));
        };
        let stored =
            ingest::open_range(log, start, end).and_then(|region| spill::store(log, region));
        match stored {
            Ok(handle) => Some(handle.to_string()),
            Err(e) => {
                return Err(CliError::unusable(format!(
                    "cannot store the spill of {id}: {e}; no decision was recorded"
                )))
            }
        }
    } else {
        None
    };
    let decision = Decision {
        compaction: id.to_owned(),
        verdict,
        by: Some(by.to_owned()),
        ts: Some(humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()),
        handle,
        reason,
        is_override: Some(verdict != compaction.flags.verdict(false)),
    };
    match channel::record(log, &decision) {
        Ok(channel::Recorded::Written) => Ok(Outcome::Recorded(decision)),
        Ok(channel::Recorded::AlreadyDecided(standing)) => Ok(Outcome::AlreadyStood(standing)),
        Err(e) => Err(CliError::unusable(format!(
            "{}: cannot record the decision: {e}",
            crate::store::paths::decisions_path(log).display()
        ))),
    }
}

pub fn default_operator() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "operator".into())
}

pub fn run(args: &DecideArgs, out: &mut impl Write) -> Result<u8, CliError> {
    let verdict = Verdict::parse(&args.verdict)
        .ok_or_else(|| CliError::unusable(format!("unknown verdict {}", args.verdict)))?;
    let loaded = load(&args.log, false)?;
    let by = args.by.clone().unwrap_or_else(default_operator);
    match record(
        &args.log,
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
