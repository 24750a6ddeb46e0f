//! Reads a log line by line with each line's number and byte offset. Lines may be huge
//! and hold any bytes; one buffer is reused, nothing of the log is kept.

use ctxlens_core::parse::lines::record_bytes;
pub use ctxlens_core::parse::lines::{
    from_json, json_record, lone_surrogates, repair_lone_surrogates, Line, MAX_LINE,
};
use std::io::{self, BufRead};

/// Complete lines of a reader, each with its number and byte offset; a line too long to hold is reported, not held.
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

impl<R: BufRead> LineReader<R> {
    /// Lines of `inner` from its start.
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

    /// The next line, `None` at the end; a last line without its newline is given too.
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
        // The cap counts the line without its newline: a last line with none may not
        // take the byte a newline would have.
        let oversized = if terminated {
            self.buf.len() < read
        } else {
            read > self.max_line
        };
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
