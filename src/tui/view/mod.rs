//! Drawing: a pure function of the app's state.
//!
//! ```text
//!  status bar: file, format, follow state, counts                        ? help
//! ┌ Timeline ──────────────┐┌ Compaction k1 · proposed · gate: SPILL ───────┐
//! │ seq time kind gist     ││ ratios, dropped bindings, decision            │
//! │▶402 COMPACTION k1 SPILL││ region (tokens marked)     │ summary           │
//! ├ Obligations at k1 ─────┤├ Alerts ───────────────────────────────────────┤
//! │ ob-rollback  ✖ dropped ││ ✖ k1 non_idempotent …                         │
//! └────────────────────────┘└───────────────────────────────────────────────┘
//!  hint bar (from the key table)
//! ```
//! Narrower than 110 columns, the timeline sits on top and the other three panes share
//! the lower half as tabs.

mod compaction;
mod conversation;
pub mod marks;
mod overlays;
mod side;
mod status;
pub(crate) mod style;
mod text;
mod timeline;
pub mod token_rows;

use super::app::{App, Pane};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Borders};
use ratatui::Frame;
use style::Theme;

/// Draws the session view.
pub fn draw(app: &App, frame: &mut Frame) {
    let theme = Theme { color: app.color };
    let [top, body, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(4),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    status::status_bar(app, theme, frame, top);
    if app.is_narrow() && app.conversation && !app.lower_pane_wanted() {
        // A conversation is read: it gets the screen, the panes below fold to their tabs
        // until a compaction is selected or a pane has the focus.
        let [upper, tabs] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(body);
        timeline::draw(app, theme, frame, upper);
        status::tabs(app, theme, frame, tabs);
    } else if app.is_narrow() {
        // A compaction the cursor is on gets the most room: its view is what the
        // operator reads and decides on; the timeline keeps a few rows around it.
        let timeline_share = match app.lower == Pane::Compaction && app.cursor_on_compaction() {
            true => 30,
            false => 45,
        };
        let [upper, lower] = Layout::vertical([
            Constraint::Percentage(timeline_share),
            Constraint::Percentage(100 - timeline_share),
        ])
        .areas(body);
        timeline::draw(app, theme, frame, upper);
        let [tabs, pane] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(lower);
        status::tabs(app, theme, frame, tabs);
        draw_pane(app, theme, frame, pane, app.lower);
    } else {
        // A conversation is read line by line: it gets the wider column.
        let left_share = if app.conversation { 55 } else { 38 };
        let [left, right] = Layout::horizontal([
            Constraint::Percentage(left_share),
            Constraint::Percentage(100 - left_share),
        ])
        .areas(body);
        let [timeline_area, obligations] =
            Layout::vertical([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(left);
        let [compaction_area, alerts] =
            Layout::vertical([Constraint::Percentage(68), Constraint::Percentage(32)]).areas(right);
        timeline::draw(app, theme, frame, timeline_area);
        draw_pane(app, theme, frame, obligations, Pane::Obligations);
        draw_pane(app, theme, frame, compaction_area, Pane::Compaction);
        draw_pane(app, theme, frame, alerts, Pane::Alerts);
    }
    status::hint_bar(app, theme, frame, bottom);
    overlays::draw(app, theme, frame);
}

fn draw_pane(app: &App, theme: Theme, frame: &mut Frame, area: Rect, pane: Pane) {
    match pane {
        Pane::Timeline => timeline::draw(app, theme, frame, area),
        Pane::Compaction => compaction::draw(app, theme, frame, area),
        Pane::Obligations => side::obligations(app, theme, frame, area),
        Pane::Alerts => side::alerts(app, theme, frame, area),
    }
}

/// A pane's frame, its border lit when it has the focus.
fn pane_block(title: String, focused: bool, theme: Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.focused_border(focused))
        .title(title)
}
