//! The whole analysis of a session and its report (spec §6, `audit --json`).

use super::compaction::{self, CompactionAnalysis, DroppedToken, RegionPart};
use super::continuation;
use super::decisions::DecisionIndex;
use super::finding::{Finding, FindingKind, Severity};
use super::passes::KeptPasses;
use super::state::StateAt;
use crate::model::{CompactionInfo, Decision, RangeSpec, Session, TokenClass, Verdict};
use crate::threads::InOrder;
use serde::Serialize;
use std::collections::BTreeMap;

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
    pub compactions: Vec<CompactionAnalysis>,
    /// The findings of no one compaction: the unreadable lines, then whether the
    /// session is degraded. [`Self::findings`] puts the compactions' between them.
    malformed: Vec<Finding>,
    degraded_finding: Option<Finding>,
    pub strict: bool,
    /// Not to be trusted without review from this compaction on (spec §8.4).
    pub degraded: Option<Degraded>,
    /// Obligations, bindings, plan and choices after the newest event (the same pass
    /// that gives the state at each compaction).
    pub now: StateAt,
}

/// Since when, and why, a session must not be trusted without review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Degraded {
    pub since: String,
    pub why: String,
}

/// The first applied compaction that degrades the session: one decided `degrade`, or
/// one left undecided or approved although the gate said `degrade`, or said `refetch`
/// because it summarized a summary.
fn degraded(compactions: &[CompactionAnalysis]) -> Option<Degraded> {
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
    pub fn compaction(&self, id: &str) -> Option<&CompactionAnalysis> {
        self.compactions.iter().find(|c| c.info.id == id)
    }

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

    /// Errors that no standing decision resolves (spec §8.5).
    pub fn has_errors(&self) -> bool {
        self.findings().any(Finding::is_unresolved_error)
    }
}

pub fn analyze(session: &Session, sidecar: &[Decision], strict: bool) -> SessionAnalysis {
    Analyzer::default().analyze(session, sidecar, strict)
}

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
        let mut settled = std::mem::take(kept);
        reused.clear();
        let complete = |until: usize| until < session.events.len();
        // Kept again by `done` below: the newest compaction is never reused whole (its
        // window grows).
        let last_newest = newest.take();
        let mut plan = |info: &CompactionInfo, until: usize, applied: &[(String, RangeSpec)]| {
            // Taken out of what was kept, not copied: it is kept again below.
            let at = settled.iter().position(|s| {
                s.info == *info && s.until == until && s.inputs == inputs && until <= unchanged
            });
            if let Some(at) = at {
                reused.insert(info.id.clone());
                return Planned::Kept(settled.swap_remove(at).analysis);
            }
            // The region's events and the defining record (a transcript fills in the
            // summary and what is carried over after the boundary) as they were. The
            // newest compaction of the last look may be one a later compaction has
            // settled since: its region part holds still.
            match last_newest.as_ref() {
                Some(n)
                    if n.info == *info
                        && n.inputs == inputs
                        && n.applied == applied
                        && info.at <= unchanged
                        && info.def < unchanged =>
                {
                    Planned::Region(n.part.clone())
                }
                _ => Planned::Fresh,
            }
        };
        let mut done = |info: &CompactionInfo,
                        until: usize,
                        applied: &[(String, RangeSpec)],
                        region: Option<&RegionPart>,
                        analysis: &CompactionAnalysis| {
            // Only the newest compaction's window grows.
            if let (Some(part), false) = (region, complete(until)) {
                *newest = Some(NewestRegion {
                    info: info.clone(),
                    inputs: inputs.clone(),
                    applied: applied.to_vec(),
                    part: part.clone(),
                });
            }
            // Complete windows only: the newest compaction's can still grow.
            if complete(until) {
                kept.push(Settled {
                    info: info.clone(),
                    until,
                    inputs: inputs.clone(),
                    analysis: analysis.clone(),
                });
            }
        };
        analyze_with(
            session,
            sidecar,
            strict,
            (passes, unchanged, &marked),
            *threads,
            &mut plan,
            &mut done,
        )
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

/// A compaction's window: the compactions applied before it, and the end of its
/// window (the next compaction, or the end of the log).
type Window = (Vec<(String, RangeSpec)>, usize);

/// The window of each compaction of `infos`.
fn windows(session: &Session, infos: &[CompactionInfo]) -> Vec<Window> {
    infos
        .iter()
        .map(|info| {
            let applied = infos
                .iter()
                .filter(|other| {
                    other.id != info.id && other.applied_at.is_some_and(|a| a < info.at)
                })
                .map(|other| (other.id.clone(), other.range))
                .collect();
            let until = infos
                .iter()
                .map(|other| other.at)
                .find(|&at| at > info.at)
                .unwrap_or(session.events.len());
            (applied, until)
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

/// The whole analysis; `plan` says for each compaction (its info, the end of its
/// window, the compactions applied before it) what of the last look holds, and `done`
/// gets each one's analysis (and its region part, unless the analysis was kept whole).
#[allow(clippy::type_complexity)]
fn analyze_with(
    session: &Session,
    sidecar: &[Decision],
    strict: bool,
    (kept, unchanged, marked): (&mut KeptPasses, usize, &[usize]),
    threads: usize,
    plan: &mut dyn FnMut(&CompactionInfo, usize, &[(String, RangeSpec)]) -> Planned,
    done: &mut dyn FnMut(
        &CompactionInfo,
        usize,
        &[(String, RangeSpec)],
        Option<&RegionPart>,
        &CompactionAnalysis,
    ),
) -> SessionAnalysis {
    // `marked`: where the compaction and decision events are (see
    // `KeptPasses::marked_events`).
    let infos = session.compactions_among(marked);
    let windows = windows(session, &infos);
    let plans: Vec<Planned> = infos
        .iter()
        .zip(&windows)
        .map(|(info, (applied, until))| plan(info, *until, applied))
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
                    done(info, *until, applied, None, &analysis);
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
            done(info, *until, applied, Some(&part), &analysis);
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

/// A finding for each skipped line (the first ones in detail, then a count).
fn malformed_findings(session: &Session) -> Vec<Finding> {
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

/// A compaction's findings once the whole log is known: strict severities, its
/// divergences, its decision and what that decision resolves, short ids in messages.
fn finish_findings(
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

#[derive(Debug, Clone, Serialize)]
pub struct RangeOut {
    pub from: u64,
    pub to: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DroppedOut {
    pub token: String,
    pub class: TokenClass,
    #[serde(flatten)]
    pub fate: super::inference::Fate,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompactionReport {
    pub id: String,
    pub phase: &'static str,
    pub range: Option<RangeOut>,
    pub verdict: Verdict,
    pub reasons: Vec<&'static str>,
    pub decision: Option<Decision>,
    /// The id a pre-compact hook held it as, whose decision it carries (spec 9.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_as: Option<String>,
    pub opaque_ratio: Option<f64>,
    pub prose_ratio: Option<f64>,
    pub opaque_tokens: usize,
    pub opaque_kept: usize,
    pub dropped: Vec<DroppedToken>,
    pub dropped_counts: BTreeMap<&'static str, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_tokens: Option<Vec<DroppedOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_tokens: Option<u64>,
}

/// A Claude Code `microcompact_boundary`: old tool results cleared, no summary.
#[derive(Debug, Clone, Serialize)]
pub struct MicrocompactionReport {
    pub seq: u64,
    pub line: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub file: String,
    pub format: &'static str,
    pub events: usize,
    pub malformed_lines: usize,
    pub compactions: Vec<CompactionReport>,
    pub microcompactions: Vec<MicrocompactionReport>,
    pub findings: Vec<Finding>,
    /// The model(s) that wrote the session.
    pub model: Vec<String>,
    pub title: Option<String>,
    pub first_prompt: Option<String>,
    pub branch: Option<String>,
    pub usage: crate::model::TokenUsage,
    pub last_activity: Option<String>,
    /// Instruction files the runtime re-injects, as consulted (spec §8.6).
    pub context_sources: Vec<crate::model::ContextSource>,
    /// Since when the session must not be trusted without review (spec §8.4), or null.
    pub degraded: Option<Degraded>,
}

impl Report {
    /// Errors that no standing decision resolves: what `audit` exits 1 for.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(Finding::is_unresolved_error)
    }
}

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
