//! `ctxlens hook claude-code|codex install`: merges ctxlens's hooks into the agent's
//! hook configuration, keeping every other setting and hook, with hook timeouts that
//! outlast a held compaction.

use crate::store::atomic;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Codex,
}

impl Agent {
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
        }
    }

    /// The hooks ctxlens installs: (event, matcher, subcommand).
    fn hooks(self) -> &'static [(&'static str, &'static str, &'static str)] {
        match self {
            Agent::ClaudeCode => &[
                ("PreCompact", "", "pre-compact"),
                ("SessionStart", "compact", "session-start"),
                ("PostCompact", "", "post-compact"),
            ],
            Agent::Codex => &[
                ("PreCompact", "", "pre-compact"),
                ("PostCompact", "", "post-compact"),
            ],
        }
    }
}

/// Seconds a hook that does not hold gets; a holding hook gets its wait plus this.
const HOOK_SECS: u64 = 30;

/// Where Claude Code's hooks go: the project's `.claude/settings.json`, or the user's.
pub fn settings_path(project: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(dir) = project {
        return Ok(dir.join(".claude").join("settings.json"));
    }
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")))
        .ok_or("neither CLAUDE_CONFIG_DIR nor HOME is set")?;
    Ok(config.join("settings.json"))
}

/// Where Codex's hooks go: the project's `.codex/hooks.json`, or `$CODEX_HOME/hooks.json`
/// (`~/.codex` by default).
pub fn codex_hooks_path(project: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(dir) = project {
        return Ok(dir.join(".codex").join("hooks.json"));
    }
    let home = std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".codex")))
        .ok_or("neither CODEX_HOME nor HOME is set")?;
    Ok(home.join("hooks.json"))
}

/// Merges `agent`'s ctxlens hooks into the configuration at `path`; what was added.
/// With `hold`, the pre-compact hook waits that many seconds for an operator, and its
/// hook timeout is longer, so the agent never kills it while it waits.
pub fn install(
    agent: Agent,
    path: &Path,
    program: &str,
    hold: Option<f64>,
) -> Result<Vec<String>, String> {
    let mut settings: Value = match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: not valid JSON ({e}); not touched", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let Some(root) = settings.as_object_mut() else {
        return Err(format!(
            "{}: not a JSON object; not touched",
            path.display()
        ));
    };
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(format!(
            "{}: \"hooks\" is not an object; not touched",
            path.display()
        ));
    };
    let mut added = Vec::new();
    for (event, matcher, sub) in agent.hooks() {
        let (command, timeout) = match hold {
            Some(secs) if *sub == "pre-compact" => (
                format!(
                    "{program} hook {} {sub} --hold --timeout {}",
                    agent.as_str(),
                    secs.ceil()
                ),
                secs.ceil() as u64 + HOOK_SECS,
            ),
            _ => (
                format!("{program} hook {} {sub}", agent.as_str()),
                HOOK_SECS,
            ),
        };
        let list = hooks.entry(*event).or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            return Err(format!(
                "{}: hooks.{event} is not a list; not touched",
                path.display()
            ));
        };
        // An earlier ctxlens hook for this event is replaced: a new binary path or hold
        // must not leave the old one running too.
        let marker = format!("hook {} {sub}", agent.as_str());
        let ours = |h: &Value| h["command"].as_str().is_some_and(|c| c.contains(&marker));
        let same = list.iter().any(|group| {
            group["hooks"].as_array().is_some_and(|hs| {
                hs.iter()
                    .any(|h| ours(h) && h["command"] == command && h["timeout"] == timeout)
            })
        });
        if same {
            continue;
        }
        for group in list.iter_mut() {
            if let Some(hs) = group["hooks"].as_array_mut() {
                hs.retain(|h| !ours(h));
            }
        }
        list.retain(|group| group["hooks"].as_array().is_none_or(|hs| !hs.is_empty()));
        list.push(json!({"matcher": matcher, "hooks": [
            {"type": "command", "command": command, "timeout": timeout}
        ]}));
        added.push(format!("{event}: {command} (timeout {timeout} s)"));
    }
    let mut text = serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())?;
    text.push('\n');
    atomic::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(added)
}
