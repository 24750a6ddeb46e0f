//! The status bar, the lower tabs of the narrow layout, and the hint bar.

use super::style::Theme;
use crate::sanitize;
use crate::tui::app::{App, FileEvent, Pane};
use crate::tui::keys::{hints, Command, Scope};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Parts of a one-line bar, each with how much it matters: when the line is too wide the
/// least important part goes first (the later one among equals), so what an operator
/// must see (PENDING, errors, `? help`) stays at any width.
struct Bar<'a> {
    parts: Vec<(u8, Vec<Span<'a>>)>,
    /// A part that is never dropped but is cut to what room is left (an error's text):
    /// its index among the parts.
    shrinkable: Option<usize>,
}

/// The fewest characters of a shrinkable part that stay: enough to tell what it is.
const SHRUNK_TO: usize = 12;

impl<'a> Bar<'a> {
    fn new() -> Bar<'a> {
        Bar {
            parts: Vec::new(),
            shrinkable: None,
        }
    }

    fn push(&mut self, importance: u8, spans: Vec<Span<'a>>) {
        self.parts.push((importance, spans));
    }

    /// A part that always shows, cut short (with `…`) where the line has no room for
    /// all of it: the error a status bar must never lose.
    fn push_shrinkable(&mut self, span: Span<'a>) {
        self.shrinkable = Some(self.parts.len());
        self.parts.push((ALWAYS, vec![span]));
    }

    fn fitted(mut self, width: u16) -> Line<'a> {
        let width_of = |parts: &[(u8, Vec<Span>)]| -> usize {
            parts
                .iter()
                .flat_map(|(_, spans)| spans)
                .map(Span::width)
                .sum()
        };
        while width_of(&self.parts) > usize::from(width) {
            let Some(least) = self
                .parts
                .iter()
                .enumerate()
                .min_by_key(|(i, (importance, _))| (*importance, std::cmp::Reverse(*i)))
                .map(|(i, _)| i)
            else {
                break;
            };
            if self.parts.get(least).is_none_or(|p| p.0 == u8::MAX) {
                break;
            }
            self.parts.remove(least);
            if let Some(s) = self.shrinkable.as_mut().filter(|s| **s > least) {
                *s -= 1;
            }
        }
        let over = width_of(&self.parts).saturating_sub(usize::from(width));
        if let Some(span) = self
            .shrinkable
            .and_then(|i| self.parts.get_mut(i))
            .and_then(|(_, spans)| spans.first_mut())
            .filter(|_| over > 0)
        {
            let chars: Vec<char> = span.content.chars().collect();
            let keep = chars.len().saturating_sub(over + 1).max(SHRUNK_TO);
            if keep < chars.len() {
                let cut: String = chars.iter().take(keep).chain(['…'].iter()).collect();
                span.content = cut.into();
            }
        }
        Line::from(
            self.parts
                .into_iter()
                .flat_map(|(_, spans)| spans)
                .collect::<Vec<_>>(),
        )
    }
}

/// Never dropped.
const ALWAYS: u8 = u8::MAX;

/// The error the status bar shows: why the copy stalled, or what the file did.
fn shown_error(app: &App) -> Option<&String> {
    app.stalled.as_ref().or(match &app.file_event {
        FileEvent::Error(e) => Some(e),
        _ => None,
    })
}

/// Following or paused, and what happened to the file.
fn live_spans(app: &App, theme: Theme) -> Vec<Span<'static>> {
    let follow = if app.follow && app.stalled.is_some() {
        Span::styled("◌ stalled", theme.red())
    } else if app.follow {
        Span::styled("● following", theme.green())
    } else if app.unseen > 0 {
        Span::styled(format!("‖ paused (+{} new)", app.unseen), theme.yellow())
    } else {
        Span::styled("‖ paused", theme.yellow())
    };
    let file_event = match &app.file_event {
        FileEvent::None => None,
        FileEvent::Reading(None) => Some(Span::styled("  reading the log…", theme.yellow())),
        // Every byte read, the whole log's analysis is what the first screen waits for.
        FileEvent::Reading(Some(reading)) if reading.read >= reading.total => {
            Some(Span::styled("  analysing the log…", theme.yellow()))
        }
        FileEvent::Reading(Some(reading)) => Some(Span::styled(
            format!("  reading the log… {}", reading.describe()),
            theme.yellow(),
        )),
        FileEvent::Truncated => Some(Span::styled(" truncated, re-read", theme.yellow())),
        FileEvent::Replaced => Some(Span::styled(" replaced, re-read", theme.yellow())),
        FileEvent::Gone => Some(Span::styled(" ✖ file gone", theme.red())),
        // Shown as a part of its own, never dropped (see `status_bar`).
        FileEvent::Error(_) => None,
    };
    let mut live = vec![Span::raw("  "), follow];
    live.extend(file_event);
    live
}

/// What the session is: its title or first prompt, format, model and branch.
fn describe_session(snapshot: &crate::tui::snapshot::Snapshot, bar: &mut Bar) {
    let meta = &snapshot.session.meta;
    if let Some(title) = meta.title.as_deref().or(meta.first_prompt.as_deref()) {
        let short: String = title.chars().take(40).collect();
        let cut = if short.len() < title.len() { "…" } else { "" };
        bar.push(
            6,
            vec![Span::raw(format!(" · “{}{cut}”", sanitize::line(&short)))],
        );
    }
    bar.push(
        2,
        vec![Span::raw(format!("  {}", snapshot.session.format.as_str()))],
    );
    if let Some(model) = meta.models.last() {
        bar.push(3, vec![Span::raw(format!("  {}", sanitize::line(model)))]);
    }
    if let Some(branch) = &meta.branch {
        bar.push(
            4,
            vec![Span::raw(format!("  ⎇ {}", sanitize::line(branch)))],
        );
    }
}

pub(super) fn status_bar(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let snapshot = &app.snapshot;
    let pending = snapshot.pending();
    let errors = snapshot.errors();
    let resolved = snapshot.resolved();
    let file_name = app.title.rsplit('/').next().unwrap_or(&app.title);
    let mut bar = Bar::new();
    bar.push(1, vec![Span::styled(" ctxlens  ", theme.bold())]);
    bar.push(
        ALWAYS,
        vec![Span::styled(file_name.to_owned(), theme.bold())],
    );
    describe_session(snapshot, &mut bar);
    bar.push(8, live_spans(app, theme));
    if let Some(e) = shown_error(app) {
        bar.push_shrinkable(Span::styled(
            format!("  ✖ {}", sanitize::line(e)),
            theme.red(),
        ));
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    bar.push(
        5,
        vec![Span::raw(format!(
            "  {}",
            plural(snapshot.session.events.len(), "event")
        ))],
    );
    bar.push(
        7,
        vec![Span::raw(format!(
            "  {}",
            plural(snapshot.analysis.compactions.len(), "compaction")
        ))],
    );
    // Claude Code subagents' own transcripts: listed under this session in the folder
    // list, where each opens.
    if app.subagents > 0 {
        bar.push(
            6,
            vec![Span::styled(
                format!("  ↳ {}", plural(app.subagents, "subagent")),
                theme.dim(),
            )],
        );
    }
    if pending > 0 {
        bar.push(
            ALWAYS,
            vec![
                Span::raw("  "),
                Span::styled(
                    format!("{pending} PENDING"),
                    theme.yellow().add_modifier(ratatui::style::Modifier::BOLD),
                ),
            ],
        );
    }
    if errors > 0 {
        bar.push(
            ALWAYS,
            vec![
                Span::raw("  "),
                Span::styled(plural(errors, "error"), theme.red()),
            ],
        );
    }
    if let Some(d) = &snapshot.analysis.degraded {
        bar.push(
            ALWAYS,
            vec![
                Span::raw("  "),
                Span::styled(
                    format!(
                        "DEGRADED since {}",
                        sanitize::line(ctxlens_core::analysis::short_id(&d.since))
                    ),
                    theme.red().add_modifier(ratatui::style::Modifier::BOLD),
                ),
            ],
        );
    }
    if resolved > 0 {
        bar.push(
            7,
            vec![Span::styled(format!("  {resolved} resolved"), theme.dim())],
        );
    }
    if !snapshot.session.malformed.is_empty() {
        bar.push(
            9,
            vec![
                Span::raw("  "),
                Span::styled(
                    plural(snapshot.session.malformed.total(), "malformed line"),
                    theme.yellow(),
                ),
            ],
        );
    }
    bar.push(ALWAYS, vec![Span::styled("   ? help", theme.dim())]);
    frame.render_widget(Paragraph::new(bar.fitted(area.width)), area);
}

pub(super) fn tabs(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    for (pane, name) in [
        (Pane::Compaction, "Compaction"),
        (Pane::Obligations, "Obligations and choices"),
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

pub(super) fn hint_bar(app: &App, theme: Theme, frame: &mut Frame, area: Rect) {
    let mut scopes = vec![Scope::Session, Scope::Global];
    if app.pending_selected().is_some() {
        scopes.push(Scope::Pending);
    }
    let mut bar = Bar::new();
    if let Some(message) = &app.message {
        bar.push(
            ALWAYS,
            vec![
                Span::styled(format!(" {} ", sanitize::line(message)), theme.yellow()),
                Span::raw(" "),
            ],
        );
    }
    // A hook cannot re-summarize on request: refetch is not offered for a held one.
    let held = app
        .pending_selected()
        .is_some_and(|c| c.extra.held.is_some());
    let refuses = app.snapshot.session.format.refuses_held();
    for binding in hints(&scopes) {
        if held
            && (binding.command == Command::Refetch
                || (!refuses && binding.command == Command::Refuse))
        {
            continue;
        }
        let (keys, label) = (binding.keys, binding.label);
        // The decision keys and `? help`, `q quit` stay; the rest make room, last first.
        let importance = match (binding.scope, keys) {
            (Scope::Pending, _) | (_, "?") | (_, "q") => ALWAYS,
            _ => 1,
        };
        bar.push(
            importance,
            vec![
                Span::styled(format!(" {keys}"), theme.bold()),
                Span::raw(format!(" {label} ")),
            ],
        );
    }
    frame.render_widget(Paragraph::new(bar.fitted(area.width)), area);
}
