//! What holds at a compaction: declared bindings, open obligations, the plan in force and
//! its steps not yet acted on. Read from the events strictly before the compaction.

use crate::model::{
    entity_key, Event, EventKind, FastMap, FastSet, ObligationEvent, ObligationStatus, PlanStep,
    Polarity, TokenId,
};
use serde_json::Value;

/// A binding as declared so far.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredBinding {
    /// The token.
    pub token: TokenId,
    /// It can be fetched again.
    pub regenerable: bool,
    /// What it is.
    pub note: Option<String>,
}

/// An obligation as its events left it.
#[derive(Debug, Clone, PartialEq)]
pub struct ObligationState {
    /// Its id.
    pub id: String,
    /// What is to be done.
    pub name: Option<String>,
    /// The tokens it needs.
    pub requires: Vec<String>,
    /// Where it stands.
    pub status: ObligationStatus,
}

/// The latest `choice` for an entity.
#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceState {
    /// As the first choice wrote it.
    pub entity: String,
    /// Where the choice put it.
    pub polarity: Polarity,
    /// Index of the event that made it.
    pub event: usize,
}

/// Bindings, obligations, plan and choices at a point of the log: what the events up to
/// it declared.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateAt {
    /// In order of first declaration; a re-declaration updates the attributes.
    pub bindings: Vec<DeclaredBinding>,
    /// In order of first appearance, every status.
    pub obligations: Vec<ObligationState>,
    /// The latest plan's steps.
    pub plan: Vec<PlanStep>,
    /// Steps of `plan` that no action has claimed, in plan order.
    pub pending: Vec<PlanStep>,
    /// The latest choice of each entity, in order of first choice.
    pub choices: Vec<ChoiceState>,
}

/// Builds the state event by event, so one pass over a log yields the state at each of
/// its compactions.
#[derive(Debug, Clone, Default)]
pub(crate) struct StateBuilder {
    state: StateAt,
    claimed: FastSet<String>,
    /// Where each binding, obligation and choice (by entity key) stands in `state`: a
    /// long log declares thousands, and each event is one lookup, not a scan (hashed
    /// as the token table's texts are: the state pass reads every event of the log).
    binding_at: FastMap<TokenId, usize>,
    obligation_at: FastMap<String, usize>,
    choice_at: FastMap<String, usize>,
    /// How many events were applied: the index of the next one.
    applied: usize,
}

impl StateBuilder {
    pub(crate) fn apply(&mut self, event: &Event) {
        let state = &mut self.state;
        let index = self.applied;
        self.applied += 1;
        match &event.kind {
            EventKind::Choice {
                entity, polarity, ..
            } => {
                let key = entity_key(entity);
                let choice = self
                    .choice_at
                    .get(&key)
                    .and_then(|&at| state.choices.get_mut(at));
                match choice {
                    Some(known) => {
                        known.polarity = *polarity;
                        known.event = index;
                    }
                    None => {
                        self.choice_at.insert(key, state.choices.len());
                        state.choices.push(ChoiceState {
                            entity: entity.clone(),
                            polarity: *polarity,
                            event: index,
                        });
                    }
                }
            }
            EventKind::Binding {
                token,
                regenerable,
                note,
            } => {
                let binding = DeclaredBinding {
                    token: *token,
                    regenerable: *regenerable,
                    note: note.clone(),
                };
                let known = self
                    .binding_at
                    .get(token)
                    .and_then(|&at| state.bindings.get_mut(at));
                match known {
                    Some(known) => *known = binding,
                    None => {
                        self.binding_at.insert(*token, state.bindings.len());
                        state.bindings.push(binding);
                    }
                }
            }
            EventKind::Obligation(obligation) => {
                let ObligationEvent {
                    id,
                    name,
                    requires,
                    status,
                } = &**obligation;
                match self
                    .obligation_at
                    .get(id)
                    .and_then(|&at| state.obligations.get_mut(at))
                {
                    Some(known) => {
                        if let Some(status) = status {
                            known.status = *status;
                        }
                        if let Some(requires) = requires {
                            known.requires = requires.clone();
                        }
                        if name.is_some() {
                            known.name = name.clone();
                        }
                    }
                    None => {
                        self.obligation_at
                            .insert(id.clone(), state.obligations.len());
                        state.obligations.push(ObligationState {
                            id: id.clone(),
                            name: name.clone(),
                            requires: requires.clone().unwrap_or_default(),
                            status: status.unwrap_or(ObligationStatus::Open),
                        });
                    }
                }
            }
            EventKind::Plan { steps } => state.plan = steps.clone(),
            EventKind::Action {
                step: Some(step), ..
            } => {
                self.claimed.insert(step.clone());
            }
            _ => {}
        }
    }

    pub(crate) fn snapshot(&self) -> StateAt {
        let mut state = self.state.clone();
        state.pending = state
            .plan
            .iter()
            .filter(|s| !self.claimed.contains(&s.id))
            .cloned()
            .collect();
        state
    }
}

impl StateAt {
    /// The state after `events`.
    pub fn of<'a>(events: impl IntoIterator<Item = &'a Event>) -> StateAt {
        let mut builder = StateBuilder::default();
        events.into_iter().for_each(|e| builder.apply(e));
        builder.snapshot()
    }

    /// The obligations still open.
    pub fn open_obligations(&self) -> impl Iterator<Item = &ObligationState> {
        self.obligations
            .iter()
            .filter(|o| o.status == ObligationStatus::Open)
    }

    /// The binding that declares `token`, if any.
    pub fn binding(&self, token: TokenId) -> Option<&DeclaredBinding> {
        self.bindings.iter().find(|b| b.token == token)
    }
}

/// A plan target as text, for whole-word token search.
pub fn target_text(target: &Value) -> String {
    match target {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
