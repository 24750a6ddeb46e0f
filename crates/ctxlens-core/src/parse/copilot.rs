//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`,
//! docs/transcripts.md): append-only `{type, data, id, timestamp, parentId}` records.
//! Messages and tool executions are the conversation; `session.compaction_complete`
//! is a compaction of everything since the previous one, its `summaryContent` the
//! summary. The client's debug records (`model.*`), hooks and turns are bookkeeping.

use super::lines::Line;
use super::transcript::{content_text, parse_record, str_of, usage_of, Builder};
use crate::model::{EventKind, Format};
use serde_json::Value;

/// Reads a Copilot CLI session, line by line.
pub struct CopilotParser {
    /// The session being built; `LogParser` reads it directly.
    pub(super) builder: Builder,
    /// The trigger of the compaction under way (`session.compaction_start`).
    trigger: Option<String>,
}

impl Default for CopilotParser {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether a record is one of Copilot CLI's: a dotted `type` (`session.start`,
/// `user.message`) with its fields under `data`.
pub(super) fn is_copilot_record(record: &Value) -> bool {
    let dotted = record
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.contains('.') && !t.contains(' '));
    dotted && record.get("data").is_some_and(Value::is_object) && record.get("id").is_some()
}

/// What a record of a Copilot CLI session shows in a timeline: its message, its tool
/// call or result, its compaction's summary, or its type.
pub(crate) fn record_text(record: &Value) -> String {
    let kind = str_of(record, "type").unwrap_or_default();
    let data = record.get("data").unwrap_or(&Value::Null);
    match kind.as_str() {
        "user.message" | "assistant.message" | "assistant.reasoning" => {
            str_of(data, "content").unwrap_or_default()
        }
        "tool.execution_start" => format!(
            "{} {}",
            str_of(data, "toolName").unwrap_or_default(),
            data.get("arguments").map(content_text).unwrap_or_default()
        ),
        "tool.execution_complete" => data
            .get("result")
            .and_then(|r| r.get("content"))
            .map(content_text)
            .unwrap_or_default(),
        "session.compaction_complete" => str_of(data, "summaryContent").unwrap_or_default(),
        "session.start" => format!(
            "cwd {}",
            data.get("context")
                .and_then(|c| c.get("cwd"))
                .and_then(Value::as_str)
                .unwrap_or("")
        ),
        _ => kind,
    }
}

impl CopilotParser {
    /// A parser that has read no line.
    pub fn new() -> Self {
        CopilotParser {
            builder: Builder::new(Format::CopilotCli),
            trigger: None,
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
        let data = record.get("data").unwrap_or(&Value::Null);
        let kind = str_of(&record, "type").unwrap_or_default();
        let event = match kind.as_str() {
            "session.start" => {
                let cwd = data.get("context").and_then(|c| c.get("cwd"));
                self.builder.set_cwd(cwd.and_then(Value::as_str));
                EventKind::Other {
                    type_name: kind.clone(),
                }
            }
            "user.message" => {
                let text = str_of(data, "content").unwrap_or_default();
                self.builder.session.meta.saw_user_text(&text);
                self.builder.message("user", &text)
            }
            "assistant.message" => {
                if let Some(model) = data.get("model").and_then(Value::as_str) {
                    self.builder.session.meta.saw_model(model);
                }
                let text = str_of(data, "content").unwrap_or_default();
                self.builder.message("assistant", &text)
            }
            // The model's reasoning, when the session records it.
            "assistant.reasoning" => {
                let text = str_of(data, "content").unwrap_or_default();
                self.builder.message("thinking", &text)
            }
            "tool.execution_start" => {
                let name = str_of(data, "toolName").unwrap_or_default();
                let input = data.get("arguments").unwrap_or(&Value::Null);
                self.builder
                    .tool_call(str_of(data, "toolCallId"), &name, input)
            }
            "tool.execution_complete" => {
                let result = data.get("result");
                let text = result
                    .and_then(|r| r.get("content"))
                    .map(content_text)
                    .unwrap_or_default();
                let failed = data.get("success").and_then(Value::as_bool) == Some(false);
                self.builder
                    .tool_result(str_of(data, "toolCallId"), &text, failed)
            }
            "session.usage_record" => {
                self.usage(data.get("usage").unwrap_or(&Value::Null));
                EventKind::Other {
                    type_name: kind.clone(),
                }
            }
            "session.compaction_start" => {
                self.trigger = str_of(data, "trigger");
                EventKind::Other {
                    type_name: kind.clone(),
                }
            }
            "session.compaction_complete"
                if data.get("success").and_then(Value::as_bool) != Some(false) =>
            {
                self.compaction(line, ts, data);
                return;
            }
            _ => EventKind::Other {
                type_name: kind.clone(),
            },
        };
        self.builder.push(line, 0, ts, event);
    }

    /// A compaction that was applied: its summary, trigger and token counts.
    fn compaction(&mut self, line: &Line, ts: Option<String>, data: &Value) {
        let summary = str_of(data, "summaryContent").map(|text| self.builder.summary(&text));
        let first_in_file = self.builder.compaction_of_an_earlier_file();
        let at = self
            .builder
            .compaction(line, ts, None, summary, first_in_file);
        let trigger = self.trigger.take().or_else(|| str_of(data, "trigger"));
        if let Some(extra) = self.builder.compaction_extra_mut(at) {
            extra.trigger = trigger;
            extra.pre_tokens = data.get("preCompactionTokens").and_then(Value::as_u64);
            extra.post_tokens = data.get("postCompactionTokens").and_then(Value::as_u64);
        }
    }

    /// Adds one model call's tokens.
    fn usage(&mut self, usage: &Value) {
        let call = usage_of(
            usage,
            [
                "inputTokens",
                "outputTokens",
                "cacheReadTokens",
                "cacheWriteTokens",
            ],
        );
        let meta = &mut self.builder.session.meta;
        meta.usage = meta.usage.plus(call);
    }
}
