//! `ctxlens ship PATH… --nats URL [--once]`: publishes session logs to the fleet's
//! events stream, each line once, and follows them. An OpenCode database ships as one
//! log per session (ctxlens's copies of them, `session::mirror`).

use super::args::ShipArgs;
use super::{CliError, EXIT_OK};
use crate::sanitize;
use crate::store::nats::events::{Chunk, Position, MAX_CHUNK};
use crate::store::nats::{keys, Nats};
use crate::store::{StoreError, StoreResult};
use std::collections::BTreeMap;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the logs are looked at for new lines.
const LOOK_EVERY: Duration = Duration::from_millis(250);
/// The most sent of one log in one round: a long archive does not hold up the live
/// logs behind it (a round with work goes straight on to the next).
const READ_AT_ONCE: u64 = 1 << 20;

/// One log being shipped.
struct Shipper {
    subject: String,
    /// Where the server's copy ends; `None` until asked (and after a failed publish).
    at: Option<Position>,
    /// The file the shipped bytes came from (device, inode): another one at the path
    /// is a new epoch.
    identity: Option<(u64, u64)>,
    lines: u64,
    bytes: u64,
    /// Which file this is, as the fleet is told (`origin_of`).
    origin: String,
    /// Why its subject is refused: it holds another file's log.
    refused: Option<String>,
}

/// Which file `log` is, for the fleet: this machine's ctxlens id and the log's
/// absolute path. Two hosts of one name, or two logs of one fleet name, differ here.
fn origin_of(machine: &str, log: &Path) -> String {
    let path = std::path::absolute(log).unwrap_or_else(|_| log.to_owned());
    format!("{machine} {}", keys::encode(&path.to_string_lossy()))
}

/// What to ship: each log, and its hooks' ledger when there is one (held compactions
/// show in the fleet from it), with their subjects.
fn targets(paths: &[PathBuf], host: &str) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for log in logs(paths) {
        let session = keys::session_of_log(host, &log);
        let ledger = crate::store::ledger::ledger_path(&log);
        if ledger.is_file() {
            out.push((ledger, keys::ledger_subject(&session)));
        }
        out.push((log, keys::events_subject(&session)));
    }
    out
}

pub(crate) fn run(args: &ShipArgs) -> Result<u8, CliError> {
    let server = super::fleet::connect(&args.fleet)?
        .ok_or_else(|| CliError::unusable("ship needs a server: --nats URL or CTXLENS_NATS_URL"))?;
    let host = keys::host();
    let machine = crate::store::machine_id().map_err(crate::store::StoreError::from)?;
    // An OpenCode database ships as ctxlens's copy of each of its sessions, one log
    // each, kept up to date while OpenCode writes.
    let paths = args
        .paths
        .iter()
        .map(|path| {
            if crate::session::source::is_database(path) {
                crate::session::mirror::follow(path).map_err(CliError::from)
            } else {
                Ok(path.clone())
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut shippers: BTreeMap<PathBuf, Shipper> = BTreeMap::new();
    let mut reported = Instant::now();
    loop {
        let mut busy = false;
        for (log, subject) in targets(&paths, &host) {
            let shipper = shippers.entry(log.clone()).or_insert_with(|| Shipper {
                subject,
                at: None,
                identity: None,
                lines: 0,
                bytes: 0,
                origin: origin_of(&machine, &log),
                refused: None,
            });
            if shipper.refused.is_some() {
                continue;
            }
            match ship(&server, &log, shipper) {
                Ok(sent) => busy |= sent,
                Err(e) => {
                    // Asked again next time: the server's copy says where to go on.
                    shipper.at = None;
                    eprintln!(
                        "ctxlens: {}: {}",
                        sanitize::line(&log.display().to_string()),
                        sanitize::line(&e.to_string())
                    );
                }
            }
        }
        if busy {
            continue;
        }
        if args.once {
            break;
        }
        if reported.elapsed() > Duration::from_secs(10) {
            progress(&shippers);
            reported = Instant::now();
        }
        std::thread::sleep(LOOK_EVERY);
    }
    server.flush()?;
    progress(&shippers);
    let refused = shippers.values().filter(|s| s.refused.is_some()).count();
    if refused > 0 {
        return Err(CliError::unusable(format!(
            "{refused} log(s) not shipped: their subjects hold another file's log (above)"
        )));
    }
    Ok(EXIT_OK)
}

/// The logs named: files as they are, folders by what they hold.
fn logs(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            out.extend(crate::session::find_logs(path));
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

fn progress(shippers: &BTreeMap<PathBuf, Shipper>) {
    let lines: u64 = shippers.values().map(|s| s.lines).sum();
    let bytes: u64 = shippers.values().map(|s| s.bytes).sum();
    eprintln!(
        "ctxlens: shipped {lines} lines ({:.1} MB) of {} logs this run",
        bytes as f64 / 1e6,
        shippers.len()
    );
}

/// Publishes up to `READ_AT_ONCE` of the complete lines of `log` the server does not
/// have yet; says whether it sent anything.
fn ship(server: &Nats, log: &Path, shipper: &mut Shipper) -> StoreResult<bool> {
    let mut file = crate::session::open_log(log)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file").into());
    }
    let identity = (meta.dev(), meta.ino());
    let mut at = match shipper.at {
        Some(at) => at,
        None => {
            let resume = server.resume_point(&shipper.subject)?;
            if let Some(other) = resume.origin.filter(|o| *o != shipper.origin) {
                let why = format!(
                    "refused: {} already holds the log of another file ({}); this one ({}) \
                     would replace it. Give one of them another name (or path).",
                    shipper.subject, other, shipper.origin
                );
                shipper.refused = Some(why.clone());
                return Err(StoreError::server(&shipper.subject, why));
            }
            resume.at
        }
    };
    let replaced = shipper.identity.is_some_and(|known| known != identity);
    if replaced || meta.len() < at.offset {
        // Truncated or replaced: the log starts over, as a new epoch.
        at = Position {
            epoch: at.epoch + 1,
            offset: 0,
        };
    }
    shipper.identity = Some(identity);
    shipper.at = Some(at);
    if at.offset >= meta.len() {
        return Ok(false);
    }
    let want = (meta.len() - at.offset).min(READ_AT_ONCE);
    file.seek(SeekFrom::Start(at.offset))?;
    let mut bytes = Vec::new();
    file.by_ref().take(want).read_to_end(&mut bytes)?;
    // Only complete lines: a line still being written waits for its newline.
    let Some(end) = bytes.iter().rposition(|&b| b == b'\n').map(|i| i + 1) else {
        if want == READ_AT_ONCE {
            // One line longer than a read: taken whole, in chunks, once complete.
            return ship_long_line(server, &mut file, shipper, at, meta.len());
        }
        return Ok(false);
    };
    bytes.truncate(end);
    let (chunks, lines) = chunks(at.offset, &bytes);
    server.publish(&shipper.subject, &shipper.origin, at.epoch, chunks)?;
    at.offset += end as u64;
    shipper.at = Some(at);
    shipper.lines += lines;
    shipper.bytes += end as u64;
    Ok(true)
}

/// The messages for `bytes` (complete lines starting at `offset`): whole lines, as many
/// as fit in `MAX_CHUNK`, and a longer line in pieces of at most `MAX_CHUNK`. A message
/// per line would make an archive of short lines millions of messages to store, replay
/// and mirror.
fn chunks(offset: u64, bytes: &[u8]) -> (Vec<Chunk>, u64) {
    let mut out: Vec<Chunk> = Vec::new();
    let mut lines = 0;
    let mut start = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        lines += 1;
        let fits = out.last().is_some_and(|c| {
            c.bytes.len() + line.len() <= MAX_CHUNK && c.bytes.last() == Some(&b'\n')
        });
        match out.last_mut() {
            Some(last) if fits => last.bytes.extend_from_slice(line),
            _ => {
                for piece in line.chunks(MAX_CHUNK) {
                    out.push(Chunk {
                        offset: offset + start as u64,
                        bytes: piece.to_vec(),
                    });
                    start += piece.len();
                }
                continue;
            }
        }
        start += line.len();
    }
    (out, lines)
}

/// A line longer than one read: shipped once its newline is there.
fn ship_long_line(
    server: &Nats,
    file: &mut std::fs::File,
    shipper: &mut Shipper,
    mut at: Position,
    len: u64,
) -> StoreResult<bool> {
    file.seek(SeekFrom::Start(at.offset))?;
    let mut reader = io::BufReader::new(file.by_ref().take(len - at.offset));
    let mut line = Vec::new();
    io::BufRead::read_until(&mut reader, b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return Ok(false);
    }
    let (chunks, lines) = chunks(at.offset, &line);
    server.publish(&shipper.subject, &shipper.origin, at.epoch, chunks)?;
    at.offset += line.len() as u64;
    shipper.at = Some(at);
    shipper.lines += lines;
    shipper.bytes += line.len() as u64;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_on_line_ends_and_split_only_long_lines() {
        let long = "x".repeat(MAX_CHUNK + 10) + "\n";
        let text = format!("a\nbb\n{long}c\n");
        let (chunks, lines) = chunks(100, text.as_bytes());
        assert_eq!(lines, 4);
        let offsets: Vec<u64> = chunks.iter().map(|c| c.offset).collect();
        // The long line's last piece ends a line: the next line joins it.
        assert_eq!(offsets, vec![100, 105, 105 + MAX_CHUNK as u64]);
        let joined: Vec<u8> = chunks.iter().flat_map(|c| c.bytes.clone()).collect();
        assert_eq!(joined, text.as_bytes());
        assert!(chunks.iter().all(|c| c.bytes.len() <= MAX_CHUNK));
    }
}
