//! The export as Markdown, for pasting into a pull request or an issue. Every text
//! from the session goes into a code span or a fenced block, so nothing in it is read
//! as Markdown or HTML.

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

pub(super) fn page(export: &Export) -> String {
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
            out.push_str("| | token | class | what became of it |\n|---|---|---|---|\n");
            for token in not_kept {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    token.mark.glyph(),
                    span(&token.token),
                    token.class,
                    token.state
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
    conversation(&mut out, &export.conversation, export.hidden);
    out
}

fn conversation(out: &mut String, turns: &[Turn], hidden: usize) {
    let _ = writeln!(
        out,
        "<details><summary>Conversation: {} events ({hidden} bookkeeping records left out)</summary>\n",
        turns.len()
    );
    for turn in turns {
        let tool = turn
            .tool
            .as_deref()
            .map(|t| format!(" {}", span(t)))
            .unwrap_or_default();
        let _ = writeln!(out, "**seq {} · {}**{tool}\n", turn.seq, turn.role);
        block(out, &turn.text);
    }
    out.push_str("</details>\n");
}
