//! Which decision stands for a compaction, and which later ones conflict with it.

use crate::model::{Decision, Event, EventKind, Session};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionSource {
    Log,
    Sidecar,
}

/// Every decision of a session by compaction id, the standing one first: `decision`
/// events of the log stand ahead of sidecar lines, and within each the earliest stands.
pub struct DecisionIndex<'a> {
    by_id: HashMap<&'a str, Vec<(DecisionSource, &'a Decision)>>,
}

impl<'a> DecisionIndex<'a> {
    pub fn new(session: &'a Session, sidecar: &'a [Decision]) -> Self {
        DecisionIndex::of(session.events.iter(), sidecar)
    }

    /// The index of the decisions among `events` (in log order) and the sidecar's.
    pub fn of(events: impl Iterator<Item = &'a Event>, sidecar: &'a [Decision]) -> Self {
        let mut by_id: HashMap<&str, Vec<_>> = HashMap::new();
        for event in events {
            if let EventKind::Decision(d) = &event.kind {
                by_id
                    .entry(&d.compaction)
                    .or_default()
                    .push((DecisionSource::Log, &**d));
            }
        }
        for d in sidecar {
            by_id
                .entry(&d.compaction)
                .or_default()
                .push((DecisionSource::Sidecar, d));
        }
        DecisionIndex { by_id }
    }

    fn all(&self, compaction: &str) -> &[(DecisionSource, &'a Decision)] {
        self.by_id.get(compaction).map_or(&[], Vec::as_slice)
    }

    pub fn standing(&self, compaction: &str) -> Option<&'a Decision> {
        self.all(compaction).first().map(|(_, d)| *d)
    }

    /// Decisions written after the standing one that do not simply repeat it: a second
    /// sidecar line (a writer that ignored the lock), or a line that contradicts it.
    pub fn conflicts(&self, compaction: &str) -> Vec<&'a Decision> {
        let all = self.all(compaction);
        let Some(&(_, first)) = all.first() else {
            return Vec::new();
        };
        let mut sidecar_lines = 0;
        let mut out = Vec::new();
        for (index, &(source, decision)) in all.iter().enumerate() {
            if source == DecisionSource::Sidecar {
                sidecar_lines += 1;
            }
            let second_sidecar_line = source == DecisionSource::Sidecar && sidecar_lines > 1;
            if index > 0 && (second_sidecar_line || decision.verdict != first.verdict) {
                out.push(decision);
            }
        }
        out
    }
}
