//! The compaction view's token list: every opaque token of a region with what became of
//! it, the event it first appeared in, what needed it and, when the summary kept it, the
//! summary sentence that mentions it. Built once per analysis, never per frame.

use super::marks::TokenState;
use ctxlens_core::analysis::CompactionAnalysis;
use ctxlens_core::analysis::{basename, summary_words};
use ctxlens_core::model::{Session, TokenClass, TokenId};
use std::collections::HashMap;
use unicode_segmentation::UnicodeSegmentation;

/// A row of the token list: small (a region can hold hundreds of thousands), what it
/// shows besides the token read from the analysis and [`TokenRows::sentences`].
#[derive(Debug, Clone, PartialEq)]
pub struct TokenRow {
    /// The token.
    pub token: TokenId,
    /// What the compaction did to it.
    pub state: TokenState,
    /// Index of the first region event that holds the token.
    pub first_event: u32,
    /// Index into the analysis's `dropped` of the entry that says what needs it
    /// (dropped tokens only).
    pub needs: Option<u32>,
    /// Index into [`TokenRows::sentences`] of the summary sentence that mentions it
    /// (kept tokens only).
    pub sentence: Option<u32>,
}

/// The token list of a compaction, and the summary's sentences its rows point at (a
/// summary may be one long sentence, held once).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TokenRows {
    /// The rows, in the order shown.
    pub rows: Vec<TokenRow>,
    /// The summary's sentences that mention a kept token.
    pub sentences: Vec<Box<str>>,
}

impl TokenRows {
    /// The sentence, on one line, that mentions the token of `row`.
    pub fn sentence(&self, row: &TokenRow) -> Option<&str> {
        self.sentences.get(row.sentence? as usize).map(|s| &**s)
    }

    /// What needs the token of `row`, by `analysis` (the one the rows were built from).
    pub fn needed_by<'a>(row: &TokenRow, analysis: &'a CompactionAnalysis) -> &'a [String] {
        row.needs
            .and_then(|i| analysis.dropped.get(i as usize))
            .map_or(&[], |d| d.required_by.as_slice())
    }

    /// The seq of the first region event that holds the token of `row`.
    pub fn seen_at(row: &TokenRow, session: &Session) -> u64 {
        session.seq_at(row.first_event as usize)
    }
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

/// The token list of `analysis`'s region.
pub fn token_rows(session: &Session, analysis: &CompactionAnalysis) -> TokenRows {
    let sentences = session
        .summary_at(analysis.info.def)
        .map_or_else(Sentences::default, |summary| Sentences::of(&summary.text));
    let cwd = session.cwd.as_deref();
    // Each dropped token's first entry.
    let needs: HashMap<&str, u32> = analysis
        .dropped
        .iter()
        .enumerate()
        .rev()
        .map(|(i, d)| (d.token.as_str(), i as u32))
        .collect();
    let mut rows: Vec<TokenRow> = analysis
        .tokens
        .iter()
        .map(|t| {
            let state = TokenState::of(t);
            let info = session.tokens.get(t.id);
            let needs = needs.get(info.text).copied();
            let sentence = (state == TokenState::Kept)
                .then(|| sentences.mentioning(info.text, info.class, cwd))
                .flatten();
            TokenRow {
                token: t.id,
                state,
                first_event: t.first_event,
                needs,
                sentence,
            }
        })
        .collect();
    // Stable: within a state, tokens stay in the order the region shows them.
    rows.sort_by_key(|r| rank(r.state));
    TokenRows {
        rows,
        sentences: sentences.texts,
    }
}

/// A summary cut into sentences (and lines: a bullet is a sentence), with the first
/// sentence each word appears in (the words borrowed from the summary).
#[derive(Default)]
struct Sentences<'s> {
    texts: Vec<Box<str>>,
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
    fn mentioning(&self, token: &str, class: TokenClass, cwd: Option<&str>) -> Option<u32> {
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
            .and_then(|&i| u32::try_from(i).ok())
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
                .and_then(|i| s.texts.get(i as usize))
                .map(|t| &**t),
            edited
        );
        assert_eq!(
            s.mentioning("/p/main.go", TokenClass::Path, Some("/p"))
                .and_then(|i| s.texts.get(i as usize))
                .map(|t| &**t),
            edited
        );
        assert_eq!(
            s.mentioning("9c3e5b7a1f20aa", TokenClass::Hex, None)
                .and_then(|i| s.texts.get(i as usize))
                .map(|t| &**t),
            Some("Deployed 9c3e5b7 at noon.")
        );
        assert_eq!(s.mentioning("tok_1", TokenClass::VendorId, None), None);
    }
}
