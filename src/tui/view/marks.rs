//! Where a compaction's tokens stand in a text, and what became of each: what the views
//! colour. Computed from the compaction's analysis, never anew.

use ctxlens_core::analysis::{extract, is_whole_word};
use ctxlens_core::analysis::{CompactionAnalysis, RegionToken};
use ctxlens_core::model::{Session, TokenClass, TokenId};
use std::collections::HashMap;

pub use crate::legend::TokenState;

/// A token marked in a text: its bytes and what the compaction did to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Its first byte.
    pub start: usize,
    /// The byte after its last.
    pub end: usize,
    /// What the compaction did to it.
    pub state: TokenState,
}

fn key(session: &Session, text: &str, class: TokenClass) -> String {
    ctxlens_core::analysis::text_key(text, class, session.cwd.as_deref()).into_owned()
}

/// A value for each of a compaction's region tokens, found by the token's text. A
/// region can hold hundreds of thousands of tokens, so they are held by id (a text is
/// looked up in the session's table), and only paths also by the file they name (the
/// first of the tokens given that names it).
#[derive(Debug, Clone, PartialEq)]
struct RegionIndex<V> {
    /// Sorted by id (a region lists a token once).
    by_id: Vec<(TokenId, V)>,
    by_file: HashMap<String, V>,
}

impl<V> Default for RegionIndex<V> {
    fn default() -> Self {
        RegionIndex {
            by_id: Vec::new(),
            by_file: HashMap::new(),
        }
    }
}

impl<V: Copy> RegionIndex<V> {
    fn new<'a>(
        session: &Session,
        tokens: impl Iterator<Item = &'a RegionToken>,
        value: impl Fn(&RegionToken) -> V,
    ) -> Self {
        let mut index = RegionIndex::default();
        for t in tokens {
            index.by_id.push((t.id, value(t)));
            let info = session.tokens.get(t.id);
            if info.class == TokenClass::Path {
                index
                    .by_file
                    .entry(key(session, info.text, info.class))
                    .or_insert(value(t));
            }
        }
        index.by_id.sort_unstable_by_key(|&(id, _)| id);
        index
    }

    /// The value of the region token named `file` (a path's file key), if one is, or
    /// else of the token written `text`.
    fn get(&self, file: Option<&str>, text: &str, session: &Session) -> Option<V> {
        if let Some(&value) = file.and_then(|f| self.by_file.get(f)) {
            return Some(value);
        }
        let id = session.tokens.find(text)?;
        let at = self.by_id.binary_search_by_key(&id, |&(id, _)| id).ok()?;
        self.by_id.get(at).map(|&(_, value)| value)
    }
}

/// Finds a compaction's region tokens in any text and says what became of each: built
/// once per compaction (its lookup table is the region's tokens), used for every text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marker {
    states: RegionIndex<TokenState>,
    /// Declared tokens of no known shape, which the extractor does not find.
    declared: Vec<(String, TokenClass, TokenState)>,
}

impl Marker {
    /// The marker of `analysis`'s region tokens.
    pub fn new(session: &Session, analysis: &CompactionAnalysis) -> Marker {
        // Of the paths naming one file, the last in the region tells.
        let states = RegionIndex::new(session, analysis.tokens.iter().rev(), TokenState::of);
        let declared = analysis
            .tokens
            .iter()
            .filter(|t| session.tokens.class(t.id) == TokenClass::Declared)
            .map(|t| {
                let text = session.tokens.text(t.id).to_owned();
                (text, TokenClass::Declared, TokenState::of(t))
            })
            .collect();
        Marker { states, declared }
    }

    /// The state of a token found as `text` of `class` in some text, if it is one of
    /// the region's.
    fn state_of(&self, text: &str, class: TokenClass, session: &Session) -> Option<TokenState> {
        let file = (class == TokenClass::Path).then(|| key(session, text, class));
        self.states.get(file.as_deref(), text, session)
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
    /// No event of the region holds it.
    NotInRegion,
    /// The summary dropped it, and it cannot be re-fetched.
    Dropped,
    /// The summary dropped it, and it can be re-fetched.
    Regenerable,
    /// No binding declared it.
    Unknown,
}

/// What `analysis` did to the obligation's token `token`.
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
    /// Whether the summary kept each region token.
    region: RegionIndex<Option<bool>>,
    infers: bool,
}

impl BindingStates {
    /// What `analysis` did to each token obligations require.
    pub fn new(session: &Session, analysis: &CompactionAnalysis) -> BindingStates {
        let mut states = BindingStates {
            infers: session.infers_bindings(),
            region: RegionIndex::new(session, analysis.tokens.iter(), |t| t.survived),
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
        states
    }

    /// Whether the summary kept the region token whose key is `wanted` (a path's is
    /// the file it names, any other's its text); `None` when no region token has it.
    fn in_region(&self, wanted: &str, session: &Session) -> Option<Option<bool>> {
        self.region.get(Some(wanted), wanted, session)
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
            let wanted = key(session, token, ctxlens_core::analysis::classify(token));
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
