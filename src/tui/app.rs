//! The session view's state and how actions change it (Elm style: `update` returns the
//! requests for the worker; drawing is a pure function of `App`).

use super::keys::{command_for, Command};
use super::snapshot::{Row, Snapshot};
use super::worker::{Request, TextRef, Update};
use crate::legend::EventRole;
use crate::session::display::{Depth, EventText};
use crate::session::followed::Change;
use crate::session::record::Outcome;
use crossterm::event::{KeyCode, KeyEvent, MouseEvent, MouseEventKind};
use ctxlens_core::analysis::CompactionAnalysis;
use ctxlens_core::model::{Chunked, EventKind, Phase, Verdict};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// A pane of the session view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The events, one row each.
    Timeline,
    /// The selected compaction: what its summary kept and dropped.
    Compaction,
    /// The obligations and what each compaction did to their bindings.
    Obligations,
    /// The findings worth an operator's attention.
    Alerts,
}

impl Pane {
    fn next(self) -> Pane {
        match self {
            Pane::Timeline => Pane::Compaction,
            Pane::Compaction => Pane::Obligations,
            Pane::Obligations => Pane::Alerts,
            Pane::Alerts => Pane::Timeline,
        }
    }
}

/// A window over the panes.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    /// The key table (`?`).
    Help {
        /// Rows scrolled.
        scroll: u16,
    },
    /// One event, whole (Enter).
    Detail {
        /// The event's index.
        event: usize,
        /// Rows scrolled.
        scroll: u16,
    },
    /// A decision against the gate's verdict, waiting for `y`.
    Confirm {
        /// The compaction decided.
        compaction: String,
        /// The verdict asked for.
        verdict: Verdict,
        /// The gate's verdict.
        gate: Verdict,
    },
    /// A compaction's summary, full width (Enter on a compaction in the conversation).
    Summary {
        /// The compaction's id.
        compaction: String,
        /// Rows scrolled.
        scroll: u16,
    },
    /// The search being typed (`/`).
    Search {
        /// What is typed so far.
        input: String,
    },
}

/// The compaction view's lower part, which `d` cycles through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionView {
    /// Every region token and what became of it, next to the summary sentences that
    /// mention region tokens: a real compaction at a glance.
    Tokens,
    /// The region's events and the whole summary side by side, tokens marked.
    Events,
}

impl CompactionView {
    fn next(self) -> CompactionView {
        match self {
            CompactionView::Tokens => CompactionView::Events,
            CompactionView::Events => CompactionView::Tokens,
        }
    }
}

/// What happened to the file, as the status bar says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileEvent {
    /// Nothing to say.
    None,
    /// The first read of the log is under way, and how far it has got.
    Reading(Option<crate::session::Reading>),
    /// The log shrank or was rewritten: it was read again from the start.
    Truncated,
    /// Another file now stands at the path: it was read from the start.
    Replaced,
    /// The log was deleted: what was read stays shown.
    Gone,
    /// The log could not be read, and why.
    Error(String),
}

/// Everything that can change the app.
pub enum Action {
    /// A key pressed.
    Key(KeyEvent),
    /// A mouse click or wheel.
    Mouse(MouseEvent),
    /// The terminal's new size, in columns and rows.
    Resize(u16, u16),
    /// What the worker sends.
    Worker(Update),
}

/// Most region events the compaction view shows.
pub const REGION_EVENTS_SHOWN: usize = 200;

/// What the cache of shown event texts may hold before what is out of view is dropped.
/// A line is read again in microseconds, and the timeline's rows hold gists alone
/// (thousands fit); a larger cache kept the regions of compactions shown before.
const TEXT_CACHE_BYTES: usize = 1 << 20;

/// The session view's state: what is shown and where the operator is in it.
pub struct App {
    /// The title bar's text (the log's name).
    pub title: String,
    /// The session as the worker last read it.
    pub snapshot: Arc<Snapshot>,
    /// The texts of the events shown, by event index.
    pub texts: HashMap<usize, EventText>,
    /// Texts asked of the worker and not yet come, and how deep.
    requested: HashMap<usize, Depth>,
    /// The compaction whose view model the worker was asked for, in this snapshot.
    view_asked: Option<String>,
    /// Selected timeline row.
    pub cursor: usize,
    /// First visible timeline row and the rows that fit, as last drawn.
    pub timeline_offset: Cell<usize>,
    /// The timeline's rows that fit, as last drawn.
    pub timeline_height: Cell<usize>,
    /// Whether the timeline follows the log's end as it grows (`f`).
    pub follow: bool,
    /// Events that arrived while follow was paused.
    pub unseen: usize,
    /// What became of the file, for the status bar.
    pub file_event: FileEvent,
    /// Why the log (a copy of a database session) is no longer kept up to date.
    pub stalled: Option<String>,
    /// The pane that keys act on.
    pub focus: Pane,
    /// The pane the lower half shows when the screen is too narrow for all four.
    pub lower: Pane,
    /// The window over the panes, if any.
    pub overlay: Option<Overlay>,
    /// Rows scrolled from where the compaction view starts (the first token it could
    /// not re-fetch); negative scrolls up towards the region's start.
    pub compaction_scroll: i32,
    /// What the compaction view shows below its head.
    pub compaction_view: CompactionView,
    /// Marks of region event texts by (compaction, event), computed when first drawn
    /// and kept until the snapshot changes: drawing never marks a text twice.
    region_marks: std::cell::RefCell<HashMap<(String, usize), Vec<crate::tui::view::marks::Mark>>>,
    /// Rows the obligations pane is scrolled.
    pub obligations_scroll: u16,
    /// The selected alert.
    pub alert_cursor: Option<usize>,
    /// The last search, for `n` and `N`.
    pub last_search: Option<String>,
    /// The events that hold the last search, in this snapshot (asked of the worker
    /// once; `n` and `N` walk them).
    search_hits: Option<(String, Vec<usize>)>,
    /// The way the search asked of the worker goes once its answer comes.
    search_forward: bool,
    /// The event the last search landed on: the views mark the query in it.
    pub search_hit: Option<usize>,
    /// A message for the status bar.
    pub message: Option<String>,
    /// Who decides: the decisions' `by`.
    pub operator: String,
    /// Colours on (off under `NO_COLOR`); glyphs carry the meaning either way.
    pub color: bool,
    /// The terminal's size, in columns and rows.
    pub size: (u16, u16),
    /// Esc goes back to the folder list.
    pub from_folder: bool,
    /// Whether the timeline shows bookkeeping records (`b`).
    pub show_bookkeeping: bool,
    /// Whether the timeline reads as a conversation (`c`): messages wrapped, tool calls
    /// and thinking folded to a line.
    pub conversation: bool,
    /// The events of the conversation unfolded with Enter.
    pub unfolded: HashSet<usize>,
    /// How many subagents' transcripts the session has beside it (Claude Code).
    pub subagents: usize,
    /// The operator quit.
    pub quit: bool,
    /// The operator went back to the folder list.
    pub back: bool,
}

impl App {
    /// The view of `snapshot`, titled `title`, whose decisions are `operator`'s.
    pub fn new(title: String, snapshot: Arc<Snapshot>, operator: String) -> App {
        let mut app = App {
            title,
            snapshot,
            texts: HashMap::new(),
            requested: HashMap::new(),
            view_asked: None,
            cursor: 0,
            timeline_offset: Cell::new(0),
            timeline_height: Cell::new(20),
            follow: true,
            unseen: 0,
            file_event: FileEvent::None,
            stalled: None,
            focus: Pane::Timeline,
            lower: Pane::Compaction,
            overlay: None,
            compaction_scroll: 0,
            compaction_view: CompactionView::Tokens,
            region_marks: std::cell::RefCell::new(HashMap::new()),
            obligations_scroll: 0,
            alert_cursor: None,
            last_search: None,
            search_hits: None,
            search_forward: true,
            search_hit: None,
            message: None,
            operator,
            color: true,
            size: (120, 32),
            from_folder: false,
            show_bookkeeping: false,
            conversation: false,
            unfolded: HashSet::new(),
            subagents: 0,
            quit: false,
            back: false,
        };
        app.cursor = app.last_row();
        app
    }

    fn last_row(&self) -> usize {
        self.rows().len().saturating_sub(1)
    }

    /// The timeline's rows: bookkeeping records hidden unless asked for (`b`).
    pub fn rows(&self) -> &Chunked<Row> {
        match self.show_bookkeeping {
            true => &self.snapshot.rows,
            false => &self.snapshot.reading_rows,
        }
    }

    /// Whether the selected row is a compaction.
    pub fn cursor_on_compaction(&self) -> bool {
        self.cursor_event()
            .and_then(|e| self.snapshot.session.events.get(e))
            .is_some_and(|e| matches!(e.kind, EventKind::Compaction(_)))
    }

    /// The event of the selected row.
    pub fn cursor_event(&self) -> Option<usize> {
        self.rows().get(self.cursor)?.event_index()
    }

    /// The compaction the side panes show: the one selected, else the latest one before
    /// the selected row.
    pub fn selected_compaction(&self) -> Option<&CompactionAnalysis> {
        let compactions = &self.snapshot.analysis.compactions;
        let rows = self.rows();
        let event = rows
            .range(0..self.cursor.saturating_add(1))
            .rev()
            .find_map(|r| r.event_index())?;
        if let Some(EventKind::Compaction(compaction)) =
            self.snapshot.session.events.get(event).map(|e| &e.kind)
        {
            return compactions.iter().find(|c| c.info.id == compaction.id);
        }
        compactions.iter().rev().find(|c| c.info.at <= event)
    }

    /// The marks of `text`, the shown part of region event `index`, for compaction `c`.
    pub fn region_marks(
        &self,
        c: &CompactionAnalysis,
        index: usize,
        text: &str,
    ) -> Vec<crate::tui::view::marks::Mark> {
        let key = (c.info.id.clone(), index);
        if let Some(found) = self.region_marks.borrow().get(&key) {
            return found.clone();
        }
        // Not built yet (the worker is building it): unmarked, and not kept.
        let Some((_, view)) = self.snapshot.built_view(&c.info.id) else {
            return Vec::new();
        };
        let found = view.marker.marks(text, &self.snapshot.session);
        self.region_marks.borrow_mut().insert(key, found.clone());
        found
    }

    /// The region events the compaction view shows: those with text, the first 200.
    pub fn region_shown(&self, c: &CompactionAnalysis) -> Vec<usize> {
        let events = &self.snapshot.session.events;
        c.region
            .clone()
            .filter(|&i| {
                events.get(i).is_some_and(|e| {
                    e.kind.region_text().is_some() || matches!(e.kind, EventKind::Binding { .. })
                })
            })
            .take(REGION_EVENTS_SHOWN)
            .collect()
    }

    /// Whether the selected compaction waits for an operator.
    pub fn pending_selected(&self) -> Option<&CompactionAnalysis> {
        self.selected_compaction()
            .filter(|c| c.info.phase == Phase::Proposed && c.decision.is_none())
    }

    /// Whether the panes below the timeline of a narrow screen are wanted: a pane has
    /// the focus, or the cursor is on a compaction. Otherwise a conversation being read
    /// takes their rows.
    pub fn lower_pane_wanted(&self) -> bool {
        self.focus != Pane::Timeline || self.cursor_on_compaction()
    }

    /// Whether the screen is too narrow for all four panes.
    pub fn is_narrow(&self) -> bool {
        self.size.0 < 110
    }

    fn select_event(&mut self, event: usize) {
        if let Some(row) = Snapshot::row_of_event(self.rows(), event) {
            self.cursor = row;
            self.follow = row == self.last_row() && self.follow;
            self.compaction_scroll = 0;
        }
    }

    fn pause(&mut self) {
        if self.follow {
            self.follow = false;
            self.unseen = 0;
        }
    }

    fn move_cursor(&mut self, delta: isize) {
        let last = self.last_row() as isize;
        let next = (self.cursor as isize + delta).clamp(0, last.max(0)) as usize;
        if next < self.cursor {
            self.pause();
        }
        self.cursor = next;
        self.compaction_scroll = 0;
    }

    fn page(&self) -> isize {
        self.timeline_height.get().max(1) as isize
    }

    /// Applies `action`; what to ask of the worker.
    pub fn update(&mut self, action: Action) -> Vec<Request> {
        match action {
            Action::Key(key) => self.on_key(key),
            Action::Mouse(mouse) => {
                let command = match mouse.kind {
                    MouseEventKind::ScrollUp => Command::Up,
                    MouseEventKind::ScrollDown => Command::Down,
                    _ => return Vec::new(),
                };
                (0..3).flat_map(|_| self.on_command(command)).collect()
            }
            Action::Resize(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Action::Worker(update) => {
                self.on_update(update);
                Vec::new()
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Request> {
        match self.overlay.clone() {
            Some(Overlay::Search { mut input }) => {
                match key.code {
                    KeyCode::Esc => self.overlay = None,
                    KeyCode::Enter => {
                        self.overlay = None;
                        if !input.is_empty() {
                            self.last_search = Some(input);
                            return self.search(true);
                        }
                    }
                    KeyCode::Backspace => {
                        input.pop();
                        self.overlay = Some(Overlay::Search { input });
                    }
                    KeyCode::Char(c) if !c.is_control() => {
                        input.push(c);
                        self.overlay = Some(Overlay::Search { input });
                    }
                    _ => {}
                }
                Vec::new()
            }
            Some(Overlay::Confirm {
                compaction,
                verdict,
                ..
            }) => {
                match key.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => {
                        self.overlay = None;
                        return vec![self.decide(compaction, verdict)];
                    }
                    KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => {
                        self.overlay = None;
                        self.message = Some("nothing recorded".into());
                    }
                    _ => {}
                }
                Vec::new()
            }
            Some(
                overlay @ (Overlay::Help { .. } | Overlay::Detail { .. } | Overlay::Summary { .. }),
            ) => {
                let closes = match overlay {
                    Overlay::Help { .. } => Command::Help,
                    _ => Command::Open,
                };
                let delta = match command_for(key) {
                    Some(c) if c == Command::Back || c == closes => {
                        self.overlay = None;
                        0
                    }
                    Some(Command::Quit) => {
                        self.quit = true;
                        0
                    }
                    Some(Command::Down) => 1,
                    Some(Command::Up) => -1,
                    Some(Command::PageDown) => 10,
                    Some(Command::PageUp) => -10,
                    _ => 0,
                };
                if delta != 0 {
                    let moved = |scroll: u16| {
                        (i32::from(scroll) + delta).clamp(0, i32::from(u16::MAX)) as u16
                    };
                    self.overlay = Some(match overlay {
                        Overlay::Help { scroll } => Overlay::Help {
                            scroll: moved(scroll),
                        },
                        Overlay::Detail { event, scroll } => Overlay::Detail {
                            event,
                            scroll: moved(scroll),
                        },
                        Overlay::Summary { compaction, scroll } => Overlay::Summary {
                            compaction,
                            scroll: moved(scroll),
                        },
                        other => other,
                    });
                }
                Vec::new()
            }
            None => match command_for(key) {
                Some(command) => self.on_command(command),
                None => Vec::new(),
            },
        }
    }

    fn decide(&mut self, compaction: String, verdict: Verdict) -> Request {
        self.message = Some(format!("recording {} for {compaction}…", verdict.as_str()));
        Request::Decide {
            compaction,
            verdict,
            by: self.operator.clone(),
        }
    }

    fn on_decision_key(&mut self, verdict: Verdict) -> Vec<Request> {
        let Some(compaction) = self.pending_selected() else {
            return Vec::new();
        };
        // A decision further on in the log may already stand.
        if matches!(self.file_event, FileEvent::Reading(_)) {
            self.message = Some("the log is still being read: decide when it is read".into());
            return Vec::new();
        }
        if verdict == Verdict::Refetch && compaction.extra.held.is_some() {
            self.message = Some(
                "refetch is not offered while a hook holds it: a approve · s spill · p preserve · x refuse"
                    .into(),
            );
            return Vec::new();
        }
        let format = self.snapshot.session.format;
        if verdict == Verdict::Refuse && compaction.extra.held.is_some() && !format.refuses_held() {
            self.message = Some(format!(
                "{} cannot block a compaction: refuse is not offered (a approve · s spill · p preserve)",
                format.agent_name()
            ));
            return Vec::new();
        }
        let id = compaction.info.id.clone();
        let gate = compaction.flags.verdict(false);
        if !ctxlens_core::analysis::is_override(verdict, gate) {
            vec![self.decide(id, verdict)]
        } else {
            self.overlay = Some(Overlay::Confirm {
                compaction: id,
                verdict,
                gate,
            });
            Vec::new()
        }
    }

    fn scroll(&mut self, delta: isize) {
        match self.focus {
            Pane::Timeline => self.move_cursor(delta),
            Pane::Compaction => {
                self.compaction_scroll =
                    (self.compaction_scroll as isize + delta).clamp(-100_000, 100_000) as i32
            }
            Pane::Obligations => {
                self.obligations_scroll =
                    (self.obligations_scroll as isize + delta).clamp(0, u16::MAX as isize) as u16
            }
            Pane::Alerts => {
                let n = self.snapshot.alerts.len();
                if n > 0 {
                    let at = self.alert_cursor.unwrap_or(0) as isize + delta;
                    self.alert_cursor = Some(at.clamp(0, n as isize - 1) as usize);
                }
            }
        }
    }

    fn on_command(&mut self, command: Command) -> Vec<Request> {
        match command {
            Command::Quit => self.quit = true,
            Command::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Command::Back => {
                if self.from_folder {
                    self.back = true;
                }
            }
            Command::Up => self.scroll(-1),
            Command::Down => self.scroll(1),
            Command::PageUp => self.scroll(-self.page()),
            Command::PageDown => self.scroll(self.page()),
            Command::Top => {
                if self.focus == Pane::Timeline {
                    self.pause();
                    self.cursor = 0;
                }
            }
            Command::Bottom => {
                if self.focus == Pane::Timeline {
                    self.cursor = self.last_row();
                    self.follow = true;
                    self.unseen = 0;
                }
            }
            Command::NextPane => self.next_pane(),
            Command::Open => self.open_selected(),
            Command::NextCompaction => self.jump_to_compaction(true),
            Command::PrevCompaction => self.jump_to_compaction(false),
            Command::NextAlert => self.jump_to_alert(true),
            Command::PrevAlert => self.jump_to_alert(false),
            Command::Search => {
                self.overlay = Some(Overlay::Search {
                    input: String::new(),
                })
            }
            Command::SearchNext => return self.search(true),
            Command::SearchPrev => return self.search(false),
            Command::ToggleFollow => {
                self.follow = !self.follow;
                self.unseen = 0;
                if self.follow {
                    self.cursor = self.last_row();
                }
            }
            Command::ToggleBookkeeping => {
                let event = self.cursor_event();
                self.show_bookkeeping = !self.show_bookkeeping;
                self.cursor = event
                    .and_then(|e| Snapshot::row_of_event(self.rows(), e))
                    .unwrap_or(self.cursor)
                    .min(self.last_row());
            }
            Command::ToggleConversation => self.conversation = !self.conversation,
            Command::ToggleDiff => {
                if self.selected_compaction().is_some() {
                    self.compaction_view = self.compaction_view.next();
                    self.compaction_scroll = 0;
                }
            }
            Command::Approve => return self.on_decision_key(Verdict::Approve),
            Command::Spill => return self.on_decision_key(Verdict::Spill),
            Command::Refetch => return self.on_decision_key(Verdict::Refetch),
            Command::Refuse => return self.on_decision_key(Verdict::Refuse),
            Command::Preserve => return self.on_decision_key(Verdict::Preserve),
        }
        Vec::new()
    }

    /// Tab: the next pane (on a narrow screen, through the lower tabs too).
    fn next_pane(&mut self) {
        self.focus = self.focus.next();
        if self.is_narrow() && self.focus == Pane::Timeline {
            self.lower = match self.lower {
                Pane::Compaction => Pane::Obligations,
                Pane::Obligations => Pane::Alerts,
                _ => Pane::Compaction,
            };
        }
        if self.focus != Pane::Timeline {
            self.lower = self.focus;
        }
    }

    /// Enter: an alert's event in the timeline; in the conversation, a compaction's
    /// summary, or a folded event unfolded; otherwise an event's detail.
    fn open_selected(&mut self) {
        if self.focus == Pane::Alerts {
            if let Some(event) = self
                .alert_cursor
                .and_then(|i| self.snapshot.alerts.get(i))
                .and_then(|a| a.event)
            {
                self.pause();
                self.select_event(event);
            }
        } else if let Some(event) = self.cursor_event() {
            let compaction = match self.snapshot.session.events.get(event).map(|e| &e.kind) {
                Some(EventKind::Compaction(compaction)) if self.conversation => {
                    Some(compaction.id.clone())
                }
                _ => None,
            };
            if let Some(compaction) = compaction {
                self.overlay = Some(Overlay::Summary {
                    compaction,
                    scroll: 0,
                });
                return;
            }
            let folds = self.conversation
                && self
                    .snapshot
                    .session
                    .events
                    .get(event)
                    .is_some_and(|e| EventRole::of(&e.kind).folds());
            if !folds {
                self.overlay = Some(Overlay::Detail { event, scroll: 0 });
            } else if !self.unfolded.remove(&event) {
                self.unfolded.insert(event);
            }
        }
    }

    /// The next (or previous) compaction after the cursor, wrapping around.
    fn jump_to_compaction(&mut self, forward: bool) {
        let starts: Vec<usize> = self
            .snapshot
            .analysis
            .compactions
            .iter()
            .map(|c| c.info.at)
            .collect();
        let (Some(&first), Some(&last)) = (starts.first(), starts.last()) else {
            return;
        };
        let here = self.cursor_event();
        let target = if forward {
            starts
                .iter()
                .copied()
                .find(|&s| here.is_none_or(|h| s > h))
                .unwrap_or(first)
        } else {
            starts
                .iter()
                .rev()
                .copied()
                .find(|&s| here.is_some_and(|h| s < h))
                .unwrap_or(last)
        };
        self.pause();
        self.select_event(target);
        self.lower = Pane::Compaction;
    }

    /// The next (or previous) alert, wrapping around, and its event.
    fn jump_to_alert(&mut self, forward: bool) {
        let n = self.snapshot.alerts.len();
        if n == 0 {
            return;
        }
        let next = match (self.alert_cursor, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
        };
        self.alert_cursor = Some(next);
        self.lower = Pane::Alerts;
        if let Some(event) = self.snapshot.alerts.get(next).and_then(|a| a.event) {
            self.pause();
            self.select_event(event);
        }
    }

    /// `n` (forward) or `N`: the next event that holds the last search, from the ones
    /// found in this snapshot, or found first by the worker.
    fn search(&mut self, forward: bool) -> Vec<Request> {
        let Some(query) = self.last_search.clone() else {
            return Vec::new();
        };
        if self.search_hits.as_ref().is_some_and(|(q, _)| *q == query) {
            self.go_to_hit(forward);
            return Vec::new();
        }
        self.search_forward = forward;
        self.message = Some(format!("searching for {query:?}…"));
        vec![Request::Search { query }]
    }

    /// Lands on the next hit after the cursor (or the one before), wrapping, among the
    /// hits the timeline shows; says which of how many it is, and unfolds it.
    fn go_to_hit(&mut self, forward: bool) {
        let Some((query, hits)) = &self.search_hits else {
            return;
        };
        let rows = self.rows();
        let shown: Vec<usize> = hits
            .iter()
            .copied()
            .filter(|&e| Snapshot::row_of_event(rows, e).is_some())
            .collect();
        let here = self.cursor_event();
        let at = match forward {
            true => shown
                .iter()
                .position(|&e| here.is_none_or(|h| e > h))
                .unwrap_or(0),
            false => shown
                .iter()
                .rposition(|&e| here.is_some_and(|h| e < h))
                .unwrap_or(shown.len().saturating_sub(1)),
        };
        let Some(&event) = shown.get(at) else {
            self.message = Some(format!("no event holds {query:?}"));
            self.search_hit = None;
            return;
        };
        self.message = Some(format!("{}/{} {query:?}", at + 1, shown.len()));
        self.search_hit = Some(event);
        self.pause();
        self.select_event(event);
        let folds = self
            .snapshot
            .session
            .events
            .get(event)
            .is_some_and(|e| EventRole::of(&e.kind).folds());
        if self.conversation && folds {
            self.unfolded.insert(event);
        }
    }

    fn on_update(&mut self, update: Update) {
        match update {
            Update::Snapshot(snapshot, change) => self.replace(snapshot, change, false),
            Update::Partial(snapshot) => self.replace(snapshot, Change::Grew, true),
            Update::Texts(texts) => {
                for (index, text) in texts {
                    // A shallower text answers no deeper request, and replaces no deeper
                    // text (a gist asked before may come after the whole text).
                    if self.requested.get(&index).is_some_and(|&d| text.depth >= d) {
                        self.requested.remove(&index);
                    }
                    if self.texts.get(&index).is_none_or(|t| t.depth <= text.depth) {
                        self.texts.insert(index, text);
                    }
                }
            }
            Update::Found { query, events } => {
                if self.last_search.as_ref() == Some(&query) {
                    self.search_hits = Some((query, events));
                    self.go_to_hit(self.search_forward);
                }
            }
            Update::Decided(result) => {
                self.message = Some(match result {
                    Ok(Outcome::Recorded(d)) => format!(
                        "recorded {} for {}{}",
                        d.verdict.as_str(),
                        d.compaction,
                        d.handle.map(|h| format!(" → {h}")).unwrap_or_default()
                    ),
                    Ok(Outcome::AlreadyStood(d)) => format!(
                        "a decision already stands for {}: {} by {}",
                        d.compaction,
                        d.verdict.as_str(),
                        d.by.as_deref().unwrap_or("someone")
                    ),
                    Err(e) => format!("not recorded: {e}"),
                })
            }
            Update::Error(e) => self.file_event = FileEvent::Error(e),
            Update::Stalled(why) => self.stalled = why,
            // Built in the shown snapshot: the next frame draws it.
            Update::ViewBuilt => {}
            Update::Reading(reading) => {
                if matches!(self.file_event, FileEvent::Reading(_)) {
                    self.file_event = FileEvent::Reading(Some(reading));
                }
            }
        }
    }

    /// Shows a new snapshot; a `partial` one (the first read is still going) keeps the
    /// reading progress in the status bar and the cursor where it is.
    fn replace(&mut self, snapshot: Arc<Snapshot>, change: Change, partial: bool) {
        let reread = matches!(change, Change::Truncated | Change::Replaced);
        let old_events = self.snapshot.session.events.len();
        self.file_event = match change {
            _ if partial => self.file_event.clone(),
            Change::Truncated => FileEvent::Truncated,
            Change::Replaced => FileEvent::Replaced,
            Change::Gone => FileEvent::Gone,
            Change::None | Change::Grew => {
                if matches!(
                    self.file_event,
                    FileEvent::Gone | FileEvent::Error(_) | FileEvent::Reading(_)
                ) {
                    FileEvent::None
                } else {
                    self.file_event.clone()
                }
            }
        };
        if change == Change::Gone {
            return;
        }
        if reread {
            self.texts.clear();
            self.requested.clear();
            self.unseen = 0;
        }
        let grew = snapshot.session.events.len().saturating_sub(old_events);
        self.snapshot = snapshot;
        self.view_asked = None;
        self.region_marks.borrow_mut().clear();
        if self.follow && !partial {
            self.cursor = self.last_row();
        } else {
            self.unseen += if reread || partial { 0 } else { grew };
            self.cursor = self.cursor.min(self.last_row());
        }
        if self
            .alert_cursor
            .is_some_and(|i| i >= self.snapshot.alerts.len())
        {
            self.alert_cursor = None;
        }
        // An open event may not exist in a log that was read again.
        let events = self.snapshot.session.events.len();
        if matches!(self.overlay, Some(Overlay::Detail { event, .. }) if event >= events) {
            self.overlay = None;
        }
        // A compaction whose summary is open may be gone from a log read again.
        if let Some(Overlay::Summary { compaction, .. }) = &self.overlay {
            let mut known = self.snapshot.analysis.compactions.iter();
            if !known.any(|c| c.info.id == *compaction) {
                self.overlay = None;
            }
        }
        // The hits were found in the snapshot before: the next `n` asks again.
        self.search_hits = None;
        if self.search_hit.is_some_and(|event| event >= events) {
            self.search_hit = None;
        }
    }

    /// The request for the view model of the compaction the views show, when it is not
    /// built and nobody has asked for it yet in this snapshot.
    pub fn wanted_view(&mut self) -> Option<Request> {
        let id = self.selected_compaction()?.info.id.clone();
        if self.snapshot.built_view(&id).is_some() || self.view_asked.as_ref() == Some(&id) {
            return None;
        }
        self.view_asked = Some(id.clone());
        Some(Request::BuildView {
            snapshot: super::worker::Shown(self.snapshot.clone()),
            compaction: id,
        })
    }

    /// The events whose text a view needs and nobody has asked for yet; marks them asked.
    /// The timeline's rows need their gists, the compaction view its region's events'
    /// heads and its summary whole, and an open event its whole text.
    pub fn wanted_texts(&mut self) -> Vec<TextRef> {
        let mut wanted: Vec<(usize, Depth)> = Vec::new();
        let offset = self.timeline_offset.get();
        let height = self.timeline_height.get().max(1);
        // The rows on screen and a screen on either side for smooth scrolling, and the
        // rows around the cursor: never the rows between the two, which were the whole
        // log when the timeline had no rows to draw (a terminal of 7 rows or fewer)
        // and its offset stayed at the top.
        let screen = offset.saturating_sub(height)..offset.saturating_add(2 * height);
        let cursor = self.cursor.saturating_sub(height)..self.cursor.saturating_add(height);
        for rows in [screen, cursor] {
            wanted.extend(
                self.rows()
                    .range(rows)
                    .filter_map(|r| Some((r.event_index()?, Depth::Gist))),
            );
        }
        if self.conversation {
            // The messages from the cursor down, as far as a screen of them could go.
            wanted.extend(
                self.rows()
                    .range(self.cursor..self.cursor.saturating_add(height))
                    .filter_map(|r| Some((r.event_index()?, Depth::Head))),
            );
        }
        if let Some(c) = self.selected_compaction() {
            wanted.extend(self.region_shown(c).into_iter().map(|i| (i, Depth::Head)));
            wanted.push((c.info.def, Depth::Whole));
        }
        if let Some(Overlay::Detail { event, .. }) = &self.overlay {
            wanted.push((*event, Depth::Whole));
        }
        // A row both on screen and in the region is asked for once, as deep as needed.
        let mut deepest: HashMap<usize, Depth> = HashMap::new();
        for &(index, depth) in &wanted {
            let d = deepest.entry(index).or_insert(depth);
            *d = (*d).max(depth);
        }
        let events = &self.snapshot.session.events;
        let mut out = Vec::new();
        for (index, _) in &wanted {
            let (Some(e), Some(&depth)) = (events.get(*index), deepest.get(index)) else {
                continue;
            };
            let index = *index;
            let held = self.texts.get(&index).is_some_and(|t| t.depth >= depth);
            let asked = self.requested.get(&index).is_some_and(|&d| d >= depth);
            if !held && !asked {
                self.requested.insert(index, depth);
                out.push(TextRef {
                    index,
                    offset: e.offset,
                    span: u64::from(e.span),
                    part: e.part,
                    depth,
                });
            }
        }
        // The cache holds what is near the view, not the whole log: past its budget,
        // what is out of view goes (a line's text can be 64 KiB, its raw form as much).
        let bytes: usize = self.texts.values().map(EventText::size).sum();
        if bytes > TEXT_CACHE_BYTES {
            let near: HashSet<usize> = wanted.into_iter().map(|(index, _)| index).collect();
            self.texts.retain(|index, _| near.contains(index));
        }
        out
    }

    /// The text of event `index`, if it has been read at least as deep as `depth`.
    pub fn text_to(&self, index: usize, depth: Depth) -> Option<&EventText> {
        self.texts.get(&index).filter(|t| t.depth >= depth)
    }
}
