//! The status bar, the lower tabs of the narrow layout, and the hint bar.

use super::style::Theme;
use crate::tui::app::{App, FileEvent, Pane};
use crate::tui::keys::{hints, Scope};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub fn status_bar(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let snapshot = &app.snapshot;
    let follow = if app.follow {
        Span::styled("● following", theme.green())
    } else if app.unseen > 0 {
        Span::styled(format!("‖ paused (+{} new)", app.unseen), theme.yellow())
    } else {
        Span::styled("‖ paused", theme.yellow())
    };
    let file_event = match &app.file_event {
        FileEvent::None => None,
        FileEvent::Reading => Some(Span::styled("  reading the log…", theme.yellow())),
        FileEvent::Truncated => Some(Span::styled(" truncated, re-read", theme.yellow())),
        FileEvent::Replaced => Some(Span::styled(" replaced, re-read", theme.yellow())),
        FileEvent::Gone => Some(Span::styled(" ✖ file gone", theme.red())),
        FileEvent::Error(e) => Some(Span::styled(format!(" ✖ {e}"), theme.red())),
    };
    let pending = snapshot.pending();
    let errors = snapshot.errors();
    // Narrow screens keep the counts and drop what the operator already knows.
    let title = if app.is_narrow() {
        app.title
            .rsplit('/')
            .next()
            .unwrap_or(&app.title)
            .to_owned()
    } else {
        app.title.clone()
    };
    let mut spans = vec![Span::styled(title, theme.bold()), Span::raw("  ")];
    if !app.is_narrow() {
        spans.insert(0, Span::styled(" ctxlens  ", theme.bold()));
        spans.push(Span::raw(snapshot.session.format.as_str()));
        spans.push(Span::raw("  "));
    }
    spans.push(follow);
    spans.extend(file_event);
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    spans.push(Span::raw(format!(
        "  {}  {}",
        plural(snapshot.session.events.len(), "event"),
        plural(snapshot.analysis.compactions.len(), "compaction")
    )));
    if pending > 0 {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(
            format!("{pending} PENDING"),
            theme.yellow().add_modifier(ratatui::style::Modifier::BOLD),
        ));
    }
    if errors > 0 {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("{errors} errors"), theme.red()));
    }
    if !snapshot.session.malformed.is_empty() {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(
            format!("{} malformed lines", snapshot.session.malformed.len()),
            theme.yellow(),
        ));
    }
    spans.push(Span::styled("   ? help", theme.dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn tabs(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    for (pane, name) in [
        (Pane::Compaction, "Compaction"),
        (Pane::Obligations, "Obligations"),
        (Pane::Alerts, "Alerts"),
    ] {
        let style = if app.lower == pane {
            theme.selected()
        } else {
            theme.dim()
        };
        spans.push(Span::styled(format!(" {name} "), style));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(" Tab switches", theme.dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn hint_bar(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let mut scopes = vec![Scope::Session, Scope::Global];
    if app.pending_selected().is_some() {
        scopes.push(Scope::Pending);
    }
    let mut spans = Vec::new();
    if let Some(message) = &app.message {
        spans.push(Span::styled(format!(" {message} "), theme.yellow()));
        spans.push(Span::raw(" "));
    }
    for (keys, label) in hints(&scopes) {
        spans.push(Span::styled(format!(" {keys}"), theme.bold()));
        spans.push(Span::raw(format!(" {label} ")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
