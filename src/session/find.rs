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

/// Where a log first holds the words of a search: its line, and that line's text
/// around them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogHit {
    /// The log.
    pub path: PathBuf,
    /// Its line that holds them first (from 1).
    pub line: u64,
    /// The line around them, on one line and terminal-safe.
    pub excerpt: String,
}

/// Bytes of a log read at a time by the search.
const SEARCH_CHUNK: usize = 1 << 20;

/// Bytes of a line kept before a match in its excerpt, and after it: the match stays
/// near the start, where a narrow list still shows it.
const EXCERPT_BEFORE: usize = 24;
const EXCERPT_AFTER: usize = 80;

/// The first place each of `logs` holds `query`, in any ASCII case, searched on every
/// core, each log streamed a chunk at a time (never whole in memory); logs that do not
/// hold it, or cannot be read, are left out. In the order of `logs`.
pub fn search_logs(logs: &[PathBuf], query: &str) -> Vec<LogHit> {
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    let Ok(searcher) = aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([query])
    else {
        return Vec::new();
    };
    let parts = ctxlens_core::threads::in_parts(logs, ctxlens_core::threads::cores(), 1, |part| {
        part.iter()
            .filter_map(|log| first_hit(log, &searcher, query.len()))
            .collect::<Vec<_>>()
    });
    parts.into_iter().flatten().collect()
}

/// Where `log` first holds what `searcher` finds (`width` bytes long).
fn first_hit(log: &Path, searcher: &aho_corasick::AhoCorasick, width: usize) -> Option<LogHit> {
    use std::io::Read;
    let mut file = crate::ingest::open_log(log).ok()?;
    let mut chunk = vec![0u8; SEARCH_CHUNK];
    // What the last chunk left: its last line, unfinished (a match may run into the
    // next chunk, and its excerpt needs the line's start).
    let mut carried: Vec<u8> = Vec::new();
    let mut lines_before: u64 = 0;
    loop {
        let read = file.read(&mut chunk).ok()?;
        if read == 0 {
            return None;
        }
        carried.extend_from_slice(chunk.get(..read)?);
        if let Some(found) = searcher.find(carried.as_slice()) {
            let start = carried
                .get(..found.start())
                .and_then(|before| memchr::memrchr(b'\n', before))
                .map_or(0, |at| at + 1);
            let line = lines_before
                + memchr::memchr_iter(b'\n', carried.get(..start).unwrap_or_default()).count()
                    as u64
                + 1;
            let end = carried
                .get(found.end()..)
                .and_then(|after| memchr::memchr(b'\n', after))
                .map_or(carried.len(), |at| found.end() + at);
            return Some(LogHit {
                path: log.to_owned(),
                line,
                excerpt: excerpt(&carried, start..end, found.start()..found.end()),
            });
        }
        // Keep the unfinished last line (its start may be needed), but no more than a
        // match's width once it grows long: a line of many megabytes is not held.
        let keep_from = memchr::memrchr(b'\n', &carried).map_or(0, |at| at + 1);
        let keep_from = keep_from.max(carried.len().saturating_sub(SEARCH_CHUNK.max(width)));
        lines_before +=
            memchr::memchr_iter(b'\n', carried.get(..keep_from).unwrap_or_default()).count() as u64;
        carried.drain(..keep_from);
    }
}

/// The part of `line` (bytes `line` of `text`) around the match at `found`, on one line:
/// JSON's escapes of a newline or a tab read as a space, cut at both ends with `…`.
fn excerpt(text: &[u8], line: std::ops::Range<usize>, found: std::ops::Range<usize>) -> String {
    let from = found.start.saturating_sub(EXCERPT_BEFORE).max(line.start);
    let to = (found.end + EXCERPT_AFTER).min(line.end);
    let part = String::from_utf8_lossy(text.get(from..to).unwrap_or_default())
        .replace("\\n", " ")
        .replace("\\t", " ");
    let folded = part.split_whitespace().collect::<Vec<_>>().join(" ");
    let head = if from > line.start { "…" } else { "" };
    let tail = if to < line.end { "…" } else { "" };
    crate::sanitize::line(&format!("{head}{folded}{tail}")).into_owned()
}

#[cfg(test)]
mod search_tests {
    use super::*;

    #[test]
    fn the_first_line_that_holds_the_words_in_any_case_and_its_excerpt() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let log = dir.path().join("a.jsonl");
        let text =
            "{\"n\":1}\n{\"text\":\"set up the CloudFront distribution\\nthen wait\"}\n{\"n\":3}\n";
        std::fs::write(&log, text).unwrap_or_else(|e| panic!("{e}"));
        let other = dir.path().join("b.jsonl");
        std::fs::write(&other, "{\"n\":1}\n").unwrap_or_else(|e| panic!("{e}"));
        let hits = search_logs(&[other, log.clone()], "cloudfront");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].path, log);
        assert_eq!(hits[0].line, 2);
        assert_eq!(
            hits[0].excerpt,
            "{\"text\":\"set up the CloudFront distribution then wait\"}"
        );
    }

    #[test]
    fn a_match_across_two_chunks_is_found_on_its_line() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let log = dir.path().join("a.jsonl");
        let mut text = String::new();
        let line = format!("{{\"pad\":\"{}\"}}\n", "x".repeat(1000));
        while text.len() + line.len() < SEARCH_CHUNK - 3 {
            text.push_str(&line);
        }
        let lines = text.lines().count() as u64;
        text.push_str("{\"t\":\"needle here\"}\n");
        std::fs::write(&log, &text).unwrap_or_else(|e| panic!("{e}"));
        let hits = search_logs(std::slice::from_ref(&log), "NEEDLE");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].line, lines + 1);
        assert!(
            hits[0].excerpt.contains("needle here"),
            "{}",
            hits[0].excerpt
        );
    }
}
