//! The decision channel (docs/store.md): `<log>.decisions.jsonl`, appended under an advisory
//! lock, first decision stands, durable before success is reported.

use super::atomic;
use super::paths::decisions_path;
use ctxlens_core::model::Decision;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// The sidecar's decisions in file order, and the lines that could not be read.
#[derive(Debug, Default)]
pub struct Sidecar {
    pub decisions: Vec<Decision>,
    /// 1-based numbers of lines that are not decisions (torn or foreign writes).
    pub unreadable: Vec<u64>,
}

pub fn parse_sidecar(bytes: &[u8]) -> Sidecar {
    let mut sidecar = Sidecar::default();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Decision>(line) {
            Ok(decision) => sidecar.decisions.push(decision),
            Err(_) => sidecar.unreadable.push(index as u64 + 1),
        }
    }
    sidecar
}

/// Reads the sidecar of `log`; a missing sidecar holds no decisions.
pub fn read(log: &Path) -> io::Result<Sidecar> {
    Ok(atomic::read_private(&decisions_path(log))?
        .map(|bytes| parse_sidecar(&bytes))
        .unwrap_or_default())
}

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
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0))?;
        file.read_to_end(&mut bytes)?;
        let standing = parse_sidecar(&bytes)
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
