//! Folder mode: the session logs under a folder, newest first, with what each holds;
//! rescanned in the background so the list stays live.

use super::Msg;
use crate::sanitize;
use crate::tui::view::style::Theme;
use crossterm::event::KeyEvent;
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
    pub format: &'static str,
    pub compactions: usize,
    pub pending: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Compactions whose summary cannot be read.
    pub opaque: usize,
    /// Written to in the last minute.
    pub live: bool,
    /// Read and analysed (the scanner lists logs first and reads them after).
    pub read: bool,
    pub unreadable: Option<String>,
}

/// Session logs under `root` (`*.jsonl`, not sidecars), at most four folders deep.
pub fn find_logs(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && depth < 4 && !name.ends_with(".spill") && !name.starts_with('.') {
                walk(&path, depth + 1, out);
            } else if kind.is_file()
                && name.ends_with(".jsonl")
                && !name.ends_with(".decisions.jsonl")
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, 0, &mut out);
    out
}

fn summarize(root: &Path, path: &Path, modified: SystemTime) -> Entry {
    let mut entry = summarize_name(root, path, modified);
    entry.read = true;
    match super::snapshot::Snapshot::load(path) {
        Ok(snapshot) => {
            entry.format = snapshot.session.format.as_str();
            entry.compactions = snapshot.analysis.compactions.len();
            entry.pending = snapshot.pending();
            entry.errors = snapshot.errors();
            entry.warnings = snapshot.analysis.findings.len() - entry.errors;
            entry.opaque = snapshot
                .analysis
                .findings
                .iter()
                .filter(|f| f.kind.name() == "opaque_summary")
                .count();
        }
        Err(e) => entry.unreadable = Some(e),
    }
    entry
}

/// The entry of a log before it is read: name, time, liveness.
fn summarize_name(root: &Path, path: &Path, modified: SystemTime) -> Entry {
    // Name a log after its root's folder too: with two roots, names could clash.
    let base = root
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| Path::new(n).join(root.file_name().unwrap_or_default()));
    let relative = path.strip_prefix(root).unwrap_or(path);
    let name = base
        .map_or_else(|| relative.to_path_buf(), |b| b.join(relative))
        .display()
        .to_string();
    let live = SystemTime::now()
        .duration_since(modified)
        .is_ok_and(|age| age < Duration::from_secs(60));
    Entry {
        path: path.to_owned(),
        name,
        modified,
        format: "?",
        compactions: 0,
        pending: 0,
        errors: 0,
        warnings: 0,
        opaque: 0,
        live,
        read: false,
        unreadable: None,
    }
}

/// Rescans the roots every two seconds, re-reading only logs whose size or time changed,
/// newest first, and sends what it has at least every 300 ms: a folder of many large
/// transcripts lists at once and fills in.
pub fn spawn_scanner(roots: Vec<PathBuf>, to_app: Sender<Msg>) {
    std::thread::spawn(move || {
        let mut known: HashMap<PathBuf, (u64, SystemTime, Entry)> = HashMap::new();
        let mut last: Vec<Entry> = Vec::new();
        let send = |entries: &Vec<Entry>, last: &mut Vec<Entry>| {
            if entries != last {
                *last = entries.clone();
                return to_app.send(Msg::Folder(entries.clone())).is_ok();
            }
            true
        };
        loop {
            let mut files: Vec<(&PathBuf, PathBuf, u64, SystemTime)> = roots
                .iter()
                .flat_map(|root| find_logs(root).into_iter().map(move |p| (root, p)))
                .filter_map(|(root, path)| {
                    let meta = std::fs::metadata(&path).ok()?;
                    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    Some((root, path, meta.len(), modified))
                })
                .collect();
            files.sort_by(|a, b| b.3.cmp(&a.3).then(a.1.cmp(&b.1)));
            let fresh = |path: &Path, len: u64, modified: SystemTime| {
                known
                    .get(path)
                    .filter(|(l, t, _)| *l == len && *t == modified)
                    .map(|(_, _, e)| e.clone())
            };
            let mut entries: Vec<Entry> = files
                .iter()
                .map(|(root, path, len, modified)| {
                    fresh(path, *len, *modified)
                        .unwrap_or_else(|| summarize_name(root, path, *modified))
                })
                .collect();
            if !send(&entries, &mut last) {
                return;
            }
            let mut sent = std::time::Instant::now();
            for (i, (root, path, len, modified)) in files.iter().enumerate() {
                if entries[i].read {
                    continue;
                }
                let entry = summarize(root, path, *modified);
                known.insert(path.clone(), (*len, *modified, entry.clone()));
                entries[i] = entry;
                if sent.elapsed() > Duration::from_millis(300) {
                    if !send(&entries, &mut last) {
                        return;
                    }
                    sent = std::time::Instant::now();
                }
            }
            if !send(&entries, &mut last) {
                return;
            }
            std::thread::sleep(Duration::from_secs(2));
        }
    });
}

pub struct FolderApp {
    pub root: String,
    pub entries: Vec<Entry>,
    pub cursor: usize,
    pub scanned: bool,
    pub color: bool,
    /// Why the last session could not be opened.
    pub message: Option<String>,
}

pub enum FolderAction {
    None,
    Open(PathBuf),
    Quit,
}

impl FolderApp {
    pub fn on_key(&mut self, key: KeyEvent) -> FolderAction {
        use super::keys::{command_for, Command};
        self.message = None;
        match command_for(key) {
            Some(Command::Quit) => return FolderAction::Quit,
            Some(Command::Down) => {
                self.cursor = (self.cursor + 1).min(self.entries.len().saturating_sub(1))
            }
            Some(Command::Up) => self.cursor = self.cursor.saturating_sub(1),
            Some(Command::Top) => self.cursor = 0,
            Some(Command::Bottom) => self.cursor = self.entries.len().saturating_sub(1),
            Some(Command::Open) => {
                if let Some(entry) = self.entries.get(self.cursor) {
                    return FolderAction::Open(entry.path.clone());
                }
            }
            _ => {}
        }
        FolderAction::None
    }

    pub fn set_entries(&mut self, entries: Vec<Entry>) {
        let selected = self.entries.get(self.cursor).map(|e| e.path.clone());
        self.entries = entries;
        self.scanned = true;
        self.cursor = selected
            .and_then(|p| self.entries.iter().position(|e| e.path == p))
            .unwrap_or(0);
    }
}

fn when(modified: SystemTime) -> String {
    let age = SystemTime::now()
        .duration_since(modified)
        .unwrap_or_default();
    match age.as_secs() {
        s if s < 60 => "now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
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
            Span::styled("   ? help", theme.dim()),
        ])),
        top,
    );
    let height = body.height.saturating_sub(2) as usize;
    let offset = app.cursor.saturating_sub(height.saturating_sub(1));
    let mut lines: Vec<Line> = app
        .entries
        .iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(i, e)| {
            let mut spans = vec![
                Span::raw(if i == app.cursor { "▶ " } else { "  " }),
                Span::styled(format!("{:>7}  ", when(e.modified)), theme.dim()),
                Span::styled(format!("{:<40} ", sanitize::line(&e.name)), theme.bold()),
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
                        "{:>3} compaction{}  ",
                        e.compactions,
                        if e.compactions == 1 { " " } else { "s" }
                    )));
                    if e.pending > 0 {
                        spans.push(Span::styled(
                            format!("{} PENDING  ", e.pending),
                            theme.yellow(),
                        ));
                    }
                    if e.errors > 0 {
                        spans.push(Span::styled(format!("{} errors  ", e.errors), theme.red()));
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
                            format!("{} warnings  ", e.warnings),
                            theme.yellow(),
                        ));
                    }
                }
            }
            if e.live {
                spans.push(Span::styled("● live", theme.green()));
            }
            let line = Line::from(spans);
            if i == app.cursor {
                line.style(theme.selected())
            } else {
                line
            }
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::styled(
            if app.scanned {
                "no session logs (*.jsonl) here"
            } else {
                "scanning…"
            },
            theme.dim(),
        ));
    }
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" Sessions (newest first) "),
        ),
        body,
    );
    let mut hints = Vec::new();
    if let Some(message) = &app.message {
        hints.push(Span::styled(
            format!(" {} ", sanitize::line(message)),
            theme.red(),
        ));
    }
    hints.extend([
        Span::styled(" Enter", theme.bold()),
        Span::raw(" open "),
        Span::styled(" j/k", theme.bold()),
        Span::raw(" move "),
        Span::styled(" q", theme.bold()),
        Span::raw(" quit"),
    ]);
    frame.render_widget(Paragraph::new(Line::from(hints)), bottom);
}
