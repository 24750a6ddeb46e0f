//! Signals 1, 2, 4 and 5 for one compaction: what its region held, what its summary
//! kept, what that breaks, and whether its range makes sense.

use super::extract::{
    contains_whole_word, is_ascii_word_byte, is_whole_word, word_count, word_runs_at,
    word_runs_from_last,
};
use super::finding::{Cost, Finding, FindingKind, Severity};
use super::gate::GateFlags;
use super::inference::{later_uses, Fate, LaterUse};
use super::kept::{basename_counts, text_key, token_key, SummaryForms};
use super::paths::path_key;
use super::signals::coverage;
use super::signals::regenerated::{Lost, Regenerated, WindowScan};
use super::state::{target_text, ObligationState, StateAt};
use crate::model::{
    CompactionExtra, CompactionInfo, EventKind, FastMap, FastSet, LedgerHint, RangeSpec, Session,
    Summary, TokenClass, TokenId,
};
use serde::Serialize;
use smallvec::SmallVec;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

mod context;
mod findings;
mod survival;
#[cfg(test)]
mod tests;

use context::*;
use findings::*;
pub(in crate::analysis) use survival::same_token;
use survival::*;

/// One distinct opaque token of a region and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionToken {
    /// The token.
    pub id: TokenId,
    /// `None` when the summary cannot be read.
    pub survived: Option<bool>,
    /// `Some(regenerable)` for a token declared by a binding before the compaction.
    pub declared: Option<bool>,
    /// What became of it after the compaction, when the summary dropped it (docs/transcripts.md).
    pub fate: Fate,
    /// Index of the first region event that holds it (32 bits: a region can hold
    /// millions of tokens, and a log fewer than 4 billion events).
    pub first_event: u32,
}

/// A dropped token that matters, as the report lists it (docs/json-report.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DroppedToken {
    /// The token.
    pub token: String,
    /// Its class.
    pub class: TokenClass,
    /// `Some(regenerable)` when a binding declares it.
    pub regenerable: Option<bool>,
    /// The obligations, plan steps or later tool calls that need it.
    pub required_by: Vec<String>,
    /// What became of it after the compaction.
    #[serde(flatten)]
    pub fate: Fate,
    /// Re-derived: what finding it again cost, from the call that went to find it up
    /// to its use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rederived_cost: Option<Cost>,
}

/// What one compaction did: its region's tokens and their fate, the findings, the gate's
/// flags and the decision that stands.
#[derive(Debug, Clone)]
pub struct CompactionAnalysis {
    /// The compaction's id, phase, range and where it is in the log.
    pub info: CompactionInfo,
    /// Shared by the looks that reuse the analysis (a long session's state holds
    /// thousands of obligations and bindings).
    pub state: Arc<StateAt>,
    /// Indices into `Session::events` of the region's events (seqs strictly increase,
    /// so a region is one run of events).
    pub region: std::ops::Range<usize>,
    /// Words in the region.
    pub region_words: u64,
    /// Shared by the analyses a growing log's looks reuse (a region can hold
    /// hundreds of thousands).
    pub tokens: Arc<Vec<RegionToken>>,
    /// Distinct region tokens the summary keeps, per distinct region token; `None` when the
    /// summary cannot be read.
    pub opaque_ratio: Option<f64>,
    /// Summary words per region word; `None` when the summary cannot be read.
    pub prose_ratio: Option<f64>,
    /// Dropped declared tokens and dropped tokens something requires (shared as the
    /// findings are).
    pub dropped: Arc<Vec<DroppedToken>>,
    /// Shared by the analyses a growing log's looks reuse, copied only when a look
    /// changes them (a decision that resolves one).
    pub findings: Arc<Vec<Finding>>,
    /// What the gate's rules look at.
    pub flags: GateFlags,
    /// The standing decision, if any (set by the session analysis).
    pub decision: Option<crate::model::Decision>,
    /// The id a pre-compact hook held this compaction as before it landed (docs/agents.md);
    /// its decisions are this compaction's (set by the session analysis).
    pub held_as: Option<String>,
    /// Trigger, token counts and carried-over tokens, as the transcript gives them.
    pub extra: CompactionExtra,
    /// The tokens of the bindings before the compaction that it dropped, in the
    /// bindings' order (what a diverging step is matched against).
    pub dropped_bindings: Arc<Vec<TokenId>>,
    /// How many tokens the summary dropped, by class: counted with the region, on
    /// its thread (counted as the report was written, it was the one thread's work
    /// after the regions').
    pub dropped_counts: BTreeMap<&'static str, usize>,
}

/// Why the gate says what it says of a held compaction, whose summary is not written
/// yet: nothing has been dropped, but what the work depends on is at risk.
pub(crate) const HELD_AT_RISK: &str =
    "identifiers the work depends on are at risk: the summary is not written yet";

impl CompactionAnalysis {
    /// Why the gate says what it says, in words that fit the compaction's phase.
    pub fn reasons(&self, strict: bool) -> Vec<Cow<'static, str>> {
        let mut reasons = self.flags.reasons(strict);
        if self.extra.held.is_some() {
            for reason in &mut reasons {
                if reason == super::gate::DROPPED_BINDING {
                    *reason = Cow::Borrowed(HELD_AT_RISK);
                }
            }
        }
        reasons
    }

    /// How many of the region's distinct tokens the summary keeps.
    pub fn kept(&self) -> usize {
        self.tokens
            .iter()
            .filter(|t| t.survived == Some(true))
            .count()
    }
}

/// How many of `tokens` were dropped, by class.
fn dropped_counts(session: &Session, tokens: &[RegionToken]) -> BTreeMap<&'static str, usize> {
    let mut by_class = [0usize; TokenClass::Declared as usize + 1];
    let dropped = tokens.iter().filter(|t| t.survived == Some(false));
    for class in dropped.map(|t| session.tokens.class(t.id)) {
        if let Some(count) = by_class.get_mut(class as usize) {
            *count += 1;
        }
    }
    TokenClass::ALL
        .iter()
        .zip(by_class)
        .filter(|&(_, count)| count > 0)
        .map(|(class, count)| (class.as_str(), count))
        .collect()
}

/// The tokens of the bindings in `state` that the region dropped, in the bindings'
/// order.
fn dropped_bindings(state: &StateAt, tokens: &[RegionToken]) -> Vec<TokenId> {
    let bound: FastSet<TokenId> = state.bindings.iter().map(|b| b.token).collect();
    let dropped: FastSet<TokenId> = tokens
        .iter()
        .filter(|t| t.survived == Some(false) && bound.contains(&t.id))
        .map(|t| t.id)
        .collect();
    state
        .bindings
        .iter()
        .map(|b| b.token)
        .filter(|t| dropped.contains(t))
        .collect()
}

/// One compaction's analysis, from scratch and in plain steps: what its region held and
/// its summary kept (coverage, signals 1 and 2, [`super::signals::REGION_SIGNALS`]),
/// then what follows it up to the next compaction (later uses, regenerated tokens).
/// `state` is the state just before it: `StateAt::of` the events before `info.at`.
///
/// [`super::report::Analyzer`] computes the same in two parts and keeps them while the
/// log grows, then adds what needs the whole log: divergences (signal 3), decisions and
/// what they resolve. `tests/cli/incremental.rs` holds the two equal.
pub fn analyze_compaction(
    session: &Session,
    info: &CompactionInfo,
    state: StateAt,
) -> CompactionAnalysis {
    let (applied, until) = window(session, &session.compactions(), info);
    let part = region_part(session, info, &applied, state, 1);
    let first_seen = super::signals::regenerated::first_seen(session);
    finish(session, info, part, until, &first_seen, 0)
}

/// A compaction's window: the compactions applied before it, and the end of its
/// window (the next compaction, or the end of the log).
pub(super) type Window = (Vec<(String, RangeSpec)>, usize);

/// The window of `info`, one of `infos`.
pub(super) fn window(session: &Session, infos: &[CompactionInfo], info: &CompactionInfo) -> Window {
    let applied = applied_before(infos, info);
    let until = infos
        .iter()
        .map(|other| other.at)
        .find(|&at| at > info.at)
        .unwrap_or(session.events.len());
    (applied, until)
}

/// The compactions of `infos` applied before `info` whose range meets its own: the
/// only ones the coverage checks compare it with. Kept to those, a log of thousands of
/// compactions does not hold a list of all the earlier ones for each of them.
pub(super) fn applied_before(
    infos: &[CompactionInfo],
    info: &CompactionInfo,
) -> Vec<(String, RangeSpec)> {
    AppliedRanges::of(infos).meeting(infos, info)
}

/// The applied compactions' ranges, to find those that meet a range without a pass
/// over all of them (a transcript's ranges follow one another: none meets another).
pub(super) struct AppliedRanges {
    /// (from, to, index into the compactions), by `from`.
    by_from: Vec<(u64, u64, usize)>,
    /// The greatest `to` among `by_from[..=i]`.
    reach: Vec<u64>,
}

impl AppliedRanges {
    pub(super) fn of(infos: &[CompactionInfo]) -> AppliedRanges {
        let mut by_from: Vec<(u64, u64, usize)> = infos
            .iter()
            .enumerate()
            .filter(|(_, info)| info.applied_at.is_some())
            .filter_map(|(i, info)| match info.range {
                RangeSpec::Seqs { from, to } => Some((from, to, i)),
                _ => None,
            })
            .collect();
        by_from.sort_unstable();
        let reach = by_from
            .iter()
            .scan(0u64, |reach, &(_, to, _)| {
                *reach = (*reach).max(to);
                Some(*reach)
            })
            .collect();
        AppliedRanges { by_from, reach }
    }

    /// The compactions applied before `info` whose ranges meet its own, in the order
    /// of `infos`.
    pub(super) fn meeting(
        &self,
        infos: &[CompactionInfo],
        info: &CompactionInfo,
    ) -> Vec<(String, RangeSpec)> {
        let RangeSpec::Seqs { from, to } = info.range else {
            return Vec::new();
        };
        // Those that start inside the range, then those before it that reach into it.
        let start = self.by_from.partition_point(|r| r.0 < from);
        let end = self.by_from.partition_point(|r| r.0 <= to);
        let mut found: Vec<usize> = self
            .by_from
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .map(|r| r.2)
            .collect();
        let mut j = start;
        while j > 0 && self.reach.get(j - 1).is_some_and(|&reach| reach >= from) {
            j -= 1;
            if let Some(&(_, t, i)) = self.by_from.get(j) {
                if t >= from {
                    found.push(i);
                }
            }
        }
        found.sort_unstable();
        found
            .into_iter()
            .filter_map(|i| infos.get(i))
            .filter(|other| other.id != info.id && other.applied_at.is_some_and(|a| a < info.at))
            .map(|other| (other.id.clone(), other.range))
            .collect()
    }
}

/// The part of a compaction's analysis that events after it cannot change: coverage,
/// what its region held and what its summary kept. The newest compaction's window
/// grows with every appended event; this part of it is computed once.
#[derive(Debug, Clone)]
pub(super) struct RegionPart {
    out: CompactionAnalysis,
    /// Nothing follows: the region lies elsewhere, or the compaction is held.
    complete: bool,
    /// What requires each dropped token (obligations, pending steps, the ledger):
    /// read from the state before the compaction, so computed once with the region.
    needs: Arc<FastMap<TokenId, Vec<String>>>,
    /// The dropped tokens nothing carries back (what a regenerated look-alike is
    /// matched against), computed once with the region.
    lost: Arc<Lost>,
    /// How far the window after the compaction was scanned for regenerated tokens:
    /// shared by the looks that reuse this part.
    scan: Arc<std::sync::Mutex<WindowScan>>,
}

impl RegionPart {
    /// A part with nothing left to look for after the compaction.
    fn settled(mut out: CompactionAnalysis, state: StateAt) -> RegionPart {
        out.state = Arc::new(state);
        RegionPart {
            out,
            complete: true,
            needs: Arc::default(),
            lost: Arc::default(),
            scan: Arc::default(),
        }
    }
}

pub(super) fn region_part(
    session: &Session,
    info: &CompactionInfo,
    applied: &[(String, RangeSpec)],
    state: StateAt,
    threads: usize,
) -> RegionPart {
    let def = DefParts::of(session, info);
    let mut out = CompactionAnalysis {
        info: info.clone(),
        state: Arc::default(),
        region: 0..0,
        region_words: 0,
        tokens: Arc::default(),
        opaque_ratio: None,
        prose_ratio: None,
        dropped: Arc::default(),
        findings: Arc::default(),
        flags: GateFlags::default(),
        decision: None,
        held_as: None,
        extra: def.extra.clone(),
        dropped_bindings: Arc::default(),
        dropped_counts: BTreeMap::new(),
    };
    if def.elsewhere {
        region_elsewhere(&mut out, def.input);
        return RegionPart::settled(out, state);
    }
    out.region = coverage::check(
        session,
        info,
        def.input,
        applied,
        &mut out.flags,
        Arc::make_mut(&mut out.findings),
    );
    out.flags.unreadable = unreadable_part(session, info, &out.region);
    // An unreadable line before the compaction may have declared what is at stake.
    let at = session.events.get(info.def).map_or(u64::MAX, |e| e.offset);
    out.flags.unreadable_before = session
        .malformed
        .first_may_declare()
        .filter(|&(_, offset)| offset < at)
        .map(|(line, _)| line);
    let ctx = Ctx::new(session, info, &state, out.region.clone(), threads);
    let region = super::signals::Region {
        session,
        id: ctx.id,
        events: &out.region,
        summary: def.summary.map(|s| s.text.as_str()),
        state: &state,
        extra: &def.extra,
    };
    for signal in super::signals::REGION_SIGNALS {
        signal(&region, &mut out.flags, Arc::make_mut(&mut out.findings));
    }
    if def.extra.held.is_some() {
        out.dropped = Arc::new(ctx.held_at_risk());
        out.flags.dropped_binding = !out.dropped.is_empty();
        return RegionPart::settled(out, state);
    }

    // Signal 1: what the region held and what the summary kept; with an encrypted
    // summary, what the messages kept beside it hold.
    let checked = def.summary.or(def.extra.retained.as_ref().map(|r| &r.text));
    let ((region_words, mut tokens), summary_runs) = ctx.region_tokens_and(|| {
        // What is built from the summary and the obligations alone, beside the walk
        // over the region (when this compaction has a thread to spare).
        ctx.requirements();
        checked.map(|summary| SummaryRuns::of(&summary.text))
    });
    if let (Some(checked), Some(runs)) = (checked, &summary_runs) {
        ctx.mark_survivors((checked, def.summary_declared, runs), &mut tokens);
    }
    ctx.mark_carried(&def.extra, &mut tokens);
    out.region_words = region_words;
    // Kept for the analysis's life, and pushed one by one: up to half of it can be
    // room.
    tokens.shrink_to_fit();
    out.dropped_counts = dropped_counts(session, &tokens);
    out.tokens = Arc::new(tokens);
    ctx.density(def.summary, &mut out);
    let needs = ctx.needs_of_dropped(&out.tokens);
    // Without later uses to look for (a canonical log declares its bindings), what
    // was dropped and what needs it is settled with the region.
    if !ctx.transcript {
        ctx.report_dropped(&[], &needs, &mut out);
    }
    out.dropped_bindings = Arc::new(dropped_bindings(&state, &out.tokens));
    let lost = Lost::new(
        out.tokens
            .iter()
            .filter(|t| t.survived == Some(false) && !t.fate.carried)
            .map(|t| t.id)
            .collect(),
    );
    out.state = Arc::new(state);
    RegionPart {
        out,
        complete: false,
        needs: Arc::new(needs),
        lost: Arc::new(lost),
        scan: Arc::default(),
    }
}

/// The rest of the analysis, over the window after the compaction up to `until`
/// (events from `unchanged` on may differ from those the last look read).
pub(super) fn finish(
    session: &Session,
    info: &CompactionInfo,
    part: RegionPart,
    until: usize,
    first_seen: &super::signals::regenerated::FirstSeen,
    unchanged: usize,
) -> CompactionAnalysis {
    let mut out = part.out;
    too_dense(session, until, &mut out);
    if part.complete {
        return out;
    }
    let state = Arc::clone(&out.state);
    // The window after the compaction is read on one thread.
    let ctx = Ctx::new(session, info, &state, out.region.clone(), 1);
    // Signal 2: what is required, and whether it was kept.
    let after = info.applied_at.unwrap_or(info.at) + 1;
    if ctx.transcript {
        let uses = ctx.later_uses_of(&part.lost, after, until);
        ctx.report_dropped(&uses, &part.needs, &mut out);
    }
    // The scan of the window goes on from where the last look's stopped, if the
    // events it read are unchanged.
    let found = {
        let mut scan = part
            .scan
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !scan.holds(after, unchanged.min(until)) {
            *scan = WindowScan::new(after);
        }
        scan.extend(session, until, &part.lost, first_seen);
        scan.found().to_vec()
    };
    ctx.report_regenerated(&found, &mut out);
    ctx.report_unknown_bindings(&mut out);
    out
}

/// A compaction whose region or window reaches the events from which the session's
/// token table recorded no new token: what it dropped cannot all be checked, and the
/// gate spills (an unrecorded token never makes a verdict more lenient).
fn too_dense(session: &Session, until: usize, out: &mut CompactionAnalysis) {
    let Some(from) = session.too_dense_from.filter(|&from| from < until) else {
        return;
    };
    out.flags.too_dense = true;
    let id = out.info.id.as_str();
    let from_seq = session.seq_at(from);
    let message = format!(
        "the log holds more than {} distinct identifiers, and ctxlens records no new one from seq {from_seq} on: what {id} dropped cannot all be checked",
        crate::model::TOKEN_CAP
    );
    Arc::make_mut(&mut out.findings).push(Finding::new(
        FindingKind::TooDense { from_seq },
        Severity::Warning,
        Some(id),
        message,
    ));
}

/// What the compaction's defining event says.
struct DefParts<'a> {
    summary: Option<&'a Summary>,
    /// Declared tokens the second pass found in the summary beyond its digest's.
    summary_declared: &'a [TokenId],
    input: Option<&'a str>,
    elsewhere: bool,
    extra: CompactionExtra,
}

impl<'a> DefParts<'a> {
    fn of(session: &'a Session, info: &CompactionInfo) -> Self {
        match session.events.get(info.def).map(|e| &e.kind) {
            Some(EventKind::Compaction(compaction)) => DefParts {
                summary: compaction.summary.as_deref(),
                summary_declared: session.declared.of(info.def),
                input: compaction.input.as_deref(),
                elsewhere: compaction.region_elsewhere,
                extra: (*compaction.extra).clone(),
            },
            _ => DefParts {
                summary: None,
                summary_declared: &[],
                input: None,
                elsewhere: false,
                extra: CompactionExtra::default(),
            },
        }
    }
}

/// A region that lies in an earlier session file: nothing here can be checked.
fn region_elsewhere(out: &mut CompactionAnalysis, input: Option<&str>) {
    let id = out.info.id.as_str();
    out.flags.originals_elsewhere = true;
    if input == Some("summary") {
        out.flags.summary_of_summary = true;
        Arc::make_mut(&mut out.findings).push(Finding::new(
            FindingKind::SummaryOfSummary,
            Severity::Error,
            Some(id),
            format!("{id} summarizes a summary (input: summary), not the original events"),
        ));
    }
    Arc::make_mut(&mut out.findings).push(Finding::new(
        FindingKind::RegionElsewhere,
        Severity::Warning,
        Some(id),
        format!("{id} compacted a region that lies in an earlier session file (this session was continued from a compacted one); it cannot be checked here"),
    ));
}

/// A record that cannot be read never makes the verdict more lenient: a malformed line
/// among the region's, or where the compaction's own records are, denies approve.
fn unreadable_part(
    session: &Session,
    info: &CompactionInfo,
    region: &std::ops::Range<usize>,
) -> bool {
    let offset_of = |i: usize| session.events.get(i).map(|e| e.offset);
    let from = region
        .clone()
        .next()
        .or(Some(info.at))
        .and_then(offset_of)
        .unwrap_or(0);
    let to = offset_of(info.def + 1).unwrap_or(u64::MAX);
    session
        .malformed
        .offsets()
        .iter()
        .any(|offset| (from..to).contains(offset))
}
