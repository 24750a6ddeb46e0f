//! The signals beside the compaction's own (signals 1, 2, 4 and 5 live in
//! `compaction/`): each looks at one compaction, or at what follows it, and reports
//! findings.

use crate::analysis::finding::Finding;
use crate::analysis::gate::GateFlags;
use crate::analysis::state::StateAt;
use crate::model::{CompactionExtra, Session};
use std::ops::Range;

pub(crate) mod continuation;
pub(crate) mod coverage;
pub(crate) mod entities;
pub(crate) mod instructions;
pub(crate) mod regenerated;

/// What a region signal looks at: one compaction whose region is known, before anything
/// after it is read.
pub(crate) struct Region<'a> {
    /// The session.
    pub session: &'a Session,
    /// The compaction's id, as findings name it.
    pub id: &'a str,
    /// Indices into `session.events` of the region's events.
    pub events: &'a Range<usize>,
    /// The summary's text, when it can be read.
    pub summary: Option<&'a str>,
    /// What held before the compaction: bindings, obligations, choices.
    pub state: &'a StateAt,
    /// What the transcript says of the compaction besides its summary.
    pub extra: &'a CompactionExtra,
}

/// A signal that needs only the region and its summary: it pushes its findings and sets
/// the gate's flags it decides.
pub(crate) type RegionSignal = fn(&Region, &mut GateFlags, &mut Vec<Finding>);

/// The region signals every compaction runs, in this order. A new one is a function of
/// this shape added here: the caching around the analysis (`incremental.rs`) needs no
/// change, since a region part is computed once from the region and kept as a whole.
pub(crate) const REGION_SIGNALS: &[RegionSignal] = &[instructions::signal, entities::signal];
