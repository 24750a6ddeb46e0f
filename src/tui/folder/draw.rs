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
    // The cursor (2), the age (9) and the format (13, on a wide screen) come before
    // the counts.
    let format_width = if wide(width) { 13 } else { 0 };
    let room = width.saturating_sub(2 + 9 + format_width + counts_width + 1);
    let longest = room.max(NAME_NARROWEST);
    let name_width = NAME_COLUMN.min(longest);
    let name = match e.under_parent {
        true => {
            let file = e.path.file_name().unwrap_or_default().to_string_lossy();
            format!("↳ {}", sanitize::line(&file))
        }
        false => sanitize::line(&e.name).into_owned(),
    };
    // Every log listed is JSON Lines: the extension tells nothing, and takes room.
    let name = name
        .strip_suffix(".jsonl")
        .map(str::to_owned)
        .unwrap_or(name);
    // A long name keeps its end (the file; its project's line names the folder).
    let chars = name.chars().count();
    let name = match chars > longest {
        true => {
            let kept: String = name.chars().skip(chars - (longest - 1)).collect();
            format!("…{kept}")
        }
        false => name,
    };
    let mut spans = vec![
        Span::raw(if selected { "▶ " } else { "  " }),
        Span::styled(format!("{:>7}  ", when(e.activity)), theme.dim()),
        Span::styled(format!("{name:<name_width$} "), theme.bold()),
    ];
    if wide(width) {
        spans.push(Span::raw(format!("{:<12} ", e.format)));
    }
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
                    format!("{}  ", plural(e.errors, "alert")),
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

/// Where a session's text holds the filter: its line and what stands around it.
fn hit_line(hit: &crate::session::LogHit, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("           line {}: ", hit.line), theme.dim()),
        Span::styled(hit.excerpt.clone(), theme.yellow()),
    ])
}

/// Whether a list `width` columns wide has room for the agent's column; a narrower
/// one gives that room to the name, and says the agent on the second line.
fn wide(width: usize) -> bool {
    width >= 100
}

/// The second line: the title (or first prompt), then model, branch and usage (after
/// the agent, on a narrow screen).
/// `None` when there is nothing to say: the session takes one line then.
pub(super) fn about_line(e: &Entry, width: usize, theme: Theme) -> Option<Line<'static>> {
    let mut spans = vec![Span::raw("           ")];
    if !wide(width) {
        spans.push(Span::styled(format!("{} ", e.format), theme.dim()));
    }
    if let Some(title) = &e.title {
        let short: String = title.chars().take(60).collect();
        spans.push(Span::raw(format!("“{}”  ", sanitize::line(&short))));
    }
    // Where it ran is its project's line already.
    if e.about != format!("in {}", e.group()) {
        spans.push(Span::styled(
            sanitize::line(&e.about).into_owned(),
            theme.dim(),
        ));
    }
    let said = spans.iter().skip(1).any(|s| !s.content.trim().is_empty());
    said.then(|| Line::from(spans))
}

/// A row of the list: a project's line (the range of its sessions), or a session.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ListRow {
    Project(std::ops::Range<usize>),
    Session(usize),
}

/// The list's rows: each project's line before its first session.
/// A project's sessions are the ones after its line up to the next project's (the list
/// keeps them together, a subagent's transcript under its session's).
fn grouped_rows(visible: &[&Entry]) -> Vec<ListRow> {
    let mut rows = Vec::with_capacity(visible.len() + 8);
    let mut last: Option<String> = None;
    let mut project: Option<usize> = None;
    for (i, e) in visible.iter().enumerate() {
        let group = e.group();
        if !e.under_parent && last.as_ref() != Some(&group) {
            project = Some(rows.len());
            rows.push(ListRow::Project(i..i));
            last = Some(group);
        }
        if let Some(ListRow::Project(sessions)) = project.and_then(|at| rows.get_mut(at)) {
            sessions.end = i + 1;
        }
        rows.push(ListRow::Session(i));
    }
    rows
}

/// A project's line: its folder (the start cut when it does not fit), then its sessions,
/// compactions, alerts and model tokens in all.
fn project_line(group: &str, members: &[&Entry], width: usize, theme: Theme) -> Line<'static> {
    let compactions: usize = members.iter().map(|e| e.compactions).sum();
    let alerts: usize = members.iter().map(|e| e.errors).sum();
    let pending: usize = members.iter().map(|e| e.pending).sum();
    let input: u64 = members
        .iter()
        .map(|e| crate::legend::input_tokens(e.usage))
        .sum();
    let output: u64 = members.iter().map(|e| e.usage.output).sum();
    let mut counts = format!(
        "  {} · {} · {}",
        plural(members.len(), "session"),
        plural(compactions, "compaction"),
        plural(alerts, "alert"),
    );
    if pending > 0 {
        counts.push_str(&format!(" · {pending} PENDING"));
    }
    if input + output > 0 {
        counts.push_str(&format!(
            " · in {} · out {}",
            thousands(input),
            thousands(output)
        ));
    }
    let room = width.saturating_sub(counts.chars().count() + 2).max(12);
    let name = sanitize::line(group).into_owned();
    let chars = name.chars().count();
    let name = match chars > room {
        true => {
            let kept: String = name.chars().skip(chars - (room - 1)).collect();
            format!("…{kept}")
        }
        false => name,
    };
    let count_style = if alerts > 0 { theme.red() } else { theme.dim() };
    Line::from(vec![
        Span::styled(format!("■ {name}"), theme.bold()),
        Span::styled(counts, count_style),
    ])
}

/// The lines of the list that fit `height` rows `width` wide: the selected session's
/// shown, each project's line before its sessions.
fn list_lines(
    app: &FolderApp,
    visible: &[&Entry],
    (width, height): (usize, usize),
    theme: Theme,
) -> Vec<Line<'static>> {
    let rows = grouped_rows(visible);
    // Where the selected entry's lines (and its project's line, right above it) lie.
    let mut at: usize = 0;
    let mut selected_end: usize = 0;
    // A session takes a line, a second for its title and what it is about, and a third
    // for where its text holds the filter.
    let taken_by = |row: &ListRow| match row {
        ListRow::Project(_) => 1,
        ListRow::Session(i) => visible.get(*i).map_or(1, |e| {
            1 + usize::from(about_line(e, width, theme).is_some())
                + usize::from(app.hit(e).is_some())
        }),
    };
    for row in &rows {
        let lines = taken_by(row);
        at += lines;
        if *row == ListRow::Session(app.cursor) {
            selected_end = at;
        }
    }
    let offset = selected_end.saturating_sub(height);
    let mut lines: Vec<Line> = Vec::new();
    let mut line = 0;
    for row in &rows {
        let taken = taken_by(row);
        if line + taken <= offset {
            line += taken;
            continue;
        }
        if lines.len() >= height {
            break;
        }
        line += taken;
        match row {
            ListRow::Project(sessions) => {
                let members = visible.get(sessions.clone()).unwrap_or_default();
                let group = members.first().map(|e| e.group()).unwrap_or_default();
                lines.push(project_line(&group, members, width, theme));
            }
            &ListRow::Session(i) => {
                let Some(e) = visible.get(i) else { continue };
                let selected = i == app.cursor;
                let mut own = vec![entry_line(e, selected, width, theme)];
                own.extend(about_line(e, width, theme));
                if let Some(hit) = app.hit(e) {
                    own.push(hit_line(hit, theme));
                }
                for entry_line in own {
                    lines.push(match selected {
                        true => entry_line.style(theme.selected()),
                        false => entry_line,
                    });
                }
            }
        }
    }
    lines
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
            Span::styled(format!("{errors} with alerts"), theme.red()),
            Span::raw(format!("  {}", sanitize::line(&app.root))),
        ])),
        top,
    );
    let visible = app.visible();
    let width = usize::from(body.width.saturating_sub(2));
    let height = usize::from(body.height.saturating_sub(2)).max(1);
    let mut lines = list_lines(app, &visible, (width, height), theme);
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
        let by_text = visible.iter().filter(|e| app.hit(e).is_some()).count();
        format!(
            " Sessions matching “{}”: {} of {} ({by_text} by their text) ",
            sanitize::line(&app.filter),
            visible.len(),
            app.entries.len()
        )
    };
    frame.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(title)),
        body,
    );
    frame.render_widget(Paragraph::new(hint_line(app, theme)), bottom);
}

/// The bottom line: a message, the filter being typed, or the keys.
fn hint_line(app: &FolderApp, theme: Theme) -> Line<'static> {
    let mut hints = Vec::new();
    if let Some(message) = &app.message {
        hints.push(Span::styled(
            format!(" {} ", sanitize::line(message)),
            theme.red(),
        ));
    }
    if let Some(query) = &app.searching {
        hints.push(Span::styled(
            format!(
                " searching the sessions' text for “{}”… ",
                sanitize::line(query)
            ),
            theme.yellow(),
        ));
    }
    if app.filtering {
        hints.extend([
            Span::styled("/", theme.bold()),
            Span::raw(sanitize::line(&app.filter).into_owned()),
            Span::styled("█", theme.dim()),
            Span::styled(
                "   Enter keep, and search the text · Esc clear",
                theme.dim(),
            ),
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
    Line::from(hints)
}
