//! Where a compaction's tokens stand in a text, and what became of each: what the views
//! colour. Computed from the compaction's analysis, never anew.

use super::compaction::{CompactionAnalysis, RegionToken};
use super::inference::Reuse;
use super::tokens::{extract, is_whole_word};
use crate::model::{Session, TokenClass, TokenId};
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
/// A region can hold hundreds of thousands of tokens, so they are held by id (a found
/// token is looked up in the session's table), and only paths by the file they name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marker {
    /// Every region token's state, sorted by id (a region lists a token once).
    states: Vec<(TokenId, TokenState)>,
    /// Path tokens by the file they name (a path in another form names it too).
    files: HashMap<String, TokenState>,
    /// Declared tokens of no known shape, which the extractor does not find.
    declared: Vec<(String, TokenClass, TokenState)>,
}

impl Marker {
    pub fn new(session: &Session, analysis: &CompactionAnalysis) -> Marker {
        let mut marker = Marker::default();
        for t in analysis.tokens.iter() {
            let info = session.tokens.get(t.id);
            let state = TokenState::of(t);
            marker.states.push((t.id, state));
            match info.class {
                TokenClass::Path => {
                    marker
                        .files
                        .insert(key(session, info.text, info.class), state);
                }
                TokenClass::Declared => {
                    marker
                        .declared
                        .push((info.text.to_string(), info.class, state));
                }
                _ => {}
            }
        }
        marker.states.sort_unstable_by_key(|&(id, _)| id);
        marker
    }

    /// The state of a token found as `text` of `class` in some text, if it is one of
    /// the region's.
    fn state_of(&self, text: &str, class: TokenClass, session: &Session) -> Option<TokenState> {
        if class == TokenClass::Path {
            if let Some(&state) = self.files.get(&key(session, text, class)) {
                return Some(state);
            }
        }
        let id = session.tokens.find(text)?;
        let at = self.states.binary_search_by_key(&id, |&(id, _)| id).ok()?;
        self.states.get(at).map(|&(_, state)| state)
    }

    /// The region tokens found in `text`, leftmost first, without overlaps.
    pub fn marks(&self, text: &str, session: &Session) -> Vec<Mark> {
        let mut out: Vec<Mark> = extract(text)
            .into_iter()
            .filter_map(|f| {
                let state = self.state_of(f.text(text), f.class, session)?;
                Some(Mark {
                    start: f.start,
                    end: f.end,
                    state,
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
    BindingStates::new(session, analysis).of(token, session)
}

/// What a compaction did to the tokens obligations require, looked up by key: built
/// once per compaction, so a pane listing thousands of obligations costs a lookup per
/// token, not a pass over every binding and region token.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BindingStates {
    /// Declared bindings of a non-path class by their text, the first declaration kept;
    /// its index in declaration order, regenerable, and its key.
    by_text: HashMap<String, (usize, bool, String)>,
    /// Declared path bindings by the file they name.
    by_file: HashMap<String, (usize, bool, String)>,
    /// Whether the summary kept each region token: by id, sorted, and paths also by
    /// the file they name (the first token of a file). A region holds hundreds of
    /// thousands of tokens: no owned key per token.
    region: Vec<(TokenId, Option<bool>)>,
    region_files: HashMap<String, Option<bool>>,
    infers: bool,
}

impl BindingStates {
    pub fn new(session: &Session, analysis: &CompactionAnalysis) -> BindingStates {
        let mut states = BindingStates {
            infers: session.infers_bindings(),
            ..BindingStates::default()
        };
        for (i, binding) in analysis.state.bindings.iter().enumerate() {
            let info = session.tokens.get(binding.token);
            let own_key = key(session, info.text, info.class);
            let entry = (i, binding.regenerable, own_key.clone());
            let map = if info.class == TokenClass::Path {
                &mut states.by_file
            } else {
                &mut states.by_text
            };
            map.entry(own_key).or_insert(entry);
        }
        for t in analysis.tokens.iter() {
            states.region.push((t.id, t.survived));
            let info = session.tokens.get(t.id);
            if info.class == TokenClass::Path {
                states
                    .region_files
                    .entry(key(session, info.text, info.class))
                    .or_insert(t.survived);
            }
        }
        states.region.sort_unstable_by_key(|&(id, _)| id);
        states
    }

    /// Whether the summary kept the region token whose key is `wanted` (a path's is
    /// the file it names, any other's its text); `None` when no region token has it.
    fn in_region(&self, wanted: &str, session: &Session) -> Option<Option<bool>> {
        if let Some(&kept) = self.region_files.get(wanted) {
            return Some(kept);
        }
        let id = session.tokens.find(wanted)?;
        let at = self.region.binary_search_by_key(&id, |&(id, _)| id).ok()?;
        self.region.get(at).map(|&(_, kept)| kept)
    }

    /// What the compaction did to `token`, as an obligation names it.
    pub fn of(&self, token: &str, session: &Session) -> BindingState {
        // The first binding whose key, in the binding's own class, is the token's.
        let exact = self.by_text.get(token);
        let file = self.by_file.get(&key(session, token, TokenClass::Path));
        let declared = match (exact, file) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        let Some((_, regenerable, binding_key)) = declared else {
            // A transcript declares nothing: what the region and summary did tells.
            if !self.infers {
                return BindingState::Unknown;
            }
            let wanted = key(session, token, crate::analysis::tokens::classify(token));
            return match self.in_region(&wanted, session) {
                None => BindingState::NotInRegion,
                Some(Some(false)) => BindingState::Dropped,
                Some(_) => BindingState::Kept,
            };
        };
        match self.in_region(binding_key, session) {
            None => BindingState::NotInRegion,
            Some(Some(false)) if *regenerable => BindingState::Regenerable,
            Some(Some(false)) => BindingState::Dropped,
            Some(_) => BindingState::Kept,
        }
    }
}
