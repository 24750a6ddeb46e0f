//! Reading single lines of a log by byte offset (pread, never mmap: a log truncated under
//! a mapping would kill the process with SIGBUS).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// `Sync`: a long region's lines are read on several threads.
pub trait LineSource: Sync {
    /// The bytes `offset..offset + span` (a line as indexed), newline trimmed.
    fn line(&self, offset: u64, span: u64) -> io::Result<Vec<u8>>;
}

/// A line's bytes without the newline that ends it (`\n` or `\r\n`).
pub fn without_newline(bytes: &[u8]) -> &[u8] {
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
        let len = usize::try_from(span).map_err(io::Error::other)?;
        let mut buf = vec![0; len];
        let mut filled = 0;
        while filled < len {
            let Some(rest) = buf.get_mut(filled..) else {
                break;
            };
            let n = self.read_at(rest, offset + filled as u64)?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        buf.truncate(filled);
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
