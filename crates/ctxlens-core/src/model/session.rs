//! A parsed session: its events in log order plus what the reader had to skip.

use super::chunked::{self, Chunked};
use super::declared::DeclaredFound;
use super::event::{CompactionEvent, Event, EventKind, Phase, RangeSpec, TextDigest};
use super::token::{TokenId, TokenTable};
use serde::Serialize;

/// Which log a session was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// The canonical session log (docs/log-format.md).
    Canonical,
    /// A Claude Code transcript (docs/transcripts.md).
    ClaudeCode,
    /// A Codex rollout (docs/transcripts.md).
    Codex,
    /// A GitHub Copilot CLI session's `events.jsonl` (docs/transcripts.md).
    CopilotCli,
    /// A Gemini CLI chat recording (docs/transcripts.md).
    GeminiCli,
    /// An OpenCode session, read from its database (docs/transcripts.md).
    OpenCode,
    /// A Qwen Code chat recording (docs/transcripts.md).
    QwenCode,
}

impl Format {
    /// The format as the report names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::CopilotCli => "copilot-cli",
            Format::GeminiCli => "gemini-cli",
            Format::OpenCode => "opencode",
            Format::QwenCode => "qwen-code",
        }
    }

    /// Whether the agent that writes this format lets a hook hold a compaction for an
    /// operator. Copilot CLI's and Gemini CLI's hooks cannot block one.
    pub fn holds(self) -> bool {
        !matches!(self, Format::CopilotCli | Format::GeminiCli)
    }

    /// Whether the agent that writes this format carries out an operator's refuse of
    /// a compaction its hook holds. Qwen Code's PreCompact hook cannot block one (the
    /// real client ignored exit 2 and `decision: block`); an OpenCode plugin that
    /// throws only defers it to the next turn, which then runs it before the user's
    /// prompt; Copilot CLI's and Gemini CLI's hooks hold nothing.
    pub fn refuses_held(self) -> bool {
        !matches!(
            self,
            Format::QwenCode | Format::OpenCode | Format::CopilotCli | Format::GeminiCli
        )
    }

    /// The agent's name, as a person knows it.
    pub fn agent_name(self) -> &'static str {
        match self {
            Format::Canonical => "this runtime",
            Format::ClaudeCode => "Claude Code",
            Format::Codex => "Codex",
            Format::CopilotCli => "Copilot CLI",
            Format::GeminiCli => "Gemini CLI",
            Format::OpenCode => "OpenCode",
            Format::QwenCode => "Qwen Code",
        }
    }
}

/// A line the reader skipped, with where it stands and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// 1-based line number.
    pub line: u64,
    /// 0-based byte offset of the line's first byte.
    pub offset: u64,
    /// Why it was skipped, in one sentence.
    pub reason: String,
}

/// A session as read: its events in log order, the tokens they hold, and what the reader
/// had to skip.
#[derive(Debug, Clone)]
pub struct Session {
    /// The log it was read from.
    pub format: Format,
    /// The working directory, which relative paths are relative to.
    pub cwd: Option<String>,
    /// Shared with the session's clones (a snapshot of a followed log is one).
    pub events: Chunked<Event>,
    /// Declared tokens the second pass found in events' texts (`ingest::declared`).
    pub declared: DeclaredFound,
    /// The lines that could not be read.
    pub malformed: MalformedLines,
    /// Every opaque token of the session, by id.
    pub tokens: TokenTable,
    /// Indices of events that are Claude Code `microcompact_boundary` records: old tool
    /// results cleared, no summary, not a compaction.
    pub microcompactions: Vec<usize>,
    /// What Claude Code's pre-compact hook recorded in the binding ledger.
    pub ledger: Vec<LedgerHint>,
    /// Instruction files the runtime puts back into the context after a compaction.
    pub context_sources: Vec<ContextSource>,
    /// What the transcript says about the session, for operators.
    pub meta: SessionMeta,
    /// What a person typed (Claude Code), for `instruction_dropped` (docs/remedies.md).
    pub prompts: Vec<Prompt>,
    /// The model tokens each assistant message used, at the message's first event, in
    /// the order of the events (Claude Code: its last streamed record's count). Shared
    /// with the session's clones, as the events are.
    pub message_usage: Chunked<(usize, TokenUsage)>,
    /// Runs of events a subagent wrote inline (Claude Code's `isSidechain` records), as
    /// half-open index ranges in order.
    pub sidechain: Chunked<(usize, usize)>,
    /// The index of the event at which the token table was full ([`super::TOKEN_CAP`]):
    /// the events from it on may hold tokens it did not record.
    pub too_dense_from: Option<usize>,
}

/// A prompt a person typed, and the event that holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// Index into `Session::events`.
    pub event: usize,
    /// The prompt as typed.
    pub text: String,
}

impl Default for Session {
    fn default() -> Self {
        Session::new(Format::Canonical)
    }
}

/// The lines that could not be read: every one counted and its offset kept (the gate
/// needs to know where they are), the details of the first [`MalformedLines::DETAILED`]
/// only, so a log of garbage cannot take memory in proportion to its lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MalformedLines {
    detailed: Vec<Malformed>,
    offsets: Vec<u64>,
    /// The first unreadable line that may have held a binding or an obligation: its
    /// line number and offset (docs/signals.md: such a line denies approve to every
    /// compaction after it).
    first_may_declare: Option<(u64, u64)>,
}

impl MalformedLines {
    /// How many unreadable lines are kept with their reason; the rest by offset only.
    pub const DETAILED: usize = 1000;

    /// Notes a line that could not be read.
    pub fn push(&mut self, malformed: Malformed) {
        self.offsets.push(malformed.offset);
        if self.detailed.len() < Self::DETAILED {
            self.detailed.push(malformed);
        }
    }

    /// [`push`](Self::push) a line that may have held a binding or an obligation.
    pub fn push_may_declare(&mut self, malformed: Malformed) {
        self.first_may_declare
            .get_or_insert((malformed.line, malformed.offset));
        self.push(malformed);
    }

    /// The first unreadable line that may have held a binding or an obligation (line
    /// number, byte offset).
    pub fn first_may_declare(&self) -> Option<(u64, u64)> {
        self.first_may_declare
    }

    /// How many lines could not be read.
    pub fn total(&self) -> usize {
        self.offsets.len()
    }

    /// Every line was read.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// The first lines that could not be read, with why.
    pub fn detailed(&self) -> &[Malformed] {
        &self.detailed
    }

    /// Byte offsets of every line that could not be read, in file order.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }
}

/// An instruction file re-injected after every compaction (Claude Code's `CLAUDE.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextSource {
    /// The file, as the transcript names it.
    pub path: String,
    /// The SHA-256 of the content re-injected, hex.
    pub sha256: String,
    /// The tokens of the content (what survives a compaction through it).
    #[serde(skip)]
    pub tokens: Vec<super::token::TokenId>,
}

/// Operator metadata from a transcript (docs/json-report.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SessionMeta {
    /// The models that answered, the one that wrote the most records first (a
    /// session's side model, which titles it or reads a web page, answers a few times;
    /// its main model most); ties in order of first answer.
    pub models: Vec<String>,
    /// How many records each of `models` wrote, in the same order.
    #[serde(skip)]
    pub model_records: Vec<u64>,
    /// The session's title, when the agent gave it one.
    pub title: Option<String>,
    /// The first prompt a person typed, shortened.
    pub first_prompt: Option<String>,
    /// The git branch the session ran on.
    pub branch: Option<String>,
    /// Model tokens used.
    pub usage: TokenUsage,
    /// Timestamp of the newest record that has one.
    pub last_activity: Option<String>,
}

impl TokenUsage {
    /// These counts and `more`.
    pub fn plus(self, more: TokenUsage) -> TokenUsage {
        self.replacing(TokenUsage::default(), more)
    }

    /// These counts with `before` taken out and `now` put in (a message whose later
    /// record counts more than its earlier one).
    pub fn replacing(self, before: TokenUsage, now: TokenUsage) -> TokenUsage {
        let swap = |total: u64, old: u64, new: u64| total.saturating_sub(old).saturating_add(new);
        TokenUsage {
            input: swap(self.input, before.input, now.input),
            output: swap(self.output, before.output, now.output),
            cache_read: swap(self.cache_read, before.cache_read, now.cache_read),
            cache_creation: swap(
                self.cache_creation,
                before.cache_creation,
                now.cache_creation,
            ),
        }
    }
}

impl SessionMeta {
    /// Notes a record's timestamp (RFC 3339 strings order as times).
    pub fn saw_timestamp(&mut self, ts: &str) {
        if self.last_activity.as_deref().is_none_or(|last| ts > last) {
            self.last_activity = Some(ts.to_owned());
        }
    }

    /// Notes a record the model wrote: the models stay ordered by how many each wrote.
    pub fn saw_model(&mut self, model: &str) {
        if model.is_empty() {
            return;
        }
        let mut at = match self.models.iter().position(|m| m == model) {
            Some(at) => at,
            None => {
                self.models.push(model.to_owned());
                self.model_records.push(0);
                self.models.len() - 1
            }
        };
        if let Some(count) = self.model_records.get_mut(at) {
            *count += 1;
        }
        // Moved up past the models it now outnumbers.
        while at > 0 && self.model_records.get(at) > self.model_records.get(at - 1) {
            self.models.swap(at, at - 1);
            self.model_records.swap(at, at - 1);
            at -= 1;
        }
    }

    /// Keeps the first prompt a person typed: not a command or a caveat (text that
    /// opens with markup), on one line, cut to 200 characters.
    pub fn saw_user_text(&mut self, text: &str) {
        let text = text.trim();
        if self.first_prompt.is_none() && !text.is_empty() && !text.starts_with('<') {
            self.first_prompt = Some(one_line(text).chars().take(200).collect());
        }
    }

    /// Sets the session's title, on one line.
    pub fn set_title(&mut self, title: &str) {
        self.title = Some(one_line(title));
    }
}

/// `text` on one line: each run of whitespace (newlines too) one space; a title or a
/// prompt shown in a list never breaks a row, nor shows `\n` for a newline.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Tokens the model read and wrote, summed over the transcript's assistant turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TokenUsage {
    /// Input tokens not read from the cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation: u64,
}

/// Identifiers a pre-compact hook found the work depending on, just before a compaction:
/// the one whose boundary follows byte `before` of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerHint {
    /// The id the hook announced the compaction as (`pre-compact-N`).
    pub id: String,
    /// The transcript's size in bytes when the hook ran.
    pub before: u64,
    /// The hook answered the agent with refuse: the agent did not compact.
    pub refused: bool,
    /// (token, why it is needed)
    pub tokens: Vec<(String, String)>,
}

/// A compaction id and what its defining event says, gathered from all its events.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionInfo {
    /// Its id.
    pub id: String,
    /// Index (into `Session::events`) of the first event with this id: the compaction
    /// happens there.
    pub at: usize,
    /// Index of the event that carries range, summary and input.
    pub def: usize,
    /// Index of the first event whose phase is `applied`.
    pub applied_at: Option<usize>,
    /// Its latest phase.
    pub phase: Phase,
    /// Its region, as written.
    pub range: RangeSpec,
}

impl Session {
    /// The events in `range`, clamped to the log: an index out of it names no event.
    pub fn events_in(&self, range: std::ops::Range<usize>) -> chunked::Iter<'_, Event> {
        self.events.range(range)
    }

    /// The events of `range` the session's own context held, with their indices: not a
    /// subagent's inline records ([`Session::is_sidechain`]). What a compaction's region
    /// held and what used a value after it are read from these.
    pub fn context_events_in(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, &Event)> + '_ {
        let start = range.start;
        self.events_in(range)
            .enumerate()
            .map(move |(at, event)| (start + at, event))
            .filter(|&(index, _)| !self.is_sidechain(index))
    }

    /// The tokens of the text `digest` of event `index`: the digest's, then the declared
    /// tokens the second pass found in it.
    pub fn tokens_of<'a>(
        &'a self,
        index: usize,
        digest: &'a TextDigest,
    ) -> impl Iterator<Item = TokenId> + Clone + 'a {
        digest.tokens.iter().chain(self.declared.of(index)).copied()
    }

    /// The readable summary of the compaction defined at event `def`.
    pub fn summary_at(&self, def: usize) -> Option<&super::Summary> {
        match self.events.get(def).map(|e| &e.kind) {
            Some(super::EventKind::Compaction(compaction)) => compaction.summary.as_deref(),
            _ => None,
        }
    }

    /// The seq of event `index` (0 when there is none).
    pub fn seq_at(&self, index: usize) -> u64 {
        self.events.get(index).map_or(0, |e| e.seq)
    }

    /// A session with no event yet.
    pub fn new(format: Format) -> Session {
        Session {
            format,
            cwd: None,
            events: Chunked::default(),
            declared: DeclaredFound::default(),
            malformed: MalformedLines::default(),
            tokens: TokenTable::default(),
            microcompactions: Vec::new(),
            ledger: Vec::new(),
            prompts: Vec::new(),
            message_usage: Chunked::default(),
            sidechain: Chunked::default(),
            context_sources: Vec::new(),
            meta: SessionMeta::default(),
            too_dense_from: None,
        }
    }

    /// The usage of the message that starts at event `index`, if one does.
    pub fn message_usage_at(&self, index: usize) -> Option<TokenUsage> {
        let at = self.message_usage.partition_point(|&(i, _)| i < index);
        match self.message_usage.get(at) {
            Some(&(i, usage)) if i == index => Some(usage),
            _ => None,
        }
    }

    /// Records the usage of the message that starts at event `index`.
    /// Messages start in the order of their events, so a new one comes last; one that
    /// would not is not recorded.
    pub fn set_message_usage(&mut self, index: usize, usage: TokenUsage) {
        let at = self.message_usage.partition_point(|&(i, _)| i < index);
        match self.message_usage.get_mut(at) {
            Some(slot) if slot.0 == index => slot.1 = usage,
            Some(_) => {}
            None => self.message_usage.push((index, usage)),
        }
    }

    /// Marks events `from..to` as a subagent's.
    pub fn mark_sidechain(&mut self, from: usize, to: usize) {
        if from >= to {
            return;
        }
        let last = self.sidechain.len().checked_sub(1);
        match last.and_then(|at| self.sidechain.get_mut(at)) {
            Some(run) if run.1 == from => run.1 = to,
            Some(run) if run.1 > from => {}
            _ => self.sidechain.push((from, to)),
        }
    }

    /// Whether event `index` is a subagent's, written inline.
    pub fn is_sidechain(&self, index: usize) -> bool {
        let at = self.sidechain.partition_point(|&(_, to)| to <= index);
        self.sidechain
            .get(at)
            .is_some_and(|&(from, _)| from <= index)
    }

    /// Notes, once, that the newest event came when the token table was full.
    pub fn note_if_full(&mut self) {
        if self.too_dense_from.is_none() && self.tokens.is_full() {
            self.too_dense_from = Some(self.events.len().saturating_sub(1));
        }
    }

    /// Transcripts of real agents declare no bindings: the region's tokens are the
    /// candidates, and later use says which were needed (docs/transcripts.md).
    pub fn infers_bindings(&self) -> bool {
        self.format != Format::Canonical
    }

    /// Every compaction id in order of first appearance.
    pub fn compactions(&self) -> Vec<CompactionInfo> {
        compactions_of(self.events.iter().enumerate())
    }

    /// [`Self::compactions`], read from the events at `indices` (in increasing order)
    /// alone: they hold every compaction event.
    pub fn compactions_among(&self, indices: &[usize]) -> Vec<CompactionInfo> {
        compactions_of(
            indices
                .iter()
                .filter_map(|&i| self.events.get(i).map(|event| (i, event))),
        )
    }

    /// Index of the first event whose seq is at least `seq` (seqs strictly increase).
    pub fn first_at_or_after(&self, seq: u64) -> usize {
        self.events.partition_point(|e| e.seq < seq)
    }

    /// Bytes of the log that hold seqs `from..=to` (docs/store.md: from the first line whose seq
    /// is at least `from` to the end of the last line whose seq is at most `to`, every
    /// line between included), or `None` when no event lies in the range.
    pub fn region_bytes(&self, from: u64, to: u64) -> Option<(u64, u64)> {
        let first = self.events.get(self.first_at_or_after(from))?;
        let end = self.first_at_or_after(to.saturating_add(1));
        let last = self.events.get(end.checked_sub(1)?)?;
        (first.seq <= to && last.seq >= from)
            .then(|| (first.offset, last.offset + u64::from(last.span)))
    }
}

/// The compactions of `events` (index and event, in order), by id in order of first
/// appearance.
fn compactions_of<'e>(events: impl Iterator<Item = (usize, &'e Event)>) -> Vec<CompactionInfo> {
    let mut out: Vec<CompactionInfo> = Vec::new();
    let mut by_id: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (index, event) in events {
        let EventKind::Compaction(compaction) = &event.kind else {
            continue;
        };
        let CompactionEvent {
            id, phase, range, ..
        } = &**compaction;
        let phase = phase.unwrap_or(Phase::Proposed);
        match by_id.get(id.as_str()) {
            Some(&at) => {
                let Some(known) = out.get_mut(at) else {
                    continue;
                };
                // The first event of an id that carries a range defines it.
                if known.range == RangeSpec::Missing && *range != RangeSpec::Missing {
                    known.def = index;
                    known.range = *range;
                }
                known.phase = phase;
                if phase == Phase::Applied && known.applied_at.is_none() {
                    known.applied_at = Some(index);
                }
            }
            None => {
                by_id.insert(id, out.len());
                out.push(CompactionInfo {
                    id: id.clone(),
                    at: index,
                    def: index,
                    applied_at: (phase == Phase::Applied).then_some(index),
                    phase,
                    range: *range,
                });
            }
        }
    }
    out
}
