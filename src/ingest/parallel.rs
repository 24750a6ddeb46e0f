//! Reading a canonical log on every core: records are parsed in batches on worker
//! threads (JSON, token extraction, word counts: most of the cost) and joined to the
//! session in the log's order on one thread, which settles what depends on the lines
//! before (seq order, token ids). The session is the one a line-by-line read builds.

use super::lines::{Line, LineReader};
use ctxlens_core::parse::{CanonicalParser, ParsedBatch};
use ctxlens_core::threads::{InOrder, Jobs};
use std::io::{self, BufRead};
use std::sync::mpsc::{sync_channel, Receiver};

/// Bytes of lines per batch: large enough that a batch costs far more to parse than to
/// hand over, small enough that the batches in flight stay a few MiB.
const BATCH_BYTES: usize = 256 << 10;
/// Lines per batch at most: a parsed line takes far more room than a short line's
/// bytes, so a batch of tiny lines is cut by count before it is by size.
const BATCH_LINES: usize = 2048;
/// Batches dealt and not yet joined, per worker: what bounds the memory in flight.
const IN_FLIGHT_PER_WORKER: usize = 5;
/// More workers than this wait on the one thread that joins the records.
const MAX_WORKERS: usize = 4;

/// Lines copied out of the reader's buffer, with where each one was.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    lines: Vec<LineAt>,
}

struct LineAt {
    number: u64,
    offset: u64,
    span: u64,
    terminated: bool,
    oversized: bool,
    end: usize,
}

impl Batch {
    fn push(&mut self, line: &Line) {
        self.bytes.extend_from_slice(line.bytes);
        self.lines.push(LineAt {
            number: line.number,
            offset: line.offset,
            span: line.span,
            terminated: line.terminated,
            oversized: line.oversized,
            end: self.bytes.len(),
        });
    }

    fn parse(&self) -> ParsedBatch {
        let mut start = 0;
        let mut parsed = ParsedBatch::with_room(self.lines.len(), self.bytes.len());
        for at in &self.lines {
            let line = Line {
                number: at.number,
                offset: at.offset,
                bytes: self.bytes.get(start..at.end).unwrap_or_default(),
                span: at.span,
                terminated: at.terminated,
                oversized: at.oversized,
            };
            parsed.parse_line(&line);
            start = at.end;
        }
        parsed
    }
}

/// Reads the rest of `lines` into `parser`, on as many threads as there are cores (up
/// to [`MAX_WORKERS`]); line by line on a single core.
pub(super) fn parse_rest<R: BufRead>(
    lines: &mut LineReader<R>,
    parser: &mut CanonicalParser,
) -> io::Result<()> {
    let workers = ctxlens_core::threads::cores().min(MAX_WORKERS);
    parse_rest_with(lines, parser, workers, BATCH_BYTES)
}

fn parse_rest_with<R: BufRead>(
    lines: &mut LineReader<R>,
    parser: &mut CanonicalParser,
    workers: usize,
    batch_bytes: usize,
) -> io::Result<()> {
    if workers < 2 {
        while let Some(line) = lines.next_line()? {
            parser.feed(&line);
        }
        return Ok(());
    }
    let parse = |batch: Batch| batch.parse();
    std::thread::scope(|scope| {
        // Batches go to whichever worker is free (a batch dealt to a worker that was
        // descheduled left the other idle at the end of the log), and the joining
        // thread takes them in the log's order.
        let (mut to_workers, parsed) = InOrder::start(scope, workers, &parse).split();
        // A batch may be dealt only when one is joined: what bounds the batches in
        // flight, waiting for a worker, parsed or waiting for one before them.
        let in_flight = workers * IN_FLIGHT_PER_WORKER;
        let (joined, may_deal) = sync_channel::<()>(in_flight);
        for _ in 0..in_flight {
            let _ = joined.send(());
        }
        let joiner = scope.spawn(move || {
            for parsed in parsed {
                parser.accept(parsed);
                let _ = joined.send(());
            }
        });
        let read = read_batches(lines, &mut to_workers, &may_deal, batch_bytes);
        // The workers end once their queue is gone and empty, and the joiner after
        // them.
        drop(to_workers);
        if let Err(panic) = joiner.join() {
            std::panic::resume_unwind(panic);
        }
        read
    })
}

/// Reads lines into batches and deals them, in order, to the workers.
fn read_batches<R: BufRead>(
    lines: &mut LineReader<R>,
    workers: &mut Jobs<Batch>,
    may_deal: &Receiver<()>,
    batch_bytes: usize,
) -> io::Result<()> {
    // Room for a batch's lines and the line that ends it, so that filling one does not
    // copy it again as it grows.
    let empty = || Batch {
        bytes: Vec::with_capacity(batch_bytes.saturating_mul(2)),
        lines: Vec::new(),
    };
    let mut batch = empty();
    let mut deal = |batch: Batch| -> io::Result<()> {
        (may_deal.recv().is_ok() && workers.hand_out(batch))
            .then_some(())
            .ok_or_else(|| io::Error::other("a parsing thread stopped"))
    };
    while let Some(line) = lines.next_line()? {
        // A line that fills a batch alone (a long summary, a large tool result) goes
        // on its own: the lines before it are parsed on another thread meanwhile, not
        // after it on the same one (the last line of a log, a pending compaction's
        // summary, left one core idle while the other parsed both).
        if line.bytes.len() >= batch_bytes && !batch.lines.is_empty() {
            deal(std::mem::replace(&mut batch, empty()))?;
        }
        batch.push(&line);
        if batch.bytes.len() >= batch_bytes || batch.lines.len() >= BATCH_LINES {
            deal(std::mem::replace(&mut batch, empty()))?;
        }
    }
    if !batch.lines.is_empty() {
        deal(batch)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;

    /// The samples and a log with every kind of bad line, read line by line and in
    /// batches of every few lines on several threads: the same session.
    #[test]
    fn batches_on_several_threads_read_what_one_line_at_a_time_reads() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-sessions");
        let mut logs: Vec<Vec<u8>> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
            .map(|path| std::fs::read(path).unwrap())
            .collect();
        logs.push(
            concat!(
                "{\"seq\":1,\"type\":\"session\",\"cwd\":\"/w\"}\n",
                "not json\n",
                "\n",
                "[1,2]\n",
                "{\"seq\":2}\n",
                "{\"seq\":\"x\",\"type\":\"message\"}\n",
                "{\"seq\":3,\"type\":\"binding\",\"token\":\"r-77aa\"}\n",
                "{\"seq\":3,\"type\":\"message\",\"text\":\"dup seq snap-0a1b2c3d\"}\n",
                "{\"seq\":4,\"type\":\"compaction\",\"id\":\"c\",\"phase\":\"bogus\",\"summary\":\"snap-0a1b2c3d\"}\n",
                "{\"seq\":5,\"type\":\"message\",\"text\":\"deploy r-77aa then snap-0a1b2c3d\"}\n",
                "{\"seq\":6,\"type\":\"tool_result\",\"text\":\"/srv/app/a.yaml r-77aa",
            )
            .as_bytes()
            .to_vec(),
        );
        for log in &logs {
            let serial = {
                let mut parser = CanonicalParser::new();
                let mut lines = LineReader::new(log.as_slice());
                parse_rest_with(&mut lines, &mut parser, 1, 0).unwrap();
                parser.finish()
            };
            for (workers, batch_bytes) in [(2, 1), (3, 200), (4, 4096)] {
                let mut parser = CanonicalParser::new();
                let mut lines = LineReader::new(log.as_slice());
                parse_rest_with(&mut lines, &mut parser, workers, batch_bytes).unwrap();
                let parallel = parser.finish();
                assert_eq!(format!("{parallel:?}"), format!("{serial:?}"));
                assert!(!serial.events.is_empty());
            }
        }
    }
}
