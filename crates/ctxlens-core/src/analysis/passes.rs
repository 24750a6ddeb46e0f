//! The two passes over a whole session that the analysis needs (the state at each
//! compaction, and the first event of each token), kept between looks at a log that
//! grows: what the last look computed holds up to the first event that differs, so an
//! appended event costs the events after the newest compaction, not the whole log.

use super::signals::regenerated::FirstSeen;
use super::state::{StateAt, StateBuilder};
use crate::model::{Chunked, DeclaredFound, Event, EventKind, Session};

/// What the last analysis of a session kept of its passes.
#[derive(Debug, Default)]
pub(super) struct KeptPasses {
    /// The events it read: a clone, which shares their chunks (so a chunk changed
    /// since is a copy, and [`Chunked::common_prefix`] finds where they differ).
    events: Chunked<Event>,
    /// The declared tokens found in them then.
    declared: DeclaredFound,
    first_seen: FirstSeen,
    /// The state just before the event at this index (the newest compaction).
    checkpoint: Option<(usize, StateBuilder)>,
    /// Where the compaction, decision and binding events are: a few among many, found
    /// once.
    marked: Vec<usize>,
}

impl KeptPasses {
    /// How many leading events of `session` the last look read as they are now:
    /// what was computed from those alone still holds.
    pub(super) fn unchanged(&self, session: &Session) -> usize {
        let common = self.events.common_prefix(&session.events);
        self.declared
            .first_difference(&session.declared)
            .map_or(common, |at| common.min(at))
    }

    /// The indices of `session`'s compaction, decision and binding events: those the last look
    /// found among the `common` events it read as they are, and the rest searched now
    /// (`common` is [`Self::unchanged`]).
    pub(super) fn marked_events(&mut self, session: &Session, common: usize) -> &[usize] {
        let keep = self.marked.partition_point(|&i| i < common);
        self.marked.truncate(keep);
        let start = common.min(session.events.len());
        for (offset, event) in session.events_in(start..session.events.len()).enumerate() {
            if matches!(
                event.kind,
                EventKind::Compaction { .. } | EventKind::Decision(_) | EventKind::Binding { .. }
            ) {
                self.marked.push(start + offset);
            }
        }
        &self.marked
    }

    /// The passes for `session`, from what was kept where it still holds (`common` is
    /// [`Self::unchanged`]).
    pub(super) fn resume<'s>(
        &mut self,
        session: &'s Session,
        common: usize,
        newest: Option<usize>,
    ) -> Passes<'s> {
        let kept = std::mem::take(self);
        Passes {
            session,
            first_seen: kept.first_seen,
            first_seen_from: Some((kept.events.len(), common)),
            marked: kept.marked,
            state: StatePass {
                builder: StateBuilder::default(),
                applied: 0,
                checkpoint: kept.checkpoint.filter(|(at, _)| *at <= common),
                keep_at: newest,
                kept: None,
            },
        }
    }

    /// Keeps what `passes` computed, for the next look.
    pub(super) fn keep(&mut self, mut passes: Passes<'_>) {
        passes.first_seen();
        let first_seen = passes.first_seen;
        let state = passes.state;
        *self = KeptPasses {
            events: passes.session.events.clone(),
            declared: passes.session.declared.clone(),
            first_seen,
            checkpoint: state.kept.or(state.checkpoint),
            marked: passes.marked,
        };
    }
}

pub(super) struct Passes<'s> {
    session: &'s Session,
    /// The first event of each token, once [`Passes::first_seen`] brought it up to the
    /// session: until then, what the last look kept.
    first_seen: FirstSeen,
    /// Until then, the events the last look read and how many of them are unchanged.
    /// Brought up to date when first asked, so that it is worked out while the threads
    /// analyse the first regions (done before them, it was one thread's work while the
    /// other core waited).
    first_seen_from: Option<(usize, usize)>,
    marked: Vec<usize>,
    pub state: StatePass,
}

impl Passes<'_> {
    /// The first event of each token in the session.
    pub(super) fn first_seen(&mut self) -> &FirstSeen {
        if let Some((before, common)) = self.first_seen_from.take() {
            let kept = std::mem::take(&mut self.first_seen);
            self.first_seen = kept.update(before, common, self.session);
        }
        &self.first_seen
    }

    /// The state just before event `index` (asked in increasing order).
    pub(super) fn state_at(&mut self, index: usize) -> StateAt {
        self.state.advance(self.session, index);
        self.state.builder.snapshot()
    }
}

/// The state pass: applied lazily, from the kept checkpoint when it can.
pub(super) struct StatePass {
    builder: StateBuilder,
    applied: usize,
    checkpoint: Option<(usize, StateBuilder)>,
    /// Where to keep a checkpoint for the next look, and the one kept.
    keep_at: Option<usize>,
    kept: Option<(usize, StateBuilder)>,
}

impl StatePass {
    fn advance(&mut self, session: &Session, index: usize) {
        if let Some((at, checkpoint)) = &self.checkpoint {
            if *at <= index && self.applied < *at {
                self.builder = checkpoint.clone();
                self.applied = *at;
            }
        }
        let keep = self.keep_at.filter(|&k| self.applied <= k && k <= index);
        if let Some(keep) = keep.filter(|_| self.kept.is_none()) {
            self.apply_to(session, keep);
            self.kept = Some((keep, self.builder.clone()));
        }
        self.apply_to(session, index);
    }

    fn apply_to(&mut self, session: &Session, index: usize) {
        for event in session.events_in(self.applied..index) {
            self.builder.apply(event);
        }
        self.applied = self.applied.max(index.min(session.events.len()));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::analysis::signals::regenerated::first_seen;
    use crate::model::{TextDigest, TokenClass};

    fn result(seq: u64, text: TextDigest) -> Event {
        Event {
            seq,
            line: seq,
            offset: seq * 100,
            span: 100,
            part: 0,
            ts: None,
            kind: EventKind::ToolResult {
                call_id: None,
                is_error: false,
                says_failed: false,
                says_not_found: false,
                reports_failure: false,
                background: None,
                text,
            },
        }
    }

    /// The declared-token pass found a token anew in an event (a binding declared
    /// since): the events are the same, and what was computed from that event on no
    /// longer holds.
    #[test]
    fn declared_tokens_found_anew_end_what_is_unchanged() {
        let mut before = Session::default();
        let token = before.tokens.intern("blue_falcon_7", TokenClass::Declared);
        for seq in 1..=5 {
            before.events.push(result(seq, TextDigest::default()));
        }
        let mut now = before.clone();
        now.declared = DeclaredFound::new(vec![(1, Box::new([token]))]);
        let mut kept = KeptPasses::default();
        let passes = kept.resume(&before, 0, None);
        kept.keep(passes);
        assert_eq!(kept.unchanged(&before), 5);
        let common = kept.unchanged(&now);
        assert_eq!(common, 1);
        assert_eq!(
            first_seen(&before).update(before.events.len(), common, &now),
            first_seen(&now)
        );
    }
}
