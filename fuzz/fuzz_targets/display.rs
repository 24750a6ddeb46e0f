//! Any bytes as one line shown in the TUI, in each format: the text that reaches the
//! screen holds no control character.
#![no_main]
use ctxlens::ingest::display::{event_text, Depth};
use ctxlens_core::model::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [
        Format::Canonical,
        Format::ClaudeCode,
        Format::Codex,
        Format::CopilotCli,
        Format::GeminiCli,
    ] {
        for part in 0..3 {
            let shown = event_text(data, format, part, Depth::Whole);
            assert!(!shown.gist.chars().any(ctxlens::sanitize::is_unsafe));
            assert!(!shown
                .text
                .chars()
                .any(|c| ctxlens::sanitize::is_unsafe(c) && c != '\n' && c != '\t'));
        }
    }
});
