//! Property tests for the opaque-token extractor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use ctxlens_core::analysis::extract;
use ctxlens_core::model::TokenClass;
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
        "[a-z]{1,8}(/[a-z0-9_]{1,8}){1,3}"
            // Paths every machine has (`/dev/…`, `/proc/…`) are no identifier of the work.
            .prop_filter("a system path", |p| {
                !["dev/", "proc/", "bin/", "sbin/", "usr/", "tmp/"]
                    .iter()
                    .any(|d| p.starts_with(d))
            })
            .prop_map(|p| (format!("/{p}"), TokenClass::Path)),
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

/// The counting as first written, comparing each path with each file kept (and with
/// each path before it, for the last three parts): the reference the linear version
/// must agree with.
fn basename_counts_by_pairs(paths: &[String]) -> std::collections::HashMap<String, usize> {
    let last_three = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split('/').collect();
        (parts.len() >= 4).then(|| parts[parts.len() - 3..].join("/"))
    };
    use ctxlens_core::analysis::basename;
    let mut keys: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for path in paths {
        keys.entry(basename(path))
            .or_default()
            .push(path.trim_end_matches('/'));
    }
    keys.into_iter()
        .map(|(base, mut all)| {
            all.sort_by_key(|p| std::cmp::Reverse(p.len()));
            all.dedup();
            let mut files: Vec<&str> = Vec::new();
            let mut before: Vec<&str> = Vec::new();
            for path in all {
                let tail = path.trim_start_matches("./");
                let same_three = last_three(path)
                    .is_some_and(|t| before.iter().any(|p| last_three(p) == Some(t.clone())));
                if !same_three
                    && !files
                        .iter()
                        .any(|f| f.ends_with(&format!("/{tail}")) || *f == tail)
                {
                    files.push(path);
                }
                before.push(path);
            }
            (base.to_owned(), files.len())
        })
        .collect()
}

proptest! {
    #[test]
    fn basenames_are_counted_as_comparing_each_pair_would(
        paths in proptest::collection::vec("(\\./|/)?((a|b|lib|app)/){0,4}(mod\\.rs|x\\.py|b)/?", 0..30)
    ) {
        let linear: std::collections::HashMap<String, usize> =
            ctxlens_core::analysis::basename_counts(paths.iter().map(String::as_str))
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
        prop_assert_eq!(linear, basename_counts_by_pairs(&paths));
    }
}

/// Whether `token` stands as a whole word anywhere in `summary`, the slow way.
fn occurs_as_whole_word(summary: &str, token: &str, class: TokenClass) -> bool {
    summary.match_indices(token).any(|(start, found)| {
        ctxlens_core::analysis::is_whole_word(summary, start, start + found.len(), class)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    /// Survival as the analysis finds it (one pass over the summary, tokens with a run
    /// the summary lacks left out) agrees with looking for each token on its own.
    #[test]
    fn a_token_survives_exactly_when_it_stands_whole_in_the_summary(
        tokens in proptest::collection::vec(token(), 1..12),
        kept in proptest::collection::vec(any::<bool>(), 12),
        glue in proptest::collection::vec(prop::sample::select(vec![" ", "-", "/", "x", ". ", ", "]), 12),
        filler in prose(),
    ) {
        let region: Vec<String> = tokens.iter().map(|(t, c)| wrap("see", t, *c, "now")).collect();
        let mut summary = filler.clone();
        for (i, (token, _)) in tokens.iter().enumerate() {
            if kept[i] {
                summary.push_str(glue[i]);
                summary.push_str(token);
            }
        }
        let summary = summary.replace('"', "");
        let mut log = String::from("{\"type\":\"session\",\"seq\":1}\n");
        for (i, text) in region.iter().enumerate() {
            log.push_str(&format!("{{\"type\":\"message\",\"seq\":{},\"role\":\"assistant\",\"text\":{}}}\n", i + 2, serde_json::to_string(text).unwrap()));
        }
        log.push_str(&format!(
            "{{\"type\":\"compaction\",\"seq\":{},\"id\":\"k1\",\"phase\":\"applied\",\"range\":{{\"from\":2,\"to\":{}}},\"summary\":{}}}\n",
            region.len() + 2, region.len() + 1, serde_json::to_string(&summary).unwrap()
        ));
        let session = ctxlens::ingest::parse_bytes(log.as_bytes());
        let analysis = ctxlens_core::analysis::analyze(&session, &[], false);
        let compaction = &analysis.compactions[0];
        for token in compaction.tokens.iter() {
            let info = session.tokens.get(token.id);
            let whole = occurs_as_whole_word(&summary, info.text, info.class);
            // A path also survives as another form of the same file; nothing else may.
            if info.class != TokenClass::Path {
                prop_assert_eq!(token.survived, Some(whole), "{:?} in {:?}", info.text, summary);
            } else if whole {
                prop_assert_eq!(token.survived, Some(true), "{:?} in {:?}", info.text, summary);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// The word count is Unicode word segmentation's: on ASCII, the characters that
    /// decide it; on any mix of scripts, marks, emoji and blanks, counted piece by piece
    /// between ASCII blanks.
    #[test]
    fn words_are_counted_as_unicode_segmentation_counts_them(
        text in prop_oneof![
            "[a-zA-Z0-9_:.',;! -]{0,40}",
            "[a-z0-9_:.',;! \t\r\n\u{b}\u{c}→é日本語한국어\u{301}\u{200d}\u{1F600}\u{a0}\u{3000}\u{85}-]{0,40}",
        ]
    ) {
        use unicode_segmentation::UnicodeSegmentation;
        prop_assert_eq!(
            ctxlens_core::analysis::word_count(&text),
            text.unicode_words().count() as u64,
            "{:?}", text
        );
    }
}
