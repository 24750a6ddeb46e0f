//! ctxlens: find what each context compaction of an LLM agent destroys, and gate it.

#![warn(unreachable_pub, missing_docs)]

pub mod cli;
pub mod clock;
pub(crate) mod export;
pub mod ingest;
pub mod legend;
pub mod sanitize;
pub mod session;
pub mod store;
pub mod tui;
