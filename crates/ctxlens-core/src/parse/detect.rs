//! Which format a log is in, decided from the preponderance of its first records (a new
//! record kind at the top of a file must not flip the format), and one parser over all
//! of them.

use super::canonical::CanonicalParser;
use super::claude_code::ClaudeParser;
use super::codex::CodexParser;
use super::copilot::{is_copilot_record, CopilotParser};
use super::gemini::{is_gemini_record, GeminiParser};
use super::lines::Line;
use super::opencode::{is_opencode_record, OpenCodeParser};
use super::qwen_code::{is_qwen_record, QwenParser};
use crate::model::{Format, Session};
use serde_json::Value;

/// Records of the canonical log (docs/log-format.md and docs/signals.md).
const CANONICAL_TYPES: &[&str] = &[
    "session",
    "message",
    "tool_call",
    "tool_result",
    "binding",
    "obligation",
    "plan",
    "action",
    "compaction",
    "decision",
    "choice",
];

/// The format a record speaks for, or `None` for a record any format may hold (an
/// unknown kind such as Claude Code's newer `mode` or `last-prompt` without ids).
pub(crate) fn detect_record(record: &Value) -> Option<Format> {
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    let has = |key: &str| record.get(key).is_some();
    // Before Copilot's: its records too have a dotted type, `data` and an id.
    if is_opencode_record(record) {
        return Some(Format::OpenCode);
    }
    if is_copilot_record(record) {
        return Some(Format::CopilotCli);
    }
    if is_gemini_record(record) {
        return Some(Format::GeminiCli);
    }
    // Before Claude Code's: its records too have a uuid and a sessionId.
    if is_qwen_record(record) {
        return Some(Format::QwenCode);
    }
    if has("payload") && !has("uuid") && !has("sessionId") {
        return Some(Format::Codex);
    }
    if has("uuid") || has("parentUuid") || has("sessionId") || has("leafUuid") {
        return Some(Format::ClaudeCode);
    }
    if matches!(
        kind,
        "file-history-snapshot"
            | "queue-operation"
            | "permission-mode"
            | "custom-title"
            | "ai-title"
    ) {
        return Some(Format::ClaudeCode);
    }
    CANONICAL_TYPES.contains(&kind).then_some(Format::Canonical)
}

/// Records that vote before the format is decided.
/// Why a line longer than the cap is a malformed line.
pub(crate) fn oversized_reason(span: u64) -> String {
    super::canonical::BadLine::Oversized { span }.to_string()
}

const VOTES_TO_DECIDE: usize = 8;
/// Lines held back while undecided; past this the votes so far decide.
const MAX_HELD_LINES: usize = 512;
const MAX_HELD_BYTES: usize = 16 << 20;

/// A line read before the format was decided, replayed once it is.
struct HeldLine {
    number: u64,
    offset: u64,
    span: u64,
    terminated: bool,
    oversized: bool,
    bytes: Vec<u8>,
}

/// Lines and votes gathered while the format is not decided.
#[derive(Default)]
pub struct Undecided {
    held: Vec<HeldLine>,
    held_bytes: usize,
    /// Votes in the order they came: (format, count).
    votes: Vec<(Format, usize)>,
    empty: Session,
}

impl Undecided {
    fn vote(&mut self, format: Format) {
        match self.votes.iter_mut().find(|(f, _)| *f == format) {
            Some((_, n)) => *n += 1,
            None => self.votes.push((format, 1)),
        }
    }

    /// The format most records speak for; on a tie the one that spoke first.
    fn winner(&self) -> Option<Format> {
        let mut best: Option<(Format, usize)> = None;
        for &(format, n) in &self.votes {
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((format, n));
            }
        }
        best.map(|(f, _)| f)
    }

    fn total(&self) -> usize {
        self.votes.iter().map(|(_, n)| n).sum()
    }
}

/// Reads a log of any format, line by line: the first lines decide which (docs/transcripts.md).
pub enum LogParser {
    /// The format is not decided yet: lines are held and vote.
    Undetected(Box<Undecided>),
    /// A canonical log.
    Canonical(CanonicalParser),
    /// A Claude Code transcript.
    ClaudeCode(Box<ClaudeParser>),
    /// A Codex rollout.
    Codex(CodexParser),
    /// A GitHub Copilot CLI session.
    CopilotCli(Box<CopilotParser>),
    /// A Gemini CLI chat recording.
    GeminiCli(Box<GeminiParser>),
    /// An OpenCode session, as the main crate reads it from the database.
    OpenCode(Box<OpenCodeParser>),
    /// A Qwen Code chat recording.
    QwenCode(Box<QwenParser>),
}

impl Default for LogParser {
    fn default() -> Self {
        Self::new()
    }
}

impl LogParser {
    /// A parser that has read no line.
    pub fn new() -> LogParser {
        LogParser::Undetected(Box::default())
    }

    /// The session read so far.
    pub fn session(&self) -> &Session {
        match self {
            LogParser::Undetected(undecided) => &undecided.empty,
            LogParser::Canonical(p) => p.session(),
            LogParser::ClaudeCode(p) => &p.builder.session,
            LogParser::Codex(p) => &p.builder.session,
            LogParser::CopilotCli(p) => &p.builder.session,
            LogParser::GeminiCli(p) => &p.builder.session,
            LogParser::OpenCode(p) => &p.builder.session,
            LogParser::QwenCode(p) => &p.builder.session,
        }
    }

    /// The session read so far, for the passes that add to it (the declared tokens).
    pub fn session_mut(&mut self) -> &mut Session {
        match self {
            LogParser::Undetected(undecided) => &mut undecided.empty,
            LogParser::Canonical(p) => p.session_mut(),
            LogParser::ClaudeCode(p) => &mut p.builder.session,
            LogParser::Codex(p) => &mut p.builder.session,
            LogParser::CopilotCli(p) => &mut p.builder.session,
            LogParser::GeminiCli(p) => &mut p.builder.session,
            LogParser::OpenCode(p) => &mut p.builder.session,
            LogParser::QwenCode(p) => &mut p.builder.session,
        }
    }

    /// The session, once every line is read (the format decided by then).
    pub fn finish(mut self) -> Session {
        self.decide();
        match self {
            LogParser::Canonical(p) => p.finish(),
            mut other => std::mem::take(other.session_mut()),
        }
    }

    /// Reads one line.
    pub fn feed(&mut self, line: &Line) {
        match self {
            LogParser::Undetected(undecided) => {
                if let Ok(record) = super::lines::from_json::<Value>(line.bytes) {
                    if let Some(format) = detect_record(&record) {
                        undecided.vote(format);
                    }
                }
                undecided.held_bytes += line.bytes.len();
                undecided.held.push(HeldLine {
                    number: line.number,
                    offset: line.offset,
                    span: line.span,
                    terminated: line.terminated,
                    oversized: line.oversized,
                    bytes: line.bytes.to_vec(),
                });
                if undecided.total() >= VOTES_TO_DECIDE
                    || undecided.held.len() >= MAX_HELD_LINES
                    || undecided.held_bytes >= MAX_HELD_BYTES
                {
                    self.decide();
                }
            }
            // The canonical parser reports an oversized line itself (its lines are
            // also parsed on other threads, without this parser).
            LogParser::Canonical(p) => p.feed(line),
            _ if line.oversized => {
                let malformed = crate::model::Malformed {
                    line: line.number,
                    offset: line.offset,
                    reason: oversized_reason(line.span),
                };
                self.session_mut().malformed.push(malformed);
            }
            LogParser::ClaudeCode(p) => p.feed(line),
            LogParser::Codex(p) => p.feed(line),
            LogParser::CopilotCli(p) => p.feed(line),
            LogParser::GeminiCli(p) => p.feed(line),
            LogParser::OpenCode(p) => p.feed(line),
            LogParser::QwenCode(p) => p.feed(line),
        }
    }

    /// Decides the format from the votes so far, if any record voted: a live log that
    /// has stopped growing for now shows what it has.
    pub fn settle(&mut self) {
        if let LogParser::Undetected(undecided) = self {
            if undecided.total() > 0 {
                self.decide();
            }
        }
    }

    fn decide(&mut self) {
        let LogParser::Undetected(undecided) = self else {
            return;
        };
        let undecided = std::mem::take(undecided);
        *self = match undecided.winner().unwrap_or(Format::Canonical) {
            Format::Canonical => LogParser::Canonical(CanonicalParser::new()),
            Format::ClaudeCode => LogParser::ClaudeCode(Box::default()),
            Format::Codex => LogParser::Codex(CodexParser::new()),
            Format::CopilotCli => LogParser::CopilotCli(Box::default()),
            Format::GeminiCli => LogParser::GeminiCli(Box::default()),
            Format::OpenCode => LogParser::OpenCode(Box::default()),
            Format::QwenCode => LogParser::QwenCode(Box::default()),
        };
        for held in &undecided.held {
            self.feed(&Line {
                number: held.number,
                offset: held.offset,
                bytes: &held.bytes,
                span: held.span,
                terminated: held.terminated,
                oversized: held.oversized,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The format `log` is read as.
    fn format_of(log: &str) -> Format {
        parse(log).format
    }

    fn parse(log: &str) -> Session {
        super::super::parse(log.as_bytes())
    }

    #[test]
    fn records_no_format_knows_do_not_decide() {
        // A newer Claude Code opens with kinds that carry no ids.
        let claude = concat!(
            "{\"type\":\"mode\",\"mode\":\"normal\"}\n",
            "{\"type\":\"last-prompt\",\"lastPrompt\":\"go\"}\n",
            "{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        );
        assert_eq!(format_of(claude), Format::ClaudeCode);
        let canonical = concat!(
            "{\"type\":\"heartbeat\"}\n",
            "{\"type\":\"message\",\"seq\":2,\"role\":\"user\",\"text\":\"hi\"}\n",
        );
        assert_eq!(format_of(canonical), Format::Canonical);
    }

    #[test]
    fn a_qwen_code_record_is_not_claude_codes() {
        // Both have a uuid and a sessionId; Qwen Code's message holds Gemini-style parts.
        let qwen = concat!(
            "{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"type\":\"user\",",
            "\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}}\n",
            "{\"uuid\":\"b\",\"parentUuid\":\"a\",\"sessionId\":\"s\",\"type\":\"system\",",
            "\"subtype\":\"ui_telemetry\",\"systemPayload\":{}}\n",
        );
        assert_eq!(format_of(qwen), Format::QwenCode);
        let claude = "{\"uuid\":\"a\",\"sessionId\":\"s\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
        assert_eq!(format_of(claude), Format::ClaudeCode);
    }

    #[test]
    fn the_preponderance_wins_over_the_first_record() {
        let mut log = String::from("{\"type\":\"message\",\"seq\":1,\"text\":\"stray\"}\n");
        for i in 0..3 {
            log += &format!(
                "{{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"user\",\"content\":\"m{i}\"}}}}\n"
            );
        }
        assert_eq!(format_of(&log), Format::Codex);
    }

    #[test]
    fn lines_read_before_the_decision_are_not_lost() {
        let log = concat!(
            "not json\n",
            "{\"type\":\"message\",\"seq\":1,\"text\":\"a\"}\n",
            "{\"type\":\"message\",\"seq\":2,\"text\":\"b\"}\n",
        );
        let session = parse(log);
        assert_eq!(session.events.len(), 2);
        assert_eq!(session.malformed.total(), 1);
        assert_eq!(session.malformed.detailed()[0].line, 1);
    }
}
