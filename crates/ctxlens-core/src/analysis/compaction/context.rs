//! The context one compaction is analysed in: its region, the state before it, the
//! ledger's hint, and what the signals ask of them (region tokens, survival, density,
//! what needs each dropped token).

use super::*;
use crate::parse::roles::learnt_from_use;

/// What every step of one compaction's analysis shares.
pub(super) struct Ctx<'a> {
    pub(super) session: &'a Session,
    pub(super) id: &'a str,
    pub(super) cwd: Option<&'a str>,
    /// A transcript declares nothing: its tokens' needs are inferred (docs/transcripts.md).
    pub(super) transcript: bool,
    pub(super) state: &'a StateAt,
    pub(super) region: std::ops::Range<usize>,
    /// The ledger a pre-compact hook wrote just before this compaction.
    pub(super) ledger_hint: Option<&'a LedgerHint>,
    /// Open obligations by what they require, built when first asked.
    pub(super) requirements: std::sync::OnceLock<Requirements<'a>>,
    /// Threads this compaction's analysis may use (the others analyse other regions).
    pub(super) threads: usize,
}

/// The open obligations by the tokens they require, so that what needs a dropped token
/// is a lookup, not a scan of every obligation per token (a long session holds many).
/// A required token matches a token by its text, and a path also by the file it names,
/// as [`same_token`] compares them.
pub(super) struct Requirements<'a> {
    /// The pending steps and their targets as text, written out once.
    pub(super) steps: Vec<(&'a str, String)>,
    /// The word runs of the steps' targets (see [`word_runs`]), and their tails.
    pub(super) step_runs: FastSet<String>,
    pub(super) step_tails: RunTails,
    pub(super) obligations: Vec<&'a ObligationState>,
    /// By the id of the token whose text a requirement is: the session's table holds
    /// each text once, so a token has that text exactly when it has that id, and it is
    /// asked without reading its text (a required text no token has is left out).
    pub(super) by_id: FastMap<TokenId, Vec<usize>>,
    pub(super) by_file: FastMap<String, Vec<usize>>,
}

impl<'a> Requirements<'a> {
    pub(super) fn new(session: &Session, state: &'a StateAt, cwd: Option<&str>) -> Self {
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
    pub(super) fn of(
        &self,
        session: &Session,
        token: TokenId,
        cwd: Option<&str>,
    ) -> Vec<&'a ObligationState> {
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
    pub(super) fn new(
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

    pub(super) fn key(&self, id: TokenId) -> Cow<'a, str> {
        token_key(self.session, id, self.cwd)
    }

    pub(super) fn ledger_tokens(&self) -> impl Iterator<Item = &'a (String, String)> {
        self.ledger_hint.into_iter().flat_map(|h| h.tokens.iter())
    }

    pub(super) fn error(&self, kind: FindingKind, message: String) -> Finding {
        Finding::new(kind, Severity::Error, Some(self.id), message)
    }

    /// Held by a hook: no summary yet. What is at risk is what the ledger says the open
    /// todos and recent calls depend on; the gate spills when anything is.
    pub(super) fn held_at_risk(&self) -> Vec<DroppedToken> {
        self.ledger_tokens()
            .map(|(token, why)| DroppedToken {
                token: token.clone(),
                class: crate::analysis::extract::classify(token),
                regenerable: None,
                required_by: vec![format!("ledger: {why}")],
                fate: Fate::default(),
                rederived_cost: None,
            })
            .collect()
    }

    /// [`Self::region_tokens`], and `beside`'s result: worked out on another thread
    /// if this compaction may use more than one (see [`crate::threads::both`]).
    pub(super) fn region_tokens_and<R: Send>(
        &self,
        beside: impl FnOnce() -> R + Send,
    ) -> ((u64, Vec<RegionToken>), R) {
        if self.threads < 2 {
            return (self.region_tokens(), beside());
        }
        crate::threads::both(|| self.region_tokens(), beside)
    }

    /// The open obligations by what they require, built on first use.
    pub(super) fn requirements(&self) -> &Requirements<'a> {
        self.requirements
            .get_or_init(|| Requirements::new(self.session, self.state, self.cwd))
    }

    /// The region's words and its distinct tokens, in order of first appearance.
    pub(super) fn region_tokens(&self) -> (u64, Vec<RegionToken>) {
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
        // Calls that used each value known only by its role: it is an identifier from
        // its second (docs/transcripts.md).
        let mut role_uses: FastMap<TokenId, u8> = FastMap::default();
        for (index, event) in session.context_events_in(self.region.clone()) {
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
                if learnt_from_use(session.tokens.class(token)) && !declared.contains(&token) {
                    let uses = role_uses.entry(token).or_default();
                    *uses = uses.saturating_add(1);
                    if *uses < 2 {
                        continue;
                    }
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
    /// of docs/signals.md; a transcript's undeclared tokens in any form docs/transcripts.md lists.
    pub(super) fn mark_survivors(
        &self,
        (summary, summary_declared, runs): (&Summary, &[TokenId], &SummaryRuns),
        tokens: &mut [RegionToken],
    ) {
        let session = self.session;
        let cwd = self.cwd;
        let ledger_keys: HashSet<Cow<str>> = self
            .ledger_tokens()
            .map(|(t, _)| text_key(t, crate::analysis::extract::classify(t), cwd))
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
        // The whole-word check (docs/signals.md) for every token that takes it, in one pass over the summary.
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

    /// Carried over: put back by the runtime after the boundary (docs/transcripts.md). The runtime
    /// states the session's folder in every context, so the cwd and the folders above
    /// it are never lost.
    pub(super) fn mark_carried(&self, extra: &CompactionExtra, tokens: &mut [RegionToken]) {
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
    pub(super) fn density(&self, summary: Option<&Summary>, out: &mut CompactionAnalysis) {
        let id = self.id;
        let Some(summary) = summary else {
            let message = match out.extra.retained.as_ref().map(|r| r.messages) {
                None => format!("{id}'s summary cannot be read (encrypted by the runtime, or missing from the log): what it dropped cannot be checked"),
                Some(kept) => format!("{id}'s summary is encrypted by the runtime and cannot be read: what the region dropped is checked against the {} it kept beside the summary, which may still hold more", messages(kept)),
            };
            Arc::make_mut(&mut out.findings).push(Finding::new(
                FindingKind::OpaqueSummary,
                Severity::Warning,
                Some(id),
                message,
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
            // On a transcript nothing declares what was needed: the figures are worth
            // reading, no claim of loss (a note; `--strict` still makes it an error).
            let severity = match self.session.format {
                crate::model::Format::Canonical => Severity::Warning,
                _ => Severity::Note,
            };
            Arc::make_mut(&mut out.findings).push(Finding::new(
                FindingKind::DensityCollapse {
                    opaque_ratio: opaque,
                    prose_ratio: prose,
                },
                severity,
                Some(id),
                format!(
                    "{id} kept {kept} of {total} opaque tokens ({opaque:.2}) but {prose:.2} of the words: identifiers were dropped more than twice as fast as the text shrank"
                ),
            ));
        }
    }

    /// The first open obligation that requires `token`.
    pub(super) fn first_requiring(&self, token: TokenId) -> Option<&'a ObligationState> {
        self.requirements()
            .of(self.session, token, self.cwd)
            .first()
            .copied()
    }

    /// What requires `token`: open obligations, pending steps and the hooks' ledger.
    /// What requires each dropped token of `tokens`, for those something requires.
    pub(super) fn needs_of_dropped(&self, tokens: &[RegionToken]) -> FastMap<TokenId, Vec<String>> {
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

    pub(super) fn required_by(&self, token: TokenId) -> Vec<String> {
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
    pub(super) fn later_uses_of(&self, lost: &Lost, after: usize, until: usize) -> Vec<LaterUse> {
        let dropped_keys: FastMap<Cow<str>, TokenId> =
            lost.ids().iter().map(|&id| (self.key(id), id)).collect();
        later_uses(self.session, after, until, &dropped_keys)
    }

    /// The dropped tokens something needs, and the findings they raise.
    pub(super) fn report_dropped(
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
        let reuse_of = |id: TokenId| use_of.get(&id).map(|u| u.reuse());
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
                // Only a re-derived use was found again.
                rederived_cost: used.and_then(|u| {
                    u.found_again
                        .map(|from| cost_between(session, from, u.event))
                }),
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
            } else if let Some(used) = used.filter(|_| {
                token.declared.is_none()
                    && token.fate.recalled()
                    && !is_bare_file_name(session, token.id)
            }) {
                let retained = out.extra.retained.as_ref().map(|r| r.messages);
                Arc::make_mut(&mut out.findings)
                    .push(recalled_finding(session, self.id, token.id, used, retained));
            }
        }
    }

    /// The harm itself: a failed call on a look-alike of a dropped token (any format).
    pub(super) fn report_regenerated(&self, found: &[Regenerated], out: &mut CompactionAnalysis) {
        let session = self.session;
        let id = self.id;
        for found in found {
            let d = session.tokens.text(found.token);
            let t = session.tokens.text(found.regenerated);
            let step = call_name(session, found.event());
            let failed_steps: Vec<String> = found
                .failed
                .iter()
                .map(|&i| call_name(session, i))
                .collect();
            let steps = match failed_steps.len() {
                0 | 1 => step.clone(),
                n => format!("{step} and {} more", n - 1),
            };
            let outcome = found.outcome.map(|i| format!("seq {}", session.seq_at(i)));
            let came_back = outcome
                .as_ref()
                .map(|at| format!(" (it ran in the background; the failure came back at {at})"))
                .unwrap_or_default();
            let recovered = found.recovered.map(|i| call_name(session, i));
            let cost = found
                .recovered
                .map(|to| cost_between(session, found.event(), to));
            let message = match (&recovered, cost) {
                (Some(recovery), Some(cost)) => format!(
                    "after {id} dropped {d}, {steps} failed on {t} in its place{came_back}; the agent recovered only at {recovery}, which used {d} again: {}",
                    cost.phrase()
                ),
                _ => format!("after {id} dropped {d}, {steps} failed on {t}{came_back}, a look-alike never seen before: the agent most likely made the value up"),
            };
            // An encrypted summary may hold the value: a failure on another is worth
            // reading, and no claim that the compaction lost it.
            let encrypted = out.extra.retained.is_some();
            let (severity, message) = if encrypted {
                (
                    Severity::Note,
                    format!("{message} (the summary is encrypted and may hold {d})"),
                )
            } else {
                (Severity::Error, message)
            };
            Arc::make_mut(&mut out.findings).push(Finding::new(
                FindingKind::RegeneratedBinding {
                    token: d.to_owned(),
                    regenerated: t.to_owned(),
                    step: step.clone(),
                    failed_steps: if failed_steps.len() > 1 {
                        failed_steps
                    } else {
                        Vec::new()
                    },
                    outcome,
                    recovered,
                    cost,
                },
                severity,
                Some(id),
                message,
            ));
        }
    }

    /// An open obligation that requires a token no binding declares. Transcripts
    /// declare nothing: their todos' tokens are candidates, not unknowns.
    pub(super) fn report_unknown_bindings(&self, out: &mut CompactionAnalysis) {
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

/// What the events from `from` up to `to` cost: their tool calls, and the tokens of
/// the model requests among them.
fn cost_between(session: &Session, from: usize, to: usize) -> Cost {
    let mut cost = Cost::default();
    for (index, event) in session.events_in(from..to).enumerate() {
        if matches!(event.kind, EventKind::ToolCall { .. }) {
            cost.steps += 1;
        }
        if let Some(usage) = session.message_usage_at(from + index) {
            cost.tokens += usage.input + usage.output + usage.cache_read + usage.cache_creation;
        }
    }
    cost
}

/// A file of the cwd named without a folder (`package.json`): found again by listing the
/// folder or known by convention, so its use after a summary dropped it is no sign of a
/// value recalled from elsewhere (a wrong one still fails, and `regenerated_binding`
/// names that).
fn is_bare_file_name(session: &Session, token: TokenId) -> bool {
    let info = session.tokens.get(token);
    info.class == TokenClass::Path && !info.text.contains('/')
}
