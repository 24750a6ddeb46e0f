//! The findings a dropped token gives: declared and needed (an error), recalled from
//! outside the transcript (a warning), and how a later call that used it is named.

use super::*;

pub(super) fn dropped_binding_finding(
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
pub(super) fn step_name(session: &Session, used: &LaterUse) -> String {
    call_name(session, used.event)
}

/// A tool call event as findings name it: `NAME CALL_ID (seq N)`.
pub(super) fn call_name(session: &Session, index: usize) -> String {
    let Some(event) = session.events.get(index) else {
        return format!("event {index}");
    };
    match &event.kind {
        EventKind::ToolCall { head, .. } => match &head.call_id {
            Some(call) => format!("{} {call} (seq {})", head.name, event.seq),
            None => format!("{} (seq {})", head.name, event.seq),
        },
        _ => format!("seq {}", event.seq),
    }
}

pub(super) fn inferred_finding(
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
/// warning, since a use that worked is no evidence of loss (docs/transcripts.md).
/// `n` messages, in words.
pub(super) fn messages(n: usize) -> String {
    match n {
        1 => "1 message".to_owned(),
        n => format!("{n} messages"),
    }
}

pub(super) fn recalled_finding(
    session: &Session,
    id: &str,
    token: TokenId,
    used: &LaterUse,
    retained: Option<usize>,
) -> Finding {
    let text = session.tokens.text(token);
    let step = step_name(session, used);
    let message = match retained {
        None => format!("summary {id} dropped {text}, and {step} used it with nothing in the transcript bringing it back first: recalled from outside the transcript"),
        Some(kept) => format!("{text} is not in the {} {id} kept (its summary is encrypted and may hold it), and {step} used it with nothing in the transcript bringing it back first", messages(kept)),
    };
    Finding::new(
        FindingKind::DroppedBinding {
            token: text.to_owned(),
            obligation: None,
            step: Some(step.clone()),
            recalled: Some(true),
        },
        // A use that worked is no evidence of loss: the value came from outside the
        // transcript, or from the summary an encrypted compaction keeps.
        Severity::Note,
        Some(id),
        message,
    )
}
