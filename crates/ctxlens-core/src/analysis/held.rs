//! Which held compaction a landed one is (docs/agents.md). A pre-compact hook announces a
//! compaction as `pre-compact-N` before the agent writes anything; the agent then writes
//! its own record under its own id. The two are linked by position: the hook read the
//! transcript up to a byte, and the compaction the agent writes next is the one it held.

use crate::model::{CompactionInfo, EventKind, Session};

/// For each of `infos` (in event order), the held id it landed from, if any: the
/// newest hook entry between the previous landed compaction and this one, unless that
/// hook refused (the agent did not compact then). A compaction the agent writes without
/// a hook of its own before it links to nothing.
pub(crate) fn held_ids(session: &Session, infos: &[CompactionInfo]) -> Vec<Option<String>> {
    let mut previous: Option<u64> = None;
    infos
        .iter()
        .map(|info| {
            let event = session.events.get(info.def)?;
            let held = matches!(&event.kind, EventKind::Compaction(c) if c.extra.held.is_some());
            if held {
                return None;
            }
            let at = event.offset;
            let after = previous.replace(at);
            session
                .ledger
                .iter()
                .filter(|h| h.before <= at && after.is_none_or(|p| h.before > p))
                .max_by_key(|h| h.before)
                .filter(|h| !h.refused)
                .map(|h| h.id.clone())
        })
        .collect()
}
