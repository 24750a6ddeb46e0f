//! Reading single lines of a log by byte offset (pread, never mmap: a log truncated under
//! a mapping would kill the process with SIGBUS).

use std::fs::File;
use std::io;

/// `Sync`: a long region's lines are read on several threads.
pub trait LineSource: Sync {
    /// The bytes `offset..offset + span` (a line as indexed), newline trimmed.
    fn line(&self, offset: u64, span: u64) -> io::Result<Vec<u8>>;
}

/// A line's bytes without the newline that ends it (`\n` or `\r\n`).
pub(crate) fn without_newline(bytes: &[u8]) -> &[u8] {
    match bytes.strip_suffix(b"\n") {
        Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
        None => bytes,
    }
}

fn trim_newline(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.truncate(without_newline(&bytes).len());
    bytes
}

impl LineSource for File {
    fn line(&self, offset: u64, span: u64) -> io::Result<Vec<u8>> {
        use rustix::buffer::spare_capacity;
        let len = usize::try_from(span).map_err(io::Error::other)?;
        // Read into the room the buffer has, not zeroed first (the declared pass reads
        // its lines a mebibyte at a time: zeroing each was a sixtieth of `audit`).
        let mut buf = Vec::with_capacity(len);
        while buf.len() < len {
            let at = offset + buf.len() as u64;
            match rustix::io::pread(self, spare_capacity(&mut buf), at) {
                Ok(0) => break,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
        // The room may be larger than the line: what was read past it goes.
        buf.truncate(len);
        Ok(trim_newline(buf))
    }
}

impl LineSource for [u8] {
    fn line(&self, offset: u64, span: u64) -> io::Result<Vec<u8>> {
        let start = usize::try_from(offset)
            .map_err(io::Error::other)?
            .min(self.len());
        let end = start.saturating_add(usize::try_from(span).map_err(io::Error::other)?);
        let bytes = self.get(start..end.min(self.len())).unwrap_or_default();
        Ok(trim_newline(bytes.to_vec()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;

    /// A file reads as the same bytes in memory do: lines, a `\r\n`, nothing at all, a
    /// line cut short by a file truncated since it was indexed, and a line past its end.
    #[test]
    fn a_file_reads_its_lines_as_the_bytes_in_memory_do() {
        let bytes = b"{\"a\":1}\n{\"b\":2}\r\nlast, cut".as_slice();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        for (offset, span) in [(0, 8), (8, 9), (8, 0), (17, 9), (17, 40), (30, 5), (99, 3)] {
            assert_eq!(
                file.line(offset, span).unwrap(),
                bytes.line(offset, span).unwrap(),
                "{offset}+{span}"
            );
        }
        assert_eq!(file.line(8, 9).unwrap(), b"{\"b\":2}");
        assert_eq!(file.line(17, 40).unwrap(), b"last, cut");
    }
}
