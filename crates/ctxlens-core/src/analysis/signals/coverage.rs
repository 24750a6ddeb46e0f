//! Signals 4 and 5 for one compaction: does its range make sense (coverage), and does
//! it summarize original events or an earlier summary (source anchoring)?

use crate::analysis::finding::{Finding, FindingKind, Severity};
use crate::analysis::gate::GateFlags;
use crate::model::{CompactionInfo, RangeSpec, Session};
use std::ops::Range;

fn range_text(range: RangeSpec) -> String {
    match range {
        RangeSpec::Seqs { from, to } => format!("{from}–{to}"),
        RangeSpec::Missing => "(missing)".into(),
        RangeSpec::Invalid => "(invalid)".into(),
    }
}

/// Checks the range of compaction `info` against the events before it and against the
/// compactions `applied` before it; returns the region (indices of its events).
pub(crate) fn check(
    session: &Session,
    info: &CompactionInfo,
    input: Option<&str>,
    applied: &[(String, RangeSpec)],
    flags: &mut GateFlags,
    findings: &mut Vec<Finding>,
) -> Range<usize> {
    let id = info.id.as_str();
    let before = session.events_in(0..info.at);
    let error = |kind, message| Finding::new(kind, Severity::Error, Some(id), message);
    let newest = before.clone().next_back().map(|e| e.seq);
    let region: std::ops::Range<usize> = match info.range {
        RangeSpec::Seqs { from, to } if from <= to => {
            if newest.is_none_or(|n| to > n) {
                flags.range_unusable = true;
                let newest = newest.map_or("there are no events before it".into(), |n| {
                    format!("the newest event before it is seq {n}")
                });
                findings.push(error(
                    FindingKind::CoverageGap,
                    format!("{id}'s range {from}–{to} ends past the log: {newest}"),
                ));
            }
            let first = session.first_at_or_after(from).min(before.len());
            let end = session
                .first_at_or_after(to.saturating_add(1))
                .min(before.len());
            first..end.max(first)
        }
        other => {
            flags.range_unusable = true;
            findings.push(error(
                FindingKind::CoverageGap,
                format!(
                    "{id} has no usable range {}: it must be {{from, to}} with integer seqs, from ≤ to",
                    range_text(other)
                ),
            ));
            0..0
        }
    };
    if let RangeSpec::Seqs { from, to } = info.range {
        if region.is_empty() && from <= to {
            flags.empty_span = true;
            findings.push(error(
                FindingKind::EmptySpan,
                format!("{id}'s range {from}–{to} holds no events: there is nothing to summarize"),
            ));
        }
        // Signal 4 and the overlap half of signal 5, against compactions applied earlier.
        for (other, range) in applied {
            let RangeSpec::Seqs { from: f, to: t } = *range else {
                continue;
            };
            let disjoint = t < from || f > to;
            let contains = from <= f && t <= to;
            // A rotated log: the earlier summary's originals lie before its first event.
            if contains && session.events.first().is_some_and(|e| t < e.seq) {
                flags.originals_elsewhere = true;
            }
            if contains && input != Some("log") && !flags.summary_of_summary {
                flags.summary_of_summary = true;
                findings.push(error(
                    FindingKind::SummaryOfSummary,
                    format!(
                        "{id}'s range {from}–{to} contains {other}'s ({f}–{t}), so it summarizes {other}'s summary instead of the original events"
                    ),
                ));
            } else if !disjoint && !contains {
                flags.partial_overlap = true;
                findings.push(error(
                    FindingKind::CoverageGap,
                    format!("{id}'s range {from}–{to} partly overlaps {other}'s ({f}–{t})"),
                ));
            }
        }
    }
    if input == Some("summary") && !flags.summary_of_summary {
        flags.summary_of_summary = true;
        findings.push(error(
            FindingKind::SummaryOfSummary,
            format!("{id} summarizes a summary (input: summary), not the original events"),
        ));
    }

    region
}
