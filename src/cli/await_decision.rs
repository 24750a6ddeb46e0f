//! `ctxlens await LOG ID [--timeout SECS] [--auto]`: the runtime's side of the channel.

use super::decide;
use super::{json_line, load, require_compaction, CliError, EXIT_FINDING, EXIT_OK};
use crate::cli::args::AwaitArgs;
use crate::ingest::follow::{Change, Follower};
use crate::model::{Decision, EventKind};
use crate::store::record::Outcome;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// How often to look when no file event arrives (a fallback: file events wake it).
const POLL: Duration = Duration::from_millis(500);

/// The sidecar as read so far: only what was appended is read on each look.
struct SidecarTail {
    path: std::path::PathBuf,
    offset: u64,
    /// An incomplete last line, kept until its newline arrives.
    partial: Vec<u8>,
}

impl SidecarTail {
    fn new(log: &Path) -> SidecarTail {
        SidecarTail {
            path: crate::store::paths::decisions_path(log),
            offset: 0,
            partial: Vec::new(),
        }
    }

    /// The first decision for `id` among the lines appended since the last look.
    fn find(&mut self, id: &str) -> Result<Option<Decision>, CliError> {
        use std::io::{Read, Seek, SeekFrom};
        let unusable =
            |e: std::io::Error| CliError::unusable(format!("{}: {e}", self.path.display()));
        let mut file = match crate::store::private::open_read(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unusable(e)),
        };
        let len = file.metadata().map_err(unusable)?.len();
        if len < self.offset {
            // Rewritten from scratch: read it all again.
            self.offset = 0;
            self.partial.clear();
        }
        file.seek(SeekFrom::Start(self.offset)).map_err(unusable)?;
        let mut fresh = Vec::new();
        file.read_to_end(&mut fresh).map_err(unusable)?;
        self.offset += fresh.len() as u64;
        self.partial.extend_from_slice(&fresh);
        let complete = self
            .partial
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let lines: Vec<u8> = self.partial.drain(..complete).collect();
        Ok(lines
            .split(|&b| b == b'\n')
            .filter_map(|line| serde_json::from_slice::<Decision>(line).ok())
            .find(|d| d.compaction == id))
    }
}

/// A decision for `id` written as an event in the log, or an error when the log has
/// gone or no longer holds the compaction (a replaced file): waiting would never end.
fn in_log(log: &Path, follower: &mut Follower, id: &str) -> Result<Option<Decision>, CliError> {
    let change = follower
        .poll()
        .map_err(|e| CliError::unusable(format!("{}: {e}", log.display())))?;
    if change == Change::Gone {
        return Err(CliError::unusable(format!(
            "{}: the log was deleted while waiting for a decision on {}",
            log.display(),
            crate::sanitize::line(id)
        )));
    }
    let session = follower.session();
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
        EventKind::Decision(d) if d.compaction == id => Some(d.clone()),
        _ => None,
    }))
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
    // File events in the log's folder (a decision appended, the log replaced) wake the
    // wait; without them it looks every half second.
    let (wake, woken) = std::sync::mpsc::channel::<()>();
    let _watcher = crate::ingest::watch::watch_folder_of(&args.log, move || {
        let _ = wake.send(());
    });
    let mut sidecar = SidecarTail::new(&args.log);
    loop {
        let decided = match in_log(&args.log, &mut follower, &args.id)? {
            Some(decision) => Some(decision),
            None => sidecar.find(&args.id)?,
        };
        if let Some(decision) = decided {
            let _ = writeln!(out, "{}", json_line(&decision));
            return Ok(EXIT_OK);
        }
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left.is_some_and(|l| l.is_zero()) {
            break;
        }
        let _ = woken.recv_timeout(left.map_or(POLL, |l| l.min(POLL)));
        while woken.try_recv().is_ok() {}
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
