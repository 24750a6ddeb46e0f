//! What became of a compaction's tokens, with one mark and one label for each meaning:
//! `audit`, the TUI's rows, its header and its legend all say it the same way.

use ctxlens_core::analysis::Reuse;
use ctxlens_core::analysis::{DroppedToken, RegionToken};

/// What a compaction did to a token of its region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenState {
    /// The summary keeps it.
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
    /// The state a compaction left `token` in.
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

/// The tokens a session's "in" counts, in every view: what the model read that its
/// cache did not hold (input, and input written to the cache); what it read from the
/// cache is counted apart.
pub fn input_tokens(usage: ctxlens_core::model::TokenUsage) -> u64 {
    usage.input.saturating_add(usage.cache_creation)
}

/// What to do about a finding that no decision resolves, in a few plain words: the
/// line under it in `audit`, the selected alert in the TUI, and `export`.
pub fn what_to_do(finding: &ctxlens_core::analysis::Finding) -> Option<&'static str> {
    use ctxlens_core::analysis::{FindingKind as K, Severity};
    if finding.resolved_by.is_some() {
        return None;
    }
    Some(match &finding.kind {
        K::DroppedBinding { .. } if finding.severity != Severity::Error => {
            "check the value the agent used against the transcript"
        }
        K::DroppedBinding { .. } => "spill or preserve before it lands, so the value is kept",
        K::RegeneratedBinding { .. } => {
            "give the agent the dropped value (spill get) and check what the failed step did"
        }
        K::DensityCollapse { .. } => "look at the dropped tokens; preserve if any matter",
        K::NonIdempotent { .. } => {
            "stop the action: the plan from before is in the spill (check names its handle)"
        }
        K::SummaryOfSummary | K::PolarityFlip { .. } => {
            "refetch: summarize the original events again"
        }
        K::CoverageGap | K::EmptySpan => "refuse, or refetch with a range that holds the region",
        K::UnknownBinding { .. } => "refuse: an obligation needs a value nothing declared",
        // Its message says where the line is; a thousand of them need no advice each.
        K::MalformedLine { .. } => return None,
        K::Override { .. } => "nothing: an operator chose against the gate, and it is recorded",
        K::Undecided => "decide it: a, s, p, r or x in the TUI, or ctxlens decide",
        K::DecisionConflict { .. } => "the first decision stands; tell whoever made the other",
        K::OpaqueSummary => "nothing can check the summary: read what it kept",
        K::RegionElsewhere => "open the log that holds the region to check it",
        K::EntityDropped { .. } => {
            "check the summary still names it; preserve if the work needs it"
        }
        K::SchemaMissing => "add the schema to the summary, or refetch",
        K::InstructionDropped { .. } => "repeat the instruction to the agent, or preserve",
        K::TooDense { .. } => "spill: the region holds more identifiers than can be checked",
        K::Degraded { .. } => "refetch once the original events are back",
    })
}

/// The words ctxlens uses, in plain words: the help overlay and docs/signals.md. Each
/// fits the overlay's line.
pub const GLOSSARY: [(&str, &str); 10] = [
    (
        "in",
        "model tokens read that were not in its cache (new, or written to it)",
    ),
    (
        "opaque token",
        "an identifier to keep letter for letter: a commit, a host",
    ),
    (
        "binding",
        "a token a later step needs, and whether it can be fetched again",
    ),
    (
        "obligation",
        "what the agent still has to do, and the bindings it needs",
    ),
    (
        "gate",
        "the verdict: approve, spill, preserve, refetch or refuse",
    ),
    (
        "spill",
        "store the region's events first, so any value can be read back",
    ),
    (
        "preserve",
        "summarize again, keeping the contract's identifiers verbatim",
    ),
    (
        "density collapse",
        "the summary lost identifiers much faster than words",
    ),
    (
        "recalled",
        "a dropped value used again, nothing in the log bringing it back",
    ),
    (
        "carried over",
        "a dropped value the agent puts back itself (CLAUDE.md)",
    ),
];

/// Who or what an event is, as the timeline and `export` label it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventRole {
    /// The user's words.
    User,
    /// The assistant's words.
    Assistant,
    /// The model's reasoning.
    Thinking,
    /// A tool call.
    ToolCall,
    /// A tool's result.
    ToolResult,
    /// A tool's result that reports a failure.
    ToolError,
    /// What the runtime or the log says of itself.
    System,
    /// A compaction.
    Compaction,
    /// A session, binding, obligation, plan, action, choice or decision record of the
    /// canonical log.
    Record,
    /// What the agent writes for itself: progress, file snapshots, token counts.
    Bookkeeping,
}

impl EventRole {
    /// The role an event of `kind` is shown in.
    pub fn of(kind: &ctxlens_core::model::EventKind) -> EventRole {
        use ctxlens_core::model::{EventKind, Role};
        match kind {
            EventKind::Message { role, .. } => match role {
                Role::User => EventRole::User,
                Role::Assistant => EventRole::Assistant,
                Role::System | Role::Developer => EventRole::System,
                Role::Thinking => EventRole::Thinking,
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
            EventKind::Bookkeeping(ctxlens_core::model::Bookkeeping::Microcompact) => {
                EventRole::System
            }
            EventKind::Bookkeeping(ctxlens_core::model::Bookkeeping::CompactSummary)
            | EventKind::Other { .. } => EventRole::Bookkeeping,
        }
    }

    /// Read as a conversation, the event is one line until unfolded: what the agent
    /// thought, and a tool's call and output, are long and seldom read whole.
    pub fn folds(self) -> bool {
        matches!(
            self,
            EventRole::Thinking
                | EventRole::ToolCall
                | EventRole::ToolResult
                | EventRole::ToolError
        )
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

    /// The help overlay is 76 columns wide: each key and each word fits one line of it,
    /// so the overlay knows how many lines it has (and says when it scrolls).
    #[test]
    fn every_key_and_word_fits_the_help_overlays_line() {
        for (word, meaning) in GLOSSARY {
            let line = format!(" {word}: {meaning}");
            assert!(line.chars().count() <= 74, "{line}");
        }
        for binding in crate::tui::keys::BINDINGS {
            let scope = match binding.scope {
                crate::tui::keys::Scope::Pending => " (pending compaction)",
                crate::tui::keys::Scope::Folder => " (folder)",
                _ => "",
            };
            let line = format!(" {:<6}{}{scope}", binding.keys, binding.help);
            assert!(line.chars().count() <= 74, "{line}");
        }
    }

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
            reports_failure: false,
            background: None,
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
