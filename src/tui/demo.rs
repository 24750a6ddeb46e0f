//! `ctxlens demo`: a simulated agent writes a session in real time (the scenario in
//! `assets/demo-scenario.json`), proposes a compaction that drops its rollback revision,
//! and waits for the operator's decision through the real decision channel.

use super::{file_error, TuiError};
use crate::store::decisions;
use ctxlens_core::model::Verdict;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SCENARIO: &str = include_str!("../../assets/demo-scenario.json");

/// The demo's scripted agent: what it wrote before the compaction, and after each decision.
#[derive(Deserialize)]
pub struct Scenario {
    prefix: Vec<Value>,
    proposal: Value,
    waiting: Value,
    branches: HashMap<String, Vec<Value>>,
}

impl Scenario {
    /// The scenario shipped in `assets/`.
    pub fn builtin() -> Result<Scenario, TuiError> {
        serde_json::from_str(SCENARIO)
            .map_err(|e| TuiError::Demo(format!("assets/demo-scenario.json: {e}")))
    }
}

/// What the simulated agent did, for the closing words.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    /// The operator's decision, and its reason.
    pub decision: Option<(Verdict, Option<String>)>,
    /// What the runtime's tripwire said before the rollback, when it stopped it.
    pub stopped: Option<String>,
    /// The agent ran to its end.
    pub finished: bool,
}

/// What the simulated runtime does at a `@check` step: `ctxlens check` on the action the
/// agent is about to take and, when it diverges, a restore from the spill handle. The
/// events it writes say what happened, with the real values.
fn tripwire_events(log: &Path, action: &Value) -> Result<(Vec<Value>, Option<String>), TuiError> {
    use ctxlens_core::analysis::FindingKind;
    use ctxlens_core::analysis::{tripwire, ProposedAction};
    let channel = crate::store::channel::Backend::files(log).channel;
    let loaded = crate::session::open(log, &*channel, false, &mut |_| {})?;
    let (session, analysis) = (loaded.session, loaded.analysis);
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let proposed = ProposedAction {
        step: action
            .get("step")
            .and_then(Value::as_str)
            .map(str::to_owned),
        name: text(action, "name"),
        target: action.get("target").cloned().unwrap_or(Value::Null),
    };
    let Some((index, finding)) = tripwire(&session, &analysis.compactions, &proposed) else {
        let passed = serde_json::json!({"type": "message", "role": "system",
            "text": "runtime: ctxlens check: the action follows the plan"});
        return Ok((vec![passed], None));
    };
    let FindingKind::NonIdempotent { expected, .. } = &finding.kind else {
        return Ok((Vec::new(), None));
    };
    let expected_target = ctxlens_core::analysis::target_text(&expected.target);
    let stopped = format!(
        "ctxlens check stopped {} on {}: step {} expects {} on {}",
        proposed.name,
        ctxlens_core::analysis::target_text(&proposed.target),
        expected.id,
        expected.action,
        expected_target
    );
    let mut events = vec![serde_json::json!({"type": "message", "role": "system",
        "text": format!("runtime: {stopped}. Restoring from the spill.")})];
    let handle = analysis
        .compactions
        .get(index)
        .and_then(|c| c.decision.as_ref())
        .and_then(|d| d.handle.clone());
    if let Some(handle) = handle {
        let parsed = crate::store::spill::Handle::parse(&handle)
            .ok_or_else(|| TuiError::Demo(format!("bad spill handle {handle}")))?;
        let region =
            crate::store::spill::read(log, &parsed).map_err(|e| TuiError::Demo(e.to_string()))?;
        // The lines of the hash-checked region that name the expected target.
        let region = String::from_utf8_lossy(&region);
        let found: Vec<&str> = region
            .lines()
            .filter(|l| !expected_target.is_empty() && l.contains(&expected_target))
            .collect();
        events.push(serde_json::json!({"type": "tool_call", "call_id": "restore",
            "name": "shell", "input": {"cmd": format!("ctxlens spill get {} {handle}", log.display())}}));
        events.push(serde_json::json!({"type": "tool_result", "call_id": "restore",
            "text": format!("(the spilled region, hash-checked; {} lines name {expected_target})\n{}", found.len(), found.join("\n"))}));
    }
    Ok((events, Some(stopped)))
}

/// Appends the scenario to `log`, one event every `delay`, waiting at the proposal for a
/// decision on `k1`; stops early when `stop` is set.
pub fn write_scenario(
    scenario: &Scenario,
    log: &Path,
    delay: Duration,
    stop: &AtomicBool,
    outcome: &Mutex<Outcome>,
) -> Result<(), TuiError> {
    let mut seq = 0u64;
    let mut append = |event: &Value, handle: &str, contract: &str| -> Result<(), TuiError> {
        seq += 1;
        let mut object = event.as_object().cloned().unwrap_or_else(Map::new);
        object.insert("seq".into(), Value::from(seq));
        object.insert("ts".into(), Value::from(crate::clock::now()));
        let escaped = |s: &str| {
            let json = Value::from(s).to_string();
            json[1..json.len() - 1].to_owned()
        };
        let line = Value::Object(object)
            .to_string()
            .replace("{log}", &escaped(&log.display().to_string()))
            .replace("{handle}", &escaped(handle))
            .replace("{contract}", &escaped(contract));
        // The simulated runtime appends whole lines, as a real one must.
        crate::store::atomic::append_line(log, line.as_bytes()).map_err(file_error(log))
    };
    let pause = |d: Duration| {
        std::thread::sleep(d);
        !stop.load(Ordering::Relaxed)
    };
    for event in &scenario.prefix {
        if !pause(delay) {
            return Ok(());
        }
        append(event, "", "")?;
    }
    if !pause(delay) {
        return Ok(());
    }
    append(&scenario.proposal, "", "")?;
    append(&scenario.waiting, "", "")?;
    let decision = loop {
        if !pause(Duration::from_millis(100)) {
            return Ok(());
        }
        let sidecar = decisions::read(log).map_err(file_error(log))?;
        if let Some(d) = sidecar.decisions.into_iter().find(|d| d.compaction == "k1") {
            break d;
        }
    };
    if let Ok(mut o) = outcome.lock() {
        o.decision = Some((decision.verdict, decision.handle.clone()));
    }
    let handle = decision.handle.unwrap_or_default();
    let contract = decision.contract.unwrap_or_default();
    let branch = scenario
        .branches
        .get(decision.verdict.as_str())
        .ok_or_else(|| {
            TuiError::Demo(format!(
                "the scenario has no branch for {}",
                decision.verdict.as_str()
            ))
        })?;
    for event in branch {
        if !pause(delay) {
            return Ok(());
        }
        if event.get("type").and_then(Value::as_str) == Some("@check") {
            let action = event.get("action").cloned().unwrap_or(Value::Null);
            let (events, stopped) = tripwire_events(log, &action)?;
            for event in &events {
                append(event, &handle, &contract)?;
            }
            if let Ok(mut o) = outcome.lock() {
                o.stopped = stopped;
            }
            continue;
        }
        append(event, &handle, &contract)?;
    }
    if let Ok(mut o) = outcome.lock() {
        o.finished = true;
    }
    Ok(())
}

/// A new folder of ours for the demo's files, as `mkdtemp` makes one: a random name,
/// created 0700, never one that was there already (a folder or a link another user
/// planted at a name one could guess). It stays when the demo ends, for `audit`.
fn demo_folder() -> Result<PathBuf, TuiError> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("ctxlens-demo-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(file_error(&std::env::temp_dir()))?;
    Ok(dir.keep())
}

/// What the demo says when the TUI closes: what the decision led to (only what the
/// simulated agent got to), and the files that exist.
pub fn closing_words(outcome: &Outcome, log: &Path) -> String {
    let story = match &outcome.decision {
        None => "You quit before deciding on k1. The demo's agent stopped with the view: nothing was decided or applied.".to_owned(),
        Some((verdict, _)) if !outcome.finished => format!(
            "You decided {} on k1, and quit before the agent went on: run the demo again to see where that leads.",
            verdict.as_str()
        ),
        Some((Verdict::Approve, _)) => "You approved k1 although the gate said SPILL. The summary had dropped the rollback revision 4f9a2c81d0e7; when the smoke tests failed the agent made up 7b1e9d03c2a5, and its rollback failed with \"resource not found\". The non-idempotent alert named the regenerated binding.".to_owned(),
        Some((Verdict::Spill, handle)) => format!(
            "You spilled k1. The region went to the spill store as {}. When the smoke tests failed, the agent, which had lost the revision with the summary, went to roll back to 7b1e9d03c2a5. {} The runtime restored the region from the handle, and the rollback went to 4f9a2c81d0e7 as planned.",
            handle.as_deref().unwrap_or("(no handle)"),
            outcome.stopped.as_deref().map_or("The tripwire did not fire.".to_owned(), |s| format!("The runtime's tripwire ({s}) stopped it first."))
        ),
        Some((Verdict::Refetch, _)) => "You asked for a refetch. The runtime summarized again from the original events (k2 keeps 4f9a2c81d0e7) and the rollback went to the right revision.".to_owned(),
        Some((Verdict::Refuse, _)) => "You refused k1. The context stayed whole and the rollback went to 4f9a2c81d0e7.".to_owned(),
        Some((Verdict::Preserve, _)) => "You preserved k1. The runtime did not apply its summary: it took the contract (ctxlens contract), summarized the same range again as k2 with the contract at the end, the gate approved k2, and when the smoke tests failed the rollback went to 4f9a2c81d0e7, kept verbatim.".to_owned(),
        Some((Verdict::Degrade, _)) => "You applied k1 and marked the session degraded: it is not to be trusted without review. The rollback target was lost with the summary.".to_owned(),
    };
    // Only the files this run wrote: no decision, no decisions file; no spill, no store.
    let files: String = [
        ("log", log.to_path_buf()),
        ("decisions", crate::store::paths::decisions_path(log)),
        ("spills", crate::store::paths::spill_dir(log)),
    ]
    .into_iter()
    .filter(|(_, path)| path.exists())
    .map(|(what, path)| format!("  {what:<10} {}\n", path.display()))
    .collect();
    format!(
        "{story}\n\nThe files stay for you to inspect:\n{files}Try: ctxlens audit {}\n",
        log.display()
    )
}

/// Runs the demo: the writer in the background, the TUI in front, then the story.
pub fn run() -> Result<(), TuiError> {
    let scenario = Scenario::builtin()?;
    let dir = demo_folder()?;
    let log = dir.join("staging-migrate.jsonl");
    crate::store::atomic::write(&log, b"").map_err(file_error(&log))?;
    let delay = std::env::var("CTXLENS_DEMO_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_millis(600), Duration::from_millis);
    let stop = Arc::new(AtomicBool::new(false));
    let outcome = Arc::new(Mutex::new(Outcome::default()));
    let writer = {
        let (stop, outcome, log) = (stop.clone(), outcome.clone(), log.clone());
        std::thread::spawn(move || write_scenario(&scenario, &log, delay, &stop, &outcome))
    };
    let shown = super::run::run(&log, crate::store::files_beside_each_log());
    stop.store(true, Ordering::Relaxed);
    let written = writer
        .join()
        .unwrap_or_else(|_| Err(TuiError::Demo("the writer stopped".into())));
    shown?;
    written?;
    let outcome = outcome.lock().map(|o| o.clone()).unwrap_or_default();
    print!("{}", crate::sanitize::block(&closing_words(&outcome, &log)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scenario_parses_and_has_a_branch_for_every_verdict() {
        let scenario = Scenario::builtin().unwrap();
        for verdict in [
            "approve", "spill", "refetch", "refuse", "preserve", "degrade",
        ] {
            assert!(scenario.branches.contains_key(verdict), "{verdict}");
        }
        assert_eq!(scenario.prefix.len(), 12, "the proposal's range is 2–12");
    }

    #[test]
    fn the_demo_folder_is_new_private_and_unguessable() {
        use std::os::unix::fs::PermissionsExt;
        let first = demo_folder().unwrap();
        let second = demo_folder().unwrap();
        assert_ne!(first, second);
        let mode = std::fs::metadata(&first).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert!(!first
            .to_string_lossy()
            .contains(&std::process::id().to_string()));
        std::fs::remove_dir(first).unwrap();
        std::fs::remove_dir(second).unwrap();
    }
}
