//! OpenCode sessions (docs/transcripts.md). OpenCode keeps its sessions in a SQLite
//! database; the main crate reads one session's rows into lines of this form, in order:
//!
//! - `{"type":"opencode.session", "ts", "directory", "title"}`: the session row;
//! - `{"type":"opencode.message", "id", "ts", "data": {…}, "parts": [{"id", "data"}…]}`:
//!   a message row with its parts.
//!
//! A compaction is a user message whose part is `{"type":"compaction","auto":…}`, then
//! an assistant message with `"summary":true,"mode":"compaction"` whose text is the
//! summary. Nothing is deleted: the messages before the marker are the region. A
//! compaction part's `tail_start_id` names the first message OpenCode keeps verbatim
//! after the summary: that tail's tokens are carried over, not lost.

use super::lines::Line;
use super::transcript::{parse_record, str_of, usage_of, Builder};
use crate::model::{EventKind, Format};
use serde_json::Value;

/// Reads an OpenCode session's lines.
pub struct OpenCodeParser {
    /// The session being built; `LogParser` reads it directly.
    pub(super) builder: Builder,
    /// The compaction asked for and not yet summarised: its message id, whether
    /// OpenCode asked for it itself, and the first message it keeps verbatim.
    requested: Option<Requested>,
    /// The index of each message's first event, since the last compaction: where a
    /// kept tail starts.
    first_event_of: std::collections::HashMap<String, usize>,
}

/// A compaction asked for (a user message with a compaction part).
struct Requested {
    id: Option<String>,
    auto: bool,
    tail_start: Option<String>,
}

impl Default for OpenCodeParser {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether a record is one of the lines the main crate makes of OpenCode's rows.
pub(super) fn is_opencode_record(record: &Value) -> bool {
    record
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.starts_with("opencode."))
}

/// What part `part` of a message line shows: its text, its tool call and output, or
/// its type; the session line shows its folder and title.
pub(crate) fn record_text(record: &Value, part: u32) -> String {
    if str_of(record, "type").as_deref() == Some("opencode.session") {
        return format!(
            "cwd {} {}",
            str_of(record, "directory").unwrap_or_default(),
            str_of(record, "title").unwrap_or_default()
        );
    }
    let Some(data) = parts(record).get(part as usize).and_then(|p| p.get("data")) else {
        return String::new();
    };
    match str_of(data, "type").as_deref() {
        Some("text" | "reasoning") => str_of(data, "text").unwrap_or_default(),
        Some("tool") => {
            let state = data.get("state").unwrap_or(&Value::Null);
            let output = str_of(state, "output")
                .or_else(|| str_of(state, "error"))
                .unwrap_or_default();
            format!(
                "{} {}\n{output}",
                str_of(data, "tool").unwrap_or_default(),
                state.get("input").unwrap_or(&Value::Null)
            )
        }
        Some("compaction") => "compaction requested".to_owned(),
        other => other.unwrap_or_default().to_owned(),
    }
}

fn parts(record: &Value) -> &[Value] {
    record
        .get("parts")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

impl OpenCodeParser {
    /// A parser that has read no line.
    pub fn new() -> Self {
        OpenCodeParser {
            builder: Builder::new(Format::OpenCode),
            requested: None,
            first_event_of: std::collections::HashMap::new(),
        }
    }

    /// Reads one line.
    pub fn feed(&mut self, line: &Line) {
        let Some(record) = parse_record(line, &mut self.builder.session.malformed) else {
            return;
        };
        let ts = str_of(&record, "ts");
        if let Some(ts) = &ts {
            self.builder.session.meta.saw_timestamp(ts);
        }
        match str_of(&record, "type").as_deref() {
            Some("opencode.session") => self.session(line, ts, &record),
            Some("opencode.message") => self.message(line, ts, &record),
            Some("opencode.unreadable") => self.unreadable(line, ts, &record),
            other => {
                let type_name = other.unwrap_or_default().to_owned();
                self.builder
                    .push(line, 0, ts, EventKind::Other { type_name });
            }
        }
    }

    /// A row the main crate could not read: a malformed line where it stood, which may
    /// have held anything (a binding, the summary). A message that cannot be read right
    /// after a compaction was asked for is taken as its summary: the compaction counts,
    /// with nothing known to be kept.
    fn unreadable(&mut self, line: &Line, ts: Option<String>, record: &Value) {
        let table = str_of(record, "table").unwrap_or_default();
        let id = str_of(record, "id");
        let why = str_of(record, "why").unwrap_or_default();
        self.builder
            .session
            .malformed
            .push_may_declare(crate::model::Malformed {
                line: line.number,
                offset: line.offset,
                reason: format!(
                    "OpenCode {table} row {} cannot be read: {why}",
                    id.as_deref().unwrap_or("(no id)")
                ),
            });
        if table == "message" && id.is_none() && self.requested.is_some() {
            self.compaction(line, ts, record);
        }
    }

    fn session(&mut self, line: &Line, ts: Option<String>, record: &Value) {
        self.builder
            .set_cwd(record.get("directory").and_then(Value::as_str));
        let meta = &mut self.builder.session.meta;
        if meta.title.is_none() {
            if let Some(title) = str_of(record, "title") {
                meta.set_title(&title);
            }
        }
        let type_name = "opencode.session".to_owned();
        self.builder
            .push(line, 0, ts, EventKind::Other { type_name });
    }

    fn message(&mut self, line: &Line, ts: Option<String>, record: &Value) {
        let data = record.get("data").unwrap_or(&Value::Null);
        let role = str_of(data, "role").unwrap_or_default();
        // An assistant message's tokens: the session's total is their sum.
        let usage = (role == "assistant")
            .then(|| data.get("tokens"))
            .flatten()
            .map(|tokens| {
                let cache = tokens.get("cache").unwrap_or(&Value::Null);
                let mut usage = usage_of(tokens, ["input", "output", "", ""]);
                usage.cache_read = usage_of(cache, ["", "", "read", ""]).cache_read;
                usage.cache_creation = usage_of(cache, ["", "", "", "write"]).cache_creation;
                usage
            });
        if let Some(usage) = usage {
            let meta = &mut self.builder.session.meta;
            meta.usage = meta.usage.plus(usage);
        }
        if role == "assistant" {
            if let Some(model) = data.get("modelID").and_then(Value::as_str) {
                self.builder.session.meta.saw_model(model);
            }
        }
        let first_event = self.builder.session.events.len();
        if let Some(id) = str_of(record, "id") {
            self.first_event_of.entry(id).or_insert(first_event);
        }
        // A message whose data could not be read (no role) right after a compaction
        // was asked for is its summary.
        let is_summary = (data.get("summary").and_then(Value::as_bool) == Some(true)
            && str_of(data, "mode").as_deref() == Some("compaction"))
            || (self.requested.is_some() && data.get("role").is_none());
        if is_summary {
            self.compaction(line, ts, record);
            return;
        }
        for (index, part) in parts(record).iter().enumerate() {
            let Ok(index) = u32::try_from(index) else {
                break;
            };
            self.part(
                line,
                index,
                &ts,
                &role,
                record,
                part.get("data").unwrap_or(&Value::Null),
            );
        }
        if let Some(usage) = usage.filter(|_| self.builder.session.events.len() > first_event) {
            self.builder.session.set_message_usage(first_event, usage);
        }
    }

    fn part(
        &mut self,
        line: &Line,
        index: u32,
        ts: &Option<String>,
        role: &str,
        record: &Value,
        data: &Value,
    ) {
        let event = match str_of(data, "type").as_deref() {
            Some("text") => {
                let text = str_of(data, "text").unwrap_or_default();
                // OpenCode's own "Continue if you have next steps" is no one's prompt.
                let typed =
                    role == "user" && data.get("synthetic").and_then(Value::as_bool) != Some(true);
                if typed {
                    self.builder.session.meta.saw_user_text(&text);
                }
                self.builder.message(role, &text)
            }
            Some("reasoning") => {
                let text = str_of(data, "text").unwrap_or_default();
                self.builder.message("thinking", &text)
            }
            Some("tool") => {
                let state = data.get("state").unwrap_or(&Value::Null);
                let call_id = str_of(data, "callID");
                let name = str_of(data, "tool").unwrap_or_default();
                let input = state.get("input").unwrap_or(&Value::Null);
                let call = self.builder.tool_call(call_id.clone(), &name, input);
                self.builder.push(line, index, ts.clone(), call);
                let status = str_of(state, "status").unwrap_or_default();
                if !matches!(status.as_str(), "completed" | "error") {
                    return;
                }
                let output = str_of(state, "output")
                    .or_else(|| str_of(state, "error"))
                    .unwrap_or_default();
                self.builder
                    .tool_result(call_id, &output, status == "error")
            }
            Some("compaction") => {
                self.requested = Some(Requested {
                    id: str_of(record, "id"),
                    auto: data.get("auto").and_then(Value::as_bool) == Some(true),
                    tail_start: str_of(data, "tail_start_id"),
                });
                EventKind::Other {
                    type_name: "compaction request".to_owned(),
                }
            }
            // Steps, snapshots and patches are OpenCode's bookkeeping.
            _ => return,
        };
        self.builder.push(line, index, ts.clone(), event);
    }

    /// The summary message: the compaction of everything since the previous one.
    fn compaction(&mut self, line: &Line, ts: Option<String>, record: &Value) {
        let text: Vec<String> = parts(record)
            .iter()
            .filter_map(|p| p.get("data"))
            .filter(|d| str_of(d, "type").as_deref() == Some("text"))
            .filter_map(|d| str_of(d, "text"))
            .collect();
        let summary = (!text.is_empty()).then(|| self.builder.summary(&text.join("\n")));
        let requested = self.requested.take();
        let auto = requested.as_ref().is_some_and(|r| r.auto);
        // The tail kept verbatim: from its first message up to the compaction request.
        let tail = requested
            .as_ref()
            .and_then(|r| r.tail_start.as_ref())
            .and_then(|id| self.first_event_of.get(id).copied());
        let carried: Vec<_> = tail
            .map(|from| {
                self.builder
                    .session
                    .events_in(from..self.builder.session.events.len())
                    .filter_map(|e| e.kind.region_text())
                    .flat_map(|digest| digest.tokens.iter().copied())
                    .collect()
            })
            .unwrap_or_default();
        let id = requested
            .and_then(|r| r.id)
            .or_else(|| str_of(record, "id"));
        let first_in_file = self.builder.compaction_of_an_earlier_file();
        let at = self
            .builder
            .compaction(line, ts, id, summary, first_in_file);
        if let Some(extra) = self.builder.compaction_extra_mut(at) {
            extra.trigger = Some(if auto { "auto" } else { "manual" }.to_owned());
            extra.carried = carried;
        }
        self.first_event_of.clear();
    }
}
