//! The gate (docs/signals.md): one verdict per compaction, the first rule that applies.

use crate::model::Verdict;
use std::borrow::Cow;

/// The conditions the gate's rules look at, as the signals found them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateFlags {
    /// The region holds no event.
    pub empty_span: bool,
    /// The range is missing, invalid or ends past the newest event.
    pub range_unusable: bool,
    /// An open obligation requires a token no binding declares.
    pub unknown_binding: bool,
    /// The region holds an earlier summary.
    pub summary_of_summary: bool,
    /// The range cuts through an earlier compaction's range.
    pub partial_overlap: bool,
    /// A binding that cannot be re-fetched was dropped.
    pub dropped_binding: bool,
    /// The summary kept far fewer tokens than words.
    pub density_collapse: bool,
    /// Signal 6: the summary's schema turned a choice around.
    pub polarity_flip: bool,
    /// Signal 6: choices in the region, and no schema to check them against.
    pub schema_missing: bool,
    /// A line of its region, or of its own record, cannot be read: the gate cannot see
    /// all it would approve.
    pub unreadable: bool,
    /// The line number of an unreadable line before the compaction that may have held
    /// a binding or an obligation: what is at stake cannot be known.
    pub unreadable_before: Option<u64>,
    /// The session's token table was full before the end of the compaction's window:
    /// tokens there were not recorded, so what it dropped cannot all be checked.
    pub too_dense: bool,
    /// The original events of what a refetch would re-read are not in this log
    /// (a continued session, a rotated log): a refetch cannot be done (docs/remedies.md).
    pub originals_elsewhere: bool,
}

impl GateFlags {
    /// The gate's verdict (docs/remedies.md); `strict` as `audit --strict`.
    pub fn verdict(&self, strict: bool) -> Verdict {
        let from_the_originals = self.summary_of_summary || self.partial_overlap;
        if self.empty_span || self.range_unusable || self.unknown_binding {
            Verdict::Refuse
        } else if from_the_originals && self.originals_elsewhere {
            Verdict::Degrade
        } else if from_the_originals || self.polarity_flip || (strict && self.schema_missing) {
            Verdict::Refetch
        } else if self.dropped_binding
            || self.unreadable
            || self.too_dense
            || self.unreadable_before.is_some()
            || (strict && self.density_collapse)
        {
            Verdict::Spill
        } else {
            Verdict::Approve
        }
    }

    /// Why the verdict is what it is, in the gate's order; empty for a plain approve.
    pub fn reasons(&self, strict: bool) -> Vec<Cow<'static, str>> {
        let rules = [
            (self.empty_span, "empty span"),
            (
                self.range_unusable,
                "range missing, invalid or past the newest event",
            ),
            (self.unknown_binding, "unknown binding"),
            (self.summary_of_summary, "summary of a summary"),
            (
                self.partial_overlap,
                "partial overlap with an earlier compaction",
            ),
            (
                (self.summary_of_summary || self.partial_overlap) && self.originals_elsewhere,
                "the original events are not in this log, so they cannot be re-fetched",
            ),
            (self.polarity_flip, "the summary turned a choice around"),
            (strict && self.schema_missing, "no entity schema (strict)"),
            (self.dropped_binding, DROPPED_BINDING),
            (
                self.unreadable,
                "a line of its region or its summary cannot be read",
            ),
            (
                self.too_dense,
                "too dense to check: the log holds more distinct identifiers than are recorded",
            ),
            (strict && self.density_collapse, "density collapse (strict)"),
        ];
        let mut reasons: Vec<Cow<'static, str>> = rules
            .iter()
            .filter(|(applies, _)| *applies)
            .map(|(_, why)| Cow::Borrowed(*why))
            .collect();
        if let Some(line) = self.unreadable_before {
            let at = reasons
                .iter()
                .position(|r| r.starts_with("density collapse"))
                .unwrap_or(reasons.len());
            reasons.insert(
                at,
                format!("unreadable line {line} may hold a binding or an obligation").into(),
            );
        }
        reasons
    }
}

/// The reason a dropped binding gives.
pub(crate) const DROPPED_BINDING: &str = "a binding that cannot be re-fetched was dropped";

/// A decision that differs from the gate's non-strict verdict; preserving what the gate
/// would spill keeps the same bindings, so it is no override (docs/signals.md).
pub fn is_override(decided: Verdict, gate: Verdict) -> bool {
    decided != gate && !(decided == Verdict::Preserve && gate == Verdict::Spill)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_rule_that_applies_wins() {
        let all = GateFlags {
            empty_span: true,
            range_unusable: false,
            unknown_binding: false,
            summary_of_summary: true,
            partial_overlap: false,
            dropped_binding: true,
            density_collapse: true,
            ..GateFlags::default()
        };
        assert_eq!(all.verdict(false), Verdict::Refuse);
        let refetch = GateFlags {
            empty_span: false,
            ..all
        };
        assert_eq!(refetch.verdict(false), Verdict::Refetch);
        let spill = GateFlags {
            summary_of_summary: false,
            ..refetch
        };
        assert_eq!(spill.verdict(false), Verdict::Spill);
        let collapse_only = GateFlags {
            density_collapse: true,
            ..GateFlags::default()
        };
        assert_eq!(collapse_only.verdict(false), Verdict::Approve);
        assert_eq!(collapse_only.verdict(true), Verdict::Spill);
        assert!(GateFlags::default().reasons(false).is_empty());
        let elsewhere = GateFlags {
            summary_of_summary: true,
            originals_elsewhere: true,
            ..GateFlags::default()
        };
        assert_eq!(elsewhere.verdict(false), Verdict::Degrade);
        let flip = GateFlags {
            polarity_flip: true,
            originals_elsewhere: true,
            ..GateFlags::default()
        };
        assert_eq!(flip.verdict(false), Verdict::Refetch);
        let no_schema = GateFlags {
            schema_missing: true,
            ..GateFlags::default()
        };
        assert_eq!(no_schema.verdict(false), Verdict::Approve);
        assert_eq!(no_schema.verdict(true), Verdict::Refetch);
    }
}
