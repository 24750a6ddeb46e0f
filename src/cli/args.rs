//! The command line (docs/json-report.md), as clap derives it.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "ctxlens",
    version,
    about = "See what each context compaction of an LLM agent destroys, and gate it.",
    after_help = "Examples:\n  ctxlens demo\n  ctxlens session.jsonl\n  ctxlens audit sample-sessions/seed-migration-rollback.jsonl\n  ctxlens gate session.jsonl k3 && echo approved"
)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    /// A session log to open in the TUI (followed as it grows), or a folder of logs.
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub fleet: FleetArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Watch a simulated agent session live: it proposes a compaction that drops its
    /// rollback revision and waits for your decision through the real decision channel.
    #[command(
        after_help = "Example:\n  ctxlens demo        (then ] to the compaction, s to spill, q to quit)"
    )]
    Demo,
    /// Report every compaction of one or more logs: its signals, what it dropped, the
    /// gate's verdict.
    ///
    /// Exit status: 0 no error finding, 1 an error finding, 2 unusable input (with
    /// several files, the highest).
    #[command(
        after_help = "Example:\n  ctxlens audit --json session.jsonl other.jsonl | jq .compactions"
    )]
    Audit(AuditArgs),
    /// Print the gate's verdict for one compaction.
    ///
    /// Exit status: 0 approve, 1 spill, refetch or refuse, 2 unusable input.
    #[command(after_help = "Example:\n  ctxlens gate session.jsonl k3 --json")]
    Gate(GateArgs),
    /// Record an operator's decision for a compaction in <LOG>.decisions.jsonl (spill
    /// first stores the region in <LOG>.spill/).
    ///
    /// Exit status: 0 recorded, 1 a decision already stands (it is printed), 2 unusable
    /// input or nothing could be recorded.
    #[command(
        after_help = "Example:\n  ctxlens decide session.jsonl k3 spill --by alice --reason \"rollback target\""
    )]
    Decide(DecideArgs),
    /// For an agent runtime: wait until a decision stands for a compaction and print it
    /// as one JSON line.
    ///
    /// Exit status: 0 decided, 1 timed out (prints nothing), 2 unusable input.
    #[command(after_help = "Example:\n  ctxlens await session.jsonl k3 --timeout 300 --auto")]
    Await(AwaitArgs),
    /// Print the contract: the identifiers a summary must keep verbatim, and why (for a
    /// summarizer's prompt, or the block a re-proposed summary ends with).
    ///
    /// Without ID: what the state at the newest event needs. With ID: what that
    /// compaction's summary dropped of what was at stake.
    ///
    /// Exit status: 0 at least one identifier, 1 an empty contract, 2 unusable input.
    #[command(after_help = "Example:\n  ctxlens contract session.jsonl k3 --json")]
    Contract(ContractArgs),
    /// For an agent runtime, before it acts: does this action follow the plan the
    /// newest applied compaction was taken under?
    ///
    /// Exit status: 0 it follows (prints {"diverges":false}), 1 it diverges (prints
    /// what was expected and the spill handle to restore from), 2 unusable input.
    #[command(
        after_help = "Example:\n  ctxlens check session.jsonl --action '{\"name\":\"rollback\",\"target\":\"7b1e9d03c2a5\",\"step\":\"s3\"}'"
    )]
    Check(CheckArgs),
    /// Write one session as a page to read or paste: its metadata, the conversation,
    /// and for each compaction the summary, the region's tokens with what became of
    /// them, the findings and the decision.
    ///
    /// HTML is one self-contained page (inline CSS, no script); Markdown is for a pull
    /// request or an issue; JSON is the audit report with the conversation and tokens.
    ///
    /// Exit status: 0 written, 2 unusable input or output.
    #[command(
        after_help = "Example:\n  ctxlens export session.jsonl -o session.html\n  ctxlens export session.jsonl --format markdown | pbcopy"
    )]
    Export(ExportArgs),
    /// The spill store: read a spilled region back by its handle.
    #[command(subcommand)]
    Spill(SpillCommand),
    /// Publish session logs to NATS JetStream for a fleet view: every line once, on
    /// ctxlens.<host>.<session>.events; a folder means every log in it. Follows them
    /// until stopped, resuming where the server's copy ends.
    ///
    /// Exit status: 0 stopped after --once, 2 no server or unreadable logs.
    #[command(after_help = "Example:\n  ctxlens ship --nats nats://ops:4222 ~/.claude/projects")]
    Ship(ShipArgs),
    /// The fleet's operator view: every session on the NATS server, live, held and
    /// pending compactions first; Enter opens one with the same views and keys as a
    /// local log, and a decision reaches the agent waiting on another machine.
    #[command(after_help = "Example:\n  ctxlens fleet --nats nats://ops:4222")]
    Fleet(FleetArgs),
    /// Hooks for agents, so bindings survive compactions in live sessions.
    #[command(subcommand)]
    Hook(HookAgent),
}

#[derive(Debug, Subcommand)]
pub(crate) enum HookAgent {
    /// Claude Code hooks: they read the hook's JSON on stdin and never break the agent
    /// (bad input: a message on stderr, exit 0).
    #[command(subcommand)]
    ClaudeCode(ClaudeHook),
    /// Codex CLI hooks (PreCompact, PostCompact): the same loop, answered the way Codex
    /// reads a hook.
    #[command(subcommand)]
    Codex(CodexHook),
    /// Qwen Code hooks (PreCompact, PostCompact): a held compaction waits, and a
    /// preserve reaches its summariser; Qwen Code cannot be made to refuse one.
    #[command(subcommand)]
    QwenCode(QwenHook),
    /// GitHub Copilot CLI hook (preCompact): records each compaction as it starts (the
    /// region spilled, the identifiers at risk in the ledger). Copilot CLI's preCompact
    /// cannot block, so its compactions are observed, never held.
    #[command(subcommand)]
    CopilotCli(CopilotHook),
    /// OpenCode plugin (experimental.session.compacting): a held compaction waits, and
    /// a preserve or spill reaches its summariser; OpenCode cannot be made to refuse one.
    #[command(subcommand)]
    Opencode(OpenCodeHook),
}

#[derive(Debug, Subcommand)]
pub(crate) enum OpenCodeHook {
    /// What ctxlens's plugin runs on each compaction, with {"sessionID": …} on stdin: it
    /// brings ctxlens's copy of the session up to date, stores the region, records the
    /// identifiers at risk and, with --hold, waits for an operator. It answers
    /// {"context": […]}: the identifiers at risk, the spill's read-back command and a
    /// preserved contract, which the plugin adds to the summariser's prompt.
    ///
    /// Exit status: 0.
    #[command(
        after_help = "Example:\n  echo '{\"sessionID\":\"ses_…\"}' | ctxlens hook opencode pre-compact --hold"
    )]
    PreCompact(HoldArgs),
    /// Writes ctxlens's plugin, ctxlens.js, into $XDG_CONFIG_HOME/opencode/plugins
    /// (~/.config/opencode/plugins), or with --project into DIR/.opencode/plugins.
    ///
    /// Exit status: 0 written (or already there), 2 the file could not be written, or a
    /// ctxlens.js ctxlens did not write is there.
    #[command(after_help = "Example:\n  ctxlens hook opencode install --hold")]
    Install(InstallArgs),
    /// Removes the plugin install wrote.
    ///
    /// Exit status: 0 removed (or none there), 2 it could not be removed.
    Uninstall(ProjectArgs),
    /// Whether the plugin is installed, and current (it runs this binary, which exists).
    ///
    /// Exit status: 0 installed and current, 1 not.
    Status(ProjectArgs),
}

#[derive(Debug, Subcommand)]
pub(crate) enum CopilotHook {
    /// preCompact: stores the region since the last compaction in <events.jsonl>.spill/
    /// and records the identifiers the work depends on in the binding ledger, so the
    /// compaction that lands names what its summary dropped.
    ///
    /// Exit status: 0.
    #[command(
        after_help = "Example:\n  echo '{\"transcriptPath\":\"…\",\"trigger\":\"manual\"}' | ctxlens hook copilot-cli pre-compact"
    )]
    PreCompact,
    /// Writes ctxlens.json into $COPILOT_HOME/hooks (~/.copilot/hooks), or with
    /// --project into DIR/.github/hooks (which Copilot CLI runs in a trusted folder only).
    ///
    /// Exit status: 0 written (or already there), 2 the file could not be read or
    /// written, or it holds hooks ctxlens did not write.
    #[command(after_help = "Example:\n  ctxlens hook copilot-cli install")]
    Install(InstallArgs),
    /// Removes the ctxlens.json install wrote.
    ///
    /// Exit status: 0 removed (or none there), 2 the file could not be read or removed.
    Uninstall(ProjectArgs),
    /// Whether the hook is installed, and current (it runs this binary, which exists).
    ///
    /// Exit status: 0 installed and current, 1 not, 2 the file could not be read.
    Status(ProjectArgs),
}

/// How long a held compaction waits for an operator.
#[derive(Debug, Args)]
pub(crate) struct HoldArgs {
    /// Wait for an operator's decision before the compaction goes ahead; it shows as
    /// PENDING in the TUI at once.
    #[arg(long)]
    pub hold: bool,
    /// With --hold: give up after this many seconds and let it go ahead (default 300).
    #[arg(
        long,
        value_name = "SECS",
        requires = "hold",
        allow_negative_numbers = true
    )]
    pub timeout: Option<f64>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ClaudeHook {
    /// PreCompact: stores the region since the last compaction in <transcript>.spill/
    /// and records the identifiers the work depends on in the binding ledger.
    ///
    /// Exit status: 0; with --hold, 2 when an operator refuses (Claude Code blocks the
    /// compaction), and the contract on stdout when the operator preserves.
    #[command(
        after_help = "Example (settings.json, as install writes it):\n  {\"hooks\": {\"PreCompact\": [{\"matcher\": \"\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/ctxlens hook claude-code pre-compact --hold --timeout 300\", \"timeout\": 330}]}]}}"
    )]
    PreCompact(HoldArgs),
    /// SessionStart (source "compact"): prints the ledger's identifiers that the new
    /// summary dropped, verbatim, the spill handle and a preserved contract, as
    /// additionalContext.
    ///
    /// Exit status: 0.
    #[command(
        after_help = "Example:\n  echo '{\"source\":\"compact\",\"transcript_path\":\"…\"}' | ctxlens hook claude-code session-start"
    )]
    SessionStart,
    /// PostCompact: records which ledger identifiers the compact_summary dropped, at once.
    ///
    /// Exit status: 0.
    #[command(
        after_help = "Example:\n  echo '{\"compact_summary\":\"…\",\"transcript_path\":\"…\"}' | ctxlens hook claude-code post-compact"
    )]
    PostCompact,
    /// Writes the hooks into settings.json, merging with the hooks already there.
    ///
    /// Exit status: 0 written (or already there), 2 the settings could not be read or written.
    #[command(after_help = "Example:\n  ctxlens hook claude-code install --hold --timeout 300")]
    Install(InstallArgs),
    /// Removes exactly the hooks install added; with nothing else changed since, the
    /// file is as it was before, byte for byte.
    ///
    /// Exit status: 0 removed (or none there), 2 the settings could not be read or written.
    Uninstall(ProjectArgs),
    /// Whether the hooks are installed, and current (they run this binary, which exists).
    ///
    /// Exit status: 0 installed and current, 1 not, 2 the settings could not be read.
    Status(ProjectArgs),
}

#[derive(Debug, Subcommand)]
pub(crate) enum QwenHook {
    /// PreCompact: stores the region since the last compaction in <transcript>.spill/
    /// and records the identifiers the work depends on; with --hold, waits for an
    /// operator. Answers with additionalContext, which Qwen Code adds to its
    /// summariser's instructions: the identifiers at risk, the spill handle with its
    /// read-back command, and a preserved contract.
    ///
    /// Exit status: 0. Qwen Code ignores a PreCompact hook's block (exit 2 or
    /// "decision": "block"), so a refuse is not accepted for its compactions.
    #[command(
        after_help = "Example:\n  echo '{\"transcript_path\":\"…\",\"trigger\":\"manual\"}' | ctxlens hook qwen-code pre-compact --hold"
    )]
    PreCompact(HoldArgs),
    /// PostCompact: records which ledger identifiers the compact_summary dropped.
    ///
    /// Exit status: 0.
    PostCompact,
    /// Writes the hooks into Qwen Code's settings.json, merging with the hooks already there.
    ///
    /// Exit status: 0 written (or already there), 2 the file could not be read or written.
    #[command(after_help = "Example:\n  ctxlens hook qwen-code install --hold")]
    Install(InstallArgs),
    /// Removes exactly the hooks install added; with nothing else changed since, the
    /// file is as it was before, byte for byte.
    ///
    /// Exit status: 0 removed (or none there), 2 the file could not be read or written.
    Uninstall(ProjectArgs),
    /// Whether the hooks are installed, and current (they run this binary, which exists).
    ///
    /// Exit status: 0 installed and current, 1 not, 2 the file could not be read.
    Status(ProjectArgs),
}

#[derive(Debug, Subcommand)]
pub(crate) enum CodexHook {
    /// PreCompact: stores the region since the last compaction in <rollout>.spill/ and
    /// records the identifiers the work depends on; with --hold, waits for an operator.
    ///
    /// Exit status: 0. A refuse, or a preserve of a manual /compact, answers
    /// {"continue": false, …} on stdout, which stops the compaction (and ends the turn);
    /// a preserve of an auto-compaction lets it go ahead, and session-start puts the
    /// contract back.
    #[command(
        after_help = "Example:\n  echo '{\"transcript_path\":\"…\",\"trigger\":\"auto\"}' | ctxlens hook codex pre-compact --hold"
    )]
    PreCompact(HoldArgs),
    /// SessionStart (source "compact"): puts the ledger's identifiers, the spill handle
    /// with its read-back command and a preserved contract back into the model's
    /// context (additionalContext), after every compaction that lands.
    ///
    /// Exit status: 0.
    SessionStart,
    /// PostCompact: records the compaction and shows the person the identifiers at
    /// risk and how to read the spilled region back (systemMessage).
    ///
    /// Exit status: 0.
    PostCompact,
    /// Writes the hooks into Codex's hooks.json, merging with the hooks already there.
    ///
    /// Exit status: 0 written (or already there), 2 the file could not be read or written.
    #[command(after_help = "Example:\n  ctxlens hook codex install --hold")]
    Install(InstallArgs),
    /// Removes exactly the hooks install added; with nothing else changed since, the
    /// file is as it was before, byte for byte.
    ///
    /// Exit status: 0 removed (or none there), 2 the file could not be read or written.
    Uninstall(ProjectArgs),
    /// Whether the hooks are installed, current (they run this binary, which exists) and
    /// trusted (Codex runs only hooks the user trusted in its TUI).
    ///
    /// Exit status: 0 installed, current and trusted, 1 not, 2 the files could not be read.
    Status(ProjectArgs),
}

/// Which configuration a hook command works on.
#[derive(Debug, Args)]
pub(crate) struct ProjectArgs {
    /// The project's (DIR/.claude/settings.json, DIR/.codex/hooks.json) instead of the
    /// user's.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// Install for this project (DIR/.claude/settings.json, DIR/.codex/hooks.json)
    /// instead of the user.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The pre-compact hook holds each compaction for an operator.
    #[arg(long)]
    pub hold: bool,
    /// With --hold: how long it waits, 1 to 86400 seconds (default 300); the hook
    /// timeout is 30 s longer.
    #[arg(
        long,
        value_name = "SECS",
        requires = "hold",
        allow_negative_numbers = true
    )]
    pub timeout: Option<f64>,
}

/// Where a fleet keeps decisions, spills and shipped logs.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct FleetArgs {
    /// A NATS server with JetStream (nats://HOST:PORT or tls://…), or the servers of a
    /// cluster separated by commas: decisions and spills go there instead of beside the
    /// log.
    #[arg(long, value_name = "URL", env = "CTXLENS_NATS_URL")]
    pub nats: Option<String>,
    /// Replicas of each store on the server (default: the cluster's servers, up to 3).
    #[arg(long, value_name = "N", env = "CTXLENS_NATS_REPLICAS")]
    pub nats_replicas: Option<usize>,
    /// NATS credentials (a .creds file).
    #[arg(long, value_name = "FILE", env = "CTXLENS_NATS_CREDS")]
    pub nats_creds: Option<PathBuf>,
    /// A CA certificate (PEM) for the server's TLS certificate.
    #[arg(long, value_name = "FILE", env = "CTXLENS_NATS_CA")]
    pub nats_ca: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ShipArgs {
    /// Session logs or folders of them (canonical, Claude Code, Codex).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Ship what the logs hold now, then stop (without it, follow them).
    #[arg(long)]
    pub once: bool,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Session logs to audit; with --nats, an argument that is not a file is a subject
    /// of the events stream (wildcards allowed), e.g. ctxlens.HOST.SESSION.events.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// One JSON report object per line, per file.
    #[arg(long)]
    pub json: bool,
    /// Density collapse is an error, and the gate spills on it.
    #[arg(long)]
    pub strict: bool,
    /// List every dropped token, not only declared and required ones.
    #[arg(long)]
    pub tokens: bool,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct GateArgs {
    /// The session log.
    pub log: PathBuf,
    /// The compaction id.
    pub id: String,
    /// Print the verdict as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Density collapse is an error, and the gate spills on it.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct DecideArgs {
    /// The session log.
    pub log: PathBuf,
    /// The compaction id.
    pub id: String,
    /// approve, spill, refetch, refuse, preserve (carries the compaction's contract) or
    /// degrade.
    #[arg(value_parser = ["approve", "spill", "refetch", "refuse", "preserve", "degrade"])]
    pub verdict: String,
    /// Who decides (default: $USER).
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// Why, in a few words.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ContractArgs {
    /// The session log.
    pub log: PathBuf,
    /// A compaction id; without it, the state at the newest event.
    pub id: Option<String>,
    /// Print the contract as one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The session log.
    pub log: PathBuf,
    /// What to write.
    #[arg(long, value_enum, default_value = "html")]
    pub format: crate::export::ExportFormat,
    /// Markdown: the whole conversation too, with no limit (by default the compactions
    /// alone, cut to fit a pull request's comment).
    #[arg(long)]
    pub full: bool,
    /// Write here instead of to standard output (created 0600, replaced atomically).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The session log.
    pub log: PathBuf,
    /// The action about to be taken: {"name": …, "target": …, "step": … (optional)}.
    #[arg(long, value_name = "JSON")]
    pub action: String,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct AwaitArgs {
    /// The session log.
    pub log: PathBuf,
    /// The compaction id.
    pub id: String,
    /// Give up after this many seconds (fractions allowed); without it, wait forever.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// When the timeout passes, record the gate's verdict (by "auto") and print the
    /// decision that stands.
    #[arg(long, requires = "timeout")]
    pub auto: bool,
    #[command(flatten)]
    pub fleet: FleetArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SpillCommand {
    /// Print a spilled region after checking its hash.
    ///
    /// Exit status: 0, or 2 on a missing, malformed or corrupt handle.
    #[command(after_help = "Example:\n  ctxlens spill get session.jsonl sha256:5f0c…")]
    Get {
        /// The session log the region was spilled from.
        log: PathBuf,
        /// sha256:<64 lowercase hex digits>
        handle: String,
        #[command(flatten)]
        fleet: FleetArgs,
    },
}

impl Command {
    /// The one log a command reads, when it reads one: made the log to open
    /// (`session::source::resolve`) before the command runs.
    pub(crate) fn log_mut(&mut self) -> Option<&mut PathBuf> {
        match self {
            Command::Gate(a) => Some(&mut a.log),
            Command::Decide(a) => Some(&mut a.log),
            Command::Await(a) => Some(&mut a.log),
            Command::Contract(a) => Some(&mut a.log),
            Command::Check(a) => Some(&mut a.log),
            Command::Export(a) => Some(&mut a.log),
            Command::Spill(SpillCommand::Get { log, .. }) => Some(log),
            _ => None,
        }
    }
}
