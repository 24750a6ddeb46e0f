//! Reads a log line by line with each line's number and byte offset. Lines may be huge
//! and hold any bytes; one buffer is reused, nothing of the log is kept.

use std::io::{self, BufRead};

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    next_offset: u64,
    next_number: u64,
    /// Longest line kept; a longer one is consumed and reported, never loaded.
    max_line: usize,
}

/// Lines longer than this are skipped with a malformed-line record (they would take
/// memory in proportion to their size, and no real record is this long).
pub const MAX_LINE: usize = 64 << 20;

/// A raw log line read again from the file (for display, for the declared-token pass)
/// as JSON, the way the line reader gives it to the parsers: lone surrogates repaired,
/// a leading byte order mark skipped.
pub fn json_record(bytes: &[u8]) -> serde_json::Result<serde_json::Value> {
    let mut repaired = bytes.to_vec();
    repair_lone_surrogates(&mut repaired);
    let bytes = repaired.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&repaired);
    serde_json::from_slice(bytes)
}

/// Replaces every `\uD800`-`\uDFFF` escape that is not half of a valid pair with
/// `\uFFFD`, in place (the same six bytes): Node's `JSON.stringify` writes them for an
/// emoji cut in half, and the JSON parser would otherwise reject the whole record.
pub fn repair_lone_surrogates(bytes: &mut [u8]) {
    fn replace_escape(bytes: &mut [u8], at: usize) {
        if let Some(hex) = bytes.get_mut(at + 2..at + 6) {
            hex.copy_from_slice(b"fffd");
        }
    }
    fn escape_at(bytes: &[u8], at: usize) -> Option<u16> {
        let hex = bytes.get(at + 2..at + 6)?;
        if bytes.get(at..at + 2)? != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    }
    let mut at = 0;
    while let Some(found) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let i = at + found;
        match bytes.get(i + 1) {
            Some(b'u') => {
                let code = escape_at(bytes, i);
                match code {
                    Some(0xd800..=0xdbff) => {
                        let low = escape_at(bytes, i + 6);
                        if matches!(low, Some(0xdc00..=0xdfff)) {
                            at = i + 12;
                            continue;
                        }
                        replace_escape(bytes, i);
                    }
                    Some(0xdc00..=0xdfff) => replace_escape(bytes, i),
                    _ => {}
                }
                at = i + 2;
            }
            // Any other escape (`\\` included) is two bytes.
            Some(_) => at = i + 2,
            None => break,
        }
    }
}

/// One line as read: without its newline (and without a `\r` before it).
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based.
    pub number: u64,
    /// 0-based byte offset of the first byte.
    pub offset: u64,
    pub bytes: &'a [u8],
    /// Bytes the line takes in the file, newline included.
    pub span: u64,
    /// False for a last line that has no newline yet.
    pub terminated: bool,
    /// Longer than the line cap: consumed, not loaded (`bytes` is empty).
    pub oversized: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self::starting_at(inner, 0, 1)
    }

    /// A reader whose first line is line `number` at byte `offset` of the file.
    pub fn starting_at(inner: R, offset: u64, number: u64) -> Self {
        LineReader {
            inner,
            buf: Vec::new(),
            next_offset: offset,
            next_number: number,
            max_line: MAX_LINE,
        }
    }

    /// The same reader with another line cap (tests).
    pub fn with_max_line(mut self, max_line: usize) -> Self {
        self.max_line = max_line;
        self
    }

    /// Reads up to and including the next newline into `buf`, keeping at most
    /// `max_line + 1` bytes; the number of bytes consumed, and whether a newline ended
    /// them.
    fn read_capped(&mut self) -> io::Result<(usize, bool)> {
        let mut consumed = 0;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok((consumed, false));
            }
            let (chunk, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (available.get(..=i).unwrap_or(available), true),
                None => (available, false),
            };
            let room = (self.max_line + 1).saturating_sub(self.buf.len());
            self.buf
                .extend_from_slice(chunk.get(..room).unwrap_or(chunk));
            let n = chunk.len();
            self.inner.consume(n);
            consumed += n;
            if done {
                return Ok((consumed, true));
            }
        }
    }

    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let (read, terminated) = self.read_capped()?;
        if read == 0 {
            return Ok(None);
        }
        let offset = self.next_offset;
        let number = self.next_number;
        self.next_offset += read as u64;
        self.next_number += 1;
        let oversized = self.buf.len() < read;
        if oversized {
            self.buf.clear();
        } else {
            repair_lone_surrogates(&mut self.buf);
        }
        let mut bytes = &self.buf[..];
        if terminated && !oversized {
            bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
            bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        }
        // A UTF-8 byte order mark opens some files: it is not part of the record.
        if offset == 0 {
            bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        }
        Ok(Some(Line {
            number,
            offset,
            bytes,
            span: read as u64,
            terminated,
            oversized,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_offsets_and_unterminated_tail() {
        let data = b"a\r\n\nbcd\nef";
        let mut reader = LineReader::new(&data[..]);
        let mut seen = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            seen.push((
                line.number,
                line.offset,
                line.bytes.to_vec(),
                line.terminated,
            ));
        }
        assert_eq!(
            seen,
            vec![
                (1, 0, b"a".to_vec(), true),
                (2, 3, b"".to_vec(), true),
                (3, 4, b"bcd".to_vec(), true),
                (4, 8, b"ef".to_vec(), false),
            ]
        );
    }
}
