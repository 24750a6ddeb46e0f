//! The operator's terminal UI: app state, worker threads, views.

pub mod app;
pub mod demo;
pub mod folder;
pub mod keys;
pub mod memory;
pub mod run;
pub mod snapshot;
pub mod terminal;
pub mod view;
pub mod worker;

/// Everything the event loop waits for, on one channel.
pub enum Msg {
    Input(crossterm::event::Event),
    Worker(worker::Update),
    Folder(Vec<folder::Entry>),
    /// SIGTERM, SIGINT or SIGHUP.
    Signal,
}
