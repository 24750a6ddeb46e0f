//! Findings: what the signals report, in the shape of the spec's JSON report.

use crate::model::{PlanStep, Polarity, Verdict};
use serde::Serialize;
use serde_json::Value;

/// How much a finding weighs: an error fails `audit` unless a decision resolves it.
/// Errors and warnings are alerts: each claims the compaction lost something the
/// agent needed. A note is worth reading and claims no loss (docs/signals.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth reading, no claim of loss: not counted as an alert anywhere.
    Note,
    /// Worth a look; never fails `audit`.
    Warning,
    /// A loss or a gap; fails `audit` while unresolved.
    Error,
}

/// The step a continuation was expected to take.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectedStep {
    /// The plan step's id.
    pub id: String,
    /// Its action.
    pub action: String,
    /// Its target.
    pub target: Value,
}

impl From<&PlanStep> for ExpectedStep {
    fn from(step: &PlanStep) -> Self {
        ExpectedStep {
            id: step.id.clone(),
            action: step.action.clone(),
            target: step.target.clone(),
        }
    }
}

/// What the agent did instead: an action, or a step of a new plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ActualStep {
    /// An `action` event.
    Action {
        /// The action's seq.
        seq: u64,
        /// The plan step it names.
        step: Option<String>,
        /// Its name.
        name: String,
        /// Its target.
        target: Value,
    },
    /// A step of a plan written after the compaction.
    PlanStep(ExpectedStep),
}

/// What a harm cost the agent: the steps (tool calls) and the model tokens (the input
/// and output of every request) from the failed step to the one that recovered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    /// Tool calls from the failed step up to the recovery.
    pub steps: u64,
    /// Model tokens spent over those steps.
    pub tokens: u64,
}

impl Cost {
    /// The cost as a short phrase: `9 steps, 412k tokens`.
    pub fn phrase(self) -> String {
        let steps = if self.steps == 1 { "step" } else { "steps" };
        format!(
            "{} {steps}, {} tokens",
            self.steps,
            short_count(self.tokens)
        )
    }
}

/// The total cost of the harm alerts among `findings` (`regenerated_binding` with a
/// recovery; a note claims no harm), if any has one.
pub fn harm_cost<'f>(findings: impl IntoIterator<Item = &'f Finding>) -> Option<Cost> {
    findings
        .into_iter()
        .filter(|f| f.is_alert())
        .filter_map(|f| match &f.kind {
            FindingKind::RegeneratedBinding { cost, .. } => *cost,
            _ => None,
        })
        .reduce(|a, b| Cost {
            steps: a.steps + b.steps,
            tokens: a.tokens + b.tokens,
        })
}

/// A count as people read it: `950`, `41k`, `2.3M`.
pub fn short_count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{}k", n / 1000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// What a finding reports, with its facts (docs/signals.md; `kind` in the JSON report).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FindingKind {
    /// A token a later step needs is in the region and not in the summary.
    DroppedBinding {
        /// The token.
        token: String,
        /// The open obligation that requires it.
        obligation: Option<String>,
        /// The plan step, or the transcript use, that needs it.
        step: Option<String>,
        /// A transcript token used again with nothing bringing it back first (docs/transcripts.md).
        #[serde(skip_serializing_if = "Option::is_none")]
        recalled: Option<bool>,
    },
    /// After the compaction the agent used a token like a dropped one, and not it.
    RegeneratedBinding {
        /// The dropped token.
        token: String,
        /// The look-alike the agent used.
        regenerated: String,
        /// Where it was used (the first failed step).
        step: String,
        /// Every step that failed on the look-alike, in order.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        failed_steps: Vec<String>,
        /// Where the failure came back, when later than the step's own answer (the
        /// read of a background command's output).
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<String>,
        /// The later step that used the dropped token again.
        #[serde(skip_serializing_if = "Option::is_none")]
        recovered: Option<String>,
        /// What the harm cost, from the failed step to the recovery.
        #[serde(skip_serializing_if = "Option::is_none")]
        cost: Option<Cost>,
    },
    /// The summary keeps far fewer opaque tokens, for its size, than the region held.
    DensityCollapse {
        /// Tokens kept per token in the region.
        opaque_ratio: f64,
        /// Summary words per region word.
        prose_ratio: f64,
    },
    /// After the compaction the agent took a different step than the plan's next one.
    NonIdempotent {
        /// The step the plan had next.
        expected: ExpectedStep,
        /// What the agent did instead.
        actual: ActualStep,
        /// The dropped token the step's target looks regenerated from.
        regenerated_from: Option<String>,
    },
    /// The region holds an earlier summary: a summary of a summary.
    SummaryOfSummary,
    /// The compaction's range is missing, invalid, or reaches past the log.
    CoverageGap,
    /// An open obligation requires a token no binding declares.
    UnknownBinding {
        /// The token.
        token: String,
        /// The obligation.
        obligation: String,
    },
    /// The region holds no event.
    EmptySpan,
    /// A line could not be read as an event.
    MalformedLine {
        /// Its 1-based line number.
        line: u64,
        /// Its byte offset.
        offset: u64,
    },
    /// The standing decision differs from the gate's verdict.
    Override {
        /// The gate's verdict.
        verdict: Verdict,
        /// The decision.
        decided: Verdict,
    },
    /// A proposed compaction with no decision.
    Undecided,
    /// A later decision differs from the standing one (the first stands).
    DecisionConflict {
        /// Who made the later decision.
        by: Option<String>,
        /// What it said.
        verdict: Verdict,
    },
    /// The summary cannot be read (the runtime encrypted it).
    OpaqueSummary,
    /// The region lies in an earlier file, not in this log.
    RegionElsewhere,
    /// An approach the region chose, rejected or forbade is not in the summary.
    EntityDropped {
        /// The approach.
        entity: String,
        /// What the region said of it.
        polarity: Polarity,
    },
    /// The summary says the opposite of the region about an approach.
    PolarityFlip {
        /// The approach.
        entity: String,
        /// What the region said.
        expected: Polarity,
        /// What the summary says.
        found: Polarity,
    },
    /// The region made choices and the summary has no entity schema to keep them.
    SchemaMissing,
    /// A user's instruction in the region is not in the summary.
    InstructionDropped {
        /// The instruction, shortened.
        text: String,
    },
    /// The log holds more distinct identifiers than ctxlens records
    /// ([`crate::model::TOKEN_CAP`]), from before the end of this compaction's window.
    TooDense {
        /// The seq of the event from which on tokens were not recorded.
        from_seq: u64,
    },
    /// A decision of `degrade` stands: what follows is not to be trusted without review.
    Degraded {
        /// The degraded compaction.
        since: String,
        /// The decision's reason.
        why: String,
    },
}

impl FindingKind {
    /// The kind as the JSON report writes it.
    pub fn name(&self) -> &'static str {
        match self {
            FindingKind::DroppedBinding { .. } => "dropped_binding",
            FindingKind::RegeneratedBinding { .. } => "regenerated_binding",
            FindingKind::DensityCollapse { .. } => "density_collapse",
            FindingKind::NonIdempotent { .. } => "non_idempotent",
            FindingKind::SummaryOfSummary => "summary_of_summary",
            FindingKind::CoverageGap => "coverage_gap",
            FindingKind::UnknownBinding { .. } => "unknown_binding",
            FindingKind::EmptySpan => "empty_span",
            FindingKind::MalformedLine { .. } => "malformed_line",
            FindingKind::Override { .. } => "override",
            FindingKind::Undecided => "undecided",
            FindingKind::DecisionConflict { .. } => "decision_conflict",
            FindingKind::OpaqueSummary => "opaque_summary",
            FindingKind::RegionElsewhere => "region_elsewhere",
            FindingKind::EntityDropped { .. } => "entity_dropped",
            FindingKind::PolarityFlip { .. } => "polarity_flip",
            FindingKind::SchemaMissing => "schema_missing",
            FindingKind::InstructionDropped { .. } => "instruction_dropped",
            FindingKind::TooDense { .. } => "too_dense",
            FindingKind::Degraded { .. } => "degraded",
        }
    }
}

/// One thing the analysis found, as the JSON report writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// What was found, with its facts.
    #[serde(flatten)]
    pub kind: FindingKind,
    /// Error or warning.
    pub severity: Severity,
    /// The compaction it concerns; `None` for a finding about the log.
    pub compaction: Option<String>,
    /// One sentence an operator understands.
    pub message: String,
    /// The standing decision that resolves this finding (docs/remedies.md), or null.
    pub resolved_by: Option<Verdict>,
}

impl Finding {
    /// A finding no decision resolves yet.
    pub fn new(
        kind: FindingKind,
        severity: Severity,
        compaction: Option<&str>,
        message: String,
    ) -> Self {
        Finding {
            kind,
            severity,
            compaction: compaction.map(str::to_owned),
            message,
            resolved_by: None,
        }
    }

    /// The finding is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// An error or a warning: a claim that the compaction lost something the agent
    /// needed. Notes are not alerts.
    pub fn is_alert(&self) -> bool {
        self.severity >= Severity::Warning
    }

    /// An error no standing decision resolves: what `audit` exits 1 for.
    pub fn is_unresolved_error(&self) -> bool {
        self.is_error() && self.resolved_by.is_none()
    }

    /// The signal (docs/signals.md, 1 to 6) a finding belongs to, for resolution (docs/remedies.md); `None`
    /// for findings that report what happened, which no decision resolves.
    pub fn signal(&self) -> Option<u8> {
        match &self.kind {
            FindingKind::DensityCollapse { .. } => Some(1),
            FindingKind::DroppedBinding { .. } | FindingKind::UnknownBinding { .. } => Some(2),
            FindingKind::SummaryOfSummary => Some(4),
            FindingKind::CoverageGap | FindingKind::EmptySpan => Some(5),
            FindingKind::EntityDropped { .. }
            | FindingKind::PolarityFlip { .. }
            | FindingKind::SchemaMissing => Some(6),
            _ => None,
        }
    }
}

/// Whether a standing decision of `verdict` resolves findings of `signal` (docs/remedies.md).
/// A refuse or refetch that the runtime did not follow (the compaction was applied
/// anyway) resolves nothing.
pub(crate) fn resolves(verdict: Verdict, signal: u8, applied: bool) -> bool {
    match verdict {
        Verdict::Spill => matches!(signal, 1 | 2 | 4 | 5 | 6),
        Verdict::Refuse => !applied && matches!(signal, 1 | 2 | 4 | 5 | 6),
        Verdict::Refetch => !applied && matches!(signal, 1 | 2 | 4 | 6),
        Verdict::Preserve => !applied && matches!(signal, 1 | 2),
        Verdict::Approve | Verdict::Degrade => false,
    }
}

/// A compaction id as lists and alerts show it: the first 8 characters of a long id
/// (a Claude Code uuid), short ids (`k1`, `compacted-2`) whole.
pub fn short_id(id: &str) -> &str {
    // Only machine ids (a UUID, a long hex id) are cut: `pre-compact-12` stays whole.
    let machine = id.len() > 12 && id.bytes().take(8).all(|b| b.is_ascii_hexdigit());
    if machine {
        &id[..8]
    } else {
        id
    }
}
