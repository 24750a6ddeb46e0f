//! The export as Markdown, for pasting into a pull request or an issue. Every text
//! from the session goes into a code span or a fenced block, so nothing in it is read
//! as Markdown or HTML.
//!
//! By default it is the session's header and a section per compaction (what it
//! dropped, the findings, the decision), kept under [`LIMIT`] characters so that it fits
//! a GitHub comment; what does not fit is cut, and the page says so. `--full` adds the
//! whole conversation, with no limit.

use super::{Export, Turn};
use ctxlens_core::analysis::Severity;
use std::fmt::Write;

/// A fence longer than any run of backticks in `text`.
fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// `text` as a code span on one line, `|` escaped for a table cell.
fn span(text: &str) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    let ticks = "`".repeat(
        one_line
            .split(|c| c != '`')
            .map(str::len)
            .max()
            .unwrap_or(0)
            + 1,
    );
    format!("{ticks} {} {ticks}", one_line.replace('|', "\\|"))
}

fn block(out: &mut String, text: &str) {
    let fence = fence(text);
    let _ = writeln!(out, "{fence}text\n{}\n{fence}\n", text.trim_end());
}

/// The most characters the default page holds: GitHub takes 65,536 in a comment.
pub(super) const LIMIT: usize = 60_000;

/// Room kept for the note that says what was cut.
const NOTE_ROOM: usize = 400;

pub(super) fn page(export: &Export, full: bool) -> String {
    let report = &export.report;
    let mut out = String::new();
    let _ = writeln!(out, "## ctxlens: {}\n", span(&report.file));
    let _ = writeln!(
        out,
        "{} · {} events · {} · {} malformed lines",
        report.format,
        report.events,
        match report.compactions.len() {
            1 => "1 compaction".to_owned(),
            n => format!("{n} compactions"),
        },
        report.malformed_lines
    );
    if !report.model.is_empty() {
        let _ = writeln!(out, "\nmodel {}", span(&report.model.join(", ")));
    }
    if let Some(branch) = &report.branch {
        let _ = writeln!(out, "\nbranch {}", span(branch));
    }
    out.push('\n');
    for (compaction, tokens) in report.compactions.iter().zip(&export.compactions) {
        let _ = writeln!(
            out,
            "### Compaction {}: {}, gate {}\n",
            span(&compaction.id),
            compaction.phase,
            compaction.verdict.as_str().to_uppercase()
        );
        let decision = compaction.decision.as_ref().map_or_else(
            || "no decision".to_owned(),
            |d| format!("decision **{}**", d.verdict.as_str()),
        );
        let harm = compaction
            .harm_cost
            .map(|cost| format!("; harm cost {}", cost.phrase()))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "Opaque tokens kept {} of {}; {decision}{harm}.\n",
            compaction.opaque_kept, compaction.opaque_tokens
        );
        for finding in report
            .findings
            .iter()
            .filter(|f| f.compaction.as_deref() == Some(compaction.id.as_str()))
        {
            let severity = match finding.severity {
                Severity::Error => "**error**",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            let resolved = finding
                .resolved_by
                .map(|v| format!(" (resolved by {})", v.as_str()))
                .unwrap_or_default();
            let advice = crate::legend::what_to_do(finding)
                .map(|advice| format!(" → {advice}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "- {severity} `{}`: {}{resolved}{advice}",
                finding.kind.name(),
                span(&finding.message)
            );
        }
        out.push('\n');
        let not_kept: Vec<_> = tokens.tokens.iter().filter(|t| t.state != "kept").collect();
        if !not_kept.is_empty() {
            out.push_str(
                "| | identifier | class | what became of it | first seen |\n|---|---|---|---|---|\n",
            );
            for token in not_kept {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | seq {} |",
                    token.mark.glyph(),
                    span(&token.token),
                    token.class,
                    token.state,
                    token.first_seq
                );
            }
            out.push('\n');
        }
        if let Some(summary) = &tokens.summary {
            out.push_str("<details><summary>Summary</summary>\n\n");
            block(&mut out, summary);
            out.push_str("</details>\n\n");
        }
    }
    if full {
        conversation(&mut out, &export.conversation, export.hidden);
        return out;
    }
    fit(out, export.conversation.len())
}

/// `page` cut to [`LIMIT`] characters at a line's end, with a note that says so; the
/// conversation's `turns` are left out either way, and the note says how to get them.
fn fit(mut page: String, turns: usize) -> String {
    let whole = page.chars().count();
    let mut note = format!(
        "\n_The conversation ({turns} turns) is left out: `ctxlens export --format markdown --full` has it, and `--format html` makes a page to read._\n"
    );
    if whole + note.len() <= LIMIT {
        page.push_str(&note);
        return page;
    }
    let keep = LIMIT - NOTE_ROOM - note.len();
    // The last line end within `keep` characters that is outside a fenced block.
    let mut end = 0;
    let mut chars = 0;
    let mut fence: Option<String> = None;
    let mut at = 0;
    for line in page.split_inclusive('\n') {
        chars += line.chars().count();
        at += line.len();
        if chars > keep {
            break;
        }
        let ticks: String = line.chars().take_while(|&c| c == '`').collect();
        if ticks.len() >= 3 {
            fence = match fence {
                Some(open) if line.trim_end() == open => None,
                None => Some(ticks),
                open => open,
            };
        }
        if fence.is_none() {
            end = at;
        }
    }
    let cut = page.get(end..).map_or(0, |rest| rest.chars().count());
    page.truncate(end);
    // A `<details>` left open by the cut is closed.
    let open = page.matches("<details>").count();
    let closed = page.matches("</details>").count();
    for _ in closed..open {
        page.push_str("\n</details>\n");
    }
    note.insert_str(
        0,
        &format!("\n_Cut here to fit a comment: {cut} more characters of the compactions are not shown._\n"),
    );
    page.push_str(&note);
    page
}

fn conversation(out: &mut String, turns: &[Turn], hidden: usize) {
    let _ = writeln!(
        out,
        "<details><summary>Conversation: {} turns ({hidden} records left out: bookkeeping, messages with no words)</summary>\n",
        turns.len()
    );
    for turn in turns {
        let tool = turn
            .tool
            .as_deref()
            .map(|t| format!(" {}", span(t)))
            .unwrap_or_default();
        let time = turn
            .ts
            .as_deref()
            .map(|ts| format!(" · {}", ts.replace('T', " ")))
            .unwrap_or_default();
        let _ = writeln!(out, "**seq {}{time} · {}**{tool}\n", turn.seq, turn.role);
        block(out, &turn.text);
    }
    out.push_str("</details>\n");
}
