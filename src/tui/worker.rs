//! The I/O thread of a session view: follows the log and its sidecar (notify, with
//! polling as the fallback), reads the lines the views show, searches, and records
//! decisions. The render thread never touches the file.

use super::snapshot::Snapshot;
use super::Msg;
use super::TuiError;
use crate::session::display::{event_text, Depth, EventText};
use crate::session::followed::{Change, Followed};
use crate::session::record::RecordError;
use crate::session::record::{record_decision, Outcome};
use crate::session::LineSource;
use crate::store::Stores;
use ctxlens_core::model::{Format, Verdict};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

/// What the app asks of the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Texts of these events.
    Texts(Vec<TextRef>),
    /// Every event whose text holds `query`, any case.
    Search {
        /// What to look for.
        query: String,
    },
    /// Record a decision.
    Decide {
        /// The compaction decided.
        compaction: String,
        /// The verdict.
        verdict: Verdict,
        /// Who decided.
        by: String,
    },
    /// The view model of `compaction` in the snapshot the app shows.
    BuildView {
        /// The snapshot shown.
        snapshot: Shown,
        /// The compaction.
        compaction: String,
    },
}

/// The snapshot the app shows, the same one by pointer.
#[derive(Clone)]
pub struct Shown(pub Arc<Snapshot>);

impl PartialEq for Shown {
    fn eq(&self, other: &Shown) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Shown(snapshot)")
    }
}

/// Where an event's text is: its line, and which part of the line; and how much of
/// it is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRef {
    /// The event's index.
    pub index: usize,
    /// Its line's byte offset.
    pub offset: u64,
    /// Its line's length.
    pub span: u64,
    /// The part of the line (a content block).
    pub part: u32,
    /// How much of it is wanted.
    pub depth: Depth,
}

/// What the worker tells the app.
pub enum Update {
    /// A new look at the log, and what changed.
    Snapshot(Arc<Snapshot>, Change),
    /// What the first read of a large log has read so far; more follows.
    Partial(Arc<Snapshot>),
    /// The texts asked for, by event index.
    Texts(Vec<(usize, EventText)>),
    /// A search's answer.
    Found {
        /// What was looked for.
        query: String,
        /// Every event whose text holds it, in log order.
        events: Vec<usize>,
    },
    /// A decision recorded, or why not.
    Decided(Result<Outcome, RecordError>),
    /// Something went wrong; the view goes on.
    Error(String),
    /// The log is ctxlens's copy of a database session, and it stopped (with why) or
    /// went on (`None`) being kept up to date.
    Stalled(Option<String>),
    /// How far the first read of the log has got.
    Reading(crate::session::Reading),
    /// The view model asked for is built (in the snapshot the app holds).
    ViewBuilt,
}

enum Wake {
    Request(Request),
    Changed,
    /// A decision recorded elsewhere (on the fleet's server).
    Decided,
}

/// The app's handle on a running worker; dropping it stops the worker.
pub struct WorkerHandle {
    tx: Sender<Wake>,
}

impl WorkerHandle {
    /// Asks the worker for `request`.
    pub fn send(&self, request: Request) {
        let _ = self.tx.send(Wake::Request(request));
    }
}

/// How often the log is looked at when no file event arrives.
const POLL: Duration = Duration::from_millis(250);

/// Starts the worker on `path`: it reads the log off the render thread, sends the first
/// snapshot, then follows.
pub fn spawn(path: PathBuf, to_app: Sender<Msg>, stores: Stores) -> WorkerHandle {
    let (tx, mut rx) = channel();
    let wake = tx.clone();
    let decided = tx.clone();
    std::thread::spawn(move || {
        let _watcher = crate::session::watch::watch_folder_of(&path, move || {
            let _ = wake.send(Wake::Changed);
        });
        let backend = stores(&path);
        let watched = backend.channel.watch(Box::new(move || {
            let _ = decided.send(Wake::Decided);
        }));
        if let Err(e) = watched {
            let message = format!("{}: {e}", backend.channel.location());
            let _ = to_app.send(Msg::Worker(Update::Error(message)));
        }
        match first_read(&path, &backend, &mut rx, &to_app) {
            Ok(Some(FirstRead { followed, snapshot })) => {
                let snapshot = Arc::new(snapshot);
                let first = Update::Snapshot(snapshot.clone(), Change::Grew);
                if to_app.send(Msg::Worker(first)).is_ok() {
                    run(followed, &backend, snapshot, rx, to_app);
                }
            }
            Ok(None) => {}
            Err(e) => {
                let _ = to_app.send(Msg::Worker(Update::Error(e.to_string())));
            }
        }
    });
    WorkerHandle { tx }
}

/// How much of a log the first read takes before the view shows it.
const FIRST_STEP: u64 = 256 << 10;

/// The most the first read takes in one step, after which it may show what it has
/// read (requests are answered within a step too). Much smaller steps raise the
/// viewing peak: each partial snapshot holds its own analysis for a while.
const MAX_STEP: u64 = 32 << 20;

/// The first read of the log, a step at a time. What is read so far goes to the app
/// as a partial snapshot after the first 256 KiB and then each time the read has
/// doubled, so the first screen of a large log shows at once and the partial
/// snapshots cost no more than the whole log once again. The app's requests (texts,
/// search) are answered from the latest partial snapshot, between steps, every
/// [`MEANWHILE_BYTES`](crate::ingest::follow::MEANWHILE_BYTES) within one, and while a
/// look analyses what is read (on a thread of its own). `None`
/// when the app has gone.
fn first_read(
    path: &Path,
    backend: &crate::store::channel::Backend,
    rx: &mut Receiver<Wake>,
    to_app: &Sender<Msg>,
) -> Result<Option<FirstRead>, TuiError> {
    let mut followed = Followed::start(path, &*backend.channel)?;
    let total = followed.size()?;
    let progress = to_app.clone();
    let mut report = move |reading| {
        let _ = progress.send(Msg::Worker(Update::Reading(reading)));
    };
    let mut count = crate::session::followed::ProgressCount::new(total, &mut report);
    let mut app = AppRequests {
        reply: Reply {
            path,
            backend,
            to_app,
        },
        rx,
    };
    let mut decided_meanwhile = false;
    let mut shown: Option<(u64, Arc<Snapshot>)> = None;
    loop {
        let step = followed.read_to().clamp(FIRST_STEP, MAX_STEP);
        let mut app_gone = false;
        // Requests are answered inside a step too, so that they wait for a slice of
        // the step, not the whole of it; before the first partial snapshot they wait.
        let mut meanwhile = || {
            if let Some((_, partial)) = shown.as_ref().filter(|_| !app_gone) {
                app_gone = !app.answer_waiting(partial, &mut decided_meanwhile);
            }
        };
        let at_end = followed.read_first(step, &mut count, &mut meanwhile)?;
        if app_gone {
            return Ok(None);
        }
        if at_end {
            break;
        }
        let read_to = followed.read_to();
        if shown.as_ref().is_none_or(|(at, _)| read_to >= 2 * at) {
            // Without the newest compaction's view model: the snapshot after this
            // one is taken while this one is shown, and its would be a second. What
            // the one before holds that still holds (its rows) is shared.
            let before = shown.as_ref().map(|(_, partial)| &**partial);
            super::memory::give_back_free_memory();
            let built = app.answer_during(before, &mut decided_meanwhile, || {
                snapshot_of(&mut followed, before)
            });
            let Some(built) = built else {
                return Ok(None);
            };
            let partial = Arc::new(built?);
            if to_app
                .send(Msg::Worker(Update::Partial(partial.clone())))
                .is_err()
            {
                return Ok(None);
            }
            shown = Some((read_to, partial));
        }
        if let Some((_, partial)) = &shown {
            if !app.answer_waiting(partial, &mut decided_meanwhile) {
                return Ok(None);
            }
        }
    }
    if decided_meanwhile {
        followed.read_decisions(&*backend.channel)?;
    }
    let before = shown.as_ref().map(|(_, partial)| &**partial);
    super::memory::give_back_free_memory();
    let mut decided_late = false;
    let built = app.answer_during(before, &mut decided_late, || {
        let snapshot = snapshot_of(&mut followed, before)?;
        snapshot.build_newest_view();
        Ok::<_, TuiError>(snapshot)
    });
    let Some(built) = built else {
        return Ok(None);
    };
    let mut snapshot = built?;
    if decided_late {
        // Taken off the queue while the last look ran: looked at again, not lost.
        followed.read_decisions(&*backend.channel)?;
        snapshot = snapshot_of(&mut followed, Some(&snapshot))?;
        snapshot.build_newest_view();
    }
    Ok(Some(FirstRead { followed, snapshot }))
}

/// What the first read leaves: the followed log, and the snapshot of all of it.
struct FirstRead {
    followed: Followed,
    snapshot: Snapshot,
}

/// The snapshot of a look at `followed`: what `before` holds that still holds (its
/// rows, the views of compactions analysed the same) is shared.
fn snapshot_of(followed: &mut Followed, before: Option<&Snapshot>) -> Result<Snapshot, TuiError> {
    let analysed = followed.analyse()?;
    let reuse = before.map(|b| (b, followed.reused()));
    Ok(Snapshot::from_analysis(
        analysed.session,
        analysed.analysis,
        reuse,
    ))
}

/// What the first read needs to answer the app's requests while it goes on.
struct AppRequests<'a> {
    reply: Reply<'a>,
    rx: &'a mut Receiver<Wake>,
}

/// Where a request's answer comes from and goes.
#[derive(Clone, Copy)]
struct Reply<'a> {
    path: &'a Path,
    backend: &'a crate::store::channel::Backend,
    to_app: &'a Sender<Msg>,
}

impl Reply<'_> {
    /// Answers `wake` from `shown`, the snapshot the app shows (during the first read,
    /// the latest partial one), and notes a decision recorded elsewhere in `decided`.
    /// False when the app has gone.
    fn answer(self, shown: &Snapshot, wake: Wake, decided: &mut bool) -> bool {
        match wake {
            Wake::Request(request) => {
                let answer = serve(self.path, shown, request, self.backend);
                self.to_app.send(Msg::Worker(answer)).is_ok()
            }
            Wake::Decided => {
                *decided = true;
                true
            }
            // Looked at by the caller: the first read goes on to the end of the file
            // as it is then, and a followed log is polled after every wake.
            Wake::Changed => true,
        }
    }
}

/// How often the thread that answers during a look looks whether the look has ended.
const LOOK_AGAIN: Duration = Duration::from_millis(5);

/// Sets its flag when dropped: a look that ends, even by a panic, lets the thread that
/// answers meanwhile end too (else the scope would wait for it for ever).
struct SetWhenDone<'a>(&'a AtomicBool);

impl Drop for SetWhenDone<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl AppRequests<'_> {
    /// Answers the waiting requests from `partial` and notes a decision recorded
    /// elsewhere in `decided`. False when the app has gone.
    fn answer_waiting(&self, partial: &Snapshot, decided: &mut bool) -> bool {
        self.rx
            .try_iter()
            .all(|wake| self.reply.answer(partial, wake, decided))
    }

    /// Runs `work` (a look at what is read: seconds on a large log) while a thread of
    /// its own answers the requests from `partial`, when there is one to answer from.
    /// The look stays on this thread: memory a thread allocates goes to a pool of its
    /// own (an arena of the C allocator), and a look run on another one raises the
    /// viewing peak. `None` when the app has gone.
    fn answer_during<T>(
        &mut self,
        partial: Option<&Snapshot>,
        decided: &mut bool,
        work: impl FnOnce() -> T,
    ) -> Option<T> {
        let Some(partial) = partial else {
            return Some(work());
        };
        let reply = self.reply;
        let rx = &mut *self.rx;
        let looked = &AtomicBool::new(false);
        std::thread::scope(|scope| {
            // The receiver is lent to the thread (it cannot be shared).
            let answering = scope.spawn(move || {
                let mut decided = false;
                let mut app_here = true;
                while app_here && !looked.load(Ordering::Acquire) {
                    match rx.recv_timeout(LOOK_AGAIN) {
                        Ok(wake) => app_here = reply.answer(partial, wake, &mut decided),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
                (app_here, decided)
            });
            let done = {
                let _ended = SetWhenDone(looked);
                work()
            };
            let (app_here, decided_meanwhile) = answering
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            *decided |= decided_meanwhile;
            app_here.then_some(done)
        })
    }
}

/// Follows the log after the first read: answers the app's requests, and at each
/// burst of file events (or each poll) looks again and sends the new snapshot.
fn run(
    mut followed: Followed,
    backend: &crate::store::channel::Backend,
    first: Arc<Snapshot>,
    rx: Receiver<Wake>,
    to_app: Sender<Msg>,
) {
    let path = followed.path().to_owned();
    let send = |update: Update| to_app.send(Msg::Worker(update)).is_ok();
    let reply = Reply {
        path: &path,
        backend,
        to_app: &to_app,
    };
    let mut current = first;
    // The snapshot before `current`, held until the worker is idle: the render thread
    // lets go of it when the new one arrives, and freeing a snapshot is not work to do
    // between an append and the frame that shows it.
    let mut _previous: Option<Arc<Snapshot>> = None;
    let mut gone = false;
    loop {
        let wake = match rx.recv_timeout(POLL) {
            Ok(wake) => Some(wake),
            Err(RecvTimeoutError::Timeout) => {
                // A quiet poll: the app has shown the new snapshot by now.
                _previous = None;
                None
            }
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let mut decided_elsewhere = false;
        // Coalesce a burst of file events into one look.
        for next in wake
            .into_iter()
            .chain(std::iter::from_fn(|| rx.try_recv().ok()))
        {
            if !reply.answer(&current, next, &mut decided_elsewhere) {
                return;
            }
        }
        let look = match followed.look(decided_elsewhere) {
            Ok(look) => look,
            Err(e) => {
                if !send(Update::Error(e.to_string())) {
                    return;
                }
                continue;
            }
        };
        if look.change == Change::Gone {
            if !gone && !send(Update::Snapshot(current.clone(), Change::Gone)) {
                return;
            }
            gone = true;
            continue;
        }
        gone = false;
        if !look.changes_anything() {
            continue;
        }
        if look.decided {
            if let Err(e) = followed.read_decisions(&*backend.channel) {
                if !send(Update::Error(e.to_string())) {
                    return;
                }
            }
        }
        match snapshot_of(&mut followed, Some(&current)) {
            Ok(snapshot) => {
                snapshot.build_newest_view();
                let before = std::mem::replace(&mut current, Arc::new(snapshot));
                if !send(Update::Snapshot(current.clone(), look.change)) {
                    return;
                }
                _previous = Some(before);
            }
            Err(e) => {
                if !send(Update::Error(e.to_string())) {
                    return;
                }
            }
        }
    }
}

/// Reads the texts of events for display.
pub fn read_texts(
    source: &(impl LineSource + ?Sized),
    format: Format,
    wanted: &[TextRef],
) -> Vec<(usize, EventText)> {
    wanted
        .iter()
        .map(
            |&TextRef {
                 index,
                 offset,
                 span,
                 part,
                 depth,
             }| {
                let text = match source.line(offset, span) {
                    Ok(bytes) => event_text(&bytes, format, part, depth),
                    Err(e) => {
                        let said = format!("(cannot read this line: {e})");
                        EventText {
                            text: if depth > Depth::Gist {
                                said.clone()
                            } else {
                                String::new()
                            },
                            gist: said,
                            depth,
                            ..EventText::default()
                        }
                    }
                };
                (index, text)
            },
        )
        .collect()
}

fn serve(
    path: &Path,
    snapshot: &Snapshot,
    request: Request,
    backend: &crate::store::channel::Backend,
) -> Update {
    match request {
        Request::BuildView {
            snapshot: shown,
            compaction,
        } => {
            shown.0.build_view(&compaction);
            // Building one lets go of another: its pages go back to the system (not on
            // a followed log's looks, which build the newest compaction's alone).
            super::memory::give_back_free_memory();
            Update::ViewBuilt
        }
        Request::Texts(wanted) => match crate::session::open_log(path) {
            Ok(file) => Update::Texts(read_texts(&file, snapshot.session.format, &wanted)),
            Err(e) => Update::Error(format!("{}: {e}", path.display())),
        },
        Request::Search { query } => match crate::session::open_log(path) {
            Ok(file) => {
                let events = search(&file, &snapshot.session, &query);
                Update::Found { query, events }
            }
            Err(e) => Update::Error(format!("{}: {e}", path.display())),
        },
        Request::Decide {
            compaction,
            verdict,
            by,
        } => {
            let result = match snapshot.analysis.compaction(&compaction) {
                Some(analysis) => record_decision(
                    path,
                    backend,
                    &snapshot.session,
                    analysis,
                    verdict,
                    &by,
                    Some("decided in the ctxlens TUI".into()),
                ),
                None => Err(RecordError::NoCompaction { id: compaction }),
            };
            Update::Decided(result)
        }
    }
}

/// Every event whose text, as a view shows it, holds `query` in any case (ASCII case
/// folded), in log order. A line is first asked whole, bytes at a time, and only a line
/// that holds the query is read as text: a search does not land on an event for a word
/// of its JSON (`"type"`) that no view shows.
pub fn search(
    source: &(impl LineSource + ?Sized),
    session: &ctxlens_core::model::Session,
    query: &str,
) -> Vec<usize> {
    let needle = query.to_ascii_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let holds = |bytes: &[u8]| finder.find(&bytes.to_ascii_lowercase()).is_some();
    // A query JSON would write escaped (a quote, a backslash, a control or non-ASCII
    // character) may stand in a line only as its escape.
    let escapable = needle
        .bytes()
        .any(|b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b));
    session
        .events
        .iter()
        .enumerate()
        .filter(|(_, event)| {
            let Ok(bytes) = source.line(event.offset, u64::from(event.span)) else {
                return false;
            };
            let may_hold = holds(&bytes) || (escapable && bytes.contains(&b'\\'));
            may_hold && {
                let text = event_text(&bytes, session.format, event.part, Depth::Whole).text;
                holds(text.as_bytes())
            }
        })
        .map(|(index, _)| index)
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::mpsc::channel;

    const SAMPLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample-sessions/seed-migration-rollback.jsonl"
    );

    /// Runs `test` with the first read's answering side on a partial snapshot of the
    /// sample log, the sending end of the worker's wakes and the app's end of the
    /// answers.
    fn with_app(test: impl FnOnce(&mut AppRequests, &Snapshot, Sender<Wake>, Receiver<Msg>)) {
        let path = Path::new(SAMPLE);
        let session = crate::session::read(path).unwrap();
        let analysis = ctxlens_core::analysis::Analyzer::default().analyze(&session, &[], false);
        let partial = Snapshot::from_analysis(session, analysis, None);
        let backend = crate::store::channel::Backend::files(path);
        let (tx, mut rx) = channel();
        let (to_app, from_worker) = channel();
        let mut app = AppRequests {
            reply: Reply {
                path,
                backend: &backend,
                to_app: &to_app,
            },
            rx: &mut rx,
        };
        test(&mut app, &partial, tx, from_worker);
    }

    /// A look that takes long (a partial analysis of a large log) runs while the app's
    /// requests are answered from the snapshot shown: here the look ends only once the
    /// app has its answer, and times out when the answer waits for the look.
    #[test]
    fn a_long_look_does_not_hold_up_the_apps_requests() {
        with_app(|app, partial, tx, from_worker| {
            let mut decided = false;
            let answered = app.answer_during(Some(partial), &mut decided, || {
                let search = Request::Search {
                    query: "nowhere-in-the-log".into(),
                };
                tx.send(Wake::Request(search)).unwrap();
                tx.send(Wake::Decided).unwrap();
                from_worker.recv_timeout(Duration::from_secs(10)).ok()
            });
            let Some(Some(Msg::Worker(Update::Found { .. }))) = answered else {
                panic!("the search was not answered while the look ran");
            };
            // The decision is noted for the caller (which reads the decisions again) or
            // still waiting: not lost.
            assert!(decided || matches!(app.rx.try_recv(), Ok(Wake::Decided)));
        });
    }

    /// A look that panics raises its panic here: the thread that answers meanwhile
    /// ends with it (waiting for it would hang the worker for ever).
    #[test]
    fn a_look_that_panics_does_not_leave_the_answering_thread_behind() {
        // The app is still there (`_tx`, `_from_worker`): its end would stop the
        // answering thread anyway.
        with_app(|app, partial, _tx, _from_worker| {
            let mut decided = false;
            let looked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                app.answer_during(Some(partial), &mut decided, || -> u8 {
                    panic!("the look failed")
                })
            }));
            assert!(looked.is_err());
        });
    }
}
