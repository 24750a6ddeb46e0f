//! Pure functions of a parsed session: token extraction, the five signals, the gate.
//! Nothing here reads files or talks to a terminal.

pub mod at_risk;
pub mod compaction;
pub mod continuation;
pub mod contract;
mod coverage;
pub mod entities;
pub mod extract;
pub mod finding;
pub mod gate;
pub mod held;
pub mod incremental;
pub mod inference;
pub mod instructions;
pub mod kept;
mod passes;
pub mod paths;
pub mod regenerated;
pub mod report;
mod resolution;
pub mod standing;
pub mod state;

pub use finding::{Finding, FindingKind, Severity};
pub use report::{analyze, report, Degraded, Options, Report, SessionAnalysis};
