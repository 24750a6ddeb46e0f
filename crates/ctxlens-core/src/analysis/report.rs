//! The whole analysis of a session and its report (docs/json-report.md, `audit --json`).

use super::compaction::{CompactionAnalysis, DroppedToken};
use super::finding::{harm_cost, Cost, Finding, FindingKind, Severity};
pub use super::incremental::Analyzer;
use super::state::StateAt;
use crate::model::{Decision, RangeSpec, Session, TokenClass, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

/// How the report is made.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Density collapse is an error and the gate spills on it.
    pub strict: bool,
    /// List every dropped token, not only the ones that matter.
    pub list_tokens: bool,
}

/// Every compaction analysed, plus the session-wide findings, in report order.
#[derive(Debug, Clone)]
pub struct SessionAnalysis {
    /// Each compaction's analysis, in log order.
    pub compactions: Vec<CompactionAnalysis>,
    /// The findings of no one compaction: the unreadable lines, then whether the
    /// session is degraded. [`Self::findings`] puts the compactions' between them.
    pub(super) malformed: Vec<Finding>,
    pub(super) degraded_finding: Option<Finding>,
    /// Density collapse and a missing schema are errors (`--strict`).
    pub strict: bool,
    /// Not to be trusted without review from this compaction on (docs/remedies.md).
    pub degraded: Option<Degraded>,
    /// Obligations, bindings, plan and choices after the newest event (the same pass
    /// that gives the state at each compaction).
    pub now: StateAt,
}

/// Since when, and why, a session must not be trusted without review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Degraded {
    /// The compaction from which on.
    pub since: String,
    /// Why, in one sentence.
    pub why: String,
}

/// The first applied compaction that degrades the session: one decided `degrade`, or
/// one left undecided or approved although the gate said `degrade`, or said `refetch`
/// because it summarized a summary.
pub(super) fn degraded(compactions: &[CompactionAnalysis]) -> Option<Degraded> {
    let mut applied: Vec<&CompactionAnalysis> = compactions
        .iter()
        .filter(|c| c.info.applied_at.is_some())
        .collect();
    applied.sort_by_key(|c| c.info.applied_at);
    applied.into_iter().find_map(|c| {
        let decided = c.decision.as_ref().map(|d| d.verdict);
        let accepted = matches!(decided, None | Some(Verdict::Approve));
        let gate = c.flags.verdict(false);
        let why = if decided == Some(Verdict::Degrade) {
            "an operator decided degrade"
        } else if accepted && gate == Verdict::Degrade {
            "it was applied although its original events, needed to re-summarize, are not in this log"
        } else if accepted && gate == Verdict::Refetch && c.flags.summary_of_summary {
            "a summary of a summary was applied"
        } else {
            return None;
        };
        Some(Degraded {
            since: c.info.id.clone(),
            why: why.to_owned(),
        })
    })
}

impl SessionAnalysis {
    /// The compaction with id `id`.
    pub fn compaction(&self, id: &str) -> Option<&CompactionAnalysis> {
        self.compactions.iter().find(|c| c.info.id == id)
    }

    /// The gate's verdict on `compaction` (docs/remedies.md).
    pub fn verdict(&self, compaction: &CompactionAnalysis) -> Verdict {
        compaction.flags.verdict(self.strict)
    }

    /// Every finding: the unreadable lines', each compaction's in order, then the
    /// degraded session's (read from the compactions, not copied: a session can hold
    /// thousands).
    pub fn findings(&self) -> impl Iterator<Item = &Finding> + Clone {
        self.malformed
            .iter()
            .chain(self.compactions.iter().flat_map(|c| c.findings.iter()))
            .chain(&self.degraded_finding)
    }

    /// Errors no standing decision resolves: what `audit` fails on.
    pub fn unresolved_errors(&self) -> usize {
        self.findings().filter(|f| f.is_unresolved_error()).count()
    }

    /// Compactions still proposed with no decision.
    pub fn pending(&self) -> usize {
        self.compactions
            .iter()
            .filter(|c| c.info.phase == crate::model::Phase::Proposed && c.decision.is_none())
            .count()
    }

    /// Errors that no standing decision resolves (docs/remedies.md).
    pub fn has_errors(&self) -> bool {
        self.findings().any(Finding::is_unresolved_error)
    }
}

/// Analyses every compaction of `session`, with the decisions of the log and of
/// `sidecar`; `strict` as `audit --strict`.
pub fn analyze(session: &Session, sidecar: &[Decision], strict: bool) -> SessionAnalysis {
    Analyzer::default().analyze(session, sidecar, strict)
}

/// A finding for each skipped line (the first ones in detail, then a count).
pub(super) fn malformed_findings(session: &Session) -> Vec<Finding> {
    let mut findings: Vec<Finding> = session
        .malformed
        .detailed()
        .iter()
        .map(|m| {
            Finding::new(
                FindingKind::MalformedLine {
                    line: m.line,
                    offset: m.offset,
                },
                Severity::Warning,
                None,
                format!(
                    "line {} (byte {}) was skipped: {}",
                    m.line, m.offset, m.reason
                ),
            )
        })
        .collect();
    let unlisted = session.malformed.total() - session.malformed.detailed().len();
    if unlisted > 0 {
        let first = session
            .malformed
            .offsets()
            .get(session.malformed.detailed().len())
            .copied()
            .unwrap_or(0);
        findings.push(Finding::new(
            FindingKind::MalformedLine {
                line: 0,
                offset: first,
            },
            Severity::Warning,
            None,
            format!("{unlisted} more lines were skipped, from byte {first} on; only the first {} are listed", crate::model::MalformedLines::DETAILED),
        ));
    }
    findings
}

/// A compaction's region in the report.
#[derive(Debug, Clone, Serialize)]
pub struct RangeOut {
    /// The first seq.
    pub from: u64,
    /// The last seq.
    pub to: u64,
}

/// A dropped token as `--tokens` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct DroppedOut {
    /// The token.
    pub token: String,
    /// Its class.
    pub class: TokenClass,
    /// What became of it after the compaction.
    #[serde(flatten)]
    pub fate: super::inference::Fate,
}

/// One compaction in the report (docs/json-report.md).
#[derive(Debug, Clone, Serialize)]
pub struct CompactionReport {
    /// Its id.
    pub id: String,
    /// `proposed`, `applied` or `refused`.
    pub phase: &'static str,
    /// Its region; `None` when the range is missing or invalid.
    pub range: Option<RangeOut>,
    /// The gate's verdict.
    pub verdict: Verdict,
    /// Why the gate said so, one sentence each.
    pub reasons: Vec<std::borrow::Cow<'static, str>>,
    /// The standing decision.
    pub decision: Option<Decision>,
    /// The id a pre-compact hook held it as, whose decision it carries (docs/agents.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_as: Option<String>,
    /// Distinct region tokens the summary keeps, per distinct region token; `None` when
    /// the summary cannot be read.
    pub opaque_ratio: Option<f64>,
    /// Summary words per region word; `None` when the summary cannot be read.
    pub prose_ratio: Option<f64>,
    /// Distinct opaque tokens in the region.
    pub opaque_tokens: usize,
    /// How many of them the summary keeps.
    pub opaque_kept: usize,
    /// Dropped tokens that matter: declared, or required by something later.
    pub dropped: Vec<DroppedToken>,
    /// Every dropped token, counted by class.
    pub dropped_counts: BTreeMap<&'static str, usize>,
    /// Every dropped token (`--tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_tokens: Option<Vec<DroppedOut>>,
    /// `auto` or `manual`, when the agent says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// The context's size in model tokens before, when the agent says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_tokens: Option<u64>,
    /// And after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_tokens: Option<u64>,
    /// What the harm this compaction caused cost: the sum of its
    /// `regenerated_binding` findings' costs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harm_cost: Option<Cost>,
}

/// A Claude Code `microcompact_boundary`: old tool results cleared, no summary.
#[derive(Debug, Clone, Serialize)]
pub struct MicrocompactionReport {
    /// Its seq.
    pub seq: u64,
    /// Its line.
    pub line: u64,
}

/// The report of one file: what `audit --json` prints (docs/json-report.md).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The file, as named on the command line.
    pub file: String,
    /// `canonical`, `claude-code` or `codex`.
    pub format: &'static str,
    /// Events read.
    pub events: usize,
    /// Lines that could not be read.
    pub malformed_lines: usize,
    /// Each compaction.
    pub compactions: Vec<CompactionReport>,
    /// Each Claude Code microcompaction.
    pub microcompactions: Vec<MicrocompactionReport>,
    /// Every finding, in report order.
    pub findings: Vec<Finding>,
    /// The model(s) that wrote the session.
    pub model: Vec<String>,
    /// The session's title, when the agent gave it one.
    pub title: Option<String>,
    /// The user's first prompt, shortened.
    pub first_prompt: Option<String>,
    /// The git branch the session ran on.
    pub branch: Option<String>,
    /// Model tokens used, as the agent counted.
    pub usage: crate::model::TokenUsage,
    /// The newest event's timestamp.
    pub last_activity: Option<String>,
    /// Instruction files the runtime re-injects, as consulted (docs/transcripts.md).
    pub context_sources: Vec<crate::model::ContextSource>,
    /// Since when the session must not be trusted without review (docs/remedies.md), or null.
    pub degraded: Option<Degraded>,
}

impl Report {
    /// Errors that no standing decision resolves: what `audit` exits 1 for.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(Finding::is_unresolved_error)
    }
}

/// The report of `session` and its analysis, naming it `file`.
pub fn report(
    file: &str,
    session: &Session,
    analysis: &SessionAnalysis,
    options: Options,
) -> Report {
    let compactions = analysis
        .compactions
        .iter()
        .map(|c| CompactionReport {
            id: c.info.id.clone(),
            phase: c.info.phase.as_str(),
            range: match c.info.range {
                RangeSpec::Seqs { from, to } => Some(RangeOut { from, to }),
                _ => None,
            },
            verdict: analysis.verdict(c),
            reasons: c.reasons(analysis.strict),
            decision: c.decision.clone(),
            held_as: c.held_as.clone(),
            opaque_ratio: c.opaque_ratio,
            prose_ratio: c.prose_ratio,
            opaque_tokens: c.tokens.len(),
            opaque_kept: c.kept(),
            dropped: c.dropped.to_vec(),
            dropped_counts: c.dropped_counts.clone(),
            dropped_tokens: options.list_tokens.then(|| {
                c.tokens
                    .iter()
                    .filter(|t| t.survived == Some(false))
                    .map(|t| DroppedOut {
                        token: session.tokens.text(t.id).to_owned(),
                        class: session.tokens.class(t.id),
                        fate: t.fate,
                    })
                    .collect()
            }),
            trigger: c.extra.trigger.clone(),
            pre_tokens: c.extra.pre_tokens,
            post_tokens: c.extra.post_tokens,
            harm_cost: harm_cost(c.findings.iter()),
        })
        .collect();
    Report {
        file: file.to_owned(),
        format: session.format.as_str(),
        events: session.events.len(),
        malformed_lines: session.malformed.total(),
        compactions,
        microcompactions: session
            .microcompactions
            .iter()
            .filter_map(|&i| session.events.get(i))
            .map(|e| MicrocompactionReport {
                seq: e.seq,
                line: e.line,
            })
            .collect(),
        findings: analysis.findings().cloned().collect(),
        model: session.meta.models.clone(),
        title: session.meta.title.clone(),
        first_prompt: session.meta.first_prompt.clone(),
        branch: session.meta.branch.clone(),
        usage: session.meta.usage,
        last_activity: session.meta.last_activity.clone(),
        context_sources: session.context_sources.clone(),
        degraded: analysis.degraded.clone(),
    }
}
