//! Where a compaction's tokens stand in a text, and what became of each: what the views
//! colour. Computed from the compaction's analysis, never anew.

use super::compaction::{CompactionAnalysis, RegionToken};
use super::inference::Reuse;
use super::tokens::{extract, is_whole_word};
use crate::model::{Session, TokenClass};
use std::collections::HashMap;

/// What a compaction did to a token of its region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenState {
    Kept,
    /// Dropped by the summary, put back by the runtime (re-read files, `CLAUDE.md`…).
    Carried,
    /// Dropped, and brought back by a tool result or the user before any use.
    ReDerived,
    /// Declared as not regenerable, and dropped.
    DroppedNoRefetch,
    /// Declared as regenerable, and dropped.
    DroppedRegenerable,
    /// Not declared, dropped, and used later with nothing bringing it back first.
    Recalled,
    /// Not declared, and dropped.
    Dropped,
    /// The summary cannot be read.
    Unknown,
}

impl TokenState {
    pub fn of(token: &RegionToken) -> TokenState {
        match (token.survived, token.declared) {
            (None, _) => TokenState::Unknown,
            (Some(true), _) => TokenState::Kept,
            (Some(false), Some(false)) => TokenState::DroppedNoRefetch,
            (Some(false), Some(true)) => TokenState::DroppedRegenerable,
            (Some(false), None) if token.fate.carried => TokenState::Carried,
            (Some(false), None) => match token.fate.reused {
                Some(Reuse::ReDerived) => TokenState::ReDerived,
                Some(Reuse::Recalled) => TokenState::Recalled,
                None => TokenState::Dropped,
            },
        }
    }

    /// A glyph, so colour is never the only signal.
    pub fn glyph(self) -> &'static str {
        match self {
            TokenState::Kept => "✔",
            TokenState::Carried => "⇡",
            TokenState::ReDerived | TokenState::DroppedRegenerable => "↻",
            TokenState::Recalled => "⚠",
            TokenState::DroppedNoRefetch | TokenState::Dropped => "✖",
            TokenState::Unknown => "?",
        }
    }

    /// What the glyph means, for legends and lists.
    pub fn label(self) -> &'static str {
        match self {
            TokenState::Kept => "kept",
            TokenState::Carried => "carried over",
            TokenState::ReDerived => "re-derived",
            TokenState::DroppedNoRefetch => "dropped, can't re-fetch",
            TokenState::DroppedRegenerable => "dropped, regenerable",
            TokenState::Recalled => "dropped, recalled",
            TokenState::Dropped => "dropped",
            TokenState::Unknown => "summary unreadable",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub start: usize,
    pub end: usize,
    pub state: TokenState,
}

fn key(session: &Session, text: &str, class: TokenClass) -> String {
    super::kept::text_key(text, class, session.cwd.as_deref())
}

/// Finds a compaction's region tokens in any text and says what became of each: built
/// once per compaction (its lookup table is the region's tokens), used for every text.
#[derive(Debug, Clone, Default)]
pub struct Marker {
    states: HashMap<String, TokenState>,
    /// Declared tokens of no known shape, which the extractor does not find.
    declared: Vec<(String, TokenClass, TokenState)>,
}

impl Marker {
    pub fn new(session: &Session, analysis: &CompactionAnalysis) -> Marker {
        let mut marker = Marker::default();
        for t in &analysis.tokens {
            let info = session.tokens.get(t.id);
            let state = TokenState::of(t);
            marker
                .states
                .insert(key(session, &info.text, info.class), state);
            if info.class == TokenClass::Declared {
                marker
                    .declared
                    .push((info.text.to_string(), info.class, state));
            }
        }
        marker
    }

    /// The region tokens found in `text`, leftmost first, without overlaps.
    pub fn marks(&self, text: &str, session: &Session) -> Vec<Mark> {
        let mut out: Vec<Mark> = extract(text)
            .into_iter()
            .filter_map(|f| {
                let state = self.states.get(&key(session, f.text(text), f.class))?;
                Some(Mark {
                    start: f.start,
                    end: f.end,
                    state: *state,
                })
            })
            .collect();
        for (token, class, state) in &self.declared {
            for start in memchr::memmem::find_iter(text.as_bytes(), token.as_bytes()) {
                let end = start + token.len();
                if is_whole_word(text, start, end, *class) {
                    out.push(Mark {
                        start,
                        end,
                        state: *state,
                    });
                }
            }
        }
        out.sort_by_key(|m| (m.start, std::cmp::Reverse(m.end)));
        let mut covered = 0;
        out.retain(|m| {
            let keep = m.start >= covered;
            if keep {
                covered = m.end;
            }
            keep
        });
        out
    }
}

/// What a compaction did to a token some obligation requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingState {
    /// In the region, and the summary kept it (or it was not in the region at all).
    Kept,
    NotInRegion,
    Dropped,
    Regenerable,
    /// No binding declared it.
    Unknown,
}

pub fn binding_state(
    token: &str,
    session: &Session,
    analysis: &CompactionAnalysis,
) -> BindingState {
    let declared = analysis.state.bindings.iter().find(|b| {
        let info = session.tokens.get(b.token);
        key(session, &info.text, info.class) == key(session, token, info.class)
    });
    let Some(binding) = declared else {
        // A transcript declares nothing: what the region and summary did tells.
        if !session.infers_bindings() {
            return BindingState::Unknown;
        }
        let wanted = key(session, token, crate::analysis::tokens::classify(token));
        return match analysis.tokens.iter().find(|t| {
            let info = session.tokens.get(t.id);
            key(session, &info.text, info.class) == wanted
        }) {
            None => BindingState::NotInRegion,
            Some(t) if t.survived == Some(false) => BindingState::Dropped,
            Some(_) => BindingState::Kept,
        };
    };
    let in_region = analysis.tokens.iter().find(|t| {
        let info = session.tokens.get(t.id);
        let wanted = session.tokens.get(binding.token);
        key(session, &info.text, info.class) == key(session, &wanted.text, wanted.class)
    });
    match in_region.map(|t| t.survived) {
        None => BindingState::NotInRegion,
        Some(Some(false)) if binding.regenerable => BindingState::Regenerable,
        Some(Some(false)) => BindingState::Dropped,
        Some(_) => BindingState::Kept,
    }
}
