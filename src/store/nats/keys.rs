//! Names on the server. A subject token or a key-value key allows only some
//! characters, so hosts, sessions and compaction ids are encoded: letters, digits and
//! `-` stay, every other byte becomes `_` and two hex digits. The encoding is
//! reversible and never yields `.`, `*` or `>`.

use std::fmt::Write;
use std::path::Path;

/// One subject token or key part for `text`.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "_{byte:02X}");
        }
    }
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// The text `encode` made `token` from, when it is one of its outputs.
pub fn decode(token: &str) -> Option<String> {
    if token == "_" {
        return Some(String::new());
    }
    let mut bytes = Vec::with_capacity(token.len());
    let mut rest = token.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'_' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = tail.get(2..)?;
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

/// This machine's name, as the fleet knows it.
pub fn host() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// The session key of a local log: `<host>.<its fleet name>`, encoded.
pub fn session_of_log(host: &str, log: &Path) -> String {
    format!("{}.{}", encode(host), encode(&fleet_name(log)))
}

/// The name a log has in the fleet: its file name without `.jsonl` when that names the
/// session (it holds an id: Claude Code's, Codex's, Qwen Code's, OpenCode's), else
/// with the folders above it that do, joined by `/`: Copilot CLI's
/// `<session-id>/events.jsonl` is `<session-id>/events`, never plain `events`, so two
/// sessions of one host never share a subject, a spill or a decision.
pub fn fleet_name(log: &Path) -> String {
    let name = log
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name).to_owned();
    let mut parts = vec![stem];
    let mut folders = log.parent().into_iter().flat_map(Path::components).rev();
    while !parts.iter().any(|p| names_a_session(p)) && parts.len() < 4 {
        let Some(folder) = folders.next() else { break };
        match folder {
            std::path::Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            _ => break,
        }
    }
    parts.reverse();
    parts.join("/")
}

/// Whether `part` of a path names one session: it holds a run of at least eight
/// letters and digits with a digit in it (a UUID, `ses_…`), or eight digits in all (a
/// timestamp), which `events`, `chats` or `session-state` do not.
fn names_a_session(part: &str) -> bool {
    let digits = part.bytes().filter(u8::is_ascii_digit).count();
    digits >= 8
        || part
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|run| run.len() >= 8 && run.bytes().any(|b| b.is_ascii_digit()))
}

/// The subject a session's log lines are published on.
pub fn events_subject(session: &str) -> String {
    format!("ctxlens.{session}.events")
}

/// The subject a session's hook ledger is published on.
pub fn ledger_subject(session: &str) -> String {
    format!("ctxlens.{session}.ledger")
}

/// The session key in an events subject (`ctxlens.<host>.<session>.events`).
pub fn session_of_subject(subject: &str) -> Option<String> {
    let inner = subject.strip_prefix("ctxlens.")?.strip_suffix(".events")?;
    let (host, session) = inner.split_once('.')?;
    (!session.contains('.') && !host.is_empty() && !session.is_empty())
        .then(|| format!("{host}.{session}"))
}

/// The longest encoded compaction id kept as it is in a key: a server refuses a key (a
/// subject) past its control-line limit, while the file store takes any id.
const LONGEST_KEY_PART: usize = 200;

/// The key of a compaction's decision in the decisions bucket. An id too long to be a
/// key is named by its SHA-256 instead, after `_h`, which `encode` never writes (its
/// `_` is followed by an upper-case hex pair), so the two kinds never meet. The
/// decision itself names the compaction whole.
pub fn decision_key(session: &str, compaction: &str) -> String {
    let encoded = encode(compaction);
    if encoded.len() <= LONGEST_KEY_PART {
        return format!("{session}.{encoded}");
    }
    use sha2::{Digest, Sha256};
    let digest: String = Sha256::digest(compaction.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{session}._h{digest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_is_reversible_and_safe() {
        for text in ["k1", "pre-compact-3", "a.b*c>d e", "Ω/..", "", "_5F"] {
            let token = encode(text);
            assert!(token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            assert_eq!(decode(&token).as_deref(), Some(text));
        }
        assert_eq!(decode("_Z1"), None);
    }

    #[test]
    fn a_generic_file_name_is_named_with_the_folders_that_name_its_session() {
        let copilot = |id: &str| format!("/h/.copilot/session-state/{id}/events.jsonl");
        let a = fleet_name(Path::new(&copilot("3f1c2b9e-8d4a-4e0f-9a6b-1c2d3e4f5a6b")));
        let b = fleet_name(Path::new(&copilot("77aa0c1d-0000-4e0f-9a6b-1c2d3e4f5a6b")));
        assert_eq!(a, "3f1c2b9e-8d4a-4e0f-9a6b-1c2d3e4f5a6b/events");
        assert_ne!(a, b);
        assert_eq!(
            fleet_name(Path::new("/p/rollout-2026-01-02T03-04-05-4f2a.jsonl")),
            "rollout-2026-01-02T03-04-05-4f2a"
        );
        // No folder names it: the last folders still tell two apart.
        assert_eq!(fleet_name(Path::new("/a/b/c/d/e/log.jsonl")), "c/d/e/log");
        assert_eq!(fleet_name(Path::new("log.jsonl")), "log");
    }

    #[test]
    fn subjects_and_keys() {
        let session = session_of_log("build-7", Path::new("/x/4f2a0b1c.jsonl"));
        assert_eq!(session, "build-7.4f2a0b1c");
        let subject = events_subject(&session);
        assert_eq!(subject, "ctxlens.build-7.4f2a0b1c.events");
        assert_eq!(
            session_of_subject(&subject).as_deref(),
            Some("build-7.4f2a0b1c")
        );
        assert_eq!(decision_key(&session, "k.1"), "build-7.4f2a0b1c.k_2E1");
        // An id too long for a key is named by its hash, which no encoding can equal.
        let long = "k".repeat(10_000);
        let key = decision_key(&session, &long);
        assert!(key.len() < 300, "{}", key.len());
        assert_ne!(key, decision_key(&session, &"k".repeat(10_001)));
        assert!(decode(key.rsplit('.').next().unwrap()).is_none());
    }
}
