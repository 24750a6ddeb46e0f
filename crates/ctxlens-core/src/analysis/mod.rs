//! Pure functions of a parsed session: token extraction, the five signals, the gate.
//! Nothing here reads files or talks to a terminal.

pub mod at_risk;
pub(crate) mod compaction;
pub mod contract;
pub(crate) mod extract;
pub(crate) mod finding;
pub(crate) mod gate;
pub(crate) mod held;
pub(crate) mod incremental;
pub(crate) mod inference;
pub(crate) mod kept;
mod passes;
pub(crate) mod paths;
pub(crate) mod report;
mod resolution;
pub(crate) mod signals;
pub(crate) mod standing;
pub(crate) mod state;

pub use compaction::{analyze_compaction, CompactionAnalysis, DroppedToken, RegionToken};
pub use extract::{classify, extract, extract_directories, is_whole_word, word_count};
pub use finding::{
    harm_cost, short_count, short_id, ActualStep, Cost, ExpectedStep, Finding, FindingKind,
    Severity,
};
pub use gate::is_override;
pub use inference::Reuse;
pub use kept::{basename, basename_counts, summary_words, text_key};
pub use report::{
    analyze, report, Analyzer, CompactionReport, Degraded, Options, Report, SessionAnalysis,
};
pub use signals::continuation::{tripwire, ProposedAction};
pub use signals::regenerated::first_seen;
pub use state::{target_text, ChoiceState, StateAt};
