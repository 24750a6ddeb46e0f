//! Reads a log line by line with each line's number and byte offset. Lines may be huge
//! and hold any bytes; one buffer is reused, nothing of the log is kept.

use std::io::{self, BufRead};

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Bytes of the reader's buffer the last line was lent from, let go at the next.
    lent: usize,
    next_offset: u64,
    next_number: u64,
    /// Longest line kept; a longer one is consumed and reported, never loaded.
    max_line: usize,
}

/// Lines longer than this are skipped with a malformed-line record (they would take
/// memory in proportion to their size, and no real record is this long).
pub const MAX_LINE: usize = 64 << 20;

/// `bytes` read as JSON, as `serde_json::from_slice` reads them: checked as UTF-8
/// whole first, then read as a `str`, so that its keys and values are not each checked
/// as they are read (a check for every string, most of them a few bytes, cost more
/// than the line's). Bytes that are not UTF-8 are read straight, for the same value or
/// error (a string serde skips is never checked).
pub fn from_json<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// A raw log line read again from the file (for display, for the declared-token pass)
/// as JSON, the way the line reader gives it to the parsers: lone surrogates repaired,
/// a leading byte order mark skipped.
pub fn json_record(bytes: &[u8]) -> serde_json::Result<serde_json::Value> {
    let mut repaired = bytes.to_vec();
    repair_lone_surrogates(&mut repaired);
    let bytes = repaired.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&repaired);
    from_json(bytes)
}

/// Replaces every `\uD800`-`\uDFFF` escape that is not half of a valid pair with
/// `\uFFFD`, in place (the same six bytes): Node's `JSON.stringify` writes them for an
/// emoji cut in half, and the JSON parser would otherwise reject the whole record.
pub fn repair_lone_surrogates(bytes: &mut [u8]) {
    let found: Vec<usize> = lone_surrogates(bytes).collect();
    for at in found {
        if let Some(hex) = bytes.get_mut(at + 2..at + 6) {
            hex.copy_from_slice(b"fffd");
        }
    }
}

/// Where each escape [`repair_lone_surrogates`] replaces starts, in order. Replacing
/// one changes only its four hex digits, which no later step reads.
fn lone_surrogates(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let escape_at = |at: usize| -> Option<u16> {
        let hex = bytes.get(at + 2..at + 6)?;
        if bytes.get(at..at + 2)? != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(found) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
            let i = at + found;
            match bytes.get(i + 1) {
                Some(b'u') => {
                    at = i + 2;
                    match escape_at(i) {
                        Some(0xd800..=0xdbff) => {
                            if matches!(escape_at(i + 6), Some(0xdc00..=0xdfff)) {
                                at = i + 12;
                                continue;
                            }
                            return Some(i);
                        }
                        Some(0xdc00..=0xdfff) => return Some(i),
                        _ => {}
                    }
                }
                // Any other escape (`\\` included) is two bytes.
                Some(_) => at = i + 2,
                None => return None,
            }
        }
        None
    })
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
            lent: 0,
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
            let available = filled(&mut self.inner)?;
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

    /// The length of the next line, newline included, if the reader's buffer holds all
    /// of it, within the line cap and with nothing to repair: such a line is lent from
    /// there, not copied (a copy of every byte of the log, most lines).
    fn whole_line_buffered(&mut self) -> io::Result<Option<usize>> {
        let available = filled(&mut self.inner)?;
        // One look for the newline and the first backslash: most lines have none, and
        // the bytes before the first one hold no escape to repair.
        let Some(first) = memchr::memchr2(b'\n', b'\\', available) else {
            return Ok(None);
        };
        let Some(newline) = available
            .get(first..)
            .and_then(|rest| memchr::memchr(b'\n', rest))
            .map(|after| first + after)
        else {
            return Ok(None);
        };
        let line_from_first = available.get(first..=newline).unwrap_or_default();
        let repairs = lone_surrogates(line_from_first).next().is_some();
        Ok((newline <= self.max_line && !repairs).then_some(newline + 1))
    }

    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.inner.consume(std::mem::take(&mut self.lent));
        let offset = self.next_offset;
        let number = self.next_number;
        if let Some(len) = self.whole_line_buffered()? {
            // The buffer holds the line already: asking again reads nothing.
            let line = filled(&mut self.inner)?.get(..len).unwrap_or_default();
            self.lent = len;
            self.next_offset += len as u64;
            self.next_number += 1;
            return Ok(Some(Line {
                number,
                offset,
                bytes: record_bytes(line, offset, true),
                span: len as u64,
                terminated: true,
                oversized: false,
            }));
        }
        self.buf.clear();
        let (read, terminated) = self.read_capped()?;
        if read == 0 {
            return Ok(None);
        }
        self.next_offset += read as u64;
        self.next_number += 1;
        let oversized = self.buf.len() < read;
        if oversized {
            self.buf.clear();
        } else {
            repair_lone_surrogates(&mut self.buf);
        }
        Ok(Some(Line {
            number,
            offset,
            bytes: record_bytes(&self.buf, offset, terminated && !oversized),
            span: read as u64,
            terminated,
            oversized,
        }))
    }
}

/// The bytes `reader` holds, read first if it holds none (again if the read was
/// interrupted).
fn filled<R: BufRead>(reader: &mut R) -> io::Result<&[u8]> {
    loop {
        match reader.fill_buf() {
            // Asked again below, where the borrow can be returned: a reader that
            // holds bytes reads nothing then.
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    reader.fill_buf()
}

/// A line's record: without the newline that ends it (and a `\r` before it), and
/// without the UTF-8 byte order mark that opens some files.
fn record_bytes(line: &[u8], offset: u64, terminated: bool) -> &[u8] {
    let mut bytes = line;
    if terminated {
        bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    }
    if offset == 0 {
        bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    }
    bytes
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

    /// Every line as `read` gives it: number, offset, record bytes, span, and whether
    /// it was terminated and oversized.
    fn all_lines<R: BufRead>(
        read: R,
        max_line: usize,
    ) -> Vec<(u64, u64, Vec<u8>, u64, bool, bool)> {
        let mut reader = LineReader::new(read).with_max_line(max_line);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            let bytes = line.bytes.to_vec();
            out.push((
                line.number,
                line.offset,
                bytes,
                line.span,
                line.terminated,
                line.oversized,
            ));
        }
        out
    }

    proptest::proptest! {
        /// A line lent from the reader's buffer is the line copied out of it: read with
        /// buffers of a few bytes (most lines cross one's end, and are copied) and from
        /// one buffer of the whole log (most are lent), every line is the same. The
        /// pieces hold what a line may need repaired or cut: lone and paired
        /// surrogates, escaped backslashes, a byte order mark, `\r\n`, long lines.
        #[test]
        fn a_lent_line_is_the_copied_line(
            pieces in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just(&b"\\ud83d"[..]),
                proptest::strategy::Just(&b"\\ude00"[..]),
                proptest::strategy::Just(&b"\\\\u"[..]),
                proptest::strategy::Just(&b"\xef\xbb\xbf"[..]),
                proptest::strategy::Just(&b"\r\n"[..]),
                proptest::strategy::Just(&b"\n"[..]),
                proptest::strategy::Just(&b"abc"[..]),
                proptest::strategy::Just(&b"0123456789abcdef"[..]),
            ], 0..24),
            capacity in 1usize..24,
        ) {
            let log: Vec<u8> = pieces.concat();
            let max_line = 20;
            let whole = all_lines(&log[..], max_line);
            let cut = all_lines(io::BufReader::with_capacity(capacity, &log[..]), max_line);
            proptest::prop_assert_eq!(cut, whole);
        }
    }
}
