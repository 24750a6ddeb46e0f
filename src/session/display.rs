//! What the TUI shows of one event: a one-line gist and the full text, read from the
//! event's line when it is shown (events keep no text in memory).

use crate::sanitize;
use ctxlens_core::model::Format;
use ctxlens_core::parse::record_text;

/// Lines longer than this are shown cut, with a note.
pub const BODY_LIMIT: usize = 64 * 1024;

/// Lines of a compaction's region are shown this far (the rest is one Enter away):
/// the view shows 200 of them, whose texts could otherwise be 64 KiB each.
pub const HEAD_LIMIT: usize = 8 * 1024;

/// How much of an event's text is read: what a view shows of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Depth {
    /// The one-line gist (a timeline row).
    #[default]
    Gist,
    /// The gist and the text's first [`HEAD_LIMIT`] bytes (an event of a compaction's
    /// region).
    Head,
    /// The gist, the text and the line as pretty JSON (an open event, a summary).
    Whole,
}

/// What a view shows of one event, read from its line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EventText {
    /// One line, terminal-safe.
    pub gist: String,
    /// The event's main text (message, tool output, input…), terminal-safe, newlines
    /// kept; cut at [`HEAD_LIMIT`] at [`Depth::Head`], empty at [`Depth::Gist`].
    pub text: String,
    /// The whole line as pretty JSON, so unknown fields are shown too; terminal-safe.
    /// Only at [`Depth::Whole`].
    pub raw: String,
    /// How much was read: a screen of gists holds a hundredth of what their texts would.
    pub depth: Depth,
}

impl EventText {
    /// The bytes it holds, itself included: a cache of gists holds many.
    pub fn size(&self) -> usize {
        std::mem::size_of::<EventText>() + self.gist.len() + self.text.len() + self.raw.len()
    }
}

pub(crate) fn cut(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n… ({} more bytes not shown)",
        &text[..end],
        text.len() - end
    )
}

/// The gist and, as deep as `depth`, the texts of part `part` of one raw log line in
/// `format`.
pub fn event_text(bytes: &[u8], format: Format, part: u32, depth: Depth) -> EventText {
    let Ok(value) = crate::ingest::lines::json_record(bytes) else {
        let lossy = String::from_utf8_lossy(bytes.get(..BODY_LIMIT).unwrap_or(bytes));
        return EventText {
            gist: gist_line(&lossy),
            text: text_to(&lossy, depth),
            raw: if depth == Depth::Whole {
                sanitize::block(&lossy).into_owned()
            } else {
                String::new()
            },
            depth,
        };
    };
    let text = record_text(&value, format, part);
    let text = cut(&text, BODY_LIMIT);
    let raw = if depth == Depth::Whole {
        let raw = cut(
            &serde_json::to_string_pretty(&value).unwrap_or_default(),
            BODY_LIMIT,
        );
        sanitize::block(&raw).into_owned()
    } else {
        String::new()
    };
    EventText {
        gist: gist_line(&text),
        text: text_to(&text, depth),
        raw,
        depth,
    }
}

/// What `depth` shows of `text`, terminal-safe.
fn text_to(text: &str, depth: Depth) -> String {
    match depth {
        Depth::Gist => String::new(),
        Depth::Head => sanitize::block(&cut(text, HEAD_LIMIT)).into_owned(),
        Depth::Whole => sanitize::block(text).into_owned(),
    }
}

/// The first 200 characters on one line, whitespace folded.
fn gist_line(text: &str) -> String {
    let folded: String = text
        .split_whitespace()
        .flat_map(|w| [w, " "])
        .take(120)
        .collect::<String>();
    let short: String = folded.trim_end().chars().take(200).collect();
    sanitize::line(&short).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gists_are_one_safe_line() {
        let t = event_text(
            br#"{"type":"tool_result","text":"a\n\u001b]0;x\u0007  b","extra":1}"#,
            Format::Canonical,
            0,
            Depth::Whole,
        );
        assert_eq!(t.gist, "a \\u{1b}]0;x\\u{7} b");
        assert!(t.raw.contains("\"extra\": 1"));
        assert!(!t.text.contains('\u{1b}'));
        let garbage = event_text(b"\xff not json \x1b[2J", Format::Canonical, 0, Depth::Whole);
        let claude = br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}"#;
        assert_eq!(
            event_text(claude, Format::ClaudeCode, 1, Depth::Gist).gist,
            "Bash: ls"
        );
        // The main argument leads; the rest of the input follows it.
        let edit = br#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"src/a.rs","old_string":"x"}}]}}"#;
        assert_eq!(
            event_text(edit, Format::ClaudeCode, 0, Depth::Gist).gist,
            "Edit: src/a.rs old_string: x"
        );
        let shell = br#"{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}"}}"#;
        assert_eq!(
            event_text(shell, Format::Codex, 0, Depth::Gist).gist,
            "shell: ls -la"
        );
        let codex = br#"{"type":"compacted","payload":{"message":""}}"#;
        assert!(event_text(codex, Format::Codex, 0, Depth::Gist)
            .gist
            .contains("encrypted"));
        assert!(!garbage.gist.contains('\u{1b}'));
    }

    #[test]
    fn each_depth_reads_the_same_gist_and_as_much_text_as_it_says() {
        let long = format!(
            r#"{{"type":"tool_result","text":"{}"}}"#,
            "word ".repeat(4000)
        );
        let lines: [(&[u8], Format, u32); 4] = [
            (br#"{"type":"tool_result","text":"a\n\u001b]0;x\u0007  b"}"#, Format::Canonical, 0),
            (br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}"#, Format::ClaudeCode, 1),
            (b"\xff not json \x1b[2J", Format::Canonical, 0),
            (long.as_bytes(), Format::Canonical, 0),
        ];
        for (bytes, format, part) in lines {
            let whole = event_text(bytes, format, part, Depth::Whole);
            let head = event_text(bytes, format, part, Depth::Head);
            let gist = event_text(bytes, format, part, Depth::Gist);
            assert!(!whole.text.is_empty() && !whole.raw.is_empty());
            assert_eq!(
                (gist.gist.as_str(), head.gist.as_str()),
                (whole.gist.as_str(), whole.gist.as_str())
            );
            assert!(gist.text.is_empty() && gist.raw.is_empty() && head.raw.is_empty());
            assert!(head.text.len() <= HEAD_LIMIT + 64, "{}", head.text.len());
            let shared = head.text.len().min(whole.text.len()).min(HEAD_LIMIT);
            assert_eq!(head.text.get(..shared), whole.text.get(..shared));
            assert_eq!(
                (gist.depth, head.depth, whole.depth),
                (Depth::Gist, Depth::Head, Depth::Whole)
            );
        }
        let head = event_text(long.as_bytes(), Format::Canonical, 0, Depth::Head);
        assert!(
            head.text.ends_with("more bytes not shown)"),
            "{}",
            &head.text[head.text.len() - 40..]
        );
    }
}
