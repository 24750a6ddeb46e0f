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

mod draw;
mod scan;
mod state;

pub use draw::draw;
pub use scan::spawn_scanner;
pub use state::{FolderAction, FolderApp};

/// A session log of the folder list, as read and analysed.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The log's path.
    pub path: PathBuf,
    /// The name shown: the path under its root.
    pub name: String,
    /// The file's modification time.
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
    /// The agent that wrote it.
    pub format: &'static str,
    /// Compactions in it.
    pub compactions: usize,
    /// Proposed compactions waiting for a decision.
    pub pending: usize,
    /// Alerts of its compactions.
    pub errors: usize,
    /// Notes of its compactions.
    pub warnings: usize,
    /// Compactions whose summary cannot be read.
    pub opaque: usize,
    /// The compaction the session is degraded since (docs/remedies.md).
    pub degraded: Option<String>,
    /// Written to in the last minute.
    pub live: bool,
    /// Read and analysed (the scanner lists logs first and reads them after).
    pub read: bool,
    /// Why the log could not be read, when it could not.
    pub unreadable: Option<String>,
    /// A subagent's transcript, listed under its session's.
    pub under_parent: bool,
    /// The model tokens it used.
    pub usage: ctxlens_core::model::TokenUsage,
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
            under_parent: false,
            usage: ctxlens_core::model::TokenUsage::default(),
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
            .map(|d| ctxlens_core::analysis::short_id(&d.since).to_owned());
        self.opaque = findings
            .filter(|f| f.kind.name() == "opaque_summary")
            .count();
        let recorded = meta.last_activity.as_deref().and_then(crate::clock::parse);
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
        // The main model: the one that wrote the most records.
        if let Some(model) = meta.models.first() {
            about.push(model.clone());
        }
        if let Some(branch) = &meta.branch {
            about.push(format!("⎇ {branch}"));
        }
        let usage = &meta.usage;
        if usage.input + usage.output > 0 {
            about.push(format!(
                "{} in · {} out · {} cache read",
                thousands(crate::legend::input_tokens(*usage)),
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
        self.usage = meta.usage;
        self
    }

    /// The project the list groups it under: the folder it ran in, or else the folder
    /// its log is in (an agent keeps a project's sessions together).
    pub fn group(&self) -> String {
        match &self.project {
            Some(project) => project.clone(),
            None => self
                .path
                .parent()
                .map(|folder| folder.display().to_string())
                .unwrap_or_default(),
        }
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

pub use crate::session::find_logs;
