//! The export as one self-contained HTML page: inline CSS, no script, no link that
//! loads anything, every text escaped.

use super::{CompactionTokens, Export, Turn};
use crate::legend::TokenState;
use ctxlens_core::analysis::CompactionReport;
use ctxlens_core::analysis::Severity;
use std::fmt::Write;

const STYLE: &str = "
body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem;word-break:break-all}h2{margin-top:2.5rem;border-bottom:1px solid #ccc}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{color:#666}dd{margin:0}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.6rem;border-radius:4px;margin:.3rem 0}
code{font:13px ui-monospace,monospace}
.compaction{border:1px solid #ddd;border-radius:6px;padding:0 1rem 1rem;margin:1rem 0}
.verdict{font-weight:600}.error{color:#b00020}.warning{color:#8a5a00}.resolved{color:#666;text-decoration:line-through}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.15rem .5rem;border-bottom:1px solid #eee;vertical-align:top}
tr.dropped td,tr.recalled td,tr.no-refetch td{background:#fff1f0}tr.no-refetch td{font-weight:600}
tr.kept td{color:#555}
.turn{margin:.8rem 0}.who{font-size:.85rem;color:#555}
.user pre{background:#eef4ff}.assistant pre{background:#f6f6f6}.thinking pre{background:#fafafa;color:#666}
.tool-call pre,.tool-result pre{background:#f3f7f1}.tool-error pre{background:#fff1f0}.compaction-turn pre{background:#fff8e1}
";

/// Replaces the characters HTML gives a meaning. Five characters, so no crate.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub(super) fn page(export: &Export) -> String {
    let report = &export.report;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>ctxlens: {file}</title><style>{STYLE}</style></head><body>\n\
         <h1>{file}</h1>\n<dl>",
        file = escape(&report.file)
    );
    let mut fact = |name: &str, value: &str| {
        if !value.is_empty() {
            let _ = write!(out, "<dt>{name}</dt><dd>{}</dd>", escape(value));
        }
    };
    fact("format", report.format);
    fact("events", &report.events.to_string());
    fact("compactions", &report.compactions.len().to_string());
    fact("malformed lines", &report.malformed_lines.to_string());
    fact("model", &report.model.join(", "));
    fact("title", report.title.as_deref().unwrap_or(""));
    fact("branch", report.branch.as_deref().unwrap_or(""));
    fact("first prompt", report.first_prompt.as_deref().unwrap_or(""));
    fact(
        "last activity",
        report.last_activity.as_deref().unwrap_or(""),
    );
    let usage = &report.usage;
    fact(
        "model tokens",
        &format!(
            "{} in, {} out, {} read from cache, {} written to cache",
            usage.input, usage.output, usage.cache_read, usage.cache_creation
        ),
    );
    out.push_str("</dl>\n");
    let _ = writeln!(
        out,
        "<h2 id=\"compactions\">Compactions ({})</h2>",
        report.compactions.len()
    );
    for (compaction, tokens) in report.compactions.iter().zip(&export.compactions) {
        compaction_section(&mut out, export, compaction, tokens);
    }
    conversation(&mut out, &export.conversation, export.hidden);
    out.push_str("</body></html>\n");
    out
}

fn compaction_section(
    out: &mut String,
    export: &Export,
    compaction: &CompactionReport,
    tokens: &CompactionTokens,
) {
    let id = escape(&compaction.id);
    let _ = write!(
        out,
        "<section class=\"compaction\" id=\"compaction-{id}\"><h3>{id}</h3><p>{phase}, \
         gate: <span class=\"verdict\">{verdict}</span>",
        phase = compaction.phase,
        verdict = compaction.verdict.as_str().to_uppercase(),
    );
    if let Some(range) = &compaction.range {
        let _ = write!(out, ", region seq {}–{}", range.from, range.to);
    }
    let _ = write!(
        out,
        ", opaque tokens kept {} of {}",
        compaction.opaque_kept, compaction.opaque_tokens
    );
    match &compaction.decision {
        Some(decision) => {
            let _ = write!(
                out,
                ". Decision: <b>{}</b> by {}",
                decision.verdict.as_str(),
                escape(decision.by.as_deref().unwrap_or("someone"))
            );
        }
        None => out.push_str(". No decision."),
    }
    if let Some(cost) = compaction.harm_cost {
        let _ = write!(out, ". Harm cost: {}", escape(&cost.phrase()));
    }
    out.push_str("</p>\n");
    let findings: Vec<_> = export
        .report
        .findings
        .iter()
        .filter(|f| f.compaction.as_deref() == Some(compaction.id.as_str()))
        .collect();
    if !findings.is_empty() {
        out.push_str("<h4>Findings</h4><ul>");
        for finding in findings {
            let severity = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            let class = if finding.resolved_by.is_some() {
                "resolved"
            } else {
                severity
            };
            let _ = write!(
                out,
                "<li class=\"{class}\">{severity} <code>{}</code>: {}",
                finding.kind.name(),
                escape(&finding.message)
            );
            if let Some(by) = finding.resolved_by {
                let _ = write!(out, " (resolved by {})", by.as_str());
            }
            if let Some(advice) = crate::legend::what_to_do(finding) {
                let _ = write!(out, "<br>→ {}", escape(advice));
            }
            out.push_str("</li>");
        }
        out.push_str("</ul>\n");
    }
    match &tokens.summary {
        Some(summary) => {
            let _ = writeln!(out, "<h4>Summary</h4><pre>{}</pre>", escape(summary));
        }
        None => out.push_str("<h4>Summary</h4><p>The summary cannot be read.</p>\n"),
    }
    let _ = write!(
        out,
        "<h4>Tokens of the region ({})</h4><table><tr><th></th><th>token</th><th>class</th><th>what became of it</th></tr>",
        tokens.tokens.len()
    );
    for token in &tokens.tokens {
        let _ = write!(
            out,
            "<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            row_class(token.mark),
            token.mark.glyph(),
            escape(&token.token),
            token.class,
            token.state
        );
    }
    out.push_str("</table></section>\n");
}

fn row_class(state: TokenState) -> &'static str {
    match state {
        TokenState::Kept => "kept",
        TokenState::Carried => "carried",
        TokenState::ReDerived => "re-derived",
        TokenState::DroppedNoRefetch => "no-refetch",
        TokenState::DroppedRegenerable => "dropped",
        TokenState::Recalled => "recalled",
        TokenState::Dropped => "dropped",
        TokenState::Unknown => "unknown",
    }
}

fn conversation(out: &mut String, turns: &[Turn], hidden: usize) {
    let _ = writeln!(
        out,
        "<h2 id=\"conversation\">Conversation</h2><p>{} events; {hidden} bookkeeping \
         records (progress, snapshots, token counts) left out.</p>",
        turns.len()
    );
    for turn in turns {
        let class = match turn.role {
            "compaction" => "compaction-turn".to_owned(),
            role => role.replace(' ', "-"),
        };
        let tool = turn
            .tool
            .as_deref()
            .map(|t| format!(" · {}", escape(t)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<div class=\"turn {class}\"><div class=\"who\">seq {} · {}{tool}</div><pre>{}</pre></div>",
            turn.seq,
            turn.role,
            escape(&turn.text)
        );
    }
}
