//! The examples of the README and of the user's pages in docs/ are what the tool prints
//! today.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use std::path::Path;

fn readme() -> String {
    page("README.md")
}

/// A page of the repository, by its path.
fn page(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn the_seed_example_is_current() {
    let out = ctxlens()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["audit", "sample-sessions/seed-migration-rollback.jsonl"])
        .output()
        .unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(
        readme().contains(printed.trim_end()),
        "README's seed example differs from:\n{printed}"
    );
}

#[test]
fn the_compaction_view_capture_is_current() {
    assert_capture_is_current("README.md", "pending_compaction_wide");
    assert_capture_is_current("docs/tui.md", "pending_compaction_wide");
}

/// The same for the conversation view's capture.
#[test]
fn the_conversation_view_capture_is_current() {
    assert_capture_is_current("docs/tui.md", "conversation_view_of_a_claude_code_session");
}

/// The same for the folder list's capture.
#[test]
fn the_folder_list_capture_is_current() {
    assert_capture_is_current("docs/tui.md", "folder_view_lists_sessions");
}

/// The page `path` holds the screen of the TUI snapshot `name`, line for line.
fn assert_capture_is_current(path: &str, name: &str) {
    let snap = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/tui/snapshots/tui__tui_render__{name}.snap")),
    )
    .unwrap();
    let screen = snap
        .splitn(3, "---\n")
        .nth(2)
        .unwrap()
        .split("\n--- coloured runs ---")
        .next()
        .unwrap();
    let screen: Vec<&str> = screen
        .trim_matches('\n')
        .lines()
        .map(str::trim_end)
        .collect();
    assert!(
        page(path).contains(&screen.join("\n")),
        "{path}'s capture differs from the snapshot {name}"
    );
}

#[test]
fn the_transcript_examples_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = |path: &str| {
        let out = ctxlens()
            .current_dir(root)
            .args(["audit", path])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let codex = run("sample-sessions/codex-rollout.jsonl");
    assert!(
        page("docs/using-agents.md").contains(codex.trim_end()),
        "docs/using-agents.md's Codex example differs from:\n{codex}"
    );
    let Some(dir) = real_sessions_dir("the README's Claude Code example") else {
        return;
    };
    assert!(dir
        .join("FSM1__cipher-box__34_3a47c5f8d0_0_full.jsonl")
        .is_file());
    let real = run("../shared/real-sessions/FSM1__cipher-box__34_3a47c5f8d0_0_full.jsonl")
        .replace("../shared/real-sessions/", "");
    assert!(
        page("docs/using-agents.md").contains(real.trim_end()),
        "docs/using-agents.md's Claude Code example differs from:\n{real}"
    );
}

/// The README's key table is the TUI's key table (the hint bar and `?` read it too).
#[test]
fn the_key_table_is_current() {
    let mut table = String::from("| key | does |\n|---|---|\n");
    for binding in ctxlens::tui::keys::BINDINGS {
        let keys: Vec<String> = binding.keys.split(' ').map(|k| format!("`{k}`")).collect();
        let scope = match binding.scope {
            ctxlens::tui::keys::Scope::Pending => " (pending compaction)",
            _ => "",
        };
        table.push_str(&format!(
            "| {} | {}{scope} |\n",
            keys.join(" / "),
            binding.help
        ));
    }
    assert!(
        readme().contains(&table),
        "README's key table differs from:\n{table}"
    );
}

/// The tripwire example: `pending-compaction.jsonl` spilled, applied, smoke tests run,
/// and the agent about to roll back to a made-up revision.
#[test]
fn the_tripwire_example_is_current() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    std::fs::copy(sample("pending-compaction.jsonl"), &log).unwrap();
    assert_exit(&decide(&log, "k1", "spill", "alice"), 0);
    apply_k1_and_run_the_smoke_step(&log);
    let action = r#"{"name":"rollback","target":"7b1e9d03c2a5","step":"s3"}"#;
    let out = ctxlens()
        .current_dir(dir.path())
        .args(["check", "session.jsonl", "--action", action])
        .output()
        .unwrap();
    assert_exit(&out, 1);
    let shown = format!(
        "$ ctxlens check session.jsonl --action '{action}'\n  {}",
        String::from_utf8(out.stdout).unwrap().trim_end()
    );
    assert!(
        page("docs/remedies.md").contains(&shown),
        "docs/remedies.md's tripwire example differs from:\n{shown}"
    );
}

/// The sample table: each file's verdicts (in compaction order) and `audit` exit code.
#[test]
fn the_sample_table_is_current() {
    let readme = page("docs/samples.md");
    let rows: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| `") && l.contains(".jsonl` |"))
        .collect();
    assert!(rows.len() >= 13, "{rows:?}");
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        let file = cells[0].trim_matches('`');
        let (report, code) = audit_json(&sample(file), &[]);
        let verdicts: Vec<&str> = report["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["verdict"].as_str().unwrap())
            .collect();
        assert_eq!(cells[cells.len() - 2], verdicts.join(", "), "{file}");
        assert_eq!(cells[cells.len() - 1], code.to_string(), "{file}");
    }
}

/// Every test docs/guarantees.md names exists where it says.
#[test]
fn the_guarantees_name_real_tests() {
    let section = page("docs/guarantees.md");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut named = 0;
    for reference in section.split('`').filter(|r| r.contains(".rs::")) {
        let (file, test) = reference.split_once("::").unwrap();
        let source = std::fs::read_to_string(root.join(file)).expect(file);
        assert!(source.contains(&format!("fn {test}(")), "{reference}");
        named += 1;
    }
    assert!(named >= 15, "{named}");
}

/// The settings docs/using-agents.md shows `install --hold` writing are what it writes
/// (with the page's binary path for the real one).
#[test]
fn the_install_example_is_current() {
    let readme = page("docs/using-agents.md");
    let start = readme
        .find("which writes, with the full path")
        .expect("the install example");
    let block = &readme[start..];
    let json_start = block.find("```json\n").unwrap() + "```json\n".len();
    let json_end = json_start + block[json_start..].find("```").unwrap();
    let shown: serde_json::Value = serde_json::from_str(&block[json_start..json_end]).unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = ctxlens()
        .args(["hook", "claude-code", "install", "--hold", "--project"])
        .arg(project.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let binary = assert_cmd::cargo::cargo_bin("ctxlens")
        .display()
        .to_string();
    let written = std::fs::read_to_string(project.path().join(".claude/settings.json"))
        .unwrap()
        .replace(&binary, "/usr/local/bin/ctxlens");
    let written: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(shown, written);
}

/// The token cap the guarantees and the JSON report's docs name is the one the code has.
#[test]
fn the_token_cap_named_in_the_docs_is_the_codes() {
    let cap = ctxlens_core::model::TOKEN_CAP.to_string();
    let mut grouped = String::new();
    for (i, digit) in cap.chars().enumerate() {
        if i > 0 && (cap.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for doc in ["docs/guarantees.md", "docs/json-report.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        assert!(text.contains(&grouped), "{doc} does not name {grouped}");
    }
}

/// docs/signals.md explains the words ctxlens uses as the help overlay does.
#[test]
fn the_glossary_in_the_docs_is_the_help_overlays() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/signals.md"))
            .unwrap();
    for (word, meaning) in ctxlens::legend::GLOSSARY {
        let row = format!("- **{word}**: {meaning}");
        assert!(docs.contains(&row), "docs/signals.md lacks {row:?}");
    }
}

/// The README is a user's page: short, and pointing at nothing a user does not have.
#[test]
fn the_readme_is_a_users_page() {
    let readme = readme();
    let lines = readme.lines().count();
    assert!(lines <= 320, "README.md has {lines} lines");
    for path in [
        "README.md",
        "docs/tui.md",
        "docs/commands.md",
        "docs/guarantees.md",
        "docs/using-agents.md",
        "docs/samples.md",
    ] {
        assert!(
            !page(path).contains("../shared"),
            "{path} points to ../shared"
        );
    }
    // Every page the README links to is there.
    for link in readme.split("](").skip(1) {
        let target = link.split(')').next().unwrap().split('#').next().unwrap();
        if target.is_empty() || target.starts_with("http") {
            continue;
        }
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(target).exists(),
            "README.md links to {target}, which is not there"
        );
    }
}
