//! The signals beside the compaction's own (signals 1, 2, 4 and 5 live in
//! `compaction/`): each looks at one compaction, or at what follows it, and reports
//! findings.

pub mod continuation;
pub(crate) mod coverage;
pub mod entities;
pub mod instructions;
pub mod regenerated;
