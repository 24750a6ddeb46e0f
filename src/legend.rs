//! What became of a compaction's tokens, with one mark and one label for each meaning:
//! `audit`, the TUI's rows, its header and its legend all say it the same way.

use ctxlens_core::analysis::compaction::{DroppedToken, RegionToken};
use ctxlens_core::analysis::inference::Reuse;

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
            TokenState::ReDerived => "↺",
            TokenState::DroppedRegenerable => "↻",
            TokenState::Recalled => "⚠",
            TokenState::DroppedNoRefetch => "✖",
            TokenState::Dropped => "−",
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

impl TokenState {
    /// What became of a dropped token the report lists.
    pub fn of_dropped(token: &DroppedToken) -> TokenState {
        match token.regenerable {
            Some(false) => TokenState::DroppedNoRefetch,
            Some(true) => TokenState::DroppedRegenerable,
            None if token.fate.carried => TokenState::Carried,
            None => match token.fate.reused {
                Some(Reuse::ReDerived) => TokenState::ReDerived,
                Some(Reuse::Recalled) => TokenState::Recalled,
                None => TokenState::Dropped,
            },
        }
    }
}

/// Who or what an event is, as the timeline and `export` label it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventRole {
    User,
    Assistant,
    Thinking,
    ToolCall,
    ToolResult,
    ToolError,
    System,
    Compaction,
    /// A session, binding, obligation, plan, action, choice or decision record of the
    /// canonical log.
    Record,
    /// What the agent writes for itself: progress, file snapshots, token counts.
    Bookkeeping,
}

impl EventRole {
    pub fn of(kind: &ctxlens_core::model::EventKind) -> EventRole {
        use ctxlens_core::model::{EventKind, Role};
        match kind {
            EventKind::Message { role, .. } => match role {
                Role::User => EventRole::User,
                Role::Assistant => EventRole::Assistant,
                Role::System | Role::Developer => EventRole::System,
                Role::Other(other) if &**other == "thinking" => EventRole::Thinking,
                Role::Other(_) => EventRole::Assistant,
            },
            EventKind::ToolCall { .. } => EventRole::ToolCall,
            EventKind::ToolResult { is_error: true, .. } => EventRole::ToolError,
            EventKind::ToolResult { .. } => EventRole::ToolResult,
            EventKind::Compaction { .. } => EventRole::Compaction,
            EventKind::Binding { .. }
            | EventKind::Obligation { .. }
            | EventKind::Plan { .. }
            | EventKind::Action { .. }
            | EventKind::Choice { .. }
            | EventKind::Decision(_)
            | EventKind::Session { .. } => EventRole::Record,
            // Claude Code's cleared tool results: no compaction, but a change to the
            // context a reader should see.
            EventKind::Other { type_name } if type_name == "microcompact_boundary" => {
                EventRole::System
            }
            EventKind::Other { .. } => EventRole::Bookkeeping,
        }
    }

    /// The label, in the timeline's column and in `export`.
    pub fn label(self) -> &'static str {
        match self {
            EventRole::User => "user",
            EventRole::Assistant => "assistant",
            EventRole::Thinking => "thinking",
            EventRole::ToolCall => "tool call",
            EventRole::ToolResult => "tool result",
            EventRole::ToolError => "tool error",
            EventRole::System => "system",
            EventRole::Compaction => "compaction",
            EventRole::Record => "record",
            EventRole::Bookkeeping => "bookkeeping",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each role of a transcript's events has its own label: thinking is not the
    /// assistant's text, a failed result not a result, a snapshot record bookkeeping.
    #[test]
    fn events_are_told_apart_by_role() {
        use ctxlens_core::model::{EventKind, Role, TextDigest};
        let message = |role: &str| EventKind::Message {
            role: Role::new(role),
            text: TextDigest::default(),
        };
        let result = |is_error| EventKind::ToolResult {
            call_id: None,
            is_error,
            says_failed: false,
            says_not_found: false,
            text: TextDigest::default(),
        };
        let other = EventKind::Other {
            type_name: "file-history-snapshot".into(),
        };
        let labels: Vec<&str> = [message("user"), message("thinking"), message("assistant")]
            .iter()
            .chain([result(false), result(true), other].iter())
            .map(|kind| EventRole::of(kind).label())
            .collect();
        assert_eq!(
            labels,
            [
                "user",
                "thinking",
                "assistant",
                "tool result",
                "tool error",
                "bookkeeping"
            ]
        );
    }

    /// One mark per meaning: no two states share a glyph or a label.
    #[test]
    fn every_state_has_its_own_glyph_and_label() {
        let all = [
            TokenState::Kept,
            TokenState::Carried,
            TokenState::ReDerived,
            TokenState::DroppedNoRefetch,
            TokenState::DroppedRegenerable,
            TokenState::Recalled,
            TokenState::Dropped,
            TokenState::Unknown,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in all.iter().skip(i + 1) {
                assert_ne!(a.glyph(), b.glyph(), "{a:?} and {b:?}");
                assert_ne!(a.label(), b.label(), "{a:?} and {b:?}");
            }
        }
    }
}
