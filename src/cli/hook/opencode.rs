//! `ctxlens hook opencode install|uninstall`: OpenCode has no hook commands, only
//! plugins: JavaScript modules in `$XDG_CONFIG_HOME/opencode/plugins/`
//! (`~/.config/opencode/plugins/`) or a project's `.opencode/plugins/`. ctxlens writes
//! one of its own, `ctxlens.js`. Its `experimental.session.compacting` handler, which
//! OpenCode awaits with no timeout before it summarises, runs `ctxlens hook opencode
//! pre-compact` and waits for it without using the CPU (a child process), then adds
//! the lines the hook answers to `output.context`, which reaches the summariser's prompt.

use super::install::{io_error, read_if_there, unexpected, InstallError, Installed};
use crate::store::atomic;
use std::path::{Path, PathBuf};

/// The first line of every plugin ctxlens writes: what install, uninstall and status
/// look for before they touch or trust the file.
const MARK: &str = "// ctxlens plugin: written by `ctxlens hook opencode install`";

/// Where ctxlens's OpenCode plugin goes: the project's `.opencode/plugins/ctxlens.js`,
/// or `$XDG_CONFIG_HOME/opencode/plugins/ctxlens.js` (`~/.config`).
pub(super) fn plugin_path(project: Option<&Path>) -> Result<PathBuf, InstallError> {
    if let Some(dir) = project {
        return Ok(dir.join(".opencode").join("plugins").join("ctxlens.js"));
    }
    let config = super::install::env_or_home("XDG_CONFIG_HOME", ".config")?;
    Ok(config.join("opencode").join("plugins").join("ctxlens.js"))
}

/// A JavaScript string literal of `text`.
fn js_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// The plugin: it runs `program` with `args` on each compaction and adds what it
/// answers to the summariser's context. A hook that cannot run, crashes or answers
/// what is not JSON is a failure, not "nothing to do": the compaction goes ahead (as
/// the hook's own failure policy says), the summariser is asked to keep every
/// identifier verbatim, and OpenCode's log says why.
pub(super) fn plugin(program: &str, args: &[String]) -> String {
    let args = args
        .iter()
        .map(|a| js_string(a))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r#"{MARK}
// On each compaction it runs the ctxlens hook and waits for it (with --hold, until an
// operator decides), then adds the identifiers at risk, the spill's read-back command
// and a preserved contract to what the summariser is given.
import {{ spawn }} from "node:child_process"

const PROGRAM = {program}
const ARGS = [{args}]

const FAILED = {failed}

// The hook's answer, or why it failed: it could not start, was killed, exited other
// than 0, or answered what is not a JSON object.
const ask = (input) =>
  new Promise((resolve) => {{
    let out = ""
    let err = ""
    let child
    try {{
      child = spawn(PROGRAM, ARGS, {{ stdio: ["pipe", "pipe", "pipe"] }})
    }} catch (e) {{
      return resolve({{ failed: `cannot run ${{PROGRAM}}: ${{e}}` }})
    }}
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err = (err + d).slice(-2000)))
    child.on("error", (e) => resolve({{ failed: `cannot run ${{PROGRAM}}: ${{e}}` }}))
    child.on("close", (code, signal) => {{
      if (code !== 0) {{
        return resolve({{ failed: `the hook ${{signal ? "was killed by " + signal : "exited " + code}}: ${{err.trim()}}` }})
      }}
      if (!out.trim()) return resolve({{ answer: {{}} }})
      try {{
        const answer = JSON.parse(out)
        if (answer && typeof answer === "object") return resolve({{ answer }})
      }} catch {{}}
      resolve({{ failed: "the hook answered what is not JSON" }})
    }})
    child.stdin.on("error", () => {{}})
    child.stdin.end(JSON.stringify(input))
  }})

export const Ctxlens = async () => ({{
  "experimental.session.compacting": async (input, output) => {{
    const {{ answer, failed }} = await ask({{ sessionID: input.sessionID, cwd: process.cwd() }})
    if (failed) {{
      console.error(`ctxlens: ${{failed}}`)
      output.context.push(FAILED)
      return
    }}
    for (const line of Array.isArray(answer.context) ? answer.context : []) {{
      output.context.push(String(line))
    }}
  }},
}})
"#,
        program = js_string(program),
        failed = js_string(&format!(
            "ctxlens could not check this compaction. {}",
            super::KEEP_EVERY_IDENTIFIER
        )),
    )
}

/// Whether `text` is a plugin ctxlens wrote, and the program it runs.
pub(super) fn ours(text: &str) -> Option<String> {
    if !text.starts_with(MARK) {
        return None;
    }
    let line = text.lines().find(|l| l.starts_with("const PROGRAM = "))?;
    serde_json::from_str(line.trim_start_matches("const PROGRAM = ")).ok()
}

fn not_ours(path: &Path) -> InstallError {
    unexpected(path, "a plugin ctxlens did not write")
}

/// The file's text; `None` when there is none.
fn read(path: &Path) -> Result<Option<String>, InstallError> {
    read_if_there(path).map(|bytes| bytes.map(|b| String::from_utf8_lossy(&b).into_owned()))
}

/// Writes ctxlens's plugin, the hook holding each compaction `hold` seconds when given.
/// A `ctxlens.js` ctxlens did not write is not touched.
pub(super) fn install(
    path: &Path,
    program: &str,
    hold: Option<u64>,
) -> Result<Installed, InstallError> {
    let before = read(path)?;
    if before.as_deref().is_some_and(|text| ours(text).is_none()) {
        return Err(not_ours(path));
    }
    let mut args: Vec<String> = ["hook", "opencode", "pre-compact"]
        .map(str::to_owned)
        .to_vec();
    if let Some(secs) = hold {
        args.extend([
            "--hold".to_owned(),
            "--timeout".to_owned(),
            secs.to_string(),
        ]);
    }
    let text = plugin(program, &args);
    if before.as_deref() == Some(text.as_str()) {
        return Ok(Installed::default());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    atomic::write(path, text.as_bytes()).map_err(io_error(path))?;
    Ok(Installed {
        added: vec![format!(
            "experimental.session.compacting: {} {}",
            program,
            args.join(" ")
        )],
        diff: String::new(),
        backup: None,
        restored: false,
    })
}

/// Removes ctxlens's plugin; a `ctxlens.js` ctxlens did not write is not touched.
pub(super) fn uninstall(path: &Path) -> Result<Installed, InstallError> {
    let Some(text) = read(path)? else {
        return Ok(Installed::default());
    };
    if ours(&text).is_none() {
        return Err(not_ours(path));
    }
    std::fs::remove_file(path).map_err(io_error(path))?;
    Ok(Installed {
        added: vec![format!("{} removed", path.display())],
        diff: String::new(),
        backup: None,
        restored: true,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_plugin_names_its_program_and_is_known_as_ours() {
        let text = plugin("/opt/ctx lens/ctxlens", &["hook".into(), "a\"b".into()]);
        assert_eq!(ours(&text).as_deref(), Some("/opt/ctx lens/ctxlens"));
        assert!(text.contains(r#"const ARGS = ["hook", "a\"b"]"#), "{text}");
        assert_eq!(ours("export const Mine = 1"), None);
    }
}
