//! `ctxlens hook copilot-cli install|uninstall`: Copilot CLI reads hooks from every
//! `*.json` of `$COPILOT_HOME/hooks/` (`~/.copilot/hooks/`) and of a trusted
//! repository's `.github/hooks/`, each file `{"version": 1, "hooks": {"preCompact":
//! [{"type": "command", "bash": …, "timeoutSec": …}]}}`. ctxlens writes a file of its
//! own there, `ctxlens.json`, and touches no other; a `ctxlens.json` holding anything
//! but ctxlens's entries is left as it is.

use super::install::{
    backup_path, entries, io_error, is_ctxlens_command, read_if_there, unexpected, Agent,
    InstallError, Installed,
};
use crate::store::atomic;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Where ctxlens's Copilot CLI hooks go: the project's `.github/hooks/ctxlens.json`, or
/// `$COPILOT_HOME/hooks/ctxlens.json` (`~/.copilot` by default).
pub(super) fn hooks_path(project: Option<&Path>) -> Result<PathBuf, InstallError> {
    if let Some(dir) = project {
        return Ok(dir.join(".github").join("hooks").join("ctxlens.json"));
    }
    let home = super::install::env_or_home("COPILOT_HOME", ".copilot")?;
    Ok(home.join("hooks").join("ctxlens.json"))
}

/// The hook commands of a Copilot CLI hooks file: (event, command).
pub(super) fn commands(file: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(hooks) = file.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, list) in hooks {
        for hook in list.as_array().into_iter().flatten() {
            if let Some(command) = hook.get("bash").and_then(Value::as_str) {
                out.push((event.clone(), command.to_owned()));
            }
        }
    }
    out
}

/// Whether the file at `path` holds ctxlens's entries and nothing else.
fn only_ours(file: &Value) -> bool {
    let Some(hooks) = file.get("hooks").and_then(Value::as_object) else {
        return false;
    };
    let entries: usize = hooks
        .values()
        .map(|list| list.as_array().map_or(1, Vec::len))
        .sum();
    let ours = commands(file)
        .iter()
        .filter(|(_, command)| is_ctxlens_command(Agent::CopilotCli, command))
        .count();
    entries == ours
}

fn not_ours(path: &Path) -> InstallError {
    unexpected(path, "it holds hooks ctxlens did not write")
}

/// Writes ctxlens's own hooks file for Copilot CLI (replacing an earlier one of
/// ctxlens's). A `ctxlens.json` that holds anything else is not touched.
pub(super) fn install(path: &Path, program: &str) -> Result<Installed, InstallError> {
    let before = read(path)?;
    if before.as_ref().is_some_and(|file| !only_ours(file)) {
        return Err(not_ours(path));
    }
    let mut hooks = serde_json::Map::new();
    let mut added = Vec::new();
    for (event, _, command, timeout) in entries(Agent::CopilotCli, program, None) {
        hooks.insert(
            event.to_owned(),
            json!([{"type": "command", "bash": command, "timeoutSec": timeout}]),
        );
        added.push(format!("{event}: {command} (timeout {timeout} s)"));
    }
    let file = json!({"version": 1, "hooks": hooks});
    if before.as_ref() == Some(&file) {
        return Ok(Installed::default());
    }
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&file).unwrap_or_default()
    );
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    atomic::write(path, text.as_bytes()).map_err(io_error(path))?;
    Ok(Installed {
        added,
        diff: text,
        backup: None,
        restored: false,
    })
}

/// Removes ctxlens's hooks file, when it holds only ctxlens's entries.
pub(super) fn uninstall(path: &Path) -> Result<Installed, InstallError> {
    let Some(file) = read(path)? else {
        return Ok(Installed::default());
    };
    if !only_ours(&file) {
        return Err(not_ours(path));
    }
    std::fs::remove_file(path).map_err(io_error(path))?;
    let _ = std::fs::remove_file(backup_path(path));
    Ok(Installed {
        added: vec![format!("{} removed", path.display())],
        diff: String::new(),
        backup: None,
        restored: true,
    })
}

/// The file's JSON; `None` when there is none.
fn read(path: &Path) -> Result<Option<Value>, InstallError> {
    read_if_there(path)?
        .map(|bytes| {
            serde_json::from_slice(&bytes).map_err(|source| InstallError::NotJson {
                path: path.to_owned(),
                source,
            })
        })
        .transpose()
}
