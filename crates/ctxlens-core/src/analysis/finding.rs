//! Findings: what the signals report, in the shape of the spec's JSON report.

use crate::model::{PlanStep, Polarity, Verdict};
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
}

/// The step a continuation was expected to take.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectedStep {
    pub id: String,
    pub action: String,
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
    Action {
        seq: u64,
        step: Option<String>,
        name: String,
        target: Value,
    },
    PlanStep(ExpectedStep),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FindingKind {
    DroppedBinding {
        token: String,
        obligation: Option<String>,
        step: Option<String>,
        /// A transcript token used again with nothing bringing it back first (docs/transcripts.md).
        #[serde(skip_serializing_if = "Option::is_none")]
        recalled: Option<bool>,
    },
    RegeneratedBinding {
        token: String,
        regenerated: String,
        step: String,
    },
    DensityCollapse {
        opaque_ratio: f64,
        prose_ratio: f64,
    },
    NonIdempotent {
        expected: ExpectedStep,
        actual: ActualStep,
        regenerated_from: Option<String>,
    },
    SummaryOfSummary,
    CoverageGap,
    UnknownBinding {
        token: String,
        obligation: String,
    },
    EmptySpan,
    MalformedLine {
        line: u64,
        offset: u64,
    },
    Override {
        verdict: Verdict,
        decided: Verdict,
    },
    Undecided,
    DecisionConflict {
        by: Option<String>,
        verdict: Verdict,
    },
    OpaqueSummary,
    RegionElsewhere,
    EntityDropped {
        entity: String,
        polarity: Polarity,
    },
    PolarityFlip {
        entity: String,
        expected: Polarity,
        found: Polarity,
    },
    SchemaMissing,
    InstructionDropped {
        text: String,
    },
    Degraded {
        since: String,
        why: String,
    },
}

impl FindingKind {
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
            FindingKind::Degraded { .. } => "degraded",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    #[serde(flatten)]
    pub kind: FindingKind,
    pub severity: Severity,
    pub compaction: Option<String>,
    /// One sentence an operator understands.
    pub message: String,
    /// The standing decision that resolves this finding (docs/remedies.md), or null.
    pub resolved_by: Option<Verdict>,
}

impl Finding {
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

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
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
pub fn resolves(verdict: Verdict, signal: u8, applied: bool) -> bool {
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
