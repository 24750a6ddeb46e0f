//! The readable report: plain text, coloured only when asked to.

use crate::legend::TokenState;
use crate::sanitize;
use ctxlens_core::analysis::{CompactionReport, Report};
use ctxlens_core::analysis::{Finding, Severity};
use ctxlens_core::model::Verdict;
use std::fmt::Write;

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub(crate) fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    pub(crate) fn red(&self, text: &str) -> String {
        self.paint("1;31", text)
    }

    pub(crate) fn yellow(&self, text: &str) -> String {
        self.paint("33", text)
    }

    pub(crate) fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }

    pub(crate) fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    pub(crate) fn verdict(&self, verdict: Verdict) -> String {
        let text = verdict.as_str().to_uppercase();
        match verdict {
            Verdict::Approve => self.green(&text),
            Verdict::Spill | Verdict::Preserve => self.yellow(&text),
            Verdict::Refetch | Verdict::Refuse | Verdict::Degrade => self.red(&text),
        }
    }

    pub(crate) fn finding(&self, finding: &Finding) -> String {
        // One rule with the TUI: what a standing decision resolves is marked resolved
        // and counted apart, whatever its severity.
        let (mark, label) = match (finding.severity, finding.resolved_by) {
            (Severity::Error, Some(_)) => (self.green("✔"), self.dim("error  ")),
            (Severity::Warning, Some(_)) => (self.green("✔"), self.dim("warning")),
            (Severity::Note, Some(_)) => (self.green("✔"), self.dim("note   ")),
            (Severity::Error, None) => (self.red("✖"), self.red("error  ")),
            (Severity::Warning, None) => (self.yellow("⚠"), self.yellow("warning")),
            (Severity::Note, None) => (self.dim("·"), self.dim("note   ")),
        };
        let resolved = finding
            .resolved_by
            .map(|v| format!(" (resolved by {})", v.as_str()))
            .unwrap_or_default();
        let advice = crate::legend::what_to_do(finding)
            .map(|advice| format!("\n    {}", self.dim(&format!("→ {advice}"))))
            .unwrap_or_default();
        format!(
            "{mark} {label} {:<18} {}{resolved}{advice}",
            finding.kind.name(),
            sanitize::line(&finding.message)
        )
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn compaction(out: &mut String, report: &Report, c: &CompactionReport, style: Style) {
    let id = sanitize::line(&c.id);
    let range = c.range.as_ref().map_or("no usable range".into(), |r| {
        format!("range {}–{}", r.from, r.to)
    });
    let phase = match (c.phase, c.decision.as_ref().map(|d| d.verdict)) {
        ("refused", decided) => ctxlens_core::model::Phase::Refused.shown(decided),
        (phase, _) => phase,
    };
    let _ = writeln!(
        out,
        "\n{} {}  {phase}  {range}  gate: {}",
        style.bold("compaction"),
        style.bold(&id),
        style.verdict(c.verdict),
    );
    let mut about = Vec::new();
    if let Some(trigger) = &c.trigger {
        about.push(format!("trigger {}", sanitize::line(trigger)));
    }
    match (c.pre_tokens, c.post_tokens) {
        (Some(pre), Some(post)) => about.push(format!("{pre} → {post} tokens")),
        (Some(pre), None) => about.push(format!("{pre} tokens before")),
        _ => {}
    }
    if let Some(cost) = c.harm_cost {
        about.push(format!("harm cost {}", cost.phrase()));
    }
    if !about.is_empty() {
        let _ = writeln!(out, "  {}", about.join("  "));
    }
    if !c.reasons.is_empty() {
        let _ = writeln!(out, "  because: {}", c.reasons.join("; "));
    }
    match &c.decision {
        Some(d) => {
            let by = sanitize::line(d.by.as_deref().unwrap_or("someone"));
            let handle = d
                .handle
                .as_deref()
                .map(|h| format!(" → {}", sanitize::line(h)))
                .unwrap_or_default();
            let held = c
                .held_as
                .as_deref()
                .map(|h| format!(" (decided while held as {})", sanitize::line(h)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  decision: {} by {by}{handle}{held}",
                d.verdict.as_str()
            );
        }
        None => {
            let held = c
                .held_as
                .as_deref()
                .map(|h| format!(" (held as {}, not decided)", sanitize::line(h)))
                .unwrap_or_default();
            let _ = writeln!(out, "  decision: {}{held}", style.dim("none"));
        }
    }
    match (c.opaque_ratio, c.prose_ratio) {
        (Some(opaque), Some(prose)) => {
            let _ = writeln!(
                out,
                "  opaque tokens kept {}/{} ({opaque:.2})  prose {prose:.2}",
                c.opaque_kept, c.opaque_tokens,
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "  opaque tokens: not measured (no region here, or the summary cannot be read)"
            );
        }
    }
    dropped(out, c, style);
    for finding in report
        .findings
        .iter()
        .filter(|f| f.compaction.as_deref() == Some(&c.id))
    {
        let _ = writeln!(out, "  {}", style.finding(finding));
    }
}

/// What a compaction dropped: counts by class, the tokens something needs, and (with
/// `--tokens`) every dropped token.
fn dropped(out: &mut String, c: &CompactionReport, style: Style) {
    if !c.dropped_counts.is_empty() {
        let counts: Vec<String> = c
            .dropped_counts
            .iter()
            .map(|(class, n)| format!("{class} {n}"))
            .collect();
        let total: usize = c.dropped_counts.values().sum();
        let _ = writeln!(out, "  dropped {total}: {}", counts.join(", "));
    }
    for d in &c.dropped {
        let marked = TokenState::of_dropped(d);
        let paint = |text: &str| match marked {
            TokenState::DroppedNoRefetch => style.red(text),
            TokenState::DroppedRegenerable | TokenState::Recalled => style.yellow(text),
            _ => style.dim(text),
        };
        let state = match d.rederived_cost {
            // What finding it again cost: the calls no other viewer counts.
            Some(cost) => paint(&format!(
                "{} (found again {} before this use)",
                marked.label(),
                cost.phrase()
            )),
            None => paint(marked.label()),
        };
        let glyph = paint(marked.glyph());
        let needed = if d.required_by.is_empty() {
            String::new()
        } else {
            format!("  needed by {}", sanitize::line(&d.required_by.join(", ")))
        };
        let _ = writeln!(
            out,
            "    {glyph} {} ({}) {state}{needed}",
            style.bold(&sanitize::line(&d.token)),
            d.class.as_str()
        );
    }
    if let Some(tokens) = &c.dropped_tokens {
        let _ = writeln!(out, "  every dropped token:");
        for t in tokens {
            let _ = writeln!(
                out,
                "    {} ({})",
                sanitize::line(&t.token),
                t.class.as_str()
            );
        }
    }
}

/// The whole report of one file.
pub(crate) fn report(report: &Report, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}  {}  {}  {}  {}",
        style.bold(&sanitize::line(&report.file)),
        report.format,
        plural(report.events, "event", "events"),
        plural(report.compactions.len(), "compaction", "compactions"),
        plural(report.malformed_lines, "malformed line", "malformed lines"),
    );
    let mut about = Vec::new();
    if let Some(title) = &report.title {
        about.push(format!("\"{}\"", sanitize::line(title)));
    }
    if !report.model.is_empty() {
        about.push(sanitize::line(&report.model.join(", ")).into_owned());
    }
    if let Some(branch) = &report.branch {
        about.push(format!("branch {}", sanitize::line(branch)));
    }
    if !about.is_empty() {
        let _ = writeln!(out, "  {}", about.join("  "));
    }
    if let Some(d) = &report.degraded {
        let _ = writeln!(
            out,
            "  {} since {}: {}",
            style.red("DEGRADED"),
            sanitize::line(ctxlens_core::analysis::short_id(&d.since)),
            d.why
        );
    }
    for finding in report.findings.iter().filter(|f| f.compaction.is_none()) {
        let _ = writeln!(out, "  {}", style.finding(finding));
    }
    for c in &report.compactions {
        compaction(&mut out, report, c, style);
    }
    let errors = report
        .findings
        .iter()
        .filter(|f| f.is_unresolved_error())
        .count();
    let resolved = report
        .findings
        .iter()
        .filter(|f| f.resolved_by.is_some())
        .count();
    // Notes are worth reading but claim no loss: counted apart from the alerts.
    let notes = report
        .findings
        .iter()
        .filter(|f| !f.is_alert() && f.resolved_by.is_none())
        .count();
    let warnings = report.findings.len() - errors - resolved - notes;
    let mut summary = format!(
        "{}, {}",
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings")
    );
    if notes > 0 {
        summary += &format!(", {}", plural(notes, "note", "notes"));
    }
    if resolved > 0 {
        summary += &format!(", {resolved} resolved");
    }
    let summary = if errors > 0 {
        style.red(&summary)
    } else {
        style.green(&summary)
    };
    let _ = writeln!(out, "\n{summary}");
    out
}
