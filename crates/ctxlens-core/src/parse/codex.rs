//! Codex CLI rollouts (docs/transcripts.md): `response_item` messages and tool calls, `update_plan` as
//! plan, `compacted` as a compaction of everything since the previous one. A remote
//! compaction (empty `message`, encrypted history) has a summary that cannot be read.

use super::lines::Line;
use super::transcript::{content_text, parse_record, str_of, todo_list, Builder};
use crate::model::{EventKind, Format, Malformed, Retained, Role, TokenUsage};
use serde_json::Value;

pub struct CodexParser {
    /// The session being built; `LogParser` reads it directly.
    pub(super) builder: Builder,
    /// Hashes of the timestamped records read: a rollout resumed or copied can hold the
    /// same record twice, and a compaction read twice is not two compactions.
    seen: std::collections::HashSet<u64>,
    /// The first event after the last `token_count`: the model's next response starts
    /// at or after it.
    response_start: usize,
}

impl Default for CodexParser {
    fn default() -> Self {
        Self::new()
    }
}

impl CodexParser {
    pub fn new() -> Self {
        CodexParser {
            builder: Builder::new(Format::Codex),
            seen: std::collections::HashSet::new(),
            response_start: 0,
        }
    }

    pub fn feed(&mut self, line: &Line) {
        let Some(record) = parse_record(line, &mut self.builder.session.malformed) else {
            return;
        };
        let ts = str_of(&record, "timestamp");
        if ts.is_some() {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            line.bytes.hash(&mut hasher);
            if !self.seen.insert(hasher.finish()) {
                return;
            }
        }
        let payload = record.get("payload").unwrap_or(&Value::Null);
        self.metadata(&record, payload, ts.as_deref());
        if str_of(payload, "type").as_deref() == Some("token_count") {
            self.note_response_usage(payload);
        }
        match str_of(&record, "type").as_deref() {
            Some("session_meta") => {
                self.builder
                    .set_cwd(payload.get("cwd").and_then(Value::as_str));
                self.builder.push(
                    line,
                    0,
                    ts,
                    EventKind::Other {
                        type_name: "session_meta".into(),
                    },
                );
            }
            Some("response_item") => self.response_item(line, ts, payload),
            Some("compacted") => {
                let message = str_of(payload, "message").unwrap_or_default();
                // Remote compaction: the summary is encrypted; nothing can be claimed.
                let retained: Vec<String> = payload
                    .get("replacement_history")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|item| item.get("content").map(content_text))
                    .collect();
                let readable = !message.trim().is_empty();
                let summary = readable.then(|| {
                    let mut text = message.clone();
                    for content in &retained {
                        text.push('\n');
                        text.push_str(content);
                    }
                    self.builder.summary(&text)
                });
                let first_in_file = self.builder.compaction_of_an_earlier_file();
                let at = self
                    .builder
                    .compaction(line, ts, None, summary, first_in_file);
                // A remote compaction: the summary is encrypted, and the messages kept
                // beside it are what can be checked.
                if !readable && !retained.is_empty() {
                    let kept = Retained {
                        messages: retained.len(),
                        text: self.builder.summary(&retained.join("\n")),
                    };
                    if let Some(extra) = self.builder.compaction_extra_mut(at) {
                        extra.retained = Some(kept);
                    }
                }
            }
            Some(other) => {
                let sub = str_of(payload, "type")
                    .map(|t| format!("/{t}"))
                    .unwrap_or_default();
                self.builder.push(
                    line,
                    0,
                    ts,
                    EventKind::Other {
                        type_name: format!("{other}{sub}"),
                    },
                );
            }
            None => self.malformed(line, "no \"type\" field".into()),
        }
    }

    /// A `token_count`'s `last_token_usage` is what the model's last response used: it
    /// is shown at that response's first event (its thinking, message or call).
    fn note_response_usage(&mut self, payload: &Value) {
        let session = &mut self.builder.session;
        let now = session.events.len();
        let last = payload.get("info").and_then(|i| i.get("last_token_usage"));
        let start = session
            .events
            .range(self.response_start.min(now)..now)
            .position(|e| match &e.kind {
                EventKind::Message { role, .. } => {
                    !matches!(role, Role::User | Role::System | Role::Developer)
                }
                EventKind::ToolCall { .. } => true,
                _ => false,
            })
            .map(|at| self.response_start + at);
        if let (Some(last), Some(start)) = (last, start) {
            session.set_message_usage(start, usage_of(last));
        }
        // The token_count record itself is the next event.
        self.response_start = now + 1;
    }

    /// Operator metadata: model, branch, first prompt, token usage, activity.
    fn metadata(&mut self, record: &Value, payload: &Value, ts: Option<&str>) {
        let meta = &mut self.builder.session.meta;
        if let Some(ts) = ts {
            meta.saw_timestamp(ts);
        }
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let sub = payload.get("type").and_then(Value::as_str).unwrap_or("");
        match (kind, sub) {
            ("turn_context", _) => {
                if let Some(model) = payload.get("model").and_then(Value::as_str) {
                    meta.saw_model(model);
                }
            }
            ("session_meta", _) => {
                let branch = payload.get("git").and_then(|g| g.get("branch"));
                if let Some(branch) = branch.and_then(Value::as_str) {
                    meta.branch = Some(branch.to_owned());
                }
            }
            ("event_msg", "token_count") => {
                let total = payload.get("info").and_then(|i| i.get("total_token_usage"));
                if let Some(total) = total {
                    meta.usage = usage_of(total);
                }
            }
            ("response_item", "message")
                if meta.first_prompt.is_none()
                    && str_of(payload, "role").as_deref() == Some("user") =>
            {
                let text = payload.get("content").map(content_text).unwrap_or_default();
                // Codex injects the AGENTS.md instructions as a user message.
                if !text.trim_start().starts_with('#') {
                    meta.saw_user_text(&text);
                }
            }
            _ => {}
        }
    }

    fn malformed(&mut self, line: &Line, reason: String) {
        self.builder.session.malformed.push(Malformed {
            line: line.number,
            offset: line.offset,
            reason,
        });
    }

    fn response_item(&mut self, line: &Line, ts: Option<String>, payload: &Value) {
        let kind = str_of(payload, "type").unwrap_or_default();
        let event = match kind.as_str() {
            "message" => {
                let role = str_of(payload, "role").unwrap_or_else(|| "assistant".into());
                let text = payload.get("content").map(content_text).unwrap_or_default();
                self.builder.message(&role, &text)
            }
            "reasoning" => {
                let text = payload.get("summary").map(content_text).unwrap_or_default();
                self.builder.message("thinking", &text)
            }
            "function_call" => {
                let name = str_of(payload, "name").unwrap_or_default();
                let input = match payload.get("arguments") {
                    Some(Value::String(args)) => {
                        serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.clone()))
                    }
                    Some(other) => other.clone(),
                    None => Value::Null,
                };
                if name == "update_plan" {
                    self.plan(line, &ts, &input);
                }
                self.builder
                    .tool_call(str_of(payload, "call_id"), &name, &input)
            }
            "custom_tool_call" => {
                let name = str_of(payload, "name").unwrap_or_default();
                let input = payload.get("input").unwrap_or(&Value::Null);
                self.builder
                    .tool_call(str_of(payload, "call_id"), &name, input)
            }
            "local_shell_call" => {
                let input = payload.get("action").unwrap_or(&Value::Null);
                self.builder
                    .tool_call(str_of(payload, "call_id"), "local_shell", input)
            }
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                let output = payload.get("output").unwrap_or(&Value::Null);
                // Older rollouts wrap the output as JSON text {"output": …}.
                let text = match output {
                    Value::String(s) => serde_json::from_str::<Value>(s)
                        .ok()
                        .and_then(|v| v.get("output").and_then(Value::as_str).map(str::to_owned))
                        .unwrap_or_else(|| s.clone()),
                    other => content_text(other),
                };
                self.builder
                    .tool_result(str_of(payload, "call_id"), &text, false)
            }
            other => EventKind::Other {
                type_name: format!("response_item/{other}"),
            },
        };
        self.builder.push(line, 0, ts, event);
    }

    fn plan(&mut self, line: &Line, ts: &Option<String>, input: &Value) {
        let todos = todo_list(input, "plan", "step");
        self.builder.todos(line, 0, ts, &todos);
    }
}

/// A `token_count`'s usage object: its input counts the cached tokens too.
fn usage_of(usage: &Value) -> TokenUsage {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    TokenUsage {
        input: n("input_tokens").saturating_sub(n("cached_input_tokens")),
        output: n("output_tokens"),
        cache_read: n("cached_input_tokens"),
        cache_creation: 0,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::model::TokenUsage;

    /// Each `token_count`'s last usage sits at the first event of the response it
    /// counts: not at the user's message, nor at the record itself.
    #[test]
    fn a_responses_usage_sits_at_its_first_event() {
        let item = |payload: &str| {
            format!(
                r#"{{"timestamp":"2026-12-04T10:00:00Z","type":"response_item","payload":{payload}}}"#
            )
        };
        let count = |input: u64, cached: u64, output: u64| {
            format!(
                r#"{{"timestamp":"2026-12-04T10:00:0{output}Z","type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":{cached},"output_tokens":{output}}}}}}}}}"#
            )
        };
        let log = [
            r#"{"timestamp":"2026-12-04T09:59:59Z","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#.to_owned(),
            item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"list it"}]}"#),
            item(r#"{"type":"function_call","name":"shell","call_id":"c1","arguments":"{\"command\":[\"ls\"]}"}"#),
            count(100, 60, 7),
            item(r#"{"type":"function_call_output","call_id":"c1","output":"a.txt"}"#),
            item(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"One file."}]}"#),
            count(120, 100, 5),
        ]
        .join("\n");
        let session = crate::parse::parse(log.as_bytes());
        let usage = |input, cache_read, output| TokenUsage {
            input,
            output,
            cache_read,
            cache_creation: 0,
        };
        let at: Vec<_> = session.message_usage.iter().copied().collect();
        // Events: session_meta 0, user 1, call 2, token_count 3, output 4, message 5.
        assert_eq!(at, [(2, usage(40, 60, 7)), (5, usage(20, 100, 5))]);
    }
}
