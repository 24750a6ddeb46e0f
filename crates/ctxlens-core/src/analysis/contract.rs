//! The contract (docs/remedies.md): the identifiers a summary must keep verbatim, and why. Given
//! to a summarizer up front, it prevents the loss by construction; attached to a
//! `preserve` decision, it is the block the re-proposed summary ends with.

use super::compaction::{same_token, CompactionAnalysis};
use super::extract::{classify, contains_whole_word};
use super::signals::regenerated::first_seen;
use super::state::{target_text, StateAt};
use crate::model::{Session, TokenClass};
use serde::Serialize;

/// A token the contract keeps, and why (docs/remedies.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractEntry {
    /// The token.
    pub token: String,
    /// `null` when no binding declares the token.
    pub regenerable: Option<bool>,
    /// The binding's note.
    pub note: Option<String>,
    /// Obligation and step ids.
    pub required_by: Vec<String>,
    /// The binding's note, else the obligation's name (the text form's WHY).
    #[serde(skip)]
    pub why: String,
    /// Index of the first event holding the token (the contract's order).
    #[serde(skip)]
    first: usize,
}

/// The tokens a summary must keep verbatim at a point of the log (docs/remedies.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contract {
    /// Seq of the event the contract is taken at.
    pub at: u64,
    /// The tokens, in order of first occurrence.
    pub bindings: Vec<ContractEntry>,
}

impl Contract {
    /// The contract holds no token.
    pub fn is_empty(&self) -> bool {
        self.bindings.is_empty()
    }

    /// The text form: what a summarizer's prompt carries and a summary ends with.
    pub fn text(&self) -> String {
        let mut out = String::from("Keep these identifiers verbatim:\n");
        for entry in &self.bindings {
            out.push_str(&format!(
                "- {}: {} (needed by {})\n",
                entry.token,
                entry.why,
                entry.required_by.join(", ")
            ));
        }
        out
    }
}

/// Collects entries by token, keeping the first requirement's reason.
struct Builder<'a> {
    session: &'a Session,
    state: &'a StateAt,
    first: super::signals::regenerated::FirstSeen,
    entries: Vec<ContractEntry>,
}

impl<'a> Builder<'a> {
    fn new(session: &'a Session, state: &'a StateAt) -> Builder<'a> {
        Builder {
            session,
            state,
            first: first_seen(session),
            entries: Vec::new(),
        }
    }

    /// Notes that `needed_by` requires `token`; `fallback` is the WHY when no binding
    /// note says it.
    fn require(&mut self, token: &str, needed_by: &str, fallback: Option<&str>) {
        let cwd = self.session.cwd.as_deref();
        let binding = self
            .state
            .bindings
            .iter()
            .find(|b| same_token(self.session, token, b.token, cwd));
        let token = binding.map_or(token, |b| self.session.tokens.text(b.token));
        if let Some(entry) = self.entries.iter_mut().find(|e| e.token == token) {
            if !entry.required_by.iter().any(|r| r == needed_by) {
                entry.required_by.push(needed_by.to_owned());
            }
            return;
        }
        let note = binding.and_then(|b| b.note.clone());
        let first = self
            .session
            .tokens
            .find(token)
            .and_then(|id| self.first.get(id))
            .unwrap_or(usize::MAX);
        self.entries.push(ContractEntry {
            token: token.to_owned(),
            regenerable: binding.map(|b| b.regenerable),
            why: note
                .clone()
                .or_else(|| fallback.map(str::to_owned))
                .unwrap_or_default(),
            note,
            required_by: vec![needed_by.to_owned()],
            first,
        });
    }

    /// Every token an open obligation requires, then every declared token a pending
    /// step's target carries; `keep` says which of them the contract is about.
    fn at_stake(&mut self, keep: impl Fn(&str) -> bool) {
        let state = self.state;
        for obligation in state.open_obligations() {
            for token in obligation.requires.iter().filter(|t| keep(t)) {
                let name = obligation.name.as_deref().unwrap_or(&obligation.id);
                self.require(token, &obligation.id, Some(name));
            }
        }
        for step in &state.pending {
            let target = target_text(&step.target);
            for binding in &state.bindings {
                let info = self.session.tokens.get(binding.token);
                if keep(info.text) && contains_whole_word(&target, info.text, info.class) {
                    // A step names what it does: its action is the WHY without a note.
                    self.require(info.text, &step.id, Some(&step.action));
                }
            }
        }
    }

    fn finish(mut self, at: u64) -> Contract {
        // Stable: tokens never seen in the log keep the order they were required in.
        self.entries.sort_by_key(|e| e.first);
        Contract {
            at,
            bindings: self.entries,
        }
    }
}

/// The contract at the newest event: every token an open obligation requires, and every
/// declared token a pending plan step's target carries.
pub fn at_end(session: &Session) -> Contract {
    let state = StateAt::of(&session.events);
    let mut builder = Builder::new(session, &state);
    builder.at_stake(|_| true);
    let at = session.events.last().map_or(0, |e| e.seq);
    builder.finish(at)
}

/// The contract of one compaction: the bindings at stake that its summary dropped, and
/// the transcript tokens it dropped that the hooks' ledger declared.
pub fn for_compaction(session: &Session, compaction: &CompactionAnalysis) -> Contract {
    let cwd = session.cwd.as_deref();
    let dropped: Vec<&str> = compaction
        .dropped
        .iter()
        .map(|d| d.token.as_str())
        .collect();
    let is_dropped = |token: &str| {
        dropped.iter().any(|d| {
            *d == token
                || (classify(d) == TokenClass::Path
                    && super::paths::path_key(d, cwd) == super::paths::path_key(token, cwd))
        })
    };
    let mut builder = Builder::new(session, &compaction.state);
    builder.at_stake(|token| {
        is_dropped(token)
            && compaction
                .state
                .bindings
                .iter()
                .any(|b| same_token(session, token, b.token, cwd))
    });
    for d in compaction.dropped.iter() {
        for why in d
            .required_by
            .iter()
            .filter_map(|r| r.strip_prefix("ledger: "))
        {
            builder.require(&d.token, "ledger", Some(why));
        }
    }
    let at = session.seq_at(compaction.info.at);
    builder.finish(at)
}
