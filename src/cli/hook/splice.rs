//! Edits one member of a settings file's top-level object in place: the `"hooks"`
//! value is replaced (or added, or removed) and every other byte of the file is kept:
//! other settings with their spellings (`1e3`, `"\u00e9"`), comments, key order,
//! blank lines. Comments are what Qwen Code (0.24.4) and Gemini CLI accept in their
//! `settings.json` (they parse `stripJsonComments(stripUtf8Bom(text))`), so comments
//! and a byte order mark are read as white space here; trailing commas are not
//! accepted, by them or here.

use serde_json::Value;

/// `text` with its `//` and `/* */` comments (outside strings) made spaces, newlines
/// kept: the same length, every offset where it was.
pub(super) fn blank_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    // A byte order mark, which Qwen Code also strips before it parses.
    if bytes.starts_with("\u{feff}".as_bytes()) {
        out.get_mut(..3)
            .into_iter()
            .flatten()
            .for_each(|b| *b = b' ');
        i = 3;
    }
    let mut in_string = false;
    while let Some(&b) = bytes.get(i) {
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => in_string = true,
            (b'/', Some(b'/')) => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    blank(&mut out, i);
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                blank(&mut out, i);
                blank(&mut out, i + 1);
                i += 2;
                while i < bytes.len()
                    && !(bytes.get(i) == Some(&b'*') && bytes.get(i + 1) == Some(&b'/'))
                {
                    blank(&mut out, i);
                    i += 1;
                }
                blank(&mut out, i);
                blank(&mut out, i + 1);
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes outside strings were replaced by ASCII spaces: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn blank(out: &mut [u8], i: usize) {
    if let Some(b) = out.get_mut(i) {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// Where a top-level member stands in (comment-blanked) `text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Member {
    /// Its key's opening quote.
    key: usize,
    /// Its value's first byte and the byte after its last.
    value: (usize, usize),
}

/// The end of the JSON value starting at `start` (strings, nesting; a scalar runs to
/// the next `,`, `}` or `]`).
fn value_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    let mut in_string = false;
    while let Some(&b) = bytes.get(i) {
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth <= 1 => {
                return if depth == 1 { i + 1 } else { i };
            }
            b'}' | b']' => depth -= 1,
            b',' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The top-level members of the object in `text`: (key as written, span), and the
/// offset of the object's closing brace.
fn members(text: &str) -> Option<(Vec<(String, Member)>, usize)> {
    let bytes = text.as_bytes();
    let open = bytes.iter().position(|&b| b == b'{')?;
    let mut out = Vec::new();
    let mut i = open + 1;
    loop {
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
        {
            i += 1;
        }
        match bytes.get(i)? {
            b'}' => return Some((out, i)),
            b'"' => {}
            _ => return None,
        }
        let key_end = value_end(bytes, i);
        let key: String = serde_json::from_str(text.get(i..key_end)?).ok()?;
        let colon = key_end + bytes.get(key_end..)?.iter().position(|&b| b == b':')?;
        let mut start = colon + 1;
        while bytes.get(start).is_some_and(u8::is_ascii_whitespace) {
            start += 1;
        }
        let end = value_end(bytes, start);
        out.push((
            key,
            Member {
                key: i,
                value: (start, end),
            },
        ));
        i = end;
    }
}

/// `original` with its top-level `key` set to `value` (pretty-printed with `indent`,
/// one level in, with `newline` between lines), added after the last member, or removed
/// when `value` is `None`. `None` when `original` is not an object this can edit.
pub(super) fn set_member(
    original: &str,
    key: &str,
    value: Option<&Value>,
    indent: &str,
    newline: &str,
) -> Option<String> {
    let blanked = blank_comments(original);
    let (found, close) = members(&blanked)?;
    let rendered = match value {
        Some(v) => Some(pretty(v, indent)?.replace('\n', &format!("{newline}{indent}"))),
        None => None,
    };
    let at = found.iter().position(|(k, _)| k == key);
    let mut out = String::with_capacity(original.len() + 256);
    match (at, rendered) {
        (Some(n), Some(text)) => {
            let (_, member) = found.get(n)?;
            out.push_str(original.get(..member.value.0)?);
            out.push_str(&text);
            out.push_str(original.get(member.value.1..)?);
        }
        (Some(n), None) => {
            let (_, member) = found.get(n)?;
            // From the end of the member before it (or the brace) to this one's end:
            // its comma and the white space leading to it go with it.
            let from = match n.checked_sub(1).and_then(|p| found.get(p)) {
                Some((_, before)) => before.value.1,
                None => blanked.get(..member.key)?.rfind('{')? + 1,
            };
            let mut to = member.value.1;
            if n == 0 {
                // The first member: its following comma goes instead.
                let rest = blanked.get(to..)?;
                let skipped = rest.len() - rest.trim_start().len();
                if rest.trim_start().starts_with(',') {
                    to += skipped + 1;
                }
            }
            out.push_str(original.get(..from)?);
            out.push_str(original.get(to..)?);
        }
        (None, Some(text)) => {
            let line = format!(
                "{newline}{indent}{}: {text}",
                serde_json::to_string(key).ok()?
            );
            match found.last() {
                Some((_, last)) => {
                    out.push_str(original.get(..last.value.1)?);
                    out.push(',');
                    out.push_str(&line);
                    out.push_str(original.get(last.value.1..)?);
                }
                None => {
                    out.push_str(original.get(..close)?);
                    out.push_str(&line);
                    out.push_str(newline);
                    out.push_str(original.get(close..)?);
                }
            }
        }
        (None, None) => out.push_str(original),
    }
    Some(out)
}

fn pretty(value: &Value, indent: &str) -> Option<String> {
    use serde::Serialize;
    let mut bytes = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, formatter);
    value.serialize(&mut serializer).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_member_changes_and_every_other_byte_stays() {
        let original =
            "{\n  // mine\n  \"n\": 1e3,\n  \"s\": \"\\u00e9\", /* keep */\n  \"hooks\": {}\n}\n";
        let out = set_member(original, "hooks", Some(&json!({"a": [1]})), "  ", "\n").unwrap();
        assert_eq!(
            out,
            "{\n  // mine\n  \"n\": 1e3,\n  \"s\": \"\\u00e9\", /* keep */\n  \"hooks\": {\n    \"a\": [\n      1\n    ]\n  }\n}\n"
        );
        let removed = set_member(&out, "hooks", None, "  ", "\n").unwrap();
        assert_eq!(
            removed,
            "{\n  // mine\n  \"n\": 1e3,\n  \"s\": \"\\u00e9\"\n}\n"
        );
        let added = set_member(&removed, "hooks", Some(&json!({})), "  ", "\n").unwrap();
        assert_eq!(
            added,
            "{\n  // mine\n  \"n\": 1e3,\n  \"s\": \"\\u00e9\",\n  \"hooks\": {}\n}\n"
        );
        assert_eq!(
            set_member("{}", "hooks", Some(&json!(1)), "  ", "\n").unwrap(),
            "{\n  \"hooks\": 1\n}"
        );
        let first = set_member("{\"hooks\": 1, \"b\": 2}", "hooks", None, "  ", "\n").unwrap();
        assert_eq!(first, "{ \"b\": 2}");
    }

    #[test]
    fn a_byte_order_mark_is_white_space() {
        let text = "\u{feff}{\"a\": 1}";
        let blanked = blank_comments(text);
        assert_eq!(blanked.len(), text.len());
        assert_eq!(
            serde_json::from_str::<Value>(&blanked).unwrap(),
            json!({"a": 1})
        );
        let out = set_member(text, "hooks", Some(&json!(2)), "  ", "\n").unwrap();
        assert!(out.starts_with('\u{feff}'), "{out:?}");
    }

    #[test]
    fn comments_are_blanked_outside_strings_only() {
        let text = "{\"a\": \"//x /*y*/\", // c\n\"b\": 1 /* d */}";
        let blanked = blank_comments(text);
        assert_eq!(blanked.len(), text.len());
        let value: Value = serde_json::from_str(&blanked).unwrap();
        assert_eq!(value, json!({"a": "//x /*y*/", "b": 1}));
    }
}
