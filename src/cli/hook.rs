//! `ctxlens hook claude-code …`: Claude Code hooks that keep bindings alive across a
//! compaction. A hook must never break the agent: on input it does not understand it
//! says so on stderr and exits 0. Only `pre-compact --hold` can block (exit 2), and only
//! when an operator refuses.

use crate::analysis::ledger::{candidates, dropped_by, restore_context, Candidate};
use crate::ingest;
use crate::model::{EventKind, Verdict};
use crate::store::ledger::{self, Entry, LedgerToken};
use crate::store::{atomic, decisions, spill};
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn log(message: &str) {
    eprintln!("ctxlens hook: {}", crate::sanitize::line(message));
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The hook's JSON from stdin, or why it cannot be used.
fn read_input(stdin: &mut impl Read) -> Result<Value, String> {
    let mut bytes = Vec::new();
    stdin
        .take(16 << 20)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("stdin is not a JSON object".into()),
        Err(e) => Err(format!("stdin is not JSON: {e}")),
    }
}

fn transcript_of(input: &Value) -> Result<PathBuf, String> {
    let path = input
        .get("transcript_path")
        .and_then(Value::as_str)
        .ok_or("no transcript_path in the hook input")?;
    let path = PathBuf::from(path);
    if !path.is_file() {
        return Err(format!("{}: no such transcript", path.display()));
    }
    Ok(path)
}

fn to_ledger(c: &Candidate) -> LedgerToken {
    LedgerToken {
        token: c.token.clone(),
        class: c.class.as_str().to_owned(),
        why: c.why.clone(),
    }
}

fn from_ledger(t: &LedgerToken) -> Candidate {
    Candidate {
        token: t.token.clone(),
        class: crate::analysis::tokens::classify(&t.token),
        why: t.why.clone(),
    }
}

/// Runs one hook; the exit code. Problems are logged, never fatal (except `--hold`).
pub fn run(
    hook: &str,
    hold: bool,
    timeout: Option<f64>,
    stdin: &mut impl Read,
    stdout: &mut impl std::io::Write,
) -> u8 {
    let result = read_input(stdin).and_then(|input| match hook {
        "pre-compact" => pre_compact(&input, hold, timeout),
        "session-start" => session_start(&input, stdout).map(|()| 0),
        "post-compact" => post_compact(&input).map(|()| 0),
        other => Err(format!("unknown hook {other}")),
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            log(&format!("{e}; nothing done"));
            0
        }
    }
}

fn pre_compact(input: &Value, hold: bool, timeout: Option<f64>) -> Result<u8, String> {
    let transcript = transcript_of(input)?;
    let session = ingest::load(&transcript).map_err(|e| e.to_string())?;
    // The region: everything after the latest compaction (and its summary record).
    let last_compaction = session
        .events
        .iter()
        .rposition(|e| matches!(e.kind, EventKind::Compaction { .. }));
    let start = last_compaction
        .map(|i| {
            let summary = session
                .events
                .get(i + 1)
                .filter(|e| e.kind.type_name() == "compact summary");
            let e = summary.unwrap_or(&session.events[i]);
            e.offset + e.span
        })
        .unwrap_or(0);
    let end = session
        .events
        .last()
        .map_or(0, |e| e.offset + e.span)
        .max(start);
    let handle = if end > start {
        let region = ingest::open_range(&transcript, start, end).map_err(|e| e.to_string())?;
        Some(
            spill::store(&transcript, region)
                .map_err(|e| format!("cannot store the region: {e}"))?
                .to_string(),
        )
    } else {
        None
    };
    let found = candidates(&session, last_compaction);
    let entries = ledger::read(&transcript).map_err(|e| e.to_string())?;
    let n = entries
        .iter()
        .filter(|e| matches!(e, Entry::PreCompact { .. }))
        .count()
        + 1;
    let id = format!("pre-compact-{n}");
    let entry = Entry::PreCompact {
        id: id.clone(),
        ts: now(),
        trigger: input
            .get("trigger")
            .and_then(Value::as_str)
            .map(str::to_owned),
        handle: handle.clone(),
        from_byte: start,
        to_byte: end,
        tokens: found.iter().map(to_ledger).collect(),
    };
    ledger::append(&transcript, &entry).map_err(|e| format!("cannot write the ledger: {e}"))?;
    log(&format!(
        "{id}: stored {} bytes of the region as {}; the ledger holds {} identifiers",
        end - start,
        handle.as_deref().unwrap_or("(nothing to store)"),
        found.len()
    ));
    if !hold {
        return Ok(0);
    }
    log(&format!(
        "holding the compaction until an operator decides: ctxlens decide {} {id} approve|spill|refuse",
        transcript.display()
    ));
    let deadline = timeout.map(|s| Instant::now() + Duration::from_secs_f64(s.clamp(0.0, 1e9)));
    loop {
        let sidecar = decisions::read(&transcript).map_err(|e| e.to_string())?;
        if let Some(decision) = sidecar.decisions.iter().find(|d| d.compaction == id) {
            log(&format!(
                "{id}: {} by {}",
                decision.verdict.as_str(),
                decision.by.as_deref().unwrap_or("someone")
            ));
            return Ok(if decision.verdict == Verdict::Refuse {
                2
            } else {
                0
            });
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            log(&format!(
                "{id}: no decision before the timeout; the compaction goes ahead"
            ));
            return Ok(0);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn session_start(input: &Value, stdout: &mut impl std::io::Write) -> Result<(), String> {
    if input.get("source").and_then(Value::as_str) != Some("compact") {
        return Ok(());
    }
    let transcript = transcript_of(input)?;
    let entries = ledger::read(&transcript).map_err(|e| e.to_string())?;
    let Some(Entry::PreCompact { tokens, handle, .. }) = ledger::latest_pre_compact(&entries)
    else {
        return Err("no ledger entry: the pre-compact hook did not run".into());
    };
    let session = ingest::load(&transcript).map_err(|e| e.to_string())?;
    let summary = session.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Compaction {
            summary: Some(s), ..
        } => Some(s.text.clone()),
        _ => None,
    });
    let all: Vec<Candidate> = tokens.iter().map(from_ledger).collect();
    let dropped = match &summary {
        Some(text) => dropped_by(text, &all, session.cwd.as_deref()),
        None => all.iter().collect(),
    };
    let context = restore_context(
        &dropped,
        handle.as_deref(),
        &transcript.display().to_string(),
        summary.is_some(),
    );
    let output = json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}});
    writeln!(stdout, "{output}").map_err(|e| e.to_string())?;
    log(&format!(
        "restored {} identifiers to the context",
        dropped.len()
    ));
    Ok(())
}

fn post_compact(input: &Value) -> Result<(), String> {
    let transcript = transcript_of(input)?;
    let summary = input
        .get("compact_summary")
        .and_then(Value::as_str)
        .ok_or("no compact_summary in the hook input")?;
    let entries = ledger::read(&transcript).map_err(|e| e.to_string())?;
    let Some(Entry::PreCompact { id, tokens, .. }) = ledger::latest_pre_compact(&entries) else {
        return Err("no ledger entry: the pre-compact hook did not run".into());
    };
    let all: Vec<Candidate> = tokens.iter().map(from_ledger).collect();
    let session_cwd = input.get("cwd").and_then(Value::as_str);
    let dropped: Vec<LedgerToken> = dropped_by(summary, &all, session_cwd)
        .into_iter()
        .map(to_ledger)
        .collect();
    for t in &dropped {
        log(&format!(
            "{id}: the summary dropped {} ({})",
            t.token, t.why
        ));
    }
    ledger::append(
        &transcript,
        &Entry::PostCompact {
            id: id.clone(),
            ts: now(),
            dropped,
        },
    )
    .map_err(|e| format!("cannot write the ledger: {e}"))
}

/// Where `install` writes: the project's `.claude/settings.json`, or the user's.
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

/// The hooks ctxlens installs: (event, matcher, subcommand).
const HOOKS: &[(&str, &str, &str)] = &[
    ("PreCompact", "", "pre-compact"),
    ("SessionStart", "compact", "session-start"),
    ("PostCompact", "", "post-compact"),
];

/// Merges ctxlens's hooks into the settings at `path`, keeping every other setting and
/// hook; what was added.
pub fn install(path: &Path, program: &str) -> Result<Vec<String>, String> {
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
    for (event, matcher, sub) in HOOKS {
        let command = format!("{program} hook claude-code {sub}");
        let list = hooks.entry(*event).or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            return Err(format!(
                "{}: hooks.{event} is not a list; not touched",
                path.display()
            ));
        };
        let present = list.iter().any(|group| {
            group["hooks"].as_array().is_some_and(|hs| {
                hs.iter().any(|h| {
                    h["command"]
                        .as_str()
                        .is_some_and(|c| c.contains("hook claude-code") && c.ends_with(sub))
                })
            })
        });
        if !present {
            list.push(
                json!({"matcher": matcher, "hooks": [{"type": "command", "command": command}]}),
            );
            added.push(format!("{event}: {command}"));
        }
    }
    let mut text = serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())?;
    text.push('\n');
    atomic::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(added)
}
