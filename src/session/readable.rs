//! An event's text as a person reads it: terminal colour codes taken out (a tool's
//! coloured output, a local command's), and the tags Claude Code wraps a typed slash
//! command and its output in (`<command-name>`, `<local-command-stdout>`, …) turned
//! into the command and its output. What is left is still made safe by whoever shows
//! it.

use ctxlens_core::model::Format;

/// A record's text as a person reads it.
pub(crate) struct Readable {
    /// Cleaned as this module says, cut with a note, terminal-safe.
    pub(crate) text: String,
    /// The runtime wrote it in the person's place (Claude Code's `isMeta`: a slash
    /// command's prompt, a hook's output), not the person.
    pub(crate) meta: bool,
}

/// Part `part` of a log line in `format`, readable, its text cut at `limit` bytes.
pub(crate) fn readable_record(bytes: &[u8], format: Format, part: u32, limit: usize) -> Readable {
    let (text, meta) = match ctxlens_core::parse::lines::json_record(bytes) {
        Ok(value) => (
            ctxlens_core::parse::record_text(&value, format, part),
            value.get("isMeta").and_then(serde_json::Value::as_bool) == Some(true),
        ),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), false),
    };
    let cleaned = unwrap_command_tags(&strip_ansi(&text));
    Readable {
        text: crate::sanitize::block(&super::display::cut(&cleaned, limit)).into_owned(),
        meta,
    }
}

/// `text` without ANSI escape sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL` or
/// `ESC \`), and two-character escapes.
pub(crate) fn strip_ansi(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // Parameters and intermediates, then one final byte in @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // Ends at BEL or at ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The tags Claude Code wraps a slash command's output in, and whether what they hold
/// is kept.
const OUTPUT_TAGS: [(&str, bool); 5] = [
    ("local-command-stdout", true),
    ("local-command-stderr", true),
    ("local-command-caveat", false),
    ("bash-stdout", true),
    ("bash-stderr", true),
];

/// `text` with Claude Code's command wrapper tags replaced by what they hold: a typed
/// command (`<command-name>`, `<command-message>`, `<command-args>`) as the command
/// line, its output as the output; the caveat it adds is dropped.
pub(crate) fn unwrap_command_tags(text: &str) -> String {
    if !text.contains("<command-") && !text.contains("<local-command-") && !text.contains("<bash-")
    {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    let args = take_tag(&mut out, "command-args").map(|(_, args)| args);
    take_tag(&mut out, "command-message");
    if let Some((at, name)) = take_tag(&mut out, "command-name") {
        let line = match args.as_deref() {
            Some(args) if !args.is_empty() => format!("{name} {args}"),
            _ => name,
        };
        out.insert_str(at, &line);
    }
    for (tag, keep) in OUTPUT_TAGS {
        while let Some((at, inner)) = take_tag(&mut out, tag) {
            if keep {
                out.insert_str(at, &inner);
            }
        }
    }
    out.trim().to_owned()
}

/// Takes the first `<tag>…</tag>` out of `text`: where it stood, and what it held
/// (trimmed). `None` when there is none, or it is not closed.
fn take_tag(text: &mut String, tag: &str) -> Option<(usize, String)> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)?;
    let inner_start = start + open.len();
    let inner_end = inner_start + text.get(inner_start..)?.find(&close)?;
    let inner = text.get(inner_start..inner_end)?.trim().to_owned();
    text.replace_range(start..inner_end + close.len(), "");
    Some((start, inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_codes_and_title_sequences_go() {
        assert_eq!(strip_ansi("\u{1b}[1mbold\u{1b}[22m plain"), "bold plain");
        assert_eq!(strip_ansi("\u{1b}]0;title\u{7}after"), "after");
        assert_eq!(strip_ansi("\u{1b}]8;;http://x\u{1b}\\link"), "link");
        assert_eq!(strip_ansi("no escapes"), "no escapes");
        // A cut sequence at the end takes nothing else with it.
        assert_eq!(strip_ansi("end\u{1b}["), "end");
    }

    #[test]
    fn a_typed_command_reads_as_the_command_and_its_output() {
        let typed = "<command-name>/context</command-name>\n<command-message>context</command-message>\n<command-args>--all</command-args>";
        assert_eq!(unwrap_command_tags(typed), "/context --all");
        let output = "<local-command-caveat>Caveat: the messages below…</local-command-caveat>\n<local-command-stdout>Context usage: 41%</local-command-stdout>";
        assert_eq!(unwrap_command_tags(output), "Context usage: 41%");
        // An unclosed tag is left as written.
        assert_eq!(unwrap_command_tags("<command-name>/x"), "<command-name>/x");
    }
}
