//! Reading logs: line index, canonical JSONL, declared-token resolution.

pub(crate) mod declared;
pub mod follow;
pub mod lines;
pub mod opencode;
mod parallel;
pub mod progress;
pub(crate) mod source;

use ctxlens_core::model::Session;
use ctxlens_core::parse::LogParser;
use lines::LineReader;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A log that cannot be used at all (as opposed to bad lines inside it).
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct LoadError {
    /// The log's path.
    pub path: PathBuf,
    /// Why it cannot be used.
    #[source]
    pub source: io::Error,
}

const READ_BUFFER: usize = 1 << 20;

/// Opens a log for reading, never blocking: a plain open of a FIFO waits for a writer
/// forever, so it is opened with `O_NONBLOCK` (which returns at once) and anything but a
/// regular file is then refused (a device or a pipe can be endless). A link to a log is
/// followed: reading through one writes nothing. Every reader of a log opens it here.
pub fn open_log(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::other("is a folder, not a log file"));
    }
    if !meta.is_file() {
        return Err(io::Error::other(
            "is not a regular file (a device or a pipe); copy it to a file first",
        ));
    }
    Ok(file)
}

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
        let file = open_log(path)?;
        let size = file.metadata()?.len();
        Ok((file, size))
    };
    let (file, size) = open().map_err(err)?;
    let mut count = progress::ProgressCount::new(size, report);
    let reader = count.reader(file, 0);
    let mut session = parse(BufReader::with_capacity(READ_BUFFER, reader)).map_err(err)?;
    let file = open_log(path).map_err(err)?;
    declared::attach_declared_tokens(&mut session, &file).map_err(err)?;
    Ok(session)
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
    let mut file = open_log(path)?;
    file.seek(SeekFrom::Start(start))?;
    Ok(file.take(end.saturating_sub(start)))
}
