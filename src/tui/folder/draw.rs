//! Drawing the folder list: a pure function of its state.

use super::*;

pub(super) fn when(time: SystemTime) -> String {
    match age(time).as_secs() {
        s if s < 60 => "now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
}

/// The name column's width when the names are short (they line up), and the narrowest
/// a long name is cut to before the counts are.
const NAME_COLUMN: usize = 34;
const NAME_NARROWEST: usize = 8;

/// The first line of an entry, `width` columns wide: when, name, format and what it
/// holds. The counts keep their room; a long name is cut to what is left, with `…`.
pub(super) fn entry_line(e: &Entry, selected: bool, width: usize, theme: Theme) -> Line<'static> {
    let counts = count_spans(e, theme);
    // The spaces after the last count need no room.
    let counts_width: usize = counts
        .iter()
        .map(|s| s.content.chars().count())
        .sum::<usize>()
        .saturating_sub(2);
    // The cursor (2), the age (9) and the format (13) come before the counts.
    let room = width.saturating_sub(2 + 9 + 13 + counts_width + 1);
    let longest = room.max(NAME_NARROWEST);
    let name_width = NAME_COLUMN.min(longest);
    let name = match e.under_parent {
        true => {
            let file = e.path.file_name().unwrap_or_default().to_string_lossy();
            format!("↳ {}", sanitize::line(&file))
        }
        false => sanitize::line(&e.name).into_owned(),
    };
    let name = match name.char_indices().nth(longest) {
        Some(_) => {
            let kept: String = name.chars().take(longest - 1).collect();
            format!("{kept}…")
        }
        None => name,
    };
    let mut spans = vec![
        Span::raw(if selected { "▶ " } else { "  " }),
        Span::styled(format!("{:>7}  ", when(e.activity)), theme.dim()),
        Span::styled(format!("{name:<name_width$} "), theme.bold()),
        Span::raw(format!("{:<12} ", e.format)),
    ];
    spans.extend(counts);
    Line::from(spans)
}

/// What an entry holds: its compactions, what is pending, its errors and warnings, or
/// why it cannot be read.
fn count_spans(e: &Entry, theme: Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    match &e.unreadable {
        None if !e.read => spans.push(Span::styled("reading…", theme.dim())),
        Some(why) => spans.push(Span::styled(
            format!("unreadable: {}", sanitize::line(why)),
            theme.red(),
        )),
        None => {
            spans.push(Span::raw(format!(
                "{} compaction{}  ",
                e.compactions,
                if e.compactions == 1 { "" } else { "s" }
            )));
            if e.pending > 0 {
                spans.push(Span::styled(
                    format!("{} PENDING  ", e.pending),
                    theme.yellow(),
                ));
            }
            if let Some(since) = &e.degraded {
                spans.push(Span::styled(
                    format!("DEGRADED since {}  ", sanitize::line(since)),
                    theme.red(),
                ));
            }
            if e.errors > 0 {
                spans.push(Span::styled(
                    format!("{}  ", plural(e.errors, "error")),
                    theme.red(),
                ));
            }
            if e.opaque > 0 {
                spans.push(Span::styled(
                    format!(
                        "{} opaque summar{}  ",
                        e.opaque,
                        if e.opaque == 1 { "y" } else { "ies" }
                    ),
                    theme.yellow(),
                ));
            }
            if e.warnings > 0 {
                spans.push(Span::styled(
                    format!("{}  ", plural(e.warnings, "warning")),
                    theme.yellow(),
                ));
            }
        }
    }
    if e.live {
        spans.push(Span::styled("● live", theme.green()));
    }
    spans
}

/// The second line: the title (or first prompt), then model, branch and usage.
pub(super) fn about_line(e: &Entry, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::raw("           ")];
    if let Some(title) = &e.title {
        let short: String = title.chars().take(60).collect();
        spans.push(Span::raw(format!("“{}”  ", sanitize::line(&short))));
    }
    spans.push(Span::styled(
        sanitize::line(&e.about).into_owned(),
        theme.dim(),
    ));
    Line::from(spans)
}

/// Draws the folder list.
pub fn draw(app: &FolderApp, frame: &mut Frame) {
    let theme = Theme { color: app.color };
    let [top, body, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let pending = app.entries.iter().filter(|e| e.pending > 0).count();
    let errors = app.entries.iter().filter(|e| e.errors > 0).count();
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(" ctxlens ", theme.bold()),
            // The counts first: a long root is what the width cuts.
            Span::raw(match app.entries.len() {
                1 => " 1 session  ".to_owned(),
                n => format!(" {n} sessions  "),
            }),
            Span::styled(format!("{pending} with PENDING decisions"), theme.yellow()),
            Span::raw("  "),
            Span::styled(format!("{errors} with errors"), theme.red()),
            Span::raw(format!("  {}", sanitize::line(&app.root))),
        ])),
        top,
    );
    let visible = app.visible();
    // Two lines an entry: what it holds, then what it is about.
    let fit = (body.height.saturating_sub(2) / 2).max(1) as usize;
    let offset = app.cursor.saturating_sub(fit - 1);
    let mut lines: Vec<Line> = Vec::new();
    for (i, e) in visible.iter().enumerate().skip(offset).take(fit) {
        let selected = i == app.cursor;
        let width = usize::from(body.width.saturating_sub(2));
        let (first, second) = (entry_line(e, selected, width, theme), about_line(e, theme));
        if selected {
            lines.push(first.style(theme.selected()));
            lines.push(second.style(theme.selected()));
        } else {
            lines.push(first);
            lines.push(second);
        }
    }
    if lines.is_empty() {
        lines.push(Line::styled(
            match (app.scanned, app.filter.is_empty()) {
                (false, _) => "scanning…".to_owned(),
                (true, true) => format!(
                    "no session logs (*.jsonl) under {}",
                    sanitize::line(&app.root)
                ),
                (true, false) => "no session matches the filter (Esc clears it)".to_owned(),
            },
            theme.dim(),
        ));
    }
    let title = if app.filter.is_empty() {
        " Sessions (PENDING first, then most recent activity) ".to_owned()
    } else {
        format!(
            " Sessions matching “{}”: {} of {} ",
            sanitize::line(&app.filter),
            visible.len(),
            app.entries.len()
        )
    };
    frame.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(title)),
        body,
    );
    let mut hints = Vec::new();
    if let Some(message) = &app.message {
        hints.push(Span::styled(
            format!(" {} ", sanitize::line(message)),
            theme.red(),
        ));
    }
    if app.filtering {
        hints.extend([
            Span::styled("/", theme.bold()),
            Span::raw(sanitize::line(&app.filter).into_owned()),
            Span::styled("█", theme.dim()),
            Span::styled("   Enter keep · Esc clear", theme.dim()),
        ]);
    } else {
        hints.extend([
            Span::styled(" Enter", theme.bold()),
            Span::raw(" open "),
            Span::styled(" j/k", theme.bold()),
            Span::raw(" move "),
            Span::styled(" /", theme.bold()),
            Span::raw(" filter "),
            Span::styled(" q", theme.bold()),
            Span::raw(" quit"),
        ]);
    }
    frame.render_widget(Paragraph::new(Line::from(hints)), bottom);
}
