//! Help, event detail, confirmation and search, drawn over the panes.

use super::style::Theme;
use super::text::{plain_lines, scrolled};
use crate::sanitize;
use crate::tui::app::{App, Overlay};
use crate::tui::keys::{Scope, BINDINGS};
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [row] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [cell] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    cell
}

pub(super) fn draw(app: &App, theme: Theme, frame: &mut Frame) {
    let area = frame.area();
    match &app.overlay {
        None => {}
        Some(Overlay::Help { scroll }) => draw_help(*scroll, theme, frame, area),
        Some(Overlay::Detail { event, scroll }) => {
            draw_detail(app, *event, *scroll, theme, frame, area)
        }
        Some(Overlay::Summary { compaction, scroll }) => {
            draw_summary(app, compaction, *scroll, theme, frame, area)
        }
        Some(Overlay::Confirm {
            compaction,
            verdict,
            gate,
        }) => {
            let lines = vec![
                Line::from(vec![
                    Span::raw("The gate says "),
                    Span::styled(gate.as_str().to_uppercase(), theme.verdict(*gate)),
                    Span::raw(format!(" for {}.", sanitize::line(compaction))),
                ]),
                Line::from(vec![
                    Span::raw("Record "),
                    Span::styled(verdict.as_str().to_uppercase(), theme.verdict(*verdict)),
                    Span::raw(" as an override?"),
                ]),
                Line::raw(""),
                Line::styled("y record it   n / Esc cancel", theme.bold()),
            ];
            let rect = centered(area, 50, 6);
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(lines)
                    .block(Block::default().borders(Borders::ALL).title(" Override? ")),
                rect,
            );
        }
        Some(Overlay::Search { input }) => {
            let rect = Rect {
                y: area.bottom().saturating_sub(1),
                height: 1,
                ..area
            };
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(Line::from(vec![
                    Span::styled("/", theme.bold()),
                    Span::raw(sanitize::line(input).into_owned()),
                    Span::styled("█", theme.dim()),
                    Span::styled("   Enter search · Esc cancel", theme.dim()),
                ])),
                rect,
            );
        }
    }
}

/// The key table and the words ctxlens uses, scrolled when they do not fit.
fn draw_help(scroll: u16, theme: Theme, frame: &mut Frame, area: Rect) {
    let mut lines = Vec::new();
    for binding in BINDINGS {
        let scope = match binding.scope {
            Scope::Pending => " (pending compaction)",
            Scope::Folder => " (folder)",
            _ => "",
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<6}", binding.keys), theme.bold()),
            Span::raw(format!("{}{scope}", binding.help)),
        ]));
    }
    lines.push(Line::styled(
        " mouse wheel scrolls the focused pane",
        theme.dim(),
    ));
    lines.push(Line::raw(""));
    lines.push(Line::styled(" Words", theme.bold()));
    for (word, meaning) in crate::legend::GLOSSARY {
        lines.push(Line::from(vec![
            Span::styled(format!(" {word}: "), theme.bold()),
            Span::raw(meaning),
        ]));
    }
    let rect = centered(area, 76, lines.len() as u16 + 2);
    // When the keys do not fit, the title says how to see the rest.
    let title = if lines.len() as u16 + 2 > rect.height {
        " Keys and words · j/k scroll · Esc closes "
    } else {
        " Keys and words · Esc closes "
    };
    let last_top = (lines.len() as u16).saturating_sub(rect.height.saturating_sub(2));
    frame.render_widget(Clear, rect);
    frame.render_widget(
        scrolled(
            lines,
            Block::default().borders(Borders::ALL).title(title),
            scroll.min(last_top),
            rect,
        ),
        rect,
    );
}

/// One event in full: its text, then the whole line as the log holds it.
fn draw_detail(app: &App, event: usize, scroll: u16, theme: Theme, frame: &mut Frame, area: Rect) {
    let rect = centered(
        area,
        area.width.saturating_sub(6),
        area.height.saturating_sub(4),
    );
    let Some(e) = app.snapshot.session.events.get(event) else {
        return;
    };
    let title = format!(
        " seq {} · {} · line {} · byte {} (Esc closes) ",
        e.seq,
        sanitize::line(e.kind.type_name()),
        e.line,
        e.offset
    );
    let lines = match app.text_to(event, crate::session::display::Depth::Whole) {
        Some(text) => {
            let mut lines = plain_lines(&text.text, ratatui::style::Style::new());
            lines.push(Line::raw(""));
            lines.push(Line::styled("── the whole line ──", theme.dim()));
            lines.extend(plain_lines(&text.raw, theme.dim()));
            lines
        }
        None => vec![Line::styled("reading…", theme.dim())],
    };
    window(frame, rect, lines, title, scroll);
}

/// A compaction's summary over the whole screen below the status bar, wrapped, its
/// region's identifiers marked by what it did to them, then the dropped ones that
/// something needs.
fn draw_summary(app: &App, id: &str, scroll: u16, theme: Theme, frame: &mut Frame, area: Rect) {
    let rect = Rect {
        y: area.y.saturating_add(1),
        height: area.height.saturating_sub(2),
        ..area
    };
    let Some(c) = app
        .snapshot
        .analysis
        .compactions
        .iter()
        .find(|c| c.info.id == id)
    else {
        return;
    };
    let session = &app.snapshot.session;
    let kept = c.tokens.iter().filter(|t| t.survived == Some(true)).count();
    let mut lines = vec![Line::from(vec![
        Span::styled(
            format!("gate {}", c.flags.verdict(false).as_str().to_uppercase()),
            theme.verdict(c.flags.verdict(false)),
        ),
        Span::styled(
            format!(
                " · kept {kept} of {} identifiers of the region · {} dropped that something needs",
                c.tokens.len(),
                c.dropped.len()
            ),
            theme.dim(),
        ),
    ])];
    lines.push(Line::raw(""));
    let marks = app.snapshot.built_view(id).map(|(_, marks)| marks);
    match marks
        .as_deref()
        .and_then(|m| super::compaction::summary_of(app, c, m))
    {
        Some((text, found)) => lines.extend(super::text::marked_lines(
            text,
            found,
            ratatui::style::Style::new(),
            theme,
        )),
        None => match session.summary_at(c.info.def) {
            // The session's text: made terminal-safe here (the marked copy is already).
            Some(summary) => lines.extend(plain_lines(
                &sanitize::block(&summary.text),
                ratatui::style::Style::new(),
            )),
            None => lines.push(Line::styled(
                "(the summary cannot be read: encrypted by the runtime, or missing from the log)",
                theme.yellow(),
            )),
        },
    }
    if !c.dropped.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("── dropped, and needed ({}) ──", c.dropped.len()),
            theme.bold(),
        ));
        lines.extend(
            c.dropped
                .iter()
                .map(|d| super::compaction::dropped_line(c, d, theme)),
        );
    }
    let title = format!(
        " Compaction {} · summary (j/k scroll · Esc closes) ",
        sanitize::line(id)
    );
    window(frame, rect, lines, title, scroll);
}

/// A window over the panes at `rect`: `lines` framed under `title`, wrapped, scrolled.
fn window(frame: &mut Frame, rect: Rect, lines: Vec<Line<'_>>, title: String, scroll: u16) {
    frame.render_widget(Clear, rect);
    frame.render_widget(
        scrolled(
            lines,
            Block::default().borders(Borders::ALL).title(title),
            scroll,
            rect,
        ),
        rect,
    );
}
