//! Reading logs: line index, canonical JSONL, declared-token resolution.

mod anchors;
pub mod declared;
pub mod display;
mod find;
pub mod follow;
pub mod lines;
mod parallel;
pub mod progress;
mod sampled_windows;
pub mod source;
pub mod watch;

use ctxlens_core::model::Session;
use ctxlens_core::parse::detect::LogParser;
use lines::LineReader;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A log that cannot be used at all (as opposed to bad lines inside it).
#[derive(Debug)]
pub struct LoadError {
    pub path: PathBuf,
    pub source: io::Error,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for LoadError {}

pub use find::find_logs;

const READ_BUFFER: usize = 1 << 20;

/// Reads a whole log as `audit` does: a last line without a newline is read if it
/// parses and reported as malformed otherwise.
pub fn load(path: &Path) -> Result<Session, LoadError> {
    load_with_progress(path, &mut |_| {})
}

/// [`load`], calling `report` as the first read goes (see [`progress`]).
pub fn load_with_progress(
    path: &Path,
    report: &mut dyn FnMut(progress::Reading),
) -> Result<Session, LoadError> {
    let err = |source| LoadError {
        path: path.to_owned(),
        source,
    };
    let open = || -> io::Result<(File, u64)> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::other("is a folder, not a log file"));
        }
        // A device or a pipe can be endless (`/dev/zero`, `<(yes)`): only files are read.
        if !meta.is_file() {
            return Err(io::Error::other(
                "is not a regular file (a device or a pipe); copy it to a file first",
            ));
        }
        Ok((file, meta.len()))
    };
    let (file, size) = open().map_err(err)?;
    let mut count = progress::ProgressCount::new(size, report);
    let reader = count.reader(file, 0);
    let mut session = parse(BufReader::with_capacity(READ_BUFFER, reader)).map_err(err)?;
    let file = File::open(path).map_err(err)?;
    declared::attach_declared_tokens(&mut session, &file).map_err(err)?;
    attach_ledger(&mut session, path).map_err(err)?;
    attach_context_sources(&mut session);
    Ok(session)
}

/// Largest instruction file read as a context source.
const MAX_CONTEXT_SOURCE: u64 = 4 << 20;

/// The instruction files Claude Code re-injects after every compaction (spec §8.6):
/// `CLAUDE.md` in the session's cwd and each parent, and `~/.claude/CLAUDE.md`. Only
/// when the cwd exists here, i.e. the session ran on this machine.
pub fn attach_context_sources(session: &mut Session) {
    use sha2::{Digest, Sha256};
    session.context_sources.clear();
    if session.format != ctxlens_core::model::Format::ClaudeCode {
        return;
    }
    let Some(cwd) = session.cwd.clone() else {
        return;
    };
    let cwd = Path::new(&cwd);
    if !cwd.is_absolute() || !cwd.is_dir() {
        return;
    }
    let mut files: Vec<PathBuf> = cwd.ancestors().map(|dir| dir.join("CLAUDE.md")).collect();
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")));
    if let Some(config) = config {
        files.push(config.join("CLAUDE.md"));
    }
    for file in files {
        let Ok(meta) = std::fs::metadata(&file) else {
            continue;
        };
        if !meta.is_file() || meta.len() > MAX_CONTEXT_SOURCE {
            continue;
        }
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let digest = ctxlens_core::parse::text::digest(&[&text], 0, &mut session.tokens);
        session
            .context_sources
            .push(ctxlens_core::model::ContextSource {
                path: file.display().to_string(),
                sha256: Sha256::digest(&bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect(),
                tokens: digest.tokens.into_vec(),
            });
    }
}

/// Parses a log in any format from any reader, without the declared-token pass.
pub fn parse<R: BufRead>(reader: R) -> io::Result<Session> {
    let mut parser = LogParser::new();
    let mut lines = LineReader::new(reader);
    while let Some(line) = lines.next_line()? {
        parser.feed(&line);
        // Once the log reads as canonical, the rest is parsed on every core.
        if let LogParser::Canonical(canonical) = &mut parser {
            parallel::parse_rest(&mut lines, canonical)?;
        }
    }
    Ok(parser.finish())
}

/// Parses a log held in memory, declared tokens included (tests and small inputs).
/// Reading from memory cannot fail.
#[allow(clippy::expect_used)]
pub fn parse_bytes(bytes: &[u8]) -> Session {
    let mut session = parse(bytes).expect("reading from memory cannot fail");
    declared::attach_declared_tokens(&mut session, bytes).expect("reading from memory cannot fail");
    session
}

/// A reader over bytes `start..end` of the file at `path`.
pub fn open_range(path: &Path, start: u64, end: u64) -> io::Result<impl Read> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    Ok(file.take(end.saturating_sub(start)))
}

/// The binding ledger of a Claude Code or Codex transcript, if its hooks wrote one.
pub fn attach_ledger(session: &mut Session, path: &Path) -> io::Result<()> {
    use crate::store::ledger::{read, Entry};
    if session.format == ctxlens_core::model::Format::Canonical {
        return Ok(());
    }
    let entries = read(path)?;
    session.ledger = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::PreCompact {
                id, to_byte, tokens, ..
            } => Some(ctxlens_core::model::LedgerHint {
                id: id.clone(),
                before: *to_byte,
                refused: entries.iter().any(|e| {
                    matches!(e, Entry::Released { id: r, verdict: Some(ctxlens_core::model::Verdict::Refuse), .. } if r == id)
                }),
                tokens: tokens
                    .iter()
                    .map(|t| (t.token.clone(), t.why.clone()))
                    .collect(),
            }),
            Entry::PostCompact { .. } | Entry::Released { .. } => None,
        })
        .collect();
    let latest = entries
        .iter()
        .rev()
        .find(|e| matches!(e, Entry::PreCompact { .. }));
    if let Some(Entry::PreCompact {
        id,
        ts,
        trigger,
        handle,
        to_byte,
        hold_until: Some(until),
        ..
    }) = latest
    {
        let released = entries
            .iter()
            .any(|e| matches!(e, Entry::Released { id: r, .. } if r == id));
        if !released {
            hold(session, id, ts, trigger, handle, *to_byte, until);
        }
    }
    Ok(())
}

/// A compaction a pre-compact hook holds for an operator, as a proposed compaction at
/// the end of the session, so every view and command treats it as pending. Not when
/// it has landed (a boundary after the hook's bytes) or the hold is over.
fn hold(
    session: &mut Session,
    id: &str,
    ts: &str,
    trigger: &Option<String>,
    handle: &Option<String>,
    to_byte: u64,
    until: &str,
) {
    use ctxlens_core::model::{CompactionExtra, Event, EventKind, Held, Phase, RangeSpec};
    let compaction = |e: &Event| matches!(e.kind, EventKind::Compaction { .. });
    let landed = session
        .events
        .iter()
        .any(|e| compaction(e) && e.offset >= to_byte);
    let over = humantime::parse_rfc3339_weak(until)
        .is_ok_and(|until| until < std::time::SystemTime::now());
    if landed || over {
        return;
    }
    // The region: what follows the latest compaction and its summary record.
    let after = session
        .events
        .iter()
        .rposition(compaction)
        .map_or(0, |i| i + 1);
    let first = session
        .events_in(after..session.events.len())
        .find(|e| e.kind.type_name() != "compact summary");
    let range = match (first, session.events.last()) {
        (Some(first), Some(last)) => RangeSpec::Seqs {
            from: first.seq,
            to: last.seq,
        },
        _ => RangeSpec::Missing,
    };
    let last = session.events.last();
    let event = Event {
        seq: last.map_or(1, |e| e.seq.saturating_add(1)),
        line: last.map_or(1, |e| e.line + 1),
        offset: to_byte,
        span: 0,
        part: 0,
        ts: Some(ts.into()),
        kind: EventKind::Compaction {
            id: id.to_owned(),
            phase: Some(Phase::Proposed),
            range,
            summary: None,
            input: Some("log".into()),
            region_elsewhere: false,
            extra: Box::new(CompactionExtra {
                trigger: trigger.clone(),
                held: Some(Held {
                    until: Some(until.to_owned()),
                    handle: handle.clone(),
                }),
                ..CompactionExtra::default()
            }),
        },
    };
    session.events.push(event);
}
