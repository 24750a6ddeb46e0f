//! Deferred outcomes: a command started in the background answers "running", and its
//! outcome comes later, when the agent reads its output (Claude Code's background
//! `Bash` and its `BashOutput`/`TaskOutput`, or a `cat`/`tail`/`Read` of the output
//! file; Codex's exec sessions polled with `write_stdin`). What that read shows is the
//! outcome of the call that started the command (docs/transcripts.md).

use crate::model::{Intern, TokenClass, TokenId};
use serde_json::Value;
use std::sync::OnceLock;

/// The id a tool's answer gives a command it left running in the background:
/// Claude Code's `Command running in background with ID: b404a92.` and Codex's
/// `Process running with session ID 4964`.
pub(crate) fn started_in_background(text: &str) -> Option<&str> {
    const MARKERS: [&str; 2] = [
        "Command running in background with ID: ",
        "Process running with session ID ",
    ];
    MARKERS.iter().find_map(|marker| {
        let at = text.find(marker)? + marker.len();
        let rest = text.get(at..)?;
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        Some(&rest[..end]).filter(|id| !id.is_empty())
    })
}

/// Input fields that name a background command by its id.
const ID_FIELDS: &[&str] = &["bash_id", "task_id", "shell_id", "session_id", "shellId"];

/// The background commands a call reads the output of: the ids its input names, and
/// the ids of the output files (`…/tasks/b404a92.output`) it reads.
pub(crate) fn polls(input: &Value, table: &mut impl Intern) -> Box<[TokenId]> {
    let Value::Object(fields) = input else {
        return Box::default();
    };
    let mut ids: Vec<String> = Vec::new();
    for (key, value) in fields {
        match value {
            Value::String(text) if ID_FIELDS.contains(&key.as_str()) => ids.push(text.clone()),
            Value::Number(n) if ID_FIELDS.contains(&key.as_str()) => ids.push(n.to_string()),
            Value::String(text) => ids.extend(output_files(text).map(str::to_owned)),
            _ => {}
        }
    }
    ids.sort();
    ids.dedup();
    ids.iter()
        .filter(|id| !id.is_empty())
        .map(|id| table.intern(id, TokenClass::ResourceId))
        .collect()
}

/// The ids of the `ID.output` files a text names.
fn output_files(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '&' | '|'))
        .filter_map(|word| word.strip_suffix(".output"))
        .map(|stem| stem.rsplit('/').next().unwrap_or(stem))
}

/// What a command's output says when the command failed, in words: the read of a
/// background command's output exits 0 whatever the command did.
const FAILURE_WORDS: &str = r"(?mi)connection (?:timed out|refused|closed)|could not resolve hostname|no route to host|permission denied \(publickey|host key verification failed|no such (?:container|file or directory|host)|does not exist|\bnot found\b|^Traceback \(most recent call last\)|^(?:error|fatal):|<status>failed</status>|<exit_code>[1-9]|exited with code [1-9]|exit status [1-9]";

/// Whether a tool's output reports a failure in words.
pub(crate) fn reports_failure(text: &str) -> bool {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    // A built-in pattern: it compiles, or every test fails.
    #[allow(clippy::expect_used)]
    RE.get_or_init(|| regex::Regex::new(FAILURE_WORDS).expect("built-in pattern compiles"))
        .is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TokenTable;

    #[test]
    fn the_id_of_a_command_left_running() {
        assert_eq!(
            started_in_background("Command running in background with ID: b404a92. Output is being written to: /tmp/claude-1000/x/tasks/b404a92.output"),
            Some("b404a92")
        );
        assert_eq!(
            started_in_background("Process running with session ID 4964\nOriginal token count: 0"),
            Some("4964")
        );
        assert_eq!(started_in_background("Exit code 1"), None);
    }

    #[test]
    fn a_poll_names_the_commands_it_reads() {
        let mut table = TokenTable::default();
        let mut texts = |input: Value| -> Vec<String> {
            polls(&input, &mut table)
                .iter()
                .map(|&id| table.text(id).to_owned())
                .collect()
        };
        assert_eq!(
            texts(
                serde_json::json!({"command": "sleep 5 && tail -20 /tmp/claude-1000/p/tasks/b404a92.output && tail REDACTED.output"})
            ),
            ["REDACTED", "b404a92"]
        );
        assert_eq!(texts(serde_json::json!({"bash_id": "bash_1"})), ["bash_1"]);
        assert_eq!(
            texts(serde_json::json!({"session_id": 4964, "chars": ""})),
            ["4964"]
        );
        assert!(texts(serde_json::json!({"command": "cargo test"})).is_empty());
    }

    #[test]
    fn failures_told_in_words() {
        for text in [
            "[stderr] ssh: connect to host simplemap.safecast.org port 22: Connection timed out",
            "Error response from daemon: No such container: adelie-backend",
            "psql: error: FATAL:  database \"adelie\" does not exist",
            "Traceback (most recent call last):\n  File \"x.py\"",
            "<status>failed</status>\n<exit_code>1</exit_code>",
        ] {
            assert!(reports_failure(text), "{text}");
        }
        for text in [
            "ok  \tgithub.com/x 0.2s",
            "<status>completed</status>\n<exit_code>0</exit_code>",
            "errors: 0",
        ] {
            assert!(!reports_failure(text), "{text}");
        }
    }
}
