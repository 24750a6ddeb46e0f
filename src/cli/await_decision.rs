//! `ctxlens await LOG ID [--timeout SECS] [--auto]`: the runtime's side of the channel.

use super::decide;
use super::{json_line, load, require_compaction, CliError, EXIT_FINDING, EXIT_OK};
use crate::cli::args::AwaitArgs;
use crate::ingest::follow::Follower;
use crate::model::{Decision, EventKind};
use crate::store::decisions as channel;
use crate::store::record::Outcome;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

const POLL: Duration = Duration::from_millis(50);

fn standing(log: &Path, follower: &mut Follower, id: &str) -> Result<Option<Decision>, CliError> {
    follower
        .poll()
        .map_err(|e| CliError::unusable(format!("{}: {e}", log.display())))?;
    let in_log = follower
        .session()
        .events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Decision(d) if d.compaction == id => Some(d.clone()),
            _ => None,
        });
    if in_log.is_some() {
        return Ok(in_log);
    }
    let sidecar =
        channel::read(log).map_err(|e| CliError::unusable(format!("{}: {e}", log.display())))?;
    Ok(sidecar.decisions.into_iter().find(|d| d.compaction == id))
}

pub fn run(args: &AwaitArgs, out: &mut impl Write) -> Result<u8, CliError> {
    // One read of the log: the follower that waits also says whether the compaction is
    // there at all.
    let mut follower = Follower::open(&args.log)
        .map_err(|e| CliError::unusable(format!("{}: {e}", args.log.display())))?;
    let compactions = follower.session().compactions();
    if !compactions.iter().any(|c| c.id == args.id) {
        // A last line without its newline is not read while following, but `audit`
        // reads it: look once more the way `audit` does before saying no.
        let loaded = load(&args.log, false)?;
        require_compaction(&loaded, &args.log, &args.id)?;
    }
    let deadline = match args.timeout {
        Some(secs) if !(secs.is_finite() && secs >= 0.0) => {
            return Err(CliError::unusable(format!(
                "--timeout {secs} is not a number of seconds"
            )))
        }
        Some(secs) => Some(Instant::now() + Duration::from_secs_f64(secs.min(1e9))),
        None => None,
    };
    loop {
        if let Some(decision) = standing(&args.log, &mut follower, &args.id)? {
            let _ = writeln!(out, "{}", json_line(&decision));
            return Ok(EXIT_OK);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        std::thread::sleep(POLL);
    }
    if !args.auto {
        return Ok(EXIT_FINDING);
    }
    // The log may have grown while we waited: decide on what it says now.
    let loaded = load(&args.log, false)?;
    let compaction = require_compaction(&loaded, &args.log, &args.id)?;
    let verdict = compaction.flags.verdict(false);
    let decision = match decide::record(
        &args.log,
        &loaded,
        &args.id,
        verdict,
        "auto",
        Some("timeout".into()),
    )? {
        Outcome::Recorded(d) | Outcome::AlreadyStood(d) => d,
    };
    let _ = writeln!(out, "{}", json_line(&decision));
    Ok(EXIT_OK)
}
