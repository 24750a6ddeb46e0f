//! What a compaction's standing decision does to its findings (docs/remedies.md), once the whole
//! log is known: strict severities, the decision looked up under every id the
//! compaction has (its own and the one it was held as), and the findings it resolves.

use super::compaction::CompactionAnalysis;
use super::finding::{Finding, FindingKind, Severity};
use super::standing::DecisionIndex;

/// A compaction's findings once the whole log is known: strict severities, its
/// divergences, its decision and what that decision resolves, short ids in messages.
pub(super) fn finish_findings(
    analysis: &mut CompactionAnalysis,
    divergences: impl Iterator<Item = Finding>,
    decisions: &DecisionIndex,
    strict: bool,
) {
    // The findings are shared with the analysis a later look reuses: copied only
    // when something here changes them.
    let stricter = |f: &Finding| {
        strict
            && f.severity != Severity::Error
            && matches!(
                f.kind,
                FindingKind::DensityCollapse { .. } | FindingKind::SchemaMissing
            )
    };
    if analysis.findings.iter().any(stricter) {
        for finding in std::sync::Arc::make_mut(&mut analysis.findings) {
            if stricter(finding) {
                finding.severity = Severity::Error;
            }
        }
    }
    let mut more: Vec<Finding> = divergences.collect();
    more.extend(decision_findings(decisions, analysis));
    if !more.is_empty() {
        std::sync::Arc::make_mut(&mut analysis.findings).extend(more);
    }
    analysis.decision = decisions.standing(&ids_of(analysis)).cloned();
    if let Some(decision) = &analysis.decision {
        let applied = analysis.info.applied_at.is_some();
        let resolves = |f: &Finding| {
            f.resolved_by != Some(decision.verdict)
                && f.signal().is_some_and(|signal| {
                    super::finding::resolves(decision.verdict, signal, applied)
                })
        };
        if analysis.findings.iter().any(resolves) {
            for finding in std::sync::Arc::make_mut(&mut analysis.findings) {
                if resolves(finding) {
                    finding.resolved_by = Some(decision.verdict);
                }
            }
        }
    }
    // Messages name a long compaction id by its first 8 characters; the finding's
    // `compaction` field keeps it whole.
    let id = analysis.info.id.clone();
    let short = super::finding::short_id(&id);
    if short != id && analysis.findings.iter().any(|f| f.message.contains(&id)) {
        for finding in std::sync::Arc::make_mut(&mut analysis.findings) {
            finding.message = finding.message.replace(&id, short);
        }
    }
}

/// The ids a compaction's decisions are recorded under: its own, and the one its hook
/// held it as.
fn ids_of(analysis: &CompactionAnalysis) -> Vec<&str> {
    std::iter::once(analysis.info.id.as_str())
        .chain(analysis.held_as.as_deref())
        .collect()
}

fn decision_findings(index: &DecisionIndex, analysis: &CompactionAnalysis) -> Vec<Finding> {
    let id = analysis.info.id.as_str();
    let ids = ids_of(analysis);
    let gate = analysis.flags.verdict(false);
    let mut out = Vec::new();
    match index.standing(&ids) {
        Some(decision) => {
            let is_override = decision
                .is_override
                .unwrap_or_else(|| super::gate::is_override(decision.verdict, gate));
            if is_override {
                out.push(Finding::new(
                    FindingKind::Override {
                        verdict: gate,
                        decided: decision.verdict,
                    },
                    Severity::Warning,
                    Some(id),
                    format!(
                        "{id} was decided {} by {}, overriding the gate's {}",
                        decision.verdict.as_str(),
                        decision.by.as_deref().unwrap_or("an unnamed operator"),
                        gate.as_str()
                    ),
                ));
            }
            for later in index.conflicts(&ids) {
                out.push(Finding::new(
                    FindingKind::DecisionConflict {
                        by: later.by.clone(),
                        verdict: later.verdict,
                    },
                    Severity::Warning,
                    Some(id),
                    format!(
                        "a later decision for {id} ({} by {}) is ignored: {} by {} stands",
                        later.verdict.as_str(),
                        later.by.as_deref().unwrap_or("someone"),
                        decision.verdict.as_str(),
                        decision.by.as_deref().unwrap_or("someone")
                    ),
                ));
            }
        }
        None if analysis.info.phase == crate::model::Phase::Proposed => out.push(Finding::new(
            FindingKind::Undecided,
            Severity::Warning,
            Some(id),
            format!(
                "{id} is proposed and waits for a decision (the gate says {})",
                gate.as_str()
            ),
        )),
        None => {}
    }
    out
}
