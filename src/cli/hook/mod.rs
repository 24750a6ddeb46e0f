//! `ctxlens hook claude-code|codex …`: agent hooks that keep bindings alive across a
//! compaction and, with `--hold`, let an operator decide it live. A hook must never break
//! the agent: on input it does not understand it says so on stderr and lets the
//! compaction go ahead. Only an operator's refuse blocks it.

mod copilot;
mod install;
mod opencode;
pub(crate) mod setup;
mod splice;
pub(crate) use install::{Agent, InstallError};

use crate::session::waiting::DecisionWait;
use crate::store::channel::Backend;
use crate::store::ledger::{self, Entry, LedgerToken};
use ctxlens_core::analysis::at_risk::{
    candidates, dropped_by, keep_instructions, restore_context, Candidate, PendingRegion,
};
use ctxlens_core::model::{Decision, EventKind, Verdict};

use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the hook has to say on stderr, written when it exits: Claude Code shows the
/// stderr of a hook that blocks as the reason, so a blocking hook says one line only.
static LOG: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn log(message: &str) {
    if let Ok(mut log) = LOG.lock() {
        log.push(format!("ctxlens hook: {}", crate::sanitize::line(message)));
    }
}

/// Writes the log to stderr, or only `reason` when the hook blocks the compaction.
fn flush_log(blocking: Option<&str>) {
    let lines = LOG
        .lock()
        .map(|mut l| std::mem::take(&mut *l))
        .unwrap_or_default();
    match blocking {
        Some(reason) => eprintln!("{}", crate::sanitize::line(reason)),
        None => {
            for line in lines {
                eprintln!("{line}");
            }
        }
    }
}

fn now() -> String {
    crate::clock::now()
}

/// Why a hook did nothing. It is logged, and the agent goes on: a hook never breaks it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HookError {
    #[error("cannot read stdin: {0}")]
    Stdin(#[source] std::io::Error),
    #[error("stdin is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("stdin is not a JSON object")]
    NotAnObject,
    #[error("no {0} in the hook input")]
    Missing(&'static str),
    #[error("{}: {why}", path.display())]
    Transcript { path: PathBuf, why: String },
    #[error(transparent)]
    Load(#[from] crate::session::LoadError),
    #[error("cannot store the region: {0}")]
    Spill(#[source] crate::store::StoreError),
    #[error("cannot write the ledger: {0}")]
    Ledger(#[source] std::io::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error("no ledger entry: the pre-compact hook did not run")]
    NoLedgerEntry,
    #[error("the hook failed: {0}")]
    Failed(String),
}

fn transcript_error(path: &std::path::Path, why: impl std::fmt::Display) -> HookError {
    HookError::Transcript {
        path: path.to_owned(),
        why: why.to_string(),
    }
}

/// The hook's JSON from stdin, or why it cannot be used.
fn read_input(stdin: &mut impl Read) -> Result<Value, HookError> {
    let mut bytes = Vec::new();
    stdin
        .take(16 << 20)
        .read_to_end(&mut bytes)
        .map_err(HookError::Stdin)?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(mut input)) => {
            // Copilot CLI names the fields in camelCase.
            for (theirs, ours) in [
                ("transcriptPath", "transcript_path"),
                ("sessionId", "session_id"),
            ] {
                if !input.contains_key(ours) {
                    if let Some(value) = input.get(theirs).cloned() {
                        input.insert(ours.to_owned(), value);
                    }
                }
            }
            Ok(Value::Object(input))
        }
        Ok(_) => Err(HookError::NotAnObject),
        Err(e) => Err(HookError::NotJson(e)),
    }
}

/// The transcript the hook input names, if it is one a hook may write beside: a regular
/// file (not a link) of the invoking user, under Claude Code's projects folder, Codex's
/// sessions folder, Qwen Code's projects folder, Copilot CLI's session state or the
/// session's cwd. A hook run as root on `/etc/passwd` must not
/// create `/etc/passwd.ctxlens-ledger.jsonl`.
fn transcript_of(input: &Value) -> Result<PathBuf, HookError> {
    use std::os::unix::fs::MetadataExt;
    let path = input
        .get("transcript_path")
        .and_then(Value::as_str)
        .ok_or(HookError::Missing("transcript_path"))?;
    let path = PathBuf::from(path);
    let meta = std::fs::symlink_metadata(&path).map_err(|e| transcript_error(&path, e))?;
    if !meta.file_type().is_file() {
        return Err(transcript_error(&path, "not a regular file"));
    }
    if meta.uid() != crate::store::private::euid() {
        return Err(transcript_error(&path, "not your file"));
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let env_dir = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let roots = [
        env_dir("CLAUDE_CONFIG_DIR").map(|d| d.join("projects")),
        home.as_ref().map(|h| h.join(".claude/projects")),
        env_dir("CODEX_HOME").map(|d| d.join("sessions")),
        home.as_ref().map(|h| h.join(".codex/sessions")),
        env_dir("QWEN_HOME").map(|d| d.join("projects")),
        home.as_ref().map(|h| h.join(".qwen/projects")),
        env_dir("COPILOT_HOME").map(|d| d.join("session-state")),
        home.as_ref().map(|h| h.join(".copilot/session-state")),
        crate::store::mirror::root().ok(),
        input.get("cwd").and_then(Value::as_str).map(PathBuf::from),
    ];
    let real = path
        .canonicalize()
        .map_err(|e| transcript_error(&path, e))?;
    let inside = roots
        .iter()
        .flatten()
        .filter_map(|root| root.canonicalize().ok())
        .any(|root| real.starts_with(&root) && real != root);
    if !inside {
        return Err(transcript_error(
            &path,
            "not under the Claude Code projects folder, the Codex sessions folder, the Qwen Code projects folder, the Copilot CLI session state, ctxlens's copies of OpenCode's sessions or the session's cwd",
        ));
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
        class: ctxlens_core::analysis::classify(&t.token),
        why: t.why.clone(),
    }
}

/// The agent events ctxlens hooks into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookEvent {
    /// Before a compaction: spill the region, record the ledger, maybe hold.
    PreCompact,
    /// A session starts after a compaction: put back what the summary dropped.
    SessionStart,
    /// After a compaction: record what the summary dropped.
    PostCompact,
}

/// Runs one hook of `agent` on this process's stdin; the exit code.
pub(crate) fn run_from_stdin(
    agent: Agent,
    hook: HookEvent,
    hold: Option<&crate::cli::args::HoldArgs>,
    stdout: &mut impl std::io::Write,
) -> u8 {
    let stdin = &mut std::io::stdin().lock();
    let (holds, timeout) = hold.map_or((false, None), |h| (h.hold, h.timeout));
    run(agent, hook, holds, timeout, stdin, stdout)
}

/// Runs one hook of `agent`; the exit code. Problems are logged, never fatal.
pub(crate) fn run(
    agent: Agent,
    hook: HookEvent,
    hold: bool,
    timeout: Option<f64>,
    stdin: &mut impl Read,
    stdout: &mut impl std::io::Write,
) -> u8 {
    // A hook that fails, even by a bug of ours, answers as its failure policy says
    // (docs/agents.md): never a crash the agent reads as "nothing to do".
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        hook_result(agent, hook, hold, timeout, stdin, stdout)
    }))
    .unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(HookError::Failed(why))
    });
    match result {
        Ok(Answer::Proceed) => {
            flush_log(None);
            0
        }
        Ok(Answer::Block(reason)) => {
            flush_log(Some(&reason));
            2
        }
        Err(e) => {
            log(&format!("{e}; nothing done"));
            if hook == HookEvent::PreCompact {
                answer_failure(agent, &e, stdout);
            }
            flush_log(None);
            0
        }
    }
}

/// What a summariser is asked when ctxlens could not say which identifiers are at
/// risk: the hook's failure answer and the OpenCode plugin's, for a hook that crashed.
pub(super) const KEEP_EVERY_IDENTIFIER: &str = "Keep every identifier, path, revision, id, \
    host, port and name from the conversation verbatim in the summary.";

/// The failure policy of a pre-compaction hook: the compaction goes ahead (a broken
/// hook never stops the agent), the person is told why on stderr, and a summariser
/// that can be told (Qwen Code's, OpenCode's) is asked to keep every identifier
/// verbatim, since ctxlens could not say which are at risk.
fn answer_failure(agent: Agent, error: &HookError, stdout: &mut impl std::io::Write) {
    if !matches!(agent, Agent::QwenCode | Agent::OpenCode) {
        return;
    }
    let context = format!(
        "ctxlens could not check this compaction ({}). {KEEP_EVERY_IDENTIFIER}",
        crate::sanitize::line(&error.to_string())
    );
    let output = match agent {
        Agent::OpenCode => json!({"context": [context], "failed": true}),
        _ => json!({"hookSpecificOutput": {
            "hookEventName": "PreCompact",
            "additionalContext": context,
        }}),
    };
    let _ = writeln!(stdout, "{}", crate::cli::json_line(&output));
}

fn hook_result(
    agent: Agent,
    hook: HookEvent,
    hold: bool,
    timeout: Option<f64>,
    stdin: &mut impl Read,
    stdout: &mut impl std::io::Write,
) -> Result<Answer, HookError> {
    read_input(stdin)
        .and_then(|input| match agent {
            Agent::OpenCode => opencode_input(input),
            _ => Ok(input),
        })
        .and_then(|input| match hook {
            HookEvent::PreCompact => {
                let manual = input.get("trigger").and_then(Value::as_str) == Some("manual");
                pre_compact(&input, hold, timeout).map(|held| {
                    if matches!(agent, Agent::QwenCode | Agent::OpenCode) {
                        answer_summariser(agent, held.decision, &held.at_risk, stdout)
                    } else {
                        answer(agent, held.decision, manual, stdout)
                    }
                })
            }
            HookEvent::SessionStart => session_start(&input, stdout).map(|()| Answer::Proceed),
            HookEvent::PostCompact => post_compact(agent, &input, stdout).map(|()| Answer::Proceed),
        })
}

/// How the hook exits: 0, or 2 with one line that says why (Claude Code's block).
enum Answer {
    Proceed,
    Block(String),
}

/// How long `--hold` waits without `--timeout`: agents kill a hook that outlives their
/// own hook timeout, which `install` sets a little longer than this.
pub(crate) const DEFAULT_HOLD_SECS: f64 = 300.0;

/// What the agent is told of the operator's decision, in the way each agent reads a
/// pre-compaction hook (see docs/agents.md for the versions this rests on).
fn answer(
    agent: Agent,
    decision: Option<Decision>,
    manual: bool,
    stdout: &mut impl std::io::Write,
) -> Answer {
    let Some(decision) = decision else {
        return Answer::Proceed;
    };
    let by = decision.by.as_deref().unwrap_or("an operator");
    let reason = format!(
        "ctxlens: {} {} by {by}",
        decision.compaction,
        match decision.verdict {
            Verdict::Refuse => "refused",
            Verdict::Preserve => "preserved",
            _ => "decided",
        }
    );
    match (agent, decision.verdict) {
        // Claude Code blocks a compaction on exit 2 and shows stderr.
        (Agent::ClaudeCode, Verdict::Refuse) => {
            let why = decision
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            Answer::Block(format!(
                "{reason}{why}: the compaction is blocked and the context stays as it is"
            ))
        }
        // Claude Code appends a successful hook's plain stdout to the compaction
        // instructions: the contract goes to the summarizer.
        (Agent::ClaudeCode, Verdict::Preserve) => {
            let contract = decision.contract.unwrap_or_default();
            let _ = write!(stdout, "{}", crate::sanitize::block(&contract));
            Answer::Proceed
        }
        // Codex ignores a PreCompact hook's plain stdout, so a contract cannot reach its
        // summarizer. Stopping an auto-compaction would end the user's turn mid-work:
        // it goes ahead, and the SessionStart hook puts the contract back into the
        // context. A manual /compact is stopped, and the person sees the contract.
        (Agent::Codex, Verdict::Preserve) if !manual => Answer::Proceed,
        // Codex stops a compaction on `continue: false`.
        (Agent::Codex, Verdict::Refuse | Verdict::Preserve) => {
            let message = match decision.contract {
                Some(contract) => format!("{reason}. {contract}"),
                None => reason.clone(),
            };
            let output = json!({"continue": false, "stopReason": reason, "systemMessage": message});
            let _ = writeln!(stdout, "{}", crate::cli::json_line(&output));
            Answer::Proceed
        }
        _ => Answer::Proceed,
    }
}

/// Qwen Code adds a PreCompact hook's `additionalContext` (JSON, not plain stdout) to
/// its summariser's instructions, and OpenCode's plugin adds the hook's `context` lines
/// to the summariser's prompt; neither starts a session after a compaction. So the
/// identifiers at risk, the spill handle and a preserved contract go to the summariser
/// here. Neither can be made to refuse (Qwen Code ignores a block; an OpenCode plugin
/// that throws only defers the compaction to the next turn), so a refuse is not
/// recorded for their compactions (`Format::refuses_held`).
fn answer_summariser(
    agent: Agent,
    decision: Option<Decision>,
    at_risk: &str,
    stdout: &mut impl std::io::Write,
) -> Answer {
    let mut context = at_risk.to_owned();
    if let Some(contract) = decision
        .filter(|d| d.verdict == Verdict::Preserve)
        .and_then(|d| d.contract)
    {
        context.push_str(&contract);
    }
    if !context.trim().is_empty() {
        let context = crate::sanitize::block(&context);
        let output = match agent {
            Agent::OpenCode => json!({"context": [context]}),
            _ => json!({"hookSpecificOutput": {
                "hookEventName": "PreCompact",
                "additionalContext": context,
            }}),
        };
        let _ = writeln!(stdout, "{}", crate::cli::json_line(&output));
    }
    Answer::Proceed
}

/// OpenCode's plugin names the session, not a file: its transcript is ctxlens's copy of
/// the session, brought up to date first (the compaction request is in it by now).
fn opencode_input(mut input: Value) -> Result<Value, HookError> {
    let session = input
        .get("sessionID")
        .and_then(Value::as_str)
        .ok_or(HookError::Missing("sessionID"))?
        .to_owned();
    let db = crate::session::source::default_database().ok_or_else(|| HookError::Transcript {
        path: PathBuf::from("opencode.db"),
        why: "no OpenCode database at $OPENCODE_DB or $XDG_DATA_HOME/opencode/opencode.db"
            .to_owned(),
    })?;
    let copy =
        crate::session::mirror::refresh_one(&db, &session).map_err(|e| transcript_error(&db, e))?;
    if let Some(object) = input.as_object_mut() {
        object.insert(
            "transcript_path".to_owned(),
            Value::from(copy.display().to_string()),
        );
        // The copy is the transcript whatever the agent's cwd: no other root applies.
        object.remove("cwd");
    }
    Ok(input)
}

/// How long a held hook waits. A bad --timeout (hand-written, or from an old install)
/// must not break the agent: the hold falls back to the default.
fn hold_wait(timeout: Option<f64>, hold: bool) -> Duration {
    let secs = timeout.unwrap_or(DEFAULT_HOLD_SECS);
    if secs.is_finite() && secs > 0.0 && secs <= install::MAX_HOLD_SECS {
        return Duration::from_secs_f64(secs);
    }
    if hold {
        log(&format!(
            "--timeout {secs} is not 1 to {} seconds; holding {DEFAULT_HOLD_SECS} s",
            install::MAX_HOLD_SECS
        ));
    }
    Duration::from_secs_f64(DEFAULT_HOLD_SECS)
}

/// What the pre-compact hook answers with: the operator's decision (or `None` when
/// there is none to follow), and what to keep of the region for a summariser that can
/// be told (the identifiers at risk and how to read the region back).
struct PreCompactAnswer {
    decision: Option<Decision>,
    at_risk: String,
}

/// Spills the region, records the ledger and, with `hold`, waits for an operator's
/// decision.
fn pre_compact(
    input: &Value,
    hold: bool,
    timeout: Option<f64>,
) -> Result<PreCompactAnswer, HookError> {
    let transcript = transcript_of(input)?;
    let session = crate::session::read(&transcript)?;
    let region = PendingRegion::of(&session);
    let backend = backend_of(&transcript);
    let handle = spill_region(&transcript, &backend, &region)?;
    let found = candidates(&session, region.last_compaction);
    let at_risk = {
        let refs: Vec<&Candidate> = found.iter().collect();
        keep_instructions(
            &refs,
            handle.as_deref(),
            &format!("{} spill get {}", program(), transcript.display()),
        )
    };
    let wait = hold_wait(timeout, hold);
    let trigger = input
        .get("trigger")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = record_pre_compact(
        &transcript,
        &region,
        handle,
        &found,
        trigger,
        hold.then_some(wait),
    )?;
    if !hold {
        return Ok(PreCompactAnswer {
            decision: None,
            at_risk,
        });
    }
    let decision = hold_for_decision(&transcript, &backend, id, wait);
    Ok(PreCompactAnswer { decision, at_risk })
}

/// The region stored in the spill store, under its handle; `None` when it is empty.
fn spill_region(
    transcript: &Path,
    backend: &Backend,
    region: &PendingRegion,
) -> Result<Option<String>, HookError> {
    if region.is_empty() {
        return Ok(None);
    }
    let mut bytes = crate::session::open_range(transcript, region.start, region.end)
        .map_err(|e| HookError::Spill(e.into()))?;
    let handle = backend.spills.put(&mut bytes).map_err(HookError::Spill)?;
    Ok(Some(handle.to_string()))
}

/// The ledger's `pre-compact` line for this compaction (with `hold`, until when the
/// hook waits): its id.
fn record_pre_compact(
    transcript: &Path,
    region: &PendingRegion,
    handle: Option<String>,
    found: &[Candidate],
    trigger: Option<String>,
    hold: Option<Duration>,
) -> Result<String, HookError> {
    let hold_until = hold.map(|wait| crate::clock::seconds(std::time::SystemTime::now() + wait));
    let entry = ledger::append_pre_compact(transcript, |n| Entry::PreCompact {
        id: format!("pre-compact-{n}"),
        ts: now(),
        trigger,
        handle: handle.clone(),
        from_byte: region.start,
        to_byte: region.end,
        tokens: found.iter().map(to_ledger).collect(),
        hold_until,
    })
    .map_err(HookError::Ledger)?;
    let Entry::PreCompact { id, .. } = entry else {
        return Err(HookError::NoLedgerEntry);
    };
    log(&format!(
        "{id}: stored {} bytes of the region as {}; the ledger holds {} identifiers",
        region.end - region.start,
        handle.as_deref().unwrap_or("(nothing to store)"),
        found.len()
    ));
    Ok(id)
}

/// Waits up to `wait` for an operator's decision on `id`, then records in the ledger
/// that the hook let it go: the decision, or `None` (the compaction goes ahead).
fn hold_for_decision(
    transcript: &Path,
    backend: &Backend,
    id: String,
    wait: Duration,
) -> Option<Decision> {
    log(&format!(
        "holding the compaction for {} s until an operator decides (the TUI shows it PENDING; or: {} decide {} {id} approve|spill|preserve|refuse)",
        wait.as_secs(),
        program(),
        transcript.display()
    ));
    let waited = wait_for_decision(transcript, backend, &id, wait);
    // Viewers stop showing it as held the moment the hook answers.
    let released = Entry::Released {
        id,
        ts: now(),
        verdict: waited.as_ref().ok().map(|d| d.verdict),
        why: waited.as_ref().err().cloned(),
    };
    if let Err(e) = ledger::append(transcript, &released) {
        log(&format!("cannot write the ledger: {e}"));
    }
    waited.ok()
}

/// How often the held hook looks at the channel when no event woke it: a fallback for
/// file systems that report no file events.
const HOLD_POLL: Duration = Duration::from_millis(500);

/// Waits up to `wait` for a decision on `id`, on the channel the hook uses: the
/// decision, or `None` and why when the time runs out (the compaction goes ahead). It
/// sleeps until a file event in the transcript's folder or a decision on the server
/// wakes it. A channel that fails to answer (a cluster that lost its majority) is asked
/// again until the time runs out: it may come back, and the agent is never failed.
/// Without a decision, why there is none (the compaction goes ahead).
fn wait_for_decision(
    transcript: &std::path::Path,
    backend: &Backend,
    id: &str,
    wait: Duration,
) -> Result<Decision, String> {
    let deadline = Instant::now() + wait;
    let mut waiting = match DecisionWait::start(transcript, &*backend.channel, id) {
        Ok(waiting) => waiting,
        Err(e) => {
            // A store that cannot be asked at all gives the timeout's answer now.
            let why = format!("the decisions cannot be read: {e}");
            log(&format!("{id}: {why}; the compaction goes ahead"));
            return Err(why);
        }
    };
    let mut failing: Option<String> = None;
    loop {
        match waiting.check() {
            Ok(Some(decision)) => {
                log(&format!(
                    "{id}: {} by {}",
                    decision.verdict.as_str(),
                    decision.by.as_deref().unwrap_or("someone")
                ));
                return Ok(decision);
            }
            Ok(None) => failing = None,
            Err(e) => {
                if failing.is_none() {
                    log(&format!(
                        "{id}: the decisions cannot be read: {e}; still waiting"
                    ));
                }
                failing = Some(e.to_string());
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let why = match failing.or_else(|| waiting.trouble()) {
                Some(e) => {
                    format!("no decision before the timeout; the decisions could not be read: {e}")
                }
                None => "no decision before the timeout".to_owned(),
            };
            log(&format!("{id}: {why}; the compaction goes ahead"));
            return Err(why);
        }
        waiting.sleep(left.min(HOLD_POLL));
    }
}

/// Where the hooks keep spills and read decisions: the NATS server of
/// `CTXLENS_NATS_URL` (with `CTXLENS_NATS_CREDS`, `CTXLENS_NATS_CA` and
/// `CTXLENS_NATS_REPLICAS`) when the agent's environment names one, files beside the
/// transcript otherwise. A server that cannot be reached never breaks the agent: the
/// hook says so and uses the files.
fn backend_of(transcript: &std::path::Path) -> crate::store::channel::Backend {
    let fleet = crate::cli::args::FleetArgs {
        nats: std::env::var("CTXLENS_NATS_URL").ok(),
        nats_creds: std::env::var_os("CTXLENS_NATS_CREDS").map(Into::into),
        nats_ca: std::env::var_os("CTXLENS_NATS_CA").map(Into::into),
        nats_replicas: std::env::var("CTXLENS_NATS_REPLICAS")
            .ok()
            .and_then(|n| n.parse().ok()),
    };
    match crate::cli::fleet::backend(transcript, &fleet) {
        Ok(backend) => backend,
        Err(e) => {
            log(&format!(
                "{}; decisions and spills stay beside the transcript",
                e
            ));
            crate::store::channel::Backend::files(transcript)
        }
    }
}

/// This binary's path, so commands put in an agent's context run the ctxlens that
/// installed the hooks.
pub(crate) fn program() -> String {
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "ctxlens".into())
}

/// What the pre-compact hook recorded of the compaction under way.
struct PreCompactRecord {
    id: String,
    /// The identifiers it named.
    tokens: Vec<LedgerToken>,
    /// The spill of the region, when there is one.
    handle: Option<String>,
}

/// The newest pre-compaction entry of the transcript's ledger.
fn latest_pre_compact(transcript: &std::path::Path) -> Result<PreCompactRecord, HookError> {
    let entries = ledger::read(transcript).map_err(HookError::Ledger)?;
    match ledger::latest_pre_compact(&entries) {
        Some(Entry::PreCompact {
            id, tokens, handle, ..
        }) => Ok(PreCompactRecord {
            id: id.clone(),
            tokens: tokens.clone(),
            handle: handle.clone(),
        }),
        _ => Err(HookError::NoLedgerEntry),
    }
}

fn session_start(input: &Value, stdout: &mut impl std::io::Write) -> Result<(), HookError> {
    if input.get("source").and_then(Value::as_str) != Some("compact") {
        return Ok(());
    }
    let transcript = transcript_of(input)?;
    let PreCompactRecord { id, tokens, handle } = latest_pre_compact(&transcript)?;
    let session = crate::session::read(&transcript)?;
    let summary = session.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Compaction(c) => c.summary.as_ref().map(|s| s.text.clone()),
        _ => None,
    });
    let all: Vec<Candidate> = tokens.iter().map(from_ledger).collect();
    let dropped = match &summary {
        Some(text) => dropped_by(text, &all, session.cwd.as_deref()),
        None => all.iter().collect(),
    };
    let mut context = restore_context(
        &dropped,
        handle.as_deref(),
        &format!("{} spill get {}", program(), transcript.display()),
        summary.is_some(),
    );
    // Preserved: the contract comes back whatever the summary made of it, in case
    // this Claude Code did not take the hook's output into its instructions.
    let sidecar = backend_of(&transcript).channel.standing()?;
    if let Some(contract) = sidecar
        .decisions
        .iter()
        .find(|d| d.compaction == id && d.verdict == Verdict::Preserve)
        .and_then(|d| d.contract.as_deref())
    {
        context.push_str(contract);
    }
    let output = json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}});
    writeln!(stdout, "{}", crate::cli::json_line(&output))?;
    log(&format!(
        "restored {} identifiers to the context",
        dropped.len()
    ));
    Ok(())
}

fn post_compact(
    agent: Agent,
    input: &Value,
    stdout: &mut impl std::io::Write,
) -> Result<(), HookError> {
    let transcript = transcript_of(input)?;
    let PreCompactRecord { id, tokens, handle } = latest_pre_compact(&transcript)?;
    let all: Vec<Candidate> = tokens.iter().map(from_ledger).collect();
    // Claude Code hands the summary over; Codex does not (its summary may be encrypted):
    // there, every ledger identifier is at risk.
    let summary = input.get("compact_summary").and_then(Value::as_str);
    if agent == Agent::ClaudeCode && summary.is_none() {
        return Err(HookError::Missing("compact_summary"));
    }
    let session_cwd = input.get("cwd").and_then(Value::as_str);
    let dropped: Vec<LedgerToken> = match summary {
        Some(summary) => dropped_by(summary, &all, session_cwd)
            .into_iter()
            .map(to_ledger)
            .collect(),
        None => all.iter().map(to_ledger).collect(),
    };
    for t in &dropped {
        log(&format!(
            "{id}: the summary dropped {} ({})",
            t.token, t.why
        ));
    }
    if agent == Agent::Codex {
        // Codex shows a hook's systemMessage to the person: what to read back, and how.
        let refs: Vec<&Candidate> = all.iter().collect();
        let context = restore_context(
            &refs,
            handle.as_deref(),
            &format!("{} spill get {}", program(), transcript.display()),
            false,
        );
        let output = json!({"systemMessage": context});
        writeln!(stdout, "{}", crate::cli::json_line(&output))?;
    }
    ledger::append(
        &transcript,
        &Entry::PostCompact {
            id: id.clone(),
            ts: now(),
            dropped,
        },
    )
    .map_err(HookError::Ledger)
}
