//! Entering and leaving the terminal's raw, alternate-screen mode. The terminal is
//! restored on every way out: a normal return, a panic on any thread (then the
//! previous panic hook says what failed and the process exits 101), and SIGTERM /
//! SIGINT / SIGHUP (the event loop ends and the guard drops).
//!
//! The restoring bytes are written to the terminal's file descriptor directly, never
//! through `Stdout`'s lock: a panic on a background thread while the main thread holds
//! that lock must not wait on it forever.

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io::{self, Stdout};
use std::sync::Once;

pub(crate) type Term = Terminal<CrosstermBackend<Stdout>>;

pub(crate) struct TerminalGuard;

fn restore() {
    let _ = disable_raw_mode();
    let mut bytes = Vec::new();
    let _ = crossterm::queue!(
        bytes,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    write_unlocked(&bytes);
}

/// Writes `bytes` to standard output's descriptor without taking `Stdout`'s lock.
fn write_unlocked(mut bytes: &[u8]) {
    use std::os::fd::AsFd;
    let stdout = io::stdout();
    while !bytes.is_empty() {
        match rustix::io::write(stdout.as_fd(), bytes) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
        }
    }
}

impl TerminalGuard {
    pub(crate) fn enter() -> io::Result<(TerminalGuard, Term)> {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
                eprintln!("ctxlens: stopped: a part of the viewer failed (above); the terminal is restored");
                // A thread that died would leave the viewer waiting on it: end here.
                std::process::exit(101);
            }));
        });
        enable_raw_mode()?;
        let guard = TerminalGuard;
        execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
        let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        Ok((guard, terminal))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}
