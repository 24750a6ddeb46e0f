//! The records that carry most of a log's bytes (messages, tool calls and their
//! results), read typed and borrowed from the line: no tree of the whole record, no
//! copy of a text that holds no escape. Any other record, and any of these whose fields
//! do not have the types read here, goes the general way, which says what is wrong.

use super::text::{message, tool_call, tool_result};
use crate::model::{EventKind, Intern};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

/// The fields the three kinds read. A field of another type, a key twice, or a record
/// that is not an object fails here, and the general reading decides.
#[derive(Deserialize)]
struct TextRecord<'a> {
    #[serde(rename = "type", borrow)]
    type_name: Cow<'a, str>,
    seq: Option<u64>,
    #[serde(borrow)]
    ts: Option<Field<'a>>,
    #[serde(borrow)]
    text: Option<Field<'a>>,
    #[serde(borrow)]
    role: Option<Field<'a>>,
    #[serde(borrow)]
    call_id: Option<Field<'a>>,
    is_error: Option<bool>,
    #[serde(borrow)]
    name: Option<Field<'a>>,
    input: Option<Value>,
}

/// A string field, borrowed from the line where it holds no escape. Serde borrows a
/// `Cow` only where it is a field's whole type: an `Option<Cow<str>>` copied every
/// text into a `String` (a twentieth of `gate`'s instructions).
#[derive(Deserialize)]
struct Field<'a>(#[serde(borrow)] Cow<'a, str>);

impl std::ops::Deref for Field<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// What a line read this way holds: its seq (if given), its time, and its event.
pub(crate) struct Read {
    pub seq: Option<u64>,
    pub ts: Option<Box<str>>,
    pub kind: EventKind,
}

/// The record of `bytes` if it is a message, a tool call or a tool result whose fields
/// all have their types; `None` sends the line the general way.
pub(crate) fn read(bytes: &[u8], table: &mut impl Intern) -> Option<Read> {
    let record: TextRecord = object(bytes)?;
    let text = record.text.as_deref().unwrap_or_default();
    let kind = match record.type_name.as_ref() {
        "message" => message(record.role.as_deref().unwrap_or_default(), text, table),
        "tool_result" => tool_result(
            record.call_id.as_deref().map(Box::from),
            record.is_error.unwrap_or(false),
            text,
            table,
        ),
        "tool_call" => tool_call(
            record.call_id.as_deref().map(Box::from),
            record.name.as_deref().unwrap_or_default(),
            record.input.as_ref().unwrap_or(&Value::Null),
            table,
        ),
        _ => return None,
    };
    Some(Read {
        seq: record.seq,
        ts: record.ts.as_deref().map(Box::from),
        kind,
    })
}

/// The text of a message or a tool result read typed, borrowed from the line where it
/// holds no escape: the one region text such a record has. `None` for any other
/// record, and one whose fields do not have their types or that holds a key twice.
/// A lone surrogate escape, which the general reading repairs first (see
/// [`super::lines::json_record`]), fails here too: the JSON parser rejects it.
pub(crate) fn message_text(bytes: &[u8]) -> Option<Cow<'_, str>> {
    // Two fields, not [`TextRecord`]'s nine: read whole, the other fields (a tool
    // call's input into a tree) are work the declared pass does not need.
    #[derive(Deserialize)]
    struct TextOnly<'a> {
        #[serde(rename = "type", borrow)]
        type_name: Cow<'a, str>,
        #[serde(borrow)]
        text: Option<Field<'a>>,
    }
    let record: TextOnly = object(bytes)?;
    matches!(record.type_name.as_ref(), "message" | "tool_result")
        .then(|| record.text.map_or(Cow::Borrowed(""), |text| text.0))
}

/// `bytes` read as `T`, if it is an object whose fields have `T`'s types.
fn object<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    // A record is an object: serde would also read a struct from a JSON array.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    super::lines::from_json(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BatchTokens;

    fn kind(line: &[u8]) -> Option<String> {
        read(line, &mut BatchTokens::default()).map(|read| format!("{:?}", read.kind))
    }

    /// A line that is not UTF-8 reads as it did when each string was checked as it
    /// was read ([`super::super::lines::from_json`]): bytes that are not UTF-8 in a
    /// field no kind reads are skipped unchecked, and in a text they send the line the
    /// general way.
    #[test]
    fn a_line_that_is_not_utf8_reads_as_when_each_string_was_checked() {
        let clean = kind(br#"{"type":"message","text":"ok r-77aa"}"#);
        assert!(clean.is_some());
        assert_eq!(
            kind(b"{\"type\":\"message\",\"text\":\"ok r-77aa\",\"junk\":\"\xff\"}"),
            clean
        );
        assert_eq!(kind(b"{\"type\":\"message\",\"text\":\"ok \xff\"}"), None);
    }
}
