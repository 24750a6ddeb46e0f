//! The binding ledger of a Claude Code transcript (`<transcript>.ctxlens-ledger.jsonl`):
//! before each compaction, the identifiers the work depends on and the spill handle of
//! the region; after it, what the summary dropped of them.

use super::atomic;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

pub(crate) fn ledger_path(transcript: &Path) -> PathBuf {
    let mut name = OsString::from(transcript.as_os_str());
    name.push(".ctxlens-ledger.jsonl");
    PathBuf::from(name)
}

/// A token the work depends on, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct LedgerToken {
    pub token: String,
    pub class: String,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub(crate) enum Entry {
    PreCompact {
        /// `pre-compact-<n>`: the id a decision for this compaction is recorded under.
        id: String,
        ts: String,
        trigger: Option<String>,
        handle: Option<String>,
        /// Byte range of the transcript that was spilled.
        from_byte: u64,
        to_byte: u64,
        tokens: Vec<LedgerToken>,
        /// With `--hold`: until when the hook waits for an operator (RFC 3339). While it
        /// waits, the compaction shows as pending wherever the transcript is open.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hold_until: Option<String>,
    },
    PostCompact {
        id: String,
        ts: String,
        /// Ledger tokens the new summary does not hold.
        dropped: Vec<LedgerToken>,
    },
    /// A held compaction's hook stopped waiting: it answered the agent, or timed out.
    Released {
        id: String,
        ts: String,
        /// The decision it answered with; none on a timeout.
        verdict: Option<ctxlens_core::model::Verdict>,
        /// Why it answered none: the timeout, and what failed while it waited (a
        /// decision store that could not be read).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
}

pub(crate) fn read(transcript: &Path) -> io::Result<Vec<Entry>> {
    Ok(atomic::read_private(&ledger_path(transcript))?
        .map(|bytes| {
            bytes
                .split(|&b| b == b'\n')
                .filter_map(|line| serde_json::from_slice(line).ok())
                .collect()
        })
        .unwrap_or_default())
}

/// Appends the pre-compaction entry `make` builds from its number (1 for the first),
/// counting and writing under one lock: two hooks at once never share an id.
pub(crate) fn append_pre_compact(
    transcript: &Path,
    make: impl FnOnce(usize) -> Entry,
) -> io::Result<Entry> {
    use std::io::{Read, Seek, SeekFrom};
    atomic::with_lock(&ledger_path(transcript), |file| {
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0))?;
        file.read_to_end(&mut bytes)?;
        let earlier = bytes
            .split(|&b| b == b'\n')
            .filter_map(|line| serde_json::from_slice::<Entry>(line).ok())
            .filter(|e| matches!(e, Entry::PreCompact { .. }))
            .count();
        let entry = make(earlier + 1);
        let line = serde_json::to_vec(&entry).map_err(io::Error::other)?;
        atomic::append_locked(file, &line)?;
        Ok(entry)
    })
}

pub(crate) fn append(transcript: &Path, entry: &Entry) -> io::Result<()> {
    let line = serde_json::to_vec(entry).map_err(io::Error::other)?;
    atomic::append_line(&ledger_path(transcript), &line)
}

/// The newest pre-compaction entry.
pub(crate) fn latest_pre_compact(entries: &[Entry]) -> Option<&Entry> {
    entries
        .iter()
        .rev()
        .find(|e| matches!(e, Entry::PreCompact { .. }))
}
