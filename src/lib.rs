//! ctxlens: find what each context compaction of an LLM agent destroys, and gate it.

pub mod analysis;
pub mod cli;
pub mod ingest;
pub mod model;
pub mod sanitize;
pub mod store;
pub mod tui;
