//! What the Claude Code and Codex adapters share: turning records into events, todo lists
//! into obligations and plans, and cutting the log into compaction segments.

use super::lines::Line;
use super::text::digest;
use crate::analysis::extract as tokens;
use crate::model::{
    CompactionEvent, CompactionExtra, Event, EventKind, Format, Malformed, ObligationEvent,
    ObligationStatus, Phase, PlanStep, RangeSpec, Session, Summary, Timestamp, TokenUsage,
};
use serde_json::Value;
use std::collections::BTreeMap;

/// A session being built record by record.
pub(crate) struct Builder {
    pub session: Session,
    /// Seq of the first event after the latest compaction (events are numbered 1, 2, …
    /// in file order; a record can yield several).
    segment_start: u64,
    compactions: u64,
    /// Todo ids that are open, so a todo list that drops one closes it.
    open_todos: BTreeMap<String, ()>,
    /// The ids of the compactions so far: a repeated id is told apart at once.
    compaction_ids: std::collections::HashSet<String>,
}

/// A usage object's counts, under the names an agent gives them: input (not from the
/// cache), output, read from the cache, written to the cache.
pub(crate) fn usage_of(usage: &Value, [input, output, read, written]: [&str; 4]) -> TokenUsage {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    TokenUsage {
        input: n(input),
        output: n(output),
        cache_read: n(read),
        cache_creation: n(written),
    }
}

/// An item of a todo list or plan, in the agent's words.
pub(crate) struct Todo {
    /// The item's text.
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
}

impl Builder {
    pub(crate) fn new(format: Format) -> Builder {
        Builder {
            session: Session::new(format),
            segment_start: 1,
            compactions: 0,
            open_todos: BTreeMap::new(),
            compaction_ids: std::collections::HashSet::new(),
        }
    }

    pub(crate) fn next_seq(&self) -> u64 {
        self.session
            .events
            .last()
            .map_or(1, |e| e.seq.saturating_add(1))
    }

    pub(crate) fn push(
        &mut self,
        line: &Line,
        part: u32,
        ts: Option<String>,
        kind: EventKind,
    ) -> usize {
        let seq = self.next_seq();
        self.session.events.push(Event {
            seq,
            line: line.number,
            offset: line.offset,
            span: line.span_u32(),
            part,
            ts: ts.as_deref().and_then(Timestamp::parse),
            kind,
        });
        self.session.note_if_full();
        self.session.events.len() - 1
    }

    /// The compaction event at `at`, to fill in what later records say of it.
    pub(crate) fn compaction_mut(&mut self, at: usize) -> Option<&mut CompactionEvent> {
        match self.session.events.get_mut(at).map(|e| &mut e.kind) {
            Some(EventKind::Compaction(compaction)) => Some(compaction),
            _ => None,
        }
    }

    /// What a transcript says of the compaction at `at` besides its summary.
    pub(crate) fn compaction_extra_mut(&mut self, at: usize) -> Option<&mut CompactionExtra> {
        self.compaction_mut(at).map(|c| &mut *c.extra)
    }

    pub(crate) fn message(&mut self, role: &str, text: &str) -> EventKind {
        super::text::message(role, text, &mut self.session.tokens)
    }

    pub(crate) fn tool_call(
        &mut self,
        call_id: Option<String>,
        name: &str,
        input: &Value,
    ) -> EventKind {
        super::text::tool_call(
            call_id.map(Into::into),
            name,
            input,
            &mut self.session.tokens,
        )
    }

    pub(crate) fn tool_result(
        &mut self,
        call_id: Option<String>,
        text: &str,
        is_error: bool,
    ) -> EventKind {
        super::text::tool_result(
            call_id.map(Into::into),
            is_error,
            text,
            &mut self.session.tokens,
        )
    }

    pub(crate) fn summary(&mut self, text: &str) -> Summary {
        Summary {
            text: text.to_owned(),
            digest: digest(&[text], tokens::word_count(text), &mut self.session.tokens),
        }
    }

    /// A todo list (TodoWrite, update_plan) as the plan in force plus one obligation per
    /// item; an item that vanished from the list is dropped.
    pub(crate) fn todos(&mut self, line: &Line, part: u32, ts: &Option<String>, todos: &[Todo]) {
        let mut steps = Vec::new();
        let mut listed = BTreeMap::new();
        for todo in todos {
            let id = todo_id(&todo.content);
            let status = match todo.status.as_str() {
                "completed" => ObligationStatus::Done,
                _ => ObligationStatus::Open,
            };
            if status == ObligationStatus::Open {
                steps.push(PlanStep {
                    id: id.clone(),
                    action: todo.content.clone(),
                    target: Value::Null,
                });
            }
            let requires = tokens::extract(&todo.content)
                .iter()
                .map(|f| f.text(&todo.content).to_owned())
                .collect();
            self.push(
                line,
                part,
                ts.clone(),
                EventKind::Obligation(Box::new(ObligationEvent {
                    id: id.clone(),
                    name: Some(todo.content.clone()),
                    requires: Some(requires),
                    status: Some(status),
                })),
            );
            listed.insert(id, ());
        }
        let vanished: Vec<String> = self
            .open_todos
            .keys()
            .filter(|id| !listed.contains_key(*id))
            .cloned()
            .collect();
        for id in vanished {
            self.push(
                line,
                part,
                ts.clone(),
                EventKind::Obligation(Box::new(ObligationEvent {
                    id,
                    name: None,
                    requires: None,
                    status: Some(ObligationStatus::Dropped),
                })),
            );
        }
        self.open_todos = todos
            .iter()
            .filter(|t| t.status != "completed")
            .map(|t| (todo_id(&t.content), ()))
            .collect();
        self.push(line, part, ts.clone(), EventKind::Plan { steps });
    }

    /// A compaction that ends a file holding no conversation yet: its region lies in
    /// an earlier file (a continued session).
    pub(crate) fn compaction_of_an_earlier_file(&self) -> bool {
        self.session
            .events
            .iter()
            .all(|e| e.kind.region_text().is_none())
    }

    /// A compaction of everything since the previous one. Returns its event index.
    pub(crate) fn compaction(
        &mut self,
        line: &Line,
        ts: Option<String>,
        id: Option<String>,
        summary: Option<Summary>,
        elsewhere_if_empty: bool,
    ) -> usize {
        self.compactions += 1;
        let last = self.next_seq() - 1;
        let conversation = self
            .session
            .events
            .iter()
            .rev()
            .take_while(|e| e.seq >= self.segment_start)
            .any(|e| e.kind.region_text().is_some());
        let region_elsewhere = !conversation && elsewhere_if_empty;
        let range = if last >= self.segment_start {
            RangeSpec::Seqs {
                from: self.segment_start,
                to: last,
            }
        } else {
            RangeSpec::Missing
        };
        let id = id.unwrap_or_else(|| format!("compacted-{}", self.compactions));
        // Two boundaries with one id (trimmed fixtures) must stay two compactions.
        let taken = !self.compaction_ids.insert(id.clone());
        let id = if taken {
            format!("{id}#{}", self.compactions)
        } else {
            id
        };
        let index = self.push(
            line,
            0,
            ts,
            EventKind::Compaction(Box::new(CompactionEvent {
                id,
                phase: Some(Phase::Applied),
                range,
                summary: summary.map(Box::new),
                input: Some("log".into()),
                region_elsewhere,
                extra: Box::default(),
            })),
        );
        self.segment_start = self.next_seq();
        index
    }

    pub(crate) fn set_cwd(&mut self, cwd: Option<&str>) {
        if self.session.cwd.is_none() {
            self.session.cwd = cwd.filter(|c| !c.is_empty()).map(str::to_owned);
        }
    }
}

/// A todo's id: its words, so the same item keeps its id across rewritten lists.
fn todo_id(content: &str) -> String {
    let short: String = content
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(60)
        .collect();
    format!("todo: {short}")
}

/// The items of the list `input[list]`, each `{<text>: …, status: …}`, as todos.
pub(crate) fn todo_list(input: &Value, list: &str, text: &str) -> Vec<Todo> {
    input
        .get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|item| Todo {
            content: str_of(item, text).unwrap_or_default(),
            status: str_of(item, "status").unwrap_or_else(|| "pending".into()),
        })
        .collect()
}

/// A transcript line as a JSON object; `None` for a blank line, and a malformed-line
/// record for anything else that is not one.
pub(crate) fn parse_record(
    line: &Line,
    malformed: &mut crate::model::MalformedLines,
) -> Option<Value> {
    if line.bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let reason = match super::lines::from_json(line.bytes) {
        Ok(Value::Object(o)) => return Some(Value::Object(o)),
        Ok(_) => "not a JSON object".to_owned(),
        Err(e) => format!("not valid JSON: {e}"),
    };
    malformed.push(Malformed {
        line: line.number,
        offset: line.offset,
        reason,
    });
    None
}

/// Text of content that is a string, or a list of blocks with `text`.
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o.get("text").and_then(Value::as_str).map(str::to_owned),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => o
            .get("text")
            .and_then(Value::as_str)
            .map_or_else(|| content.to_string(), str::to_owned),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub(crate) fn str_of(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}
