//! The folder list's state and how keys change it.

use super::*;

/// The folder list's state.
pub struct FolderApp {
    /// The folder shown, as the title says it.
    pub root: String,
    /// Every log found, most recent activity first.
    pub entries: Vec<Entry>,
    /// Index into the entries the filter lets through.
    pub cursor: usize,
    /// The first scan has ended.
    pub scanned: bool,
    /// Colours on.
    pub color: bool,
    /// Why the last session could not be opened.
    pub message: Option<String>,
    /// What `/` narrowed the list to (lower case), and whether it is being typed.
    pub filter: String,
    /// Whether the filter is being typed.
    pub filtering: bool,
    /// The operator moved the selection: it stays on its session as rows reorder.
    /// Until then the first row is selected, whatever the scan sends first.
    pub moved: bool,
    /// The sessions whose text holds the filter, where it does first: asked when the
    /// filter is kept (Enter), for that filter.
    pub hits: Option<(String, HashMap<PathBuf, crate::session::LogHit>)>,
    /// The filter whose search of the sessions' text is under way.
    pub searching: Option<String>,
}

/// What a key in the folder list asks for.
pub enum FolderAction {
    /// Nothing beyond the list's own change.
    None,
    /// Open this session.
    Open(PathBuf),
    /// Quit.
    Quit,
    /// Search the text of every listed session for this.
    SearchText(String),
}

impl FolderApp {
    /// The list of the sessions under `root`, empty until the scanner sends them.
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
            moved: false,
            hits: None,
            searching: None,
        }
    }

    /// The entries the filter lets through, in order: by what they are (name, title,
    /// project…), or by what their text holds once that search has come back.
    pub fn visible(&self) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| self.filter.is_empty() || e.matches(&self.filter) || self.hit(e).is_some())
            .collect()
    }

    /// Where `entry`'s text first holds the filter, when the search for it found it.
    pub fn hit(&self, entry: &Entry) -> Option<&crate::session::LogHit> {
        match &self.hits {
            Some((query, hits)) if *query == self.filter && !self.filter.is_empty() => {
                hits.get(&entry.path)
            }
            _ => None,
        }
    }

    /// What the search of the sessions' text for `query` found.
    pub fn set_hits(&mut self, query: String, hits: Vec<crate::session::LogHit>) {
        if self.searching.as_ref() == Some(&query) {
            self.searching = None;
        }
        let hits = hits.into_iter().map(|h| (h.path.clone(), h)).collect();
        self.hits = Some((query, hits));
    }

    /// Applies `key`; what the list asks for.
    pub fn on_key(&mut self, key: KeyEvent) -> FolderAction {
        use crate::tui::keys::{command_for, Command};
        use crossterm::event::KeyCode;
        self.message = None;
        if self.filtering {
            match key.code {
                KeyCode::Enter => {
                    self.filtering = false;
                    self.cursor = 0;
                    if !self.filter.is_empty() {
                        self.searching = Some(self.filter.clone());
                        return FolderAction::SearchText(self.filter.clone());
                    }
                }
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
        let command = command_for(key);
        if matches!(
            command,
            Some(Command::Down | Command::Up | Command::Top | Command::Bottom)
        ) {
            self.moved = true;
        }
        match command {
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
        self.entries = under_their_sessions(by_project(entries));
        self.scanned = true;
        self.cursor = selected
            .filter(|_| self.moved)
            .and_then(|p| self.visible().iter().position(|e| e.path == p))
            .unwrap_or(0);
    }
}

/// `entries` grouped by project, each group where its first entry stood (a group with a
/// PENDING session first, then the most recently active), its entries in their order.
fn by_project(entries: Vec<Entry>) -> Vec<Entry> {
    let mut rank: HashMap<String, usize> = HashMap::new();
    for entry in &entries {
        let next = rank.len();
        rank.entry(entry.group()).or_insert(next);
    }
    let mut entries = entries;
    entries.sort_by_key(|e| rank.get(&e.group()).copied().unwrap_or(usize::MAX));
    entries
}

/// `entries` in their order, except that a subagent's transcript follows its session's
/// (its siblings by name); one whose session is not listed keeps its place.
fn under_their_sessions(entries: Vec<Entry>) -> Vec<Entry> {
    let listed: std::collections::HashSet<PathBuf> =
        entries.iter().map(|e| e.path.clone()).collect();
    let mut children: HashMap<PathBuf, Vec<Entry>> = HashMap::new();
    let mut top = Vec::new();
    for mut entry in entries {
        match crate::session::subagent_parent(&entry.path).filter(|p| listed.contains(p)) {
            Some(parent) => {
                entry.under_parent = true;
                children.entry(parent).or_default().push(entry);
            }
            None => {
                entry.under_parent = false;
                top.push(entry);
            }
        }
    }
    let mut out = Vec::with_capacity(top.len());
    for entry in top {
        let mut agents = children.remove(&entry.path).unwrap_or_default();
        agents.sort_by(|a, b| a.name.cmp(&b.name));
        out.push(entry);
        out.extend(agents);
    }
    out
}
