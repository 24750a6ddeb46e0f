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
    pub reuse: Reuse,
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
    let mut brought_back: FastSet<Cow<str>> = FastSet::default();
    // Folders a call after the compaction worked in (`ls docs/specs/`): its output
    // lists the files in them, which a later call may name from there.
    let mut folders_read: FastSet<Cow<str>> = FastSet::default();
    let mut used: FastSet<Cow<str>> = FastSet::default();
    let mut out = Vec::new();
    let end = until.min(session.events.len());
    for (index, event) in session.context_events_in(from..end) {
        match &event.kind {
            EventKind::ToolResult { text, .. }
            | EventKind::Message {
                role: Role::User,
                text,
            } => {
                brought_back.extend(
                    session
                        .tokens_of(index, text)
                        .map(|t| token_key(session, t, cwd)),
                );
            }
            EventKind::ToolCall { head, targets, .. } => {
                for &token in targets {
                    let k = token_key(session, token, cwd);
                    let Some(&original) = dropped.get(&*k) else {
                        continue;
                    };
                    if !used.insert(k.clone()) {
                        continue;
                    }
                    let in_a_folder_read = session.tokens.class(token) == TokenClass::Path
                        && k.rsplit_once('/')
                            .is_some_and(|(folder, _)| folders_read.contains(folder));
                    out.push(LaterUse {
                        token: original,
                        event: index,
                        name: head.name.to_string(),
                        call_id: head.call_id.as_deref().map(str::to_owned),
                        reuse: if brought_back.contains(&*k) || in_a_folder_read {
                            Reuse::ReDerived
                        } else {
                            Reuse::Recalled
                        },
                    });
                }
                folders_read.extend(
                    targets
                        .iter()
                        .filter(|&&t| session.tokens.class(t) == TokenClass::Path)
                        .map(|&t| token_key(session, t, cwd)),
                );
            }
            _ => {}
        }
    }
    out
}
