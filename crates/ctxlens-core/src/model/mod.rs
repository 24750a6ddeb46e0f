//! Events, sessions and token ids. No I/O here.

pub(crate) mod chunked;
pub(crate) mod declared;
pub(crate) mod event;
pub(crate) mod session;
pub(crate) mod timestamp;
pub(crate) mod token;

pub use chunked::Chunked;
pub use declared::DeclaredFound;
pub use event::{
    entity_key, Bookkeeping, CompactionEvent, CompactionExtra, Decision, EntityPolarity, Event,
    EventKind, Held, ObligationEvent, ObligationStatus, Phase, PlanStep, Polarity, RangeSpec,
    Retained, Role, Summary, TextDigest, ToolCallHead, Verdict,
};
pub use session::{
    CompactionInfo, ContextSource, Format, LedgerHint, Malformed, MalformedLines, Prompt, Session,
    SessionMeta, TokenUsage,
};
pub use timestamp::Timestamp;
pub use token::{
    BatchTokens, Intern, Joining, TokenClass, TokenId, TokenInfo, TokenTable, TOKEN_CAP,
};

/// A map whose keys are many and short (token texts and ids, a summary's words),
/// hashed by a faster hash than the standard one, seeded per process all the same.
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// A set of such keys.
pub type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
