//! Text from a log never reaches a terminal raw: control characters, escape sequences
//! and bidi overrides become visible placeholders.

use std::borrow::Cow;

/// Characters that change how a terminal shows what follows them: C0 and C1 controls
/// (ESC, CSI, OSC, DCS…), bidi controls, and invisible format characters (zero-width
/// spaces and joiners, word joiners, the BOM, line and paragraph separators, tags),
/// which put a terminal or tmux out of step with what was printed.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{ad}' | '\u{61c}' | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}')
}

/// Whether `text` holds no unsafe character: printable ASCII is asked a block at a
/// time (a report of a large log is a megabyte of it), anything else a character at a
/// time.
fn all_safe(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, 0x20..=0x7e)) || !text.chars().any(is_unsafe)
}

/// One line of text, every unsafe character (newlines and tabs included) escaped as
/// `\u{..}`, `\n` or `\t`.
pub fn line(text: &str) -> Cow<'_, str> {
    if all_safe(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line text: newlines and tabs kept, every other unsafe character escaped.
pub fn block(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Serialized JSON made safe for a terminal: serde_json already escapes C0 controls; this
/// escapes DEL, C1 controls and bidi overrides too (they can only stand inside strings,
/// so the result is the same JSON). A newline, tab or carriage return is left as it is:
/// serde_json writes none inside a string, so there it is pretty-printing's whitespace.
pub fn json(text: String) -> String {
    if all_safe(text.as_str()) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) && !matches!(c, '\n' | '\t' | '\r') {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_sequences() {
        assert_eq!(line("a\u{1b}]0;pwned\u{7}b"), "a\\u{1b}]0;pwned\\u{7}b");
        assert_eq!(line("x\u{202e}y\nz"), "x\\u{202e}y\\nz");
        assert_eq!(block("a\nb\u{9b}c"), "a\nb\\u{9b}c");
        assert_eq!(line("plain"), "plain");
        let safe = json(serde_json::to_string("\u{1b}[31m\u{9b}\u{202e}").unwrap());
        assert_eq!(safe, "\"\\u001b[31m\\u009b\\u202e\"");
        assert_eq!(
            serde_json::from_str::<String>(&safe).unwrap(),
            "\u{1b}[31m\u{9b}\u{202e}"
        );
    }
}
