//! The obligations panel and the alerts panel.

use super::pane_block;
use super::style::{severity_glyph, Theme};
use super::text::{scrolled, wrapped_rows};
use crate::sanitize;
use crate::tui::app::{App, Pane};
use crate::tui::view::marks::BindingState;
use ctxlens_core::analysis::ChoiceState;
use ctxlens_core::analysis::CompactionAnalysis;
use ctxlens_core::analysis::{short_id, Finding, FindingKind};
use ctxlens_core::analysis::{target_text, StateAt};
use ctxlens_core::model::{entity_key, Polarity};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;

fn state_span(state: BindingState, theme: Theme) -> Span<'static> {
    match state {
        BindingState::Kept => Span::styled("✔ kept", theme.green()),
        BindingState::NotInRegion => Span::styled("✔ not in the region", theme.green()),
        BindingState::Dropped => Span::styled("✖ dropped (no refetch)", theme.red()),
        BindingState::Regenerable => Span::styled("↻ dropped, regenerable", theme.yellow()),
        BindingState::Unknown => Span::styled("? unknown (not declared)", theme.yellow()),
    }
}

pub(super) fn obligations(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::Obligations;
    let compaction = app.selected_compaction();
    let session = &app.snapshot.session;
    let (title, state): (String, &StateAt) = match compaction {
        Some(c) => (
            format!(
                " Obligations and choices at {} ",
                sanitize::line(short_id(&c.info.id))
            ),
            &c.state,
        ),
        // Computed once per snapshot, not once per frame.
        None => (
            " Obligations and choices (now) ".into(),
            &app.snapshot.analysis.now,
        ),
    };
    // Computed once per snapshot and compaction.
    let marks = compaction
        .and_then(|c| app.snapshot.built_view(&c.info.id))
        .map(|(_, marks)| marks);
    let mut lines: Vec<Line> = Vec::new();
    // Every line takes a row at least: what lies past the scroll and the pane's height
    // is not built (a long session holds thousands of obligations).
    let most = usize::from(app.obligations_scroll) + usize::from(area.height);
    for obligation in state.open_obligations() {
        if lines.len() >= most {
            break;
        }
        // A todo's id is its own text: show it once.
        let label = match obligation.id.strip_prefix("todo: ") {
            Some(_) => "☐".to_owned(),
            None => sanitize::line(&obligation.id).into_owned(),
        };
        lines.push(Line::from(vec![
            Span::styled(label, theme.bold()),
            Span::raw("  "),
            Span::raw(sanitize::line(obligation.name.as_deref().unwrap_or("")).into_owned()),
        ]));
        for token in &obligation.requires {
            let mut spans = vec![Span::raw(format!("  {}  ", sanitize::line(token)))];
            if let Some(marks) = &marks {
                spans.push(state_span(marks.bindings.of(token, session), theme));
            }
            lines.push(Line::from(spans));
        }
    }
    let listed: std::collections::HashSet<&str> =
        state.open_obligations().map(|o| o.id.as_str()).collect();
    for step in &state.pending {
        if lines.len() >= most {
            break;
        }
        // A transcript's open todo is a plan step too: it is listed once, above.
        if step.target.is_null() && listed.contains(step.id.as_str()) {
            continue;
        }
        let target = target_text(&step.target);
        let mut spans = vec![Span::raw(format!(
            "{} {} → {} ",
            sanitize::line(&step.id),
            sanitize::line(&step.action),
            sanitize::line(&target)
        ))];
        let dropped =
            compaction.and_then(|c| c.dropped.iter().find(|d| d.required_by.contains(&step.id)));
        if let Some(d) = dropped {
            let state = if d.regenerable == Some(true) {
                BindingState::Regenerable
            } else {
                BindingState::Dropped
            };
            spans.push(state_span(state, theme));
        }
        lines.push(Line::from(spans));
    }
    for choice in &state.choices {
        if lines.len() >= most {
            break;
        }
        lines.push(choice_line(choice, compaction, theme));
    }
    if lines.is_empty() {
        lines.push(Line::styled(
            "no open obligations, pending steps or choices",
            theme.dim(),
        ));
    }
    frame.render_widget(
        scrolled(
            lines,
            pane_block(title, focused, theme),
            app.obligations_scroll,
            area,
        ),
        area,
    );
}

/// A choice with its polarity and, at a compaction, what the summary's schema did to it.
fn choice_line(
    choice: &ChoiceState,
    compaction: Option<&CompactionAnalysis>,
    theme: Theme,
) -> Line<'static> {
    let (glyph, style) = match choice.polarity {
        Polarity::Chosen => ("✓ chosen   ", theme.green()),
        Polarity::Rejected => ("✗ rejected ", theme.yellow()),
        Polarity::Forbidden => ("⊘ forbidden", theme.red()),
    };
    let mut spans = vec![
        Span::styled(glyph, style),
        Span::raw(format!("  {}  ", sanitize::line(&choice.entity))),
    ];
    let key = entity_key(&choice.entity);
    let in_region = compaction.filter(|c| c.region.contains(&choice.event));
    if let Some(c) = in_region {
        let said = c.findings.iter().find_map(|f| match &f.kind {
            FindingKind::PolarityFlip { entity, found, .. } if entity_key(entity) == key => {
                Some(Span::styled(
                    format!("⇄ the summary says {}", found.as_str()),
                    theme.red(),
                ))
            }
            FindingKind::EntityDropped { entity, .. } if entity_key(entity) == key => Some(
                Span::styled("✖ not in the summary's schema", theme.yellow()),
            ),
            FindingKind::SchemaMissing => {
                Some(Span::styled("? the summary has no schema", theme.yellow()))
            }
            _ => None,
        });
        spans.push(said.unwrap_or_else(|| Span::styled("✔ kept", theme.green())));
    }
    Line::from(spans)
}

pub(super) fn alerts(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::Alerts;
    let alerts = &app.snapshot.alerts;
    let width = area.width.saturating_sub(2);
    let height = area.height.saturating_sub(2);
    // An alert takes a row at least: of a long list only a screenful around the
    // selected alert (or the newest) can show, and only those are built.
    let shown = if alerts.len() <= usize::from(height) {
        0..alerts.len()
    } else {
        match app.alert_cursor {
            Some(i) => i..(i + usize::from(height)).min(alerts.len()),
            None => alerts.len() - usize::from(height)..alerts.len(),
        }
    };
    let first = shown.start;
    let selected_line = app.alert_cursor.map_or(0, |i| i.saturating_sub(first));
    let mut lines: Vec<Line> = alerts
        .get(shown)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(k, alert)| {
            let finding = app.snapshot.finding_of(alert)?;
            Some(alert_line(
                finding,
                app.alert_cursor == Some(first + k),
                theme,
            ))
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::styled("no alerts", theme.dim()));
    }
    let title = format!(" Alerts ({}) ", alerts.len());
    // When the list does not fit: the selected alert at the top, or with none selected
    // the newest alerts in view as they arrive.
    let total = wrapped_rows(&lines, width);
    let scroll = match app.alert_cursor {
        _ if total <= height => 0,
        Some(_) => wrapped_rows(lines.get(..selected_line).unwrap_or_default(), width),
        None => total - height,
    };
    frame.render_widget(
        scrolled(lines, pane_block(title, focused, theme), scroll, area),
        area,
    );
}

fn alert_line(f: &Finding, selected: bool, theme: Theme) -> Line<'static> {
    let id = short_id(f.compaction.as_deref().unwrap_or(""));
    let head = format!("{} {}: ", sanitize::line(id), f.kind.name());
    let line = match f.resolved_by {
        // Resolved: still listed, so the operator sees what the decision covers.
        Some(verdict) => Line::from(vec![
            Span::styled("✔", theme.green()),
            Span::raw(" "),
            Span::styled(head, theme.dim()),
            Span::styled(
                format!(
                    "{} (resolved by {})",
                    sanitize::line(&f.message),
                    verdict.as_str()
                ),
                theme.dim(),
            ),
        ]),
        None => {
            let mut spans = vec![
                Span::styled(severity_glyph(f.severity), theme.severity(f.severity)),
                Span::raw(" "),
                Span::styled(head, theme.bold()),
                Span::raw(sanitize::line(&f.message).into_owned()),
            ];
            // The selected alert says what to do about it.
            if let Some(advice) = crate::legend::what_to_do(f).filter(|_| selected) {
                spans.push(Span::raw(format!(" → {advice}")));
            }
            Line::from(spans)
        }
    };
    if selected {
        line.style(theme.selected())
    } else {
        line
    }
}
