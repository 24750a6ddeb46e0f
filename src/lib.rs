//! ctxlens: find what each context compaction of an LLM agent destroys, and gate it.

pub mod analysis;
pub mod model;
pub mod ingest;
pub mod store;
pub mod sanitize;
pub mod cli;
