//! Turning (already terminal-safe) text into styled lines with the tokens marked.

use super::style::Theme;
use crate::analysis::marks::Mark;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

/// Tabs become spaces: a raw tab would move the terminal's cursor past the cell grid.
fn untab(text: &str) -> String {
    text.replace('\t', "    ")
}

/// `text` split into lines, each mark styled by its state and followed by its glyph.
pub fn marked_lines(text: &str, marks: &[Mark], base: Style, theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut marks = marks.iter().peekable();
    let mut line_start = 0;
    for raw in text.split('\n') {
        let line_end = line_start + raw.len();
        let mut spans = Vec::new();
        let mut at = line_start;
        while let Some(&&mark) = marks.peek() {
            if mark.start >= line_end {
                break;
            }
            marks.next();
            if mark.start < at || mark.end > line_end {
                continue;
            }
            if mark.start > at {
                spans.push(Span::styled(untab(&text[at..mark.start]), base));
            }
            spans.push(Span::styled(
                format!("{}{}", &text[mark.start..mark.end], mark.state.glyph()),
                theme.token(mark.state),
            ));
            at = mark.end;
        }
        if at < line_end {
            spans.push(Span::styled(untab(&text[at..line_end]), base));
        }
        lines.push(Line::from(spans));
        line_start = line_end + 1;
    }
    lines
}

/// Plain lines with tabs expanded.
pub fn plain_lines(text: &str, style: Style) -> Vec<Line<'static>> {
    text.split('\n')
        .map(|l| Line::from(Span::styled(untab(l), style)))
        .collect()
}

/// Rows `lines` take once wrapped to `width` columns (near enough for scrolling).
pub fn wrapped_rows(lines: &[Line], width: u16) -> u16 {
    lines
        .iter()
        .map(|l| (l.width() as u16).div_ceil(width.max(1)).max(1))
        .sum()
}

/// Wrapped lines in `block`, scrolled down by `scroll` rows: every long text of the views.
pub fn scrolled<'a>(lines: Vec<Line<'a>>, block: Block<'a>, scroll: u16) -> Paragraph<'a> {
    Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
}
