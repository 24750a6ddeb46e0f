//! Property tests for the opaque-token extractor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use ctxlens::analysis::tokens::extract;
use ctxlens::model::TokenClass;
use proptest::prelude::*;

fn token() -> impl Strategy<Value = (String, TokenClass)> {
    prop_oneof![
        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
            .prop_map(|t| (t, TokenClass::Uuid)),
        "[0-9]{12}".prop_map(|acct| (
            format!("arn:aws:rds:eu-west-1:{acct}:snapshot:pre-migration-7"),
            TokenClass::Arn
        )),
        "[a-z]{3,8}".prop_map(|h| (
            format!("https://{h}.example.com/jobs/9912"),
            TokenClass::Url
        )),
        "[a-z]{1,8}(/[a-z0-9_]{1,8}){1,3}\\.(rs|py|sql|db)".prop_map(|p| (p, TokenClass::Path)),
        "[a-z]{1,8}(/[a-z0-9_]{1,8}){1,3}".prop_map(|p| (format!("/{p}"), TokenClass::Path)),
        "[0-9a-f]{17}".prop_map(|h| (format!("i-{h}"), TokenClass::ResourceId)),
        "[1-9][0-9]{1,6}".prop_map(|n| (n, TokenClass::Numbered)),
        "[0-9a-f]{7,40}"
            .prop_filter("a digit and a letter", |h| h
                .bytes()
                .any(|b| b.is_ascii_digit())
                && h.bytes().any(|b| b.is_ascii_alphabetic()))
            .prop_map(|h| (h, TokenClass::Hex)),
    ]
}

/// Prose without anything token-like: words of letters (any case, some not ASCII) with
/// sentence punctuation, and no digits or slashes, which every class needs.
fn prose() -> impl Strategy<Value = String> {
    proptest::collection::vec("[a-zA-Zéßü中]{1,9}[,.;:!?]?", 0..12).prop_map(|w| w.join(" "))
}

fn wrap(before: &str, token: &str, class: TokenClass, after: &str) -> String {
    let token = if class == TokenClass::Numbered {
        format!("revision {token}")
    } else {
        token.to_owned()
    };
    format!("{before} {token} {after}")
}

proptest! {
    #[test]
    fn a_token_in_prose_is_found((token, class) in token(), before in prose(), after in prose(),
                                 punct in prop::sample::select(vec!["", ".", ",", ")", ";"])) {
        let text = wrap(&before, &token, class, &format!("{punct} {after}"));
        let found: Vec<(String, TokenClass)> =
            extract(&text).iter().map(|f| (f.text(&text).to_owned(), f.class)).collect();
        prop_assert_eq!(found, vec![(token, class)], "in {:?}", text);
    }

    #[test]
    fn a_token_cut_short_is_not_reported_as_the_original((token, class) in token(), cut in 1usize..6,
                                                         before in prose(), after in prose()) {
        prop_assume!(token.len() > cut);
        let short = &token[..token.len() - cut];
        let text = wrap(&before, short, class, &after);
        for found in extract(&text) {
            prop_assert_ne!(found.text(&text), token.as_str());
            // Fixed-length shapes cut short are no longer that shape.
            if matches!(class, TokenClass::Uuid | TokenClass::ResourceId) && found.text(&text) == short {
                prop_assert_ne!(found.class, class, "{:?} in {:?}", short, text);
            }
        }
    }

    #[test]
    fn a_token_glued_to_a_word_is_not_extracted((token, class) in token(), glue in "[a-zA-Z0-9_]",
                                                before in prose(), after in prose()) {
        // Whole words only: `4f9a2c81d0e7x` is not the SHA `4f9a2c81d0e7`.
        let text = wrap(&before, &format!("{token}{glue}"), class, &after);
        for found in extract(&text) {
            prop_assert_ne!(found.text(&text), token.as_str(), "in {:?}", text);
        }
        let text = format!("{before} {glue}{token} {after}");
        for found in extract(&text) {
            prop_assert_ne!(found.text(&text), token.as_str(), "in {:?}", text);
        }
    }

    #[test]
    fn never_panics_and_spans_are_ordered(text in ".{0,400}") {
        let found = extract(&text);
        for pair in found.windows(2) {
            prop_assert!(pair[0].end <= pair[1].start);
        }
        for f in &found {
            prop_assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
        }
    }
}
