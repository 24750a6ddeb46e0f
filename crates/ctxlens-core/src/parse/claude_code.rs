//! Claude Code session transcripts (docs/transcripts.md): messages, tool calls and results, TodoWrite
//! and TaskCreate/TaskUpdate as obligations and plan, `compact_boundary` plus its summary
//! record as a compaction of everything since the previous boundary.

use super::lines::Line;
use super::transcript::{content_text, parse_record, str_of, todo_list, usage_of, Builder};
use crate::model::{
    Bookkeeping, EventKind, Format, Malformed, ObligationEvent, Prompt, TokenUsage,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A conversation record of the current segment, for rewind pruning.
struct Record {
    parent: Option<String>,
    events: std::ops::Range<usize>,
    conversation: bool,
}

pub struct ClaudeParser {
    /// The session being built; `LogParser` reads it directly.
    pub(super) builder: Builder,
    /// Records already read, by (uuid, type, subtype, timestamp): `/compact` can
    /// re-append them.
    seen: HashSet<(String, String, String, String)>,
    /// Every uuid in the file so far.
    uuids: HashSet<String>,
    /// The segment's records by uuid, since the latest boundary.
    segment: HashMap<String, Record>,
    /// The boundary whose summary record has not arrived yet.
    awaiting_summary: Option<usize>,
    /// The compaction whose attached records (re-read files, todos, hook output) are
    /// still arriving: the records after its summary, up to the next turn.
    carrying: Option<usize>,
    /// The usage counted for each assistant message id: a message spans several
    /// streamed records, each with the usage so far, and its last one counts.
    counted_usage: HashMap<String, TokenUsage>,
    /// The first event of each assistant message id, where its usage is shown.
    message_start: HashMap<String, usize>,
    /// The usage the record being read reports, with its message id.
    usage_seen: Option<(String, TokenUsage)>,
    /// The record being read is a subagent's (`isSidechain`) in a session's transcript.
    sidechain_seen: bool,
    /// A record of the session's own chain was read: a subagent's own transcript marks
    /// every record `isSidechain`, and there none is set apart.
    main_seen: bool,
    /// The title as the most authoritative record kind gave it: custom > ai > summary.
    title_rank: u8,
    /// The subject of each task TaskCreate made, in order: Claude Code numbers them
    /// from 1 (`Task #1 created`), and TaskUpdate names a task by that number alone.
    task_subjects: Vec<String>,
}

impl Default for ClaudeParser {
    fn default() -> Self {
        Self::new()
    }
}

impl ClaudeParser {
    pub fn new() -> Self {
        ClaudeParser {
            builder: Builder::new(Format::ClaudeCode),
            seen: HashSet::new(),
            uuids: HashSet::new(),
            segment: HashMap::new(),
            awaiting_summary: None,
            carrying: None,
            counted_usage: HashMap::new(),
            message_start: HashMap::new(),
            usage_seen: None,
            sidechain_seen: false,
            main_seen: false,
            title_rank: 0,
            task_subjects: Vec::new(),
        }
    }

    pub fn feed(&mut self, line: &Line) {
        let before = self.builder.session.events.len();
        self.feed_record(line);
        if std::mem::take(&mut self.sidechain_seen) {
            let events = self.builder.session.events.len();
            self.builder.session.mark_sidechain(before, events);
        }
        if let Some((id, usage)) = self.usage_seen.take() {
            let events = self.builder.session.events.len();
            let start = match self.message_start.get(&id) {
                Some(&start) => Some(start),
                // A record that made no event gives the message no place yet.
                None if events > before => {
                    self.message_start.insert(id, before);
                    Some(before)
                }
                None => None,
            };
            if let Some(start) = start {
                self.builder.session.set_message_usage(start, usage);
            }
        }
    }

    fn feed_record(&mut self, line: &Line) {
        let Some(record) = parse_record(line, &mut self.builder.session.malformed) else {
            return;
        };
        let kind = str_of(&record, "type").unwrap_or_default();
        self.note_chain(&record, &kind);
        let uuid = str_of(&record, "uuid");
        let ts = str_of(&record, "timestamp");
        if let Some(uuid) = &uuid {
            let subtype = str_of(&record, "subtype").unwrap_or_default();
            let key = (
                uuid.clone(),
                kind.clone(),
                subtype,
                ts.clone().unwrap_or_default(),
            );
            if !self.seen.insert(key) {
                return;
            }
            self.uuids.insert(uuid.clone());
        }
        self.builder
            .set_cwd(record.get("cwd").and_then(Value::as_str));
        self.metadata(&record, &kind, ts.as_deref());
        let first = self.builder.session.events.len();
        let summary_text = self.summary_of(&record, &kind);
        match (summary_text, self.awaiting_summary.take()) {
            (Some(text), Some(at)) => {
                let summary = self.builder.summary(&text);
                if let Some(compaction) = self.builder.compaction_mut(at) {
                    compaction.summary = Some(Box::new(summary));
                }
                self.carrying = Some(at);
                self.builder.push(
                    line,
                    0,
                    ts,
                    EventKind::Bookkeeping(Bookkeeping::CompactSummary),
                );
                return;
            }
            (_, waiting) => self.awaiting_summary = waiting.filter(|_| is_noise(&kind)),
        }
        self.carry(&record, &kind);
        match kind.as_str() {
            "user" | "assistant" => self.conversation(line, &record, &kind, ts),
            "system" => {
                let subtype = str_of(&record, "subtype").unwrap_or_default();
                match subtype.as_str() {
                    "compact_boundary" => self.boundary(line, &record, ts),
                    "microcompact_boundary" => {
                        let at = self.builder.push(
                            line,
                            0,
                            ts,
                            EventKind::Bookkeeping(Bookkeeping::Microcompact),
                        );
                        self.builder.session.microcompactions.push(at);
                    }
                    other => {
                        self.builder.push(
                            line,
                            0,
                            ts,
                            EventKind::Other {
                                type_name: format!("system/{other}"),
                            },
                        );
                    }
                }
            }
            "" => return self.malformed(line, "no \"type\" field".into()),
            other => {
                self.builder.push(
                    line,
                    0,
                    ts,
                    EventKind::Other {
                        type_name: other.to_owned(),
                    },
                );
            }
        }
        if let Some(uuid) = uuid {
            let parent = str_of(&record, "parentUuid");
            let conversation = matches!(kind.as_str(), "user" | "assistant");
            let events = first..self.builder.session.events.len();
            self.segment.insert(
                uuid,
                Record {
                    parent,
                    events,
                    conversation,
                },
            );
        }
    }

    /// Whether the record is a subagent's, set apart from the session's own chain.
    fn note_chain(&mut self, record: &Value, kind: &str) {
        let sidechain = record.get("isSidechain").and_then(Value::as_bool) == Some(true);
        if !sidechain && matches!(kind, "user" | "assistant") {
            self.main_seen = true;
        }
        self.sidechain_seen = sidechain && self.main_seen;
    }

    /// Operator metadata: title, model, branch, first prompt, token usage, activity.
    fn metadata(&mut self, record: &Value, kind: &str, ts: Option<&str>) {
        let meta = &mut self.builder.session.meta;
        if let Some(ts) = ts {
            meta.saw_timestamp(ts);
        }
        if let Some(branch) = record.get("gitBranch").and_then(Value::as_str) {
            if !branch.is_empty() && branch != "HEAD" {
                meta.branch = Some(branch.to_owned());
            }
        }
        let title = match kind {
            "custom-title" => Some((3, "customTitle")),
            "ai-title" => Some((2, "aiTitle")),
            "summary" => Some((1, "summary")),
            _ => None,
        };
        if let Some((rank, field)) = title {
            if let Some(text) = record.get(field).and_then(Value::as_str) {
                if rank >= self.title_rank && !text.trim().is_empty() {
                    meta.set_title(text);
                    self.title_rank = rank;
                }
            }
        }
        let message = record.get("message");
        if kind == "assistant" {
            let model = message.and_then(|m| m.get("model")).and_then(Value::as_str);
            // `<synthetic>` marks messages Claude Code wrote itself.
            if let Some(model) = model.filter(|m| !m.starts_with('<')) {
                meta.saw_model(model);
            }
            let id = message.and_then(|m| m.get("id")).and_then(Value::as_str);
            if let Some(usage) = message.and_then(|m| m.get("usage")) {
                let now = usage_of(
                    usage,
                    [
                        "input_tokens",
                        "output_tokens",
                        "cache_read_input_tokens",
                        "cache_creation_input_tokens",
                    ],
                );
                let before = id
                    .and_then(|id| self.counted_usage.insert(id.to_owned(), now))
                    .unwrap_or_default();
                self.usage_seen = id.map(|id| (id.to_owned(), now));
                meta.usage = meta.usage.replacing(before, now);
            }
        }
        let typed = kind == "user"
            && record.get("isMeta").and_then(Value::as_bool) != Some(true)
            && record.get("isCompactSummary").is_none();
        match (typed, message.and_then(|m| m.get("content"))) {
            (true, Some(Value::String(text))) => meta.saw_user_text(text),
            // A prompt sent as a list of blocks (text, an image): its text blocks. A list
            // that holds a tool result is the tool's answer, not a prompt.
            (true, Some(Value::Array(blocks)))
                if !blocks
                    .iter()
                    .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")) =>
            {
                let text: Vec<&str> = blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect();
                meta.saw_user_text(&text.join("\n"));
            }
            _ => {}
        }
    }

    /// Records Claude Code attaches after a compaction's summary put their tokens back
    /// into the context: they are carried over, not lost.
    fn carry(&mut self, record: &Value, kind: &str) {
        let Some(at) = self.carrying else {
            return;
        };
        let is_meta = record.get("isMeta").and_then(Value::as_bool) == Some(true);
        let attached = match kind {
            "attachment" => record.get("attachment"),
            "user" if is_meta => record.get("message"),
            "user" | "assistant" => {
                self.carrying = None;
                return;
            }
            _ => None,
        };
        let Some(attached) = attached else {
            return;
        };
        let mut texts = Vec::new();
        super::text::json_text_leaves(attached, &mut texts);
        let digest = super::text::digest(&texts, 0, &mut self.builder.session.tokens);
        if let Some(extra) = self.builder.compaction_extra_mut(at) {
            extra.carried.extend(digest.tokens);
        }
    }

    fn malformed(&mut self, line: &Line, reason: String) {
        self.builder.session.malformed.push(Malformed {
            line: line.number,
            offset: line.offset,
            reason,
        });
    }

    /// The text of a record that carries a compaction summary.
    fn summary_of(&self, record: &Value, kind: &str) -> Option<String> {
        let compact = record.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
        // Some writers put the summary in a `summary` record with a message.
        let summary_record =
            kind == "summary" && record.get("message").is_some() && self.awaiting_summary.is_some();
        (compact || summary_record).then(|| {
            record
                .get("message")
                .and_then(|m| m.get("content"))
                .map(content_text)
                .unwrap_or_default()
        })
    }

    fn conversation(&mut self, line: &Line, record: &Value, kind: &str, ts: Option<String>) {
        let message = record.get("message").unwrap_or(&Value::Null);
        let role = str_of(message, "role").unwrap_or_else(|| kind.to_owned());
        let content = message.get("content").unwrap_or(&Value::Null);
        // What a person typed: not a meta record (hook output, caveats) or a summary.
        let typed = kind == "user"
            && record.get("isMeta").and_then(Value::as_bool) != Some(true)
            && record.get("isCompactSummary").is_none();
        let Value::Array(blocks) = content else {
            let text = content_text(content);
            let event = self.builder.message(&role, &text);
            let index = self.builder.push(line, 0, ts, event);
            if typed {
                self.prompt(index, &text);
            }
            return;
        };
        for (part, block) in blocks.iter().enumerate() {
            let part = part as u32;
            match block.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => {
                    let text = str_of(block, "text").unwrap_or_default();
                    let event = self.builder.message(&role, &text);
                    let index = self.builder.push(line, part, ts.clone(), event);
                    if typed {
                        self.prompt(index, &text);
                    }
                }
                "thinking" => {
                    let text = str_of(block, "thinking").unwrap_or_default();
                    let event = self.builder.message("thinking", &text);
                    self.builder.push(line, part, ts.clone(), event);
                }
                "tool_use" => {
                    let name = str_of(block, "name").unwrap_or_default();
                    let input = block.get("input").unwrap_or(&Value::Null);
                    let event = self.builder.tool_call(str_of(block, "id"), &name, input);
                    self.builder.push(line, part, ts.clone(), event);
                    self.todo_tools(line, part, &ts, &name, input);
                }
                "tool_result" => {
                    let mut text = block.get("content").map(content_text).unwrap_or_default();
                    if text.trim().is_empty() {
                        // The same output, as the tool returned it.
                        text = record
                            .get("toolUseResult")
                            .map(tool_use_result_text)
                            .unwrap_or_default();
                    }
                    let is_error = block
                        .get("is_error")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    let event =
                        self.builder
                            .tool_result(str_of(block, "tool_use_id"), &text, is_error);
                    self.builder.push(line, part, ts.clone(), event);
                }
                other => {
                    let type_name = if other.is_empty() {
                        "block".to_owned()
                    } else {
                        other.to_owned()
                    };
                    self.builder
                        .push(line, part, ts.clone(), EventKind::Other { type_name });
                }
            }
        }
    }

    /// Keeps a prompt a person typed for `instruction_dropped` (docs/remedies.md): not a slash
    /// command or other markup (`<command-name>…`), not Claude Code's own
    /// `[Request interrupted by user]` marker, not under 4 words; cut at 16 KiB.
    fn prompt(&mut self, event: usize, text: &str) {
        let text = text.trim();
        let marker = text.starts_with('[') && text.ends_with(']') && !text.contains('\n');
        if text.starts_with('<') || marker || crate::analysis::extract::word_count(text) < 4 {
            return;
        }
        let mut end = text.len().min(16 * 1024);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.builder.session.prompts.push(Prompt {
            event,
            text: text[..end].to_owned(),
        });
    }

    /// TodoWrite lists and TaskCreate / TaskUpdate items become obligations and a plan.
    fn todo_tools(
        &mut self,
        line: &Line,
        part: u32,
        ts: &Option<String>,
        name: &str,
        input: &Value,
    ) {
        match name {
            "TodoWrite" => {
                let todos = todo_list(input, "todos", "content");
                self.builder.todos(line, part, ts, &todos);
            }
            "TaskCreate" | "TaskUpdate" => {
                // A task is named by its number: the one TaskCreate gives it in order,
                // or the one TaskUpdate names; its subject is the creation's unless
                // the update changes it.
                let (number, subject) = if name == "TaskCreate" {
                    let subject = str_of(input, "subject")
                        .or_else(|| str_of(input, "description"))
                        .unwrap_or_default();
                    if subject.is_empty() {
                        return;
                    }
                    self.task_subjects.push(subject.clone());
                    (self.task_subjects.len().to_string(), subject)
                } else {
                    let Some(number) = str_of(input, "taskId") else {
                        return;
                    };
                    let created = number
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| self.task_subjects.get(n.checked_sub(1)?))
                        .cloned();
                    let subject = str_of(input, "subject")
                        .or(created)
                        .unwrap_or_else(|| format!("task {number}"));
                    (number, subject)
                };
                // An update that does not name a status leaves it as it was.
                let status = str_of(input, "status")
                    .or_else(|| (name == "TaskCreate").then(|| "pending".into()));
                let requires = crate::analysis::extract::extract(&subject)
                    .iter()
                    .map(|f| f.text(&subject).to_owned())
                    .collect();
                let id = format!("task {number}");
                self.builder.push(
                    line,
                    part,
                    ts.clone(),
                    EventKind::Obligation(Box::new(ObligationEvent {
                        id,
                        name: Some(subject),
                        requires: (name == "TaskCreate").then_some(requires),
                        status: status.map(|status| {
                            match matches!(status.as_str(), "completed" | "deleted") {
                                true => crate::model::ObligationStatus::Done,
                                false => crate::model::ObligationStatus::Open,
                            }
                        }),
                    })),
                );
            }
            _ => {}
        }
    }

    fn boundary(&mut self, line: &Line, record: &Value, ts: Option<String>) {
        let logical_parent = str_of(record, "logicalParentUuid");
        let parent_known = logical_parent
            .as_ref()
            .is_some_and(|p| self.uuids.contains(p));
        self.prune_rewound_branches(logical_parent.as_deref());
        let carried = self.preserved_tokens(record);
        let at = self
            .builder
            .compaction(line, ts, str_of(record, "uuid"), None, !parent_known);
        let metadata = record.get("compactMetadata");
        let field = |k: &str| metadata.and_then(|m| m.get(k));
        if let Some(extra) = self.builder.compaction_extra_mut(at) {
            extra.trigger = field("trigger").and_then(Value::as_str).map(str::to_owned);
            extra.pre_tokens = field("preTokens").and_then(Value::as_u64);
            extra.post_tokens = field("postTokens").and_then(Value::as_u64);
            extra.carried = carried;
        }
        self.awaiting_summary = Some(at);
        self.carrying = None;
        self.segment.clear();
    }

    /// Tokens of the segment a newer Claude Code keeps verbatim across the compaction
    /// (`compactMetadata.preservedSegment`, from its tail back to its head).
    fn preserved_tokens(&self, record: &Value) -> Vec<crate::model::TokenId> {
        let segment = record
            .get("compactMetadata")
            .and_then(|m| m.get("preservedSegment"));
        let uuid = |k: &str| segment.and_then(|s| s.get(k)).and_then(Value::as_str);
        let (Some(head), Some(tail)) = (uuid("headUuid"), uuid("tailUuid")) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut at = Some(tail.to_owned());
        let mut steps = 0;
        while let Some(uuid) = at {
            let Some(record) = self.segment.get(&uuid) else {
                break;
            };
            for event in self.builder.session.events_in(record.events.clone()) {
                if let Some(digest) = event.kind.region_text() {
                    out.extend_from_slice(&digest.tokens);
                }
            }
            steps += 1;
            if uuid == head || steps > self.segment.len() {
                break;
            }
            at = record.parent.clone();
        }
        out
    }

    /// Records of the segment that are not on the chain leading to the boundary belong to
    /// a rewound branch: they were not in the context that was compacted.
    fn prune_rewound_branches(&mut self, logical_parent: Option<&str>) {
        let Some(mut at) = logical_parent.map(str::to_owned) else {
            return;
        };
        let mut chain = HashSet::new();
        loop {
            match self.segment.get(&at) {
                // A cycle (trimmed or hand-made files): the chain cannot be trusted.
                Some(_) if chain.contains(&at) => return,
                Some(record) => {
                    chain.insert(at.clone());
                    match &record.parent {
                        Some(parent) => at = parent.clone(),
                        None => break,
                    }
                }
                // The walk left the segment: at an earlier record (complete), or at one
                // this file never had (a broken chain: prune nothing).
                None if self.uuids.contains(&at) => break,
                None => return,
            }
        }
        if !self
            .segment
            .iter()
            .any(|(uuid, r)| r.conversation && chain.contains(uuid))
        {
            return;
        }
        for (uuid, record) in &self.segment {
            if record.conversation && !chain.contains(uuid) {
                for index in record.events.clone() {
                    if let Some(event) = self.builder.session.events.get_mut(index) {
                        event.kind = EventKind::Other {
                            type_name: "rewound".into(),
                        };
                    }
                }
            }
        }
    }
}

/// Records that may stand between a boundary and its summary.
fn is_noise(kind: &str) -> bool {
    matches!(
        kind,
        "progress" | "queue-operation" | "file-history-snapshot" | "attachment" | "system"
    )
}

fn tool_use_result_text(value: &Value) -> String {
    match value {
        Value::Object(o) => {
            let parts: Vec<&str> = ["stdout", "stderr", "content", "output", "text"]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str))
                .filter(|s| !s.is_empty())
                .collect();
            if parts.is_empty() {
                value.to_string()
            } else {
                parts.join("\n")
            }
        }
        other => content_text(other),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use crate::model::TokenUsage;

    fn record(uuid: &str, sidechain: bool, body: &str) -> String {
        format!(
            r#"{{"type":"assistant","uuid":"{uuid}","isSidechain":{sidechain},"sessionId":"s","cwd":"/w","timestamp":"2026-12-04T10:00:00Z","message":{body}}}"#
        )
    }

    /// A message's usage is its last streamed record's, at its first event; a
    /// subagent's inline records are marked as such.
    #[test]
    fn usage_sits_at_a_message_start_and_sidechains_are_marked() {
        let text = |id: &str, t: &str, out: u64| {
            format!(
                r#"{{"id":"{id}","role":"assistant","model":"m","content":[{{"type":"text","text":"{t}"}}],"usage":{{"input_tokens":2,"output_tokens":{out}}}}}"#
            )
        };
        let log = [
            record("a1", false, &text("m1", "first part", 4)),
            record("a2", false, &text("m1", "second part", 90)),
            record("a3", true, &text("m2", "the subagent looks", 7)),
            record("a4", true, &text("m3", "and answers", 8)),
            record("a5", false, &text("m4", "back in the parent", 5)),
        ]
        .join("\n");
        let session = crate::parse::parse(log.as_bytes());
        assert_eq!(session.events.len(), 5);
        let usage = |out| TokenUsage {
            input: 2,
            output: out,
            ..TokenUsage::default()
        };
        assert_eq!(session.message_usage_at(0), Some(usage(90)));
        assert_eq!(session.message_usage_at(1), None);
        assert_eq!(session.message_usage_at(2), Some(usage(7)));
        assert_eq!(session.message_usage_at(4), Some(usage(5)));
        let marked: Vec<bool> = (0..5).map(|i| session.is_sidechain(i)).collect();
        assert_eq!(marked, [false, false, true, true, false]);
        assert_eq!(
            session.sidechain.iter().copied().collect::<Vec<_>>(),
            [(2, 4)]
        );
        // A subagent's own transcript: every record a sidechain, none set apart.
        let own = log.replace(r#""isSidechain":false"#, r#""isSidechain":true"#);
        assert!(crate::parse::parse(own.as_bytes()).sidechain.is_empty());
    }
}

#[cfg(test)]
mod sidechain_tests {
    #![allow(clippy::unwrap_used)]

    /// A value only a subagent's inline records held was never in the context that
    /// compacted: the summary cannot drop it.
    #[test]
    fn a_subagents_inline_value_is_not_in_the_sessions_region() {
        let line = |uuid: &str, kind: &str, sidechain: bool, rest: &str| {
            format!(
                r#"{{"type":"{kind}","uuid":"{uuid}","isSidechain":{sidechain},"sessionId":"s","cwd":"/w","timestamp":"2026-12-04T10:00:00Z",{rest}}}"#
            )
        };
        let transcript = |sidechain: bool| {
            [
                line("u1", "user", false, r#""message":{"role":"user","content":"Find the latest snapshot with a subagent."}"#),
                line("a1", "assistant", sidechain, r#""message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"aws rds describe-db-snapshots"}}]}"#),
                line("u2", "user", sidechain, r#""message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"snapshot 3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d is the latest"}]}"#),
                line("a2", "assistant", false, r#""message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"text","text":"The subagent found the latest snapshot."}]}"#),
                line("cb1", "system", false, r#""subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":1000}"#),
                line("u3", "user", false, r#""isCompactSummary":true,"message":{"role":"user","content":"Summary: a subagent looked up the latest snapshot."}"#),
            ]
            .join("\n")
        };
        // The region's tokens: what the summary could keep or drop.
        let region_tokens = |sidechain: bool| {
            let session = crate::parse::parse(transcript(sidechain).as_bytes());
            let analysis = crate::analysis::analyze(&session, &[], false);
            let compaction = analysis.compactions.first().unwrap();
            compaction
                .tokens
                .iter()
                .map(|t| session.tokens.text(t.id).to_owned())
                .collect::<Vec<_>>()
        };
        assert!(
            region_tokens(false)
                .iter()
                .any(|t| t.contains("3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d")),
            "{:?}",
            region_tokens(false)
        );
        assert!(
            !region_tokens(true)
                .iter()
                .any(|t| t.contains("3f2b8c1e-9d4a-4e7b-8c2d-1a5e6f7b8c9d")),
            "{:?}",
            region_tokens(true)
        );
    }
}
