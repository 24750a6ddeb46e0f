//! The text of one record, as a reader wants it: a message's words, a call's name and
//! main argument, a result's output; in every format. The app shows it (cut and made
//! terminal-safe) and exports it.

use super::transcript::{content_text, todo_list};
use crate::model::Format;
use serde_json::Value;

/// The text of part `part` of one record of a log in `format` (a Claude Code record's
/// content block, an OpenCode message's part; other formats have one part).
pub fn record_text(value: &Value, format: Format, part: u32) -> String {
    match format {
        Format::Canonical => canonical_text(value),
        Format::ClaudeCode => claude_text(value, part),
        Format::Codex => codex_text(value),
        Format::CopilotCli => super::copilot::record_text(value),
        Format::GeminiCli => super::gemini::record_text(value, part),
        Format::OpenCode => super::opencode::record_text(value, part),
        Format::QwenCode => super::qwen_code::record_text(value),
    }
}

fn str_of(value: &Value, key: &str) -> String {
    match value.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn canonical_text(value: &Value) -> String {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "message" | "tool_result" => str_of(value, "text"),
        "tool_call" => call_text(
            &str_of(value, "name"),
            value.get("input").unwrap_or(&Value::Null),
        ),
        "binding" => {
            let regen = if value.get("regenerable").and_then(Value::as_bool) == Some(true) {
                "regenerable"
            } else {
                "cannot be re-fetched"
            };
            format!(
                "{} ({regen}) {}",
                str_of(value, "token"),
                str_of(value, "note")
            )
        }
        "obligation" => format!(
            "{} {} {} requires {}",
            str_of(value, "id"),
            str_of(value, "status"),
            str_of(value, "name"),
            str_of(value, "requires")
        ),
        "plan" => value
            .get("steps")
            .and_then(Value::as_array)
            .map(|steps| {
                steps
                    .iter()
                    .map(|s| {
                        format!(
                            "{} {} → {}",
                            str_of(s, "id"),
                            str_of(s, "action"),
                            str_of(s, "target")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default(),
        "action" => format!(
            "{} {} {}",
            str_of(value, "step"),
            str_of(value, "name"),
            str_of(value, "target")
        ),
        "compaction" => str_of(value, "summary"),
        "decision" => format!(
            "{} {} by {} {}",
            str_of(value, "compaction"),
            str_of(value, "verdict"),
            str_of(value, "by"),
            str_of(value, "reason")
        ),
        "session" => format!("cwd {} {}", str_of(value, "cwd"), str_of(value, "agent")),
        "choice" => format!(
            "{} {} {}",
            str_of(value, "polarity"),
            str_of(value, "entity"),
            str_of(value, "note")
        ),
        _ => value.to_string(),
    }
}

/// A Claude Code record: the block `part` of its message, or what the record says.
fn claude_text(value: &Value, part: u32) -> String {
    let content = value.get("message").and_then(|m| m.get("content"));
    if let Some(Value::Array(blocks)) = content {
        let Some(block) = blocks.get(part as usize) else {
            return String::new();
        };
        return match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => str_of(block, "text"),
            "thinking" => str_of(block, "thinking"),
            "tool_use" => {
                let input = block.get("input").unwrap_or(&Value::Null);
                call_text(&str_of(block, "name"), input)
            }
            "tool_result" => block.get("content").map(content_text).unwrap_or_default(),
            _ => block.to_string(),
        };
    }
    if let Some(content) = content {
        return content_text(content);
    }
    let kind = str_of(value, "type");
    match value.get("subtype").and_then(Value::as_str) {
        Some(subtype) => format!("{kind}/{subtype} {}", str_of(value, "content")),
        None => format!("{kind} {}", str_of(value, "summary")),
    }
}

/// A tool call as its name and input; a todo list (TodoWrite, update_plan) as its items,
/// one per line, so its row reads as text rather than JSON.
fn call_text(name: &str, input: &Value) -> String {
    let todos = match input.get("todos") {
        Some(_) => todo_list(input, "todos", "content"),
        None => todo_list(input, "plan", "step"),
    };
    if todos.is_empty() {
        // The argument that says what the call does leads, then the rest of the input
        // (a shell call's description said again adds nothing).
        return match main_argument(input) {
            Some((key, main)) => {
                let mut rest = input.clone();
                if let Some(fields) = rest.as_object_mut() {
                    fields.remove(key);
                    fields.remove("description");
                }
                match rest.as_object().filter(|f| !f.is_empty()) {
                    Some(fields) => format!("{name}: {main}\n{}", field_lines(fields)),
                    None => format!("{name}: {main}"),
                }
            }
            None => format!("{name} {input}"),
        };
    }
    let items: Vec<String> = todos
        .iter()
        .map(|t| {
            let glyph = match t.status.as_str() {
                "completed" => "✔",
                "in_progress" => "▶",
                _ => "☐",
            };
            format!("{glyph} {}", t.content)
        })
        .collect();
    format!("{name}: {}", items.join("\n"))
}

/// The rest of a call's input, a field a line: a text as it is written (a subagent's
/// prompt, a file's new content: read, not escaped as JSON), anything else as JSON.
fn field_lines(fields: &serde_json::Map<String, Value>) -> String {
    fields
        .iter()
        .map(|(key, value)| match value {
            Value::String(text) => format!("{key}: {text}"),
            other => format!("{key}: {other}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The input fields that say what a call does, in the order one is looked for.
const MAIN_ARGUMENTS: [&str; 10] = [
    "command",
    "cmd",
    "file_path",
    "notebook_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
    "prompt",
];

/// What a tool call acts on: its command (a command given as a list, its last word:
/// Codex's `["bash", "-lc", SCRIPT]`), file, pattern, URL or query.
fn main_argument(input: &Value) -> Option<(&'static str, String)> {
    MAIN_ARGUMENTS
        .iter()
        .find_map(|&key| match input.get(key)? {
            Value::String(text) if !text.is_empty() => Some((key, text.clone())),
            Value::Array(words) => Some((key, words.last()?.as_str()?.to_owned())),
            _ => None,
        })
}

/// A Codex record: its payload's text, call or output.
fn codex_text(value: &Value) -> String {
    let kind = str_of(value, "type");
    let Some(payload) = value.get("payload") else {
        return kind;
    };
    match payload.get("type").and_then(Value::as_str).unwrap_or("") {
        "message" => payload.get("content").map(content_text).unwrap_or_default(),
        "reasoning" => payload.get("summary").map(content_text).unwrap_or_default(),
        "function_call" => {
            // Codex passes arguments as a JSON string.
            let arguments = str_of(payload, "arguments");
            match serde_json::from_str::<Value>(&arguments) {
                Ok(input) => call_text(&str_of(payload, "name"), &input),
                Err(_) => format!("{} {arguments}", str_of(payload, "name")),
            }
        }
        "custom_tool_call" => format!("{} {}", str_of(payload, "name"), str_of(payload, "input")),
        "local_shell_call" => format!("local_shell {}", str_of(payload, "action")),
        "function_call_output" | "custom_tool_call_output" => {
            payload.get("output").map(content_text).unwrap_or_default()
        }
        _ if kind == "compacted" => {
            let message = str_of(payload, "message");
            if message.is_empty() {
                "(remote compaction: the summary is encrypted)".into()
            } else {
                message
            }
        }
        _ if kind == "session_meta" => format!("cwd {}", str_of(payload, "cwd")),
        other => format!("{kind} {other}"),
    }
}
