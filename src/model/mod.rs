//! Events, sessions and token ids. No I/O here.

pub mod event;
pub mod session;
pub mod token;

pub use event::{
    CompactionExtra, Decision, Event, EventKind, ObligationStatus, Phase, PlanStep, RangeSpec,
    Summary, TextDigest, Verdict,
};
pub use session::{
    CompactionInfo, ContextSource, Format, LedgerHint, Malformed, Session, SessionMeta, TokenUsage,
};
pub use token::{TokenClass, TokenId, TokenInfo, TokenTable};
