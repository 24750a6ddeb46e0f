//! Standard output that notices its reader went away: `ctxlens audit … | head` ends
//! quietly with status 0, as `rg | head` does, whatever the command was doing.

use std::io::{self, Write};

/// A writer that remembers a broken pipe. Writes after one fail again with it, so a
/// command stops early; `main` then ends quietly.
pub(crate) struct PipeAware<W> {
    inner: W,
    broken: bool,
}

impl<W: Write> PipeAware<W> {
    pub(crate) fn new(inner: W) -> Self {
        PipeAware {
            inner,
            broken: false,
        }
    }

    /// The reader closed the pipe: nothing more can be shown, and nothing went wrong.
    pub(crate) fn broken(&self) -> bool {
        self.broken
    }

    fn note<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            self.broken |= e.kind() == io::ErrorKind::BrokenPipe;
        }
        result
    }
}

impl<W: Write> Write for PipeAware<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.broken {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        let result = self.inner.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.broken {
            return Ok(());
        }
        let result = self.inner.flush();
        self.note(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn a_closed_reader_is_remembered() {
        let mut out = PipeAware::new(Closed);
        assert!(writeln!(out, "x").is_err());
        assert!(out.broken());
        assert!(out.flush().is_ok());
        let mut fine = PipeAware::new(Vec::new());
        writeln!(fine, "x").unwrap();
        assert!(!fine.broken());
    }
}
