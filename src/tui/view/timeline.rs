//! The timeline: one row per event (and per unreadable line), compactions standing out.

use super::pane_block;
use super::style::{severity_glyph, Theme};
use crate::legend::EventRole;
use crate::sanitize;
use crate::tui::app::{App, Pane};
use crate::tui::snapshot::Row;
use ctxlens_core::model::{
    Bookkeeping, EventKind, Format, ObligationEvent, ObligationStatus, Phase, Timestamp,
};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

fn clock(ts: Option<Timestamp>) -> String {
    ts.map_or_else(|| "--:--:--".into(), Timestamp::clock)
}

pub(super) fn draw(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    if app.conversation {
        return super::conversation::draw(app, theme, frame, area);
    }
    let snapshot = &app.snapshot;
    let height = area.height.saturating_sub(2) as usize;
    // Keep the cursor in view, scrolling as little as possible.
    let mut offset = app.timeline_offset.get();
    if app.cursor < offset {
        offset = app.cursor;
    } else if height > 0 && app.cursor >= offset + height {
        offset = app.cursor + 1 - height;
    }
    let rows = app.rows();
    offset = offset.min(rows.len().saturating_sub(height.max(1)));
    app.timeline_offset.set(offset);
    app.timeline_height.set(height);

    let seq_width = snapshot
        .session
        .events
        .last()
        .map_or(3, |e| e.seq.to_string().len().max(3));
    let lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(row, &kind)| {
            let selected = row == app.cursor;
            let mut line = row_line(app, theme, kind, seq_width);
            line.spans
                .insert(0, Span::raw(if selected { "▶" } else { " " }));
            if selected {
                line = line.style(theme.selected());
            }
            let hit = app.search_hit.is_some() && kind.event_index() == app.search_hit;
            match (&app.last_search, hit) {
                (Some(query), true) => super::text::highlighted(vec![line], query, theme.found())
                    .pop()
                    .unwrap_or_default(),
                _ => line,
            }
        })
        .collect();
    let hidden = snapshot.rows.len() - rows.len();
    let title = match hidden {
        0 => format!(" Timeline ({} rows) ", rows.len()),
        _ => format!(
            " Timeline ({} rows, {hidden} bookkeeping hidden: b) ",
            rows.len()
        ),
    };
    frame.render_widget(
        Paragraph::new(lines).block(pane_block(title, app.focus == Pane::Timeline, theme)),
        area,
    );
}

pub(super) fn row_line(app: &App, theme: Theme, row: Row, seq_width: usize) -> Line<'static> {
    let snapshot = &app.snapshot;
    let event_index = match row {
        Row::Event(i) => i as usize,
        Row::Malformed(i) => {
            let Some(m) = snapshot.session.malformed.detailed().get(i as usize) else {
                return Line::default();
            };
            return Line::from(vec![
                Span::styled("✖", theme.red()),
                Span::styled(
                    format!(
                        "{:>seq_width$} line {} malformed: {}",
                        "",
                        m.line,
                        sanitize::line(&m.reason)
                    ),
                    theme.red(),
                ),
            ]);
        }
    };
    let Some(event) = snapshot.session.events.get(event_index) else {
        return Line::default();
    };
    let marker = match snapshot.markers.get(&event_index) {
        Some(&severity) => Span::styled(severity_glyph(severity), theme.severity(severity)),
        None => Span::raw(" "),
    };
    let head = format!("{:>seq_width$} {} ", event.seq, clock(event.ts));
    let mut spans = vec![marker, Span::raw(head)];
    match &event.kind {
        EventKind::Compaction(compaction) => {
            let (id, phase) = (&compaction.id, compaction.phase);
            let analysis = snapshot.analysis.compaction(id);
            let verdict = analysis.map(|c| c.flags.verdict(false));
            let held = analysis.is_some_and(|c| c.extra.held.is_some());
            spans.push(Span::styled(
                if held { "HELD       " } else { "COMPACTION " },
                theme.bold(),
            ));
            spans.push(Span::raw(format!(
                "{} {} ",
                sanitize::line(ctxlens_core::analysis::short_id(id)),
                phase.unwrap_or(Phase::Proposed).as_str()
            )));
            if let Some(verdict) = verdict {
                spans.push(Span::styled(
                    verdict.as_str().to_uppercase(),
                    theme.verdict(verdict),
                ));
            }
            if let Some(decision) = analysis.and_then(|c| c.decision.as_ref()) {
                spans.push(Span::raw(format!(
                    " → {} ({})",
                    decision.verdict.as_str(),
                    sanitize::line(decision.by.as_deref().unwrap_or("?"))
                )));
            }
        }
        EventKind::Bookkeeping(Bookkeeping::Microcompact) => {
            spans.push(Span::styled("MICROCOMPACT ", theme.yellow()));
            spans.push(Span::styled(
                "old tool results cleared; no summary, not a compaction",
                theme.dim(),
            ));
        }
        kind => {
            let role = EventRole::of(kind);
            let name = match role {
                // The canonical log's records and a transcript's own bookkeeping say
                // what they are by their type.
                EventRole::Record | EventRole::Bookkeeping => {
                    sanitize::line(kind.type_name()).into_owned()
                }
                _ => role.label().to_owned(),
            };
            spans.push(Span::styled(format!("{name:<11} "), theme.role(role)));
            // A subagent's records, written inline under the call that started it.
            if snapshot.session.is_sidechain(event_index) {
                spans.push(Span::styled("↳ subagent: ", theme.dim()));
            }
            // A transcript's todos come from one tool call: its line would show the
            // whole list's JSON on every item's row.
            let gist = match todo_gist(kind) {
                Some(gist) if snapshot.session.format != Format::Canonical => gist,
                _ => app
                    .texts
                    .get(&event_index)
                    .map_or_else(|| "…".to_owned(), |t| t.gist.clone()),
            };
            spans.push(Span::raw(gist));
        }
    }
    Line::from(spans)
}

/// An item of a todo list, or the plan it leaves, in the agent's words.
fn todo_gist(kind: &EventKind) -> Option<String> {
    let text = match kind {
        EventKind::Obligation(obligation) => {
            let ObligationEvent {
                id, name, status, ..
            } = &**obligation;
            let glyph = match status {
                Some(ObligationStatus::Done) => "✔",
                Some(ObligationStatus::Dropped) => "✖ dropped:",
                _ => "☐",
            };
            let name = name.as_deref().or_else(|| id.strip_prefix("todo: "))?;
            format!("{glyph} {name}")
        }
        EventKind::Plan { steps } => match steps.first() {
            None => "nothing left to do".to_owned(),
            Some(first) => format!("{} open, next: {}", steps.len(), first.action),
        },
        _ => return None,
    };
    Some(sanitize::line(&text).into_owned())
}
