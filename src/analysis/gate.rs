//! The gate (spec §4): one verdict per compaction, the first rule that applies.

use crate::model::Verdict;

/// The conditions the gate's rules look at, as the signals found them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateFlags {
    pub empty_span: bool,
    /// The range is missing, invalid or ends past the newest event.
    pub range_unusable: bool,
    pub unknown_binding: bool,
    pub summary_of_summary: bool,
    pub partial_overlap: bool,
    pub dropped_binding: bool,
    pub density_collapse: bool,
}

impl GateFlags {
    pub fn verdict(&self, strict: bool) -> Verdict {
        if self.empty_span || self.range_unusable || self.unknown_binding {
            Verdict::Refuse
        } else if self.summary_of_summary || self.partial_overlap {
            Verdict::Refetch
        } else if self.dropped_binding || (strict && self.density_collapse) {
            Verdict::Spill
        } else {
            Verdict::Approve
        }
    }

    /// Why the verdict is what it is, in the gate's order; empty for a plain approve.
    pub fn reasons(&self, strict: bool) -> Vec<&'static str> {
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
                self.dropped_binding,
                "a binding that cannot be re-fetched was dropped",
            ),
            (strict && self.density_collapse, "density collapse (strict)"),
        ];
        rules
            .iter()
            .filter(|(applies, _)| *applies)
            .map(|(_, why)| *why)
            .collect()
    }
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
    }
}
