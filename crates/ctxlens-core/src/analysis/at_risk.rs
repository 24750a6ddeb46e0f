//! What a Claude Code hook keeps before a compaction: the identifiers that open todos and
//! recent tool calls depend on; and after it, which of them the summary dropped.

use super::extract::{classify, contains_whole_word, extract};
use super::kept::text_key;
use super::paths::path_key;
use super::state::StateAt;
use crate::model::{Event, EventKind, Session, TokenClass, TokenId};
use std::collections::HashSet;

/// A candidate binding: the token, its class, and what depends on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The token.
    pub token: String,
    /// Its class.
    pub class: TokenClass,
    /// What depends on it, in one phrase.
    pub why: String,
}

/// What a compaction about to happen would replace: the events after the latest
/// compaction that happened (and its summary record), as a byte range of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingRegion {
    /// Index of the latest compaction that happened, if any (one a hook still holds
    /// has not happened).
    pub last_compaction: Option<usize>,
    /// The byte offset where the region starts.
    pub start: u64,
    /// The byte offset where it ends (the end of the log).
    pub end: u64,
}

impl PendingRegion {
    /// The region a compaction of `session` would replace now.
    pub fn of(session: &Session) -> PendingRegion {
        use crate::model::Bookkeeping;
        let last_compaction = session
            .events
            .iter()
            .rposition(|e| matches!(&e.kind, EventKind::Compaction(c) if c.extra.held.is_none()));
        let start = last_compaction
            .and_then(|i| {
                let summary = session
                    .events
                    .get(i + 1)
                    .filter(|e| e.kind == EventKind::Bookkeeping(Bookkeeping::CompactSummary));
                summary.or(session.events.get(i))
            })
            .map_or(0, |e| e.end());
        let end = session.events.last().map_or(0, |e| e.end()).max(start);
        PendingRegion {
            last_compaction,
            start,
            end,
        }
    }

    /// Whether it holds any byte.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// How many recent tool calls and results are looked at.
const RECENT: usize = 20;

/// Candidates from the events after event `since` (the latest compaction, if any): the
/// tokens of open todos, then those of the most recent tool calls and results.
pub fn candidates(session: &Session, since: Option<usize>) -> Vec<Candidate> {
    let cwd = session.cwd.as_deref();
    let key = |text: &str, class: TokenClass| text_key(text, class, cwd).into_owned();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut add = |token: &str, class: TokenClass, why: String| {
        if seen.insert(key(token, class)) {
            out.push(Candidate {
                token: token.to_owned(),
                class,
                why,
            });
        }
    };
    let state = StateAt::of(&session.events);
    for obligation in state.open_obligations() {
        for token in &obligation.requires {
            let name = obligation.name.as_deref().unwrap_or(&obligation.id);
            add(token, classify(token), format!("open todo: {name}"));
        }
    }
    let start = since.map_or(0, |i| i + 1);
    for (id, uses) in reused_by_role(session, start) {
        let info = session.tokens.get(id);
        add(
            info.text,
            info.class,
            format!("used as a {} by {uses} commands", info.class.as_str()),
        );
    }
    let recent: Vec<(usize, &Event)> = session
        .events_in(start..session.events.len())
        .enumerate()
        .map(|(offset, event)| (start + offset, event))
        .rev()
        .filter(|(_, e)| {
            matches!(
                e.kind,
                EventKind::ToolCall { .. } | EventKind::ToolResult { .. }
            )
        })
        .take(RECENT)
        .collect();
    for &(index, event) in recent.iter().rev() {
        let (digest, why) = match &event.kind {
            EventKind::ToolCall { head, input, .. } => (
                input,
                format!("tool call {} (seq {})", head.name, event.seq),
            ),
            EventKind::ToolResult { text, .. } => {
                (text, format!("tool result (seq {})", event.seq))
            }
            _ => continue,
        };
        for id in session.tokens_of(index, digest) {
            let info = session.tokens.get(id);
            // A short name one call used is no identifier yet (two are, above).
            if crate::parse::roles::learnt_from_use(info.class) {
                continue;
            }
            add(info.text, info.class, why.clone());
        }
    }
    out
}

/// The values known by their role (a host, a container, a database, a variable, a port,
/// a service) that two or more tool calls from event `start` on used, with how many:
/// identifiers of the session whatever their shape, however long ago they were used.
fn reused_by_role(session: &Session, start: usize) -> Vec<(TokenId, usize)> {
    let mut uses: Vec<(TokenId, usize)> = Vec::new();
    let mut at: std::collections::HashMap<TokenId, usize> = std::collections::HashMap::new();
    for event in session.events_in(start..session.events.len()) {
        let EventKind::ToolCall { targets, .. } = &event.kind else {
            continue;
        };
        for &id in targets.iter() {
            if !session.tokens.class(id).by_role() {
                continue;
            }
            let slot = *at.entry(id).or_insert_with(|| {
                uses.push((id, 0));
                uses.len() - 1
            });
            if let Some(entry) = uses.get_mut(slot) {
                entry.1 += 1;
            }
        }
    }
    uses.retain(|&(_, n)| n >= 2);
    uses
}

/// The candidates `summary` does not hold (as a whole word, or a path as the same file).
pub fn dropped_by<'c>(
    summary: &str,
    candidates: &'c [Candidate],
    cwd: Option<&str>,
) -> Vec<&'c Candidate> {
    let summary_paths: Vec<_> = extract(summary)
        .iter()
        .filter(|f| f.class == TokenClass::Path)
        .map(|f| path_key(f.text(summary), cwd))
        .collect();
    candidates
        .iter()
        .filter(|c| {
            let kept = contains_whole_word(summary, &c.token, c.class)
                || (c.class == TokenClass::Path
                    && summary_paths.contains(&path_key(&c.token, cwd)));
            !kept
        })
        .collect()
}

/// One line per identifier: it, its class, and why the work depends on it.
fn list(text: &mut String, candidates: &[&Candidate]) {
    for c in candidates {
        text.push_str(&format!(
            "- {} ({}; {})\n",
            c.token,
            c.class.as_str(),
            c.why
        ));
    }
}

/// The text a SessionStart hook adds to the context after a compaction; `read_back` is
/// the command that prints a spilled region when given its handle.
pub fn restore_context(
    dropped: &[&Candidate],
    handle: Option<&str>,
    read_back: &str,
    summary_known: bool,
) -> String {
    let mut text = String::new();
    if dropped.is_empty() {
        text.push_str(
            "ctxlens: the compaction summary kept every identifier the work depended on.\n",
        );
    } else {
        text.push_str(if summary_known {
            "ctxlens: the compaction summary dropped these identifiers that the work still depends on. Use them verbatim; do not reconstruct them:\n"
        } else {
            "ctxlens: these identifiers from before the compaction are what the work depends on. Use them verbatim; do not reconstruct them:\n"
        });
        list(&mut text, dropped);
    }
    if let Some(handle) = handle {
        text.push_str(&format!(
            "The full pre-compaction context is stored as {handle}; read it with: {read_back} {handle}\n"
        ));
    }
    text
}

/// Instructions for a summariser that is about to compact: keep these identifiers, and
/// the way to read the whole region back, verbatim. Empty when there is nothing to keep.
pub fn keep_instructions(at_risk: &[&Candidate], handle: Option<&str>, read_back: &str) -> String {
    let mut text = String::new();
    if !at_risk.is_empty() {
        text.push_str("ctxlens: the work depends on these identifiers. Copy each into the summary verbatim:\n");
        list(&mut text, at_risk);
    }
    if let Some(handle) = handle {
        text.push_str(&format!(
            "ctxlens: the full pre-compaction context is stored as {handle}. Copy this line into the summary: read it back with: {read_back} {handle}\n"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Claude Code transcript of Bash calls, each answered "ok".
    fn transcript(commands: &[&str]) -> Session {
        let mut lines = String::new();
        for (n, command) in commands.iter().enumerate() {
            let call = serde_json::json!({"type": "assistant", "uuid": format!("a{n}"), "sessionId": "s", "cwd": "/p",
                "message": {"role": "assistant", "content": [{"type": "tool_use", "id": format!("t{n}"), "name": "Bash", "input": {"command": command}}]}});
            let answer = serde_json::json!({"type": "user", "uuid": format!("u{n}"), "sessionId": "s", "cwd": "/p",
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{n}"), "content": "ok"}]}});
            lines.push_str(&format!("{call}\n{answer}\n"));
        }
        crate::parse::parse(lines.as_bytes())
    }

    /// A value two commands used in a role is at risk however long ago they ran; one
    /// use of a short name is not.
    #[test]
    fn values_reused_in_a_role_are_at_risk_however_old() {
        let mut commands = vec![
            "ssh web-7 'systemctl status app'",
            "scp dist.tar.gz root@web-7:/srv/",
            "docker logs adelie-db",
        ];
        commands.extend(std::iter::repeat_n("cargo test", RECENT + 5));
        let found = candidates(&transcript(&commands), None);
        let host = found.iter().find(|c| c.token == "web-7").expect("the host");
        assert_eq!(host.class, TokenClass::Host);
        assert_eq!(host.why, "used as a host by 2 commands");
        assert!(found.iter().all(|c| c.token != "adelie-db"), "{found:?}");
    }

    #[test]
    fn dropped_means_not_in_the_summary() {
        let candidates = vec![
            Candidate {
                token: "3f2b8c1e".into(),
                class: TokenClass::Hex,
                why: "x".into(),
            },
            Candidate {
                token: "src/a.rs".into(),
                class: TokenClass::Path,
                why: "y".into(),
            },
        ];
        let dropped = dropped_by("kept /p/src/a.rs only", &candidates, Some("/p"));
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].token, "3f2b8c1e");
        let text = restore_context(
            &dropped,
            Some("sha256:ab"),
            "ctxlens spill get t.jsonl",
            true,
        );
        assert!(
            text.contains("- 3f2b8c1e (hex; x)")
                && text.contains("ctxlens spill get t.jsonl sha256:ab")
        );
    }
}
