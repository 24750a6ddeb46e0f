//! Where a transcript declares no bindings (docs/transcripts.md), later use tells what became
//! of a dropped token: a tool call after the compaction that uses it either found it
//! brought back first (a tool result, a user message: re-derived, not a finding) or
//! took it from outside the summary (recalled: a warning, since a verbatim use that
//! worked is no evidence of loss).

use super::kept::token_key;
use crate::model::{EventKind, FastMap, FastSet, Role, Session, TokenId};
use serde::Serialize;
use std::borrow::Cow;

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
    pub carried: bool,
    pub reused: Option<Reuse>,
}

impl Fate {
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
pub struct LaterUse {
    pub token: TokenId,
    /// Index of the tool call event.
    pub event: usize,
    pub name: String,
    pub call_id: Option<String>,
    pub reuse: Reuse,
}

/// Scans events `from..until` (after the compaction, up to the next one). `dropped`
/// maps the comparison key of each dropped, not carried-over token to its id.
pub fn later_uses(
    session: &Session,
    from: usize,
    until: usize,
    dropped: &FastMap<Cow<str>, TokenId>,
) -> Vec<LaterUse> {
    let cwd = session.cwd.as_deref();
    let mut brought_back: FastSet<Cow<str>> = FastSet::default();
    let mut used: FastSet<Cow<str>> = FastSet::default();
    let mut out = Vec::new();
    let end = until.min(session.events.len());
    for (index, event) in session.events_in(from..end).enumerate() {
        let index = from + index;
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
            EventKind::ToolCall {
                name,
                call_id,
                targets,
                ..
            } => {
                for &token in targets {
                    let k = token_key(session, token, cwd);
                    let Some(&original) = dropped.get(&*k) else {
                        continue;
                    };
                    if !used.insert(k.clone()) {
                        continue;
                    }
                    out.push(LaterUse {
                        token: original,
                        event: index,
                        name: name.to_string(),
                        call_id: call_id.as_deref().map(str::to_owned),
                        reuse: if brought_back.contains(&*k) {
                            Reuse::ReDerived
                        } else {
                            Reuse::Recalled
                        },
                    });
                }
            }
            _ => {}
        }
    }
    out
}
