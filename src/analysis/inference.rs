//! Where a transcript declares no bindings (spec §7), later use tells which dropped
//! tokens were needed: a tool call after the compaction that uses a token the summary
//! dropped, before any tool result brought it back, had to take it from somewhere else.

use crate::model::{EventKind, Session, TokenId};
use std::collections::{HashMap, HashSet};

/// The first tool call that used a dropped token without reading it back first.
#[derive(Debug, Clone, PartialEq)]
pub struct LaterUse {
    pub token: TokenId,
    /// Index of the tool call event.
    pub event: usize,
    pub name: String,
    pub call_id: Option<String>,
}

/// Scans events `from..until` (after the compaction, up to the next one). `dropped`
/// maps the comparison key of each dropped token to its id; `key` gives any token's key.
pub fn later_uses(
    session: &Session,
    from: usize,
    until: usize,
    dropped: &HashMap<String, TokenId>,
    key: impl Fn(TokenId) -> String,
) -> Vec<LaterUse> {
    let mut read_back: HashSet<String> = HashSet::new();
    let mut used: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    let end = until.min(session.events.len());
    for index in from.min(end)..end {
        match &session.events[index].kind {
            EventKind::ToolResult { text, .. } => {
                read_back.extend(text.tokens.iter().map(|&t| key(t)));
            }
            EventKind::ToolCall {
                name,
                call_id,
                input,
            } => {
                for &token in &input.tokens {
                    if is_well_known(session.tokens.text(token)) {
                        continue;
                    }
                    let k = key(token);
                    if let Some(&original) = dropped.get(&k) {
                        if !read_back.contains(&k) && used.insert(k) {
                            out.push(LaterUse {
                                token: original,
                                event: index,
                                name: name.clone(),
                                call_id: call_id.clone(),
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Paths every machine has: using them again needs no memory of the region.
fn is_well_known(token: &str) -> bool {
    token.starts_with("/dev/")
        || token.starts_with("/proc/")
        || matches!(token, "/tmp" | "/usr/bin/env" | "/bin/sh" | "/bin/bash")
}
