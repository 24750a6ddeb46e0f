//! Reads a log line by line with each line's number and byte offset. Lines may be huge
//! and hold any bytes; one buffer is reused, nothing of the log is kept.

use std::io::{self, BufRead};

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    next_offset: u64,
    next_number: u64,
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
        }
    }

    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let read = self.inner.read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        let offset = self.next_offset;
        let number = self.next_number;
        self.next_offset += read as u64;
        self.next_number += 1;
        let terminated = self.buf.last() == Some(&b'\n');
        let mut bytes = &self.buf[..];
        if terminated {
            bytes = &bytes[..bytes.len() - 1];
            if bytes.last() == Some(&b'\r') {
                bytes = &bytes[..bytes.len() - 1];
            }
        }
        Ok(Some(Line {
            number,
            offset,
            bytes,
            span: read as u64,
            terminated,
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
