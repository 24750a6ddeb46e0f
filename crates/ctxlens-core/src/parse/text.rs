//! Reducing texts to digests: word counts and interned opaque tokens.

use crate::analysis::extract as tokens;
use crate::model::{Intern, TextDigest, TokenClass, TokenId};
use serde_json::Value;

/// Digest of several texts that count as one, with their precomputed word count.
pub fn digest(texts: &[&str], words: u64, table: &mut impl Intern) -> TextDigest {
    let mut ids = Vec::new();
    for text in texts {
        let found = tokens::extract(text);
        ids.reserve(found.len());
        for found in found {
            ids.push(table.intern(found.text(text), found.class));
        }
    }
    TextDigest::from_ids(words, ids)
}

/// Every string in a JSON value (object keys excluded), depth first.
pub(crate) fn json_text_leaves<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| json_text_leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| json_text_leaves(v, out)),
        _ => {}
    }
}

/// Input fields whose text is not an argument the tool acts on: content it writes (a
/// regenerated identifier there is a typo in a file, not a failed lookup), or a line
/// about the call for the user (Claude Code's `description`).
const CONTENT_FIELDS: &[&str] = &[
    "description",
    "content",
    "new_string",
    "old_string",
    "new_source",
    "edits",
    "todos",
    "plan",
    "patch",
    "input",
];

/// Input fields that name a file or folder the tool works on.
const PATH_FIELDS: &[&str] = &[
    "path",
    "file_path",
    "notebook_path",
    "cwd",
    "workdir",
    "dir",
    "directory",
    "target_dir",
];

/// Input fields that hold a shell command.
const COMMAND_FIELDS: &[&str] = &["command", "cmd"];

/// Commands whose arguments are files they read, run or change.
const FILE_COMMANDS: &[&str] = &[
    "cat", "head", "tail", "less", "more", "nl", "wc", "sed", "awk", "grep", "rg", "vim", "vi",
    "nano", "code", "python", "python3", "node", "bash", "sh", "zsh", "source", ".", "diff", "cp",
    "mv", "rm", "touch", "chmod", "stat", "file", "ls", "git",
];

/// Commands whose first argument that is no option is a pattern or a script, not a file.
const PATTERN_FIRST: &[&str] = &["sed", "awk", "grep", "rg"];

/// The bare file names (`sidebars.js`, `.commitlintrc.yml`) a shell command hands to a
/// command that reads, runs or changes files: a file of the cwd, named without a
/// folder. Words are split as a shell splits them; a command that does not split (an
/// open quote) names none.
fn bare_file_arguments(command: &str) -> Vec<String> {
    let Some(words) = shlex::split(command) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut program: Option<&str> = None;
    let mut pattern_pending = false;
    for word in &words {
        let (word, ends_segment) = match word.strip_suffix(';') {
            Some(stripped) => (stripped, true),
            None => (word.as_str(), false),
        };
        if matches!(word, "&&" | "||" | "|" | ";" | "") {
            program = None;
            continue;
        }
        match program {
            None if word == "sudo" || word.contains('=') => {}
            None => {
                program = Some(word);
                pattern_pending = PATTERN_FIRST.contains(&word);
            }
            Some(p) if FILE_COMMANDS.contains(&p) && !word.starts_with('-') => {
                if pattern_pending {
                    pattern_pending = false;
                } else if let Some(file) = tokens::bare_file_name(word) {
                    out.push(file.to_owned());
                }
            }
            Some(_) => {}
        }
        if ends_segment {
            program = None;
        }
    }
    out
}

/// A tool call as region text (words counted on its name plus the JSON of its input,
/// tokens taken from its string values so JSON escapes do not glue to them), plus the
/// tokens of its target arguments (commands, paths, URLs, ids: everything but the
/// content it writes). One walk over the input, each string extracted once.
pub(crate) fn tool_call_digest(
    name: &str,
    input: &Value,
    table: &mut impl Intern,
) -> (TextDigest, Box<[TokenId]>) {
    let words = tokens::word_count(name) + tokens::word_count(&input.to_string());
    let mut leaves = vec![Leaf {
        key: None,
        text: name,
        target: false,
    }];
    input_leaves(None, input, true, &mut leaves);
    let mut ids = Vec::new();
    let mut targets = Vec::new();
    for leaf in leaves {
        let found = tokens::extract(leaf.text);
        ids.extend(
            found
                .iter()
                .map(|f| table.intern(f.text(leaf.text), f.class)),
        );
        if !leaf.target {
            continue;
        }
        targets.extend(ids.iter().rev().take(found.len()).rev().copied());
        for dir in tokens::extract_directories(leaf.text) {
            targets.push(table.intern(dir.text(leaf.text), dir.class));
        }
        if leaf.key.is_some_and(|k| PATH_FIELDS.contains(&k)) {
            if let Some(path) = tokens::path_argument(leaf.text) {
                targets.push(table.intern(path, TokenClass::Path));
            }
        }
        if leaf.key.is_some_and(|k| COMMAND_FIELDS.contains(&k)) {
            for file in bare_file_arguments(leaf.text) {
                targets.push(table.intern(&file, TokenClass::Path));
            }
            push_roles(leaf.text, table, &mut targets);
        }
    }
    // A command given as an argument vector (Codex's `shell`) is one command line too
    // (its script word, `bash -lc 'ssh …'`, was read as one above).
    for field in COMMAND_FIELDS {
        if let Some(Value::Array(words)) = input.get(field) {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            if let Ok(line) = shlex::try_join(words) {
                push_roles(&line, table, &mut targets);
            }
        }
    }
    let targets = TextDigest::from_ids(0, targets).tokens;
    let all = TextDigest::from_ids(words, ids.into_iter().chain(targets.iter().copied()));
    (all, targets.into_boxed_slice())
}

/// The values `command` takes in a role (`super::roles`), interned as targets.
fn push_roles(command: &str, table: &mut impl Intern, targets: &mut Vec<TokenId>) {
    for role in super::roles::command_roles(command) {
        targets.push(table.intern(&role.text, role.class));
    }
}

/// A string of a tool input, with the key that holds it and whether it is an argument
/// the tool acts on (not content it writes).
struct Leaf<'v> {
    key: Option<&'v str>,
    text: &'v str,
    target: bool,
}

/// Every string leaf of a tool input, depth first (object keys excluded).
fn input_leaves<'v>(key: Option<&'v str>, value: &'v Value, target: bool, out: &mut Vec<Leaf<'v>>) {
    match value {
        Value::String(text) => out.push(Leaf { key, text, target }),
        Value::Array(items) => items.iter().for_each(|v| input_leaves(key, v, target, out)),
        Value::Object(map) => {
            for (k, v) in map {
                let target = target && !CONTENT_FIELDS.contains(&k.as_str());
                input_leaves(Some(k), v, target, out);
            }
        }
        _ => {}
    }
}

/// A message as an event.
pub(crate) fn message(role: &str, text: &str, table: &mut impl Intern) -> crate::model::EventKind {
    crate::model::EventKind::Message {
        role: crate::model::Role::new(role),
        text: digest(&[text], tokens::word_count(text), table),
    }
}

/// A tool call as an event: the digest of its name and input, and the paths it names.
pub(crate) fn tool_call(
    call_id: Option<Box<str>>,
    name: &str,
    input: &Value,
    table: &mut impl Intern,
) -> crate::model::EventKind {
    let (digest, targets) = tool_call_digest(name, input, table);
    let polls = super::deferred::polls(input, table);
    crate::model::EventKind::ToolCall {
        head: Box::new(crate::model::ToolCallHead {
            call_id,
            name: name.into(),
            polls,
        }),
        input: digest,
        targets,
    }
}

/// A tool result as an event: its digest and whether its output says the call failed.
pub(crate) fn tool_result(
    call_id: Option<Box<str>>,
    is_error: bool,
    text: &str,
    table: &mut impl Intern,
) -> crate::model::EventKind {
    let (says_failed, says_not_found) = what_output_says(text);
    // The text first: an id it holds keeps the class its shape gives it.
    let digest = digest(&[text], tokens::word_count(text), table);
    crate::model::EventKind::ToolResult {
        call_id,
        is_error,
        says_failed,
        says_not_found,
        reports_failure: super::deferred::reports_failure(text),
        background: super::deferred::started_in_background(text)
            .map(|id| table.intern(id, TokenClass::ResourceId)),
        text: digest,
    }
}

/// The failure pattern: a non-zero exit the way the agents write it (Claude Code's
/// `Exit code 1` first line, Codex's `Process exited with code 1` or an `exit_code`
/// field); a line of the output that happens to say "exit code" is not one.
const FAILURE: &str =
    r#"(?m)^(?:Exit code:? ?[1-9][0-9]*\s*$|Process exited with code [1-9])|"exit_code":\s*[1-9]"#;

/// The not-found pattern: a lookup found nothing ("not found", "no such file", "does
/// not exist"); it counts as a failure only where it names a token of the call.
const NOT_FOUND: &str = r"(?i)\bnot found\b|no such file|does not exist|doesn't exist";

/// Whether a tool's output says it failed (`FAILURE`) and whether it says a lookup
/// found nothing (`NOT_FOUND`), in one search. No match of one pattern can start inside
/// a match of the other, so the leftmost matches, each told by the group it matched,
/// find both.
pub(crate) fn what_output_says(text: &str) -> (bool, bool) {
    use std::sync::OnceLock;
    static EITHER: OnceLock<regex::Regex> = OnceLock::new();
    // Built-in patterns: they compile, or every test fails.
    #[allow(clippy::expect_used)]
    let re = EITHER.get_or_init(|| {
        regex::Regex::new(&format!("(?P<failed>{FAILURE})|(?P<not_found>{NOT_FOUND})"))
            .expect("built-in output patterns compile")
    });
    let (mut failed, mut not_found) = (false, false);
    for found in re.captures_iter(text) {
        failed |= found.name("failed").is_some();
        not_found |= found.name("not_found").is_some();
        if failed && not_found {
            break;
        }
    }
    (failed, not_found)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_calls_description_is_no_argument_it_acts_on() {
        let mut table = crate::model::TokenTable::default();
        let input = serde_json::json!({
            "command": "gh pr ready 71",
            "description": "Mark draft PR #70 ready, after revision 4f9a2c81d0e7"
        });
        let (all, targets) = tool_call_digest("Bash", &input, &mut table);
        let texts = |ids: &[TokenId]| -> Vec<String> {
            ids.iter().map(|&id| table.text(id).to_owned()).collect()
        };
        assert!(texts(&targets).is_empty(), "{:?}", texts(&targets));
        assert!(
            texts(&all.tokens).contains(&"4f9a2c81d0e7".to_owned()),
            "still region text"
        );
    }

    #[test]
    fn bare_file_names_a_command_reads_or_runs() {
        for (command, files) in [
            ("sed -n '1,200p' sidebars.js", vec!["sidebars.js"]),
            (
                "cat .commitlintrc.yml && wc -l notes.md",
                vec![".commitlintrc.yml", "notes.md"],
            ),
            ("rg \"from entirecontext.cli\" main.py", vec!["main.py"]),
            ("grep -n main.rs build.log", vec!["build.log"]),
            (
                "sudo python3 manage.py migrate; echo done.txt",
                vec!["manage.py"],
            ),
            ("git diff HEAD -- LESSONS.md | head -30", vec!["LESSONS.md"]),
            ("echo README.md > out", vec![]),
            ("git log main...HEAD", vec![]),
            ("cat 'unclosed.md", vec![]),
        ] {
            assert_eq!(bare_file_arguments(command), files, "{command}");
        }
    }

    #[test]
    fn a_bare_file_name_a_tool_reads_is_a_path_it_acts_on() {
        let mut table = crate::model::TokenTable::default();
        let input = serde_json::json!({"file_path": "overview.md", "pattern": "notes.txt"});
        let (_, targets) = tool_call_digest("Read", &input, &mut table);
        let found: Vec<(String, TokenClass)> = targets
            .iter()
            .map(|&id| (table.text(id).to_owned(), table.class(id)))
            .collect();
        // Only a path field's value: a bare name elsewhere may be any word with a dot.
        assert_eq!(found, vec![("overview.md".to_owned(), TokenClass::Path)]);
    }

    /// Each pattern asked on its own, as the one search must answer.
    fn asked_apart(text: &str) -> (bool, bool) {
        let failure = regex::Regex::new(FAILURE).unwrap();
        let not_found = regex::Regex::new(NOT_FOUND).unwrap();
        (failure.is_match(text), not_found.is_match(text))
    }

    const PIECES: [&str; 16] = [
        "Exit code 1",
        "Exit code: 0",
        "Process exited with code 2",
        "\"exit_code\": 3",
        "\"exit_code\":0",
        "Not Found",
        "not found",
        "notfound",
        "No such file",
        "does not exist",
        "DOESN'T EXIST",
        "\n",
        " ",
        "x",
        "Exit",
        "error: ",
    ];

    #[test]
    fn outputs_say_what_each_pattern_finds() {
        for text in [
            "",
            "Exit code 1\nls: a: No such file or directory",
            "ok\nExit code 1",
            "Exit code 1 and more",
            "Process exited with code 1\nerror: snapshot snap-1 not found",
            "{\"exit_code\": 2, \"stderr\": \"does not exist\"}",
            "notfound everywhere",
        ] {
            assert_eq!(what_output_says(text), asked_apart(text), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn outputs_of_any_pieces_say_what_each_pattern_finds(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..10)
        ) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            prop_assert_eq!(what_output_says(&text), asked_apart(&text));
        }
    }
}
