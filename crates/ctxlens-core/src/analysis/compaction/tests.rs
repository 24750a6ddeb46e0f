//! The compaction analysis against readable reference versions, and its sizes.

use super::*;

#[cfg(test)]
mod word_runs {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The runs, and the runs from the last, are the text split at each character
        /// that is no word character (a token's last run, a number, a file or a hash,
        /// sets it apart more often than its first: `https`, `arn`, `srv`).
        #[test]
        fn runs_are_the_text_split_at_what_is_no_word(text in "[a-zA-Z0-9_/ .:éß日→\u{2070}-]{0,24}") {
            let start = text.as_ptr() as usize;
            let split: Vec<(usize, &str)> = text
                .split(|c: char| !crate::analysis::extract::is_word_char(c))
                .filter(|run| !run.is_empty())
                .map(|run| (run.as_ptr() as usize - start, run))
                .collect();
            let forward: Vec<(usize, &str)> = word_runs_at(&text).collect();
            prop_assert_eq!(&forward, &split);
            let mut backward: Vec<(usize, &str)> = word_runs_from_last(&text).collect();
            backward.reverse();
            prop_assert_eq!(backward, split);
        }

        /// A text the tails rule out ends with a run that is none of the runs.
        #[test]
        fn a_text_the_tails_rule_out_ends_with_none_of_the_runs(
            summary in "[ab12_/ .é-]{0,60}",
            text in "[ab12_/ .é-]{0,16}",
        ) {
            let runs: Vec<&str> = word_runs(&summary).collect();
            let tails = RunTails::of(runs.iter().copied());
            if !tails.may_end(&text) {
                let last = word_runs_from_last(&text).next().map(|(_, run)| run);
                prop_assert!(last.is_some_and(|last| !runs.contains(&last)));
            }
        }

        /// Each run's place is where it stands in the text.
        #[test]
        fn runs_stand_where_their_places_say(text in "[a-z0-9_/. -→é日]{0,30}") {
            for (start, run) in word_runs_at(&text) {
                prop_assert_eq!(text.get(start..start + run.len()), Some(run));
            }
        }
    }

    /// The one-pass check agrees with asking each token on its own.
    fn agrees(summary_text: &str, token_texts: &[&str]) {
        let mut session = Session {
            cwd: Some("/p".into()),
            ..Session::default()
        };
        let ids: Vec<TokenId> = token_texts
            .iter()
            .map(|t| {
                let class = crate::analysis::extract::classify(t);
                session.tokens.intern(t, class)
            })
            .collect();
        let digest_ids: Vec<TokenId> = crate::analysis::extract::extract(summary_text)
            .iter()
            .map(|f| session.tokens.intern(f.text(summary_text), f.class))
            .collect();
        let summary = Summary {
            text: summary_text.to_owned(),
            digest: crate::model::TextDigest::from_ids(0, digest_ids),
        };
        let fast = exact_survivors(
            &session,
            (&summary, &[], &SummaryRuns::of(&summary.text)),
            ids.iter().copied(),
            Some("/p"),
            1,
        );
        for &id in &ids {
            let info = session.tokens.get(id);
            let one_by_one = contains_whole_word(summary_text, info.text, info.class)
                || (info.class == TokenClass::Path
                    && summary.digest.tokens.iter().any(|&o| {
                        session.tokens.class(o) == TokenClass::Path
                            && path_key(session.tokens.text(o), Some("/p"))
                                == path_key(info.text, Some("/p"))
                    }));
            assert_eq!(
                fast.contains(id),
                one_by_one,
                "{:?} in {summary_text:?}",
                info.text
            );
        }
    }

    #[test]
    fn one_pass_survival_matches_the_per_token_rule() {
        agrees(
            "rolled /x/a/b.rs back to 4f9a2c81d0e7, see a/b.rs and 4f9a2c81d0e7aa; rev-4f9a2c81",
            &[
                "a/b.rs",
                "/x/a/b.rs",
                "4f9a2c81d0e7",
                "4f9a2c81",
                "/p/a/b.rs",
                "tok_1",
                "b.rs",
            ],
        );
    }

    proptest! {
        #[test]
        fn one_pass_survival_matches_on_any_text(
            words in proptest::collection::vec(
                prop_oneof![
                    Just("4f9a2c81d0e7"), Just("4f9a2c81"), Just("a/b.rs"), Just("/p/a/b.rs"),
                    Just("x"), Just("-"), Just("/"), Just("."), Just(" "), Just("_"), Just("é")
                ],
                0..24,
            )
        ) {
            let text: String = words.concat();
            agrees(&text, &["4f9a2c81d0e7", "4f9a2c81", "a/b.rs", "/p/a/b.rs"]);
        }
    }
}

#[cfg(test)]
mod size_tests {
    /// Every compaction keeps a row per region token: millions in a large log.
    #[test]
    fn a_region_token_stays_small() {
        assert!(size_of::<super::RegionToken>() <= 16);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod region_key_tests {
    use super::*;
    use crate::analysis::state::StateBuilder;
    use crate::model::{Event, Phase, TextDigest};

    /// A region's tokens as one map of every key found them: the rule that
    /// [`RegionKeys`] keeps without hashing the keys that are their tokens' texts.
    fn by_one_map(ctx: &Ctx) -> Vec<RegionToken> {
        let session = ctx.session;
        let mut seen: FastMap<Cow<str>, usize> = FastMap::default();
        let mut tokens: Vec<RegionToken> = Vec::new();
        for index in ctx.region.clone() {
            let event = session.events.get(index).unwrap();
            let ids: &[TokenId] = match &event.kind {
                EventKind::Binding { token, .. } => std::slice::from_ref(token),
                kind => &kind.region_text().unwrap().tokens,
            };
            for &token in ids {
                seen.entry(ctx.key(token)).or_insert_with(|| {
                    tokens.push(RegionToken {
                        id: token,
                        survived: None,
                        declared: ctx.state.binding(token).map(|b| b.regenerable),
                        fate: Fate::default(),
                        first_event: index as u32,
                    });
                    tokens.len() - 1
                });
            }
        }
        for binding in &ctx.state.bindings {
            if let Some(&at) = seen.get(&*ctx.key(binding.token)) {
                tokens[at].declared = Some(binding.regenerable);
                tokens[at].id = binding.token;
            }
        }
        tokens
    }

    /// Texts of which several name one file (as the cwd `/w` reads them), and some
    /// that are no path.
    const TEXTS: [(&str, TokenClass); 9] = [
        ("/w/src/a.py", TokenClass::Path),
        ("src/a.py", TokenClass::Path),
        ("./src/a.py", TokenClass::Path),
        ("/w/./src/b.py", TokenClass::Path),
        ("src/b.py", TokenClass::Path),
        ("/elsewhere/a.py", TokenClass::Path),
        ("deadbeef1", TokenClass::Hex),
        ("https://ci.example.com/runs/7", TokenClass::Url),
        ("src", TokenClass::Declared),
    ];

    proptest::proptest! {
        /// Whatever order paths of one file and other tokens come in, and whichever are
        /// declared, the region's tokens are those one map of every key gives.
        #[test]
        fn region_tokens_are_those_one_map_of_keys_gives(
            events in proptest::collection::vec((0usize..TEXTS.len(), 0usize..TEXTS.len(), proptest::bool::ANY), 1..16),
        ) {
            let mut session = Session {
                cwd: Some("/w".into()),
                ..Session::default()
            };
            let ids: Vec<TokenId> = TEXTS.iter().map(|&(t, c)| session.tokens.intern(t, c)).collect();
            for (seq, &(a, b, binding)) in events.iter().enumerate() {
                let kind = match binding {
                    true => EventKind::Binding { token: ids[a], regenerable: b % 2 == 0, note: None },
                    false => EventKind::ToolResult {
                        call_id: None,
                        is_error: false,
                        says_failed: false,
                        says_not_found: false,
                        reports_failure: false,
                        background: None,
                        text: TextDigest::from_ids(2, vec![ids[a], ids[b]]),
                    },
                };
                session.events.push(Event { seq: seq as u64 + 1, line: 0, offset: 0, span: 0, part: 0, ts: None, kind });
            }
            let state = {
                let mut builder = StateBuilder::default();
                session.events.iter().for_each(|e| builder.apply(e));
                builder.snapshot()
            };
            let info = CompactionInfo {
                id: "k".into(),
                at: events.len(),
                def: events.len(),
                applied_at: None,
                phase: Phase::Proposed,
                range: RangeSpec::Missing,
            };
            let ctx = Ctx::new(&session, &info, &state, 0..events.len(), 1);
            proptest::prop_assert_eq!(ctx.region_tokens().1, by_one_map(&ctx));
        }
    }
}
