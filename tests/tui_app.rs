//! The TUI's behaviour: keys and worker updates in, state and requests out.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

mod common;
use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ctxlens::ingest::follow::Change;
use ctxlens::model::Verdict;
use ctxlens::tui::app::{Action, App, Overlay, Pane};
use ctxlens::tui::snapshot::Snapshot;
use ctxlens::tui::view;
use ctxlens::tui::worker::{Request, Update};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::sync::Arc;

fn app(name: &str) -> App {
    let snapshot = Snapshot::load(&sample(name)).unwrap();
    App::new(name.into(), Arc::new(snapshot), "tester".into())
}

fn press(app: &mut App, code: KeyCode) -> Vec<Request> {
    app.update(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn chars(app: &mut App, keys: &str) -> Vec<Request> {
    keys.chars()
        .flat_map(|c| press(app, KeyCode::Char(c)))
        .collect()
}

#[test]
fn next_compaction_wraps_and_selects_it() {
    let mut app = app("summary-of-summary.jsonl");
    chars(&mut app, "g]");
    assert_eq!(app.selected_compaction().unwrap().info.id, "k1");
    chars(&mut app, "]");
    assert_eq!(app.selected_compaction().unwrap().info.id, "k2");
    chars(&mut app, "]");
    assert_eq!(
        app.selected_compaction().unwrap().info.id,
        "k1",
        "wraps to the first"
    );
    chars(&mut app, "[");
    assert_eq!(
        app.selected_compaction().unwrap().info.id,
        "k2",
        "wraps to the last"
    );
    assert!(!app.follow, "selecting pauses follow");
}

#[test]
fn decision_keys_do_nothing_where_nothing_is_pending() {
    let mut app = app("benign-compaction.jsonl");
    assert!(chars(&mut app, "asrx").is_empty());
    assert!(app.overlay.is_none());
}

#[test]
fn the_gates_verdict_is_recorded_at_once_and_an_override_asks_first() {
    let mut app = app("pending-compaction.jsonl");
    let requests = chars(&mut app, "s");
    assert_eq!(
        requests,
        [Request::Decide {
            compaction: "k1".into(),
            verdict: Verdict::Spill,
            by: "tester".into()
        }]
    );
    assert!(chars(&mut app, "a").is_empty());
    assert!(matches!(
        app.overlay,
        Some(Overlay::Confirm {
            verdict: Verdict::Approve,
            gate: Verdict::Spill,
            ..
        })
    ));
    let requests = chars(&mut app, "y");
    assert_eq!(
        requests,
        [Request::Decide {
            compaction: "k1".into(),
            verdict: Verdict::Approve,
            by: "tester".into()
        }]
    );
    assert!(app.overlay.is_none());
}

#[test]
fn scrolling_up_pauses_follow_and_counts_what_arrives() {
    let mut app = app("pending-compaction.jsonl");
    assert!(app.follow);
    press(&mut app, KeyCode::Up);
    assert!(!app.follow);
    let grown = Snapshot::load(&sample("seed-migration-rollback.jsonl")).unwrap();
    app.update(Action::Worker(Update::Snapshot(
        Arc::new(grown),
        Change::Grew,
    )));
    assert_eq!(app.unseen, 10);
    assert_eq!(
        app.cursor, 11,
        "the cursor stays where the operator left it"
    );
    chars(&mut app, "G");
    assert!(app.follow);
    assert_eq!(app.cursor, 22);
}

#[test]
fn a_log_read_again_as_empty_draws_without_panicking() {
    let mut app = app("pending-compaction.jsonl");
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.overlay, Some(Overlay::Detail { .. })));
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let snapshot = Snapshot::load(&empty).unwrap();
    app.update(Action::Worker(Update::Snapshot(
        Arc::new(snapshot),
        Change::Truncated,
    )));
    assert!(app.overlay.is_none());
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| view::draw(&app, f)).unwrap();
    chars(&mut app, "jk]eE");
    term.draw(|f| view::draw(&app, f)).unwrap();
}

#[test]
fn search_asks_the_worker_and_jumps_to_the_match() {
    let mut app = app("seed-migration-rollback.jsonl");
    chars(&mut app, "/");
    let requests = chars(&mut app, "7b1e");
    assert!(requests.is_empty());
    let requests = press(&mut app, KeyCode::Enter);
    assert_eq!(
        requests,
        [Request::Search {
            query: "7b1e".into(),
            from: 22,
            forward: true
        }]
    );
    app.update(Action::Worker(Update::Found {
        query: "7b1e".into(),
        event: Some(18),
    }));
    assert_eq!(app.cursor_event(), Some(18));
    let again = chars(&mut app, "n");
    assert_eq!(
        again,
        [Request::Search {
            query: "7b1e".into(),
            from: 18,
            forward: true
        }]
    );
}

#[test]
fn alerts_walk_forward_and_back_and_jump_to_their_event() {
    let mut app = app("seed-migration-rollback.jsonl");
    chars(&mut app, "e");
    assert_eq!(app.alert_cursor, Some(0));
    assert_eq!(app.lower, Pane::Alerts);
    chars(&mut app, "E");
    assert_eq!(app.alert_cursor, Some(3), "wraps to the last");
    chars(&mut app, "E");
    assert_eq!(app.alert_cursor, Some(2));
    // The divergence points at the diverging action (seq 22).
    assert_eq!(app.cursor_event(), Some(21));
}

#[test]
fn worker_search_finds_text_in_lines() {
    use ctxlens::tui::worker::search;
    let path = sample("seed-migration-rollback.jsonl");
    let snapshot = Snapshot::load(&path).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    assert_eq!(search(&file, &snapshot, "7B1E9D", 0, true), Some(18));
    assert_eq!(search(&file, &snapshot, "7b1e9d", 18, true), Some(19));
    assert_eq!(
        search(&file, &snapshot, "7b1e9d", 18, false),
        Some(21),
        "backwards wraps"
    );
    assert_eq!(search(&file, &snapshot, "no such text", 0, true), None);
}

#[test]
fn the_readme_documents_every_key() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    for binding in ctxlens::tui::keys::BINDINGS {
        let keys: Vec<String> = binding.keys.split(' ').map(|k| format!("`{k}`")).collect();
        let row = format!("| {} | {}", keys.join(" / "), binding.help);
        assert!(readme.contains(&row), "README has no row {row:?}");
    }
}

#[test]
fn the_cache_of_shown_texts_keeps_to_its_budget_while_scrolling() {
    // 600 events whose texts are 64 KiB each: the whole log's texts would be 75 MiB.
    let lines: String = (1..=600)
        .map(|seq| {
            format!(
                "{{\"type\":\"message\",\"seq\":{seq},\"role\":\"user\",\"text\":\"m{seq}\"}}\n"
            )
        })
        .collect();
    let session = ctxlens::ingest::parse(lines.as_bytes()).unwrap();
    let mut app = App::new(
        "big".into(),
        Arc::new(Snapshot::build(session, &[])),
        "tester".into(),
    );
    let big = "x".repeat(32 * 1024);
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    chars(&mut app, "g");
    let mut most = 0;
    for _ in 0..600 {
        term.draw(|f| view::draw(&app, f)).unwrap();
        let wanted = app.wanted_texts();
        let texts = wanted
            .iter()
            .map(|t| {
                let text = ctxlens::ingest::display::EventText {
                    gist: format!("event {}", t.index),
                    text: big.clone(),
                    raw: big.clone(),
                };
                (t.index, text)
            })
            .collect();
        app.update(Action::Worker(Update::Texts(texts)));
        let bytes: usize = app.texts.values().map(|t| t.size()).sum();
        most = most.max(bytes);
        press(&mut app, KeyCode::Down);
    }
    assert!(
        app.texts.len() < 600,
        "every text is still held: {} texts, {most} bytes at most",
        app.texts.len()
    );
    // The budget (4 MiB) plus what one look at the view may add before it is trimmed.
    assert!(most < 6 << 20, "the cache reached {most} bytes");
}
