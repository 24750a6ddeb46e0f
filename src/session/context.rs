//! The instruction and memory files an agent puts back into the context after a
//! compaction: what a summary may drop without a loss (docs/transcripts.md).

use ctxlens_core::model::{Format, Session};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest instruction file read as a context source.
const MAX_CONTEXT_SOURCE: u64 = 4 << 20;

/// Most files read from one folder of rules or memories.
const MOST_FILES_IN_A_FOLDER: usize = 64;

/// Reads the files the agent of `session` re-injects after every compaction, when they
/// are on this machine (docs/transcripts.md, "context sources"):
/// - Claude Code: `CLAUDE.md`, `CLAUDE.local.md` and `.claude/CLAUDE.md` in the cwd and
///   each folder above it, the rules in `.claude/rules/`, the user's `CLAUDE.md` and
///   rules, and the memory folder beside the transcript (`memory/*.md`);
/// - Codex: `AGENTS.md` and `AGENTS.override.md` in the cwd and each folder above it,
///   and `$CODEX_HOME/AGENTS.md`.
///
/// Files are read as they are now, not as they were when the session ran.
pub(super) fn attach_context_sources(session: &mut Session, log: &Path) {
    session.context_sources.clear();
    let files = match session.format {
        Format::ClaudeCode => claude_code_files(session.cwd.as_deref(), log),
        Format::Codex => codex_files(session.cwd.as_deref()),
        _ => Vec::new(),
    };
    for file in files {
        if let Some(bytes) = read_small_file(&file) {
            attach(session, &file, &bytes);
        }
    }
}

fn claude_code_files(cwd: Option<&str>, log: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(cwd) = existing_cwd(cwd) {
        for dir in cwd.ancestors() {
            files.push(dir.join("CLAUDE.md"));
            files.push(dir.join("CLAUDE.local.md"));
            files.push(dir.join(".claude").join("CLAUDE.md"));
        }
        files.extend(markdown_in(&cwd.join(".claude").join("rules")));
    }
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".claude")));
    if let Some(config) = config {
        files.push(config.join("CLAUDE.md"));
        files.extend(markdown_in(&config.join("rules")));
    }
    if let Some(beside) = log.parent() {
        files.extend(markdown_in(&beside.join("memory")));
    }
    files
}

fn codex_files(cwd: Option<&str>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(cwd) = existing_cwd(cwd) {
        for dir in cwd.ancestors() {
            files.push(dir.join("AGENTS.md"));
            files.push(dir.join("AGENTS.override.md"));
        }
    }
    let codex_home = std::env::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".codex")));
    if let Some(codex_home) = codex_home {
        files.push(codex_home.join("AGENTS.md"));
    }
    files
}

/// The session's cwd, when it is a folder here (the session ran on this machine).
fn existing_cwd(cwd: Option<&str>) -> Option<&Path> {
    let cwd = Path::new(cwd?);
    (cwd.is_absolute() && cwd.is_dir()).then_some(cwd)
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// The `.md` files of a folder, in name order, at most [`MOST_FILES_IN_A_FOLDER`].
fn markdown_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    files.sort();
    files.truncate(MOST_FILES_IN_A_FOLDER);
    files
}

/// A regular file's bytes, when it is at most [`MAX_CONTEXT_SOURCE`] long. Opened as
/// logs are (never blocking on a pipe).
fn read_small_file(path: &Path) -> Option<Vec<u8>> {
    let file = crate::ingest::open_log(path).ok()?;
    if file.metadata().ok()?.len() > MAX_CONTEXT_SOURCE {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONTEXT_SOURCE).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

fn attach(session: &mut Session, file: &Path, bytes: &[u8]) {
    use sha2::{Digest, Sha256};
    let text = String::from_utf8_lossy(bytes);
    let digest = ctxlens_core::parse::digest(&[&text], 0, &mut session.tokens);
    session
        .context_sources
        .push(ctxlens_core::model::ContextSource {
            path: file.display().to_string(),
            sha256: Sha256::digest(bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
            tokens: digest.tokens.into_vec(),
        });
}
