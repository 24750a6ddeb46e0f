//! The timeline read as a conversation (`c`): from the selected event down, each
//! message under a header with its role, time and model tokens, its text wrapped to
//! the pane; thinking, tool calls and tool results are one line until Enter unfolds
//! them. Only what fits the pane is built.

use super::style::Theme;
use super::text::{plain_lines, visible_part, wrapped_rows};
use super::{pane_block, timeline};
use crate::legend::EventRole;
use crate::session::display::Depth;
use crate::tui::app::{App, Pane};
use crate::tui::snapshot::Row;
use ctxlens_core::model::{EventKind, TokenUsage};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

pub(super) fn draw(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let height = area.height.saturating_sub(2);
    let width = area.width.saturating_sub(2);
    app.timeline_height.set(usize::from(height));
    app.timeline_offset.set(app.cursor);
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut rows_used = 0usize;
    for (row, &kind) in app.rows().range(app.cursor..app.rows().len()).enumerate() {
        if rows_used >= usize::from(height) {
            break;
        }
        let selected = row == 0;
        let entry = match kind {
            Row::Event(index) => entry_lines(app, theme, index as usize, selected, width),
            Row::Malformed(_) => vec![timeline::row_line(app, theme, kind, 0)],
        };
        rows_used += usize::from(wrapped_rows(&entry, width.max(1)));
        lines.extend(entry);
    }
    let lines = visible_part(lines, 0, height, width);
    let title = format!(
        " Conversation (from row {} of {}; c: rows) ",
        app.cursor + 1,
        app.rows().len()
    );
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(pane_block(title, app.focus == Pane::Timeline, theme)),
        area,
    );
}

/// The lines of one event: a message's header and text and a blank line after it, or
/// the one line of a folded call (its text below it once unfolded).
fn entry_lines(
    app: &App,
    theme: Theme,
    index: usize,
    selected: bool,
    width: u16,
) -> Vec<Line<'static>> {
    let session = &app.snapshot.session;
    let Some(event) = session.events.get(index) else {
        return Vec::new();
    };
    let role = EventRole::of(&event.kind);
    let pointer = Span::raw(if selected { "▶ " } else { "  " });
    // A subagent's records, written inline under the call that started it.
    let who = match session.is_sidechain(index) {
        true => format!("↳ subagent {}", role.label()),
        false => role.label().to_owned(),
    };
    let text = app.text_to(index, Depth::Head);
    let body = |lines: &mut Vec<Line<'static>>| match text {
        Some(t) if !t.text.is_empty() => {
            lines.extend(plain_lines(&t.text, ratatui::style::Style::new()))
        }
        Some(_) => {}
        None => lines.push(Line::from(Span::styled("…", theme.dim()))),
    };
    let clock = event.ts.map(|t| t.clock()).unwrap_or_default();
    // A message's model tokens sit at its first event, whatever that is.
    let usage = session
        .message_usage_at(index)
        .map(|u| Span::styled(format!("  {}", usage_line(u)), theme.dim()));
    let mut lines = Vec::new();
    match role {
        EventRole::User | EventRole::Assistant | EventRole::System => {
            let mut head = vec![
                pointer,
                Span::styled(who, theme.role(role).patch(theme.bold())),
                Span::styled(format!("  {clock}"), theme.dim()),
            ];
            head.extend(usage);
            lines.push(header(head, selected, theme));
            body(&mut lines);
            lines.push(Line::default());
        }
        role if role.folds() => {
            let open = app.unfolded.contains(&index);
            let gist = match (&event.kind, text) {
                (EventKind::Message { text: digest, .. }, _) => {
                    format!("{} words", digest.words)
                }
                (_, Some(t)) => t.gist.clone(),
                (_, None) => "…".to_owned(),
            };
            let mut head = vec![
                pointer,
                Span::styled(
                    format!("{} {who}", if open { "▾" } else { "▸" }),
                    theme.role(role),
                ),
            ];
            head.extend(usage);
            head.push(Span::raw(format!("  {gist}")));
            lines.push(header(one_row(head, width), selected, theme));
            if open {
                body(&mut lines);
                lines.push(Line::default());
            }
        }
        _ => {
            let mut line = timeline::row_line(app, theme, Row::event(index), 0);
            line.spans.insert(0, pointer);
            lines.push(header(one_row(line.spans, width), selected, theme));
        }
    }
    match (&app.last_search, app.search_hit) {
        (Some(query), Some(hit)) if hit == index => {
            super::text::highlighted(lines, query, theme.found())
        }
        _ => lines,
    }
}

/// `spans` cut to one row of `width` cells, a cut marked `…`: a folded line stays a line.
fn one_row(spans: Vec<Span<'static>>, width: u16) -> Vec<Span<'static>> {
    use unicode_width::UnicodeWidthChar;
    let width = usize::from(width);
    let total: usize = spans.iter().map(Span::width).sum();
    if total <= width {
        return spans;
    }
    let mut left = width.saturating_sub(1);
    let mut out = Vec::new();
    for span in spans {
        let cells = span.width();
        if cells <= left {
            left -= cells;
            out.push(span);
            continue;
        }
        let mut cut = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if w > left {
                break;
            }
            left -= w;
            cut.push(c);
        }
        out.push(Span::styled(cut, span.style));
        break;
    }
    out.push(Span::raw("…"));
    out
}

fn header(spans: Vec<Span<'static>>, selected: bool, theme: Theme) -> Line<'static> {
    let line = Line::from(spans);
    match selected {
        true => line.style(theme.selected()),
        false => line,
    }
}

/// `in 12 · out 1.3k · cache read 48k`: the counts a reader compares, to two figures;
/// "in" as everywhere ([`crate::legend::input_tokens`]).
fn usage_line(usage: TokenUsage) -> String {
    let mut parts = vec![
        format!("in {}", short_count(crate::legend::input_tokens(usage))),
        format!("out {}", short_count(usage.output)),
    ];
    if usage.cache_read > 0 {
        parts.push(format!("cache read {}", short_count(usage.cache_read)));
    }
    parts.join(" · ")
}

fn short_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..10_000 => format!("{:.1}k", n as f64 / 1e3),
        10_000..1_000_000 => format!("{}k", n / 1_000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_short() {
        assert_eq!(short_count(12), "12");
        assert_eq!(short_count(1_349), "1.3k");
        assert_eq!(short_count(48_120), "48k");
        assert_eq!(short_count(2_400_000), "2.4M");
        let usage = TokenUsage {
            input: 3,
            output: 1_349,
            cache_read: 40_000,
            cache_creation: 8_120,
        };
        assert_eq!(usage_line(usage), "in 8.1k · out 1.3k · cache read 40k");
    }
}
