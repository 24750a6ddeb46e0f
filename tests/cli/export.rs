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
    let (markdown, code) = export(&path, &["--format", "markdown", "--full"]);
    assert_eq!(code, 0);
    // The summary's fence is longer than the backticks inside the session's texts.
    assert!(
        markdown.contains("````text\ndeployed rev 4f9a2c81d0e7 ``` | a fence and a pipe\n````"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ✖ | ` 4f9a2c81d0e7 ` | hex | dropped, can't re-fetch | seq 3 |"),
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

/// The page of a real session reads as a conversation in a real browser: tool calls and
/// thinking fold (`<details>`), each turn has its time, Claude Code's command tags and
/// terminal colour codes are gone, and the table of contents links every compaction's
/// card. Run on every shared real session.
#[test]
fn the_page_of_every_real_session_reads_as_a_conversation_in_a_browser() {
    let test = "the_page_of_every_real_session_reads_as_a_conversation_in_a_browser";
    let sessions = real_session_files(test);
    if sessions.is_empty() {
        return;
    }
    let Some(browser) = chromium() else {
        skip(test, "no chromium here (install Debian's chromium package)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for session in sessions {
        let name = session.file_name().unwrap().to_string_lossy().into_owned();
        let page = dir.path().join(format!("{name}.html"));
        let (_, code) = export(&session, &["-o", page.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}");
        let out = Command::new(browser)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&out.stdout);
        assert!(dom.contains("<nav class=\"toc\""), "{name}: no contents");
        let (json, _) = export(&session, &["--format", "json"]);
        let folds = serde_json::from_str::<Value>(&json).unwrap()["conversation"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| {
                ["tool call", "tool result", "thinking"].contains(&t["role"].as_str().unwrap())
            });
        assert!(!folds || dom.contains("<details"), "{name}: nothing folds");
        assert!(dom.contains("<time datetime=\"20"), "{name}: no times");
        for raw in [
            "<command-name>",
            "&lt;command-name&gt;",
            "&lt;local-command-caveat&gt;",
            "\\u{1b}",
            "\u{1b}",
        ] {
            assert!(!dom.contains(raw), "{name}: {raw:?} in the page");
        }
        let html = std::fs::read_to_string(&page).unwrap();
        let cards = html.matches("<section class=\"compaction\" id=\"").count();
        let report: Value = serde_json::from_slice(
            &ctxlens()
                .args(["audit", "--json"])
                .arg(&session)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let compactions = report["compactions"].as_array().unwrap().len();
        assert_eq!(cards, compactions, "{name}: a card per compaction");
        for n in 1..=compactions {
            assert!(
                dom.contains(&format!("id=\"compaction-{n}\""))
                    && dom.contains(&format!("href=\"#compaction-{n}\"")),
                "{name}: compaction {n} is not in the contents"
            );
        }
    }
}

/// The default Markdown fits a GitHub comment (under 60,000 characters) on every shared
/// real session, and says what it left out; `--full` has the conversation.
#[test]
fn the_default_markdown_fits_a_pull_request_comment() {
    let sessions = real_session_files("the_default_markdown_fits_a_pull_request_comment");
    for session in &sessions {
        let (markdown, code) = export(session, &["--format", "markdown"]);
        assert_eq!(code, 0);
        let chars = markdown.chars().count();
        assert!(chars < 60_000, "{}: {chars}", session.display());
        assert!(
            markdown.contains("is left out: `ctxlens export --format markdown --full` has it"),
            "{}",
            session.display()
        );
    }
    // A session whose compactions alone do not fit is cut, and says so.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.jsonl");
    let mut log = String::new();
    for n in 0..400 {
        let token = format!("{:012x}", 0x4f9a_2c81_d0e7_u64 + n);
        log.push_str(&format!(
            "{{\"type\":\"tool_result\",\"seq\":{},\"text\":\"rev {token} /srv/releases/r{n}/app.tar.gz\"}}\n",
            3 * n + 1
        ));
        log.push_str(&format!(
            "{{\"type\":\"binding\",\"seq\":{},\"token\":\"{token}\",\"regenerable\":false}}\n",
            3 * n + 2
        ));
        log.push_str(&format!(
            "{{\"type\":\"compaction\",\"seq\":{},\"id\":\"k{n}\",\"phase\":\"applied\",\"range\":{{\"from\":{},\"to\":{}}},\"summary\":\"deployed\"}}\n",
            3 * n + 3,
            3 * n + 1,
            3 * n + 2
        ));
    }
    std::fs::write(&path, log).unwrap();
    let (markdown, _) = export(&path, &["--format", "markdown"]);
    assert!(markdown.chars().count() < 60_000);
    assert!(markdown.contains("Cut here to fit a comment"), "{markdown}");
    assert_eq!(
        markdown.matches("<details>").count(),
        markdown.matches("</details>").count()
    );
    let (full, _) = export(&path, &["--format", "markdown", "--full"]);
    assert!(full.contains("### Compaction ` k399 `"));
    assert!(full.contains("Conversation:"));
}

/// Every format carries each turn's time; a reasoning item is thinking, not the
/// assistant speaking; a message with no words is no turn.
#[test]
fn turns_carry_their_time_and_thinking_is_thinking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    let lines = [
        r#"{"timestamp":"2026-11-02T09:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.171.0"}}"#,
        r#"{"timestamp":"2026-11-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"deploy it"}]}}"#,
        r#"{"timestamp":"2026-11-02T09:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Planning** the deploy"}],"encrypted_content":"x"}}"#,
        r#"{"timestamp":"2026-11-02T09:00:03.000Z","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"x"}}"#,
        r#"{"timestamp":"2026-11-02T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Deployed."}]}}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (json, code) = export(&path, &["--format", "json"]);
    assert_eq!(code, 0);
    let export_json: Value = serde_json::from_str(&json).unwrap();
    let turns: Vec<(&str, &str)> = export_json["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["role"] != "record")
        .map(|t| (t["role"].as_str().unwrap(), t["ts"].as_str().unwrap()))
        .collect();
    assert_eq!(
        turns,
        [
            ("user", "2026-11-02T09:00:01Z"),
            ("thinking", "2026-11-02T09:00:02Z"),
            ("assistant", "2026-11-02T09:00:04Z"),
        ]
    );
    let (html, _) = export(&path, &[]);
    assert!(html.contains("<details class=\"turn thinking\""), "{html}");
    assert!(html.contains("<time datetime=\"2026-11-02T09:00:04Z\">09:00:04</time>"));
    let (markdown, _) = export(&path, &["--format", "markdown", "--full"]);
    assert!(markdown.contains("09:00:04"), "{markdown}");
}

/// The README's picture of the export page is of the page `export` makes now:
/// `scripts/capture-export-page` wrote both the page and the picture, and a change to
/// the page fails here until they are captured again.
#[test]
fn the_readme_shows_the_page_export_makes_now() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = ctxlens()
        .current_dir(root)
        .args(["export", "sample-sessions/claude-code-ssh-host.jsonl"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let captured = std::fs::read(root.join("assets/export-page.html")).unwrap();
    assert!(
        out.stdout == captured,
        "assets/export-page.html is not what export makes now: run scripts/capture-export-page"
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("(assets/export-page.png)"));
    let png = std::fs::read(root.join("assets/export-page.png")).unwrap();
    assert_eq!(png.get(..8), Some(&b"\x89PNG\r\n\x1a\n"[..]));
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert_eq!(width, 1000, "the capture's width");
}
