//! The instruction files an agent puts back into the context after a compaction: what
//! a summary may drop without a loss (docs/transcripts.md).

use ctxlens_core::model::Session;
use std::path::{Path, PathBuf};

/// Largest instruction file read as a context source.
const MAX_CONTEXT_SOURCE: u64 = 4 << 20;

/// The instruction files Claude Code re-injects after every compaction (docs/transcripts.md):
/// `CLAUDE.md` in the session's cwd and each parent, and `~/.claude/CLAUDE.md`. Only
/// when the cwd exists here, i.e. the session ran on this machine.
pub fn attach_context_sources(session: &mut Session) {
    use sha2::{Digest, Sha256};
    session.context_sources.clear();
    if session.format != ctxlens_core::model::Format::ClaudeCode {
        return;
    }
    let Some(cwd) = session.cwd.clone() else {
        return;
    };
    let cwd = Path::new(&cwd);
    if !cwd.is_absolute() || !cwd.is_dir() {
        return;
    }
    let mut files: Vec<PathBuf> = cwd.ancestors().map(|dir| dir.join("CLAUDE.md")).collect();
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")));
    if let Some(config) = config {
        files.push(config.join("CLAUDE.md"));
    }
    for file in files {
        let Ok(meta) = std::fs::metadata(&file) else {
            continue;
        };
        if !meta.is_file() || meta.len() > MAX_CONTEXT_SOURCE {
            continue;
        }
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let digest = ctxlens_core::parse::text::digest(&[&text], 0, &mut session.tokens);
        session
            .context_sources
            .push(ctxlens_core::model::ContextSource {
                path: file.display().to_string(),
                sha256: Sha256::digest(&bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect(),
                tokens: digest.tokens.into_vec(),
            });
    }
}
