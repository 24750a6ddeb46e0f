//! Following a log that is still being written: only complete lines are read, and a
//! half-written last line waits for its newline.

use super::canonical::CanonicalParser;
use super::lines::LineReader;
use crate::model::Session;
use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// What a poll found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing new.
    None,
    /// New complete lines were read.
    Grew,
    /// The file is shorter than what was read: it was truncated or replaced. The caller
    /// decides whether to read it again from the start.
    Shrank,
}

pub struct Follower {
    path: PathBuf,
    parser: CanonicalParser,
    /// Byte offset just past the last complete line read.
    offset: u64,
    next_line: u64,
}

impl Follower {
    pub fn open(path: &Path) -> io::Result<Follower> {
        let mut follower = Follower {
            path: path.to_owned(),
            parser: CanonicalParser::new(),
            offset: 0,
            next_line: 1,
        };
        follower.poll()?;
        Ok(follower)
    }

    pub fn session(&self) -> &Session {
        self.parser.session()
    }

    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads the complete lines appended since the last poll.
    pub fn poll(&mut self) -> io::Result<Change> {
        let mut file = File::open(&self.path)?;
        let len = file.metadata()?.len();
        if len < self.offset {
            return Ok(Change::Shrank);
        }
        if len == self.offset {
            return Ok(Change::None);
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut lines = LineReader::starting_at(
            BufReader::with_capacity(1 << 20, file),
            self.offset,
            self.next_line,
        );
        let mut grew = false;
        while let Some(line) = lines.next_line()? {
            if !line.terminated {
                break;
            }
            self.parser.feed(&line);
            self.offset = line.offset + line.span;
            self.next_line = line.number + 1;
            grew = true;
        }
        Ok(if grew { Change::Grew } else { Change::None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn half_written_line_waits_for_its_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"message\",\"seq\":1,\"text\":\"hi\"}\n{\"type\":\"mess",
        )
        .unwrap();
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
        std::fs::write(&path, "").unwrap();
        assert_eq!(follower.poll().unwrap(), Change::Shrank);
    }
}
