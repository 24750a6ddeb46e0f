//! One analysed state of a log: what every view draws from. Built off the render thread
//! and shared read-only.

use crate::legend::EventRole;
use crate::tui::view::marks::{Mark, Marker};
use crate::tui::view::token_rows::{token_rows, TokenRows};
use ctxlens_core::analysis::CompactionAnalysis;
use ctxlens_core::analysis::{analyze, Finding, FindingKind, SessionAnalysis, Severity};
use ctxlens_core::model::{Chunked, Decision, Session};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A timeline row: an event, or a line that could not be read (shown, never hidden).
/// By index in 32 bits: a row per event of a log that can hold millions, and a log
/// holds fewer than 4 billion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The event of this index.
    Event(u32),
    /// The unreadable line of this index among the session's malformed lines.
    Malformed(u32),
}

impl Row {
    /// The row of the event of `index`.
    pub fn event(index: usize) -> Row {
        Row::Event(u32::try_from(index).unwrap_or(u32::MAX))
    }

    fn malformed(index: usize) -> Row {
        Row::Malformed(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// The index of the event this row shows, if it shows one.
    pub fn event_index(self) -> Option<usize> {
        match self {
            Row::Event(i) => Some(i as usize),
            Row::Malformed(_) => None,
        }
    }
}

/// A finding worth an operator's attention (where it stands among the analysis's:
/// not a copy, a session can hold thousands), and the event it points at.
#[derive(Debug, Clone, Copy)]
pub struct Alert {
    /// The compaction's index in the analysis.
    pub compaction: usize,
    /// The finding's index among the compaction's.
    pub finding: usize,
    /// The event it points at, when the log holds it.
    pub event: Option<usize>,
}

/// The event a finding's text names by its last "seq N", when the log holds it.
fn named_event(session: &Session, text: &str) -> Option<usize> {
    let (_, after) = text.rsplit_once("seq ")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    let seq: u64 = digits.parse().ok()?;
    let at = session.first_at_or_after(seq);
    session
        .events
        .get(at)
        .filter(|event| event.seq == seq)
        .map(|_| at)
}

/// A session and its analysis as one look at the log found them, with what the views draw from them.
pub struct Snapshot {
    /// The session.
    pub session: Session,
    /// What each compaction did to it.
    pub analysis: SessionAnalysis,
    /// Every event and unreadable line.
    pub rows: Chunked<Row>,
    /// The rows a reader wants: bookkeeping records (progress, snapshots, token counts)
    /// left out.
    pub reading_rows: Chunked<Row>,
    /// The worst finding pointing at each event.
    pub markers: HashMap<usize, Severity>,
    /// The findings worth the operator's attention, in order.
    pub alerts: Vec<Alert>,
    /// Each compaction's view model, by compaction id.
    views: HashMap<String, ViewModel>,
    /// The compaction whose view model the views asked for last, shared with the
    /// snapshots after this one: its view model is kept with the newest's.
    asked: Arc<Mutex<Option<String>>>,
}

/// What the views draw of one compaction: its tokens and what became of them, and the
/// marks of its region and summary.
#[derive(Clone, Default)]
struct ViewModel {
    rows: Lazy<TokenRows>,
    marks: Lazy<CompactionMarks>,
}

/// A compaction's view model, built the first time it is asked for: a long session
/// holds many compactions, most never shown, and a view model holds a row per region
/// token. The worker builds it, never the render thread: the newest compaction's with
/// the snapshot (it is the one shown while following), another when the views ask.
/// Shared with the snapshots after this one while what it reads is unchanged. Only the
/// newest compaction's and the last one asked for are kept (see [`Snapshot::keep_only`]):
/// each is megabytes for a large region, and walking through a log's compactions would
/// keep them all.
type Lazy<T> = Arc<Built<T>>;

/// A part of a view model once built, which can be let go again (a `OnceLock` cannot).
struct Built<T>(Mutex<Option<Arc<T>>>);

impl<T> Default for Built<T> {
    fn default() -> Self {
        Built(Mutex::new(None))
    }
}

impl<T> Built<T> {
    /// The lock is held only to read or swap the pointer, never while building.
    fn slot(&self) -> MutexGuard<'_, Option<Arc<T>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get(&self) -> Option<Arc<T>> {
        self.slot().clone()
    }

    fn get_or_init(&self, build: impl FnOnce() -> T) -> Arc<T> {
        if let Some(built) = self.get() {
            return built;
        }
        let built = Arc::new(build());
        self.slot().get_or_insert(built).clone()
    }

    fn let_go(&self) {
        // Dropped after the lock is released: a large table takes a while to free.
        let held = self.slot().take();
        drop(held);
    }
}

/// The parts of the compaction view that do not depend on the screen: the marker for
/// its region's tokens, and its summary as shown (terminal-safe) with the tokens marked.
#[derive(Debug, Default, PartialEq)]
pub struct CompactionMarks {
    /// What marks the region's tokens.
    pub marker: Marker,
    /// `None` when the summary cannot be read.
    pub summary: Option<SummaryMarks>,
    /// The summary's lines that hold a mark, in order.
    pub marked_lines: Vec<usize>,
    /// What it did to the tokens obligations require (the obligations pane).
    pub bindings: crate::tui::view::marks::BindingStates,
}

/// A summary's marks, and its text made terminal-safe where that changed it: most
/// summaries are shown as the session holds them, and a copy per view model was a
/// megabyte for a large one.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SummaryMarks {
    escaped: Option<String>,
    /// The summary's tokens, marked.
    pub marks: Vec<Mark>,
}

impl SummaryMarks {
    /// The summary as shown: its escaped copy, or else the session's text.
    pub fn text<'a>(&'a self, session: &'a Session, c: &CompactionAnalysis) -> Option<&'a str> {
        match &self.escaped {
            Some(text) => Some(text),
            None => session.summary_at(c.info.def).map(|s| s.text.as_str()),
        }
    }
}

impl Snapshot {
    /// The snapshot of `session` read whole, with the decisions of `sidecar`.
    pub fn build(session: Session, sidecar: &[Decision]) -> Snapshot {
        let analysis = analyze(&session, sidecar, false);
        Snapshot::from_analysis(session, analysis, None)
    }

    /// The snapshot of a session already analysed (by an incremental `Analyzer`). What
    /// `reuse` names (compactions the analyzer did not analyse again) is taken from the
    /// snapshot before.
    pub fn from_analysis(
        session: Session,
        analysis: SessionAnalysis,
        reuse: Option<(&Snapshot, &HashSet<String>)>,
    ) -> Snapshot {
        let before = reuse.map(|(before, _)| before);
        let rows = timeline_rows(&session, before.map(|b| (&b.session, &b.rows)), |_| true);
        let reading_rows = timeline_rows(
            &session,
            before.map(|b| (&b.session, &b.reading_rows)),
            is_read,
        );
        let mut markers: HashMap<usize, Severity> = HashMap::new();
        let mut alerts = Vec::new();
        for (at, compaction) in analysis.compactions.iter().enumerate() {
            for (index, finding) in compaction.findings.iter().enumerate() {
                let event = match &finding.kind {
                    FindingKind::NonIdempotent {
                        actual: ctxlens_core::analysis::ActualStep::Action { seq, .. },
                        ..
                    } => {
                        let at = session.first_at_or_after(*seq);
                        (at < session.events.len()).then_some(at)
                    }
                    // A finding that names a later step (the call that used a dropped
                    // token, the failed call, the user's message) points at it.
                    FindingKind::DroppedBinding {
                        step: Some(step), ..
                    }
                    | FindingKind::RegeneratedBinding { step, .. } => {
                        named_event(&session, step).or(Some(compaction.info.at))
                    }
                    FindingKind::InstructionDropped { .. } => {
                        named_event(&session, &finding.message).or(Some(compaction.info.at))
                    }
                    _ => Some(compaction.info.at),
                };
                // A note is no alert: it stays in the compaction's view, not here.
                if !finding.is_alert() {
                    continue;
                }
                // A resolved finding is shown, but no longer marks its event.
                if let Some(event) = event.filter(|_| finding.resolved_by.is_none()) {
                    let worst = markers.entry(event).or_insert(finding.severity);
                    *worst = (*worst).max(finding.severity);
                }
                if !matches!(finding.kind, FindingKind::Undecided) {
                    alerts.push(Alert {
                        compaction: at,
                        finding: index,
                        event,
                    });
                }
            }
        }
        let kept = |c: &CompactionAnalysis| {
            let (before, ids) = reuse?;
            view_model_before(before, ids, c, &session)
        };
        let views = analysis
            .compactions
            .iter()
            .map(|c| (c.info.id.clone(), kept(c).cloned().unwrap_or_default()))
            .collect();
        let asked = reuse
            .map(|(before, _)| before.asked.clone())
            .unwrap_or_default();
        Snapshot {
            views,
            asked,
            session,
            analysis,
            rows,
            reading_rows,
            markers,
            alerts,
        }
    }

    /// Reads and analyses a whole log at once (tests, and the first screen).
    pub fn load(path: &Path) -> Result<Snapshot, super::TuiError> {
        let (session, analysis) = load_analysed(path)?;
        Ok(Snapshot::from_analysis(session, analysis, None))
    }

    /// Errors no standing decision resolves: what `audit` fails on.
    pub fn errors(&self) -> usize {
        self.analysis.unresolved_errors()
    }

    /// Findings a standing decision resolves.
    pub fn resolved(&self) -> usize {
        self.analysis
            .findings()
            .filter(|f| f.resolved_by.is_some())
            .count()
    }

    /// The tokens of a compaction's region and what became of each, worst first.
    pub fn token_rows(&self, compaction: &str) -> Arc<TokenRows> {
        let (Some(view), Some(c)) = (
            self.views.get(compaction),
            self.analysis.compaction(compaction),
        ) else {
            return Arc::default();
        };
        view.rows.get_or_init(|| token_rows(&self.session, c))
    }

    /// The finding `alert` is about.
    pub fn finding_of(&self, alert: &Alert) -> Option<&Finding> {
        self.analysis
            .compactions
            .get(alert.compaction)?
            .findings
            .get(alert.finding)
    }

    /// A compaction's view model, if it is built: the views never build one (a large
    /// region's would stall the render thread); they draw a placeholder and ask
    /// the worker ([`Self::build_view`]).
    pub fn built_view(&self, compaction: &str) -> Option<(Arc<TokenRows>, Arc<CompactionMarks>)> {
        let view = self.views.get(compaction)?;
        Some((view.rows.get()?, view.marks.get()?))
    }

    /// Builds the view model of the compaction the views ask for (the worker does, off
    /// the render thread), and lets go of all but it and the newest compaction's.
    pub fn build_view(&self, compaction: &str) {
        *self.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(compaction.to_owned());
        self.build_and_keep(compaction);
    }

    /// Builds the newest compaction's view model now: it is the one shown while
    /// following.
    pub fn build_newest_view(&self) {
        if let Some(c) = self.analysis.compactions.last() {
            self.build_and_keep(&c.info.id);
        }
    }

    /// Lets go of the view models no longer needed first, so that the peak holds two
    /// of them, not three.
    fn build_and_keep(&self, compaction: &str) {
        let asked = self
            .asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let newest = self.analysis.compactions.last().map(|c| c.info.id.as_str());
        self.keep_only(&[Some(compaction), asked.as_deref(), newest]);
        self.token_rows(compaction);
        self.compaction_marks(compaction);
    }

    /// Lets go of every view model but those of `kept`: at most the newest
    /// compaction's and the one the views show are needed.
    fn keep_only(&self, kept: &[Option<&str>]) {
        for (id, view) in &self.views {
            if !kept.contains(&Some(id.as_str())) {
                view.rows.let_go();
                view.marks.let_go();
            }
        }
    }

    /// The screen-independent view of a compaction.
    pub fn compaction_marks(&self, compaction: &str) -> Option<Arc<CompactionMarks>> {
        let view = self.views.get(compaction)?;
        let c = self.analysis.compaction(compaction)?;
        Some(
            view.marks
                .get_or_init(|| compaction_marks_of(&self.session, c)),
        )
    }

    /// Compactions still proposed with no decision.
    pub fn pending(&self) -> usize {
        self.analysis.pending()
    }

    /// The row of `rows` that shows event `index`, or (when it is hidden there) the
    /// last row before it.
    pub fn row_of_event(rows: &Chunked<Row>, index: usize) -> Option<usize> {
        let mut before = None;
        for (at, row) in rows.iter().enumerate() {
            match row.event_index() {
                Some(i) if i == index => return Some(at),
                Some(i) if i > index => break,
                _ => before = Some(at),
            }
        }
        before
    }
}

/// What the compaction view draws of `c`: the marker for its region's tokens, its
/// summary as shown (terminal-safe) with the tokens marked, and the obligations pane's
/// table.
fn compaction_marks_of(session: &Session, c: &CompactionAnalysis) -> CompactionMarks {
    let marker = Marker::new(session, c);
    let mut marked_lines = Vec::new();
    let summary = session.summary_at(c.info.def).map(|s| {
        let text = crate::sanitize::block(&s.text);
        let marks = marker.marks(&text, session);
        marked_lines = lines_marked(&text, &marks);
        SummaryMarks {
            escaped: match text {
                std::borrow::Cow::Owned(escaped) => Some(escaped),
                std::borrow::Cow::Borrowed(_) => None,
            },
            marks,
        }
    });
    let bindings = crate::tui::view::marks::BindingStates::new(session, c);
    CompactionMarks {
        marker,
        summary,
        marked_lines,
        bindings,
    }
}

/// The indices of the lines of `text` that hold one of `marks` (in text order).
fn lines_marked(text: &str, marks: &[Mark]) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut line = 0;
    let mut at = 0;
    for mark in marks {
        let between = text.as_bytes().get(at..mark.start).unwrap_or_default();
        line += memchr::memchr_iter(b'\n', between).count();
        at = mark.start;
        if lines.last() != Some(&line) {
            lines.push(line);
        }
    }
    lines
}

/// The timeline's rows: events and unreadable lines in file order. When the log only
/// grew since `before` (its events unchanged, no new unreadable line), its rows are
/// kept and the new events follow them, which come after every line before.
/// Whether a reader wants `event`'s row: not a bookkeeping record, nor a message with
/// no words (an empty text block, a reasoning item whose summary is empty).
fn is_read(event: &ctxlens_core::model::Event) -> bool {
    !event.kind.is_wordless_message() && EventRole::of(&event.kind) != EventRole::Bookkeeping
}

fn timeline_rows(
    session: &Session,
    before: Option<(&Session, &Chunked<Row>)>,
    shown: impl Fn(&ctxlens_core::model::Event) -> bool,
) -> Chunked<Row> {
    if let Some((before_session, before_rows)) = before {
        let kept = before_session.events.len();
        let last_line = before_rows.last().map_or(0, |row| match *row {
            Row::Event(i) => session.events.get(i as usize).map_or(0, |e| e.line),
            Row::Malformed(i) => session
                .malformed
                .detailed()
                .get(i as usize)
                .map_or(0, |m| m.line),
        });
        let grown = session.events.common_prefix(&before_session.events) == kept
            && session.malformed.detailed() == before_session.malformed.detailed()
            && session
                .events
                .range(kept..session.events.len())
                .try_fold(last_line, |prev, e| (e.line >= prev).then_some(e.line))
                .is_some();
        if grown {
            // A clone shares the rows' chunks with the snapshot before.
            let mut rows = before_rows.clone();
            for (index, event) in session.events.range(kept..session.events.len()).enumerate() {
                if shown(event) {
                    rows.push(Row::event(kept + index));
                }
            }
            return rows;
        }
    }
    let mut rows: Vec<(u64, Row)> = session
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| shown(e))
        .map(|(i, e)| (e.line, Row::event(i)))
        .chain(
            session
                .malformed
                .detailed()
                .iter()
                .enumerate()
                .map(|(i, m)| (m.line, Row::malformed(i))),
        )
        .collect();
    rows.sort_by_key(|(line, _)| *line);
    let mut out = Chunked::default();
    for (_, row) in rows {
        out.push(row);
    }
    out
}

/// Reads and analyses a whole log, with its decisions: what a snapshot shows, without
/// the views (the folder list needs only the counts).
pub fn load_analysed(path: &Path) -> Result<(Session, SessionAnalysis), super::TuiError> {
    let channel = crate::store::channel::Backend::files(path).channel;
    let loaded = crate::session::open(path, &*channel, false, &mut |_| {})?;
    Ok((loaded.session, loaded.analysis))
}

/// A compaction's view model (token rows, marks) from the snapshot before: when its
/// analysis was reused, or when what the view model reads of it is unchanged (the
/// newest compaction is analysed again on every appended event, mostly to the same
/// end).
#[allow(clippy::type_complexity)]
fn view_model_before<'b>(
    before: &'b Snapshot,
    reused: &HashSet<String>,
    c: &CompactionAnalysis,
    session: &Session,
) -> Option<&'b ViewModel> {
    let id = c.info.id.as_str();
    let unchanged = reused.contains(id)
        || before.analysis.compaction(id).is_some_and(|b| {
            b.info == c.info
                && (Arc::ptr_eq(&b.tokens, &c.tokens) || b.tokens == c.tokens)
                && b.dropped == c.dropped
                && b.state.bindings == c.state.bindings
                && before.session.summary_at(c.info.def) == session.summary_at(c.info.def)
        });
    if !unchanged {
        return None;
    }
    before.views.get(id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// A compaction's view model is built when it is first shown, except the newest
    /// one's (shown while following), which the worker builds: most of a long
    /// session's are never shown.
    #[test]
    fn only_the_newest_compactions_view_model_is_built_up_front() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/summary-of-summary.jsonl");
        let snapshot = Snapshot::load(&path).unwrap();
        let ids: Vec<String> = snapshot
            .analysis
            .compactions
            .iter()
            .map(|c| c.info.id.clone())
            .collect();
        let (older, newest) = (&ids[0], &ids[ids.len() - 1]);
        assert_ne!(older, newest);
        assert!(snapshot.views[newest].marks.get().is_none());
        snapshot.build_newest_view();
        assert!(snapshot.views[newest].marks.get().is_some());
        assert!(snapshot.views[newest].rows.get().is_some());
        assert!(snapshot.views[older].marks.get().is_none());
        assert!(snapshot.views[older].rows.get().is_none());
        let marks = snapshot.compaction_marks(older).unwrap();
        assert_eq!(
            *marks,
            compaction_marks_of(&snapshot.session, &snapshot.analysis.compactions[0])
        );
        assert!(snapshot.views[older].marks.get().is_some());
        let rows = &snapshot.token_rows(older).rows;
        assert_eq!(rows.len(), snapshot.analysis.compactions[0].tokens.len());
    }

    /// A summary is shown terminal-safe; a copy is kept only when escaping changed it.
    #[test]
    fn a_summary_is_copied_only_when_escaping_changes_it() {
        for (summary, copied) in [
            ("kept 31ff37d2-be19-4460-986f-bf64aadd1eb6", false),
            ("kept \\u001b[2J 31ff37d2-be19-4460-986f-bf64aadd1eb6", true),
        ] {
            let log = format!(
                "{{\"type\":\"tool_result\",\"seq\":1,\"text\":\"made 31ff37d2-be19-4460-986f-bf64aadd1eb6\"}}\n{{\"type\":\"compaction\",\"seq\":2,\"id\":\"k1\",\"phase\":\"applied\",\"range\":{{\"from\":1,\"to\":1}},\"summary\":\"{summary}\"}}\n"
            );
            let snapshot = Snapshot::build(ctxlens_core::parse::parse(log.as_bytes()), &[]);
            let c = &snapshot.analysis.compactions[0];
            let marks = snapshot.compaction_marks("k1").unwrap();
            let shown = marks.summary.as_ref().unwrap();
            assert_eq!(shown.escaped.is_some(), copied, "{summary}");
            let text = shown.text(&snapshot.session, c).unwrap();
            assert!(!text.contains('\u{1b}'), "{text:?}");
            assert!(
                text.ends_with("31ff37d2-be19-4460-986f-bf64aadd1eb6"),
                "{text:?}"
            );
            assert!(!shown.marks.is_empty(), "{log}");
            let mark = &shown.marks[0];
            assert_eq!(
                &text[mark.start..mark.end],
                "31ff37d2-be19-4460-986f-bf64aadd1eb6"
            );
        }
    }
}
