//! Findings: what the signals report, in the shape of the spec's JSON report.

use crate::model::{PlanStep, Verdict};
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
}

impl FindingKind {
    pub fn name(&self) -> &'static str {
        match self {
            FindingKind::DroppedBinding { .. } => "dropped_binding",
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
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
