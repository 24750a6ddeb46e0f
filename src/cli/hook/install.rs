//! `ctxlens hook claude-code|codex install`: merges ctxlens's hooks into the agent's
//! hook configuration, keeping every other setting and hook, with hook timeouts that
//! outlast a held compaction.

use crate::store::atomic;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agent {
    ClaudeCode,
    Codex,
    QwenCode,
    CopilotCli,
    OpenCode,
}

impl Agent {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::QwenCode => "qwen-code",
            Agent::CopilotCli => "copilot-cli",
            Agent::OpenCode => "opencode",
        }
    }

    /// The agent's name, as a person knows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::QwenCode => "Qwen Code",
            Agent::CopilotCli => "Copilot CLI",
            Agent::OpenCode => "OpenCode",
        }
    }

    /// The events ctxlens hooks into.
    pub(crate) fn events(self) -> Vec<&'static str> {
        self.hooks().iter().map(|&(event, ..)| event).collect()
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
                ("SessionStart", "compact", "session-start"),
                ("PostCompact", "", "post-compact"),
            ],
            // Qwen Code starts no session after a compression: what a SessionStart
            // would put back goes to the summariser from PreCompact instead.
            Agent::QwenCode => &[
                ("PreCompact", "", "pre-compact"),
                ("PostCompact", "", "post-compact"),
            ],
            // Copilot CLI's preCompact cannot block and it has no post-compaction
            // hook: the hook observes (it spills and records), never holds.
            Agent::CopilotCli => &[("preCompact", "", "pre-compact")],
            // OpenCode's plugin handler, which runs the hook (`opencode::plugin`).
            Agent::OpenCode => &[("experimental.session.compacting", "", "pre-compact")],
        }
    }
}

/// Why an agent's hook configuration was not changed. In every case nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("neither {config} nor HOME is set")]
    NoHome { config: &'static str },
    #[error("--timeout {0}: give the seconds to hold, from 1 to {MAX_HOLD_SECS}")]
    BadTimeout(f64),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: a link to a file that does not exist; not touched", path.display())]
    DanglingLink { path: PathBuf },
    #[error("{}: not valid JSON ({source}); not touched", path.display())]
    NotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: {what}; not touched", path.display())]
    Unexpected { path: PathBuf, what: String },
}

pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Seconds a hook that does not hold gets; a holding hook gets its wait plus this.
const HOOK_SECS: u64 = 30;

/// Where Claude Code's hooks go: the project's `.claude/settings.json`, or the user's.
pub(crate) fn settings_path(project: Option<&Path>) -> Result<PathBuf, InstallError> {
    if let Some(dir) = project {
        return Ok(dir.join(".claude").join("settings.json"));
    }
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")))
        .ok_or(InstallError::NoHome {
            config: "CLAUDE_CONFIG_DIR",
        })?;
    Ok(config.join("settings.json"))
}

/// Where Codex's hooks go: the project's `.codex/hooks.json`, or `$CODEX_HOME/hooks.json`
/// (`~/.codex` by default).
pub(crate) fn codex_hooks_path(project: Option<&Path>) -> Result<PathBuf, InstallError> {
    if let Some(dir) = project {
        return Ok(dir.join(".codex").join("hooks.json"));
    }
    let home = codex_home().ok_or(InstallError::NoHome {
        config: "CODEX_HOME",
    })?;
    Ok(home.join("hooks.json"))
}

/// Where Qwen Code's hooks go: the project's `.qwen/settings.json`, or
/// `$QWEN_HOME/settings.json` (`~/.qwen` by default).
pub(super) fn qwen_settings_path(project: Option<&Path>) -> Result<PathBuf, InstallError> {
    if let Some(dir) = project {
        return Ok(dir.join(".qwen").join("settings.json"));
    }
    Ok(env_or_home("QWEN_HOME", ".qwen")?.join("settings.json"))
}

/// The folder `$var` names, or `default` under the home folder.
pub(super) fn env_or_home(var: &'static str, default: &str) -> Result<PathBuf, InstallError> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(default)))
        .ok_or(InstallError::NoHome { config: var })
}

/// Codex's own folder: `$CODEX_HOME`, or `~/.codex`.
pub(super) fn codex_home() -> Option<PathBuf> {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".codex")))
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
pub(super) fn shell_word(path: &str) -> String {
    let plain = path
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b));
    if plain && !path.is_empty() {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// The longest hold `install` writes: a day. Agents kill a hook that outlives its own
/// timeout, so a longer one would only hide a mistake.
pub(super) const MAX_HOLD_SECS: f64 = 86_400.0;

/// A `--timeout` for a held hook: a whole number of seconds from 1 to a day.
pub(super) fn hold_secs(secs: f64) -> Result<u64, InstallError> {
    if !secs.is_finite() || secs <= 0.0 || secs > MAX_HOLD_SECS {
        return Err(InstallError::BadTimeout(secs));
    }
    Ok(secs.ceil() as u64)
}

/// Whether `command` is a hook command ctxlens writes for `agent`'s `sub`: a ctxlens
/// binary (any path), then exactly `hook AGENT SUB`, and for the pre-compact hook
/// optionally `--hold --timeout N`. A user's own hook that merely mentions it is not.
fn is_ours(agent: Agent, sub: &str, command: &str) -> bool {
    let (program, rest) = match command.strip_prefix('\'') {
        Some(quoted) => match quoted.split_once("' ") {
            Some((program, rest)) => (program, rest),
            None => return false,
        },
        None => match command.split_once(' ') {
            Some(split) => split,
            None => return false,
        },
    };
    let named_ctxlens = Path::new(program)
        .file_name()
        .is_some_and(|name| name == "ctxlens");
    let Some(args) = rest.strip_prefix(&format!("hook {} {sub}", agent.as_str())) else {
        return false;
    };
    let held = args
        .strip_prefix(" --hold --timeout ")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    named_ctxlens && (args.is_empty() || (sub == "pre-compact" && held))
}

/// Whether `command` is any of the hook commands ctxlens writes for `agent`.
pub(super) fn is_ctxlens_command(agent: Agent, command: &str) -> bool {
    agent
        .hooks()
        .iter()
        .any(|&(_, _, sub)| is_ours(agent, sub, command))
}

/// How a JSON file is laid out, so a rewrite keeps it: indent, line ends, last newline.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    indent: String,
    crlf: bool,
    final_newline: bool,
}

impl Layout {
    fn of(text: &str) -> Layout {
        let indent = text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .find_map(|l| {
                let trimmed = l.trim_start_matches([' ', '\t']);
                (trimmed.len() < l.len() && !trimmed.is_empty())
                    .then(|| l[..l.len() - trimmed.len()].to_owned())
            })
            .unwrap_or_else(|| "  ".into());
        Layout {
            indent,
            crlf: text.contains("\r\n"),
            final_newline: text.is_empty() || text.ends_with('\n'),
        }
    }

    /// `value` laid out so; a JSON value always serializes, so the error is the
    /// writer's, which for a vector never comes.
    fn write(&self, value: &Value, path: &Path) -> Result<String, InstallError> {
        use serde::Serialize;
        let mut bytes = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, formatter);
        let unexpected = |what: String| InstallError::Unexpected {
            path: path.to_owned(),
            what,
        };
        value
            .serialize(&mut serializer)
            .map_err(|e| unexpected(e.to_string()))?;
        let mut text = String::from_utf8(bytes).map_err(|e| unexpected(e.to_string()))?;
        if self.final_newline {
            text.push('\n');
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        Ok(text)
    }
}

/// A configuration file as read: its bytes (none when missing) and its JSON.
struct Config {
    before: Option<Vec<u8>>,
    value: Value,
    layout: Layout,
}

impl Config {
    /// The file's text with its `"hooks"` as `value` has them (none: removed), every
    /// other byte as it was (`splice`); a new file laid out whole.
    fn with_hooks(&self, value: &Value, path: &Path) -> Result<String, InstallError> {
        let original = self
            .before
            .as_deref()
            .and_then(|b| std::str::from_utf8(b).ok());
        let newline = if self.layout.crlf { "\r\n" } else { "\n" };
        if let Some(text) = original.and_then(|original| {
            super::splice::set_member(
                original,
                "hooks",
                value.get("hooks"),
                &self.layout.indent,
                newline,
            )
        }) {
            return Ok(text);
        }
        self.layout.write(value, path)
    }
}

/// The JSON of the configuration at `path` as install reads it (a missing file is
/// `{}`); what `status` looks at too.
pub(super) fn read_json(path: &Path) -> Result<Value, InstallError> {
    Ok(read_config(path)?.value)
}

fn read_config(path: &Path) -> Result<Config, InstallError> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() && std::fs::metadata(path).is_err() {
            return Err(InstallError::DanglingLink {
                path: path.to_owned(),
            });
        }
    }
    let before = read_if_there(path)?;
    let not_json = |source| InstallError::NotJson {
        path: path.to_owned(),
        source,
    };
    // Comments are read as white space, as Qwen Code and Gemini CLI read their
    // settings (`strip-json-comments`); a rewrite keeps them (`splice`).
    let value = match &before {
        Some(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            let text = super::splice::blank_comments(&text);
            serde_json::from_str::<NoDuplicateKeys>(&text).map_err(not_json)?;
            serde_json::from_str(&text).map_err(not_json)?
        }
        None => json!({}),
    };
    if !value.is_object() {
        return Err(unexpected(path, "not a JSON object"));
    }
    let layout = Layout::of(&String::from_utf8_lossy(
        before.as_deref().unwrap_or_default(),
    ));
    Ok(Config {
        before,
        value,
        layout,
    })
}

/// The bytes of the file at `path`; `None` when there is none.
/// A FIFO, a device or a folder at the path is refused, never read (a FIFO would
/// block install and status forever): opened without blocking, as logs are.
pub(super) fn read_if_there(path: &Path) -> Result<Option<Vec<u8>>, InstallError> {
    use std::io::Read;
    let mut file = match crate::session::open_log(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path)(e)),
    };
    if !file.metadata().map_err(io_error(path))?.is_file() {
        return Err(unexpected(path, "not a regular file"));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io_error(path))?;
    Ok(Some(bytes))
}

pub(super) fn unexpected(path: &Path, what: &str) -> InstallError {
    InstallError::Unexpected {
        path: path.to_owned(),
        what: what.to_owned(),
    }
}

/// Where install keeps the file as it was before ctxlens first touched it: the backup
/// of a rewrite, and what `uninstall` restores byte for byte when nothing else changed.
pub(super) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".before-ctxlens");
    PathBuf::from(name)
}

/// What `install` or `uninstall` changed.
#[derive(Debug, Default)]
pub(crate) struct Installed {
    /// One line per hook added (or removed).
    pub added: Vec<String>,
    pub diff: String,
    /// Where the file as it was is kept, when it was rewritten.
    pub backup: Option<PathBuf>,
    /// After `uninstall`: the file is as it was before install (or gone, when install
    /// made it).
    pub restored: bool,
}

/// The most of a diff `install` prints: a settings file of megabytes (or of one long
/// line) must not print megabytes; the whole file as it was is in the backup.
const DIFF_LINES: usize = 80;
const DIFF_LINE_CHARS: usize = 240;

fn diff(old: &[u8], new: &str) -> String {
    let whole = similar::TextDiff::from_lines(String::from_utf8_lossy(old).as_ref(), new)
        .unified_diff()
        .context_radius(2)
        .header("before", "after")
        .to_string();
    let mut out = String::new();
    let total = whole.lines().count();
    for line in whole.lines().take(DIFF_LINES) {
        match line.char_indices().nth(DIFF_LINE_CHARS) {
            Some((cut, _)) => {
                out.push_str(line.get(..cut).unwrap_or(line));
                out.push_str(" …(line cut)\n");
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if total > DIFF_LINES {
        out.push_str(&format!(
            "… {} more lines of diff not shown\n",
            total - DIFF_LINES
        ));
    }
    out
}

/// The hook entries (event, command, timeout) `install` writes for `agent`.
pub(super) fn entries(
    agent: Agent,
    program: &str,
    hold: Option<u64>,
) -> Vec<(&'static str, &'static str, String, u64)> {
    let program = shell_word(program);
    agent
        .hooks()
        .iter()
        .map(|&(event, matcher, sub)| match hold {
            Some(secs) if sub == "pre-compact" => (
                event,
                matcher,
                format!(
                    "{program} hook {} {sub} --hold --timeout {secs}",
                    agent.as_str()
                ),
                secs + HOOK_SECS,
            ),
            _ => (
                event,
                matcher,
                format!("{program} hook {} {sub}", agent.as_str()),
                HOOK_SECS,
            ),
        })
        .collect()
}

/// Removes `agent`'s ctxlens hooks from `hooks`; groups left empty go, and lists left
/// empty too unless `keep` (the file as it was before install) has them.
fn remove_ours(
    agent: Agent,
    hooks: &mut serde_json::Map<String, Value>,
    keep: Option<&Value>,
) -> usize {
    let mut removed = 0;
    for &(event, _, sub) in agent.hooks() {
        let Some(list) = hooks.get_mut(event).and_then(Value::as_array_mut) else {
            continue;
        };
        for group in list.iter_mut() {
            if let Some(hs) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                let before = hs.len();
                hs.retain(|h| {
                    !h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|c| is_ours(agent, sub, c))
                });
                removed += before - hs.len();
            }
        }
        list.retain(|group| {
            group
                .get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|hs| !hs.is_empty())
        });
        let kept_before = keep.is_some_and(|k| k.get("hooks").and_then(|h| h.get(event)).is_some());
        if list.is_empty() && !kept_before {
            hooks.remove(event);
        }
    }
    removed
}

/// Merges `agent`'s ctxlens hooks into the configuration at `path`, keeping every other
/// setting as it was (key order, number spellings, indent, line ends, mode; a link is
/// edited through, a link to nothing refused). An earlier ctxlens hook (exactly
/// ctxlens's command) is replaced; a user's own hook is never touched. With `hold`,
/// the pre-compact hook waits that many seconds for an operator, and its hook timeout
/// is longer, so the agent never kills it while it waits. The file as it was before
/// ctxlens first touched it is kept beside it ([`backup_path`]).
pub(crate) fn install(
    agent: Agent,
    path: &Path,
    program: &str,
    hold: Option<u64>,
) -> Result<Installed, InstallError> {
    let config = read_config(path)?;
    let mut value = config.value.clone();
    let before = config.before.clone();
    let not_touched = |what: &str| unexpected(path, what);
    let wanted = entries(agent, program, hold);
    let root = value
        .as_object_mut()
        .ok_or_else(|| not_touched("not a JSON object"))?;
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks
        .as_object_mut()
        .ok_or_else(|| not_touched("\"hooks\" is not an object"))?;
    for &(event, ..) in &wanted {
        if hooks.get(event).is_some_and(|l| !l.is_array()) {
            return Err(not_touched(&format!("hooks.{event} is not a list")));
        }
    }
    let has = |hooks: &serde_json::Map<String, Value>, command: &str, timeout: u64| {
        hooks
            .values()
            .filter_map(Value::as_array)
            .flatten()
            .any(|group| {
                group["hooks"].as_array().is_some_and(|hs| {
                    hs.iter()
                        .any(|h| h["command"] == command && h["timeout"] == timeout)
                })
            })
    };
    if wanted
        .iter()
        .all(|(_, _, command, timeout)| has(hooks, command, *timeout))
    {
        return Ok(Installed::default());
    }
    let had_ours = remove_ours(agent, hooks, None) > 0;
    let mut added = Vec::new();
    for (event, matcher, command, timeout) in wanted {
        let list = hooks.entry(event).or_insert_with(|| json!([]));
        if let Some(list) = list.as_array_mut() {
            list.push(json!({"matcher": matcher, "hooks": [
                {"type": "command", "command": command, "timeout": timeout}
            ]}));
        }
        added.push(format!("{event}: {command} (timeout {timeout} s)"));
    }
    let text = config.with_hooks(&value, path)?;
    // The file as the user had it, before any ctxlens hook: kept once, so uninstall
    // can give it back.
    let backup = match &before {
        Some(bytes) if !had_ours => {
            let backup = backup_path(path);
            atomic::write(&backup, bytes).map_err(io_error(&backup))?;
            Some(backup)
        }
        _ => None,
    };
    atomic::write(path, text.as_bytes()).map_err(io_error(path))?;
    Ok(Installed {
        added,
        diff: diff(before.as_deref().unwrap_or_default(), &text),
        backup,
        restored: false,
    })
}

/// Removes exactly the hooks `install` adds for `agent` (any ctxlens binary, any hold).
/// When nothing else changed since install, the file is given back byte for byte (a
/// file install created is removed); otherwise only ctxlens's entries go.
pub(crate) fn uninstall(agent: Agent, path: &Path) -> Result<Installed, InstallError> {
    let config = read_config(path)?;
    let mut value = config.value.clone();
    let Some(before) = config.before.clone() else {
        return Ok(Installed::default());
    };
    let backup = backup_path(path);
    let kept: Option<(Vec<u8>, Value)> = read_if_there(&backup).ok().flatten().and_then(|bytes| {
        let text = super::splice::blank_comments(&String::from_utf8_lossy(&bytes));
        serde_json::from_str(&text).ok().map(|v| (bytes, v))
    });
    let Some(hooks) = value.get_mut("hooks").and_then(Value::as_object_mut) else {
        return Ok(Installed::default());
    };
    let removed = remove_ours(agent, hooks, kept.as_ref().map(|(_, v)| v));
    if removed == 0 {
        return Ok(Installed::default());
    }
    let hooks_kept_before = kept.as_ref().is_some_and(|(_, v)| v.get("hooks").is_some());
    if hooks.is_empty() && !hooks_kept_before {
        if let Some(root) = value.as_object_mut() {
            root.remove("hooks");
        }
    }
    // The bytes as kept before install, when nothing else changed since.
    let as_before = kept
        .filter(|(_, old)| *old == value)
        .map(|(bytes, _)| bytes);
    // Install made the file, and nothing of the user's is in it.
    let made_by_install = !backup.exists() && value == json!({});
    let after = match &as_before {
        Some(bytes) => bytes.clone(),
        None if made_by_install => Vec::new(),
        None => config.with_hooks(&value, path)?.into_bytes(),
    };
    if made_by_install {
        std::fs::remove_file(path).map_err(io_error(path))?;
    } else {
        atomic::write(path, &after).map_err(io_error(path))?;
    }
    if as_before.is_some() {
        let _ = std::fs::remove_file(&backup);
    }
    Ok(Installed {
        added: vec![format!("{removed} ctxlens hooks removed")],
        diff: diff(&before, &String::from_utf8_lossy(&after)),
        backup: None,
        restored: as_before.is_some() || made_by_install,
    })
}
