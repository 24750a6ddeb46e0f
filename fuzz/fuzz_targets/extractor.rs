//! Any text through the token extractor, the word splitter and the sanitizer: every
//! token found lies on character boundaries, and nothing panics.
#![no_main]
use ctxlens_core::analysis::extract::extract;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    for found in extract(text) {
        assert!(text.is_char_boundary(found.start) && text.is_char_boundary(found.end));
        let _ = ctxlens_core::analysis::extract::classify(found.text(text));
    }
    let _ = ctxlens_core::analysis::extract::word_count(text);
    let _ = ctxlens::sanitize::line(text);
});
