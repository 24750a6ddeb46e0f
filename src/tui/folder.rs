//! Folder mode: the session logs under a folder, newest first, with what each holds;
//! rescanned in the background so the list stays live.

use super::Msg;
use crate::sanitize;
use crate::tui::view::style::Theme;
use crossterm::event::KeyEvent;
use ctxlens_core::analysis::SessionAnalysis;
use ctxlens_core::model::Session;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::{Duration, SystemTime};

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub path: PathBuf,
    pub name: String,
    pub modified: SystemTime,
    /// The newest record's timestamp, or the file's time when no record has one: a
    /// copied transcript keeps the time its agent last wrote to it.
    pub activity: SystemTime,
    /// The session's title, or else the first prompt a person typed.
    pub title: Option<String>,
    /// Model, branch and token usage, on one line.
    pub about: String,
    /// The folder the session ran in: found by the filter even where not shown.
    pub project: Option<String>,
    pub format: &'static str,
    pub compactions: usize,
    pub pending: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Compactions whose summary cannot be read.
    pub opaque: usize,
    /// The compaction the session is degraded since (spec §8.4).
    pub degraded: Option<String>,
    /// Written to in the last minute.
    pub live: bool,
    /// Read and analysed (the scanner lists logs first and reads them after).
    pub read: bool,
    pub unreadable: Option<String>,
}

impl Entry {
    /// The entry of a log before it is read: name, time, liveness.
    pub fn unread(path: &Path, name: String, modified: SystemTime) -> Entry {
        Entry {
            path: path.to_owned(),
            name,
            modified,
            activity: modified,
            title: None,
            about: String::new(),
            format: "?",
            compactions: 0,
            pending: 0,
            errors: 0,
            warnings: 0,
            opaque: 0,
            degraded: None,
            live: age(modified) < Duration::from_secs(60),
            read: false,
            unreadable: None,
            project: None,
        }
    }

    /// What an analysed log holds.
    pub fn read_from(mut self, session: &Session, analysis: &SessionAnalysis) -> Entry {
        let meta = &session.meta;
        let findings = analysis.findings();
        self.read = true;
        self.format = session.format.as_str();
        self.compactions = analysis.compactions.len();
        self.pending = analysis.pending();
        self.errors = analysis.unresolved_errors();
        self.warnings = findings
            .clone()
            .filter(|f| f.severity == ctxlens_core::analysis::Severity::Warning)
            .count();
        self.degraded = analysis
            .degraded
            .as_ref()
            .map(|d| ctxlens_core::analysis::finding::short_id(&d.since).to_owned());
        self.opaque = findings
            .filter(|f| f.kind.name() == "opaque_summary")
            .count();
        let recorded = meta
            .last_activity
            .as_deref()
            .and_then(|ts| humantime::parse_rfc3339_weak(ts).ok());
        if let Some(at) = recorded {
            self.activity = at;
            // Written to just now, but its newest record is old: a copy, not a live log.
            self.live &= age(at) < Duration::from_secs(600);
        }
        self.title = meta
            .title
            .as_deref()
            .or(meta.first_prompt.as_deref())
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "));
        let mut about = Vec::new();
        if let Some(model) = meta.models.last() {
            about.push(model.clone());
        }
        if let Some(branch) = &meta.branch {
            about.push(format!("⎇ {branch}"));
        }
        let usage = &meta.usage;
        if usage.input + usage.output > 0 {
            about.push(format!(
                "{} in · {} out · {} cache read",
                thousands(usage.input + usage.cache_creation),
                thousands(usage.output),
                thousands(usage.cache_read)
            ));
        }
        // A log with no title or model still says where it ran.
        if about.is_empty() && self.title.is_none() {
            if let Some(cwd) = &session.cwd {
                about.push(format!("in {cwd}"));
            }
        }
        self.about = about.join("  ");
        self.project = session.cwd.clone();
        self
    }

    /// Whether `filter` (lower case) is in its name (with the host, in the fleet),
    /// title, format (the agent), project folder or what it is about.
    fn matches(&self, filter: &str) -> bool {
        [
            self.name.as_str(),
            self.title.as_deref().unwrap_or(""),
            self.format,
            self.project.as_deref().unwrap_or(""),
            self.about.as_str(),
        ]
        .iter()
        .any(|field| field.to_lowercase().contains(filter))
    }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn age(time: SystemTime) -> Duration {
    SystemTime::now().duration_since(time).unwrap_or_default()
}

/// `1234567` as `1.2M`, `45678` as `46k`.
fn thousands(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1000 => format!("{}k", n.div_ceil(1000)),
        n => n.to_string(),
    }
}

pub use crate::ingest::find_logs;

fn summarize(root: &Path, path: &Path, modified: SystemTime, several: bool) -> Entry {
    let entry = summarize_name(root, path, modified, several);
    // The counts only: no view model (token rows, marks) for a list entry.
    match super::snapshot::load_analysed(path) {
        Ok((session, analysis)) => entry.read_from(&session, &analysis),
        Err(e) => Entry {
            read: true,
            unreadable: Some(e.to_string()),
            ..entry
        },
    }
}

/// The entry of a log before it is read, named by its path under its root; with
/// `several` roots, after its root's folder too (names could clash).
fn summarize_name(root: &Path, path: &Path, modified: SystemTime, several: bool) -> Entry {
    let base = root
        .parent()
        .and_then(|p| p.file_name())
        .filter(|_| several)
        .map(|n| Path::new(n).join(root.file_name().unwrap_or_default()));
    let relative = path.strip_prefix(root).unwrap_or(path);
    let name = base
        .map_or_else(|| relative.to_path_buf(), |b| b.join(relative))
        .display()
        .to_string();
    Entry::unread(path, name, modified)
}

/// What says a log's entry is still current: its size and time, and those of its
/// decision sidecar and hook ledger (a held compaction shows in the ledger first).
type Signature = (u64, SystemTime, [Option<(u64, SystemTime)>; 2]);

/// A log this large is read by one reader, one after another: its analysis takes
/// several times its size, and memory a reader thread frees stays with that thread
/// for its next log, not for another's.
const LARGE_LOG: u64 = 8 << 20;

/// A log the scanner found: its root, path, size and modification time.
type FoundLog<'a> = (&'a PathBuf, PathBuf, u64, SystemTime);

/// Summarizes `files[i]` for every `i` of `unread`, in that order, on every core (up
/// to 4). `on_read` gets each as it is done; when it returns false the readers stop
/// taking work and this returns false.
fn read_in_parallel(
    files: &[FoundLog],
    unread: &[usize],
    several: bool,
    mut on_read: impl FnMut(usize, Entry) -> bool,
) -> bool {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let is_large = |i: &usize| files.get(*i).is_some_and(|f| f.2 >= LARGE_LOG);
    let (large, small): (Vec<usize>, Vec<usize>) = unread.iter().partition(|i| is_large(i));
    let next_small = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (done, finished) = std::sync::mpsc::channel::<(usize, Entry)>();
    let cores = ctxlens_core::threads::cores().min(4);
    let mut going = true;
    std::thread::scope(|scope| {
        for reader in 0..cores {
            let (done, next_small, stop) = (done.clone(), &next_small, &stop);
            let (large, small) = (&large, &small);
            scope.spawn(move || {
                // The first reader takes the large logs, then helps with the rest.
                let mine = if reader == 0 { large.as_slice() } else { &[] };
                let shared = std::iter::from_fn(|| {
                    let at = next_small.fetch_add(1, Ordering::Relaxed);
                    small.get(at).copied()
                });
                for i in mine.iter().copied().chain(shared) {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let Some((root, path, _, modified)) = files.get(i) else {
                        return;
                    };
                    let entry = summarize(root, path, *modified, several);
                    if done.send((i, entry)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        for (i, entry) in finished {
            if going && !on_read(i, entry) {
                going = false;
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    going
}

/// Rescans the roots when a file under them changes (or every ten seconds; every two
/// without file events), re-reading only logs whose size or time changed, newest first,
/// and sends what it has at least every 300 ms: a folder of many large transcripts
/// lists at once and fills in.
pub fn spawn_scanner(roots: Vec<PathBuf>, to_app: Sender<Msg>) {
    let several = roots.len() > 1;
    std::thread::spawn(move || {
        let (wake, woken) = std::sync::mpsc::channel::<()>();
        // Kept alive by the loop; without them (no inotify) it rescans every two seconds.
        let watchers: Vec<_> = roots
            .iter()
            .filter_map(|root| {
                let wake = wake.clone();
                crate::ingest::watch::watch_tree(root, move || {
                    let _ = wake.send(());
                })
            })
            .collect();
        let mut known: HashMap<PathBuf, (Signature, Entry)> = HashMap::new();
        let mut last: Vec<Entry> = Vec::new();
        let send = |entries: &Vec<Entry>, last: &mut Vec<Entry>| {
            if entries != last {
                *last = entries.clone();
                return to_app.send(Msg::Folder(entries.clone())).is_ok();
            }
            true
        };
        loop {
            let mut files: Vec<FoundLog> = roots
                .iter()
                .flat_map(|root| find_logs(root).into_iter().map(move |p| (root, p)))
                .filter_map(|(root, path)| {
                    let meta = std::fs::metadata(&path).ok()?;
                    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    Some((root, path, meta.len(), modified))
                })
                .collect();
            files.sort_by(|a, b| b.3.cmp(&a.3).then(a.1.cmp(&b.1)));
            let signature = |path: &Path, len: u64, modified: SystemTime| -> Signature {
                (len, modified, super::worker::sidecar_signature(path))
            };
            let fresh = |path: &Path, len: u64, modified: SystemTime| {
                known
                    .get(path)
                    .filter(|(s, _)| *s == signature(path, len, modified))
                    .map(|(_, e)| e.clone())
            };
            let mut entries: Vec<Entry> = files
                .iter()
                .map(|(root, path, len, modified)| {
                    fresh(path, *len, *modified)
                        .unwrap_or_else(|| summarize_name(root, path, *modified, several))
                })
                .collect();
            if !send(&entries, &mut last) {
                return;
            }
            // Read the logs not read yet on every core, most recent first; the list is
            // sent as it fills in.
            let unread: Vec<usize> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.read)
                .map(|(i, _)| i)
                .collect();
            let mut sent = std::time::Instant::now();
            let stopped = !read_in_parallel(&files, &unread, several, |i, mut entry| {
                let Some((_, path, len, modified)) = files.get(i) else {
                    return true;
                };
                // It changed while we watched: live, whatever its records say.
                if known.contains_key(path) {
                    entry.live = age(*modified) < Duration::from_secs(60);
                    entry.activity = entry.activity.max(*modified);
                }
                known.insert(
                    path.clone(),
                    (signature(path, *len, *modified), entry.clone()),
                );
                if let Some(slot) = entries.get_mut(i) {
                    *slot = entry;
                }
                if sent.elapsed() > Duration::from_millis(300) {
                    sent = std::time::Instant::now();
                    // The app is gone: let the readers run out and stop.
                    return send(&entries, &mut last);
                }
                true
            });
            if stopped {
                return;
            }
            if !send(&entries, &mut last) {
                return;
            }
            // File events wake the rescan; without them it looks every two seconds.
            let fallback = if watchers.is_empty() {
                Duration::from_secs(2)
            } else {
                Duration::from_secs(10)
            };
            // A burst of writes is one rescan.
            if woken.recv_timeout(fallback).is_ok() {
                std::thread::sleep(Duration::from_millis(50));
                while woken.try_recv().is_ok() {}
            }
        }
    });
}

pub struct FolderApp {
    pub root: String,
    /// Every log found, most recent activity first.
    pub entries: Vec<Entry>,
    /// Index into the entries the filter lets through.
    pub cursor: usize,
    pub scanned: bool,
    pub color: bool,
    /// Why the last session could not be opened.
    pub message: Option<String>,
    /// What `/` narrowed the list to (lower case), and whether it is being typed.
    pub filter: String,
    pub filtering: bool,
}

pub enum FolderAction {
    None,
    Open(PathBuf),
    Quit,
}

impl FolderApp {
    pub fn new(root: String, color: bool) -> FolderApp {
        FolderApp {
            root,
            entries: Vec::new(),
            cursor: 0,
            scanned: false,
            color,
            message: None,
            filter: String::new(),
            filtering: false,
        }
    }

    /// The entries the filter lets through, in order.
    pub fn visible(&self) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| self.filter.is_empty() || e.matches(&self.filter))
            .collect()
    }

    pub fn on_key(&mut self, key: KeyEvent) -> FolderAction {
        use super::keys::{command_for, Command};
        use crossterm::event::KeyCode;
        self.message = None;
        if self.filtering {
            match key.code {
                KeyCode::Enter => self.filtering = false,
                KeyCode::Esc => {
                    self.filtering = false;
                    self.filter.clear();
                }
                KeyCode::Backspace => {
                    self.filter.pop();
                }
                KeyCode::Char(c) if !c.is_control() => self.filter.extend(c.to_lowercase()),
                _ => {}
            }
            self.cursor = 0;
            return FolderAction::None;
        }
        let shown = self.visible().len();
        match command_for(key) {
            Some(Command::Quit) => return FolderAction::Quit,
            Some(Command::Search) => {
                self.filtering = true;
                self.filter.clear();
                self.cursor = 0;
            }
            Some(Command::Back) => {
                self.filter.clear();
                self.cursor = 0;
            }
            Some(Command::Down) => self.cursor = (self.cursor + 1).min(shown.saturating_sub(1)),
            Some(Command::Up) => self.cursor = self.cursor.saturating_sub(1),
            Some(Command::Top) => self.cursor = 0,
            Some(Command::Bottom) => self.cursor = shown.saturating_sub(1),
            Some(Command::Open) => {
                if let Some(entry) = self.visible().get(self.cursor) {
                    return FolderAction::Open(entry.path.clone());
                }
            }
            _ => {}
        }
        FolderAction::None
    }

    /// New scan results: sessions with a PENDING compaction first, the one waiting
    /// longest on top; then the others, most recent activity first. The selected log
    /// stays selected.
    pub fn set_entries(&mut self, mut entries: Vec<Entry>) {
        let selected = self.visible().get(self.cursor).map(|e| e.path.clone());
        entries.sort_by(|a, b| {
            let waiting = (b.pending > 0).cmp(&(a.pending > 0));
            let when = if a.pending > 0 && b.pending > 0 {
                a.activity.cmp(&b.activity)
            } else {
                b.activity.cmp(&a.activity)
            };
            waiting.then(when).then(a.name.cmp(&b.name))
        });
        self.entries = entries;
        self.scanned = true;
        self.cursor = selected
            .and_then(|p| self.visible().iter().position(|e| e.path == p))
            .unwrap_or(0);
    }
}

fn when(time: SystemTime) -> String {
    match age(time).as_secs() {
        s if s < 60 => "now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
}

/// The first line of an entry: when, name, format and what it holds.
fn entry_line(e: &Entry, selected: bool, theme: Theme) -> Line<'static> {
    let mut spans = vec![
        Span::raw(if selected { "▶ " } else { "  " }),
        Span::styled(format!("{:>7}  ", when(e.activity)), theme.dim()),
        Span::styled(format!("{:<34} ", sanitize::line(&e.name)), theme.bold()),
        Span::raw(format!("{:<12} ", e.format)),
    ];
    match &e.unreadable {
        None if !e.read => spans.push(Span::styled("reading…", theme.dim())),
        Some(why) => spans.push(Span::styled(
            format!("unreadable: {}", sanitize::line(why)),
            theme.red(),
        )),
        None => {
            spans.push(Span::raw(format!(
                "{} compaction{}  ",
                e.compactions,
                if e.compactions == 1 { "" } else { "s" }
            )));
            if e.pending > 0 {
                spans.push(Span::styled(
                    format!("{} PENDING  ", e.pending),
                    theme.yellow(),
                ));
            }
            if let Some(since) = &e.degraded {
                spans.push(Span::styled(
                    format!("DEGRADED since {}  ", sanitize::line(since)),
                    theme.red(),
                ));
            }
            if e.errors > 0 {
                spans.push(Span::styled(
                    format!("{}  ", plural(e.errors, "error")),
                    theme.red(),
                ));
            }
            if e.opaque > 0 {
                spans.push(Span::styled(
                    format!(
                        "{} opaque summar{}  ",
                        e.opaque,
                        if e.opaque == 1 { "y" } else { "ies" }
                    ),
                    theme.yellow(),
                ));
            }
            if e.warnings > 0 {
                spans.push(Span::styled(
                    format!("{}  ", plural(e.warnings, "warning")),
                    theme.yellow(),
                ));
            }
        }
    }
    if e.live {
        spans.push(Span::styled("● live", theme.green()));
    }
    Line::from(spans)
}

/// The second line: the title (or first prompt), then model, branch and usage.
fn about_line(e: &Entry, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::raw("           ")];
    if let Some(title) = &e.title {
        let short: String = title.chars().take(60).collect();
        spans.push(Span::raw(format!("“{}”  ", sanitize::line(&short))));
    }
    spans.push(Span::styled(
        sanitize::line(&e.about).into_owned(),
        theme.dim(),
    ));
    Line::from(spans)
}

pub fn draw(app: &FolderApp, frame: &mut Frame) {
    let theme = Theme { color: app.color };
    let [top, body, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let pending = app.entries.iter().filter(|e| e.pending > 0).count();
    let errors = app.entries.iter().filter(|e| e.errors > 0).count();
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(" ctxlens ", theme.bold()),
            Span::raw(format!(
                " {}  {} sessions  ",
                sanitize::line(&app.root),
                app.entries.len()
            )),
            Span::styled(format!("{pending} with PENDING decisions"), theme.yellow()),
            Span::raw("  "),
            Span::styled(format!("{errors} with errors"), theme.red()),
        ])),
        top,
    );
    let visible = app.visible();
    // Two lines an entry: what it holds, then what it is about.
    let fit = (body.height.saturating_sub(2) / 2).max(1) as usize;
    let offset = app.cursor.saturating_sub(fit - 1);
    let mut lines: Vec<Line> = Vec::new();
    for (i, e) in visible.iter().enumerate().skip(offset).take(fit) {
        let selected = i == app.cursor;
        let (first, second) = (entry_line(e, selected, theme), about_line(e, theme));
        if selected {
            lines.push(first.style(theme.selected()));
            lines.push(second.style(theme.selected()));
        } else {
            lines.push(first);
            lines.push(second);
        }
    }
    if lines.is_empty() {
        lines.push(Line::styled(
            match (app.scanned, app.filter.is_empty()) {
                (false, _) => "scanning…",
                (true, true) => "no session logs (*.jsonl) here",
                (true, false) => "no session matches the filter (Esc clears it)",
            },
            theme.dim(),
        ));
    }
    let title = if app.filter.is_empty() {
        " Sessions (PENDING first, then most recent activity) ".to_owned()
    } else {
        format!(
            " Sessions matching “{}”: {} of {} ",
            sanitize::line(&app.filter),
            visible.len(),
            app.entries.len()
        )
    };
    frame.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(title)),
        body,
    );
    let mut hints = Vec::new();
    if let Some(message) = &app.message {
        hints.push(Span::styled(
            format!(" {} ", sanitize::line(message)),
            theme.red(),
        ));
    }
    if app.filtering {
        hints.extend([
            Span::styled("/", theme.bold()),
            Span::raw(sanitize::line(&app.filter).into_owned()),
            Span::styled("█", theme.dim()),
            Span::styled("   Enter keep · Esc clear", theme.dim()),
        ]);
    } else {
        hints.extend([
            Span::styled(" Enter", theme.bold()),
            Span::raw(" open "),
            Span::styled(" j/k", theme.bold()),
            Span::raw(" move "),
            Span::styled(" /", theme.bold()),
            Span::raw(" filter "),
            Span::styled(" q", theme.bold()),
            Span::raw(" quit"),
        ]);
    }
    frame.render_widget(Paragraph::new(Line::from(hints)), bottom);
}
