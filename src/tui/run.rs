//! The event loops: one channel carries input, worker updates and signals; every burst of
//! messages is handled, then the screen is drawn once if anything changed.

use super::app::{Action, App, FileEvent};
use super::folder::{self, FolderAction, FolderApp};
use super::snapshot::Snapshot;
use super::terminal::{Term, TerminalGuard};
use super::worker::{self, Request, WorkerHandle};
use super::{file_error, view, Msg, TuiError};
use crate::session::record::default_operator;
use crate::store::Stores;
use crossterm::event::{Event, KeyEventKind};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

fn color_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn spawn_input(tx: Sender<Msg>) {
    std::thread::spawn(move || {
        while let Ok(event) = crossterm::event::read() {
            if tx.send(Msg::Input(event)).is_err() {
                return;
            }
        }
    });
}

fn spawn_signals(tx: Sender<Msg>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                let _ = tx.send(Msg::Signal);
            }
        });
    }
}

/// A session view on `path`: the first snapshot is read at once, then a worker follows.
pub(crate) struct Session {
    pub app: App,
    worker: WorkerHandle,
}

impl Session {
    /// The view shows at once; the worker reads the log and sends its first snapshot.
    pub(crate) fn open(path: &Path, tx: Sender<Msg>, stores: Stores) -> Result<Session, TuiError> {
        // Fail before the terminal is taken when the log cannot be opened at all.
        let meta = std::fs::metadata(path).map_err(file_error(path))?;
        if meta.is_dir() {
            return Err(TuiError::Folder {
                path: path.to_owned(),
            });
        }
        crate::session::open_log(path).map_err(file_error(path))?;
        let empty = Snapshot::build(
            ctxlens_core::model::Session::new(ctxlens_core::model::Format::Canonical),
            &[],
        );
        let title = path.display().to_string();
        let mut app = App::new(
            crate::sanitize::line(&title).into_owned(),
            Arc::new(empty),
            default_operator(),
        );
        app.color = color_allowed();
        app.subagents = crate::session::subagents_of(path).len();
        app.file_event = FileEvent::Reading(None);
        // A copy of an OpenCode session that stops being kept up to date (a full disk)
        // says so where "following" would.
        let told = tx.clone();
        crate::session::mirror::on_stall(path, move |why| {
            let _ = told.send(Msg::Worker(worker::Update::Stalled(why.map(str::to_owned))));
        });
        let worker = worker::spawn(path.to_owned(), tx, stores);
        Ok(Session { app, worker })
    }

    fn send(&self, requests: Vec<Request>) {
        for request in requests {
            self.worker.send(request);
        }
    }
}

fn to_action(event: Event) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => Some(Action::Key(key)),
        Event::Mouse(mouse) => Some(Action::Mouse(mouse)),
        Event::Resize(w, h) => Some(Action::Resize(w, h)),
        _ => None,
    }
}

enum Screen {
    Folder(FolderApp),
    Session(Box<Session>, Option<FolderApp>),
}

/// Runs the TUI on a log or a folder until the operator quits.
pub(crate) fn run(path: &Path, stores: Stores) -> Result<(), TuiError> {
    if path.is_dir() {
        run_folders(vec![path.to_owned()], stores)
    } else if crate::session::source::is_database(path) {
        // An OpenCode database opens like a folder: one session each.
        let copies = crate::session::mirror::follow(path)?;
        run_folders_titled(vec![copies], path.display().to_string(), stores)
    } else {
        let (tx, rx) = channel();
        let session = Session::open(path, tx.clone(), stores.clone())?;
        run_screen(Screen::Session(Box::new(session), None), tx, rx, stores)
    }
}

/// The folders an operator's own sessions live in: Claude Code's projects, Codex's
/// sessions, Copilot CLI's session state, Gemini CLI's chats and Qwen Code's projects,
/// honouring `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `COPILOT_HOME`, `GEMINI_CLI_HOME` and
/// `QWEN_HOME`, those
/// that exist; and the copies of OpenCode's database's sessions, kept up to date.
pub(crate) fn own_session_folders() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let from_env = |var: &str, default: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(default)))
    };
    [
        from_env("CLAUDE_CONFIG_DIR", ".claude").map(|d| d.join("projects")),
        from_env("CODEX_HOME", ".codex").map(|d| d.join("sessions")),
        from_env("COPILOT_HOME", ".copilot").map(|d| d.join("session-state")),
        // Gemini CLI's GEMINI_CLI_HOME stands for the home folder, `.gemini` under it.
        std::env::var_os("GEMINI_CLI_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.clone())
            .map(|h| h.join(".gemini").join("tmp")),
        from_env("QWEN_HOME", ".qwen").map(|d| d.join("projects")),
    ]
    .into_iter()
    .flatten()
    .filter(|d| d.is_dir())
    .chain(
        crate::session::source::default_database()
            .and_then(|db| crate::session::mirror::follow(&db).ok()),
    )
    .collect()
}

/// Folder mode over the operator's own sessions.
pub(crate) fn run_own_sessions(stores: Stores) -> Result<(), TuiError> {
    let roots = own_session_folders();
    if roots.is_empty() {
        return Err(TuiError::NoSessions);
    }
    run_folders(roots, stores)
}

/// Folder mode over `roots`, decisions and spills going where `stores` says.
pub(crate) fn run_folders(roots: Vec<PathBuf>, stores: Stores) -> Result<(), TuiError> {
    let title = roots
        .iter()
        .map(|r| r.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    run_folders_titled(roots, title, stores)
}

/// [`run_folders`] under `title` (the fleet names its server, not its mirror folder).
pub(crate) fn run_folders_titled(
    roots: Vec<PathBuf>,
    title: String,
    stores: Stores,
) -> Result<(), TuiError> {
    let (tx, rx) = channel();
    folder::spawn_scanner(roots, tx.clone());
    let screen = Screen::Folder(FolderApp::new(title, color_allowed()));
    run_screen(screen, tx, rx, stores)
}

fn run_screen(
    screen: Screen,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    stores: Stores,
) -> Result<(), TuiError> {
    let (guard, mut terminal) = TerminalGuard::enter().map_err(TuiError::Terminal)?;
    fail_a_thread_for_tests();
    spawn_input(tx.clone());
    spawn_signals(tx.clone());
    let result = event_loop(&mut terminal, screen, &rx, &tx, &stores);
    drop(guard);
    result
}

fn draw(terminal: &mut Term, screen: &mut Screen) -> io::Result<()> {
    match screen {
        Screen::Folder(folder) => {
            terminal.draw(|f| folder::draw(folder, f))?;
        }
        Screen::Session(session, _) => {
            let size = terminal.size()?;
            session.app.size = (size.width, size.height);
            terminal.draw(|f| view::draw(&session.app, f))?;
            // Drawing settled which rows are on screen: fetch their text.
            let wanted = session.app.wanted_texts();
            if !wanted.is_empty() {
                session.send(vec![Request::Texts(wanted)]);
            }
            if let Some(request) = session.app.wanted_view() {
                session.send(vec![request]);
            }
        }
    }
    Ok(())
}

fn event_loop(
    terminal: &mut Term,
    mut screen: Screen,
    rx: &Receiver<Msg>,
    tx: &Sender<Msg>,
    stores: &Stores,
) -> Result<(), TuiError> {
    let io_err = TuiError::Terminal;
    draw(terminal, &mut screen).map_err(io_err)?;
    loop {
        let Ok(first) = rx.recv() else {
            return Ok(());
        };
        let mut changed = false;
        for msg in std::iter::once(first).chain(rx.try_iter()) {
            changed = true;
            let next = match (msg, &mut screen) {
                (Msg::Signal, _) => return Ok(()),
                (Msg::Folder(entries), Screen::Folder(folder)) => {
                    folder.set_entries(entries);
                    None
                }
                (Msg::Folder(entries), Screen::Session(_, Some(folder))) => {
                    folder.set_entries(entries);
                    None
                }
                (Msg::FolderHits(query, hits), Screen::Folder(folder))
                | (Msg::FolderHits(query, hits), Screen::Session(_, Some(folder))) => {
                    folder.set_hits(query, hits);
                    None
                }
                (Msg::Input(event), Screen::Folder(folder)) => match to_action(event) {
                    Some(Action::Key(key)) => match folder.on_key(key) {
                        FolderAction::Quit => return Ok(()),
                        FolderAction::Open(path) => Some(path),
                        FolderAction::SearchText(query) => {
                            search_text(folder, query, tx);
                            None
                        }
                        FolderAction::None => None,
                    },
                    _ => None,
                },
                (Msg::Input(event), Screen::Session(session, _)) => {
                    if let Some(action) = to_action(event) {
                        let requests = session.app.update(action);
                        session.send(requests);
                    }
                    None
                }
                (Msg::Worker(update), Screen::Session(session, _)) => {
                    session.app.update(Action::Worker(update));
                    None
                }
                _ => None,
            };
            if let Some(path) = next {
                screen = open_from_folder(screen, &path, tx, stores);
            }
            if let Screen::Session(session, folder) = &mut screen {
                if session.app.quit {
                    return Ok(());
                }
                if session.app.back {
                    if let Some(folder) = folder.take() {
                        screen = Screen::Folder(folder);
                    } else {
                        session.app.back = false;
                    }
                }
            }
        }
        if changed {
            draw(terminal, &mut screen).map_err(io_err)?;
        }
    }
}

fn open_from_folder(screen: Screen, path: &Path, tx: &Sender<Msg>, stores: &Stores) -> Screen {
    let Screen::Folder(mut folder) = screen else {
        return screen;
    };
    match Session::open(path, tx.clone(), stores.clone()) {
        Ok(mut session) => {
            session.app.from_folder = true;
            Screen::Session(Box::new(session), Some(folder))
        }
        Err(e) => {
            folder.message = Some(e.to_string());
            Screen::Folder(folder)
        }
    }
}

/// In a debug build only: a background thread that panics after
/// `CTXLENS_TEST_PANIC_AFTER_MS`, so a test in a real terminal can hold the viewer to
/// its promise (it restores the terminal, says what failed and exits, never hangs).
fn fail_a_thread_for_tests() {
    #[cfg(debug_assertions)]
    if let Some(after) = std::env::var("CTXLENS_TEST_PANIC_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(after));
            panic!("a background task failed on purpose (CTXLENS_TEST_PANIC_AFTER_MS)");
        });
    }
}

/// Searches the text of every session `folder` lists for `query`, off the render
/// thread; what it finds comes back as [`Msg::FolderHits`].
fn search_text(folder: &FolderApp, query: String, tx: &Sender<Msg>) {
    let logs: Vec<PathBuf> = folder.entries.iter().map(|e| e.path.clone()).collect();
    let tx = tx.clone();
    std::thread::spawn(move || {
        let hits = crate::session::search_logs(&logs, &query);
        let _ = tx.send(Msg::FolderHits(query, hits));
    });
}
