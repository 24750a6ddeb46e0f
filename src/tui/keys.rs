//! The one key table: it maps keys to actions, and feeds both the bottom hint bar and the
//! help overlay, so they cannot disagree.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// The row above.
    Up,
    /// The row below.
    Down,
    /// The first row.
    Top,
    /// The last row.
    Bottom,
    /// A screen up.
    PageUp,
    /// A screen down.
    PageDown,
    /// The next pane.
    NextPane,
    /// Open what is selected.
    Open,
    /// The next compaction.
    NextCompaction,
    /// The compaction before.
    PrevCompaction,
    /// Search the events.
    Search,
    /// The next match.
    SearchNext,
    /// The match before.
    SearchPrev,
    /// Follow the log's end, or stop.
    ToggleFollow,
    /// Cycle the compaction view's lower part.
    ToggleDiff,
    /// Show or hide bookkeeping records.
    ToggleBookkeeping,
    /// Read the timeline as a conversation, or as records.
    ToggleConversation,
    /// The next alert.
    NextAlert,
    /// The alert before.
    PrevAlert,
    /// Decide: approve the compaction.
    Approve,
    /// Decide: spill its region.
    Spill,
    /// Decide: refetch what it drops.
    Refetch,
    /// Decide: refuse it.
    Refuse,
    /// Decide: preserve what it drops.
    Preserve,
    /// The key table.
    Help,
    /// Close a window, or go back to the folder list.
    Back,
    /// Quit.
    Quit,
}

/// Where a key does something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Any pane of the session view.
    Session,
    /// Only while a proposed, undecided compaction is selected.
    Pending,
    /// The folder list.
    Folder,
    /// Everywhere.
    Global,
}

/// A key, what it asks for, and where it is told.
pub struct Binding {
    /// The key as the help shows it.
    pub keys: &'static str,
    /// What it asks for.
    pub command: Command,
    /// A word or two for the hint bar.
    pub label: &'static str,
    /// What it does, for the help overlay and the README.
    pub help: &'static str,
    /// Where it does something.
    pub scope: Scope,
    /// Shown in the bottom bar (the rest only in `?`).
    pub hint: bool,
}

const fn bind(
    keys: &'static str,
    command: Command,
    label: &'static str,
    help: &'static str,
    scope: Scope,
    hint: bool,
) -> Binding {
    Binding {
        keys,
        command,
        label,
        help,
        scope,
        hint,
    }
}

/// The key table: the hint bar, the help overlay and the README are made from it.
pub const BINDINGS: &[Binding] = &[
    bind(
        "a",
        Command::Approve,
        "approve",
        "approve it",
        Scope::Pending,
        true,
    ),
    bind(
        "s",
        Command::Spill,
        "spill",
        "force-spill its region to the spill store",
        Scope::Pending,
        true,
    ),
    bind(
        "r",
        Command::Refetch,
        "refetch",
        "refetch: re-summarize from the originals",
        Scope::Pending,
        true,
    ),
    bind(
        "p",
        Command::Preserve,
        "preserve",
        "preserve: re-summarize keeping its contract",
        Scope::Pending,
        true,
    ),
    bind(
        "x",
        Command::Refuse,
        "refuse",
        "refuse it",
        Scope::Pending,
        true,
    ),
    bind(
        "j ↓",
        Command::Down,
        "down",
        "move down / scroll down",
        Scope::Session,
        false,
    ),
    bind(
        "k ↑",
        Command::Up,
        "up",
        "move up / scroll up (pauses follow)",
        Scope::Session,
        false,
    ),
    bind(
        "g",
        Command::Top,
        "top",
        "first event",
        Scope::Session,
        false,
    ),
    bind(
        "G",
        Command::Bottom,
        "bottom",
        "newest event, follow again",
        Scope::Session,
        false,
    ),
    bind(
        "PgUp",
        Command::PageUp,
        "page up",
        "page up",
        Scope::Session,
        false,
    ),
    bind(
        "PgDn",
        Command::PageDown,
        "page down",
        "page down",
        Scope::Session,
        false,
    ),
    bind(
        "]",
        Command::NextCompaction,
        "next compaction",
        "next compaction (wraps)",
        Scope::Session,
        true,
    ),
    bind(
        "[",
        Command::PrevCompaction,
        "prev compaction",
        "previous compaction (wraps)",
        Scope::Session,
        false,
    ),
    bind(
        "e",
        Command::NextAlert,
        "next alert",
        "next alert",
        Scope::Session,
        true,
    ),
    bind(
        "E",
        Command::PrevAlert,
        "prev alert",
        "previous alert",
        Scope::Session,
        false,
    ),
    bind(
        "Enter",
        Command::Open,
        "open",
        "full text; a compaction's summary; unfold / open the session",
        Scope::Global,
        false,
    ),
    bind(
        "/",
        Command::Search,
        "search",
        "search event text (n of N) / filter the folder list",
        Scope::Global,
        true,
    ),
    bind(
        "n",
        Command::SearchNext,
        "next match",
        "next match",
        Scope::Session,
        false,
    ),
    bind(
        "N",
        Command::SearchPrev,
        "prev match",
        "previous match",
        Scope::Session,
        false,
    ),
    bind(
        "d",
        Command::ToggleDiff,
        "diff",
        "compaction view: tokens / events",
        Scope::Session,
        false,
    ),
    bind(
        "b",
        Command::ToggleBookkeeping,
        "bookkeeping",
        "show / hide bookkeeping (progress, snapshots, token counts)",
        Scope::Session,
        false,
    ),
    bind(
        "c",
        Command::ToggleConversation,
        "conversation",
        "timeline as rows / as a conversation (Enter unfolds a call)",
        Scope::Session,
        true,
    ),
    bind(
        "f",
        Command::ToggleFollow,
        "follow",
        "follow the newest event on / off",
        Scope::Session,
        true,
    ),
    bind(
        "Tab",
        Command::NextPane,
        "pane",
        "next pane",
        Scope::Session,
        true,
    ),
    bind(
        "Esc",
        Command::Back,
        "back",
        "close the overlay / back to the folder",
        Scope::Global,
        false,
    ),
    bind("?", Command::Help, "help", "this help", Scope::Global, true),
    bind("q", Command::Quit, "quit", "quit", Scope::Global, true),
];

/// The command a key press means, before context decides whether it does anything.
pub fn command_for(key: KeyEvent) -> Option<Command> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Command::Quit);
    }
    Some(match key.code {
        KeyCode::Char('j') | KeyCode::Down => Command::Down,
        KeyCode::Char('k') | KeyCode::Up => Command::Up,
        KeyCode::Char('g') | KeyCode::Home => Command::Top,
        KeyCode::Char('G') | KeyCode::End => Command::Bottom,
        KeyCode::PageUp => Command::PageUp,
        KeyCode::PageDown => Command::PageDown,
        KeyCode::Tab => Command::NextPane,
        KeyCode::Enter => Command::Open,
        KeyCode::Char(']') => Command::NextCompaction,
        KeyCode::Char('[') => Command::PrevCompaction,
        KeyCode::Char('/') => Command::Search,
        KeyCode::Char('n') => Command::SearchNext,
        KeyCode::Char('N') => Command::SearchPrev,
        KeyCode::Char('f') => Command::ToggleFollow,
        KeyCode::Char('d') => Command::ToggleDiff,
        KeyCode::Char('b') => Command::ToggleBookkeeping,
        KeyCode::Char('c') => Command::ToggleConversation,
        KeyCode::Char('e') => Command::NextAlert,
        KeyCode::Char('E') => Command::PrevAlert,
        KeyCode::Char('a') => Command::Approve,
        KeyCode::Char('s') => Command::Spill,
        KeyCode::Char('r') => Command::Refetch,
        KeyCode::Char('x') => Command::Refuse,
        KeyCode::Char('p') => Command::Preserve,
        KeyCode::Char('?') => Command::Help,
        KeyCode::Esc => Command::Back,
        KeyCode::Char('q') => Command::Quit,
        _ => return None,
    })
}

/// The hint bar's entries for the scopes that apply now.
pub fn hints(scopes: &[Scope]) -> impl Iterator<Item = &'static Binding> + '_ {
    BINDINGS
        .iter()
        .filter(|b| b.hint && scopes.contains(&b.scope))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_command_has_a_key_and_every_key_is_documented() {
        for binding in BINDINGS {
            let first = binding.keys.split(' ').next().unwrap();
            let code = match first {
                "Enter" => KeyCode::Enter,
                "Tab" => KeyCode::Tab,
                "Esc" => KeyCode::Esc,
                "PgUp" => KeyCode::PageUp,
                "PgDn" => KeyCode::PageDown,
                key => KeyCode::Char(key.chars().next().unwrap()),
            };
            let command = command_for(KeyEvent::new(code, KeyModifiers::NONE));
            assert_eq!(command, Some(binding.command), "{}", binding.keys);
        }
    }

    #[test]
    fn hints_are_short() {
        let hints: Vec<_> = hints(&[Scope::Pending, Scope::Session, Scope::Global])
            .map(|b| (b.keys, b.label, b.scope))
            .collect();
        assert!(hints.contains(&("s", "spill", Scope::Pending)));
        assert!(hints.iter().all(|(_, h, _)| h.len() <= 16), "{hints:?}");
        assert!(!super::hints(&[Scope::Session, Scope::Global]).any(|b| b.keys == "a"));
    }
}
