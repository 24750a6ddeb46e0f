//! `regenerated_binding` (docs/transcripts.md): the first seed's signature, "resource not found"
//! 3 to 40 steps after a compaction. A tool call after the compaction fails, and its
//! target arguments hold a token never seen before in the session that has the shape
//! of a token the compaction dropped: the agent made up the value it had lost. Or the
//! failed call used another value of the dropped token's kind that the session had
//! seen (another host for `ssh`), and a later call used the dropped token itself: the
//! agent picked a wrong value it knew, and recovered the right one only by reading it
//! again.

use crate::analysis::paths::folder_and_extension;
use crate::model::{Event, EventKind, FastMap, Session, TokenClass, TokenId};

/// A dropped token `token`, and the look-alike `regenerated` a failed call used.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Regenerated {
    pub token: TokenId,
    pub regenerated: TokenId,
    /// Index of the result that showed the failure, when it came back later than the
    /// call's own answer (a background command's output read afterwards).
    pub outcome: Option<usize>,
    /// Indices of every failed call on the same substitute, in order: never empty.
    pub failed: Vec<usize>,
    /// Index of the later call that used the dropped token, when the look-alike was one
    /// the session had seen before: what shows the wrong value cost a step.
    pub recovered: Option<usize>,
}

/// The first event holding each token, by token id (ids are dense: a vector, not a
/// map; a large log holds millions of tokens).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FirstSeen(Vec<u32>);

impl Regenerated {
    /// Index of the first failed tool call.
    pub(crate) fn event(&self) -> usize {
        self.failed.first().copied().unwrap_or_default()
    }
}

impl FirstSeen {
    fn note(&mut self, id: TokenId, index: usize) {
        let index = u32::try_from(index).unwrap_or(u32::MAX - 1);
        if let Some(slot) = self.0.get_mut(id.0 as usize) {
            *slot = (*slot).min(index);
        }
    }

    /// Index of the first event holding `id`, if any does.
    pub fn get(&self, id: TokenId) -> Option<usize> {
        self.0
            .get(id.0 as usize)
            .filter(|&&at| at != u32::MAX)
            .map(|&at| at as usize)
    }
}

/// Index of the first event that holds each token anywhere (text, tool arguments,
/// declarations), so "never seen before" is one lookup.
pub fn first_seen(session: &Session) -> FirstSeen {
    FirstSeen::default().update(0, 0, session)
}

impl FirstSeen {
    /// `self`, computed over a session of `before` events, brought up to `session`,
    /// whose events have the first `common` of those: what the others noted is
    /// undone, and the session's events from `common` on are noted.
    pub fn update(mut self, before: usize, common: usize, session: &Session) -> FirstSeen {
        if self.0.len() > session.tokens.len() {
            // Another session's: start over.
            self.0.clear();
            return self.update(0, 0, session);
        }
        if common < before {
            // A slot at or past `common` was noted by an event that may differ now.
            let cut = u32::try_from(common).unwrap_or(u32::MAX - 1);
            for slot in self.0.iter_mut().filter(|slot| **slot >= cut) {
                *slot = u32::MAX;
            }
        }
        self.0.resize(session.tokens.len(), u32::MAX);
        for (offset, event) in session.events_in(common..session.events.len()).enumerate() {
            let index = common + offset;
            match &event.kind {
                EventKind::Binding { token, .. } => self.note(*token, index),
                kind => {
                    for id in kind
                        .region_text()
                        .into_iter()
                        .flat_map(|d| session.tokens_of(index, d))
                    {
                        self.note(id, index);
                    }
                }
            }
        }
        self
    }
}

/// Whether `candidate` has the shape of `dropped` by the `regenerated_from` rules of
/// signal 3, extended in docs/transcripts.md: same class; same length for hex and uuid; same folder and
/// extension for a path; otherwise the same prefix up to the last `-`, `_`, `/` or `:`.
/// A `numbered` token also keeps its number of digits.
pub(crate) fn looks_like(session: &Session, dropped: TokenId, candidate: TokenId) -> bool {
    let (d, c) = (session.tokens.get(dropped), session.tokens.get(candidate));
    if d.class != c.class || d.text == c.text {
        return false;
    }
    match d.class {
        TokenClass::Hex | TokenClass::Uuid => d.text.len() == c.text.len(),
        // A file the agent never knew is a guess, not a regenerated one: the name must
        // be a near miss (a third of its characters at most differ).
        TokenClass::Path => {
            folder_and_extension(d.text) == folder_and_extension(c.text) && {
                let (a, b) = (
                    crate::analysis::kept::basename(d.text),
                    crate::analysis::kept::basename(c.text),
                );
                distance(a, b) * 3 <= a.chars().count().max(b.chars().count())
            }
        }
        TokenClass::Numbered => d.text.len() == c.text.len(),
        // Any other value in the same role: an address and a name are one kind to
        // `ssh`, and any container is one to `docker exec`.
        class if class.by_role() => true,
        _ => {
            let prefix = |t: &str| {
                t.rfind(['-', '_', '/', ':'])
                    .map(|i| t[..=i].to_owned())
                    .unwrap_or_default()
            };
            let p = prefix(d.text);
            !p.is_empty() && p == prefix(c.text)
        }
    }
}

/// A region's dropped tokens that nothing carries back, in region order: fixed once
/// the region is analysed, while the window after it grows.
#[derive(Debug, Default)]
pub(crate) struct Lost {
    ids: Vec<TokenId>,
}

impl Lost {
    pub(crate) fn new(ids: Vec<TokenId>) -> Lost {
        Lost { ids }
    }

    pub(crate) fn ids(&self) -> &[TokenId] {
        &self.ids
    }
}

/// A scan of the window after a compaction for failed calls on a look-alike of a
/// `lost` token, kept so that a window that grows is scanned from where the last scan
/// stopped: what a call found depends on its events and those before it only.
#[derive(Debug, Clone, Default)]
pub(crate) struct WindowScan {
    from: usize,
    /// Events `from..to` are scanned.
    to: usize,
    /// The window's calls by id (hashed as the token table's texts are: a
    /// window holds thousands).
    calls: FastMap<Box<str>, usize>,
    found: Vec<Regenerated>,
    /// Failed calls on a look-alike the session had seen, each found when a later call
    /// uses the dropped token.
    suspects: Vec<Regenerated>,
    /// Calls that started a command in the background, by the command's id.
    background: FastMap<TokenId, usize>,
    /// Calls that read background commands' output, with the calls that started them.
    polling: FastMap<usize, Vec<usize>>,
    /// Later calls that used a substitute again, with the substitute: if one succeeds,
    /// the substitute was no wrong value.
    retries: FastMap<usize, TokenId>,
}

impl WindowScan {
    pub(crate) fn new(from: usize) -> WindowScan {
        WindowScan {
            from,
            to: from,
            ..WindowScan::default()
        }
    }

    /// Whether this scan of the window from `from` still holds when events from
    /// `unchanged` on may differ from those it read.
    pub(crate) fn holds(&self, from: usize, unchanged: usize) -> bool {
        self.from == from && self.to <= unchanged
    }

    pub(crate) fn found(&self) -> &[Regenerated] {
        &self.found
    }

    /// Scans on to event `until`.
    pub(crate) fn extend(
        &mut self,
        session: &Session,
        until: usize,
        lost: &Lost,
        first: &FirstSeen,
    ) {
        let end = until.min(session.events.len());
        let start = self.to;
        for (index, event) in session.context_events_in(start..end) {
            self.look_at(session, index, event, lost, first);
        }
        self.to = self.to.max(end);
    }

    fn look_at(
        &mut self,
        session: &Session,
        index: usize,
        event: &Event,
        lost: &Lost,
        first: &FirstSeen,
    ) {
        match &event.kind {
            EventKind::ToolCall { head, targets, .. } => {
                let Some(id) = &head.call_id else {
                    return;
                };
                self.calls.insert(id.clone(), index);
                let started: Vec<usize> = head
                    .polls
                    .iter()
                    .filter_map(|id| self.background.get(id).copied())
                    .collect();
                if !started.is_empty() {
                    self.polling.insert(index, started);
                }
                if let Some(r) = self
                    .found
                    .iter()
                    .chain(&self.suspects)
                    .find(|r| r.recovered.is_none() && targets.contains(&r.regenerated))
                {
                    self.retries.insert(index, r.regenerated);
                }
                let (recovered, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.suspects)
                    .into_iter()
                    .partition(|s| targets.contains(&s.token));
                self.suspects = waiting;
                self.found
                    .extend(recovered.into_iter().map(|s| Regenerated {
                        recovered: Some(index),
                        ..s
                    }));
            }
            EventKind::ToolResult {
                call_id: Some(id),
                is_error,
                says_failed,
                says_not_found,
                reports_failure,
                background,
                text,
            } => {
                let Some(&call) = self.calls.get(&**id) else {
                    return;
                };
                if let Some(background) = background {
                    self.background.insert(*background, call);
                }
                let failure = *is_error || *says_failed || *reports_failure;
                // The same substitute worked on a retry: the failure had another cause.
                if let Some(substitute) = self.retries.remove(&call) {
                    if !failure && background.is_none() {
                        let wrong =
                            |r: &Regenerated| r.regenerated != substitute || r.recovered.is_some();
                        self.found.retain(wrong);
                        self.suspects.retain(wrong);
                    }
                }
                // A read of background commands' output: a failure it shows is theirs.
                if let Some(started) = self.polling.get(&call).cloned() {
                    if failure {
                        for origin in started {
                            self.failed(session, origin, Some(index), lost, first);
                        }
                    }
                    return;
                }
                let Some(EventKind::ToolCall { targets, .. }) =
                    session.events.get(call).map(|e| &e.kind)
                else {
                    return;
                };
                // A "not found" message counts where it names a token of the call.
                let names_target =
                    *says_not_found && session.tokens_of(index, text).any(|t| targets.contains(&t));
                if *is_error || *says_failed || names_target {
                    self.failed(session, call, None, lost, first);
                }
            }
            _ => {}
        }
    }

    /// The tool call at `call` failed (its outcome shown at `outcome` when it came
    /// back later): a look-alike of a lost token among its targets is a suspect.
    fn failed(
        &mut self,
        session: &Session,
        call: usize,
        outcome: Option<usize>,
        lost: &Lost,
        first: &FirstSeen,
    ) {
        let Some(EventKind::ToolCall { targets, .. }) = session.events.get(call).map(|e| &e.kind)
        else {
            return;
        };
        if self
            .found
            .iter()
            .chain(&self.suspects)
            .any(|r| r.failed.contains(&call))
        {
            return;
        }
        // A lost token the call used itself is no value it replaced.
        let found = |d: TokenId, t: TokenId| Regenerated {
            token: d,
            regenerated: t,
            outcome,
            failed: vec![call],
            recovered: None,
        };
        let look_alike = |&t: &TokenId| {
            lost.ids
                .iter()
                .filter(|&&d| !targets.contains(&d) && looks_like(session, d, t))
                .min_by_key(|&&d| distance(session.tokens.text(d), session.tokens.text(t)))
                .map(|&d| found(d, t))
        };
        // A value known only by its role (a host, a container) is named in prose and
        // files long before a command uses it: never seen as a token is no sign it
        // was made up, and only a later use of the lost value shows the wrong one
        // cost the agent.
        let (never_seen, seen): (Vec<TokenId>, Vec<TokenId>) = targets.iter().partition(|&&t| {
            first.get(t).is_none_or(|at| at >= call) && !session.tokens.class(t).by_role()
        });
        // The same file looked for in another folder: a look-alike by its role too.
        let elsewhere = |&t: &TokenId| {
            lost.ids
                .iter()
                .find(|&&d| !targets.contains(&d) && same_file_elsewhere(session, d, t))
                .map(|&d| found(d, t))
        };
        if let Some(made_up) = never_seen.iter().find_map(look_alike) {
            self.found.push(made_up);
        } else if let Some(suspect) = seen
            .iter()
            .find_map(look_alike)
            .or_else(|| targets.iter().find_map(elsewhere))
        {
            match self.suspects.iter_mut().find(|s| s.token == suspect.token) {
                // Another failed call in the lost value's place: one harm, more steps.
                Some(known) => {
                    known.failed.push(call);
                    known.failed.sort_unstable();
                    known.outcome = known.outcome.max(outcome);
                }
                None => self.suspects.push(suspect),
            }
        }
    }
}

/// Whether `candidate` names the file `dropped` names in another folder
/// (`deploy/config.yaml` for `infra/deploy/config.yaml`'s `infra/config.yaml`).
fn same_file_elsewhere(session: &Session, dropped: TokenId, candidate: TokenId) -> bool {
    let (d, c) = (session.tokens.get(dropped), session.tokens.get(candidate));
    d.class == TokenClass::Path && c.class == TokenClass::Path && d.text != c.text && {
        let base = crate::analysis::kept::basename(d.text);
        base.contains('.') && base == crate::analysis::kept::basename(c.text)
    }
}

/// Edit distance between two short strings (names, ids), by characters.
#[expect(
    clippy::indexing_slicing,
    reason = "j + 1 <= b.len() and the row holds b.len() + 1 cells"
)]
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::distance;

    #[test]
    fn edit_distance() {
        assert_eq!(distance("mcp_cmds", "decision_cmds"), 7);
        assert_eq!(distance("decisions_cmds.py", "decision_cmds.py"), 1);
        assert_eq!(distance("", "abc"), 3);
    }
}
