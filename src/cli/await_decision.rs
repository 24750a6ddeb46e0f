//! `ctxlens await LOG ID [--timeout SECS] [--auto]`: the runtime's side of the channel.

use super::decide;
use super::{json_line, load, require_compaction, CliError, EXIT_FINDING, EXIT_OK};
use crate::cli::args::AwaitArgs;
use crate::session::followed::{Change, Followed};
use crate::session::record::Outcome;
use crate::session::waiting::DecisionWait;
use ctxlens_core::model::{Decision, EventKind};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// How often to look when no file event arrives (a fallback: file events wake it).
const POLL: Duration = Duration::from_millis(500);

/// A decision for `id` written as an event in the log, or an error when the log has
/// gone or no longer holds the compaction (a replaced file): waiting would never end.
fn in_log(log: &Path, followed: &mut Followed, id: &str) -> Result<Option<Decision>, CliError> {
    let change = followed.look(false)?.change;
    if change == Change::Gone {
        return Err(CliError::unusable(format!(
            "{}: the log was deleted while waiting for a decision on {}",
            log.display(),
            crate::sanitize::line(id)
        )));
    }
    let session = followed.session();
    if matches!(change, Change::Replaced | Change::Truncated)
        && !session.compactions().iter().any(|c| c.id == id)
    {
        return Err(CliError::unusable(format!(
            "{}: the log was replaced by one without compaction {}",
            log.display(),
            crate::sanitize::line(id)
        )));
    }
    Ok(session.events.iter().find_map(|e| match &e.kind {
        EventKind::Decision(d) if d.compaction == id => Some((**d).clone()),
        _ => None,
    }))
}

pub(crate) fn run(args: &AwaitArgs, out: &mut impl Write) -> Result<u8, CliError> {
    // One read of the log: the follower that waits also says whether the compaction is
    // there at all.
    let mut followed = Followed::read_whole(&args.log)?;
    let compactions = followed.session().compactions();
    let id = match compactions.iter().any(|c| c.id == args.id) {
        true => args.id.clone(),
        // A start of an id, or a last line without its newline (not read while
        // following, but `audit` reads it): look the way `audit` does.
        false => {
            let loaded = load(&args.log, false)?;
            require_compaction(&loaded, &args.log, &args.id)?
                .info
                .id
                .clone()
        }
    };
    let id = id.as_str();
    let deadline = match args.timeout {
        Some(secs) if !(secs.is_finite() && secs >= 0.0) => {
            return Err(CliError::unusable(format!(
                "--timeout {secs} is not a number of seconds"
            )))
        }
        Some(secs) => Some(Instant::now() + Duration::from_secs_f64(secs.min(1e9))),
        None => None,
    };
    let backend = super::fleet::backend(&args.log, &args.fleet)?;
    let location = backend.channel.location();
    let unusable = |source| CliError::Channel {
        location: location.clone(),
        source,
    };
    // Without a file event or a decision on the server it looks every half second.
    let mut wait = DecisionWait::start(&args.log, &*backend.channel, id).map_err(unusable)?;
    loop {
        let decided = match in_log(&args.log, &mut followed, id)? {
            Some(decision) => Some(decision),
            None => wait.check().map_err(unusable)?,
        };
        if let Some(decision) = decided {
            let _ = writeln!(out, "{}", json_line(&decision));
            return Ok(EXIT_OK);
        }
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left.is_some_and(|l| l.is_zero()) {
            break;
        }
        wait.sleep(left.map_or(POLL, |l| l.min(POLL)));
    }
    if !args.auto {
        return Ok(EXIT_FINDING);
    }
    // The log may have grown while we waited: decide on what it says now.
    let loaded = super::load_from(&args.log, &*backend.channel, false, &mut |_| {})?;
    let compaction = require_compaction(&loaded, &args.log, id)?;
    let verdict = compaction.flags.verdict(false);
    let decision = match decide::record(
        &args.log,
        &backend,
        &loaded,
        id,
        verdict,
        "auto",
        Some("timeout".into()),
    )? {
        Outcome::Recorded(d) | Outcome::AlreadyStood(d) => d,
    };
    let _ = writeln!(out, "{}", json_line(&decision));
    Ok(EXIT_OK)
}
