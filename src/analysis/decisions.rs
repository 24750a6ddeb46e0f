//! Which decision stands for a compaction, and which later ones conflict with it.

use crate::model::{Decision, EventKind, Session};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionSource {
    Log,
    Sidecar,
}

/// Every decision for `compaction`, the standing one first: `decision` events of the log
/// stand ahead of sidecar lines, and within each the earliest stands.
pub fn decisions_for<'a>(
    session: &'a Session,
    sidecar: &'a [Decision],
    compaction: &str,
) -> Vec<(DecisionSource, &'a Decision)> {
    let from_log = session.events.iter().filter_map(|e| match &e.kind {
        EventKind::Decision(d) if d.compaction == compaction => Some((DecisionSource::Log, d)),
        _ => None,
    });
    let from_sidecar = sidecar
        .iter()
        .filter(|d| d.compaction == compaction)
        .map(|d| (DecisionSource::Sidecar, d));
    from_log.chain(from_sidecar).collect()
}

pub fn standing<'a>(
    session: &'a Session,
    sidecar: &'a [Decision],
    compaction: &str,
) -> Option<&'a Decision> {
    decisions_for(session, sidecar, compaction)
        .first()
        .map(|(_, d)| *d)
}

/// Decisions written after the standing one that do not simply repeat it: a second
/// sidecar line (a writer that ignored the lock), or a line that contradicts the log.
pub fn conflicts<'a>(
    session: &'a Session,
    sidecar: &'a [Decision],
    compaction: &str,
) -> Vec<&'a Decision> {
    let all = decisions_for(session, sidecar, compaction);
    let Some(&(_, first)) = all.first() else {
        return Vec::new();
    };
    let mut sidecar_seen = 0;
    let mut out = Vec::new();
    for (index, &(source, decision)) in all.iter().enumerate() {
        if source == DecisionSource::Sidecar {
            sidecar_seen += 1;
        }
        if index == 0 {
            continue;
        }
        let second_sidecar_line = source == DecisionSource::Sidecar && sidecar_seen > 1;
        if second_sidecar_line || decision.verdict != first.verdict {
            out.push(decision);
        }
    }
    out
}
