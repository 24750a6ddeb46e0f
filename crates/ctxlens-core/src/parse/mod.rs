//! Parsing: a log's lines into a [`Session`](crate::model::Session), one module per
//! format, and which format a log is in (`detect`). Pure: the caller reads the lines.

pub mod canonical;
pub mod claude_code;
pub mod codex;
pub mod detect;
pub mod lines;
pub mod text;
pub mod text_record;
pub mod transcript;
