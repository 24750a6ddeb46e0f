//! The compaction view's token list: every opaque token of a region with what became of
//! it, the event it first appeared in, what needed it and, when the summary kept it, the
//! summary sentence that mentions it. Built once per analysis, never per frame.

use super::compaction::CompactionAnalysis;
use super::kept::{basename, summary_words};
use super::marks::TokenState;
use crate::model::{Session, TokenClass, TokenId};
use std::collections::HashMap;
use std::sync::Arc;
use unicode_segmentation::UnicodeSegmentation;

#[derive(Debug, Clone, PartialEq)]
pub struct TokenRow {
    pub token: TokenId,
    pub state: TokenState,
    /// Seq of the first region event that holds the token.
    pub seen_at: u64,
    /// Obligations, steps or later calls that need it (dropped tokens only).
    pub needed_by: Vec<String>,
    /// The summary sentence that mentions it (kept tokens only), on one line; shared
    /// by every row it mentions (a summary may be one long sentence).
    pub sentence: Option<Arc<str>>,
}

/// Most worrying first: what cannot be re-fetched, what was recalled, what else was
/// dropped; then what came back, and last what the summary kept.
fn rank(state: TokenState) -> u8 {
    match state {
        TokenState::DroppedNoRefetch => 0,
        TokenState::Recalled => 1,
        TokenState::DroppedRegenerable => 2,
        TokenState::Dropped => 3,
        TokenState::Unknown => 4,
        TokenState::ReDerived => 5,
        TokenState::Carried => 6,
        TokenState::Kept => 7,
    }
}

pub fn token_rows(session: &Session, analysis: &CompactionAnalysis) -> Vec<TokenRow> {
    let sentences = session
        .summary_at(analysis.info.def)
        .map_or_else(Sentences::default, |summary| Sentences::of(&summary.text));
    let cwd = session.cwd.as_deref();
    let needs: HashMap<&str, &Vec<String>> = analysis
        .dropped
        .iter()
        .rev()
        .map(|d| (d.token.as_str(), &d.required_by))
        .collect();
    let mut rows: Vec<TokenRow> = analysis
        .tokens
        .iter()
        .map(|t| {
            let state = TokenState::of(t);
            let info = session.tokens.get(t.id);
            let needed_by = needs
                .get(info.text)
                .map(|&needs| needs.clone())
                .unwrap_or_default();
            let sentence = (state == TokenState::Kept)
                .then(|| sentences.mentioning(info.text, info.class, cwd))
                .flatten()
                .cloned();
            TokenRow {
                token: t.id,
                state,
                seen_at: session.seq_at(t.first_event as usize),
                needed_by,
                sentence,
            }
        })
        .collect();
    // Stable: within a state, tokens stay in the order the region shows them.
    rows.sort_by_key(|r| rank(r.state));
    rows
}

/// A summary cut into sentences (and lines: a bullet is a sentence), with the first
/// sentence each word appears in (the words borrowed from the summary).
#[derive(Default)]
struct Sentences<'s> {
    texts: Vec<Arc<str>>,
    first: HashMap<&'s str, usize>,
}

impl<'s> Sentences<'s> {
    fn of(summary: &'s str) -> Sentences<'s> {
        let mut out = Sentences::default();
        for line in summary.lines() {
            for sentence in line.split_sentence_bounds() {
                // Markdown's bullets and headings are not part of what it says.
                let sentence = sentence
                    .trim()
                    .trim_start_matches(|c: char| "-*+#>•".contains(c) || c.is_whitespace());
                if sentence.is_empty() {
                    continue;
                }
                let index = out.texts.len();
                for word in summary_words(sentence) {
                    out.first.entry(word).or_insert(index);
                    // A path's tails name the same file (`lib/a.dart` of `app/lib/a.dart`).
                    for (at, _) in word.match_indices('/') {
                        if let Some(tail) = word.get(at + 1..) {
                            out.first.entry(tail).or_insert(index);
                        }
                    }
                }
                out.texts.push(sentence.into());
            }
        }
        out
    }

    /// The sentence that holds `token` in one of the forms the survival check accepts.
    fn mentioning(&self, token: &str, class: TokenClass, cwd: Option<&str>) -> Option<&Arc<str>> {
        let bare = token.trim_end_matches('/');
        let mut forms = vec![token, bare];
        if class == TokenClass::Path {
            if let Some(relative) = cwd
                .and_then(|c| bare.strip_prefix(c))
                .and_then(|r| r.strip_prefix('/'))
            {
                forms.push(relative);
            }
            forms.extend(bare.match_indices('/').map(|(at, _)| &bare[at + 1..]));
            forms.push(basename(bare));
        }
        let hex_prefixes = match class {
            TokenClass::Hex => (7..bare.len()).map(|n| &bare[..n]).collect(),
            _ => Vec::new(),
        };
        forms
            .into_iter()
            .chain(hex_prefixes)
            .filter(|f| !f.is_empty())
            .find_map(|f| self.first.get(f))
            .and_then(|&i| self.texts.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_is_found_by_any_form_the_survival_check_accepts() {
        let s = Sentences::of(
            "Checked things.\n- Edited lib/a.rs and main.go. Deployed 9c3e5b7 at noon.",
        );
        let edited = Some("Edited lib/a.rs and main.go.");
        assert_eq!(
            s.mentioning("/p/app/lib/a.rs", TokenClass::Path, Some("/p"))
                .map(|s| &**s),
            edited
        );
        assert_eq!(
            s.mentioning("/p/main.go", TokenClass::Path, Some("/p"))
                .map(|s| &**s),
            edited
        );
        assert_eq!(
            s.mentioning("9c3e5b7a1f20aa", TokenClass::Hex, None)
                .map(|s| &**s),
            Some("Deployed 9c3e5b7 at noon.")
        );
        assert_eq!(s.mentioning("tok_1", TokenClass::VendorId, None), None);
    }
}
