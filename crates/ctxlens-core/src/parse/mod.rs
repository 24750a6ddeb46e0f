//! Parsing: a log's lines into a [`Session`], one module per
//! format, and which format a log is in (`detect`). Pure: the caller reads the lines.

pub(crate) mod canonical;
pub(crate) mod claude_code;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod deferred;
pub(crate) mod detect;
pub(crate) mod gemini;
pub mod lines;
pub(crate) mod opencode;
pub(crate) mod qwen_code;
mod record_text;
pub(crate) mod roles;
pub(crate) mod text;
pub(crate) mod text_record;
pub(crate) mod transcript;

pub use canonical::{region_texts_of_line, CanonicalParser, ParsedBatch};
pub use detect::LogParser;
pub use record_text::record_text;
pub use text::digest;

use crate::model::Session;

/// A log held in memory, parsed as a line reader feeds it: each line with its number and
/// byte offset, without its newline (nor a `\r` before it, nor a byte order mark); a
/// line over [`lines::MAX_LINE`] is reported as malformed, not parsed. Files are read by
/// the main crate (`ctxlens::ingest`), which also finds declared binding tokens of any
/// shape inside the events' texts.
pub fn parse(log: &[u8]) -> Session {
    let mut parser = detect::LogParser::new();
    let mut offset = 0u64;
    for (number, line) in (1u64..).zip(log.split_inclusive(|&b| b == b'\n')) {
        let terminated = line.last() == Some(&b'\n');
        let oversized = line.len() > lines::MAX_LINE;
        let bytes = if oversized {
            &[][..]
        } else {
            lines::record_bytes(line, offset, terminated)
        };
        parser.feed(&lines::Line {
            number,
            offset,
            bytes,
            span: line.len() as u64,
            terminated,
            oversized,
        });
        offset += line.len() as u64;
    }
    parser.finish()
}
