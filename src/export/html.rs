//! The export as one self-contained HTML page: inline CSS, no script, nothing loaded
//! from anywhere, every text from the session escaped (Markdown rendered by
//! [`super::rendered`], raw HTML in it shown as text).
//!
//! The page reads as the conversation: what the person and the model wrote, rendered;
//! the model's thinking and each run of tool calls folded (`<details>`) under a line
//! that says what they were; each turn's time; and each compaction as a card where it
//! happened, with its summary, verdict, findings and the identifiers it dropped, each
//! linking back to where it was first seen. A table of contents links every compaction.

use super::rendered::markdown;
use super::{CompactionTokens, Export, Turn};
use crate::legend::TokenState;
use ctxlens_core::analysis::{CompactionReport, Severity};
use std::fmt::Write;

const STYLE: &str = "
body{font:15px/1.55 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.35rem;margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ccc}
.file{color:#666;font-size:.85rem;word-break:break-all;margin-top:0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;font-size:.9rem}dt{color:#666}dd{margin:0}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.5rem;border-radius:4px;margin:.3rem 0;max-height:40rem;overflow:auto}
code{font:13px ui-monospace,monospace}
nav.toc ol{padding-left:1.4rem}nav.toc li{margin:.1rem 0}
.turn{margin:.7rem 0;padding:.3rem .8rem;border-left:3px solid #ddd}
.who{font-size:.8rem;color:#666}.who .role{font-weight:600;color:#333;margin-right:.4rem}.who a{color:#999;margin-left:.4rem}
.user{border-color:#4a7bd0;background:#f4f8ff}.assistant{border-color:#999}
.thinking{border-color:#ccc;color:#555}.thinking .md{font-style:italic}
.system,.record{border-color:#ccc;font-size:.9rem}
details>summary{cursor:pointer;color:#444}
details.tools{margin:.5rem 0;padding:.2rem .8rem;border-left:3px solid #8bb37a;background:#f7faf5}
details.tools details{margin:.2rem 0 .2rem 1rem}
.error>summary,.errors{color:#b00020}
.compaction{border:2px solid #e0a800;border-radius:6px;padding:.2rem 1rem 1rem;margin:1.5rem 0;background:#fffbea}
.compaction h3{margin:.6rem 0 .3rem}
.verdict{font-weight:600}.alert{color:#b00020}.warning{color:#8a5a00}.note{color:#555}.resolved{color:#666;text-decoration:line-through}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{text-align:left;padding:.1rem .5rem;border-bottom:1px solid #eee;vertical-align:top}
tr.dropped td,tr.recalled td,tr.no-refetch td{background:#fff1f0}tr.no-refetch td{font-weight:600}
h3.day{font-size:.85rem;color:#888;border-bottom:1px dashed #ddd;margin:1.5rem 0 .5rem}
";

/// Tokens a card lists of those the summary kept; the rest are counted.
const KEPT_SHOWN: usize = 300;

/// Tokens a card lists of those the summary dropped; the rest are counted.
const DROPPED_SHOWN: usize = 2000;

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

/// The first line of `text`, at most `most` characters.
fn first_line(text: &str, most: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let short: String = line.trim().chars().take(most).collect();
    if short.len() < line.trim().len() {
        short + "…"
    } else {
        short
    }
}

/// The anchor of the compaction at `place` in the report's list.
fn compaction_anchor(place: usize) -> String {
    format!("compaction-{}", place + 1)
}

pub(super) fn page(export: &Export) -> String {
    let report = &export.report;
    let mut out = String::new();
    let title = report.title.as_deref().unwrap_or(&report.file);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>ctxlens: {title}</title><style>{STYLE}</style></head><body>\n\
         <header><h1>{title}</h1><p class=\"file\">{file}</p>\n",
        title = escape(title),
        file = escape(&report.file)
    );
    out.push_str("<dl>");
    facts(&mut out, export);
    out.push_str("</dl></header>\n");
    contents(&mut out, export);
    conversation(&mut out, export);
    out.push_str("</body></html>\n");
    out
}

fn facts(out: &mut String, export: &Export) {
    let report = &export.report;
    let mut fact = |name: &str, value: &str| {
        if !value.is_empty() {
            let _ = write!(out, "<dt>{name}</dt><dd>{}</dd>", escape(value));
        }
    };
    fact("agent", report.format);
    fact("model", &report.model.join(", "));
    fact("branch", report.branch.as_deref().unwrap_or(""));
    let times: Vec<&str> = export
        .conversation
        .iter()
        .filter_map(|t| t.ts.as_deref())
        .collect();
    if let (Some(first), Some(last)) = (times.first(), times.last()) {
        fact("from", &first.replace('T', " "));
        fact("to", &last.replace('T', " "));
    }
    fact(
        "events",
        &format!(
            "{} ({} malformed lines)",
            report.events, report.malformed_lines
        ),
    );
    let usage = &report.usage;
    fact(
        "model tokens",
        &format!(
            "{} in, {} out, {} read from cache, {} written to cache",
            usage.input, usage.output, usage.cache_read, usage.cache_creation
        ),
    );
}

fn contents(out: &mut String, export: &Export) {
    out.push_str("<nav class=\"toc\" id=\"contents\"><h2>Contents</h2><ol>");
    let _ = write!(
        out,
        "<li><a href=\"#conversation\">Conversation</a>: {} turns</li>",
        export.conversation.len()
    );
    for (place, compaction) in export.report.compactions.iter().enumerate() {
        let (alerts, notes) = tiers(export, compaction);
        let when = export
            .conversation
            .iter()
            .find(|t| t.compaction == Some(place))
            .and_then(|t| t.ts.as_deref())
            .map(|ts| format!(" · {}", ts.replace('T', " ")))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<li><a href=\"#{anchor}\">Compaction {n}</a>{when} · gate <span class=\"verdict\">{verdict}</span> · {alerts} alert{s}, {notes} note{t} <code>{id}</code></li>",
            anchor = compaction_anchor(place),
            n = place + 1,
            verdict = compaction.verdict.as_str().to_uppercase(),
            s = if alerts == 1 { "" } else { "s" },
            t = if notes == 1 { "" } else { "s" },
            id = escape(&compaction.id),
        );
    }
    out.push_str("</ol></nav>\n");
}

/// The alerts (errors no decision resolved) and the other findings of `compaction`.
fn tiers(export: &Export, compaction: &CompactionReport) -> (usize, usize) {
    let findings = export
        .report
        .findings
        .iter()
        .filter(|f| f.compaction.as_deref() == Some(compaction.id.as_str()));
    let alerts = findings
        .clone()
        .filter(|f| f.severity == Severity::Error && f.resolved_by.is_none())
        .count();
    (alerts, findings.count() - alerts)
}

fn conversation(out: &mut String, export: &Export) {
    let _ = writeln!(
        out,
        "<main><h2 id=\"conversation\">Conversation</h2><p>{} turns; {} left out \
         (progress, snapshots, token counts, messages with no words).</p>",
        export.conversation.len(),
        match export.hidden {
            1 => "1 record".to_owned(),
            n => format!("{n} records"),
        }
    );
    let mut placed = vec![false; export.report.compactions.len()];
    let mut day = "";
    let turns = &export.conversation;
    let mut at = 0;
    while let Some(turn) = turns.get(at) {
        if let Some(date) = turn.ts.as_deref().and_then(|ts| ts.get(..10)) {
            if date != day {
                let _ = writeln!(out, "<h3 class=\"day\">{}</h3>", escape(date));
                day = date;
            }
        }
        if is_tool(turn) {
            let run = turns
                .get(at..)
                .unwrap_or_default()
                .iter()
                .take_while(|t| is_tool(t))
                .count();
            tools(out, turns.get(at..at + run).unwrap_or_default());
            at += run;
            continue;
        }
        match turn.compaction {
            Some(place) => {
                if let (Some(report), Some(tokens)) = (
                    export.report.compactions.get(place),
                    export.compactions.get(place),
                ) {
                    card(out, export, place, report, tokens, Some(turn));
                    if let Some(done) = placed.get_mut(place) {
                        *done = true;
                    }
                }
            }
            None => spoken(out, turn),
        }
        at += 1;
    }
    // A compaction with no event of its own in the conversation still gets its card.
    for (place, (report, tokens)) in export
        .report
        .compactions
        .iter()
        .zip(&export.compactions)
        .enumerate()
    {
        if !placed.get(place).copied().unwrap_or(true) {
            card(out, export, place, report, tokens, None);
        }
    }
    out.push_str("</main>\n");
}

fn is_tool(turn: &Turn) -> bool {
    matches!(turn.role, "tool call" | "tool result" | "tool error")
}

/// The line above a turn: its role, its time and a link to it.
fn who(turn: &Turn, role: &str) -> String {
    let time = turn
        .ts
        .as_deref()
        .map(|ts| {
            format!(
                "<time datetime=\"{}\">{}</time>",
                escape(ts),
                escape(ts.get(11..19).unwrap_or(ts))
            )
        })
        .unwrap_or_default();
    format!(
        "<span class=\"role\">{role}</span>{time}<a href=\"#e{index}\">seq {seq}</a>",
        index = turn.index,
        seq = turn.seq
    )
}

/// A turn folded under its role and first line, its text rendered once unfolded.
fn folded(out: &mut String, turn: &Turn, class: &str, role: &str) {
    let _ = writeln!(
        out,
        "<details class=\"turn {class}\" id=\"e{index}\"><summary><span class=\"who\">{who}</span> {gist}</summary><div class=\"md\">{body}</div></details>",
        index = turn.index,
        who = who(turn, role),
        gist = escape(&first_line(&turn.text, 100)),
        body = markdown(&turn.text)
    );
}

/// A message, a thinking block or a record.
fn spoken(out: &mut String, turn: &Turn) {
    let index = turn.index;
    match turn.role {
        "user" if turn.meta => folded(out, turn, "system", "Added by the runtime"),
        "user" | "assistant" => {
            let role = if turn.role == "user" {
                "User"
            } else {
                "Assistant"
            };
            let _ = writeln!(
                out,
                "<section class=\"turn {class}\" id=\"e{index}\"><div class=\"who\">{who}</div><div class=\"md\">{body}</div></section>",
                class = turn.role,
                who = who(turn, role),
                body = markdown(&turn.text)
            );
        }
        "thinking" => folded(out, turn, "thinking", "Thinking"),
        role => {
            let tool = turn
                .tool
                .as_deref()
                .map(|t| format!(" {}", escape(t)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "<section class=\"turn {class}\" id=\"e{index}\"><div class=\"who\">{who}</div><pre>{text}</pre></section>",
                class = role.replace(' ', "-"),
                who = who(turn, &format!("{role}{tool}")),
                text = escape(&turn.text)
            );
        }
    }
}

/// A run of tool calls and results, folded under one line that names the tools.
fn tools(out: &mut String, run: &[Turn]) {
    let calls: Vec<&Turn> = run.iter().filter(|t| t.role == "tool call").collect();
    let errors = run.iter().filter(|t| t.role == "tool error").count();
    let mut names: Vec<(String, usize)> = Vec::new();
    for call in &calls {
        let name = call.tool.clone().unwrap_or_else(|| "tool".into());
        match names.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => names.push((name, 1)),
        }
    }
    let named: Vec<String> = names
        .iter()
        .map(|(name, count)| match count {
            1 => escape(name),
            n => format!("{} ×{n}", escape(name)),
        })
        .collect();
    let count = match calls.as_slice() {
        [] => format!("{} tool results", run.len()),
        // One call: what it did, in the line itself.
        [call] => format!("1 tool: {}", escape(&first_line(&call.text, 140))),
        many => format!("{} tools", many.len()),
    };
    let named = if calls.len() == 1 { Vec::new() } else { named };
    let failed = match errors {
        0 => String::new(),
        1 => " · <span class=\"errors\">1 error</span>".to_owned(),
        n => format!(" · <span class=\"errors\">{n} errors</span>"),
    };
    let names = match named.is_empty() {
        true => String::new(),
        false => format!(": {}", named.join(", ")),
    };
    let _ = writeln!(
        out,
        "<details class=\"tools\"><summary>{count}{names}{failed}</summary>"
    );
    for turn in run {
        let index = turn.index;
        let (class, line, body) = match turn.role {
            "tool call" => {
                let line = first_line(&turn.text, 160);
                let rest = turn
                    .text
                    .split_once('\n')
                    .map(|(_, rest)| rest.trim())
                    .unwrap_or("");
                // A subagent's prompt is Markdown written for a model: read as such.
                let body = match turn.tool.as_deref() {
                    Some("Task" | "Agent") if !rest.is_empty() => {
                        format!("<div class=\"md\">{}</div>", markdown(rest))
                    }
                    _ if rest.is_empty() => String::new(),
                    _ => format!("<pre>{}</pre>", escape(rest)),
                };
                ("call", line, body)
            }
            role => {
                let class = if role == "tool error" {
                    "result error"
                } else {
                    "result"
                };
                let said = if role == "tool error" {
                    "error"
                } else {
                    "result"
                };
                let line = format!("{said}: {}", first_line(&turn.text, 120));
                (class, line, format!("<pre>{}</pre>", escape(&turn.text)))
            }
        };
        let _ = writeln!(
            out,
            "<details class=\"{class}\" id=\"e{index}\"><summary><span class=\"who\">{who}</span> {line}</summary>{body}</details>",
            who = who(turn, ""),
            line = escape(&line),
        );
    }
    out.push_str("</details>\n");
}

/// A compaction where it happened: its verdict, decision and cost, its findings
/// (alerts, then notes), its summary, and the identifiers of its region it dropped or
/// kept, each linking to the event that first holds it.
fn card(
    out: &mut String,
    export: &Export,
    place: usize,
    compaction: &CompactionReport,
    tokens: &CompactionTokens,
    turn: Option<&Turn>,
) {
    let anchor = compaction_anchor(place);
    let time = turn
        .and_then(|t| t.ts.as_deref())
        .map(|ts| {
            format!(
                " · <time datetime=\"{}\">{}</time>",
                escape(ts),
                escape(&ts.replace('T', " "))
            )
        })
        .unwrap_or_default();
    let event_anchor = turn
        .map(|t| format!("<span id=\"e{}\"></span>", t.index))
        .unwrap_or_default();
    let _ = write!(
        out,
        "<section class=\"compaction\" id=\"{anchor}\">{event_anchor}<h3>Compaction {n}{time}</h3><p><code>{id}</code> · {phase}",
        n = place + 1,
        id = escape(&compaction.id),
        phase = compaction.phase,
    );
    if let Some(trigger) = &compaction.trigger {
        let _ = write!(out, " · trigger {}", escape(trigger));
    }
    if let Some(range) = &compaction.range {
        let _ = write!(out, " · region seq {}–{}", range.from, range.to);
    }
    let _ = write!(
        out,
        "</p><p>Gate: <span class=\"verdict\">{}</span>. Opaque tokens kept {} of {}.",
        compaction.verdict.as_str().to_uppercase(),
        compaction.opaque_kept,
        compaction.opaque_tokens
    );
    match &compaction.decision {
        Some(decision) => {
            let _ = write!(
                out,
                " Decision: <b>{}</b> by {}.",
                decision.verdict.as_str(),
                escape(decision.by.as_deref().unwrap_or("someone"))
            );
        }
        None => out.push_str(" No decision."),
    }
    if let Some(cost) = compaction.harm_cost {
        let _ = write!(out, " Harm cost: {}.", escape(&cost.phrase()));
    }
    out.push_str("</p>\n");
    findings(out, export, compaction);
    match &tokens.summary {
        Some(summary) => {
            let _ = writeln!(
                out,
                "<details open><summary>Summary</summary><div class=\"md\">{}</div></details>",
                markdown(summary)
            );
        }
        None => out.push_str("<p>The summary cannot be read (encrypted by the runtime, or missing from the log).</p>\n"),
    }
    needed_list(out, compaction);
    let (kept, lost): (Vec<_>, Vec<_>) = tokens
        .tokens
        .iter()
        .partition(|t| matches!(t.mark, TokenState::Kept | TokenState::Carried));
    let shown: Vec<usize> = export.conversation.iter().map(|t| t.index).collect();
    for (what, tokens, most) in [
        (
            "Every identifier of the region it did not keep",
            &lost,
            DROPPED_SHOWN,
        ),
        ("Identifiers it kept", &kept, KEPT_SHOWN),
    ] {
        let _ = write!(out, "<details><summary>{what} ({})</summary>", tokens.len());
        token_table(out, tokens, most, &shown);
        out.push_str("</details>");
    }
    out.push_str("</section>\n");
}

/// The dropped identifiers something needed later (a step, an obligation, a later
/// call), open: what an operator reads first.
fn needed_list(out: &mut String, compaction: &CompactionReport) {
    let needed: Vec<_> = compaction
        .dropped
        .iter()
        .filter(|d| !d.required_by.is_empty())
        .collect();
    if needed.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<h4>Dropped, and needed later ({})</h4><ul class=\"needed\">",
        needed.len()
    );
    for dropped in needed {
        let _ = write!(
            out,
            "<li><code>{}</code> ({}), needed by {}</li>",
            escape(&dropped.token),
            dropped.class.as_str(),
            escape(&dropped.required_by.join(", "))
        );
    }
    out.push_str("</ul>\n");
}

fn findings(out: &mut String, export: &Export, compaction: &CompactionReport) {
    let mut findings: Vec<_> = export
        .report
        .findings
        .iter()
        .filter(|f| f.compaction.as_deref() == Some(compaction.id.as_str()))
        .collect();
    if findings.is_empty() {
        return;
    }
    // Alerts first: what the operator acts on.
    findings.sort_by_key(|f| (f.resolved_by.is_some(), f.severity != Severity::Error));
    out.push_str("<ul class=\"findings\">");
    for finding in findings {
        let tier = match finding.severity {
            Severity::Error => "alert",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let class = if finding.resolved_by.is_some() {
            "resolved"
        } else {
            tier
        };
        let _ = write!(
            out,
            "<li class=\"{class}\">{tier} <code>{}</code>: {}",
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

/// A table of `tokens`, the first `most` of them; each links to the first turn shown at
/// or after the event that first holds it (`shown`: the turns' event indices, in order).
fn token_table(out: &mut String, tokens: &[&super::TokenOut], most: usize, shown: &[usize]) {
    if tokens.is_empty() {
        out.push_str("<p>None.</p>");
        return;
    }
    out.push_str("<table><tr><th></th><th>identifier</th><th>class</th><th>what became of it</th><th>first seen</th></tr>");
    for token in tokens.iter().take(most) {
        let _ = write!(
            out,
            "<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td><a href=\"#e{}\">seq {}</a></td></tr>",
            row_class(token.mark),
            token.mark.glyph(),
            escape(&token.token),
            token.class,
            token.state,
            nearest_shown(shown, token.first_event),
            token.first_seq
        );
    }
    out.push_str("</table>");
    if tokens.len() > most {
        let _ = write!(
            out,
            "<p>…and {} more (`ctxlens export --format json` lists them all).</p>",
            tokens.len() - most
        );
    }
}

/// The first of `shown` at or after `event`: a bookkeeping record is not shown, and a
/// link to it would lead nowhere.
fn nearest_shown(shown: &[usize], event: usize) -> usize {
    let at = shown.partition_point(|&index| index < event);
    shown
        .get(at)
        .or_else(|| shown.last())
        .copied()
        .unwrap_or(event)
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
