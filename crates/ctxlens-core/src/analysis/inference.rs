//! Where a transcript declares no bindings (docs/transcripts.md), later use tells what became
//! of a dropped token: a tool call after the compaction that uses it either found it
//! brought back first (a tool result, a user message, a listing of its folder:
//! re-derived, not a finding) or took it from outside the transcript (recalled: a
//! warning, since a verbatim use that worked is no evidence of loss).

use super::kept::token_key;
use crate::model::{EventKind, FastMap, FastSet, Role, Session, TokenClass, TokenId};
use serde::Serialize;
use std::borrow::Cow;

/// How a dropped token was used again after the compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reuse {
    /// Used after a tool result or a user message brought it back.
    ReDerived,
    /// Used with nothing before the call bringing it back.
    Recalled,
}

/// What became of a dropped token after the compaction, as the report shows it:
/// `carried` when the runtime put it back, `reused` (and `recalled`) when a later tool
/// call used it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fate {
    /// The runtime put it back in the context.
    pub carried: bool,
    /// A later tool call used it.
    pub reused: Option<Reuse>,
}

impl Fate {
    /// It was used with nothing bringing it back first.
    pub fn recalled(&self) -> bool {
        self.reused == Some(Reuse::Recalled)
    }
}

impl Serialize for Fate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        if self.carried {
            map.serialize_entry("carried", &true)?;
        }
        if let Some(reused) = self.reused {
            map.serialize_entry("reused", &reused)?;
        }
        if self.recalled() {
            map.serialize_entry("recalled", &true)?;
        }
        map.end()
    }
}

/// The first tool call that used a dropped token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LaterUse {
    pub token: TokenId,
    /// Index of the tool call event.
    pub event: usize,
    pub name: String,
    pub call_id: Option<String>,
    /// Re-derived: index of the event that went to find it again (the call whose
    /// result, or the user's message that, brought it back).
    pub found_again: Option<usize>,
}

impl LaterUse {
    /// Found again before this use, or recalled.
    pub(crate) fn reuse(&self) -> Reuse {
        match self.found_again {
            Some(_) => Reuse::ReDerived,
            None => Reuse::Recalled,
        }
    }
}

/// Scans events `from..until` (after the compaction, up to the next one). `dropped`
/// maps the comparison key of each dropped, not carried-over token to its id.
pub(crate) fn later_uses(
    session: &Session,
    from: usize,
    until: usize,
    dropped: &FastMap<Cow<str>, TokenId>,
) -> Vec<LaterUse> {
    let cwd = session.cwd.as_deref();
    // Each key brought back, with the event that went to find it (the first).
    let mut brought_back: FastMap<Cow<str>, usize> = FastMap::default();
    // The window's calls by id: a result was found by its call.
    let mut calls: FastMap<&str, usize> = FastMap::default();
    // Folders a call after the compaction worked in (`ls docs/specs/`): its output
    // lists the files in them, which a later call may name from there.
    let mut folders_read: FastMap<Cow<str>, usize> = FastMap::default();
    let mut used: FastSet<Cow<str>> = FastSet::default();
    let mut out = Vec::new();
    let end = until.min(session.events.len());
    for (index, event) in session.context_events_in(from..end) {
        match &event.kind {
            EventKind::ToolResult { text, call_id, .. } => {
                let by = call_id
                    .as_deref()
                    .and_then(|id| calls.get(id).copied())
                    .unwrap_or(index);
                for t in session.tokens_of(index, text) {
                    brought_back.entry(token_key(session, t, cwd)).or_insert(by);
                }
            }
            EventKind::Message {
                role: Role::User,
                text,
            } => {
                for t in session.tokens_of(index, text) {
                    brought_back
                        .entry(token_key(session, t, cwd))
                        .or_insert(index);
                }
            }
            EventKind::ToolCall { head, targets, .. } => {
                if let Some(id) = head.call_id.as_deref() {
                    calls.insert(id, index);
                }
                for &token in targets {
                    let k = token_key(session, token, cwd);
                    let Some(&original) = dropped.get(&*k) else {
                        continue;
                    };
                    if !used.insert(k.clone()) {
                        continue;
                    }
                    let folder_read = (session.tokens.class(token) == TokenClass::Path)
                        .then(|| k.rsplit_once('/'))
                        .flatten()
                        .and_then(|(folder, _)| folders_read.get(folder).copied());
                    let found_again = brought_back.get(&*k).copied().or(folder_read);
                    out.push(LaterUse {
                        token: original,
                        event: index,
                        name: head.name.to_string(),
                        call_id: head.call_id.as_deref().map(str::to_owned),
                        found_again,
                    });
                }
                for &t in targets.iter() {
                    if session.tokens.class(t) == TokenClass::Path {
                        folders_read
                            .entry(token_key(session, t, cwd))
                            .or_insert(index);
                    }
                }
            }
            _ => {}
        }
    }
    out
}
