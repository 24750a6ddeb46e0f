//! Which decision stands for a compaction, and which later ones conflict with it.

use crate::model::{Decision, Event, EventKind};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecisionSource {
    Log,
    Sidecar,
}

/// Every decision of a session by compaction id, the standing one first: `decision`
/// events of the log stand ahead of sidecar lines, and within each the earliest stands.
/// A compaction can be known by two ids (the one it landed with, and the one its hook
/// held it as, docs/agents.md): the decisions of both count, the one recorded first standing.
pub(crate) struct DecisionIndex<'a> {
    /// Each decision with its place in the order recorded.
    by_id: HashMap<&'a str, Vec<(usize, DecisionSource, &'a Decision)>>,
}

impl<'a> DecisionIndex<'a> {
    /// The index of the decisions among `events` (in log order) and the sidecar's.
    pub(crate) fn of(events: impl Iterator<Item = &'a Event>, sidecar: &'a [Decision]) -> Self {
        let mut by_id: HashMap<&str, Vec<_>> = HashMap::new();
        let log = events.filter_map(|event| match &event.kind {
            EventKind::Decision(d) => Some((DecisionSource::Log, &**d)),
            _ => None,
        });
        let lines = sidecar.iter().map(|d| (DecisionSource::Sidecar, d));
        for (order, (source, d)) in log.chain(lines).enumerate() {
            by_id
                .entry(&d.compaction)
                .or_default()
                .push((order, source, d));
        }
        DecisionIndex { by_id }
    }

    /// The decisions recorded under any of `ids`, in the order recorded.
    fn all(&self, ids: &[&str]) -> Vec<(DecisionSource, &'a Decision)> {
        let mut all: Vec<_> = ids
            .iter()
            .filter_map(|id| self.by_id.get(id))
            .flatten()
            .copied()
            .collect();
        all.sort_by_key(|&(order, _, _)| order);
        all.dedup_by_key(|&mut (order, _, _)| order);
        all.into_iter().map(|(_, source, d)| (source, d)).collect()
    }

    /// The standing decision of the compaction known by `ids`.
    pub(crate) fn standing(&self, ids: &[&str]) -> Option<&'a Decision> {
        self.all(ids).first().map(|(_, d)| *d)
    }

    /// Decisions written after the standing one that do not simply repeat it: a second
    /// sidecar line (a writer that ignored the lock), or a line that contradicts it.
    pub(crate) fn conflicts(&self, ids: &[&str]) -> Vec<&'a Decision> {
        let all = self.all(ids);
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
