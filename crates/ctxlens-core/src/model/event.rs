//! One event of a session, as the analysis needs it. Bulk text is not kept: a text
//! field is reduced to its word count and opaque tokens, and the raw line stays
//! addressable by its byte offset in the log.

use super::token::TokenId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use smallvec::SmallVec;

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub seq: u64,
    /// 1-based line number in the log.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Bytes the line takes in the log, newline included.
    pub span: u64,
    /// Which part of its line this event is: a transcript record can hold several
    /// blocks (text, tool calls, tool results), each an event. 0 in the canonical log.
    pub part: u32,
    pub ts: Option<Box<str>>,
    pub kind: EventKind,
}

/// What the analysis keeps of a text: its size in words and its opaque tokens.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextDigest {
    pub words: u64,
    /// Distinct tokens, in order of first occurrence (most texts hold a few: kept
    /// inline up to four).
    pub tokens: SmallVec<[TokenId; 4]>,
}

impl TextDigest {
    /// A digest of `ids`, each kept once in order of first occurrence.
    pub fn from_ids(words: u64, ids: impl IntoIterator<Item = TokenId>) -> TextDigest {
        // Most texts hold a few ids: those are compared with the ones kept so far (no
        // index built), and a longer list is indexed once, at its size. The ids are
        // kept in the vector they came in, then copied at their exact size for the
        // session's life (shrunk in place, the allocator's block stayed as large).
        const COMPARED: usize = 16;
        let mut ids: Vec<TokenId> = ids.into_iter().collect();
        if ids.len() <= COMPARED {
            let mut seen: SmallVec<[TokenId; COMPARED]> = SmallVec::new();
            ids.retain(|&id| {
                let first_time = !seen.contains(&id);
                if first_time {
                    seen.push(id);
                }
                first_time
            });
        } else {
            let mut seen: super::FastSet<TokenId> =
                super::FastSet::with_capacity_and_hasher(ids.len(), Default::default());
            ids.retain(|&id| seen.insert(id));
        }
        let tokens = SmallVec::from_slice(&ids);
        TextDigest { words, tokens }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObligationStatus {
    Open,
    Done,
    Dropped,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Proposed,
    Applied,
    Refused,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Proposed => "proposed",
            Phase::Applied => "applied",
            Phase::Refused => "refused",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approve,
    Spill,
    Refetch,
    Refuse,
    /// Do not apply this summary: re-propose one that ends with the contract (docs/remedies.md).
    /// Never returned by the gate.
    Preserve,
    /// Apply it, but the session is not to be trusted without review (docs/remedies.md).
    Degrade,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::Spill => "spill",
            Verdict::Refetch => "refetch",
            Verdict::Refuse => "refuse",
            Verdict::Preserve => "preserve",
            Verdict::Degrade => "degrade",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        match s {
            "approve" => Some(Verdict::Approve),
            "spill" => Some(Verdict::Spill),
            "refetch" => Some(Verdict::Refetch),
            "refuse" => Some(Verdict::Refuse),
            "preserve" => Some(Verdict::Preserve),
            "degrade" => Some(Verdict::Degrade),
            _ => None,
        }
    }
}

/// Where a `choice` puts an approach (docs/remedies.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polarity {
    Chosen,
    Rejected,
    Forbidden,
}

impl Polarity {
    pub fn as_str(self) -> &'static str {
        match self {
            Polarity::Chosen => "chosen",
            Polarity::Rejected => "rejected",
            Polarity::Forbidden => "forbidden",
        }
    }

    /// Chosen against rejected or forbidden, either way; rejected against forbidden is
    /// no flip.
    pub fn flips(self, other: Polarity) -> bool {
        (self == Polarity::Chosen) != (other == Polarity::Chosen)
    }
}

/// An entity as a summary's schema names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityPolarity {
    pub entity: String,
    pub polarity: Polarity,
}

/// Entities compare case-insensitively, runs of whitespace as one space.
pub fn entity_key(entity: &str) -> String {
    entity
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A compaction's `range` as written: the spec treats a missing or non-integer range as
/// a coverage gap, so the reader keeps what it found instead of rejecting the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeSpec {
    Missing,
    Invalid,
    Seqs { from: u64, to: u64 },
}

/// What real agents record about a compaction (docs/transcripts.md, docs/json-report.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactionExtra {
    /// `auto` or `manual`.
    pub trigger: Option<String>,
    pub pre_tokens: Option<u64>,
    pub post_tokens: Option<u64>,
    /// Tokens that reach the context after the compaction by another way than the
    /// summary: records the runtime attaches after the boundary (re-read files, todo
    /// list, plan, hook output) and the segment it keeps verbatim.
    pub carried: Vec<TokenId>,
    /// The summary's entity/polarity schema; `None` when the compaction has none.
    pub entities: Option<Vec<EntityPolarity>>,
    /// A compaction a pre-compact hook is holding for an operator: not in the
    /// transcript yet, its summary not written.
    pub held: Option<Held>,
}

/// What the hook that holds a compaction recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Held {
    /// Until when the hook waits (RFC 3339).
    pub until: Option<String>,
    /// The region, spilled before the hold.
    pub handle: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub text: String,
    pub digest: TextDigest,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    pub id: String,
    pub action: String,
    #[serde(default)]
    pub target: Value,
}

/// A decision, from a `decision` event of the log or a line of the sidecar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub compaction: String,
    pub verdict: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(rename = "override", default, skip_serializing_if = "Option::is_none")]
    pub is_override: Option<bool>,
    /// With `preserve`: the contract block the re-proposed summary ends with (docs/remedies.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
}

/// Who wrote a message. The usual roles are kept without an allocation: a session
/// holds hundreds of thousands of messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    System,
    Developer,
    Other(Box<str>),
}

impl Role {
    pub fn new(role: &str) -> Role {
        match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "system" => Role::System,
            "developer" => Role::Developer,
            other => Role::Other(other.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Developer => "developer",
            Role::Other(role) => role,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    Session {
        cwd: Option<Box<str>>,
        agent: Option<Box<str>>,
    },
    Message {
        role: Role,
        text: TextDigest,
    },
    ToolCall {
        call_id: Option<Box<str>>,
        name: Box<str>,
        input: TextDigest,
        /// Tokens of the arguments the tool acts on (commands, paths, URLs, ids), not of
        /// the content it writes.
        targets: Box<[TokenId]>,
    },
    ToolResult {
        call_id: Option<Box<str>>,
        is_error: bool,
        /// The output says the call failed: a non-zero exit, or a lookup that found
        /// nothing.
        says_failed: bool,
        /// The output says a lookup found nothing.
        says_not_found: bool,
        text: TextDigest,
    },
    Binding {
        token: TokenId,
        regenerable: bool,
        note: Option<String>,
    },
    Obligation {
        id: String,
        name: Option<String>,
        requires: Option<Vec<String>>,
        status: Option<ObligationStatus>,
    },
    Plan {
        steps: Vec<PlanStep>,
    },
    Action {
        step: Option<String>,
        name: String,
        target: Option<Box<Value>>,
    },
    Compaction {
        id: String,
        phase: Option<Phase>,
        range: RangeSpec,
        /// `None` when the summary cannot be read (encrypted by the runtime).
        summary: Option<Box<Summary>>,
        input: Option<Box<str>>,
        /// The region lies in an earlier file (a session continued from a compacted one).
        region_elsewhere: bool,
        /// What a transcript says of the compaction besides its summary.
        extra: Box<CompactionExtra>,
    },
    Decision(Box<Decision>),
    /// The agent chose, rejected or was forbidden an approach (docs/remedies.md).
    Choice {
        entity: String,
        polarity: Polarity,
        note: Option<String>,
    },
    /// A type this version does not know: kept, shown, never an error.
    Other {
        type_name: String,
    },
}

impl EventKind {
    /// Replaces every token id the event holds by `to(id)` (a record parsed on its own
    /// thread holds ids of its own table until it joins the session).
    pub fn remap_tokens(&mut self, to: impl Fn(TokenId) -> TokenId) {
        let digest = |d: &mut TextDigest| d.tokens.iter_mut().for_each(|id| *id = to(*id));
        match self {
            EventKind::Message { text, .. } | EventKind::ToolResult { text, .. } => digest(text),
            EventKind::ToolCall { input, targets, .. } => {
                digest(input);
                targets.iter_mut().for_each(|id| *id = to(*id));
            }
            EventKind::Binding { token, .. } => *token = to(*token),
            EventKind::Compaction { summary, extra, .. } => {
                if let Some(summary) = summary {
                    digest(&mut summary.digest);
                }
                extra.carried.iter_mut().for_each(|id| *id = to(*id));
            }
            EventKind::Session { .. }
            | EventKind::Obligation { .. }
            | EventKind::Plan { .. }
            | EventKind::Action { .. }
            | EventKind::Decision(_)
            | EventKind::Choice { .. }
            | EventKind::Other { .. } => {}
        }
    }

    pub fn type_name(&self) -> &str {
        match self {
            EventKind::Session { .. } => "session",
            EventKind::Message { .. } => "message",
            EventKind::ToolCall { .. } => "tool_call",
            EventKind::ToolResult { .. } => "tool_result",
            EventKind::Binding { .. } => "binding",
            EventKind::Obligation { .. } => "obligation",
            EventKind::Plan { .. } => "plan",
            EventKind::Action { .. } => "action",
            EventKind::Compaction { .. } => "compaction",
            EventKind::Decision(_) => "decision",
            EventKind::Choice { .. } => "choice",
            EventKind::Other { type_name } => type_name,
        }
    }

    /// The digest this event contributes to a region's text (docs/log-format.md), if any.
    pub fn region_text(&self) -> Option<&TextDigest> {
        match self {
            EventKind::Message { text, .. } => Some(text),
            EventKind::ToolCall { input, .. } => Some(input),
            EventKind::ToolResult { text, .. } => Some(text),
            EventKind::Compaction {
                summary: Some(summary),
                ..
            } => Some(&summary.digest),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session holds an event per record, hundreds of thousands in a large log: what
    /// is rare or large (compactions, decisions, action targets) lives behind a box.
    #[test]
    fn an_event_stays_small() {
        println!(
            "Event {} B, EventKind {} B, TextDigest {} B",
            size_of::<Event>(),
            size_of::<EventKind>(),
            size_of::<TextDigest>()
        );
        assert!(size_of::<TextDigest>() <= 32);
        assert!(size_of::<EventKind>() <= 88);
        assert!(size_of::<Event>() <= 144);
    }

    /// Each id once, in the order it first comes, in short lists and past the length
    /// where the ids seen are indexed.
    #[test]
    fn a_digest_keeps_each_token_once_in_order() {
        for distinct in [0u32, 1, 3, 15, 16, 17, 40] {
            let ids: Vec<TokenId> = (0..3 * distinct)
                .map(|i| TokenId((i * 7 + i / 3) % distinct.max(1)))
                .collect();
            let mut expected: Vec<TokenId> = Vec::new();
            for id in &ids {
                if !expected.contains(id) {
                    expected.push(*id);
                }
            }
            let digest = TextDigest::from_ids(0, ids);
            assert_eq!(digest.tokens.as_slice(), expected.as_slice(), "{distinct}");
        }
    }
}
