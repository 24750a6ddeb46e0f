//! The compaction view: ratios, what was dropped, the decision, then the region and the
//! summary side by side with every region token marked.

use super::pane_block;
use super::style::Theme;
use super::text::{marked_lines, marked_lines_where, scrolled, wrapped_rows};
use crate::sanitize;
use crate::session::display::Depth;
use crate::tui::app::{App, CompactionView, Pane, REGION_EVENTS_SHOWN};
use crate::tui::view::marks::{Mark, TokenState};
use crate::tui::view::token_rows::TokenRows;
use ctxlens_core::analysis::{short_id, FindingKind};
use ctxlens_core::analysis::{CompactionAnalysis, DroppedToken};
use ctxlens_core::model::{RangeSpec, Verdict};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

pub(super) fn draw(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::Compaction;
    let Some(c) = app.selected_compaction() else {
        let block = pane_block(" Compaction ".into(), focused, theme);
        let text = Paragraph::new("No compaction yet. ] selects the next one when it arrives.")
            .style(theme.dim())
            .block(block);
        frame.render_widget(text, area);
        return;
    };
    let verdict = c.flags.verdict(false);
    let range = match c.info.range {
        RangeSpec::Seqs { from, to } => format!("range {from}–{to}"),
        _ => "no usable range".into(),
    };
    // A compaction a hook holds has no summary yet: say so, and for how long it waits.
    let phase = match &c.extra.held {
        Some(held) => format!("HELD by pre-compact{}", held_for(held.until.as_deref())),
        None => c
            .info
            .phase
            .shown(c.decision.as_ref().map(|d| d.verdict))
            .to_owned(),
    };
    let title = Line::from(vec![
        Span::raw(format!(
            " Compaction {}{} · {phase} · {range} · gate: ",
            sanitize::line(short_id(&c.info.id)),
            trigger_and_size(c),
        )),
        Span::styled(verdict.as_str().to_uppercase(), theme.verdict(verdict)),
        Span::raw(" "),
    ]);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.focused_border(focused))
        .title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let head = head_lines(app, c, theme);
    let head_height = wrapped_rows(&head, inner.width).min(inner.height / 2);
    let [head_area, split_area, legend_area] = Layout::vertical([
        Constraint::Length(head_height),
        Constraint::Min(2),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head).wrap(Wrap { trim: false }), head_area);

    if app.snapshot.built_view(&c.info.id).is_none() {
        // The worker builds it (asked after this frame); the next frame shows it.
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("building the view of {} tokens…", c.tokens.len()),
                theme.dim(),
            )),
            split_area,
        );
        return;
    }
    match app.compaction_view {
        CompactionView::Tokens => draw_tokens(app, c, theme, frame, split_area, legend_area),
        CompactionView::Events => draw_events(app, c, theme, frame, split_area, legend_area),
    }
}

/// The lines above the side-by-side view: ratios (or what a held compaction puts at
/// risk), the dropped tokens something needs, signal 6, the reasons and the decision.
fn head_lines<'a>(app: &App, c: &'a CompactionAnalysis, theme: Theme) -> Vec<Line<'a>> {
    let verdict = c.flags.verdict(false);
    let mut head: Vec<Line> = Vec::new();
    let ratio = |r: Option<f64>| r.map_or("n/a".to_owned(), |v| format!("{v:.2}"));
    let mut ratios = vec![Span::raw(format!(
        "opaque kept {}/{} ({})  prose {}",
        c.kept(),
        c.tokens.len(),
        ratio(c.opaque_ratio),
        ratio(c.prose_ratio)
    ))];
    if c.flags.density_collapse {
        ratios.push(Span::styled("  ▼ density collapse", theme.yellow()));
    }
    if c.extra.held.is_some() {
        head.push(Line::styled(
            format!(
                "at risk: {} identifiers the open todos and recent calls use, if the summary drops them",
                c.dropped.len()
            ),
            theme.yellow(),
        ));
    } else {
        head.push(Line::from(ratios));
    }
    // What the harm it caused cost the agent: no other viewer shows it.
    if let Some(cost) = ctxlens_core::analysis::harm_cost(c.findings.iter()) {
        head.push(Line::styled(
            format!(
                "harm cost {}: from the failed step to the recovery",
                cost.phrase()
            ),
            theme.verdict(Verdict::Refuse),
        ));
    }
    // The decision (or what waits for one) and why come first: a long list of
    // dropped tokens must not push them out of the pane.
    head.push(match &c.decision {
        Some(d) => {
            let override_note = if d.verdict != verdict {
                " · override"
            } else {
                ""
            };
            let held_note = c
                .held_as
                .as_deref()
                .map(|h| format!(" · decided while held as {}", sanitize::line(h)))
                .unwrap_or_default();
            Line::from(vec![
                Span::raw("decision: "),
                Span::styled(d.verdict.as_str().to_uppercase(), theme.verdict(d.verdict)),
                Span::raw(format!(
                    " by {}{}{override_note}",
                    sanitize::line(d.by.as_deref().unwrap_or("someone")),
                    d.ts.as_deref()
                        .map(|t| format!(" at {}", sanitize::line(t)))
                        .unwrap_or_default()
                )),
                Span::raw(held_note),
            ])
        }
        // A hook cannot re-summarize on request: no refetch for a held compaction; and
        // an agent whose hook cannot block offers no refuse.
        None if app.pending_selected().is_some()
            && c.extra.held.is_some()
            && !app.snapshot.session.format.refuses_held() =>
        {
            Line::styled(
                format!(
                    "waiting: a approve · s spill · p preserve ({} cannot block a compaction: no refuse)",
                    app.snapshot.session.format.agent_name()
                ),
                theme.yellow(),
            )
        }
        None if app.pending_selected().is_some() && c.extra.held.is_some() => Line::styled(
            "waiting: a approve · s spill · p preserve · x refuse",
            theme.yellow(),
        ),
        None if app.pending_selected().is_some() => Line::styled(
            "waiting: a approve · s spill · p preserve · r refetch · x refuse",
            theme.yellow(),
        ),
        None if !app.snapshot.session.format.holds() => Line::styled(
            format!(
                "no decision: {} cannot be gated (its hooks cannot hold a compaction)",
                app.snapshot.session.format.agent_name()
            ),
            theme.dim(),
        ),
        None => Line::styled("no decision", theme.dim()),
    });
    let reasons = c.reasons(false);
    if !reasons.is_empty() {
        head.push(Line::styled(
            format!("because: {}", reasons.join("; ")),
            theme.dim(),
        ));
    }
    // A held compaction's identifiers at risk are the region pane's rows.
    if c.extra.held.is_none() {
        head.extend(c.dropped.iter().map(|d| dropped_line(c, d, theme)));
    }
    head.extend(schema_lines(c, theme));
    head
}

/// One dropped token that something needs, with its mark.
pub(super) fn dropped_line<'a>(
    c: &CompactionAnalysis,
    d: &'a DroppedToken,
    theme: Theme,
) -> Line<'a> {
    let state = TokenState::of_dropped(d);
    let (glyph, what, style) = match c.extra.held {
        Some(_) => ("⚠", "at risk", theme.yellow()),
        None => (state.glyph(), state.label(), theme.token(state)),
    };
    let needed = if d.required_by.is_empty() {
        String::new()
    } else {
        format!(" needed by {}", sanitize::line(&d.required_by.join(", ")))
    };
    Line::from(vec![
        Span::styled(format!("{glyph} {what}: "), style),
        Span::styled(
            sanitize::line(&d.token).into_owned(),
            style.add_modifier(ratatui::style::Modifier::BOLD),
        ),
        Span::raw(format!(" ({}){needed}", d.class.as_str())),
    ])
}
/// Signal 6: what the summary's schema did to the region's choices.
fn schema_lines(c: &CompactionAnalysis, theme: Theme) -> Vec<Line<'static>> {
    c.findings
        .iter()
        .filter_map(|finding| {
            let (text, style) = match &finding.kind {
                FindingKind::PolarityFlip {
                    entity,
                    expected,
                    found,
                } => (
                    format!(
                        "⇄ {}: {} in the region, {} in the summary",
                        sanitize::line(entity),
                        expected.as_str(),
                        found.as_str()
                    ),
                    theme.red(),
                ),
                FindingKind::EntityDropped { entity, polarity } => (
                    format!(
                        "✖ {} ({}) is missing from the summary's schema",
                        sanitize::line(entity),
                        polarity.as_str()
                    ),
                    theme.yellow(),
                ),
                FindingKind::SchemaMissing => (
                    "? no entity schema: the region's choices are unchecked".to_owned(),
                    theme.yellow(),
                ),
                _ => return None,
            };
            Some(Line::styled(text, style))
        })
        .collect()
}
/// The legend of the token marks: a glyph for each, so colour is never the only signal.
fn legend(theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (state, label) in [
        (TokenState::Kept, "kept"),
        (TokenState::DroppedNoRefetch, "no refetch"),
        (TokenState::Dropped, "dropped"),
        (TokenState::Recalled, "recalled"),
        (TokenState::ReDerived, "re-derived"),
        (TokenState::Carried, "carried over"),
    ] {
        spans.push(Span::styled(state.glyph(), theme.token(state)));
        spans.push(Span::raw(format!(" {label}  ")));
    }
    spans.push(Span::raw("d: view"));
    Line::from(spans)
}

/// Until when a held compaction waits: ` · until 10:55:00Z` (a fixed time, so the
/// view needs no clock).
fn held_for(until: Option<&str>) -> String {
    until
        .and_then(|u| u.split_once('T'))
        .map_or(String::new(), |(_, time)| {
            format!(" · until {}", sanitize::line(time))
        })
}

/// Trigger and token counts as the transcript gives them: ` · auto · 167k→12k tokens`.
fn trigger_and_size(c: &CompactionAnalysis) -> String {
    let mut out = String::new();
    if let Some(trigger) = &c.extra.trigger {
        out.push_str(&format!(" · {}", sanitize::line(trigger)));
    }
    let thousands = |n: Option<u64>| n.map_or("?".to_owned(), |n| format!("{}k", n.div_ceil(1000)));
    if c.extra.pre_tokens.is_some() || c.extra.post_tokens.is_some() {
        out.push_str(&format!(
            " · {}→{} tokens",
            thousands(c.extra.pre_tokens),
            thousands(c.extra.post_tokens)
        ));
    }
    out
}

/// Every region token with its mark, worst first, next to the summary's lines that
/// mention region tokens.
/// Cells of one line that `rows` rows of a pane in `width` columns can show, with two
/// rows more: where a row breaks depends on the word after it (see
/// [`super::text::visible_part`]).
fn line_cells(rows: usize, width: u16) -> usize {
    (rows + 2) * usize::from(width)
}

/// The region pane's lines when it has no token rows. A held compaction has no summary
/// yet: what the region holds is measured when it lands, and the identifiers the work
/// depends on are what is at risk now.
fn no_rows(c: &CompactionAnalysis, theme: Theme) -> Vec<Line<'_>> {
    if c.extra.held.is_none() {
        return vec![Line::styled(
            "no opaque tokens in the region (d shows its events)",
            theme.dim(),
        )];
    }
    let mut lines: Vec<Line> = c
        .dropped
        .iter()
        .map(|d| dropped_line(c, d, theme))
        .collect();
    lines.push(Line::styled(
        "what the summary keeps is measured when it lands (d shows the events)",
        theme.dim(),
    ));
    lines
}

fn region_title(c: &CompactionAnalysis, rows: usize) -> String {
    if c.extra.held.is_some() {
        format!(
            " region · {} events · {} at risk ",
            c.region.len(),
            c.dropped.len()
        )
    } else {
        format!(" region · {} events · {rows} tokens ", c.region.len())
    }
}

fn draw_tokens(
    app: &App,
    c: &CompactionAnalysis,
    theme: Theme,
    frame: &mut Frame,
    area: Rect,
    legend_area: Rect,
) {
    let session = &app.snapshot.session;
    let Some((table, marks)) = app.snapshot.built_view(&c.info.id) else {
        return;
    };
    let rows = &table.rows;
    // A row takes a screen row at least: those past the scroll and the pane's height
    // cannot show (a region can hold 100,000 tokens).
    let scroll = app.compaction_scroll.clamp(0, i32::from(u16::MAX)) as u16;
    let visible = usize::from(scroll) + usize::from(area.height);
    let mut lines: Vec<Line> = Vec::with_capacity(visible.min(rows.len()));
    for row in rows.iter().take(visible) {
        let info = session.tokens.get(row.token);
        let style = theme.token(row.state);
        let mut spans = vec![
            Span::styled(format!("{} ", row.state.glyph()), style),
            Span::styled(sanitize::line(info.text).into_owned(), style),
            Span::styled(
                format!(
                    "  {} · {} · seq {}",
                    row.state.label(),
                    info.class.as_str(),
                    TokenRows::seen_at(row, session)
                ),
                theme.dim(),
            ),
        ];
        let needed_by = TokenRows::needed_by(row, c);
        if !needed_by.is_empty() {
            spans.push(Span::raw(format!(
                " · needed by {}",
                sanitize::line(&needed_by.join(", "))
            )));
        }
        if let Some(sentence) = table.sentence(row) {
            let short: String = sentence.chars().take(120).collect();
            spans.push(Span::styled(
                format!(" · “{}”", sanitize::line(&short)),
                theme.dim(),
            ));
        }
        lines.push(Line::from(spans));
    }
    let held = c.extra.held.is_some();
    if lines.is_empty() {
        lines = no_rows(c, theme);
    }
    let summary: Vec<Line> = match summary_of(app, c, &marks) {
        None if held => vec![Line::styled(
            "(the summary is not written yet)",
            theme.dim(),
        )],
        None => vec![Line::styled("(the summary cannot be read)", theme.yellow())],
        Some((text, found)) => {
            let marked_rows = marks.marked_lines.as_slice();
            let rows = usize::from(scroll) + usize::from(area.height);
            let shown: Vec<Line> = marked_lines_where(
                text,
                found,
                (ratatui::style::Style::new(), theme),
                |i| marked_rows.binary_search(&i).is_ok(),
                (rows, line_cells(rows, area.width)),
            );
            if shown.is_empty() {
                vec![Line::styled(
                    "the summary names none of the region's tokens verbatim",
                    theme.dim(),
                )]
            } else {
                shown
            }
        }
    };
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let tokens_block = Block::default()
        .borders(Borders::TOP | Borders::RIGHT)
        .border_style(theme.dim())
        .title(region_title(c, rows.len()));
    let summary_block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.dim())
        .title(" summary lines that name them ");
    frame.render_widget(scrolled(lines, tokens_block, scroll, left), left);
    frame.render_widget(scrolled(summary, summary_block, scroll, right), right);
    frame.render_widget(
        Paragraph::new(legend(theme)).style(theme.dim()),
        legend_area,
    );
}

/// The region's events on the left, the whole summary on the right: the tokens of the
/// region marked by what the summary did to them.
fn draw_events(
    app: &App,
    c: &CompactionAnalysis,
    theme: Theme,
    frame: &mut Frame,
    split_area: Rect,
    legend_area: Rect,
) {
    let session = &app.snapshot.session;
    let mut region: Vec<Line> = Vec::new();
    // The view opens at the event holding the first token that cannot be re-fetched.
    let mut start_line: Option<usize> = None;
    // Tokens the compaction dropped that something needs: where the eye should go.
    let needed: Vec<&str> = c
        .dropped
        .iter()
        .filter(|d| !d.required_by.is_empty())
        .map(|d| d.token.as_str())
        .collect();
    let shown = app.region_shown(c);
    for (index, event) in shown
        .iter()
        .filter_map(|&i| Some((i, session.events.get(i)?)))
    {
        region.push(Line::styled(
            format!(
                "── {} {}",
                event.seq,
                sanitize::line(event.kind.type_name())
            ),
            theme.dim(),
        ));
        match app.text_to(index, Depth::Head) {
            Some(text) => {
                let text = shown_part(&text.text);
                let found = app.region_marks(c, index, &text);
                let important = |m: &crate::tui::view::marks::Mark| {
                    m.state == TokenState::DroppedNoRefetch
                        || needed.contains(&&text[m.start..m.end])
                };
                if start_line.is_none() && found.iter().any(important) {
                    start_line = Some(region.len() - 1);
                }
                region.extend(marked_lines(
                    &text,
                    &found,
                    ratatui::style::Style::new(),
                    theme,
                ));
            }
            None => region.push(Line::styled("…", theme.dim())),
        }
    }
    if let Some(&last) = shown.last() {
        let rest = c.region.end.saturating_sub(last + 1);
        if shown.len() == REGION_EVENTS_SHOWN && rest > 0 {
            region.push(Line::styled(
                format!("… {rest} more events in the region (the timeline has them all)"),
                theme.dim(),
            ));
        }
    }
    let marks = app.snapshot.built_view(&c.info.id).map(|(_, marks)| marks);
    let summary: Vec<Line> = match marks.as_deref().and_then(|m| summary_of(app, c, m)) {
        None => vec![Line::styled("(the summary cannot be read)", theme.yellow())],
        Some((text, found)) => marked_lines_where(
            text,
            found,
            (ratatui::style::Style::new(), theme),
            |_| true,
            {
                let rows = usize::try_from(app.compaction_scroll.max(0)).unwrap_or(0)
                    + usize::from(split_area.height);
                (rows, line_cells(rows, split_area.width))
            },
        ),
    };
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
            .areas(split_area);
    let text_width = left.width.saturating_sub(1).max(1);
    let before_start = region.get(..start_line.unwrap_or(0)).unwrap_or_default();
    let start_row = wrapped_rows(before_start, text_width);
    let region_scroll =
        (i32::from(start_row) + app.compaction_scroll).clamp(0, i32::from(u16::MAX)) as u16;
    let summary_scroll = app.compaction_scroll.clamp(0, i32::from(u16::MAX)) as u16;
    let region_block = Block::default()
        .borders(Borders::TOP | Borders::RIGHT)
        .border_style(theme.dim())
        .title(format!(" region · {} events ", c.region.len()));
    let summary_block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.dim())
        .title(" summary ");
    frame.render_widget(scrolled(region, region_block, region_scroll, left), left);
    frame.render_widget(
        scrolled(summary, summary_block, summary_scroll, right),
        right,
    );
    frame.render_widget(
        Paragraph::new(legend(theme)).style(theme.dim()),
        legend_area,
    );
}

/// Lines of one region event the view shows: a long tool output is cut, so a region of
/// many megabytes stays quick to draw (Enter on the event shows it whole).
const EVENT_LINES_SHOWN: usize = 40;

fn shown_part(text: &str) -> std::borrow::Cow<'_, str> {
    let mut lines = text.split_inclusive('\n');
    let head: String = lines.by_ref().take(EVENT_LINES_SHOWN).collect();
    let rest = lines.count();
    if rest == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(format!(
        "{head}… {rest} more lines (Enter on the event shows them)"
    ))
}

/// The summary as shown (terminal-safe) and its marks, as the snapshot computed them.
pub(super) fn summary_of<'a>(
    app: &'a App,
    c: &CompactionAnalysis,
    marks: &'a crate::tui::snapshot::CompactionMarks,
) -> Option<(&'a str, &'a [Mark])> {
    let summary = marks.summary.as_ref()?;
    Some((
        summary.text(&app.snapshot.session, c)?,
        summary.marks.as_slice(),
    ))
}
