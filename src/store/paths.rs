//! Where a log's sidecar files live.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn with_suffix(log: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(log.as_os_str());
    name.push(suffix);
    PathBuf::from(name)
}

/// `<log>.decisions.jsonl`
pub fn decisions_path(log: &Path) -> PathBuf {
    with_suffix(log, ".decisions.jsonl")
}

/// `<log>.spill/`
pub fn spill_dir(log: &Path) -> PathBuf {
    with_suffix(log, ".spill")
}
