//! Turning (already terminal-safe) text into styled lines with the tokens marked.

use super::style::Theme;
use crate::tui::view::marks::Mark;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

/// Tabs become spaces: a raw tab would move the terminal's cursor past the cell grid.
fn untab(text: &str) -> String {
    text.replace('\t', "    ")
}

/// `text` split into lines, each mark styled by its state and followed by its glyph.
pub(super) fn marked_lines(
    text: &str,
    marks: &[Mark],
    base: Style,
    theme: Theme,
) -> Vec<Line<'static>> {
    marked_lines_where(
        text,
        marks,
        (base, theme),
        |_| true,
        (usize::MAX, usize::MAX),
    )
}

/// The lines of `text` whose index `keep` takes, marked, up to `most` of them and each
/// cut after `line_cells` cells: a view builds what it can show (every line takes a
/// row at least, and a row holds at most its width), not a whole summary per frame.
/// A cut line is the first spans of the whole one, the last of them shortened.
pub(super) fn marked_lines_where(
    text: &str,
    marks: &[Mark],
    (base, theme): (Style, Theme),
    keep: impl Fn(usize) -> bool,
    (most, line_cells): (usize, usize),
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut marks = marks.iter().peekable();
    let mut line_start = 0;
    for (index, raw) in text.split('\n').enumerate() {
        if lines.len() >= most {
            break;
        }
        let line_end = line_start + raw.len();
        if !keep(index) {
            while marks.next_if(|m| m.start < line_end).is_some() {}
            line_start = line_end + 1;
            continue;
        }
        let mut line = CutLine::new(line_cells);
        let mut at = line_start;
        while let Some(&mark) = marks.next_if(|m| m.start < line_end) {
            if line.is_full() || mark.start < at || mark.end > line_end {
                continue;
            }
            line.push_text(&text[at..mark.start], base);
            if line.is_full() {
                continue;
            }
            line.push(Span::styled(
                format!("{}{}", &text[mark.start..mark.end], mark.state.glyph()),
                theme.token(mark.state),
            ));
            at = mark.end;
        }
        line.push_text(&text[at..line_end], base);
        lines.push(Line::from(line.spans));
        line_start = line_end + 1;
    }
    lines
}

/// A line built up to a number of cells: what is pushed once it holds them is dropped.
struct CutLine {
    spans: Vec<Span<'static>>,
    cells: usize,
    limit: usize,
}

impl CutLine {
    fn new(limit: usize) -> Self {
        CutLine {
            spans: Vec::new(),
            cells: 0,
            limit,
        }
    }

    fn is_full(&self) -> bool {
        self.cells >= self.limit
    }

    fn push(&mut self, span: Span<'static>) {
        if !self.is_full() {
            self.cells += span.width();
            self.spans.push(span);
        }
    }

    /// Plain text (tabs expanded), as far as the line still takes.
    fn push_text(&mut self, text: &str, style: Style) {
        if !text.is_empty() {
            let part = first_cells(text, self.limit.saturating_sub(self.cells));
            self.push(Span::styled(untab(part), style));
        }
    }
}

/// The shortest start of `text` that takes `cells` cells or more (all of it if it
/// takes fewer).
fn first_cells(text: &str, cells: usize) -> &str {
    let mut taken = 0;
    for (i, c) in text.char_indices() {
        if taken >= cells {
            return &text[..i];
        }
        taken += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
    }
    text
}

/// Plain lines with tabs expanded.
pub(super) fn plain_lines(text: &str, style: Style) -> Vec<Line<'static>> {
    text.split('\n')
        .map(|l| Line::from(Span::styled(untab(l), style)))
        .collect()
}

/// Rows `lines` take once wrapped to `width` columns (near enough for scrolling).
pub(super) fn wrapped_rows(lines: &[Line], width: u16) -> u16 {
    lines
        .iter()
        .map(|l| (l.width() as u16).div_ceil(width.max(1)).max(1))
        .sum()
}

/// Wrapped lines in `block`, scrolled down by `scroll` rows, for `area`: every long
/// text of the views. Only what can be seen is wrapped (see [`visible_part`]).
pub(super) fn scrolled<'a>(
    lines: Vec<Line<'a>>,
    block: Block<'a>,
    scroll: u16,
    area: Rect,
) -> Paragraph<'a> {
    let inner = block.inner(area);
    let lines = visible_part(lines, scroll, inner.height, inner.width);
    Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
}

/// The part of `lines` a wrapped paragraph `width` columns wide, scrolled by `scroll`
/// rows and `height` rows tall can show: a row holds at most `width` cells of
/// non-blank characters and every line takes a row at least, so what lies beyond `scroll + height` rows of cells (and
/// the word after them, which decides where the last row breaks) is cut. A summary that is one long line, or a region of 100,000 tokens, costs what fits
/// on the screen, not its length, on every frame. (In a narrow pane a wide character
/// fits no row and is skipped: panes under eight columns are left whole.)
pub(super) fn visible_part(
    lines: Vec<Line<'_>>,
    scroll: u16,
    height: u16,
    width: u16,
) -> Vec<Line<'_>> {
    use unicode_width::UnicodeWidthStr;
    if width < 8 {
        return lines;
    }
    let mut rows_left = usize::from(scroll) + usize::from(height);
    let width = usize::from(width);
    let mut out = Vec::new();
    for mut line in lines {
        if rows_left == 0 {
            break;
        }
        // Whitespace where a row breaks takes no cell: count the rest.
        let cells: usize = line
            .spans
            .iter()
            .flat_map(|s| s.content.chars())
            .filter(|c| !c.is_whitespace())
            .map(|c| unicode_width::UnicodeWidthChar::width(c).unwrap_or(0))
            .sum();
        // A wide character may stand in a row's last column: a cell more.
        let rows = cells.div_ceil(width + 1).max(1);
        if rows > rows_left {
            // Where a row breaks depends on the word after it: keep two rows more.
            let mut keep = (rows_left + 2) * width;
            let mut spans = Vec::new();
            for mut span in std::mem::take(&mut line.spans) {
                if keep == 0 {
                    break;
                }
                let cells = span.content.width();
                if cells > keep {
                    let mut cut = String::new();
                    for c in span.content.chars() {
                        if keep == 0 {
                            break;
                        }
                        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                        keep = keep.saturating_sub(w);
                        cut.push(c);
                    }
                    span.content = cut.into();
                    keep = 0;
                } else {
                    keep -= cells;
                }
                spans.push(span);
            }
            line.spans = spans;
            out.push(line);
            break;
        }
        rows_left -= rows;
        out.push(line);
    }
    out
}

#[cfg(test)]
mod visible_part_tests {
    use super::*;
    use proptest::prelude::*;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    pub(super) fn draw(
        lines: Vec<Line<'static>>,
        scroll: u16,
        w: u16,
        h: u16,
    ) -> ratatui::buffer::Buffer {
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        term.draw(|f| {
            let p = Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0));
            f.render_widget(p, f.area());
        })
        .unwrap();
        term.backend().buffer().clone()
    }

    proptest! {
        /// Cutting what cannot be seen never changes what is seen.
        #[test]
        fn the_screen_is_the_same_with_only_the_visible_part(
            texts in proptest::collection::vec(proptest::collection::vec("[a-z]{0,12}( |中|é|e\u{301})?", 0..12), 0..12),
            scroll in 0u16..30, w in 8u16..40, h in 1u16..12,
        ) {
            let lines: Vec<Line<'static>> = texts
                .iter()
                .map(|spans| Line::from(spans.iter().map(|s| Span::raw(s.clone())).collect::<Vec<_>>()))
                .collect();
            let cut = visible_part(lines.clone(), scroll, h, w);
            prop_assert_eq!(draw(cut, scroll, w, h), draw(lines, scroll, w, h));
        }
    }
}

#[cfg(test)]
mod marked_lines_tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::visible_part_tests::draw;
    use super::*;
    use crate::tui::view::marks::TokenState;
    use proptest::prelude::*;

    proptest! {
        /// Building only the kept lines, up to a count, is the whole build filtered.
        #[test]
        fn some_lines_marked_are_those_lines_of_all_marked(
            words in proptest::collection::vec("[a-z]{1,5}|\n", 0..40),
            marked in proptest::collection::vec(any::<bool>(), 40),
            keep_every in 1usize..4,
            most in 0usize..12,
        ) {
            let text: String = words.join(" ");
            // A mark on every chosen word (words never span a line).
            let mut marks = Vec::new();
            let mut at = 0;
            for (word, &mark) in words.iter().zip(&marked) {
                if mark && word != "\n" {
                    marks.push(Mark { start: at, end: at + word.len(), state: TokenState::Kept });
                }
                at += word.len() + 1;
            }
            let theme = Theme { color: true };
            let all = marked_lines(&text, &marks, Style::new(), theme);
            let some = marked_lines_where(&text, &marks, (Style::new(), theme), |i| i % keep_every == 0, (most, usize::MAX));
            let expected: Vec<Line> = all
                .into_iter()
                .enumerate()
                .filter(|(i, _)| i % keep_every == 0)
                .map(|(_, l)| l)
                .take(most)
                .collect();
            prop_assert_eq!(some, expected);
        }

        /// Lines cut after the cells `rows + 2` rows hold draw the screen the whole
        /// lines draw: a summary that is one long line is built as far as it shows.
        #[test]
        fn lines_cut_after_the_cells_that_show_draw_the_same_screen(
            words in proptest::collection::vec("[a-z]{1,9}|\n|中文|\t", 0..120),
            marked in proptest::collection::vec(any::<bool>(), 120),
            scroll in 0u16..6, w in 8u16..30, h in 1u16..8,
        ) {
            let text: String = words.join(" ");
            let mut marks = Vec::new();
            let mut at = 0;
            for (word, &mark) in words.iter().zip(&marked) {
                if mark && word != "\n" && word != "\t" {
                    marks.push(Mark { start: at, end: at + word.len(), state: TokenState::Dropped });
                }
                at += word.len() + 1;
            }
            let theme = Theme { color: true };
            let rows = usize::from(scroll) + usize::from(h);
            let all = marked_lines(&text, &marks, Style::new(), theme);
            let cut = marked_lines_where(&text, &marks, (Style::new(), theme), |_| true, (rows, (rows + 2) * usize::from(w)));
            prop_assert_eq!(
                draw(visible_part(cut, scroll, h, w), scroll, w, h),
                draw(visible_part(all, scroll, h, w), scroll, w, h)
            );
        }
    }
}

/// `lines` with every occurrence of `query` (ASCII case folded) in a span styled
/// `style`: what a search found, shown where it stands.
pub(super) fn highlighted(
    lines: Vec<Line<'static>>,
    query: &str,
    style: Style,
) -> Vec<Line<'static>> {
    let needle = query.to_ascii_lowercase();
    if needle.is_empty() {
        return lines;
    }
    lines
        .into_iter()
        .map(|line| {
            let Line {
                spans,
                style: line_style,
                alignment,
            } = line;
            let mut out = Vec::with_capacity(spans.len());
            for span in spans {
                let text = span.content.as_ref();
                let folded = text.to_ascii_lowercase();
                if !folded.contains(&needle) {
                    out.push(span);
                    continue;
                }
                let mut at = 0;
                // ASCII folding keeps every byte where it was: the offsets hold in both.
                for (start, _) in folded.match_indices(&needle) {
                    if start < at {
                        continue;
                    }
                    let end = start + needle.len();
                    if let (Some(before), Some(found)) = (text.get(at..start), text.get(start..end))
                    {
                        if !before.is_empty() {
                            out.push(Span::styled(before.to_owned(), span.style));
                        }
                        out.push(Span::styled(found.to_owned(), span.style.patch(style)));
                        at = end;
                    }
                }
                if let Some(rest) = text.get(at..).filter(|rest| !rest.is_empty()) {
                    out.push(Span::styled(rest.to_owned(), span.style));
                }
            }
            Line {
                spans: out,
                style: line_style,
                alignment,
            }
        })
        .collect()
}
