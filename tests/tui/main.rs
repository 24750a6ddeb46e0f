//! The TUI: views as snapshots, the app driven by keys, the real binary in a pty, and
//! the demo.

#[path = "../common/mod.rs"]
mod common;

mod demo;
mod e2e_pty;
mod tui_app;
mod tui_render;
