//! The analysis of a log that grows: [`Analyzer`] keeps what the last look computed and
//! redoes only what an appended event can change, on every core for a log read whole.
//! `tests/cli/incremental.rs` holds it equal to a fresh analysis after every line.

use super::compaction::{self, CompactionAnalysis, RegionPart, Window};
use super::finding::{Finding, FindingKind, Severity};
use super::passes::KeptPasses;
use super::report::{degraded, malformed_findings, SessionAnalysis};
use super::resolution::finish_findings;
use super::signals::continuation;
use super::standing::DecisionIndex;
use super::state::StateAt;
use crate::model::{CompactionInfo, Decision, RangeSpec, Session};
use crate::threads::InOrder;

/// The analysis of a log that grows: a compaction whose window is complete (a later
/// compaction follows it), whose inputs have not changed and whose events are as the
/// last look read them is not analysed again when events are appended; the passes
/// over the whole log resume from the first event that changed. Decisions,
/// divergences and resolution are always recomputed (they are cheap and a sidecar can
/// change at any time). A log that was truncated or replaced needs a fresh `Analyzer`
/// (its token ids are another table's).
#[derive(Debug, Default)]
pub struct Analyzer {
    settled: Vec<Settled>,
    /// The compactions the last `analyze` took from before, by id.
    reused: std::collections::HashSet<String>,
    /// The region part of the newest compaction, whose window still grows.
    newest: Option<NewestRegion>,
    /// The passes over the whole session, kept where they still hold.
    passes: KeptPasses,
    /// Threads that compute the region parts of a look (one if 0).
    threads: usize,
}

/// What the region part of the newest compaction was computed from, and the part.
#[derive(Debug)]
struct NewestRegion {
    info: CompactionInfo,
    inputs: Inputs,
    applied: Vec<(String, RangeSpec)>,
    part: RegionPart,
}

#[derive(Debug)]
struct Settled {
    info: CompactionInfo,
    until: usize,
    inputs: Inputs,
    analysis: CompactionAnalysis,
}

/// What else the analysis read: the session's ledger hints and context sources. (A
/// binding declared later changes an earlier compaction's analysis only through the
/// declared tokens found in its events, which `KeptPasses::unchanged` compares.)
#[derive(Debug, Clone, PartialEq)]
struct Inputs {
    ledger: usize,
    context_sources: Vec<String>,
}

impl Inputs {
    fn of(session: &Session) -> Inputs {
        Inputs {
            ledger: session.ledger.len(),
            context_sources: session
                .context_sources
                .iter()
                .map(|c| c.sha256.clone())
                .collect(),
        }
    }
}

impl Analyzer {
    /// An analyzer that computes the regions of a look on up to `threads` threads: for
    /// a whole log read once (`audit`, `gate`), whose regions are most of its
    /// analysis. A followed log's looks mostly analyse the newest compaction alone,
    /// and the view keeps within its memory budget with one (two regions analysed at
    /// once raise its peak).
    pub fn with_threads(threads: usize) -> Analyzer {
        Analyzer {
            threads,
            ..Analyzer::default()
        }
    }

    /// [`Self::with_threads`] with a thread for each core.
    pub fn on_every_core() -> Analyzer {
        Analyzer::with_threads(crate::threads::cores())
    }

    /// Analyses `session`, reusing what the events it analysed before still give.
    pub fn analyze(
        &mut self,
        session: &Session,
        sidecar: &[Decision],
        strict: bool,
    ) -> SessionAnalysis {
        // What was computed from the events before the first one that changed holds.
        let unchanged = self.passes.unchanged(session);
        let marked = self.passes.marked_events(session, unchanged).to_vec();
        let inputs = Inputs::of(session);
        let Analyzer {
            settled: kept,
            reused,
            newest,
            passes,
            threads,
        } = self;
        reused.clear();
        let mut look = LastLook {
            settled: std::mem::take(kept),
            // Kept again by `done`: the newest compaction is never reused whole (its
            // window grows).
            last_newest: newest.take(),
            kept,
            newest,
            reused,
            inputs,
            unchanged,
            events: session.events.len(),
        };
        let resume = Resume {
            passes,
            unchanged,
            marked: &marked,
        };
        analyze_with(session, sidecar, strict, resume, *threads, &mut look)
    }
}

/// What the last look left that this one starts from: the passes over the events,
/// how many events are unchanged, and where the compaction and decision events are
/// (see `KeptPasses::marked_events`).
struct Resume<'a> {
    passes: &'a mut KeptPasses,
    unchanged: usize,
    marked: &'a [usize],
}

/// The compactions applied before one, with their ranges: what its window holds.
type Applied = [(String, RangeSpec)];

/// What a look asks of what the last one kept: how to analyse each compaction, and
/// what to keep of each analysis for the next look.
trait Look {
    /// How the compaction `info`, whose window ends at `until` after `applied`, is
    /// analysed in this look.
    fn plan(&mut self, info: &CompactionInfo, until: usize, applied: &Applied) -> Planned;
    /// Its analysis, with its region part unless the analysis was kept whole.
    fn done(
        &mut self,
        info: &CompactionInfo,
        until: usize,
        applied: &Applied,
        region: Option<&RegionPart>,
        analysis: &CompactionAnalysis,
    );
}

/// The analyses the last look kept, and where this look keeps its own.
struct LastLook<'a> {
    /// Settled analyses of the last look, taken out as they are reused.
    settled: Vec<Settled>,
    last_newest: Option<NewestRegion>,
    kept: &'a mut Vec<Settled>,
    newest: &'a mut Option<NewestRegion>,
    reused: &'a mut std::collections::HashSet<String>,
    inputs: Inputs,
    unchanged: usize,
    events: usize,
}

impl LastLook<'_> {
    /// A window that ends before the log does: no later event can change it.
    fn complete(&self, until: usize) -> bool {
        until < self.events
    }
}

impl Look for LastLook<'_> {
    fn plan(&mut self, info: &CompactionInfo, until: usize, applied: &Applied) -> Planned {
        let (inputs, unchanged) = (&self.inputs, self.unchanged);
        // Taken out of what was kept, not copied: it is kept again by `done`.
        let at = self.settled.iter().position(|s| {
            s.info == *info && s.until == until && s.inputs == *inputs && until <= unchanged
        });
        if let Some(at) = at {
            self.reused.insert(info.id.clone());
            return Planned::Kept(self.settled.swap_remove(at).analysis);
        }
        // The region's events and the defining record (a transcript fills in the
        // summary and what is carried over after the boundary) as they were. The
        // newest compaction of the last look may be one a later compaction has
        // settled since: its region part holds still.
        match self.last_newest.as_ref() {
            Some(n)
                if n.info == *info
                    && n.inputs == *inputs
                    && n.applied == applied
                    && info.at <= unchanged
                    && info.def < unchanged =>
            {
                Planned::Region(n.part.clone())
            }
            _ => Planned::Fresh,
        }
    }

    fn done(
        &mut self,
        info: &CompactionInfo,
        until: usize,
        applied: &Applied,
        region: Option<&RegionPart>,
        analysis: &CompactionAnalysis,
    ) {
        let complete = self.complete(until);
        // Only the newest compaction's window grows.
        if let (Some(part), false) = (region, complete) {
            *self.newest = Some(NewestRegion {
                info: info.clone(),
                inputs: self.inputs.clone(),
                applied: applied.to_vec(),
                part: part.clone(),
            });
        }
        // Complete windows only: the newest compaction's can still grow.
        if complete {
            self.kept.push(Settled {
                info: info.clone(),
                until,
                inputs: self.inputs.clone(),
                analysis: analysis.clone(),
            });
        }
    }
}

impl Analyzer {
    /// The compactions the last `analyze` did not analyse again: everything derived
    /// from their analysis alone (token lists, marks) can be kept too.
    pub fn reused(&self) -> &std::collections::HashSet<String> {
        &self.reused
    }
}

/// How one compaction is analysed in a look.
enum Planned {
    /// Its analysis from the last look holds.
    Kept(CompactionAnalysis),
    /// Its region part holds: from the last look (the newest compaction, whose
    /// window grew), or computed in this one.
    Region(RegionPart),
    /// To be analysed from its region on.
    Fresh,
}

/// The window of each compaction of `infos`.
fn windows(session: &Session, infos: &[CompactionInfo]) -> Vec<Window> {
    // The compactions are in event order: each window ends at the next one's event.
    let mut ends: Vec<usize> = infos.iter().map(|info| info.at).collect();
    ends.sort_unstable();
    let ranges = compaction::AppliedRanges::of(infos);
    infos
        .iter()
        .map(|info| {
            let next = ends.partition_point(|&at| at <= info.at);
            let until = ends.get(next).copied().unwrap_or(session.events.len());
            (ranges.meeting(infos, info), until)
        })
        .collect()
}

/// A region to analyse: the compaction, the compactions applied before it, and the
/// state before it.
type RegionJob<'a> = (&'a CompactionInfo, &'a [(String, RangeSpec)], StateAt);

/// The region parts of the compactions analysed afresh, in their order: computed here
/// with every thread, or on a pool of threads (one each), with jobs handed out up to
/// one more than threads ahead of the part asked for.
struct FreshRegions<'a> {
    session: &'a Session,
    fresh: Vec<(&'a CompactionInfo, &'a [(String, RangeSpec)])>,
    pool: Option<InOrder<RegionJob<'a>, RegionPart>>,
    threads: usize,
}

impl<'a> FreshRegions<'a> {
    /// The part of `info`, the next fresh compaction, whose window follows `applied`;
    /// `passes` gives the states (asked in order).
    fn next_part(
        &mut self,
        (info, applied): (&'a CompactionInfo, &'a [(String, RangeSpec)]),
        passes: &mut super::passes::Passes<'_>,
    ) -> RegionPart {
        let computed = match &mut self.pool {
            None => Some(compaction::region_part(
                self.session,
                info,
                applied,
                passes.state_at(info.at),
                self.threads,
            )),
            Some(pool) => {
                let ahead = (pool.taken() + self.threads + 1).min(self.fresh.len());
                while pool.handed_out() < ahead {
                    let Some(&(info, applied)) = self.fresh.get(pool.handed_out()) else {
                        break;
                    };
                    if !pool.hand_out((info, applied, passes.state_at(info.at))) {
                        break;
                    }
                }
                // Worked out while the threads analyse the regions handed out.
                passes.first_seen();
                pool.next_result()
            }
        };
        // Were a part missing (a thread gone), it is computed here, from a state of its
        // own.
        computed.unwrap_or_else(|| {
            let state = KeptPasses::default()
                .resume(self.session, 0, None)
                .state_at(info.at);
            compaction::region_part(self.session, info, applied, state, 1)
        })
    }
}

/// The whole analysis: `look` says for each compaction what of the last look holds,
/// and is given each one's analysis to keep for the next.
fn analyze_with(
    session: &Session,
    sidecar: &[Decision],
    strict: bool,
    resume: Resume<'_>,
    threads: usize,
    look: &mut dyn Look,
) -> SessionAnalysis {
    let Resume {
        passes: kept,
        unchanged,
        marked,
    } = resume;
    let infos = session.compactions_among(marked);
    let windows = windows(session, &infos);
    let plans: Vec<Planned> = infos
        .iter()
        .zip(&windows)
        .map(|(info, (applied, until))| look.plan(info, *until, applied))
        .collect();
    // One pass builds the state at every compaction analysed afresh (compactions are
    // in event order), from where the last look left it when it can. Their regions
    // are analysed on the threads as each is free (a region that took longer than the
    // one beside it left that thread idle when they went in pairs), and finished in
    // order: at most one more part than threads is computed and not yet finished, so
    // what a region part holds beyond its analysis is let go soon.
    let mut passes = kept.resume(session, unchanged, infos.last().map(|i| i.at));
    let mut compactions: Vec<CompactionAnalysis> = Vec::with_capacity(infos.len());
    let planned: Vec<_> = infos.iter().zip(&windows).zip(plans).collect();
    let fresh: Vec<(&CompactionInfo, &[(String, RangeSpec)])> = planned
        .iter()
        .filter(|(_, plan)| matches!(plan, Planned::Fresh))
        .map(|((info, (applied, _)), _)| (*info, applied.as_slice()))
        .collect();
    let one_thread_each = |(info, applied, state): RegionJob<'_>| {
        compaction::region_part(session, info, applied, state, 1)
    };
    std::thread::scope(|scope| {
        // A single region is analysed here, with every thread; more go to a pool.
        let pool = (fresh.len() > 1 && threads > 1)
            .then(|| InOrder::start(scope, threads, &one_thread_each));
        let mut regions = FreshRegions {
            session,
            fresh,
            pool,
            threads,
        };
        for ((info, (applied, until)), plan) in planned {
            let part = match plan {
                Planned::Kept(analysis) => {
                    look.done(info, *until, applied, None, &analysis);
                    compactions.push(analysis);
                    continue;
                }
                Planned::Region(part) => part,
                Planned::Fresh => regions.next_part((info, applied), &mut passes),
            };
            let analysis = compaction::finish(
                session,
                info,
                part.clone(),
                *until,
                passes.first_seen(),
                unchanged,
            );
            look.done(info, *until, applied, Some(&part), &analysis);
            compactions.push(analysis);
        }
        // Dropping the pool's job queue lets its threads go.
        drop(regions);
    });
    let now = passes.state_at(session.events.len());
    kept.keep(passes);
    let divergences = continuation::divergences(session, &compactions);
    let decisions = DecisionIndex::of(
        marked.iter().filter_map(|&i| session.events.get(i)),
        sidecar,
    );

    let held = super::held::held_ids(session, &infos);
    for (index, analysis) in compactions.iter_mut().enumerate() {
        let mine = divergences
            .iter()
            .filter(|(i, _)| *i == index)
            .map(|(_, f)| f.clone());
        analysis.held_as = held.get(index).cloned().flatten();
        finish_findings(analysis, mine, &decisions, strict);
    }
    let degraded = degraded(&compactions);
    let degraded_finding = degraded.as_ref().map(|d| {
        Finding::new(
            FindingKind::Degraded {
                since: d.since.clone(),
                why: d.why.clone(),
            },
            Severity::Warning,
            Some(&d.since),
            format!(
                "the session is degraded since {}: {}; do not trust it without review",
                super::finding::short_id(&d.since),
                d.why
            ),
        )
    });
    SessionAnalysis {
        compactions,
        malformed: malformed_findings(session),
        degraded_finding,
        strict,
        degraded,
        now,
    }
}
