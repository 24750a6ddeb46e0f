//! Events, sessions and token ids. No I/O here.

pub mod event;
pub mod session;
pub mod token;

pub use event::{
    Decision, Event, EventKind, ObligationStatus, Phase, PlanStep, RangeSpec, Summary, TextDigest,
    Verdict,
};
pub use session::{CompactionInfo, Format, LedgerHint, Malformed, Session};
pub use token::{TokenClass, TokenId, TokenInfo, TokenTable};
