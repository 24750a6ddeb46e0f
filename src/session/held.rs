//! The hooks' binding ledger beside a transcript: the identifiers each pre-compact hook
//! saw at stake (hints for the analysis), and the compaction a hook holds right now, as
//! a proposed compaction at the end of the session.

use ctxlens_core::model::{Bookkeeping, CompactionEvent, Session, Timestamp};
use std::io;
use std::path::Path;

/// The binding ledger of a Claude Code or Codex transcript, if its hooks wrote one.
pub(super) fn attach_ledger(session: &mut Session, path: &Path) -> io::Result<()> {
    use crate::store::ledger::{read, Entry};
    if session.format == ctxlens_core::model::Format::Canonical {
        return Ok(());
    }
    let entries = read(path)?;
    session.ledger = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::PreCompact {
                id, to_byte, tokens, ..
            } => Some(ctxlens_core::model::LedgerHint {
                id: id.clone(),
                before: *to_byte,
                refused: entries.iter().any(|e| {
                    matches!(e, Entry::Released { id: r, verdict: Some(ctxlens_core::model::Verdict::Refuse), .. } if r == id)
                }),
                tokens: tokens
                    .iter()
                    .map(|t| (t.token.clone(), t.why.clone()))
                    .collect(),
            }),
            Entry::PostCompact { .. } | Entry::Released { .. } => None,
        })
        .collect();
    let latest = entries
        .iter()
        .rev()
        .find(|e| matches!(e, Entry::PreCompact { .. }));
    if let Some(Entry::PreCompact {
        id,
        ts,
        trigger,
        handle,
        to_byte,
        hold_until: Some(until),
        ..
    }) = latest
    {
        let released = entries
            .iter()
            .any(|e| matches!(e, Entry::Released { id: r, .. } if r == id));
        if !released {
            hold(session, id, ts, trigger, handle, *to_byte, until);
        }
    }
    Ok(())
}

/// A compaction a pre-compact hook holds for an operator, as a proposed compaction at
/// the end of the session, so every view and command treats it as pending. Not when
/// it has landed (a boundary after the hook's bytes) or the hold is over.
fn hold(
    session: &mut Session,
    id: &str,
    ts: &str,
    trigger: &Option<String>,
    handle: &Option<String>,
    to_byte: u64,
    until: &str,
) {
    use ctxlens_core::model::{CompactionExtra, Event, EventKind, Held, Phase, RangeSpec};
    let compaction = |e: &Event| matches!(e.kind, EventKind::Compaction { .. });
    let landed = session
        .events
        .iter()
        .any(|e| compaction(e) && e.offset >= to_byte);
    let over = crate::clock::parse(until).is_some_and(|until| until < std::time::SystemTime::now());
    if landed || over {
        return;
    }
    // The region: what follows the latest compaction and its summary record.
    let after = session
        .events
        .iter()
        .rposition(compaction)
        .map_or(0, |i| i + 1);
    let first = session
        .events_in(after..session.events.len())
        .find(|e| e.kind != EventKind::Bookkeeping(Bookkeeping::CompactSummary));
    let range = match (first, session.events.last()) {
        (Some(first), Some(last)) => RangeSpec::Seqs {
            from: first.seq,
            to: last.seq,
        },
        _ => RangeSpec::Missing,
    };
    let last = session.events.last();
    let event = Event {
        seq: last.map_or(1, |e| e.seq.saturating_add(1)),
        line: last.map_or(1, |e| e.line + 1),
        offset: to_byte,
        span: 0,
        part: 0,
        ts: Timestamp::parse(ts),
        kind: EventKind::Compaction(Box::new(CompactionEvent {
            id: id.to_owned(),
            phase: Some(Phase::Proposed),
            range,
            summary: None,
            input: Some("log".into()),
            region_elsewhere: false,
            extra: Box::new(CompactionExtra {
                trigger: trigger.clone(),
                held: Some(Held {
                    until: Some(until.to_owned()),
                    handle: handle.clone(),
                }),
                ..CompactionExtra::default()
            }),
        })),
    };
    session.events.push(event);
}
