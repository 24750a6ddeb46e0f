//! How far the first read of a large log has got, for a progress line: bytes read of
//! the file's size, reported at most every 100 ms by a reader wrapped around the file.

use std::io::{self, Read};
use std::time::{Duration, Instant};

/// A moment of a read: bytes read of `total`, after `elapsed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// Bytes read so far.
    pub read: u64,
    /// Bytes of the log when the read began.
    pub total: u64,
    /// Time since the read began.
    pub elapsed: Duration,
}

impl Reading {
    /// How much is read, in whole percent.
    pub fn percent(&self) -> u64 {
        (self.read.saturating_mul(100))
            .checked_div(self.total)
            .unwrap_or(100)
            .min(100)
    }

    /// The reading speed so far.
    pub fn mib_per_second(&self) -> f64 {
        let seconds = self.elapsed.as_secs_f64();
        if seconds > 0.0 {
            self.read as f64 / (1u64 << 20) as f64 / seconds
        } else {
            0.0
        }
    }

    /// `45% · 120 MB/s`
    pub fn describe(&self) -> String {
        format!("{}% · {:.0} MB/s", self.percent(), self.mib_per_second())
    }
}

/// The progress of one read of a file of `total` bytes, which may go in several steps
/// (a view reads a large log a piece at a time): one clock across them.
pub struct ProgressCount<'a> {
    total: u64,
    started: Instant,
    last: Instant,
    report: &'a mut dyn FnMut(Reading),
}

impl<'a> ProgressCount<'a> {
    /// A count of `total` bytes that tells `report` how far it has got.
    pub fn new(total: u64, report: &'a mut dyn FnMut(Reading)) -> Self {
        let now = Instant::now();
        ProgressCount {
            total,
            started: now,
            last: now,
            report,
        }
    }

    /// Wraps a reader that starts at byte `from` of the file.
    pub fn reader<R: Read>(&mut self, inner: R, from: u64) -> ProgressReader<'_, 'a, R> {
        ProgressReader {
            inner,
            read: from,
            count: self,
        }
    }
}

/// A reader that tells its [`ProgressCount`] how far into the file it is.
pub struct ProgressReader<'c, 'a, R> {
    inner: R,
    read: u64,
    count: &'c mut ProgressCount<'a>,
}

const EVERY: Duration = Duration::from_millis(100);

impl<R: Read> Read for ProgressReader<'_, '_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        let count = &mut *self.count;
        let at_end = n == 0 && !buf.is_empty();
        // Every 100 ms, and once at the end, so a reader always hears how it ended.
        if count.last.elapsed() >= EVERY || at_end {
            count.last = Instant::now();
            // Only the end is all of it: a log that grows while it is read goes on
            // past the size it had when the read began.
            let read = if at_end {
                count.total
            } else {
                self.read.min(count.total.saturating_sub(1))
            };
            (count.report)(Reading {
                read,
                total: count.total,
                elapsed: count.started.elapsed(),
            });
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_and_rate() {
        let r = Reading {
            read: 50 << 20,
            total: 200 << 20,
            elapsed: Duration::from_millis(500),
        };
        assert_eq!(r.describe(), "25% · 100 MB/s");
        let empty = Reading {
            read: 0,
            total: 0,
            elapsed: Duration::ZERO,
        };
        assert_eq!(empty.percent(), 100);
    }

    /// A log that grew after its size was taken is read past that size: it is all read
    /// only at its end, not when the bytes read reach the size.
    #[test]
    fn all_of_a_growing_log_is_read_only_at_its_end() {
        let grown = vec![b'x'; 3000];
        let mut seen = Vec::new();
        let mut report = |reading: Reading| seen.push(reading.read);
        let mut count = ProgressCount::new(1000, &mut report);
        // Every read reported: as if each took longer than the interval.
        count.last = Instant::now() - EVERY;
        let mut reader = count.reader(grown.as_slice(), 0);
        let mut buf = [0; 500];
        while reader.read(&mut buf).unwrap() > 0 {
            reader.count.last = Instant::now() - EVERY;
        }
        let (last, before) = seen.split_last().unwrap();
        assert_eq!(*last, 1000, "the end is all of it");
        assert!(!before.is_empty());
        assert!(before.iter().all(|&read| read < 1000), "{before:?}");
    }
}
