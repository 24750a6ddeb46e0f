//! One event of a session, as the analysis needs it. Bulk text is not kept: a text
//! field is reduced to its word count and opaque tokens, and the raw line stays
//! addressable by its byte offset in the log.

use super::timestamp::Timestamp;
use super::token::TokenId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use smallvec::SmallVec;

/// One event of a session: where it is in the log, and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's sequence number: the log's `seq`, or the order a transcript's
    /// reader gave it.
    pub seq: u64,
    /// 1-based line number in the log.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Bytes the line takes in the log, newline included (a line is capped far below
    /// 4 GiB: a longer one is no event).
    pub span: u32,
    /// Which part of its line this event is: a transcript record can hold several
    /// blocks (text, tool calls, tool results), each an event. 0 in the canonical log.
    pub part: u32,
    /// When, to the second: the record's RFC 3339 time, if it has one that parses.
    pub ts: Option<Timestamp>,
    /// What the event is and what the analysis keeps of it.
    pub kind: EventKind,
}

impl Event {
    /// The byte just past the event's line.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(u64::from(self.span))
    }
}

/// What the analysis keeps of a text: its size in words and its opaque tokens.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextDigest {
    /// Words in the text, as the analysis counts them.
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
        // A full table's unrecorded texts are no tokens of the digest.
        let mut ids: Vec<TokenId> = ids
            .into_iter()
            .filter(|&id| id != TokenId::UNRECORDED)
            .collect();
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

/// Where an obligation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObligationStatus {
    /// Still to be met: its bindings must survive a compaction.
    Open,
    /// Met.
    Done,
    /// Given up on purpose.
    Dropped,
}

/// Where a compaction stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Not applied yet: the gate's verdict decides.
    Proposed,
    /// Applied: the summary replaced the region.
    Applied,
    /// Refused: the region stays.
    Refused,
}

impl Phase {
    /// The phase as the log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Proposed => "proposed",
            Phase::Applied => "applied",
            Phase::Refused => "refused",
        }
    }

    /// The phase as an operator reads it, with the standing decision's verdict: a
    /// runtime that follows `preserve` writes the summary refused, to re-propose it.
    pub fn shown(self, decided: Option<Verdict>) -> &'static str {
        match (self, decided) {
            (Phase::Refused, Some(Verdict::Preserve)) => "preserved (to be re-proposed)",
            _ => self.as_str(),
        }
    }
}

/// What to do with a compaction: the gate's answer, or an operator's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Apply the summary as it is.
    Approve,
    /// Apply it, after writing the region somewhere it can be read back.
    Spill,
    /// Apply it: what it drops can be fetched again.
    Refetch,
    /// Do not apply it.
    Refuse,
    /// Do not apply this summary: re-propose one that ends with the contract (docs/remedies.md).
    /// Never returned by the gate.
    Preserve,
    /// Apply it, but the session is not to be trusted without review (docs/remedies.md).
    Degrade,
}

impl Verdict {
    /// The verdict as the log and the JSON report write it.
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

    /// The verdict `s` names, if any.
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
    /// The approach taken.
    Chosen,
    /// An approach tried or weighed and turned down.
    Rejected,
    /// An approach the user ruled out.
    Forbidden,
}

impl Polarity {
    /// The polarity as the log writes it.
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
    /// The approach, as written.
    pub entity: String,
    /// Where the summary puts it.
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
    /// No `range` field.
    Missing,
    /// A `range` that is not two integers.
    Invalid,
    /// The region: events with `from <= seq <= to`.
    Seqs {
        /// The first seq of the region.
        from: u64,
        /// The last seq of the region.
        to: u64,
    },
}

/// What real agents record about a compaction (docs/transcripts.md, docs/json-report.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactionExtra {
    /// `auto` or `manual`.
    pub trigger: Option<String>,
    /// The context's size in model tokens before the compaction, as the agent counted.
    pub pre_tokens: Option<u64>,
    /// The context's size in model tokens after it.
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
    /// With an encrypted summary (a Codex remote compaction): the messages the runtime
    /// kept verbatim beside it, what the region's tokens are checked against.
    pub retained: Option<Retained>,
}

/// The messages a runtime kept beside a summary it encrypted.
#[derive(Debug, Clone, PartialEq)]
pub struct Retained {
    /// How many.
    pub messages: usize,
    /// Their text, one after another.
    pub text: Summary,
}

/// What the hook that holds a compaction recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Held {
    /// Until when the hook waits (RFC 3339).
    pub until: Option<String>,
    /// The region, spilled before the hold.
    pub handle: Option<String>,
}

/// A compaction's summary: kept whole (it is shown and searched), with its digest.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The summary as written.
    pub text: String,
    /// Its words and tokens.
    pub digest: TextDigest,
}

/// One step of a plan: what the agent means to do next, and to what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// The step's id, unique within its plan.
    pub id: String,
    /// The action's name, compared with later `action` events.
    pub action: String,
    /// What the action is done to; `null` when the step names nothing.
    #[serde(default)]
    pub target: Value,
}

/// A decision, from a `decision` event of the log or a line of the sidecar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The id of the compaction decided on.
    pub compaction: String,
    /// What was decided.
    pub verdict: Verdict,
    /// Who decided: an operator's name, or the tool that recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// When (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// With `spill`: where the region was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Why, in the operator's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The decision differs from the gate's verdict.
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
    /// The user (also tool results, in some transcripts).
    User,
    /// The model.
    Assistant,
    /// The system prompt or the runtime.
    System,
    /// Codex's developer instructions.
    Developer,
    /// The model's reasoning, shown apart from what it says (Claude Code's thinking
    /// blocks, Codex's reasoning items, the other agents' thoughts).
    Thinking,
    /// Any other role, as written (boxed twice: a rare role keeps the usual ones small).
    Other(Box<String>),
}

impl Role {
    /// The role `role` names.
    pub fn new(role: &str) -> Role {
        match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "system" => Role::System,
            "developer" => Role::Developer,
            "thinking" | "reasoning" => Role::Thinking,
            other => Role::Other(Box::new(other.to_owned())),
        }
    }

    /// The role as written.
    pub fn as_str(&self) -> &str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Developer => "developer",
            Role::Thinking => "thinking",
            Role::Other(role) => role,
        }
    }
}

/// What a tool call names besides its arguments, boxed: a session holds many calls, and
/// the event stays as small as a message.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallHead {
    /// Pairs the call with its result.
    pub call_id: Option<Box<str>>,
    /// The tool's name.
    pub name: Box<str>,
    /// The background commands whose output this call reads (their ids, as their
    /// [`EventKind::ToolResult::background`] names them): what it finds there is their
    /// outcome.
    pub polls: Box<[TokenId]>,
}

/// An `obligation` event's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ObligationEvent {
    /// Unique per obligation; a later event with the same id updates it.
    pub id: String,
    /// What is to be done.
    pub name: Option<String>,
    /// The tokens it needs; `None` when the field is absent.
    pub requires: Option<Vec<String>>,
    /// Where it stands; `None` when the field is absent.
    pub status: Option<ObligationStatus>,
}

/// A `compaction` event's fields, boxed: a session holds few compactions.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionEvent {
    /// Unique per compaction; later events with the same id update its phase.
    pub id: String,
    /// Where it stands; `None` when the field is absent or unknown.
    pub phase: Option<Phase>,
    /// The region, as written.
    pub range: RangeSpec,
    /// `None` when the summary cannot be read (encrypted by the runtime).
    pub summary: Option<Box<Summary>>,
    /// The prompt the summariser was given, when the log records it.
    pub input: Option<Box<str>>,
    /// The region lies in an earlier file (a session continued from a compacted one).
    pub region_elsewhere: bool,
    /// What a transcript says of the compaction besides its summary.
    pub extra: Box<CompactionExtra>,
}

/// Records of an agent's bookkeeping that the layers above tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bookkeeping {
    /// Claude Code's summary record after a `compact_boundary` (its text is the
    /// compaction's summary).
    CompactSummary,
    /// Claude Code's `microcompact_boundary`: old tool results cleared, no summary.
    Microcompact,
}

impl Bookkeeping {
    /// The name the timeline and the export show.
    pub fn type_name(self) -> &'static str {
        match self {
            Bookkeeping::CompactSummary => "compact summary",
            Bookkeeping::Microcompact => "microcompact_boundary",
        }
    }
}

/// What an event is, with what the analysis keeps of each type (docs/log-format.md).
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// Where and by what the session runs.
    Session {
        /// The working directory.
        cwd: Option<Box<str>>,
        /// The agent's name and version.
        agent: Option<Box<str>>,
    },
    /// A message of the conversation.
    Message {
        /// Who wrote it.
        role: Role,
        /// Its words and tokens.
        text: TextDigest,
    },
    /// A tool the agent called.
    ToolCall {
        /// The tool and the call's id.
        head: Box<ToolCallHead>,
        /// The arguments' words and tokens.
        input: TextDigest,
        /// Tokens of the arguments the tool acts on (commands, paths, URLs, ids), not of
        /// the content it writes.
        targets: Box<[TokenId]>,
    },
    /// What a tool call gave back.
    ToolResult {
        /// The call this answers.
        call_id: Option<Box<str>>,
        /// The runtime marked the result an error.
        is_error: bool,
        /// The output says the call failed: a non-zero exit, or a lookup that found
        /// nothing.
        says_failed: bool,
        /// The output says a lookup found nothing.
        says_not_found: bool,
        /// The output reports a failure in words (`Connection timed out`, `No such
        /// container`, a traceback): what a read of a background command's output
        /// shows when that command failed.
        reports_failure: bool,
        /// The call started a command in the background with this id; its outcome
        /// comes later, through a call that polls it.
        background: Option<TokenId>,
        /// The output's words and tokens.
        text: TextDigest,
    },
    /// A token declared as a value a later step needs verbatim.
    Binding {
        /// The token.
        token: TokenId,
        /// It can be fetched again if lost.
        regenerable: bool,
        /// What it is, in the writer's words.
        note: Option<String>,
    },
    /// Something the agent still has to do, and the tokens it needs.
    Obligation(Box<ObligationEvent>),
    /// The agent's plan: the steps it means to take next.
    Plan {
        /// The steps, in order.
        steps: Vec<PlanStep>,
    },
    /// A step the agent took.
    Action {
        /// The plan step it carries out, if it names one.
        step: Option<String>,
        /// The action's name.
        name: String,
        /// What it was done to.
        target: Option<Box<Value>>,
    },
    /// A compaction: a region of events replaced, or to be replaced, by a summary.
    Compaction(Box<CompactionEvent>),
    /// A decision recorded in the log.
    Decision(Box<Decision>),
    /// The agent chose, rejected or was forbidden an approach (docs/remedies.md).
    Choice {
        /// The approach.
        entity: String,
        /// Chosen, rejected or forbidden.
        polarity: Polarity,
        /// Why, in the writer's words.
        note: Option<String>,
    },
    /// A record of the agent's own bookkeeping that layers tell apart.
    Bookkeeping(Bookkeeping),
    /// A type this version does not know: kept, shown, never an error.
    Other {
        /// The type as written.
        type_name: String,
    },
}

impl EventKind {
    /// A message with no words and no token (an empty text block, a reasoning item
    /// whose summary is empty): a reader wants no row of it.
    pub fn is_wordless_message(&self) -> bool {
        matches!(self, EventKind::Message { text, .. } if text.words == 0 && text.tokens.is_empty())
    }

    /// Replaces every token id the event holds by `to(id)` (a record parsed on its own
    /// thread holds ids of its own table until it joins the session).
    /// An id the session's table did not record ([`TokenId::UNRECORDED`]) is dropped.
    pub fn remap_tokens(&mut self, to: impl Fn(TokenId) -> TokenId) {
        let recorded = |id: &TokenId| *id != TokenId::UNRECORDED;
        let digest = |d: &mut TextDigest| {
            d.tokens.iter_mut().for_each(|id| *id = to(*id));
            d.tokens.retain(|id| recorded(id));
        };
        match self {
            EventKind::Message { text, .. } => digest(text),
            EventKind::ToolResult {
                text, background, ..
            } => {
                digest(text);
                *background = background.map(&to).filter(recorded);
            }
            EventKind::ToolCall {
                head,
                input,
                targets,
            } => {
                digest(input);
                if !head.polls.is_empty() {
                    head.polls.iter_mut().for_each(|id| *id = to(*id));
                    head.polls = head.polls.iter().copied().filter(recorded).collect();
                }
                targets.iter_mut().for_each(|id| *id = to(*id));
                if !targets.iter().all(recorded) {
                    *targets = targets.iter().copied().filter(recorded).collect();
                }
            }
            EventKind::Binding { token, .. } => *token = to(*token),
            EventKind::Compaction(compaction) => {
                if let Some(summary) = &mut compaction.summary {
                    digest(&mut summary.digest);
                }
                let carried = &mut compaction.extra.carried;
                carried.iter_mut().for_each(|id| *id = to(*id));
                carried.retain(|id| recorded(id));
            }
            EventKind::Session { .. }
            | EventKind::Obligation { .. }
            | EventKind::Plan { .. }
            | EventKind::Action { .. }
            | EventKind::Decision(_)
            | EventKind::Choice { .. }
            | EventKind::Bookkeeping(_)
            | EventKind::Other { .. } => {}
        }
    }

    /// The event's type as the log writes it.
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
            EventKind::Bookkeeping(record) => record.type_name(),
            EventKind::Other { type_name } => type_name,
        }
    }

    /// The digest this event contributes to a region's text (docs/log-format.md), if any.
    pub fn region_text(&self) -> Option<&TextDigest> {
        match self {
            EventKind::Message { text, .. } => Some(text),
            EventKind::ToolCall { input, .. } => Some(input),
            EventKind::ToolResult { text, .. } => Some(text),
            EventKind::Compaction(compaction) => {
                compaction.summary.as_ref().map(|summary| &summary.digest)
            }
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
        assert!(size_of::<EventKind>() <= 64);
        assert!(size_of::<Event>() <= 104);
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
