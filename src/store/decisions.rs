//! The decision channel (docs/store.md): `<log>.decisions.jsonl`, appended under an advisory
//! lock, first decision stands, durable before success is reported.

use super::atomic;
use super::paths::decisions_path;
use ctxlens_core::model::Decision;
use std::io::{self, Seek, SeekFrom};
use std::path::Path;

/// The sidecar's decisions in file order, and the lines that could not be read.
#[derive(Debug, Default)]
pub struct Sidecar {
    /// The decisions, in the order recorded.
    pub decisions: Vec<Decision>,
    /// 1-based numbers of lines that are not decisions (torn or foreign writes).
    pub unreadable: Vec<u64>,
}

/// The longest sidecar line read: a decision, even with a long contract, is far
/// shorter. A longer line is skipped unread and reported, as an oversized log line is.
pub const MAX_DECISION_LINE: usize = 16 << 20;

/// The decisions of a sidecar's bytes; a line that is not one is counted as unreadable.
pub fn parse_sidecar(bytes: &[u8]) -> Sidecar {
    parse_sidecar_with_max_line(bytes, MAX_DECISION_LINE)
}

/// [`parse_sidecar`] with another line cap: the fuzz target and the property test reach
/// the cap with short inputs.
pub fn parse_sidecar_with_max_line(bytes: &[u8], max_line: usize) -> Sidecar {
    // Reading from memory cannot fail.
    read_sidecar(bytes, max_line).unwrap_or_default()
}

/// The decisions of a sidecar read line by line: a line longer than `max_line` is never
/// held whole, only counted as unreadable.
fn read_sidecar(reader: impl io::Read, max_line: usize) -> io::Result<Sidecar> {
    let mut sidecar = Sidecar::default();
    let mut lines =
        crate::ingest::lines::LineReader::new(io::BufReader::new(reader)).with_max_line(max_line);
    while let Some(line) = lines.next_line()? {
        if line.oversized {
            sidecar.unreadable.push(line.number);
            continue;
        }
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Decision>(line.bytes) {
            Ok(decision) => sidecar.decisions.push(decision),
            Err(_) => sidecar.unreadable.push(line.number),
        }
    }
    Ok(sidecar)
}

/// Reads the sidecar of `log`; a missing sidecar holds no decisions.
pub fn read(log: &Path) -> io::Result<Sidecar> {
    match super::private::open_read(&decisions_path(log)) {
        Ok(file) => read_sidecar(file, MAX_DECISION_LINE),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Sidecar::default()),
        Err(e) => Err(e),
    }
}

/// What recording a decision did.
#[derive(Debug)]
pub enum Recorded {
    /// The decision is on disk.
    Written,
    /// A decision already stood; nothing was written.
    AlreadyDecided(Decision),
}

/// Appends `decision` unless one already stands for its compaction in the sidecar. (A
/// `decision` event in the log stands too: the caller checks the log first.) The check
/// and the write happen under one lock, so the first decision stands.
pub fn record(log: &Path, decision: &Decision) -> io::Result<Recorded> {
    atomic::with_lock(&decisions_path(log), |file| {
        file.seek(SeekFrom::Start(0))?;
        let standing = read_sidecar(&mut *file, MAX_DECISION_LINE)?
            .decisions
            .into_iter()
            .find(|d| d.compaction == decision.compaction);
        if let Some(standing) = standing {
            return Ok(Recorded::AlreadyDecided(standing));
        }
        let line = serde_json::to_vec(decision).map_err(io::Error::other)?;
        atomic::append_locked(file, &line)?;
        Ok(Recorded::Written)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxlens_core::model::Verdict;

    fn decision(id: &str, verdict: Verdict) -> Decision {
        Decision {
            compaction: id.into(),
            verdict,
            by: Some("test".into()),
            ts: None,
            handle: None,
            reason: None,
            is_override: Some(false),
            contract: None,
        }
    }

    #[test]
    fn a_line_over_the_cap_is_reported_unread_and_the_next_one_read() {
        let mut bytes = vec![b'x'; MAX_DECISION_LINE + 10];
        bytes.push(b'\n');
        bytes.extend_from_slice(br#"{"compaction":"k1","verdict":"spill"}"#);
        bytes.push(b'\n');
        let sidecar = parse_sidecar(&bytes);
        assert_eq!(sidecar.unreadable, vec![1]);
        assert_eq!(sidecar.decisions.len(), 1);
        assert_eq!(sidecar.decisions[0].compaction, "k1");
        // A line just under the cap is read whole (here: not a decision).
        let mut bytes = vec![b' '; MAX_DECISION_LINE - 2];
        bytes.extend_from_slice(b"x\n");
        assert_eq!(parse_sidecar(&bytes).unreadable, vec![1]);
    }

    #[test]
    fn first_decision_stands_and_torn_lines_are_isolated() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        std::fs::write(decisions_path(&log), b"{\"compaction\":\"k9\",\"verd").unwrap();
        let first = record(&log, &decision("k1", Verdict::Spill)).unwrap();
        assert!(matches!(first, Recorded::Written));
        match record(&log, &decision("k1", Verdict::Approve)).unwrap() {
            Recorded::AlreadyDecided(d) => assert_eq!(d.verdict, Verdict::Spill),
            other => panic!("expected the standing decision, got {other:?}"),
        }
        let sidecar = read(&log).unwrap();
        assert_eq!(sidecar.decisions.len(), 1);
        assert_eq!(sidecar.unreadable, vec![1]);
    }
}
