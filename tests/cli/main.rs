//! The commands, the analysis and the docs, through the library and the binary: one
//! test binary (each file a module), so the crate links once.

#[path = "../common/mod.rs"]
mod common;

mod architecture;
mod commands;
mod core_units;
mod export;
mod extractor_props;
mod harm;
mod hostile_input;
mod hostile_props;
mod incremental;
mod labelled_set;
#[cfg(feature = "opencode")]
mod opencode_hostile;
mod readme;
mod remedies;
mod samples;
mod signals;
mod transcript_rules;
mod transcripts;
