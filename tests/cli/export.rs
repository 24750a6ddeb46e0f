//! `ctxlens export`: the page renders in a real headless browser, its dropped tokens are
//! in its DOM, and hostile text from the session stays text in every format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A session whose texts try to break out of the page, and whose compaction drops a
/// binding that cannot be re-fetched.
const HOSTILE: &str = r#"{"type":"session","seq":1,"cwd":"/w"}
{"type":"message","seq":2,"role":"user","text":"Roll back if smoke fails <script>document.title='pwned'</script><img src=x onerror=alert(1)>"}
{"type":"tool_result","seq":3,"call_id":"c1","text":"deployed rev 4f9a2c81d0e7 ``` | a fence and a pipe"}
{"type":"binding","seq":4,"token":"4f9a2c81d0e7","regenerable":false,"note":"rollback target"}
{"type":"compaction","seq":5,"id":"k1","phase":"applied","range":{"from":2,"to":4},"summary":"Deployed. </pre><script>document.title='pwned'</script>"}
"#;

fn hostile_log() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.jsonl");
    std::fs::write(&path, HOSTILE).unwrap();
    (dir, path)
}

fn export(path: &Path, args: &[&str]) -> (String, i32) {
    let out = ctxlens()
        .arg("export")
        .arg(path)
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// The headless browser CI installs (Debian's `chromium`), if it is here.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

#[test]
fn the_html_page_renders_in_a_browser_with_its_dropped_tokens_and_hostile_text_as_text() {
    let (dir, path) = hostile_log();
    let page = dir.path().join("session.html");
    let (_, code) = export(&path, &["-o", page.to_str().unwrap()]);
    assert_eq!(code, 0);
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing to load, nothing to run.
    for tag in [
        "<script",
        "<img",
        "<link",
        "<iframe",
        "src=\"",
        "href=\"http",
    ] {
        assert!(!html.contains(tag), "{tag} in the page");
    }
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&page).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let Some(browser) = chromium() else {
        skip(
            "the export page in a browser",
            "no chromium here (install Debian's chromium package)",
        );
        return;
    };
    let dom = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("<title>ctxlens: "),
        "the page did not render:\n{dom}"
    );
    assert!(
        dom.contains("<tr class=\"no-refetch\"><td>✖</td><td><code>4f9a2c81d0e7</code>"),
        "the dropped binding's row:\n{dom}"
    );
    // The scripts in the session are text in the DOM, not elements that ran.
    assert!(!dom.contains("<script"), "{dom}");
    assert!(!dom.contains("pwned</title>"), "{dom}");
    assert!(
        dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"),
        "{dom}"
    );
    assert!(dom.contains("&lt;img src=x onerror=alert(1)&gt;"), "{dom}");
}

#[test]
fn markdown_keeps_every_session_text_in_code() {
    let (_dir, path) = hostile_log();
    let (markdown, code) = export(&path, &["--format", "markdown"]);
    assert_eq!(code, 0);
    // The summary's fence is longer than the backticks inside the session's texts.
    assert!(
        markdown.contains("````text\ndeployed rev 4f9a2c81d0e7 ``` | a fence and a pipe\n````"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ✖ | ` 4f9a2c81d0e7 ` | hex | dropped, can't re-fetch |"),
        "{markdown}"
    );
    // Outside fences and spans, no text of the session.
    let mut outside = String::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            outside.push_str(line);
        }
    }
    assert!(!outside.contains("<script>"), "{outside}");
}

#[test]
fn json_holds_the_report_the_conversation_and_each_compactions_tokens() {
    let (_dir, path) = hostile_log();
    let (json, code) = export(&path, &["--format", "json"]);
    assert_eq!(code, 0);
    let export: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(export["report"]["compactions"][0]["id"], "k1");
    let roles: Vec<&str> = export["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["record", "user", "tool result", "record", "compaction"]
    );
    assert_eq!(export["hidden"], 0);
    let token = &export["compactions"][0]["tokens"][0];
    assert_eq!(token["token"], "4f9a2c81d0e7");
    assert_eq!(token["state"], "dropped, can't re-fetch");
}

#[test]
fn a_transcript_exports_its_tool_calls_with_their_tools() {
    let (json, code) = export(&sample("claude-code-ssh-host.jsonl"), &["--format", "json"]);
    assert_eq!(code, 0);
    let export: Value = serde_json::from_str(&json).unwrap();
    let first_result = export["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["role"] == "tool result")
        .unwrap();
    assert_eq!(first_result["tool"], "Bash");
    assert!(first_result["text"]
        .as_str()
        .unwrap()
        .contains("DEPLOY_HOST: 203.0.113.7"));
}

/// What `export` prints never carries a control sequence raw (a title set by OSC 0,
/// the clipboard written by OSC 52, the screen cleared by CSI), in any format; a file
/// written with `-o` keeps the bytes as the log had them.
#[test]
fn export_to_standard_output_neutralises_control_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("escapes.jsonl");
    let hostile = "title \u{1b}]0;owned\u{7} clip \u{1b}]52;c;aGk=\u{7} clear \u{1b}[2J bidi \u{202e} c1 \u{9b}31m";
    let lines = [
        serde_json::json!({"type": "message", "seq": 1, "role": "user", "text": hostile}),
        serde_json::json!({"type": "compaction", "seq": 2, "id": format!("k1{hostile}"),
            "phase": "applied", "range": {"from": 1, "to": 1}, "summary": hostile}),
    ];
    let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    for format in ["markdown", "html", "json"] {
        let out = ctxlens()
            .args(["export", "--format", format])
            .arg(&path)
            .output()
            .unwrap();
        assert_exit(&out, 0);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text
                .chars()
                .any(|c| ctxlens::sanitize::is_unsafe(c) && !"\n\t".contains(c)),
            "{format}: {text:?}"
        );
        assert!(text.contains("owned"), "{format}: the text is still there");
        if format == "json" {
            serde_json::from_str::<Value>(&text).unwrap();
        }
    }
    let file = dir.path().join("out.md");
    let out = ctxlens()
        .args(["export", "--format", "markdown", "-o"])
        .arg(&file)
        .arg(&path)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert!(std::fs::read_to_string(&file).unwrap().contains('\u{1b}'));
}
