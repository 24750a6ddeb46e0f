//! Following a log that is still being written: only complete lines are read, and a
//! half-written last line waits for its newline. Truncation (the file shrank, or its
//! first bytes changed) and replacement (another file at the same path) re-read from the
//! start, as lnav does.

use super::lines::LineReader;
use ctxlens_core::model::Session;
use ctxlens_core::parse::LogParser;
use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What a poll found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing new.
    None,
    /// New complete lines were read.
    Grew,
    /// The file shrank or its first bytes changed; it was read again from the start.
    Truncated,
    /// Another file now stands at the path; it was read from the start.
    Replaced,
    /// No file at the path any more; what was read is kept.
    Gone,
}

/// How many leading bytes identify the file's content.
const HEAD: u64 = 1024;

/// Bytes of lines read between two calls of a first-read step's `meanwhile`: a line
/// parsed on one thread runs at tens of MiB/s, so a view's request waits some tens of
/// milliseconds for its turn, not a whole step (up to 32 MiB).
pub const MEANWHILE_BYTES: u64 = 1 << 20;

/// A log followed as it grows: what was read, and where the next read starts.
pub struct Follower {
    path: PathBuf,
    parser: LogParser,
    /// Byte offset just past the last complete line read.
    offset: u64,
    next_line: u64,
    identity: Option<(u64, u64)>,
    head: Vec<u8>,
    gone: bool,
}

impl Follower {
    /// A follower of the log at `path` that has read it to its last complete line.
    pub fn open(path: &Path) -> io::Result<Follower> {
        let mut follower = Follower::start(path)?;
        follower.read_new(super::open_log(path)?)?;
        Ok(follower)
    }

    /// A follower of the log at `path` that has read nothing yet: the first read goes
    /// by [`Follower::read_first`], a step at a time, so a view can show the first
    /// lines of a large log before the rest is read.
    pub fn start(path: &Path) -> io::Result<Follower> {
        super::open_log(path)?;
        Ok(Follower {
            path: path.to_owned(),
            parser: LogParser::new(),
            offset: 0,
            next_line: 1,
            identity: None,
            head: Vec::new(),
            gone: false,
        })
    }

    /// One step of the first read: complete lines until about `budget` more bytes are
    /// read or the end is reached; `progress` counts from the read's start, and
    /// `meanwhile` is called after every [`MEANWHILE_BYTES`] of lines read (a view
    /// answers its requests there: a step can take seconds). Returns whether the end
    /// was reached.
    pub fn read_first(
        &mut self,
        budget: u64,
        progress: &mut super::progress::ProgressCount<'_>,
        meanwhile: &mut dyn FnMut(),
    ) -> io::Result<bool> {
        let file = super::open_log(&self.path)?;
        self.read_lines(file, budget, progress, meanwhile)
    }

    /// Byte offset just past the last complete line read.
    pub fn read_to(&self) -> u64 {
        self.offset
    }

    /// The session as read so far (without the declared-token pass).
    pub fn session(&self) -> &Session {
        self.parser.session()
    }

    /// Adds the declared tokens `pass` finds to the region texts of the session read so
    /// far: they stay there as it grows (only a canonical log declares bindings, and
    /// its reader never reads back what it parsed), so what a snapshot shares with the
    /// session is not copied to attach them again.
    pub fn attach_declared(
        &mut self,
        pass: &mut super::declared::DeclaredPass,
        source: &(impl super::source::LineSource + ?Sized),
    ) -> io::Result<()> {
        pass.attach(self.parser.session_mut(), source)
    }

    fn restart(&mut self) {
        self.parser = LogParser::new();
        self.offset = 0;
        self.next_line = 1;
        self.head.clear();
    }

    /// Reads what changed since the last poll.
    pub fn poll(&mut self) -> io::Result<Change> {
        let file = match super::open_log(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.gone = true;
                return Ok(Change::Gone);
            }
            Err(e) => return Err(e),
        };
        let meta = file.metadata()?;
        let identity = (meta.dev(), meta.ino());
        let was_gone = std::mem::take(&mut self.gone);
        if self.identity.is_some_and(|known| known != identity) || was_gone {
            self.restart();
            self.read_new(file)?;
            return Ok(Change::Replaced);
        }
        let mut head = vec![0; self.head.len()];
        let head_changed = file.read_exact_at(&mut head, 0).is_err() || head != self.head;
        if meta.len() < self.offset || head_changed {
            self.restart();
            self.read_new(file)?;
            return Ok(Change::Truncated);
        }
        if meta.len() == self.offset {
            return Ok(Change::None);
        }
        let before = self.offset;
        self.read_new(file)?;
        Ok(if self.offset > before {
            Change::Grew
        } else {
            Change::None
        })
    }

    fn read_new(&mut self, file: File) -> io::Result<()> {
        let mut quiet = |_| {};
        let mut progress = super::progress::ProgressCount::new(0, &mut quiet);
        self.read_lines(file, u64::MAX, &mut progress, &mut || {})
            .map(|_| ())
    }

    /// Reads complete lines from the offset reached until `budget` bytes past it (the
    /// line that crosses it is read whole) or the end, calling `meanwhile` after every
    /// [`MEANWHILE_BYTES`]; true at the end.
    fn read_lines(
        &mut self,
        mut file: File,
        budget: u64,
        progress: &mut super::progress::ProgressCount<'_>,
        meanwhile: &mut dyn FnMut(),
    ) -> io::Result<bool> {
        let meta = file.metadata()?;
        self.identity = Some((meta.dev(), meta.ino()));
        file.seek(SeekFrom::Start(self.offset))?;
        let stop = self.offset.saturating_add(budget);
        let reader = BufReader::with_capacity(
            (1 << 20).min(budget.max(64 << 10)) as usize,
            progress.reader(&file, self.offset),
        );
        let mut lines = LineReader::starting_at(reader, self.offset, self.next_line);
        let mut at_end = true;
        let mut call_at = self.offset.saturating_add(MEANWHILE_BYTES);
        while let Some(line) = lines.next_line()? {
            if !line.terminated {
                break;
            }
            self.parser.feed(&line);
            self.offset = line.offset + line.span;
            self.next_line = line.number + 1;
            if self.offset >= stop {
                at_end = false;
                break;
            }
            if self.offset >= call_at {
                meanwhile();
                call_at = self.offset.saturating_add(MEANWHILE_BYTES);
            }
        }
        self.parser.settle();
        if (self.head.len() as u64) < HEAD.min(self.offset) {
            self.head = vec![0; HEAD.min(self.offset) as usize];
            file.read_exact_at(&mut self.head, 0)?;
        }
        Ok(at_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const ONE: &str = "{\"type\":\"message\",\"seq\":1,\"text\":\"hi\"}\n";

    #[test]
    fn half_written_line_waits_for_its_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl");
        std::fs::write(&path, format!("{ONE}{{\"type\":\"mess")).unwrap();
        let mut follower = Follower::open(&path).unwrap();
        assert_eq!(follower.session().events.len(), 1);
        assert!(follower.session().malformed.is_empty());
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"age\",\"seq\":2,\"text\":\"there\"}\n")
            .unwrap();
        assert_eq!(follower.poll().unwrap(), Change::Grew);
        assert_eq!(follower.session().events.len(), 2);
        assert_eq!(follower.poll().unwrap(), Change::None);
    }

    /// A step of the first read lets its caller in after every `MEANWHILE_BYTES` of
    /// lines (a view answers its requests there), not only when the step ends.
    #[test]
    fn a_first_read_step_lets_its_caller_in_as_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.jsonl");
        let line = format!(
            "{{\"type\":\"message\",\"text\":\"{}\"}}\n",
            "w ".repeat(500)
        );
        // A little over three times the interval.
        let lines = (3 * MEANWHILE_BYTES) as usize / line.len() + 1;
        std::fs::write(&path, line.repeat(lines)).unwrap();
        let mut quiet = |_| {};
        let mut progress = super::super::progress::ProgressCount::new(0, &mut quiet);
        let mut follower = Follower::start(&path).unwrap();
        let mut calls = 0;
        let short = MEANWHILE_BYTES / 2;
        let at_end = follower
            .read_first(short, &mut progress, &mut || calls += 1)
            .unwrap();
        assert!(!at_end);
        assert_eq!(calls, 0, "a step shorter than the interval ends first");
        let at_end = follower
            .read_first(u64::MAX, &mut progress, &mut || calls += 1)
            .unwrap();
        assert!(at_end);
        // From half an interval in: after one and a half, and after two and a half.
        assert_eq!(calls, 2, "once per interval read in the step");
        assert_eq!(follower.session().events.len(), lines);
    }

    #[test]
    fn truncation_replacement_and_deletion() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl");
        std::fs::write(
            &path,
            ONE.replace("hi", "a") + &ONE.replace("\"seq\":1", "\"seq\":2"),
        )
        .unwrap();
        let mut follower = Follower::open(&path).unwrap();
        assert_eq!(follower.session().events.len(), 2);
        // Shrank.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        std::fs::write(&path, ONE).unwrap();
        assert_eq!(follower.poll().unwrap(), Change::Truncated);
        assert_eq!(follower.session().events.len(), 1);
        // Same size or longer, different first bytes.
        std::fs::write(
            &path,
            ONE.replace("hi", "yo") + ONE.replace("\"seq\":1", "\"seq\":2").as_str(),
        )
        .unwrap();
        assert_eq!(follower.poll().unwrap(), Change::Truncated);
        assert_eq!(follower.session().events.len(), 2);
        // Rotation: a new file at the same path.
        let rotated = dir.path().join("live.jsonl.1");
        std::fs::rename(&path, &rotated).unwrap();
        assert_eq!(follower.poll().unwrap(), Change::Gone);
        assert_eq!(follower.session().events.len(), 2, "what was read is kept");
        std::fs::write(&path, ONE).unwrap();
        assert_eq!(follower.poll().unwrap(), Change::Replaced);
        assert_eq!(follower.session().events.len(), 1);
    }
}
