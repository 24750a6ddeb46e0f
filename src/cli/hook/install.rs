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

/// A JSON document read only to refuse duplicate keys: a settings file with two
/// `"hooks"` would lose one of them on rewrite.
struct NoDuplicateKeys;

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = NoDuplicateKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(serde::de::Error::custom(format!("duplicate key \"{key}\"")));
                    }
                    map.next_value::<NoDuplicateKeys>()?;
                }
                Ok(NoDuplicateKeys)
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> Result<Self::Value, S::Error> {
                while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
                Ok(NoDuplicateKeys)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(NoDuplicateKeys)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(NoDuplicateKeys)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(NoDuplicateKeys)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(NoDuplicateKeys)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(NoDuplicateKeys)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(NoDuplicateKeys)
            }
        }
        d.deserialize_any(Visit)
    }
}

/// `path` as one shell word: agents run hook commands through a shell.
fn shell_word(path: &str) -> String {
    let plain = path
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b));
    if plain && !path.is_empty() {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// What `install` changed: the lines added, and a diff of the file.
#[derive(Debug, Default)]
pub struct Installed {
    pub added: Vec<String>,
    pub diff: String,
}

/// Merges `agent`'s ctxlens hooks into the configuration at `path`, keeping every other
/// setting as it was (key order, numbers, mode; a link is edited through); what was
/// added. With `hold`, the pre-compact hook waits that many seconds for an operator,
/// and its hook timeout is longer, so the agent never kills it while it waits.
pub fn install(
    agent: Agent,
    path: &Path,
    program: &str,
    hold: Option<f64>,
) -> Result<Installed, String> {
    let before = match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut settings: Value = match &before {
        Some(bytes) => {
            serde_json::from_slice::<NoDuplicateKeys>(bytes)
                .map_err(|e| format!("{}: {e}; not touched", path.display()))?;
            serde_json::from_slice(bytes)
                .map_err(|e| format!("{}: not valid JSON ({e}); not touched", path.display()))?
        }
        None => json!({}),
    };
    let program = shell_word(program);
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
    if added.is_empty() {
        return Ok(Installed::default());
    }
    let mut text = serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())?;
    text.push('\n');
    atomic::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    let old = before
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let diff = similar::TextDiff::from_lines(&old, &text)
        .unified_diff()
        .header("before", "after")
        .to_string();
    Ok(Installed { added, diff })
}
