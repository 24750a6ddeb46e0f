//! The canonical JSON Lines log (docs/log-format.md).

use super::lines::Line;
use super::text::{digest, json_text_leaves};
use crate::analysis::extract as tokens;
use crate::model::{
    BatchTokens, CompactionEvent, CompactionExtra, Decision, EntityPolarity, Event, EventKind,
    Format, Intern, Joining, Malformed, ObligationEvent, ObligationStatus, Phase, PlanStep,
    Polarity, RangeSpec, Session, Summary, Timestamp,
};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Turns lines into events, one at a time, so the same code serves a whole file and a
/// file that is still being written.
pub struct CanonicalParser {
    session: Session,
    prev_seq: Option<u64>,
}

impl Default for CanonicalParser {
    fn default() -> Self {
        Self::new()
    }
}

impl CanonicalParser {
    /// A parser that has read no line.
    pub fn new() -> Self {
        CanonicalParser {
            session: Session::new(Format::Canonical),
            prev_seq: None,
        }
    }

    /// The session read so far.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session read so far, for the passes that add to it (the declared tokens).
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The session, once every line is read.
    pub fn finish(self) -> Session {
        self.session
    }

    /// Reads one line: an event, a malformed-line record, or nothing for a blank line.
    pub fn feed(&mut self, line: &Line) {
        let mut batch = ParsedBatch::default();
        batch.parse_line(line);
        self.accept(batch);
    }

    /// Adds lines parsed apart (in order): what depends on the lines before them (the
    /// seq order, the session's token ids) is settled here.
    pub fn accept(&mut self, batch: ParsedBatch) {
        let mut joining = batch.tokens.join(&self.session.tokens);
        for parsed in batch.lines {
            self.accept_line(parsed, &batch.tokens, &mut joining);
        }
    }

    fn accept_line(&mut self, parsed: ParsedLine, tokens: &BatchTokens, joining: &mut Joining) {
        let (number, offset) = (parsed.number, parsed.offset);
        let mut reject = |reason: &BadLine, may_declare: bool| {
            let malformed = Malformed {
                line: number,
                offset,
                reason: reason.to_string(),
            };
            if may_declare {
                self.session.malformed.push_may_declare(malformed);
            } else {
                self.session.malformed.push(malformed);
            }
        };
        let record = match parsed.record {
            Ok(record) => record,
            Err(reason) => return reject(&reason, reason.may_declare()),
        };
        // A readable record whose seq is refused still says whether it declared.
        let declares = match &record.event {
            Ok(event) => matches!(
                event.kind,
                EventKind::Binding { .. } | EventKind::Obligation { .. }
            ),
            Err(reason) => reason.may_declare(),
        };
        if let Some(prev) = self.prev_seq {
            if record.seq <= prev {
                let reason = BadLine::SeqNotIncreasing {
                    seq: record.seq,
                    prev,
                };
                return reject(&reason, declares);
            }
        }
        // One line with an absurd seq must not make every line after it "going back"
        // (and hide what they hold): it alone is malformed, the rest read against the
        // seq before it.
        let prev = self.prev_seq.unwrap_or(0);
        if record.seq - prev > MAX_SEQ_STEP {
            let reason = BadLine::SeqTooFar {
                seq: record.seq,
                prev,
            };
            return reject(&reason, declares);
        }
        let mut event = match record.event {
            Ok(event) => event,
            Err(reason) => return reject(&reason, declares),
        };
        let declared = matches!(event.kind, EventKind::Binding { .. });
        tokens.intern_record(parsed.met, &mut self.session.tokens, joining, declared);
        event
            .kind
            .remap_tokens(|local| joining.session_id(local).unwrap_or(local));
        self.prev_seq = Some(event.seq);
        if let EventKind::Session { cwd: Some(cwd), .. } = &event.kind {
            self.session.cwd.get_or_insert_with(|| cwd.to_string());
        }
        if let Some(ts) = &record.ts {
            self.session.meta.saw_timestamp(ts);
        }
        self.session.events.push(event);
        self.session.note_if_full();
    }
}

/// Bytes of log per distinct token of a batch, about: the benchmark's logs (an identifier
/// every 25 words) have one every 200 bytes, transcripts fewer.
const BYTES_PER_TOKEN: usize = 256;

/// Lines parsed apart from the session, as any thread can, with the tokens they met:
/// events whose token ids are the batch's own, or why a line is not one.
/// [`CanonicalParser::accept`] joins them to the session.
#[derive(Default)]
pub struct ParsedBatch {
    lines: Vec<ParsedLine>,
    tokens: BatchTokens,
}

impl ParsedBatch {
    /// A batch with room for `lines` lines of `bytes` bytes in all: one token about
    /// every `BYTES_PER_TOKEN` bytes.
    pub fn with_room(lines: usize, bytes: usize) -> Self {
        ParsedBatch {
            lines: Vec::with_capacity(lines),
            tokens: BatchTokens::with_room(bytes / BYTES_PER_TOKEN),
        }
    }

    /// Parses `line` into the batch (a blank line adds nothing).
    pub fn parse_line(&mut self, line: &Line) {
        if line.bytes.iter().all(u8::is_ascii_whitespace) && !line.oversized {
            return;
        }
        let start = self.tokens.start_record();
        let record = if line.oversized {
            Err(BadLine::Oversized { span: line.span })
        } else {
            parse_record(line, &mut self.tokens)
        };
        self.lines.push(ParsedLine {
            number: line.number,
            offset: line.offset,
            record,
            met: start..self.tokens.records_end(),
        });
    }
}

/// A line parsed on its own: an event, or why it is not one, and where the tokens it
/// met are listed in its batch's tokens.
struct ParsedLine {
    number: u64,
    offset: u64,
    record: Result<Record, BadLine>,
    met: std::ops::Range<usize>,
}

/// A record whose seq was read: its event, or why the rest of it is not one (a seq
/// out of order is reported before that, as the log's order decides).
struct Record {
    seq: u64,
    /// The time as written: the session's last activity is reported so.
    ts: Option<Box<str>>,
    event: Result<Event, BadLine>,
}

impl BadLine {
    /// Whether the line may have held a binding or an obligation: its type cannot be
    /// read, or it is one of those two with a field that cannot be.
    pub(crate) fn may_declare(&self) -> bool {
        let declaring = |type_name: &str| matches!(type_name, "binding" | "obligation");
        match self {
            BadLine::Oversized { .. }
            | BadLine::NotJson(_)
            | BadLine::NotObject
            | BadLine::TypeNotString
            | BadLine::NoType
            | BadLine::BadSeq(_)
            | BadLine::BadStatus(_) => true,
            BadLine::MissingField { type_name, .. } => declaring(type_name),
            BadLine::EmptyField { type_name, .. } => declaring(type_name),
            _ => false,
        }
    }
}

/// How far one event's seq may lie above the one before it: no log holds 2^32 events,
/// so a larger step is a damaged line, not a gap.
const MAX_SEQ_STEP: u64 = 1 << 32;

/// Why a line of a canonical log is not an event (kept as the malformed line's reason).
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadLine {
    #[error(
        "a line of {span} bytes, longer than the {cap} MiB a record may take; skipped unread",
        cap = super::lines::MAX_LINE >> 20
    )]
    Oversized { span: u64 },
    #[error("not valid JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("not a JSON object")]
    NotObject,
    #[error("\"type\" is not a string")]
    TypeNotString,
    #[error("no \"type\" field")]
    NoType,
    #[error("seq {0} is not an integer from 0 to 18446744073709551615")]
    BadSeq(Value),
    #[error("seq {seq} is not greater than the previous event's seq {prev}")]
    SeqNotIncreasing { seq: u64, prev: u64 },
    #[error("seq {seq} is more than 2^32 above the previous event's seq {prev}; the lines after it are read against {prev}")]
    SeqTooFar { seq: u64, prev: u64 },
    #[error("{type_name} without a string \"{key}\"")]
    MissingField {
        type_name: String,
        key: &'static str,
    },
    #[error("{type_name} with an empty \"{key}\"")]
    EmptyField {
        type_name: &'static str,
        key: &'static str,
    },
    #[error("obligation status {0} is not open, done or dropped")]
    BadStatus(Value),
    #[error("plan without \"steps\"")]
    PlanWithoutSteps,
    #[error("plan steps are not a list of {{id, action, target}}: {0}")]
    BadPlanSteps(serde_json::Error),
    #[error("compaction phase {0} is not proposed, applied or refused")]
    BadPhase(Value),
    #[error("choice polarity is not chosen, rejected or forbidden")]
    BadPolarity,
    #[error("decision is not {{compaction, verdict, …}}: {0}")]
    BadDecision(serde_json::Error),
}

fn parse_record(line: &Line, tokens: &mut BatchTokens) -> Result<Record, BadLine> {
    if let Some(read) = super::text_record::read(line.bytes, tokens) {
        let seq = read.seq.unwrap_or(line.number);
        let event = event_of(line, seq, read.ts.as_deref(), read.kind);
        return Ok(Record {
            seq,
            ts: read.ts,
            event: Ok(event),
        });
    }
    read_general(line, tokens)
}

/// The event a record of `line` holds.
fn event_of(line: &Line, seq: u64, ts: Option<&str>, kind: EventKind) -> Event {
    Event {
        seq,
        line: line.number,
        offset: line.offset,
        span: line.span_u32(),
        part: 0,
        ts: ts.and_then(Timestamp::parse),
        kind,
    }
}

/// Any record, read into a JSON tree: what a wrong record is wrong in comes from here.
fn read_general(line: &Line, tokens: &mut BatchTokens) -> Result<Record, BadLine> {
    let value: Value = super::lines::from_json(line.bytes).map_err(BadLine::NotJson)?;
    let Value::Object(mut obj) = value else {
        return Err(BadLine::NotObject);
    };
    let type_name = match obj.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(_) => return Err(BadLine::TypeNotString),
        None => return Err(BadLine::NoType),
    };
    let seq = match obj.get("seq") {
        None | Some(Value::Null) => line.number,
        Some(v) => v.as_u64().ok_or_else(|| BadLine::BadSeq(v.clone()))?,
    };
    let ts = boxed_str(&obj, "ts");
    let event = parse_kind(&type_name, &mut obj, tokens)
        .map(|kind| event_of(line, seq, ts.as_deref(), kind));
    Ok(Record { seq, ts, event })
}

fn str_field(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn boxed_str(obj: &Map<String, Value>, key: &str) -> Option<Box<str>> {
    obj.get(key).and_then(Value::as_str).map(Box::from)
}

fn required_str(
    obj: &Map<String, Value>,
    type_name: &str,
    key: &'static str,
) -> Result<String, BadLine> {
    str_field(obj, key).ok_or_else(|| BadLine::MissingField {
        type_name: type_name.to_owned(),
        key,
    })
}

/// Text of a field that should be a string; other JSON counts as its JSON text.
fn text_field(obj: &Map<String, Value>, key: &str) -> String {
    match obj.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The text of a field that should be a string, taken out of the record: a long text
/// is not copied (a line may hold tens of megabytes).
fn take_text(obj: &mut Map<String, Value>, key: &str) -> String {
    match obj.get_mut(key).map(Value::take) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
    }
}

fn parse_kind(
    type_name: &str,
    obj: &mut Map<String, Value>,
    table: &mut impl Intern,
) -> Result<EventKind, BadLine> {
    Ok(match type_name {
        "session" => EventKind::Session {
            cwd: boxed_str(obj, "cwd"),
            agent: boxed_str(obj, "agent"),
        },
        "message" => {
            let text = take_text(obj, "text");
            let role = obj.get("role").and_then(Value::as_str).unwrap_or_default();
            super::text::message(role, &text, table)
        }
        "tool_call" => super::text::tool_call(
            boxed_str(obj, "call_id"),
            obj.get("name").and_then(Value::as_str).unwrap_or_default(),
            obj.get("input").unwrap_or(&Value::Null),
            table,
        ),
        "tool_result" => {
            let is_error = obj
                .get("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            super::text::tool_result(
                boxed_str(obj, "call_id"),
                is_error,
                &take_text(obj, "text"),
                table,
            )
        }
        "binding" => binding(obj, table)?,
        "obligation" => obligation(obj)?,
        "plan" => {
            let steps = obj.get("steps").cloned().ok_or(BadLine::PlanWithoutSteps)?;
            let steps: Vec<PlanStep> =
                serde_json::from_value(steps).map_err(BadLine::BadPlanSteps)?;
            EventKind::Plan { steps }
        }
        "action" => EventKind::Action {
            step: str_field(obj, "step"),
            name: str_field(obj, "name").unwrap_or_default(),
            target: obj.get("target").cloned().map(Box::new),
        },
        "compaction" => compaction(obj, table)?,
        "choice" => choice(obj)?,
        "decision" => {
            let decision: Decision =
                serde_json::from_value(Value::Object(obj.clone())).map_err(BadLine::BadDecision)?;
            EventKind::Decision(Box::new(decision))
        }
        other => EventKind::Other {
            type_name: other.to_owned(),
        },
    })
}

fn binding(obj: &Map<String, Value>, table: &mut impl Intern) -> Result<EventKind, BadLine> {
    let token = required_str(obj, "binding", "token")?;
    if token.trim().is_empty() {
        return Err(BadLine::EmptyField {
            type_name: "binding",
            key: "token",
        });
    }
    let class = tokens::classify(&token);
    Ok(EventKind::Binding {
        token: table.intern(&token, class),
        // A binding that does not say it can be re-fetched is treated as one that
        // cannot: the safe side for reachability.
        regenerable: obj
            .get("regenerable")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        note: str_field(obj, "note"),
    })
}

fn obligation(obj: &Map<String, Value>) -> Result<EventKind, BadLine> {
    Ok(EventKind::Obligation(Box::new(ObligationEvent {
        id: required_str(obj, "obligation", "id")?,
        name: str_field(obj, "name"),
        requires: obj.get("requires").and_then(Value::as_array).map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        }),
        status: match obj.get("status") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                serde_json::from_value::<ObligationStatus>(v.clone())
                    .map_err(|_| BadLine::BadStatus(v.clone()))?,
            ),
        },
    })))
}

fn compaction(obj: &mut Map<String, Value>, table: &mut impl Intern) -> Result<EventKind, BadLine> {
    let summary = take_text(obj, "summary");
    Ok(EventKind::Compaction(Box::new(CompactionEvent {
        id: required_str(obj, "compaction", "id")?,
        phase: match obj.get("phase") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                serde_json::from_value::<Phase>(v.clone())
                    .map_err(|_| BadLine::BadPhase(v.clone()))?,
            ),
        },
        range: parse_range(obj.get("range")),
        summary: Some(Box::new(Summary {
            digest: digest(&[&summary], tokens::word_count(&summary), table),
            text: summary,
        })),
        input: boxed_str(obj, "input"),
        region_elsewhere: false,
        extra: Box::new(CompactionExtra {
            entities: entities(obj.get("entities")),
            ..CompactionExtra::default()
        }),
    })))
}

fn choice(obj: &Map<String, Value>) -> Result<EventKind, BadLine> {
    let entity = required_str(obj, "choice", "entity")?;
    if entity.trim().is_empty() {
        return Err(BadLine::EmptyField {
            type_name: "choice",
            key: "entity",
        });
    }
    let polarity = obj
        .get("polarity")
        .and_then(|v| serde_json::from_value::<Polarity>(v.clone()).ok())
        .ok_or(BadLine::BadPolarity)?;
    Ok(EventKind::Choice {
        entity,
        polarity,
        note: str_field(obj, "note"),
    })
}

/// A compaction's `entities`: absent means no schema. A list that cannot be read counts
/// as no schema too (`schema_missing`): dropping the line would hide the compaction from
/// the gate, and reading it as a schema would claim what it does not say.
fn entities(value: Option<&Value>) -> Option<Vec<EntityPolarity>> {
    match value {
        None | Some(Value::Null) => None,
        Some(v) => serde_json::from_value(v.clone()).ok(),
    }
}

fn parse_range(value: Option<&Value>) -> RangeSpec {
    match value {
        None | Some(Value::Null) => RangeSpec::Missing,
        Some(Value::Object(range)) => {
            let seq = |key| range.get(key).and_then(Value::as_u64);
            match (seq("from"), seq("to")) {
                (Some(from), Some(to)) => RangeSpec::Seqs { from, to },
                _ => RangeSpec::Invalid,
            }
        }
        Some(_) => RangeSpec::Invalid,
    }
}

/// The region texts of the record `bytes`, as [`region_texts`] reads them from the
/// record read whole: a message's or a tool result's read typed and borrowed (the
/// declared pass reads every line that may hold a declared token, most of them long
/// tool results, which reading whole copied three times). `None` if it is no record.
pub fn region_texts_of_line(bytes: &[u8]) -> Option<Vec<Cow<'_, str>>> {
    if let Some(text) = super::text_record::message_text(bytes) {
        return Some(vec![text]);
    }
    let value = super::lines::json_record(bytes).ok()?;
    Some(region_texts(&value).into_iter().map(Cow::Owned).collect())
}

/// The texts of a parsed canonical line that count as region text, for the second look
/// that finds declared tokens (see `super::declared`).
pub(crate) fn region_texts(value: &Value) -> Vec<String> {
    let Some(obj) = value.as_object() else {
        return Vec::new();
    };
    match obj.get("type").and_then(Value::as_str) {
        Some("message") | Some("tool_result") => vec![text_field(obj, "text")],
        Some("compaction") => vec![text_field(obj, "summary")],
        Some("tool_call") => {
            let mut texts = vec![str_field(obj, "name").unwrap_or_default()];
            if let Some(input) = obj.get("input") {
                let mut leaves = Vec::new();
                json_text_leaves(input, &mut leaves);
                texts.extend(leaves.into_iter().map(str::to_owned));
            }
            texts
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;

    fn line(bytes: &[u8]) -> Line<'_> {
        Line {
            number: 7,
            offset: 100,
            bytes,
            span: bytes.len() as u64 + 1,
            terminated: true,
            oversized: false,
        }
    }

    fn describe(record: Result<Record, BadLine>) -> String {
        match record {
            Ok(record) => format!("seq {} {:?}", record.seq, record.event),
            Err(reason) => format!("bad line: {reason}"),
        }
    }

    /// The record as the general reading makes it, and as the reading makes it (typed,
    /// for messages, tool calls and results whose fields fit).
    fn both_ways(bytes: &[u8]) -> (String, String) {
        let mut general_tokens = BatchTokens::default();
        let general = describe(read_general(&line(bytes), &mut general_tokens));
        let mut typed_tokens = BatchTokens::default();
        let typed = describe(parse_record(&line(bytes), &mut typed_tokens));
        (
            format!("{general} {general_tokens:?}"),
            format!("{typed} {typed_tokens:?}"),
        )
    }

    const RECORDS: &[&str] = &[
        r#"{"seq":1,"type":"message","role":"user","text":"deploy r-77aa to /srv/app/a.yaml"}"#,
        r#" {"type":"message","text":"no seq, \"quoted\"\nline two → snap-0a1b2c3d"}"#,
        r#"{"seq":null,"type":"message","role":"assistant","text":null,"ts":"2026-01-01T00:00:00Z"}"#,
        r#"{"seq":3,"type":"message","role":7,"text":"role is a number"}"#,
        r#"{"seq":3,"type":"message","text":42}"#,
        r#"{"seq":3,"type":"message","text":{"a":"b"}}"#,
        r#"{"seq":3.0,"type":"message","text":"float seq"}"#,
        r#"{"seq":-1,"type":"message","text":"negative seq"}"#,
        r#"{"seq":18446744073709551616,"type":"message","text":"seq past u64"}"#,
        r#"{"seq":"4","type":"message","text":"string seq"}"#,
        r#"{"seq":4,"type":"message","text":"twice","text":"two texts"}"#,
        r#"{"seq":4,"type":"message","type":"tool_result","text":"two types"}"#,
        r#"{"seq":5,"type":"tool_result","call_id":"c1","is_error":true,"text":"Error: arn:aws:rds:us-east-1:123456789012:snapshot:snap-6b85261d"}"#,
        r#"{"seq":5,"type":"tool_result","call_id":5,"text":"call id a number"}"#,
        r#"{"seq":5,"type":"tool_result","is_error":"yes","text":"is_error a string"}"#,
        r#"{"seq":5,"type":"tool_result","ts":9,"text":"ts a number"}"#,
        r#"{"seq":6,"type":"tool_call","call_id":"c2","name":"shell","input":{"cmd":"kubectl rollout undo deploy/api --to-revision=41","cwd":"/srv"}}"#,
        r#"{"seq":6,"type":"tool_call","name":"read","input":"/srv/app/config.yaml"}"#,
        r#"{"seq":6,"type":"tool_call","name":"read","input":null}"#,
        r#"{"seq":6,"type":"tool_call","input":[1,"/a/b.rs",{"k":"v","k":"w"}]}"#,
        r#"{"seq":6,"type":"tool_call","name":["x"],"input":{}}"#,
        r#"{"seq":7,"type":"binding","token":"r-77aa","regenerable":false}"#,
        r#"{"seq":8,"type":"compaction","id":"c","phase":"applied","summary":"kept r-77aa"}"#,
        r#"["message",1,"an array"]"#,
        r#"["message",1,null,"an array of every field",null,null,null,null,null]"#,
        r#"{"seq":9,"type":"message","text":"truncated"#,
        r#"{"seq":9,"type":3,"text":"type a number"}"#,
        r#"{"seq":9,"text":"no type"}"#,
        r#"{"seq":10,"type":"message","text":"utf-8 日本語 é \u00e9 \ud83d\ude00","extra":{"deep":[1,2,{"x":null}]}}"#,
    ];

    /// Typed reading makes of every record what the general reading makes of it.
    #[test]
    fn typed_reading_makes_what_the_general_reading_makes() {
        for record in RECORDS {
            let (general, typed) = both_ways(record.as_bytes());
            assert_eq!(typed, general, "{record}");
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../sample-sessions");
        let mut typed_lines = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            for record in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let (general, typed) = both_ways(record);
                assert_eq!(typed, general, "{}", String::from_utf8_lossy(record));
                typed_lines += usize::from(
                    super::super::text_record::read(record, &mut BatchTokens::default()).is_some(),
                );
            }
        }
        assert!(
            typed_lines > 20,
            "the samples' messages and tool events are read typed"
        );
    }

    proptest::proptest! {
        /// Records put together from fields of every type read the same both ways.
        #[test]
        fn records_of_any_field_types_read_the_same_both_ways(
            fields in proptest::collection::vec(proptest::prop_oneof![
                "\"type\":\"(message|tool_call|tool_result|plan)\"",
                "\"seq\":(1|12|null|-3|2\\.5|\"4\")",
                "\"(text|role|call_id|name|ts)\":(\"[a-z/ .0-9\\\\\\\\n-]{0,12}\"|null|3|true|\\[\\]|\\{\\})",
                "\"is_error\":(true|false|null|1)",
                "\"input\":(\\{\"cmd\":\"ls /a/b.rs\"\\}|\"/x/y.md\"|null|\\[1\\]|7)",
            ], 0..7),
        ) {
            let record = format!("{{{}}}", fields.join(","));
            let (general, typed) = both_ways(record.as_bytes());
            proptest::prop_assert_eq!(typed, general, "{}", record);
        }

        /// The declared pass's reading of a line's region texts is the general one's,
        /// whatever the record's type, fields, escapes and repeated keys.
        #[test]
        fn region_texts_read_typed_are_those_read_whole(
            fields in proptest::collection::vec(proptest::prop_oneof![
                "\"type\":(\"(message|tool_call|tool_result|compaction|plan)\"|3|null)",
                "\"(text|summary|name)\":(\"[a-z/ .0-9\\\\n\"-]{0,12}\"|null|3|true|\\[\"x\"\\]|\\{\\})",
                "\"text\":\"(a\\\\/b|\\\\u0041z|\\\\ud800x|\\\\ud83d\\\\ude00)\"",
                "\"input\":(\\{\"cmd\":\"ls /a/b.rs\"\\}|\"/x/y.md\"|null|\\[1\\])",
            ], 0..6),
            array in proptest::option::weighted(
                0.2,
                "\\[\"(message|tool_result)\"(,null){0,2},\"[a-z]{0,5}\"(,null){0,6}\\]",
            ),
        ) {
            // A struct reads from a JSON array too, its fields in order (the declared
            // pass's: type, text; the parse's: type, seq, ts, text and five more): such
            // a line is no record.
            let record = array.unwrap_or_else(|| format!("{{{}}}", fields.join(",")));
            let whole = super::super::lines::json_record(record.as_bytes())
                .ok()
                .map(|value| region_texts(&value));
            let typed = region_texts_of_line(record.as_bytes())
                .map(|texts| texts.into_iter().map(Cow::into_owned).collect::<Vec<_>>());
            proptest::prop_assert_eq!(typed, whole, "{}", record);
        }
    }
}
