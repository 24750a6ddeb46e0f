//! `ctxlens hook AGENT install|uninstall|status`: what the operator runs to put the
//! hooks in place, take them out, and see whether the agent will run them.

use super::install::{self, Agent};
use crate::cli::args::{InstallArgs, ProjectArgs};
use crate::cli::CliError;
use crate::sanitize;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The agent's hook configuration for `project` (or the user's).
fn config_path(agent: Agent, project: Option<&Path>) -> Result<PathBuf, CliError> {
    if let Some(dir) = project.filter(|d| !d.is_dir()) {
        return Err(CliError::unusable(format!(
            "{}: no such project folder; nothing done",
            dir.display()
        )));
    }
    Ok(match agent {
        Agent::ClaudeCode => install::settings_path(project)?,
        Agent::Codex => install::codex_hooks_path(project)?,
        Agent::QwenCode => install::qwen_settings_path(project)?,
        Agent::CopilotCli => super::copilot::hooks_path(project)?,
        Agent::OpenCode => super::opencode::plugin_path(project)?,
    })
}

fn shown(path: &Path) -> String {
    sanitize::line(&path.display().to_string()).into_owned()
}

pub(crate) fn install(
    agent: Agent,
    args: &InstallArgs,
    out: &mut impl Write,
) -> Result<u8, CliError> {
    let hold = args
        .hold
        .then(|| args.timeout.unwrap_or(super::DEFAULT_HOLD_SECS))
        .map(install::hold_secs)
        .transpose()
        .map_err(CliError::from)?;
    let path = config_path(agent, args.project.as_deref())?;
    let program = super::program();
    let trusted_before = match agent {
        Agent::Codex => codex_trust(&path, &ours_in(agent, &install::read_json(&path)?)).recorded,
        Agent::ClaudeCode | Agent::QwenCode | Agent::CopilotCli | Agent::OpenCode => 0,
    };
    let installed = if agent == Agent::CopilotCli {
        if hold.is_some() {
            return Err(CliError::unusable(
                "Copilot CLI's preCompact hook cannot block a compaction, so it cannot be held: install without --hold to record its compactions; nothing done",
            ));
        }
        super::copilot::install(&path, &program)?
    } else if agent == Agent::OpenCode {
        super::opencode::install(&path, &program, hold)?
    } else {
        install::install(agent, &path, &program, hold)?
    };
    let _ = writeln!(out, "the hooks run {}", sanitize::line(&program));
    if installed.added.is_empty() {
        let _ = writeln!(
            out,
            "{}: the ctxlens hooks are already installed",
            shown(&path)
        );
    } else {
        let _ = writeln!(out, "{}: added", shown(&path));
        for line in &installed.added {
            let _ = writeln!(out, "  {}", sanitize::line(line));
        }
        let _ = write!(out, "{}", sanitize::block(&installed.diff));
        if let Some(backup) = &installed.backup {
            let _ = writeln!(
                out,
                "the file as it was is kept in {} (uninstall gives it back)",
                shown(backup)
            );
        }
    }
    if agent == Agent::Codex {
        let voided = !installed.added.is_empty() && trusted_before > 0;
        let _ = writeln!(out, "{}", trust_step(args.project.as_deref(), voided));
    }
    Ok(0)
}

/// What an operator must do before Codex runs the hooks. ctxlens never writes the
/// trust itself: that is the person's call, in Codex's own review.
fn trust_step(project: Option<&Path>, voided: bool) -> String {
    let why = if voided {
        "The entries changed, so the trust you gave the old ones is void."
    } else {
        "Codex runs a hook only after you trust it."
    };
    let project = project
        .map(|dir| format!(" --project {}", shown(dir)))
        .unwrap_or_default();
    format!(
        "{why} Start `codex` in a terminal and answer its \"Hooks need review\" prompt \
         (\"Trust all and continue\"), or review them with /hooks. Until then `codex exec` \
         skips them without a word. Check with: {} hook codex status{project}",
        super::program(),
    )
}

pub(crate) fn uninstall(
    agent: Agent,
    args: &ProjectArgs,
    out: &mut impl Write,
) -> Result<u8, CliError> {
    let path = config_path(agent, args.project.as_deref())?;
    let removed = if agent == Agent::CopilotCli {
        super::copilot::uninstall(&path)?
    } else if agent == Agent::OpenCode {
        super::opencode::uninstall(&path)?
    } else {
        install::uninstall(agent, &path)?
    };
    if removed.added.is_empty() {
        let _ = writeln!(out, "{}: no ctxlens hooks to remove", shown(&path));
    } else {
        let _ = writeln!(out, "{}: {}", shown(&path), removed.added.join(", "));
        let _ = write!(out, "{}", sanitize::block(&removed.diff));
        if removed.restored {
            let _ = writeln!(out, "the file is as it was before install");
        }
    }
    Ok(0)
}

/// One ctxlens hook entry as the configuration holds it.
struct Found {
    event: String,
    command: String,
    /// Its place, as Codex names it in a trust key: group and hook index.
    group: usize,
    index: usize,
}

fn ours_in(agent: Agent, config: &Value) -> Vec<Found> {
    let mut found = Vec::new();
    let Some(hooks) = config.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, list) in hooks {
        for (group, entry) in list.as_array().into_iter().flatten().enumerate() {
            // Claude Code's groups hold their hooks; Copilot CLI's list holds the hooks
            // themselves, the command under `bash`.
            let hooks = match entry.get("hooks").and_then(Value::as_array) {
                Some(hooks) => hooks.iter().collect::<Vec<_>>(),
                None => vec![entry],
            };
            for (index, hook) in hooks.into_iter().enumerate() {
                let Some(command) = hook["command"].as_str().or(hook["bash"].as_str()) else {
                    continue;
                };
                if install::is_ctxlens_command(agent, command) {
                    found.push(Found {
                        event: event.clone(),
                        command: command.to_owned(),
                        group,
                        index,
                    });
                }
            }
        }
    }
    found
}

pub(crate) fn status(
    agent: Agent,
    args: &ProjectArgs,
    out: &mut impl Write,
) -> Result<u8, CliError> {
    let path = config_path(agent, args.project.as_deref())?;
    if agent == Agent::OpenCode {
        return Ok(opencode_status(&path, out));
    }
    let found = ours_in(agent, &install::read_json(&path)?);
    let program = super::program();
    let _ = writeln!(out, "{} ({})", agent.as_str(), shown(&path));
    let installed = agent
        .events()
        .iter()
        .all(|e| found.iter().any(|f| f.event == *e));
    let _ = writeln!(
        out,
        "  installed: {}",
        if installed {
            "yes"
        } else if found.is_empty() {
            "no"
        } else {
            "partly"
        }
    );
    for f in &found {
        let _ = writeln!(out, "    {}: {}", f.event, sanitize::line(&f.command));
    }
    let current = installed
        && found.iter().all(|f| {
            f.command
                .starts_with(&format!("{} hook ", install::shell_word(&program)))
        })
        && Path::new(&program).is_file();
    let _ = writeln!(
        out,
        "  current: {}",
        match (installed, current) {
            (false, _) => "no".to_owned(),
            (true, true) => format!("yes (they run {})", sanitize::line(&program)),
            (true, false) => format!(
                "no: they run another ctxlens binary; install again to point them at {}",
                sanitize::line(&program)
            ),
        }
    );
    let mut ok = installed && current;
    if agent == Agent::Codex {
        let trust = codex_trust(&path, &found);
        let all = installed && trust.recorded == found.len();
        let _ = writeln!(
            out,
            "  trusted: {}",
            if all {
                "a trust entry is recorded for each (Codex voids it when an entry changes after you trusted it)".to_owned()
            } else {
                format!(
                    "no ({} of {} entries have a trust entry in {})",
                    trust.recorded,
                    found.len(),
                    trust.config.as_deref().map_or("config.toml".into(), shown)
                )
            }
        );
        if !all && installed {
            let _ = writeln!(out, "  {}", trust_step(args.project.as_deref(), false));
        }
        ok &= all;
    } else {
        let _ = writeln!(
            out,
            "  trusted: not asked ({} runs the hooks in its settings)",
            agent.name()
        );
    }
    Ok(if ok { 0 } else { 1 })
}

/// Whether ctxlens's OpenCode plugin is there, and runs this binary.
fn opencode_status(path: &Path, out: &mut impl Write) -> u8 {
    let program = super::program();
    let runs = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| super::opencode::ours(&text));
    let _ = writeln!(out, "opencode ({})", shown(path));
    let _ = writeln!(
        out,
        "  installed: {}",
        if runs.is_some() { "yes" } else { "no" }
    );
    let current = runs.as_deref() == Some(program.as_str()) && Path::new(&program).is_file();
    let _ = writeln!(
        out,
        "  current: {}",
        match (&runs, current) {
            (None, _) => "no".to_owned(),
            (Some(_), true) => format!("yes (it runs {})", sanitize::line(&program)),
            (Some(_), false) => format!(
                "no: it runs another ctxlens binary; install again to point it at {}",
                sanitize::line(&program)
            ),
        }
    );
    let _ = writeln!(
        out,
        "  trusted: not asked (OpenCode loads the plugins in its folders)"
    );
    u8::from(!current)
}

/// The trust entries Codex keeps in `$CODEX_HOME/config.toml`: how many of `found`
/// have one, and where they were looked for.
struct Trust {
    config: Option<PathBuf>,
    recorded: usize,
}

/// How many of `found` have a trust entry (`[hooks.state."<file>:<event>:<group>:<hook>"]`
/// with a `trusted_hash`). The hash itself is Codex's to check: it is not documented,
/// and ctxlens never writes it.
fn codex_trust(hooks_json: &Path, found: &[Found]) -> Trust {
    let config = install::codex_home().map(|h| h.join("config.toml"));
    let toml = config
        .as_ref()
        .and_then(|c| std::fs::read_to_string(c).ok())
        .and_then(|text| text.parse::<toml_edit::DocumentMut>().ok());
    let file = hooks_json
        .canonicalize()
        .unwrap_or_else(|_| hooks_json.to_owned());
    let recorded = found
        .iter()
        .filter(|f| {
            let key = format!(
                "{}:{}:{}:{}",
                file.display(),
                snake_case(&f.event),
                f.group,
                f.index
            );
            toml.as_ref().is_some_and(|doc| {
                doc.get("hooks")
                    .and_then(|h| h.get("state"))
                    .and_then(|s| s.get(&key))
                    .and_then(|entry| entry.get("trusted_hash"))
                    .is_some()
            })
        })
        .count();
    Trust { config, recorded }
}

/// `PreCompact` → `pre_compact`, as Codex names events in trust keys.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_named_as_codex_names_them_in_trust_keys() {
        assert_eq!(snake_case("PreCompact"), "pre_compact");
        assert_eq!(snake_case("SessionStart"), "session_start");
    }
}
