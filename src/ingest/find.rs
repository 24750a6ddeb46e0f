//! Finding session logs in a folder: what the folder list shows and `ship` publishes.

use std::path::{Path, PathBuf};

/// Session logs under `root` (`*.jsonl`, not sidecars or ledgers), at most four folders
/// deep.
pub fn find_logs(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && depth < 4 && !name.ends_with(".spill") && !name.starts_with('.') {
                walk(&path, depth + 1, out);
            } else if kind.is_file()
                && name.ends_with(".jsonl")
                && !name.ends_with(".decisions.jsonl")
                && !name.ends_with(".ctxlens-ledger.jsonl")
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, 0, &mut out);
    out
}
