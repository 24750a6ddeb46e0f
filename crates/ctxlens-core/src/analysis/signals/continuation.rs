//! Signal 3, non-idempotent continuation: after a compaction is applied, does the agent
//! still do what its plan said, on the targets the plan named?

use crate::analysis::compaction::CompactionAnalysis;
use crate::analysis::extract::{contains_whole_word, extract};
use crate::analysis::finding::{ActualStep, ExpectedStep, Finding, FindingKind, Severity};
use crate::analysis::paths::folder_and_extension;
use crate::analysis::state::target_text;
use crate::model::{EventKind, PlanStep, Session, TokenClass, TokenId};
use serde_json::Value;

/// An action a runtime is about to take (docs/remedies.md), checked as if it were the next
/// `action` event of the log.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedAction {
    /// The plan step it names.
    pub step: Option<String>,
    /// The action's name.
    pub name: String,
    /// What it is done to.
    pub target: Value,
}

/// Divergences of every applied compaction, each returned with its compaction's index.
pub(crate) fn divergences(
    session: &Session,
    analyses: &[CompactionAnalysis],
) -> Vec<(usize, Finding)> {
    // Where each applied compaction's window ends, found by one sort, not a pass over
    // every compaction for each.
    let mut applied: Vec<usize> = analyses.iter().filter_map(|a| a.info.applied_at).collect();
    applied.sort_unstable();
    (0..analyses.len())
        .flat_map(|index| {
            let end = analyses
                .get(index)
                .and_then(|a| a.info.applied_at)
                .and_then(|at| applied.get(applied.partition_point(|&other| other <= at)))
                .copied()
                .unwrap_or(session.events.len());
            check(session, analyses, index, end, None)
                .into_iter()
                .map(move |f| (index, f))
        })
        .collect()
}

/// The tripwire: the first divergence after the most recent applied compaction, the
/// log's own actions replayed first and `next` taken as the action after them. `None`
/// when there is no applied compaction or nothing diverges.
pub fn tripwire(
    session: &Session,
    analyses: &[CompactionAnalysis],
    next: &ProposedAction,
) -> Option<(usize, Finding)> {
    let latest = analyses
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.info.applied_at.map(|at| (at, i)))
        .max()?
        .1;
    check(session, analyses, latest, session.events.len(), Some(next))
        .into_iter()
        .next()
        .map(|f| (latest, f))
}

/// Signal 3 for compaction `index`: its pending steps against what came after it was
/// applied, up to the next applied compaction, a new plan, or the steps running out;
/// `next`, when given, follows the log's last event.
fn check(
    session: &Session,
    analyses: &[CompactionAnalysis],
    index: usize,
    // A divergence belongs to the most recent applied compaction: where the next one
    // was applied (the end of the log after the last).
    end: usize,
    next: Option<&ProposedAction>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(analysis) = analyses.get(index) else {
        return out;
    };
    let Some(applied) = analysis.info.applied_at else {
        return out;
    };
    let mut pending = analysis.state.pending.clone();
    // Actions while the compaction waited for its decision are not checked, but they do
    // act on their steps.
    for event in session.events_in(analysis.info.at..applied).skip(1) {
        if let EventKind::Action {
            step: Some(step), ..
        } = &event.kind
        {
            pending.retain(|s| &s.id != step);
        }
    }
    let mut check_action = |pending: &mut Vec<PlanStep>,
                            seq: u64,
                            step: &Option<String>,
                            name: &str,
                            target: &Value| {
        let claimed = step
            .as_ref()
            .and_then(|id| pending.iter().position(|s| &s.id == id));
        let at = claimed.unwrap_or(0);
        let expected = pending.remove(at);
        if at != 0 || name != expected.action || *target != expected.target {
            let actual = ActualStep::Action {
                seq,
                step: step.clone(),
                name: name.to_owned(),
                target: target.clone(),
            };
            out.push(finding(session, analysis, &expected, actual, target));
        }
    };
    for event in session.events_in(applied + 1..end) {
        match &event.kind {
            EventKind::Plan { steps } => {
                for new in steps {
                    let changed = pending.iter().find(|old| {
                        old.id == new.id && old.action == new.action && old.target != new.target
                    });
                    if let Some(old) = changed {
                        let actual = ActualStep::PlanStep(ExpectedStep::from(new));
                        out.push(finding(session, analysis, old, actual, &new.target));
                    }
                }
                // Checking stops at a new plan.
                return out;
            }
            EventKind::Action { step, name, target } => {
                if pending.is_empty() {
                    return out;
                }
                let target = target.as_deref().cloned().unwrap_or(Value::Null);
                check_action(&mut pending, event.seq, step, name, &target);
            }
            _ => {}
        }
    }
    if let Some(next) = next.filter(|_| end == session.events.len() && !pending.is_empty()) {
        let seq = session.events.last().map_or(1, |e| e.seq.saturating_add(1));
        check_action(&mut pending, seq, &next.step, &next.name, &next.target);
    }
    out
}

fn finding(
    session: &Session,
    analysis: &CompactionAnalysis,
    expected: &PlanStep,
    actual: ActualStep,
    actual_target: &Value,
) -> Finding {
    let id = &analysis.info.id;
    let regenerated =
        regenerated_from(session, &analysis.dropped_bindings, expected, actual_target);
    let did = match &actual {
        ActualStep::Action { name, target, .. } => {
            format!("the agent did {name} on {}", show_target(target))
        }
        ActualStep::PlanStep(step) => format!(
            "a new plan moved step {} to {}",
            step.id,
            show_target(&step.target)
        ),
    };
    let likely = regenerated
        .as_ref()
        .map(|t| format!("; it most likely regenerated {t}, which {id} dropped"))
        .unwrap_or_default();
    let message = format!(
        "after {id}, {did} where step {} planned {} on {}{likely}",
        expected.id,
        expected.action,
        show_target(&expected.target)
    );
    Finding::new(
        FindingKind::NonIdempotent {
            expected: ExpectedStep::from(expected),
            actual,
            regenerated_from: regenerated,
        },
        Severity::Error,
        Some(id),
        message,
    )
}

fn show_target(target: &Value) -> String {
    match target {
        Value::Null => "nothing".into(),
        other => target_text(other),
    }
}

/// The dropped binding the diverging target was most likely made up from: a token of the
/// target with the same shape as a binding the compaction dropped.
fn regenerated_from(
    session: &Session,
    dropped: &[TokenId],
    expected: &PlanStep,
    actual_target: &Value,
) -> Option<String> {
    let actual_text = target_text(actual_target);
    let actual_tokens: Vec<(&str, TokenClass)> = extract(&actual_text)
        .iter()
        .map(|f| (f.text(&actual_text), f.class))
        .collect();
    let qualifies = |token: TokenId| {
        let info = session.tokens.get(token);
        actual_tokens.iter().any(|&(text, class)| {
            text != &*info.text && same_shape(info.text, info.class, text, class)
        })
    };
    let expected_text = target_text(&expected.target);
    let named = dropped.iter().copied().find(|&t| {
        let info = session.tokens.get(t);
        contains_whole_word(&expected_text, info.text, info.class) && qualifies(t)
    });
    named
        .or_else(|| dropped.iter().copied().find(|&t| qualifies(t)))
        .map(|t| session.tokens.text(t).to_owned())
}

fn same_shape(a: &str, a_class: TokenClass, b: &str, b_class: TokenClass) -> bool {
    if a_class != b_class {
        return false;
    }
    match a_class {
        TokenClass::Hex | TokenClass::Uuid => a.len() == b.len(),
        TokenClass::Path => folder_and_extension(a) == folder_and_extension(b),
        TokenClass::Declared => false,
        _ => true,
    }
}
