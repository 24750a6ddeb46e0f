//! Signals 1, 2, 4 and 5 for one compaction: what its region held, what its summary
//! kept, what that breaks, and whether its range makes sense.

use super::coverage;
use super::extract::{
    contains_whole_word, is_ascii_word_byte, is_whole_word, word_count, word_runs_at,
    word_runs_from_last,
};
use super::finding::{Finding, FindingKind, Severity};
use super::gate::GateFlags;
use super::inference::{later_uses, Fate, LaterUse};
use super::kept::{basename_counts, text_key, token_key, SummaryForms};
use super::paths::path_key;
use super::regenerated::{Lost, Regenerated, WindowScan};
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

/// One distinct opaque token of a region and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionToken {
    pub id: TokenId,
    /// `None` when the summary cannot be read.
    pub survived: Option<bool>,
    /// `Some(regenerable)` for a token declared by a binding before the compaction.
    pub declared: Option<bool>,
    /// What became of it after the compaction, when the summary dropped it (§8.6).
    pub fate: Fate,
    /// Index of the first region event that holds it (32 bits: a region can hold
    /// millions of tokens, and a log fewer than 4 billion events).
    pub first_event: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DroppedToken {
    pub token: String,
    pub class: TokenClass,
    pub regenerable: Option<bool>,
    pub required_by: Vec<String>,
    #[serde(flatten)]
    pub fate: Fate,
}

#[derive(Debug, Clone)]
pub struct CompactionAnalysis {
    pub info: CompactionInfo,
    /// Shared by the looks that reuse the analysis (a long session's state holds
    /// thousands of obligations and bindings).
    pub state: Arc<StateAt>,
    /// Indices into `Session::events` of the region's events (seqs strictly increase,
    /// so a region is one run of events).
    pub region: std::ops::Range<usize>,
    pub region_words: u64,
    /// Shared by the analyses a growing log's looks reuse (a region can hold
    /// hundreds of thousands).
    pub tokens: Arc<Vec<RegionToken>>,
    pub opaque_ratio: Option<f64>,
    pub prose_ratio: Option<f64>,
    /// Dropped declared tokens and dropped tokens something requires (shared as the
    /// findings are).
    pub dropped: Arc<Vec<DroppedToken>>,
    /// Shared by the analyses a growing log's looks reuse, copied only when a look
    /// changes them (a decision that resolves one).
    pub findings: Arc<Vec<Finding>>,
    pub flags: GateFlags,
    /// The standing decision, if any (set by the session analysis).
    pub decision: Option<crate::model::Decision>,
    /// The id a pre-compact hook held this compaction as before it landed (spec 9.1);
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
pub const HELD_AT_RISK: &str =
    "identifiers the work depends on are at risk: the summary is not written yet";

impl CompactionAnalysis {
    /// Why the gate says what it says, in words that fit the compaction's phase.
    pub fn reasons(&self, strict: bool) -> Vec<&'static str> {
        let mut reasons = self.flags.reasons(strict);
        if self.extra.held.is_some() {
            for reason in &mut reasons {
                if *reason == super::gate::DROPPED_BINDING {
                    *reason = HELD_AT_RISK;
                }
            }
        }
        reasons
    }

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
    let ctx = Ctx::new(session, info, &state, out.region.clone(), threads);
    if let Some(summary) = def.summary {
        super::instructions::check(
            session,
            ctx.id,
            &out.region,
            &summary.text,
            Arc::make_mut(&mut out.findings),
        );
    }
    super::entities::check(
        ctx.id,
        &state,
        &out.region,
        def.extra.entities.as_deref(),
        &mut out.flags,
        Arc::make_mut(&mut out.findings),
    );
    if def.extra.held.is_some() {
        out.dropped = Arc::new(ctx.held_at_risk());
        out.flags.dropped_binding = !out.dropped.is_empty();
        return RegionPart::settled(out, state);
    }

    // Signal 1: what the region held and what the summary kept.
    let ((region_words, mut tokens), summary_runs) = ctx.region_tokens_and(|| {
        // What is built from the summary and the obligations alone, beside the walk
        // over the region (when this compaction has a thread to spare).
        ctx.requirements();
        def.summary.map(|summary| SummaryRuns::of(&summary.text))
    });
    if let (Some(summary), Some(runs)) = (def.summary, &summary_runs) {
        ctx.mark_survivors((summary, def.summary_declared, runs), &mut tokens);
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
    first_seen: &super::regenerated::FirstSeen,
    unchanged: usize,
) -> CompactionAnalysis {
    let mut out = part.out;
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
            Some(EventKind::Compaction {
                summary,
                input,
                region_elsewhere,
                extra,
                ..
            }) => DefParts {
                summary: summary.as_deref(),
                summary_declared: session.declared.of(info.def),
                input: input.as_deref(),
                elsewhere: *region_elsewhere,
                extra: (**extra).clone(),
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

/// What every step of one compaction's analysis shares.
struct Ctx<'a> {
    session: &'a Session,
    id: &'a str,
    cwd: Option<&'a str>,
    /// A transcript declares nothing: its tokens' needs are inferred (§8.6).
    transcript: bool,
    state: &'a StateAt,
    region: std::ops::Range<usize>,
    /// The ledger a pre-compact hook wrote just before this compaction.
    ledger_hint: Option<&'a LedgerHint>,
    /// Open obligations by what they require, built when first asked.
    requirements: std::sync::OnceLock<Requirements<'a>>,
    /// Threads this compaction's analysis may use (the others analyse other regions).
    threads: usize,
}

/// The open obligations by the tokens they require, so that what needs a dropped token
/// is a lookup, not a scan of every obligation per token (a long session holds many).
/// A required token matches a token by its text, and a path also by the file it names,
/// as [`same_token`] compares them.
struct Requirements<'a> {
    /// The pending steps and their targets as text, written out once.
    steps: Vec<(&'a str, String)>,
    /// The word runs of the steps' targets (see [`word_runs`]), and their tails.
    step_runs: FastSet<String>,
    step_tails: RunTails,
    obligations: Vec<&'a ObligationState>,
    /// By the id of the token whose text a requirement is: the session's table holds
    /// each text once, so a token has that text exactly when it has that id, and it is
    /// asked without reading its text (a required text no token has is left out).
    by_id: FastMap<TokenId, Vec<usize>>,
    by_file: FastMap<String, Vec<usize>>,
}

impl<'a> Requirements<'a> {
    fn new(session: &Session, state: &'a StateAt, cwd: Option<&str>) -> Self {
        let steps: Vec<(&str, String)> = state
            .pending
            .iter()
            .map(|s| (s.id.as_str(), target_text(&s.target)))
            .collect();
        let step_runs: FastSet<String> = steps
            .iter()
            .flat_map(|(_, target)| word_runs(target))
            .map(str::to_owned)
            .collect();
        let step_tails = RunTails::of(step_runs.iter().map(String::as_str));
        let mut index = Requirements {
            steps,
            step_runs,
            step_tails,
            obligations: Vec::new(),
            by_id: FastMap::default(),
            by_file: FastMap::default(),
        };
        for (i, obligation) in state.open_obligations().enumerate() {
            index.obligations.push(obligation);
            for required in &obligation.requires {
                if let Some(id) = session.tokens.find(required) {
                    index.by_id.entry(id).or_default().push(i);
                }
                index
                    .by_file
                    .entry(path_key(required, cwd).into_owned())
                    .or_default()
                    .push(i);
            }
        }
        index
    }

    /// The open obligations that require `token`, in their order.
    fn of(&self, session: &Session, token: TokenId, cwd: Option<&str>) -> Vec<&'a ObligationState> {
        let mut found: Vec<usize> = self
            .by_id
            .get(&token)
            .into_iter()
            .flatten()
            .copied()
            .collect();
        if session.tokens.class(token) == TokenClass::Path {
            if let Some(more) = self
                .by_file
                .get(&*path_key(session.tokens.text(token), cwd))
            {
                found.extend(more);
            }
        }
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .filter_map(|i| self.obligations.get(i).copied())
            .collect()
    }
}

impl<'a> Ctx<'a> {
    fn new(
        session: &'a Session,
        info: &'a CompactionInfo,
        state: &'a StateAt,
        region: std::ops::Range<usize>,
        threads: usize,
    ) -> Self {
        let def_offset = session.events.get(info.def).map_or(u64::MAX, |e| e.offset);
        let region_start = region
            .clone()
            .next()
            .and_then(|i| session.events.get(i))
            .map(|e| e.offset);
        let ledger_hint = session
            .ledger
            .iter()
            .filter(|h| h.before <= def_offset && region_start.is_none_or(|s| h.before > s))
            .max_by_key(|h| h.before);
        Ctx {
            session,
            id: info.id.as_str(),
            cwd: session.cwd.as_deref(),
            transcript: session.infers_bindings(),
            state,
            region,
            ledger_hint,
            requirements: std::sync::OnceLock::new(),
            threads,
        }
    }

    fn key(&self, id: TokenId) -> Cow<'a, str> {
        token_key(self.session, id, self.cwd)
    }

    fn ledger_tokens(&self) -> impl Iterator<Item = &'a (String, String)> {
        self.ledger_hint.into_iter().flat_map(|h| h.tokens.iter())
    }

    fn error(&self, kind: FindingKind, message: String) -> Finding {
        Finding::new(kind, Severity::Error, Some(self.id), message)
    }

    /// Held by a hook: no summary yet. What is at risk is what the ledger says the open
    /// todos and recent calls depend on; the gate spills when anything is.
    fn held_at_risk(&self) -> Vec<DroppedToken> {
        self.ledger_tokens()
            .map(|(token, why)| DroppedToken {
                token: token.clone(),
                class: super::extract::classify(token),
                regenerable: None,
                required_by: vec![format!("ledger: {why}")],
                fate: Fate::default(),
            })
            .collect()
    }

    /// [`Self::region_tokens`], and `beside`'s result: worked out on another thread
    /// if this compaction may use more than one (see [`crate::threads::both`]).
    fn region_tokens_and<R: Send>(
        &self,
        beside: impl FnOnce() -> R + Send,
    ) -> ((u64, Vec<RegionToken>), R) {
        if self.threads < 2 {
            return (self.region_tokens(), beside());
        }
        crate::threads::both(|| self.region_tokens(), beside)
    }

    /// The open obligations by what they require, built on first use.
    fn requirements(&self) -> &Requirements<'a> {
        self.requirements
            .get_or_init(|| Requirements::new(self.session, self.state, self.cwd))
    }

    /// The region's words and its distinct tokens, in order of first appearance.
    fn region_tokens(&self) -> (u64, Vec<RegionToken>) {
        let session = self.session;
        let mut region_words = 0;
        let mut keys = RegionKeys::new(session.tokens.len());
        // Whether each declared token can be re-fetched, asked for each of the region's
        // distinct tokens: a scan of the bindings for each would be most of this walk.
        let mut regenerable: FastMap<TokenId, bool> = FastMap::default();
        for binding in &self.state.bindings {
            regenerable
                .entry(binding.token)
                .or_insert(binding.regenerable);
        }
        let mut tokens: Vec<RegionToken> = Vec::new();
        for index in self.region.clone() {
            let Some(event) = session.events.get(index) else {
                break;
            };
            let (words, ids, declared): (u64, &[TokenId], &[TokenId]) = match &event.kind {
                EventKind::Binding { token, .. } => (
                    word_count(session.tokens.text(*token)),
                    std::slice::from_ref(token),
                    &[],
                ),
                kind => match kind.region_text() {
                    Some(digest) => (digest.words, &digest.tokens, session.declared.of(index)),
                    None => continue,
                },
            };
            region_words += words;
            // A region names most of its tokens many times: each id is keyed once.
            for &token in ids.iter().chain(declared) {
                if keys.met(token) {
                    continue;
                }
                let key = self.key(token);
                let at = keys.entry(self, &key, token).unwrap_or_else(|| {
                    tokens.push(RegionToken {
                        id: token,
                        survived: None,
                        declared: regenerable.get(&token).copied(),
                        fate: Fate::default(),
                        first_event: u32::try_from(index).unwrap_or(u32::MAX),
                    });
                    tokens.len() - 1
                });
                keys.meet(token, key, at, session);
            }
        }
        // A declared token shows up under its own id even when a path variant came first.
        for binding in &self.state.bindings {
            let at = keys.entry(self, &self.key(binding.token), binding.token);
            if let Some(token) = at.and_then(|at| tokens.get_mut(at)) {
                token.declared = Some(binding.regenerable);
                token.id = binding.token;
            }
        }
        (region_words, tokens)
    }

    /// What survived. Declared tokens (binding events, the hooks' ledger) by the rules
    /// of §2; a transcript's undeclared tokens in any form §8.6 recognizes.
    fn mark_survivors(
        &self,
        (summary, summary_declared, runs): (&Summary, &[TokenId], &SummaryRuns),
        tokens: &mut [RegionToken],
    ) {
        let session = self.session;
        let cwd = self.cwd;
        let ledger_keys: HashSet<Cow<str>> = self
            .ledger_tokens()
            .map(|(t, _)| text_key(t, super::extract::classify(t), cwd))
            .collect();
        let forms = self
            .transcript
            .then(|| SummaryForms::new(session, summary, summary_declared, cwd));
        // Only a transcript's summary is read for other forms of a path.
        let basenames = match forms {
            Some(_) => basename_counts(
                tokens
                    .iter()
                    .filter(|t| session.tokens.class(t.id) == TokenClass::Path)
                    .map(|t| session.tokens.text(t.id)),
            ),
            None => FastMap::default(),
        };
        let declared: Vec<bool> = tokens
            .iter()
            // A token's key is worked out only if there is a ledger to look it up in.
            .map(|t| {
                t.declared.is_some()
                    || (!ledger_keys.is_empty() && ledger_keys.contains(&*self.key(t.id)))
            })
            .collect();
        // The §2 check for every token that takes it, in one pass over the summary.
        let exact = exact_survivors(
            session,
            (summary, summary_declared, runs),
            tokens
                .iter()
                .zip(&declared)
                .filter(|(_, &d)| forms.is_none() || d)
                .map(|(t, _)| t.id),
            cwd,
            self.threads,
        );
        for (token, declared) in tokens.iter_mut().zip(declared) {
            let kept = match &forms {
                Some(forms) if !declared => {
                    let info = session.tokens.get(token.id);
                    forms.holds(info.text, info.class, cwd, &basenames)
                }
                _ => exact.contains(token.id),
            };
            token.survived = Some(kept);
        }
    }

    /// Carried over: put back by the runtime after the boundary (§8.6). The runtime
    /// states the session's folder in every context, so the cwd and the folders above
    /// it are never lost.
    fn mark_carried(&self, extra: &CompactionExtra, tokens: &mut [RegionToken]) {
        let session = self.session;
        let carried: HashSet<Cow<str>> = extra
            .carried
            .iter()
            .chain(session.context_sources.iter().flat_map(|c| c.tokens.iter()))
            .map(|&t| self.key(t))
            .collect();
        // The cwd or a folder above it (`/w` of `/w/app`).
        let in_cwd_chain = |key: &str| {
            self.cwd.is_some_and(|cwd| {
                let above = cwd
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('/'));
                key.len() > 1 && (cwd == key || above)
            })
        };
        for token in tokens.iter_mut().filter(|t| t.survived == Some(false)) {
            let path = session.tokens.class(token.id) == TokenClass::Path;
            // Nothing carried, and no cwd a path could name: no key to work out.
            if carried.is_empty() && !(path && self.cwd.is_some()) {
                token.fate.carried = false;
                continue;
            }
            let key = self.key(token.id);
            token.fate.carried = carried.contains(&*key) || (path && in_cwd_chain(&key));
        }
    }

    /// The share of identifiers and of words kept, and signal 4 (density collapse).
    fn density(&self, summary: Option<&Summary>, out: &mut CompactionAnalysis) {
        let id = self.id;
        let Some(summary) = summary else {
            Arc::make_mut(&mut out.findings).push(Finding::new(
                FindingKind::OpaqueSummary,
                Severity::Warning,
                Some(id),
                format!("{id}'s summary cannot be read (encrypted by the runtime, or missing from the log): what it dropped cannot be checked"),
            ));
            return;
        };
        if out.region.is_empty() {
            return;
        }
        let kept = out.kept();
        let total = out.tokens.len();
        let opaque = if total == 0 {
            1.0
        } else {
            (kept as f64 / total as f64).min(1.0)
        };
        let prose = (summary.digest.words as f64 / out.region_words.max(1) as f64).min(1.0);
        out.opaque_ratio = Some(opaque);
        out.prose_ratio = Some(prose);
        // A margin: a summary keeps a smaller share of identifiers than of words by
        // nature (it names a file once, the region many times); only a drop well past
        // its own shrinking is a collapse.
        if opaque < prose / 2.0 {
            out.flags.density_collapse = true;
            Arc::make_mut(&mut out.findings).push(Finding::new(
                FindingKind::DensityCollapse {
                    opaque_ratio: opaque,
                    prose_ratio: prose,
                },
                Severity::Warning,
                Some(id),
                format!(
                    "{id} kept {kept} of {total} opaque tokens ({opaque:.2}) but {prose:.2} of the words: identifiers were dropped more than twice as fast as the text shrank"
                ),
            ));
        }
    }

    /// The first open obligation that requires `token`.
    fn first_requiring(&self, token: TokenId) -> Option<&'a ObligationState> {
        self.requirements()
            .of(self.session, token, self.cwd)
            .first()
            .copied()
    }

    /// What requires `token`: open obligations, pending steps and the hooks' ledger.
    /// What requires each dropped token of `tokens`, for those something requires.
    fn needs_of_dropped(&self, tokens: &[RegionToken]) -> FastMap<TokenId, Vec<String>> {
        let needs_in = |part: &[RegionToken]| -> Vec<(TokenId, Vec<String>)> {
            part.iter()
                .filter(|t| t.survived == Some(false))
                .map(|t| (t.id, self.required_by(t.id)))
                .filter(|(_, needs)| !needs.is_empty())
                .collect()
        };
        // Built before the parts start, not by each.
        self.requirements();
        crate::threads::in_parts(tokens, self.threads, PARALLEL_FROM_TOKENS, needs_in)
            .into_iter()
            .flatten()
            .collect()
    }

    fn required_by(&self, token: TokenId) -> Vec<String> {
        let session = self.session;
        let text = session.tokens.text(token);
        let class = session.tokens.class(token);
        let requirements = self.requirements();
        let by_obligation = requirements
            .of(session, token, self.cwd)
            .into_iter()
            .map(|o| o.id.clone());
        // Most dropped tokens are in no step: those with a word run no target holds
        // are not searched for (a region can drop many thousands). The runs are asked
        // from the last, which sets most tokens apart (a number, a file, a hash): the
        // first ones (`https`, `arn`, `srv`) stand in many targets.
        let in_some_step = requirements.step_tails.may_end(text)
            && word_runs_from_last(text).all(|(_, run)| requirements.step_runs.contains(run));
        let steps = match in_some_step {
            true => requirements.steps.as_slice(),
            false => &[],
        };
        let by_step = steps
            .iter()
            .filter(|(_, target)| contains_whole_word(target, text, class))
            .map(|(id, _)| (*id).to_owned());
        let by_ledger = self
            .ledger_tokens()
            .filter(|(t, _)| same_token(session, t, token, self.cwd))
            .map(|(_, why)| format!("ledger: {why}"));
        by_obligation.chain(by_step).chain(by_ledger).collect()
    }

    /// Where the agent used a `lost` token again in the window `after..until`.
    fn later_uses_of(&self, lost: &Lost, after: usize, until: usize) -> Vec<LaterUse> {
        let dropped_keys: FastMap<Cow<str>, TokenId> =
            lost.ids().iter().map(|&id| (self.key(id), id)).collect();
        later_uses(self.session, after, until, &dropped_keys)
    }

    /// The dropped tokens something needs, and the findings they raise.
    fn report_dropped(
        &self,
        uses: &[LaterUse],
        needs: &FastMap<TokenId, Vec<String>>,
        out: &mut CompactionAnalysis,
    ) {
        let session = self.session;
        // The tokens are shared with the analysis kept for the next look: written to
        // only where a later use changed what became of one.
        // Each token's first later use, asked for each dropped token (not a scan of
        // the uses for each).
        let mut use_of: FastMap<TokenId, &LaterUse> = FastMap::default();
        for used in uses {
            use_of.entry(used.token).or_insert(used);
        }
        let reuse_of = |id: TokenId| use_of.get(&id).map(|u| u.reuse);
        let changed = out
            .tokens
            .iter()
            .any(|t| t.survived == Some(false) && t.fate.reused != reuse_of(t.id));
        if changed {
            for token in Arc::make_mut(&mut out.tokens) {
                if token.survived == Some(false) {
                    token.fate.reused = reuse_of(token.id);
                }
            }
        }
        for token in out.tokens.iter().filter(|t| t.survived == Some(false)) {
            let used = use_of.get(&token.id).copied();
            let mut needed_by = needs.get(&token.id).cloned().unwrap_or_default();
            let by_ledger = needed_by.iter().any(|n| n.starts_with("ledger: "));
            if let Some(used) = used {
                needed_by.push(step_name(session, used));
            }
            if token.declared.is_none() && needed_by.is_empty() {
                continue;
            }
            Arc::make_mut(&mut out.dropped).push(DroppedToken {
                token: session.tokens.text(token.id).to_owned(),
                class: session.tokens.class(token.id),
                regenerable: token.declared,
                required_by: needed_by.clone(),
                fate: token.fate,
            });
            if token.fate.carried {
                continue;
            }
            if token.declared == Some(false) && !needed_by.is_empty() {
                out.flags.dropped_binding = true;
                let obligation = self.first_requiring(token.id);
                Arc::make_mut(&mut out.findings).push(dropped_binding_finding(
                    session, self.id, token.id, self.state, obligation,
                ));
            } else if token.declared.is_none() && self.transcript && by_ledger {
                // Declared through the hooks' ledger: at stake, so an error as it lands.
                out.flags.dropped_binding = true;
                let obligation = self.first_requiring(token.id);
                Arc::make_mut(&mut out.findings).push(inferred_finding(
                    session, self.id, token.id, obligation, used, &needed_by,
                ));
            } else if let Some(used) =
                used.filter(|_| token.declared.is_none() && token.fate.recalled())
            {
                Arc::make_mut(&mut out.findings)
                    .push(recalled_finding(session, self.id, token.id, used));
            }
        }
    }

    /// The harm itself: a failed call on a look-alike of a dropped token (any format).
    fn report_regenerated(&self, found: &[Regenerated], out: &mut CompactionAnalysis) {
        let session = self.session;
        let id = self.id;
        for found in found {
            let d = session.tokens.text(found.token);
            let t = session.tokens.text(found.regenerated);
            let step = call_name(session, found.event);
            Arc::make_mut(&mut out.findings).push(self.error(
                FindingKind::RegeneratedBinding {
                    token: d.to_owned(),
                    regenerated: t.to_owned(),
                    step: step.clone(),
                },
                format!("after {id} dropped {d}, {step} failed on {t}, a look-alike never seen before: the agent most likely made the value up"),
            ));
        }
    }

    /// An open obligation that requires a token no binding declares. Transcripts
    /// declare nothing: their todos' tokens are candidates, not unknowns.
    fn report_unknown_bindings(&self, out: &mut CompactionAnalysis) {
        if self.transcript {
            return;
        }
        let session = self.session;
        // What `same_token` compares, for every binding at once: its text, and the
        // file a path names.
        let mut texts: HashSet<&str> = HashSet::new();
        let mut files: HashSet<String> = HashSet::new();
        for binding in &self.state.bindings {
            let info = session.tokens.get(binding.token);
            texts.insert(info.text);
            if info.class == TokenClass::Path {
                files.insert(path_key(info.text, self.cwd).into_owned());
            }
        }
        let mut reported: HashSet<String> = out
            .findings
            .iter()
            .filter_map(|f| match &f.kind {
                FindingKind::UnknownBinding { token, .. } => Some(token.clone()),
                _ => None,
            })
            .collect();
        for obligation in self.state.open_obligations() {
            for required in &obligation.requires {
                let declared = texts.contains(required.as_str())
                    || (!files.is_empty() && files.contains(&*path_key(required, self.cwd)));
                if !declared && reported.insert(required.clone()) {
                    out.flags.unknown_binding = true;
                    Arc::make_mut(&mut out.findings).push(self.error(
                        FindingKind::UnknownBinding {
                            token: required.clone(),
                            obligation: obligation.id.clone(),
                        },
                        format!(
                            "obligation {} requires {required}, but no binding declares it before {}, so nothing says whether it may be lost",
                            obligation.id, self.id
                        ),
                    ));
                }
            }
        }
    }
}

/// Where each run of word characters of a summary stands (see [`word_runs`]).
struct SummaryRuns<'s> {
    /// Most runs of a large summary stand once (its identifiers): one place is
    /// kept in the map, not in a vector of its own.
    places: FastMap<&'s str, SmallVec<[usize; 1]>>,
    tails: RunTails,
}

/// The last [`TAIL`] bytes of each of a text's word runs that long, so that a token
/// whose last run cannot be one of them is told apart without reading that run back
/// to its start (the read a character at a time was most of the survival check: the
/// last runs of hashes, UUIDs and resource ids are their whole text).
struct RunTails(FastSet<u64>);

/// Bytes of a run's tail: a `u64`.
const TAIL: usize = 8;

impl RunTails {
    fn of<'r>(runs: impl Iterator<Item = &'r str>) -> Self {
        RunTails(runs.filter_map(word_tail).collect())
    }

    /// False only where `text`'s last word run is none of the runs: its last
    /// [`TAIL`] bytes are all word bytes (so the last run holds them, and is as long
    /// at least) and no run that long ends with them.
    fn may_end(&self, text: &str) -> bool {
        word_tail(text).is_none_or(|tail| self.0.contains(&tail))
    }
}

/// The last [`TAIL`] bytes of `text`, if they are all ASCII word bytes
/// ([`super::extract::is_word_char`]).
fn word_tail(text: &str) -> Option<u64> {
    let tail = text.as_bytes().last_chunk::<TAIL>()?;
    tail.iter()
        .all(|&b| is_ascii_word_byte(b))
        .then(|| u64::from_le_bytes(*tail))
}

impl<'s> SummaryRuns<'s> {
    fn of(text: &'s str) -> Self {
        let mut places: FastMap<&str, SmallVec<[usize; 1]>> = FastMap::default();
        for (at, run) in word_runs_at(text) {
            places.entry(run).or_default().push(at);
        }
        let tails = RunTails::of(places.keys().copied());
        SummaryRuns { places, tails }
    }
}

/// The tokens of `ids` that survive by the rules of §2: a whole word of the summary, or
/// a path naming the same file as one of the summary's. The summary's word runs are
/// indexed once; each token is compared where its rarest run stands, so the cost is
/// the summary plus the tokens and the places of their rarest runs, not their product.
fn exact_survivors(
    session: &Session,
    (summary, summary_declared, runs): (&Summary, &[TokenId], &SummaryRuns),
    ids: impl Iterator<Item = TokenId>,
    cwd: Option<&str>,
    threads: usize,
) -> TokenBits {
    // A whole word has no word character on either side, so each run of word
    // characters of a token that occurs is a whole run of the summary's, at the same
    // distance from the token's start. The summary's runs are indexed by text; a token
    // is looked for only where its rarest run stands (a token with a run the summary
    // lacks cannot occur: most of a large region's tokens, whose folders are common and
    // whose file names are not). Each place costs one comparison of the token's bytes.
    let text = summary.text.as_str();
    let places = &runs.places;
    let tails = &runs.tails;
    let ids: Vec<TokenId> = ids.collect();
    let occurs = |id: TokenId| {
        let info = session.tokens.get(id);
        let token = info.text;
        if !tails.may_end(token) {
            return false;
        }
        // The last of the rarest runs (any run finds every place the token stands); a
        // run the summary lacks is as rare as any can be, and most dropped tokens have
        // one, most often their last.
        let mut rarest: Option<(usize, &[usize])> = None;
        for (offset, run) in word_runs_from_last(token) {
            let at = places.get(run).map_or(&[][..], SmallVec::as_slice);
            if rarest.is_none_or(|(_, fewest)| at.len() < fewest.len()) {
                rarest = Some((offset, at));
            }
            if at.is_empty() {
                break;
            }
        }
        match rarest {
            Some((offset, at)) => at.iter().any(|&run_at| {
                run_at.checked_sub(offset).is_some_and(|start| {
                    text.get(start..start + token.len()) == Some(token)
                        && is_whole_word(text, start, start + token.len(), info.class)
                })
            }),
            // No letter, digit, `_` nor `-`: no run to look it up by.
            None => contains_whole_word(text, token, info.class),
        }
    };
    // A path also survives as another form of a file the summary names.
    let summary_paths: HashSet<String> = summary
        .digest
        .tokens
        .iter()
        .chain(summary_declared)
        .filter(|&&t| session.tokens.class(t) == TokenClass::Path)
        .map(|&t| path_key(session.tokens.text(t), cwd).into_owned())
        .collect();
    let names_a_summary_file = |id: TokenId| {
        let info = session.tokens.get(id);
        info.class == TokenClass::Path && summary_paths.contains(&*path_key(info.text, cwd))
    };
    // A large region's tokens are looked up on several threads: the index is only read.
    let kept_in = |part: &[TokenId]| -> Vec<TokenId> {
        let kept = |id: &TokenId| occurs(*id) || names_a_summary_file(*id);
        part.iter().copied().filter(kept).collect()
    };
    let mut kept = TokenBits::new(session.tokens.len());
    for id in crate::threads::in_parts(&ids, threads, PARALLEL_FROM_TOKENS, kept_in)
        .into_iter()
        .flatten()
    {
        kept.insert(id);
    }
    kept
}

/// Region tokens from which a compaction's token checks are split between its threads
/// (a part costs a thread's start, some tens of microseconds).
const PARALLEL_FROM_TOKENS: usize = 4096;

/// A set of a session's token ids, a bit each (its ids count up from 0): asked once
/// for each of a region's tokens, where a hash set's lookups were a tenth of the check.
struct TokenBits(Vec<u64>);

impl TokenBits {
    fn new(ids: usize) -> Self {
        TokenBits(vec![0; ids.div_ceil(64)])
    }

    /// Adds `id` (an id beyond the session's table is never held).
    fn insert(&mut self, id: TokenId) {
        let i = id.0 as usize;
        if let Some(word) = self.0.get_mut(i / 64) {
            *word |= 1 << (i % 64);
        }
    }

    fn contains(&self, id: TokenId) -> bool {
        let i = id.0 as usize;
        self.0
            .get(i / 64)
            .is_some_and(|word| word & (1 << (i % 64)) != 0)
    }
}

/// Where each key of a region's tokens stands in its list ([`Ctx::region_tokens`]): a
/// token's key is its own text, but for a path that names its file in another form
/// (`./a`, a path under the cwd). Most keys are found by their token's id, with no text
/// hashed (a map of every key was a third of the walk); only the other keys by text.
struct RegionKeys<'s> {
    /// By token id, where its key stands, once the token was met ([`NOT_MET`] before).
    by_id: Vec<u32>,
    /// The keys that are not their token's own text, and where each stands.
    other: FastMap<Cow<'s, str>, usize>,
}

/// A token [`RegionKeys`] has not met.
const NOT_MET: u32 = u32::MAX;

impl<'s> RegionKeys<'s> {
    fn new(tokens: usize) -> Self {
        RegionKeys {
            by_id: vec![NOT_MET; tokens],
            other: FastMap::default(),
        }
    }

    /// Whether `token` was met (an id beyond the table's counts as never met).
    fn met(&self, token: TokenId) -> bool {
        self.by_id
            .get(token.0 as usize)
            .is_some_and(|&at| at != NOT_MET)
    }

    /// Where `key`, the key of `token`, stands, if a token met so far has it: one whose
    /// other key it is, or the token whose own text it is (whose key that is).
    fn entry(&self, ctx: &Ctx<'s>, key: &str, token: TokenId) -> Option<usize> {
        if let Some(&at) = self.other.get(key) {
            return Some(at);
        }
        let session = ctx.session;
        let own = match session.tokens.text(token) == key {
            true => Some(token),
            false => session.tokens.find(key),
        };
        own.filter(|&own| own == token || *ctx.key(own) == *key)
            .and_then(|own| self.by_id.get(own.0 as usize))
            .filter(|&&at| at != NOT_MET)
            .map(|&at| at as usize)
    }

    /// Records that `token`, whose key is `key`, was met, and that its key stands at
    /// `at`.
    fn meet(&mut self, token: TokenId, key: Cow<'s, str>, at: usize, session: &Session) {
        // An id the table never made (it reads as empty) is kept by its key.
        let own_text = match self.by_id.get_mut(token.0 as usize) {
            Some(slot) => {
                *slot = u32::try_from(at).unwrap_or(NOT_MET);
                *key == *session.tokens.text(token)
            }
            None => false,
        };
        if !own_text {
            self.other.entry(key).or_insert(at);
        }
    }
}

/// The runs of word characters of `text`. A token that occurs in a text as a whole
/// word has no word character on either side, so each of its runs is a whole run of
/// the text: a token with a run the text lacks cannot occur in it.
fn word_runs(text: &str) -> impl Iterator<Item = &str> {
    word_runs_at(text).map(|(_, run)| run)
}

/// Whether `written` names declared token `token` (a path in any form of the same file).
pub(super) fn same_token(
    session: &Session,
    written: &str,
    token: TokenId,
    cwd: Option<&str>,
) -> bool {
    let info = session.tokens.get(token);
    written == info.text
        || (info.class == TokenClass::Path && path_key(written, cwd) == path_key(info.text, cwd))
}

fn dropped_binding_finding(
    session: &Session,
    id: &str,
    token: TokenId,
    state: &StateAt,
    obligation: Option<&ObligationState>,
) -> Finding {
    let text = session.tokens.text(token);
    let class = session.tokens.class(token);
    let step = state
        .pending
        .iter()
        .find(|s| contains_whole_word(&target_text(&s.target), text, class));
    let what = state
        .binding(token)
        .and_then(|b| b.note.as_deref())
        .map(|note| format!(" ({note})"))
        .unwrap_or_default();
    let needer = match (obligation, step) {
        (Some(o), _) => format!(
            "obligation {}{}",
            o.id,
            o.name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        ),
        (None, Some(s)) => format!("plan step {} ({})", s.id, s.action),
        (None, None) => "a pending step".into(),
    };
    Finding::new(
        FindingKind::DroppedBinding {
            token: text.to_owned(),
            obligation: obligation.map(|o| o.id.clone()),
            step: step.map(|s| s.id.clone()),
            recalled: None,
        },
        Severity::Error,
        Some(id),
        format!("summary {id} dropped {text}{what}, which {needer} needs; it cannot be re-fetched"),
    )
}

/// How a later tool call is named in `step` and `required_by`.
fn step_name(session: &Session, used: &LaterUse) -> String {
    call_name(session, used.event)
}

/// A tool call event as findings name it: `NAME CALL_ID (seq N)`.
fn call_name(session: &Session, index: usize) -> String {
    let Some(event) = session.events.get(index) else {
        return format!("event {index}");
    };
    match &event.kind {
        EventKind::ToolCall {
            name,
            call_id: Some(call),
            ..
        } => format!("{name} {call} (seq {})", event.seq),
        EventKind::ToolCall { name, .. } => format!("{name} (seq {})", event.seq),
        _ => format!("seq {}", event.seq),
    }
}

fn inferred_finding(
    session: &Session,
    id: &str,
    token: TokenId,
    obligation: Option<&ObligationState>,
    used: Option<&LaterUse>,
    needed_by: &[String],
) -> Finding {
    let text = session.tokens.text(token);
    let why = match (used, obligation) {
        (Some(u), _) => format!(
            "the agent used it again in {} without reading it back first",
            step_name(session, u)
        ),
        (None, Some(o)) => format!(
            "the open todo \"{}\" needs it",
            o.name.as_deref().unwrap_or(&o.id)
        ),
        (None, None) => match needed_by.iter().find_map(|n| n.strip_prefix("ledger: ")) {
            Some(why) => format!(
                "the binding ledger of the pre-compact hook says the work depends on it ({why})"
            ),
            None => "something still needs it".into(),
        },
    };
    Finding::new(
        FindingKind::DroppedBinding {
            token: text.to_owned(),
            obligation: obligation.map(|o| o.id.clone()),
            step: used.map(|u| step_name(session, u)),
            recalled: None,
        },
        Severity::Error,
        Some(id),
        format!("summary {id} dropped {text}; {why}"),
    )
}

/// A transcript token the agent used again verbatim with nothing bringing it back: a
/// warning, since a use that worked is no evidence of loss (spec §8.6).
fn recalled_finding(session: &Session, id: &str, token: TokenId, used: &LaterUse) -> Finding {
    let text = session.tokens.text(token);
    let step = step_name(session, used);
    Finding::new(
        FindingKind::DroppedBinding {
            token: text.to_owned(),
            obligation: None,
            step: Some(step.clone()),
            recalled: Some(true),
        },
        Severity::Warning,
        Some(id),
        format!("summary {id} dropped {text}, and {step} used it with nothing bringing it back first: the agent recalled it from outside the summary"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The runs, and the runs from the last, are the text split at each character
        /// that is no word character (a token's last run, a number, a file or a hash,
        /// sets it apart more often than its first: `https`, `arn`, `srv`).
        #[test]
        fn runs_are_the_text_split_at_what_is_no_word(text in "[a-zA-Z0-9_/ .:éß日→\u{2070}-]{0,24}") {
            let start = text.as_ptr() as usize;
            let split: Vec<(usize, &str)> = text
                .split(|c: char| !crate::analysis::extract::is_word_char(c))
                .filter(|run| !run.is_empty())
                .map(|run| (run.as_ptr() as usize - start, run))
                .collect();
            let forward: Vec<(usize, &str)> = word_runs_at(&text).collect();
            prop_assert_eq!(&forward, &split);
            let mut backward: Vec<(usize, &str)> = word_runs_from_last(&text).collect();
            backward.reverse();
            prop_assert_eq!(backward, split);
        }

        /// A text the tails rule out ends with a run that is none of the runs.
        #[test]
        fn a_text_the_tails_rule_out_ends_with_none_of_the_runs(
            summary in "[ab12_/ .é-]{0,60}",
            text in "[ab12_/ .é-]{0,16}",
        ) {
            let runs: Vec<&str> = word_runs(&summary).collect();
            let tails = RunTails::of(runs.iter().copied());
            if !tails.may_end(&text) {
                let last = word_runs_from_last(&text).next().map(|(_, run)| run);
                prop_assert!(last.is_some_and(|last| !runs.contains(&last)));
            }
        }

        /// Each run's place is where it stands in the text.
        #[test]
        fn runs_stand_where_their_places_say(text in "[a-z0-9_/. -→é日]{0,30}") {
            for (start, run) in word_runs_at(&text) {
                prop_assert_eq!(text.get(start..start + run.len()), Some(run));
            }
        }
    }

    /// The one-pass check agrees with asking each token on its own.
    fn agrees(summary_text: &str, token_texts: &[&str]) {
        let mut session = Session {
            cwd: Some("/p".into()),
            ..Session::default()
        };
        let ids: Vec<TokenId> = token_texts
            .iter()
            .map(|t| {
                let class = super::super::extract::classify(t);
                session.tokens.intern(t, class)
            })
            .collect();
        let digest_ids: Vec<TokenId> = super::super::extract::extract(summary_text)
            .iter()
            .map(|f| session.tokens.intern(f.text(summary_text), f.class))
            .collect();
        let summary = Summary {
            text: summary_text.to_owned(),
            digest: crate::model::TextDigest::from_ids(0, digest_ids),
        };
        let fast = exact_survivors(
            &session,
            (&summary, &[], &SummaryRuns::of(&summary.text)),
            ids.iter().copied(),
            Some("/p"),
            1,
        );
        for &id in &ids {
            let info = session.tokens.get(id);
            let one_by_one = contains_whole_word(summary_text, info.text, info.class)
                || (info.class == TokenClass::Path
                    && summary.digest.tokens.iter().any(|&o| {
                        session.tokens.class(o) == TokenClass::Path
                            && path_key(session.tokens.text(o), Some("/p"))
                                == path_key(info.text, Some("/p"))
                    }));
            assert_eq!(
                fast.contains(id),
                one_by_one,
                "{:?} in {summary_text:?}",
                info.text
            );
        }
    }

    #[test]
    fn one_pass_survival_matches_the_per_token_rule() {
        agrees(
            "rolled /x/a/b.rs back to 4f9a2c81d0e7, see a/b.rs and 4f9a2c81d0e7aa; rev-4f9a2c81",
            &[
                "a/b.rs",
                "/x/a/b.rs",
                "4f9a2c81d0e7",
                "4f9a2c81",
                "/p/a/b.rs",
                "tok_1",
                "b.rs",
            ],
        );
    }

    proptest! {
        #[test]
        fn one_pass_survival_matches_on_any_text(
            words in proptest::collection::vec(
                prop_oneof![
                    Just("4f9a2c81d0e7"), Just("4f9a2c81"), Just("a/b.rs"), Just("/p/a/b.rs"),
                    Just("x"), Just("-"), Just("/"), Just("."), Just(" "), Just("_"), Just("é")
                ],
                0..24,
            )
        ) {
            let text: String = words.concat();
            agrees(&text, &["4f9a2c81d0e7", "4f9a2c81", "a/b.rs", "/p/a/b.rs"]);
        }
    }
}

#[cfg(test)]
mod size_tests {
    /// Every compaction keeps a row per region token: millions in a large log.
    #[test]
    fn a_region_token_stays_small() {
        assert!(size_of::<super::RegionToken>() <= 16);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod region_key_tests {
    use super::*;
    use crate::analysis::state::StateBuilder;
    use crate::model::{Event, Phase, TextDigest};

    /// A region's tokens as one map of every key found them: the rule that
    /// [`RegionKeys`] keeps without hashing the keys that are their tokens' texts.
    fn by_one_map(ctx: &Ctx) -> Vec<RegionToken> {
        let session = ctx.session;
        let mut seen: FastMap<Cow<str>, usize> = FastMap::default();
        let mut tokens: Vec<RegionToken> = Vec::new();
        for index in ctx.region.clone() {
            let event = session.events.get(index).unwrap();
            let ids: &[TokenId] = match &event.kind {
                EventKind::Binding { token, .. } => std::slice::from_ref(token),
                kind => &kind.region_text().unwrap().tokens,
            };
            for &token in ids {
                seen.entry(ctx.key(token)).or_insert_with(|| {
                    tokens.push(RegionToken {
                        id: token,
                        survived: None,
                        declared: ctx.state.binding(token).map(|b| b.regenerable),
                        fate: Fate::default(),
                        first_event: index as u32,
                    });
                    tokens.len() - 1
                });
            }
        }
        for binding in &ctx.state.bindings {
            if let Some(&at) = seen.get(&*ctx.key(binding.token)) {
                tokens[at].declared = Some(binding.regenerable);
                tokens[at].id = binding.token;
            }
        }
        tokens
    }

    /// Texts of which several name one file (as the cwd `/w` reads them), and some
    /// that are no path.
    const TEXTS: [(&str, TokenClass); 9] = [
        ("/w/src/a.py", TokenClass::Path),
        ("src/a.py", TokenClass::Path),
        ("./src/a.py", TokenClass::Path),
        ("/w/./src/b.py", TokenClass::Path),
        ("src/b.py", TokenClass::Path),
        ("/elsewhere/a.py", TokenClass::Path),
        ("deadbeef1", TokenClass::Hex),
        ("https://ci.example.com/runs/7", TokenClass::Url),
        ("src", TokenClass::Declared),
    ];

    proptest::proptest! {
        /// Whatever order paths of one file and other tokens come in, and whichever are
        /// declared, the region's tokens are those one map of every key gives.
        #[test]
        fn region_tokens_are_those_one_map_of_keys_gives(
            events in proptest::collection::vec((0usize..TEXTS.len(), 0usize..TEXTS.len(), proptest::bool::ANY), 1..16),
        ) {
            let mut session = Session {
                cwd: Some("/w".into()),
                ..Session::default()
            };
            let ids: Vec<TokenId> = TEXTS.iter().map(|&(t, c)| session.tokens.intern(t, c)).collect();
            for (seq, &(a, b, binding)) in events.iter().enumerate() {
                let kind = match binding {
                    true => EventKind::Binding { token: ids[a], regenerable: b % 2 == 0, note: None },
                    false => EventKind::ToolResult {
                        call_id: None,
                        is_error: false,
                        says_failed: false,
                        says_not_found: false,
                        text: TextDigest::from_ids(2, vec![ids[a], ids[b]]),
                    },
                };
                session.events.push(Event { seq: seq as u64 + 1, line: 0, offset: 0, span: 0, part: 0, ts: None, kind });
            }
            let state = {
                let mut builder = StateBuilder::default();
                session.events.iter().for_each(|e| builder.apply(e));
                builder.snapshot()
            };
            let info = CompactionInfo {
                id: "k".into(),
                at: events.len(),
                def: events.len(),
                applied_at: None,
                phase: Phase::Proposed,
                range: RangeSpec::Missing,
            };
            let ctx = Ctx::new(&session, &info, &state, 0..events.len(), 1);
            proptest::prop_assert_eq!(ctx.region_tokens().1, by_one_map(&ctx));
        }
    }
}
