//! ctxlens: find what each context compaction of an LLM agent destroys, and gate it.

pub mod cli;
pub mod ingest;
pub mod sanitize;
pub mod store;
pub mod tui;

/// The session model and the analysis live in the `ctxlens-core` crate, which the
/// compiler keeps free of I/O; they are re-exported here under their old paths.
pub use ctxlens_core::{analysis, model, threads};
