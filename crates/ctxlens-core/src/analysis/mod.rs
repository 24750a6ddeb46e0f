//! Pure functions of a parsed session: token extraction, the five signals, the gate.
//! Nothing here reads files or talks to a terminal.

pub mod at_risk;
pub mod compaction;
pub mod contract;
pub mod extract;
pub mod finding;
pub mod gate;
pub(crate) mod held;
pub(crate) mod incremental;
pub mod inference;
pub mod kept;
mod passes;
pub(crate) mod paths;
pub mod report;
mod resolution;
pub mod signals;
pub(crate) mod standing;
pub mod state;

pub use finding::{harm_cost, short_count, Cost, Finding, FindingKind, Severity};
pub use report::{analyze, report, Degraded, Options, Report, SessionAnalysis};
