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

/// The session a Claude Code subagent's transcript belongs to: `DIR/SESSION.jsonl` for
/// `DIR/SESSION/subagents/agent-*.jsonl`.
pub fn subagent_parent(log: &Path) -> Option<PathBuf> {
    let name = log.file_name()?.to_str()?;
    if !(name.starts_with("agent-") && name.ends_with(".jsonl")) {
        return None;
    }
    let subagents = log.parent()?;
    if subagents.file_name()? != "subagents" {
        return None;
    }
    let session = subagents.parent()?;
    let mut parent = session.as_os_str().to_owned();
    parent.push(".jsonl");
    Some(PathBuf::from(parent))
}

/// The subagents' transcripts of the session `log`, by name; not Claude Code's own
/// `agent-acompact-*`, the summariser's conversation while it compacts.
pub fn subagents_of(log: &Path) -> Vec<PathBuf> {
    let Some(stem) = log
        .to_str()
        .and_then(|l| l.strip_suffix(".jsonl"))
        .map(Path::new)
    else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(stem.join("subagents")) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| subagent_parent(p).is_some() && p.is_file())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("agent-acompact-"))
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subagent_names_its_session() {
        let parent = subagent_parent(Path::new("/p/proj/abc/subagents/agent-1f.jsonl"));
        assert_eq!(parent, Some(PathBuf::from("/p/proj/abc.jsonl")));
        for not in [
            "/p/proj/abc.jsonl",
            "/p/proj/abc/subagents/notes.jsonl",
            "/p/proj/abc/other/agent-1.jsonl",
        ] {
            assert_eq!(subagent_parent(Path::new(not)), None, "{not}");
        }
    }
}
