//! Reading logs: line index, canonical JSONL, declared-token resolution.

pub mod canonical;
pub mod claude;
pub mod codex;
pub mod declared;
pub mod detect;
pub mod display;
pub mod follow;
pub mod lines;
pub mod source;
pub mod text;
pub mod transcript;
pub mod watch;

use crate::model::Session;
use detect::LogParser;
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

const READ_BUFFER: usize = 1 << 20;

/// Reads a whole log as `audit` does: a last line without a newline is read if it
/// parses and reported as malformed otherwise.
pub fn load(path: &Path) -> Result<Session, LoadError> {
    let err = |source| LoadError {
        path: path.to_owned(),
        source,
    };
    let open = || -> io::Result<BufReader<File>> {
        let file = File::open(path)?;
        if file.metadata()?.is_dir() {
            return Err(io::Error::other("is a folder, not a log file"));
        }
        Ok(BufReader::with_capacity(READ_BUFFER, file))
    };
    let mut session = parse(open().map_err(err)?).map_err(err)?;
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
    if session.format != crate::model::Format::ClaudeCode {
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
        let digest = text::digest(&[&text], 0, &mut session.tokens);
        session.context_sources.push(crate::model::ContextSource {
            path: file.display().to_string(),
            sha256: Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
            tokens: digest.tokens,
        });
    }
}

/// Parses a log in any format from any reader, without the declared-token pass.
pub fn parse<R: BufRead>(reader: R) -> io::Result<Session> {
    let mut parser = LogParser::new();
    let mut lines = LineReader::new(reader);
    while let Some(line) = lines.next_line()? {
        parser.feed(&line);
    }
    Ok(parser.finish())
}

/// Parses a log held in memory, declared tokens included (tests and small inputs).
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

/// The binding ledger of a Claude Code transcript, if its hooks wrote one.
pub fn attach_ledger(session: &mut Session, path: &Path) -> io::Result<()> {
    use crate::store::ledger::{read, Entry};
    if session.format != crate::model::Format::ClaudeCode {
        return Ok(());
    }
    session.ledger = read(path)?
        .into_iter()
        .filter_map(|entry| match entry {
            Entry::PreCompact {
                to_byte, tokens, ..
            } => Some(crate::model::LedgerHint {
                before: to_byte,
                tokens: tokens.into_iter().map(|t| (t.token, t.why)).collect(),
            }),
            Entry::PostCompact { .. } => None,
        })
        .collect();
    Ok(())
}
