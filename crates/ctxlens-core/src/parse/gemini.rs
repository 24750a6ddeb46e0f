//! Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`,
//! docs/transcripts.md): a metadata line, then message records (`type` `user` or
//! `gemini`, `content` parts, `toolCalls` with their results, `tokens`) and
//! `{"$set": {…}}` updates. A compression leaves no marker: it sets a new message list
//! that holds a `<state_snapshot>` summary the session had not held before. A resume
//! sets the whole list again, every message in it already known: that is no compaction.

use super::lines::Line;
use super::transcript::{content_text, parse_record, str_of, todo_list, Builder};
use crate::model::{EventKind, Format, TokenUsage};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The tag a compression's summary opens with.
const SNAPSHOT: &str = "<state_snapshot>";

/// Reads a Gemini CLI chat recording, line by line.
pub struct GeminiParser {
    /// The session being built; `LogParser` reads it directly.
    pub(super) builder: Builder,
    /// Ids of the messages set lists held: a resume lists them all again.
    listed: HashSet<String>,
    /// What each message record put in the session so far: the client writes a message
    /// again as it grows (its tool calls come in a later copy), and only what is new
    /// counts: whether its text was read, how many of its tool calls, and whether its
    /// thoughts were.
    recorded: HashMap<String, Seen>,
}

impl Default for GeminiParser {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether a record is one of Gemini CLI's: the metadata line, an update, or a message
/// of the model (`type: gemini`).
pub(super) fn is_gemini_record(record: &Value) -> bool {
    let has = |key: &str| record.get(key).is_some();
    has("$set")
        || has("$rewindTo")
        || (has("projectHash") && has("sessionId"))
        || record.get("type").and_then(Value::as_str) == Some("gemini")
}

/// The text of a message's `content`: a string, or parts with `text`.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        other => content_text(other),
    }
}

/// What a record of a Gemini CLI recording shows in a timeline: its message and calls,
/// or its thoughts for their part.
pub(crate) fn record_text(record: &Value, part: u32) -> String {
    if part == THOUGHTS_PART {
        return thoughts_of(record);
    }
    if let Some(set) = record.get("$set") {
        let snapshot = set
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|m| m.get("content").map(text_of).unwrap_or_default())
            .find(|t| t.contains(SNAPSHOT));
        return snapshot.unwrap_or_else(|| "$set".to_owned());
    }
    let mut text = record.get("content").map(text_of).unwrap_or_default();
    for call in record
        .get("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        text.push_str(&format!(
            "\n{} {}",
            str_of(call, "name").unwrap_or_default(),
            call.get("args").map(content_text).unwrap_or_default()
        ));
    }
    text
}

/// What was read of a message's copies so far.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    text: bool,
    calls: usize,
    thoughts: bool,
}

/// The part a message's thoughts are: apart from its text and calls, whose parts count
/// from 0 (the text of a record is its whole message; its thoughts are their own).
pub(crate) const THOUGHTS_PART: u32 = u32::MAX;

/// The model's thoughts on a message, one a line: `subject: description`.
fn thoughts_of(record: &Value) -> String {
    record
        .get("thoughts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let subject = str_of(t, "subject").unwrap_or_default();
            let description = str_of(t, "description").unwrap_or_default();
            match (subject.is_empty(), description.is_empty()) {
                (false, false) => format!("{subject}: {description}"),
                (true, _) => description,
                (false, true) => subject,
            }
        })
        .filter(|t| !t.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

impl GeminiParser {
    /// A parser that has read no line.
    pub fn new() -> Self {
        GeminiParser {
            builder: Builder::new(Format::GeminiCli),
            listed: HashSet::new(),
            recorded: HashMap::new(),
        }
    }

    /// Reads one line.
    pub fn feed(&mut self, line: &Line) {
        let Some(record) = parse_record(line, &mut self.builder.session.malformed) else {
            return;
        };
        let ts = str_of(&record, "timestamp").or_else(|| str_of(&record, "lastUpdated"));
        if let Some(ts) = &ts {
            self.builder.session.meta.saw_timestamp(ts);
        }
        if let Some(set) = record.get("$set") {
            self.set(line, ts, set);
            return;
        }
        let kind = str_of(&record, "type").unwrap_or_default();
        if !matches!(kind.as_str(), "user" | "gemini") {
            let type_name = match record.get("$rewindTo") {
                Some(_) => "$rewindTo".to_owned(),
                None if record.get("projectHash").is_some() => "session".to_owned(),
                None => kind,
            };
            self.builder
                .push(line, 0, ts, EventKind::Other { type_name });
            return;
        }
        self.message(line, ts, &record);
    }

    /// A message record: what it adds to the copies of it read before, unless a set
    /// list held it (a resume's).
    fn message(&mut self, line: &Line, ts: Option<String>, record: &Value) {
        let id = str_of(record, "id").unwrap_or_default();
        let seen = match self.recorded.get(&id) {
            Some(&read) => read,
            None if self.listed.contains(&id) => return,
            None => Seen::default(),
        };
        let text = record.get("content").map(text_of).unwrap_or_default();
        let gemini = str_of(record, "type").as_deref() == Some("gemini");
        let mut part = 0;
        // A later copy's usage and model were counted with the first.
        let first_copy = !self.recorded.contains_key(&id);
        if first_copy && gemini {
            if let Some(model) = record.get("model").and_then(Value::as_str) {
                self.builder.session.meta.saw_model(model);
            }
            self.usage(record.get("tokens").unwrap_or(&Value::Null));
        } else if first_copy {
            self.builder.session.meta.saw_user_text(&text);
        }
        let calls: Vec<&Value> = record
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        let thoughts = match gemini {
            true => thoughts_of(record),
            false => String::new(),
        };
        self.recorded.insert(
            id,
            Seen {
                text: seen.text || !text.trim().is_empty(),
                calls: seen.calls.max(calls.len()),
                thoughts: seen.thoughts || !thoughts.is_empty(),
            },
        );
        // The model thought before it answered.
        if !seen.thoughts && !thoughts.is_empty() {
            let event = self.builder.message("thinking", &thoughts);
            self.builder.push(line, THOUGHTS_PART, ts.clone(), event);
        }
        if !seen.text && !text.trim().is_empty() {
            let event = self
                .builder
                .message(if gemini { "assistant" } else { "user" }, &text);
            self.builder.push(line, part, ts.clone(), event);
            part += 1;
        }
        for call in calls.into_iter().skip(seen.calls) {
            let id = str_of(call, "id");
            let name = str_of(call, "name").unwrap_or_default();
            let args = call.get("args").unwrap_or(&Value::Null);
            let event = self.builder.tool_call(id.clone(), &name, args);
            self.builder.push(line, part, ts.clone(), event);
            // Its task list: the plan and the obligations, read from the call.
            if name == "write_todos" {
                let todos = todo_list(args, "todos", "description");
                self.builder.todos(line, part, &ts, &todos);
            }
            part += 1;
            let output: String = call
                .get("result")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|r| r.get("functionResponse")?.get("response"))
                .map(|response| match response.get("output") {
                    Some(output) => text_of(output),
                    None => content_text(response),
                })
                .collect::<Vec<_>>()
                .join("\n");
            let failed = str_of(call, "status").as_deref() == Some("error");
            let event = self.builder.tool_result(id, &output, failed);
            self.builder.push(line, part, ts.clone(), event);
            part += 1;
        }
    }

    /// An update: a message list holding a snapshot the session had not held is a
    /// compression; every message it lists is known from here on.
    fn set(&mut self, line: &Line, ts: Option<String>, set: &Value) {
        let Some(messages) = set.get("messages").and_then(Value::as_array) else {
            self.builder.push(
                line,
                0,
                ts,
                EventKind::Other {
                    type_name: "$set".into(),
                },
            );
            return;
        };
        let known = |id: &String| self.listed.contains(id) || self.recorded.contains_key(id);
        let snapshot = messages.iter().find_map(|m| {
            let id = str_of(m, "id")?;
            let text = m.get("content").map(text_of)?;
            (text.contains(SNAPSHOT) && !known(&id)).then_some(text)
        });
        for id in messages.iter().filter_map(|m| str_of(m, "id")) {
            self.listed.insert(id);
        }
        match snapshot {
            Some(text) => {
                let summary = self.builder.summary(&text);
                let first_in_file = self.builder.compaction_of_an_earlier_file();
                self.builder
                    .compaction(line, ts, None, Some(summary), first_in_file);
            }
            None => {
                self.builder.push(
                    line,
                    0,
                    ts,
                    EventKind::Other {
                        type_name: "$set".into(),
                    },
                );
            }
        }
    }

    /// Adds one answer's tokens.
    fn usage(&mut self, tokens: &Value) {
        let n = |k: &str| tokens.get(k).and_then(Value::as_u64).unwrap_or(0);
        let call = TokenUsage {
            input: n("input").saturating_sub(n("cached")),
            output: n("output"),
            cache_read: n("cached"),
            cache_creation: 0,
        };
        let meta = &mut self.builder.session.meta;
        meta.usage = meta.usage.plus(call);
    }
}

#[cfg(test)]
mod todo_tests {
    #![allow(clippy::unwrap_used)]
    use crate::model::{EventKind, Format};

    #[test]
    fn write_todos_is_the_plan_and_its_items_obligations() {
        let log = concat!(
            "{\"sessionId\":\"s\",\"projectHash\":\"p\",\"startTime\":\"t\"}\n",
            "{\"id\":\"m1\",\"type\":\"gemini\",\"content\":\"\",\"toolCalls\":[{\"id\":\"c1\",",
            "\"name\":\"write_todos\",\"args\":{\"todos\":[",
            "{\"description\":\"Roll back to 4f9a2c81d0e7\",\"status\":\"pending\"}]}}]}\n",
        );
        let session = crate::parse::parse(log.as_bytes());
        assert_eq!(session.format, Format::GeminiCli);
        assert!(session
            .events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Plan { steps } if steps.len() == 1)));
        assert!(session
            .events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Obligation(_))));
    }
}
