//! The model of a session and its analysis: what a log says, and what each compaction
//! did to it. Pure: this crate depends on no terminal, file-system or process crate, so
//! the compiler keeps reading, writing and drawing out of it.
//!
//! Bytes go in through [`parse::parse`], which gives a [`model::Session`];
//! [`analysis::analyze`] gives each compaction's findings and the gate's verdict, with
//! the decisions recorded for it; [`analysis::report()`] makes the JSON report of
//! `audit --json`.
//!
//! ```
//! use ctxlens_core::model::Verdict;
//!
//! // A revision that cannot be re-fetched, an obligation that needs it, and a proposed
//! // compaction whose summary drops it.
//! let log = br#"{"type":"binding","seq":1,"token":"4f9a2c81d0e7","regenerable":false}
//! {"type":"obligation","seq":2,"id":"ob-rollback","name":"roll back","requires":["4f9a2c81d0e7"],"status":"open"}
//! {"type":"message","seq":3,"role":"assistant","text":"staging is at 4f9a2c81d0e7"}
//! {"type":"compaction","seq":4,"id":"k1","phase":"proposed","range":{"from":1,"to":3},"summary":"roll back if the tests fail"}
//! "#;
//! let session = ctxlens_core::parse::parse(log);
//! let analysis = ctxlens_core::analysis::analyze(&session, &[], false);
//! let k1 = analysis.compaction("k1").unwrap();
//! assert_eq!(analysis.verdict(k1), Verdict::Spill);
//! ```

// Pure code needs no `unsafe`: the compiler holds it (the workspace only denies it).
#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

pub mod analysis;
pub mod model;
pub mod parse;
pub mod search;
pub mod threads;
