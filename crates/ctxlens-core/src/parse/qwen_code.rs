//! Qwen Code chat recordings (`~/.qwen/projects/<project>/chats/<session>.jsonl`,
//! docs/transcripts.md): records with `uuid`, `parentUuid` and `sessionId` like Claude
//! Code's, but each message a Gemini-style content (`message.parts`: `text`,
//! `functionCall`, `functionResponse`, `thought`). A compression appends a
//! `system`/`chat_compression` record whose `compressedHistory` is the context from
//! then on (the `<state_snapshot>` summary and what was kept); the earlier records stay.

use super::lines::Line;
use super::transcript::{content_text, parse_record, str_of, todo_list, usage_of, Builder};
use crate::model::{EventKind, Format};
use serde_json::Value;

/// Reads a Qwen Code chat recording, line by line.
pub struct QwenParser {
    /// The session being built; `LogParser` reads it directly.
    pub(super) builder: Builder,
}

impl Default for QwenParser {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether a record is one of Qwen Code's: a message held as Gemini-style parts, or a
/// system record with its `systemPayload` (Claude Code's messages hold `content`).
pub(super) fn is_qwen_record(record: &Value) -> bool {
    record
        .get("message")
        .is_some_and(|m| m.get("parts").is_some_and(Value::is_array))
        || (record.get("systemPayload").is_some() && record.get("uuid").is_some())
}

/// The parts of a record's message.
fn parts(record: &Value) -> impl Iterator<Item = &Value> {
    record
        .get("message")
        .and_then(|m| m.get("parts"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The text of parts that are neither a thought nor a call: what the message says.
fn said(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A function response's text: its `output`, else the whole response.
fn response_text(response: &Value) -> String {
    match response.get("output") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => content_text(other),
        None => content_text(response),
    }
}

/// What a compression put in the context: the text of its new history.
fn compressed_text(payload: &Value) -> String {
    payload
        .get("compressedHistory")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|content| content.get("parts").and_then(Value::as_array))
        .map(|parts| said(parts))
        .filter(|text| !text.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// What a record of a Qwen Code recording shows in a timeline.
pub(crate) fn record_text(record: &Value) -> String {
    if let Some(payload) = record.get("systemPayload") {
        return match str_of(record, "subtype").as_deref() {
            Some("chat_compression") => compressed_text(payload),
            Some(subtype) => subtype.to_owned(),
            None => "system".to_owned(),
        };
    }
    let mut text = String::new();
    for part in parts(record) {
        let piece = if let Some(t) = part.get("text").and_then(Value::as_str) {
            t.to_owned()
        } else if let Some(call) = part.get("functionCall") {
            format!(
                "{} {}",
                str_of(call, "name").unwrap_or_default(),
                call.get("args").map(content_text).unwrap_or_default()
            )
        } else if let Some(response) = part.get("functionResponse") {
            response
                .get("response")
                .map(response_text)
                .unwrap_or_default()
        } else {
            continue;
        };
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&piece);
    }
    text
}

impl QwenParser {
    /// A parser that has read no line.
    pub fn new() -> Self {
        QwenParser {
            builder: Builder::new(Format::QwenCode),
        }
    }

    /// Reads one line.
    pub fn feed(&mut self, line: &Line) {
        let Some(record) = parse_record(line, &mut self.builder.session.malformed) else {
            return;
        };
        let ts = str_of(&record, "timestamp");
        if let Some(ts) = &ts {
            self.builder.session.meta.saw_timestamp(ts);
        }
        self.builder
            .set_cwd(record.get("cwd").and_then(Value::as_str));
        let kind = str_of(&record, "type").unwrap_or_default();
        match kind.as_str() {
            "user" | "assistant" | "tool_result" => self.message(line, ts, &record, &kind),
            "system" => {
                let subtype = str_of(&record, "subtype").unwrap_or_else(|| kind.clone());
                let payload = record.get("systemPayload").unwrap_or(&Value::Null);
                if subtype == "chat_compression" {
                    self.compression(line, ts, &record, payload);
                } else {
                    self.builder
                        .push(line, 0, ts, EventKind::Other { type_name: subtype });
                }
            }
            _ => {
                self.builder
                    .push(line, 0, ts, EventKind::Other { type_name: kind });
            }
        }
    }

    /// A message: its thoughts, text, calls and results, one event each.
    fn message(&mut self, line: &Line, ts: Option<String>, record: &Value, kind: &str) {
        let all: Vec<Value> = parts(record).cloned().collect();
        let model = kind == "assistant";
        if model {
            if let Some(name) = record.get("model").and_then(Value::as_str) {
                self.builder.session.meta.saw_model(name);
            }
            if let Some(usage) = record.get("usageMetadata") {
                self.usage(usage);
            }
        }
        let failed = record
            .get("toolCallResult")
            .and_then(|r| str_of(r, "status"))
            .is_some_and(|s| s == "error" || s == "cancelled");
        let mut part = 0;
        let thought: String = all
            .iter()
            .filter(|p| p.get("thought").and_then(Value::as_bool) == Some(true))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        if !thought.trim().is_empty() {
            let event = self.builder.message("thinking", &thought);
            self.builder.push(line, part, ts.clone(), event);
            part += 1;
        }
        let text = said(&all);
        if !text.trim().is_empty() {
            if kind == "user" {
                self.builder.session.meta.saw_user_text(&text);
            }
            let event = self
                .builder
                .message(if model { "assistant" } else { "user" }, &text);
            self.builder.push(line, part, ts.clone(), event);
            part += 1;
        }
        for p in &all {
            if let Some(call) = p.get("functionCall") {
                let name = str_of(call, "name").unwrap_or_default();
                let args = call.get("args").unwrap_or(&Value::Null);
                let event = self.builder.tool_call(str_of(call, "id"), &name, args);
                self.builder.push(line, part, ts.clone(), event);
                // Its task list: the plan and the obligations, read from the call.
                if name == "todo_write" {
                    let todos = todo_list(args, "todos", "content");
                    self.builder.todos(line, part, &ts, &todos);
                }
            } else if let Some(response) = p.get("functionResponse") {
                let output = response
                    .get("response")
                    .map(response_text)
                    .unwrap_or_default();
                let event = self
                    .builder
                    .tool_result(str_of(response, "id"), &output, failed);
                self.builder.push(line, part, ts.clone(), event);
            } else {
                continue;
            }
            part += 1;
        }
        if part == 0 {
            let event = EventKind::Other {
                type_name: kind.to_owned(),
            };
            self.builder.push(line, part, ts, event);
        }
    }

    /// A compression: everything since the previous one, summarised into its new history.
    fn compression(&mut self, line: &Line, ts: Option<String>, record: &Value, payload: &Value) {
        let text = compressed_text(payload);
        let summary = (!text.trim().is_empty()).then(|| self.builder.summary(&text));
        let first_in_file = self.builder.compaction_of_an_earlier_file();
        let at = self
            .builder
            .compaction(line, ts, str_of(record, "uuid"), summary, first_in_file);
        let info = payload.get("info").unwrap_or(&Value::Null);
        if let Some(extra) = self.builder.compaction_extra_mut(at) {
            extra.trigger = str_of(info, "triggerReason").map(|reason| {
                if reason == "manual" {
                    reason
                } else {
                    "auto".to_owned()
                }
            });
            extra.pre_tokens = info.get("originalTokenCount").and_then(Value::as_u64);
            extra.post_tokens = info.get("newTokenCount").and_then(Value::as_u64);
        }
    }

    /// Adds one answer's tokens (Gemini's usage names).
    fn usage(&mut self, usage: &Value) {
        let mut call = usage_of(
            usage,
            [
                "promptTokenCount",
                "candidatesTokenCount",
                "cachedContentTokenCount",
                "",
            ],
        );
        // The prompt count includes the cached part.
        call.input = call.input.saturating_sub(call.cache_read);
        let meta = &mut self.builder.session.meta;
        meta.usage = meta.usage.plus(call);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use crate::model::{EventKind, Format};

    #[test]
    fn a_todo_list_is_the_plan_and_its_open_items_obligations() {
        let log = concat!(
            "{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"type\":\"assistant\",",
            "\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"c1\",",
            "\"name\":\"todo_write\",\"args\":{\"todos\":[",
            "{\"id\":\"1\",\"content\":\"Roll back to 4f9a2c81d0e7\",\"status\":\"pending\"},",
            "{\"id\":\"2\",\"content\":\"Record the revision\",\"status\":\"completed\"}]}}}]}}\n",
        );
        let session = crate::parse::parse(log.as_bytes());
        assert_eq!(session.format, Format::QwenCode);
        let plan = session
            .events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Plan { steps } => Some(steps.len()),
                _ => None,
            })
            .unwrap();
        assert_eq!(plan, 1, "the open item");
        let obligations = session
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Obligation(_)))
            .count();
        assert_eq!(obligations, 2);
    }
}
