//! The model of a session and its analysis: what a log says, and what each compaction
//! did to it. Pure: this crate depends on no terminal, file-system or process crate, so
//! the compiler keeps reading, writing and drawing out of it.

pub mod analysis;
pub mod model;
pub mod parse;
pub mod threads;
