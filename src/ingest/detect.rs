//! Which format a log is in, from its content (the first record that is a JSON object),
//! and one parser over all of them.

use super::canonical::CanonicalParser;
use super::claude::ClaudeParser;
use super::codex::CodexParser;
use super::lines::Line;
use crate::model::{Format, Malformed, Session};
use serde_json::Value;

/// The format a record belongs to.
pub fn detect_record(record: &Value) -> Format {
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    let has = |key: &str| record.get(key).is_some();
    if has("payload")
        && matches!(
            kind,
            "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted"
        )
    {
        return Format::Codex;
    }
    let claude_kind = matches!(
        kind,
        "user"
            | "assistant"
            | "system"
            | "summary"
            | "progress"
            | "file-history-snapshot"
            | "queue-operation"
            | "attachment"
    );
    if claude_kind && (has("uuid") || has("parentUuid") || has("sessionId") || has("leafUuid")) {
        return Format::ClaudeCode;
    }
    // Records only Claude Code writes, which may come first and carry no uuid.
    if matches!(
        kind,
        "file-history-snapshot"
            | "queue-operation"
            | "permission-mode"
            | "custom-title"
            | "ai-title"
    ) {
        return Format::ClaudeCode;
    }
    Format::Canonical
}

pub enum LogParser {
    /// No JSON object seen yet: lines so far were blank or malformed.
    Undetected(Session),
    Canonical(CanonicalParser),
    ClaudeCode(Box<ClaudeParser>),
    Codex(CodexParser),
}

impl Default for LogParser {
    fn default() -> Self {
        Self::new()
    }
}

impl LogParser {
    pub fn new() -> LogParser {
        LogParser::Undetected(Session::new(Format::Canonical))
    }

    pub fn session(&self) -> &Session {
        match self {
            LogParser::Undetected(session) => session,
            LogParser::Canonical(p) => p.session(),
            LogParser::ClaudeCode(p) => &p.builder.session,
            LogParser::Codex(p) => &p.builder.session,
        }
    }

    pub fn finish(self) -> Session {
        match self {
            LogParser::Undetected(session) => session,
            LogParser::Canonical(p) => p.finish(),
            LogParser::ClaudeCode(p) => p.builder.session,
            LogParser::Codex(p) => p.builder.session,
        }
    }

    pub fn feed(&mut self, line: &Line) {
        if let LogParser::Undetected(session) = self {
            if line.bytes.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            let record = match serde_json::from_slice::<Value>(line.bytes) {
                Ok(record @ Value::Object(_)) => record,
                Ok(_) => return not_a_record(session, line, "not a JSON object".into()),
                Err(e) => return not_a_record(session, line, format!("not valid JSON: {e}")),
            };
            let earlier = std::mem::take(&mut session.malformed);
            *self = match detect_record(&record) {
                Format::Canonical => LogParser::Canonical(CanonicalParser::new()),
                Format::ClaudeCode => LogParser::ClaudeCode(Box::default()),
                Format::Codex => LogParser::Codex(CodexParser::new()),
            };
            self.malformed_mut().extend(earlier);
        }
        match self {
            LogParser::Undetected(_) => {}
            LogParser::Canonical(p) => p.feed(line),
            LogParser::ClaudeCode(p) => p.feed(line),
            LogParser::Codex(p) => p.feed(line),
        }
    }

    fn malformed_mut(&mut self) -> &mut Vec<Malformed> {
        match self {
            LogParser::Undetected(session) => &mut session.malformed,
            LogParser::Canonical(p) => p.malformed_mut(),
            LogParser::ClaudeCode(p) => &mut p.builder.session.malformed,
            LogParser::Codex(p) => &mut p.builder.session.malformed,
        }
    }
}

fn not_a_record(session: &mut Session, line: &Line, reason: String) {
    session.malformed.push(Malformed {
        line: line.number,
        offset: line.offset,
        reason,
    });
}
