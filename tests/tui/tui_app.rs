//! The TUI's behaviour: keys and worker updates in, state and requests out.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ctxlens::ingest::follow::Change;
use ctxlens::session::display::Depth;
use ctxlens::tui::app::{Action, App, Overlay, Pane};
use ctxlens::tui::snapshot::Snapshot;
use ctxlens::tui::view;
use ctxlens::tui::worker::{Request, TextRef, Update};
use ctxlens_core::model::Verdict;
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

/// What the worker answers to `wanted`: each text as deep as asked, its text and raw
/// form `body` (empty for a gist alone).
fn worker_reply(wanted: &[TextRef], body: impl Fn(&TextRef) -> String) -> Action {
    let texts = wanted
        .iter()
        .map(|t| {
            let body = if t.depth > Depth::Gist {
                body(t)
            } else {
                String::new()
            };
            let text = ctxlens::session::display::EventText {
                gist: format!("event {}", t.index),
                text: body.clone(),
                raw: body,
                depth: t.depth,
            };
            (t.index, text)
        })
        .collect();
    Action::Worker(Update::Texts(texts))
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

/// A search asks the worker once for every event that holds the query; `n` and `N`
/// then walk them without asking again, and say which of how many each is.
#[test]
fn search_asks_the_worker_once_and_counts_its_matches() {
    let mut app = app("seed-migration-rollback.jsonl");
    chars(&mut app, "/");
    let requests = chars(&mut app, "7b1e");
    assert!(requests.is_empty());
    let requests = press(&mut app, KeyCode::Enter);
    assert_eq!(
        requests,
        [Request::Search {
            query: "7b1e".into()
        }]
    );
    app.update(Action::Worker(Update::Found {
        query: "7b1e".into(),
        events: vec![18, 19, 21],
    }));
    // From the last row, forward wraps to the first match.
    assert_eq!(app.cursor_event(), Some(18));
    assert_eq!(app.message.as_deref(), Some("1/3 \"7b1e\""));
    assert_eq!(app.search_hit, Some(18));
    assert!(chars(&mut app, "n").is_empty(), "n asks nothing again");
    assert_eq!(app.cursor_event(), Some(19));
    assert_eq!(app.message.as_deref(), Some("2/3 \"7b1e\""));
    chars(&mut app, "N");
    chars(&mut app, "N");
    assert_eq!(app.cursor_event(), Some(21), "backwards wraps");
    assert_eq!(app.message.as_deref(), Some("3/3 \"7b1e\""));
}

/// An alert that names a later step goes to it: the SSH sample's regenerated binding
/// names the failed call (seq 11), not the compaction.
#[test]
fn an_alert_goes_to_the_event_it_names() {
    let mut app = app("claude-code-ssh-host.jsonl");
    let at = app
        .snapshot
        .alerts
        .iter()
        .position(|a| {
            let c = &app.snapshot.analysis.compactions[a.compaction];
            c.findings[a.finding].kind.name() == "regenerated_binding"
        })
        .unwrap();
    for _ in 0..=at {
        chars(&mut app, "e");
    }
    assert_eq!(app.alert_cursor, Some(at));
    let event = app.cursor_event().unwrap();
    assert_eq!(app.snapshot.session.events.get(event).unwrap().seq, 11);
}

/// The compaction pane says what the harm cost, from the failed step to the recovery.
#[test]
fn the_compaction_pane_gives_the_harm_cost() {
    let app = app("claude-code-ssh-host.jsonl");
    let screen = screen(&app);
    assert!(screen.contains("harm cost 2 steps, 0 tokens"), "{screen}");
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

/// The worker finds every event whose shown text holds the query, in any case, and
/// not an event whose line holds it only in its JSON (a field's name).
#[test]
fn worker_search_finds_every_event_whose_text_holds_it() {
    use ctxlens::tui::worker::search;
    let path = sample("seed-migration-rollback.jsonl");
    let snapshot = Snapshot::load(&path).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let hits = search(&file, &snapshot.session, "7B1E9D");
    assert!(hits.contains(&18) && hits.contains(&19), "{hits:?}");
    assert_eq!(hits, search(&file, &snapshot.session, "7b1e9d"));
    assert!(search(&file, &snapshot.session, "no such text").is_empty());
    // Every line says "seq" as a key; no event's text does.
    assert!(search(&file, &snapshot.session, "\"seq\"").is_empty());
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
    // 600 events whose texts are 64 KiB each, each opened in turn: the whole log's
    // texts would be 75 MiB.
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
        // Each event opened on the way: its whole text is read.
        press(&mut app, KeyCode::Enter);
        term.draw(|f| view::draw(&app, f)).unwrap();
        let wanted = app.wanted_texts();
        app.update(worker_reply(&wanted, |_| big.clone()));
        let bytes: usize = app.texts.values().map(|t| t.size()).sum();
        most = most.max(bytes);
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Down);
    }
    assert!(
        app.texts.len() < 600,
        "every text is still held: {} texts, {most} bytes at most",
        app.texts.len()
    );
    // The budget (1 MiB) plus what one look at the view may add before it is trimmed.
    assert!(most < 2 << 20, "the cache reached {most} bytes");
}

/// Texts are asked for the rows near the screen and near the cursor, never for the rows
/// between them: with no rows for the timeline (a terminal of 7 rows or fewer), its
/// offset stayed at the top while the cursor followed the end, and every event of a
/// 256 MiB log was read into the cache (628 MiB).
#[test]
fn texts_are_asked_for_near_the_screen_and_the_cursor_only() {
    let lines: String = (1..=600)
        .map(|seq| {
            format!(
                "{{\"type\":\"message\",\"seq\":{seq},\"role\":\"user\",\"text\":\"m{seq}\"}}\n"
            )
        })
        .collect();
    for rows in [0, 24] {
        let session = ctxlens::ingest::parse(lines.as_bytes()).unwrap();
        let mut app = App::new(
            "big".into(),
            Arc::new(Snapshot::build(session, &[])),
            "tester".into(),
        );
        chars(&mut app, "g");
        let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
        term.draw(|f| view::draw(&app, f)).unwrap();
        let most = 5 * app.timeline_height.get();
        chars(&mut app, "G");
        let mut term = Terminal::new(TestBackend::new(80, rows)).unwrap();
        term.draw(|f| view::draw(&app, f)).unwrap();
        let wanted = app.wanted_texts();
        assert!(
            wanted.len() <= most,
            "{rows} rows: {} texts asked for, at most {most} expected",
            wanted.len()
        );
        assert!(
            wanted.iter().any(|t| t.index == 599),
            "{rows} rows: the cursor's event is not asked for"
        );
    }
}

/// A canonical log of about `mib` MiB: messages with an identifier each, and a pending
/// compaction at the end.
fn large_log(dir: &std::path::Path, mib: usize) -> (std::path::PathBuf, usize) {
    let filler = "the rollout went on while the checks ran ".repeat(20);
    let mut text = String::new();
    let mut seq = 0;
    while text.len() < mib << 20 {
        seq += 1;
        text.push_str(&format!(
            "{{\"type\":\"message\",\"seq\":{seq},\"text\":\"{filler} rev-{seq:08x}\"}}\n"
        ));
    }
    let path = dir.join("large.jsonl");
    std::fs::write(&path, text).unwrap();
    (path, seq)
}

#[test]
fn a_large_log_shows_its_first_rows_before_it_is_read_whole() {
    use ctxlens::store::files_beside_each_log as files;
    use ctxlens::tui::worker::spawn;
    use ctxlens::tui::Msg;
    let dir = tempfile::tempdir().unwrap();
    let (log, events) = large_log(dir.path(), 3);
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = spawn(log, tx, files());
    let mut partial_sizes = Vec::new();
    let mut texts_before_the_end = false;
    let timeout = std::time::Duration::from_secs(60);
    let last = loop {
        match rx.recv_timeout(timeout).expect("the worker answers") {
            Msg::Worker(Update::Partial(snapshot)) => {
                partial_sizes.push(snapshot.session.events.len());
                // What is shown so far is the log's beginning, in order.
                let seqs: Vec<u64> = snapshot.session.events.iter().map(|e| e.seq).collect();
                assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
                if partial_sizes.len() == 1 {
                    let first = &snapshot.session.events[0];
                    worker.send(Request::Texts(vec![TextRef {
                        index: 0,
                        offset: first.offset,
                        span: u64::from(first.span),
                        part: 0,
                        depth: Depth::Whole,
                    }]));
                }
            }
            Msg::Worker(Update::Texts(texts)) => {
                assert!(
                    texts[0].1.gist.starts_with("the rollout went on"),
                    "{:?}",
                    texts[0].1.gist
                );
                texts_before_the_end = true;
            }
            Msg::Worker(Update::Snapshot(snapshot, Change::Grew)) => break snapshot,
            Msg::Worker(Update::Error(e)) => panic!("{e}"),
            _ => {}
        }
    };
    assert_eq!(last.session.events.len(), events);
    assert!(
        texts_before_the_end,
        "rows' texts are served while the read goes on"
    );
    // The first screen comes after the first 256 KiB; each later step doubles.
    let first = *partial_sizes.first().expect("a partial snapshot first");
    assert!(first < events / 8, "{first} of {events}");
    assert!(
        partial_sizes.windows(2).all(|w| w[1] >= 2 * w[0] - 1),
        "{partial_sizes:?}"
    );
    assert!(partial_sizes.len() <= 5, "{partial_sizes:?}");
}

#[test]
fn while_the_log_is_read_rows_stay_put_and_nothing_is_decided() {
    use ctxlens::ingest::progress::Reading;
    use ctxlens::tui::app::FileEvent;
    let mut app = app("pending-compaction.jsonl");
    app.file_event = FileEvent::Reading(None);
    let reading = Reading {
        read: 1,
        total: 4,
        elapsed: std::time::Duration::from_millis(10),
    };
    app.update(Action::Worker(Update::Reading(reading)));
    let more = Snapshot::load(&sample("seed-migration-rollback.jsonl")).unwrap();
    let cursor = app.cursor;
    app.update(Action::Worker(Update::Partial(Arc::new(more))));
    assert_eq!(app.file_event, FileEvent::Reading(Some(reading)));
    assert_eq!(
        app.cursor, cursor,
        "a partial snapshot does not move the cursor"
    );
    assert_eq!(app.unseen, 0);
    let pending = Snapshot::load(&sample("pending-compaction.jsonl")).unwrap();
    app.update(Action::Worker(Update::Partial(Arc::new(pending))));
    chars(&mut app, "]");
    assert!(chars(&mut app, "s").is_empty(), "no decision while reading");
    assert!(app.message.as_deref().unwrap().contains("still being read"));
    let whole = Snapshot::load(&sample("pending-compaction.jsonl")).unwrap();
    app.update(Action::Worker(Update::Snapshot(
        Arc::new(whole),
        Change::Grew,
    )));
    assert_eq!(app.file_event, FileEvent::None);
    assert_eq!(chars(&mut app, "]s").len(), 1, "decided once it is read");
}

/// A log whose one compaction drops forty bindings that obligations need: forty
/// errors, more than the alerts pane can show.
fn many_alerts() -> App {
    let mut log = String::from("{\"type\":\"session\",\"seq\":1,\"cwd\":\"/p\"}\n");
    let mut seq = 1;
    for i in 0..40 {
        let token = format!("tok_{i:02}_aaaaaaaaaaaaaaaa");
        for line in [
            format!("{{\"type\":\"tool_result\",\"seq\":{},\"text\":\"got {token}\"}}", seq + 1),
            format!("{{\"type\":\"binding\",\"seq\":{},\"token\":\"{token}\",\"regenerable\":false}}", seq + 2),
            format!("{{\"type\":\"obligation\",\"seq\":{},\"id\":\"ob-{i:02}\",\"requires\":[\"{token}\"]}}", seq + 3),
        ] {
            log.push_str(&line);
            log.push('\n');
        }
        seq += 3;
    }
    log.push_str(&format!(
        "{{\"type\":\"compaction\",\"seq\":{},\"id\":\"k1\",\"phase\":\"applied\",\"range\":{{\"from\":2,\"to\":{seq}}},\"summary\":\"all done\"}}\n",
        seq + 1
    ));
    let snapshot = Snapshot::build(ctxlens::ingest::parse_bytes(log.as_bytes()), &[]);
    assert!(snapshot.alerts.len() > 40, "{}", snapshot.alerts.len());
    App::new("many".into(), Arc::new(snapshot), "tester".into())
}

/// The screen once the worker has built the view model the views ask for.
fn screen(app: &App) -> String {
    if let Some(c) = app.selected_compaction() {
        app.snapshot.build_view(&c.info.id);
    }
    screen_as_drawn(app)
}

fn screen_as_drawn(app: &App) -> String {
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| view::draw(app, f)).unwrap();
    let buffer = term.backend().buffer().clone();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The alerts pane of a screen: its box, from its title down.
fn alerts_pane(screen: &str) -> String {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let title: Vec<char> = "┌ Alerts".chars().collect();
    let (top, column) = lines
        .iter()
        .enumerate()
        .find_map(|(y, l)| {
            Some((
                y,
                l.windows(title.len()).position(|w| w == title.as_slice())?,
            ))
        })
        .unwrap();
    lines[top..]
        .iter()
        .map(|l| l.iter().skip(column).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_long_alerts_list_shows_the_newest_or_the_selected_alert_first() {
    let message_of = |app: &App, i: usize| -> String {
        let alert = &app.snapshot.alerts[i];
        app.snapshot.finding_of(alert).unwrap().message.clone()
    };
    let token_of = |app: &App, i: usize| -> String {
        let message = message_of(app, i);
        let at = message.find("tok_").unwrap();
        message[at..at + 6].to_owned()
    };
    let mut app = many_alerts();
    let n = app.snapshot.alerts.len();
    let names_a_token = |i: &usize| message_of(&app, *i).contains("tok_");
    let (first, middle, last) = (
        (0..n).find(names_a_token).unwrap(),
        n / 2,
        (0..n).rev().find(names_a_token).unwrap(),
    );
    // With none selected the newest are in view, not the first.
    chars(&mut app, "e");
    app.alert_cursor = None;
    let shown = alerts_pane(&screen(&app));
    assert!(
        shown.contains(&token_of(&app, last)),
        "{}\n{shown}",
        token_of(&app, last)
    );
    assert!(!shown.contains(&token_of(&app, first)), "{shown}");
    // A selected alert in the middle is the first the pane shows.
    app.alert_cursor = Some(middle - 1);
    chars(&mut app, "e");
    assert_eq!(app.alert_cursor, Some(middle));
    let shown = alerts_pane(&screen(&app));
    assert!(
        shown.contains(&token_of(&app, middle)),
        "{}\n{shown}",
        token_of(&app, middle)
    );
    assert!(!shown.contains(&token_of(&app, last)), "{shown}");
    assert!(!shown.contains(&token_of(&app, first)), "{shown}");
}

/// The obligations pane builds only the lines it can show: scrolled down, it shows the
/// obligations further down, as the whole list would.
#[test]
fn a_long_obligations_list_scrolled_shows_what_lies_below() {
    let mut app = many_alerts();
    let at_top = screen(&app);
    assert!(at_top.contains("ob-00"), "{at_top}");
    app.obligations_scroll = 60;
    let scrolled = screen(&app);
    // Each obligation takes three rows in this pane (its id, its token wrapped).
    assert!(scrolled.contains("ob-20"), "{scrolled}");
    assert!(!scrolled.contains("ob-19"), "{scrolled}");
}

/// The views never build a compaction's view model (a large region's took 200 ms on
/// the render thread): they draw a placeholder and ask the worker, once per snapshot.
#[test]
fn an_unbuilt_view_model_is_asked_of_the_worker_once_and_drawn_when_built() {
    let mut app = app("summary-of-summary.jsonl");
    chars(&mut app, "g]");
    let id = app.selected_compaction().unwrap().info.id.clone();
    assert!(app.snapshot.built_view(&id).is_none());
    let waiting = screen_as_drawn(&app);
    assert!(waiting.contains("building the view of"), "{waiting}");
    let Some(Request::BuildView {
        snapshot,
        compaction,
    }) = app.wanted_view()
    else {
        panic!("no request for the view model");
    };
    assert_eq!(compaction, id);
    assert!(app.wanted_view().is_none(), "asked twice");
    // What the worker does with it, then tells the app.
    snapshot.0.build_view(&compaction);
    app.update(Action::Worker(Update::ViewBuilt));
    let built = screen_as_drawn(&app);
    assert!(!built.contains("building the view of"), "{built}");
    assert!(built.contains("region ·"), "{built}");
}

/// Walking through a log's compactions keeps two view models, not one per compaction
/// seen (each is megabytes for a large region: 75 -> 114 MiB over the eight of the
/// 256 MiB benchmark log): the newest compaction's, shown while following, and the one
/// the views show. One let go is asked for again when it is shown again.
#[test]
fn walking_through_compactions_keeps_two_view_models() {
    let mut log = String::from("{\"type\":\"session\",\"seq\":1,\"cwd\":\"/p\"}\n");
    let mut seq = 1;
    for k in 1..=4 {
        let from = seq + 1;
        log.push_str(&format!(
            "{{\"type\":\"tool_result\",\"seq\":{},\"text\":\"made deploy-{k}abcdef1\"}}\n",
            seq + 1
        ));
        log.push_str(&format!(
            "{{\"type\":\"compaction\",\"seq\":{},\"id\":\"k{k}\",\"phase\":\"applied\",\"range\":{{\"from\":{from},\"to\":{}}},\"summary\":\"done\"}}\n",
            seq + 2,
            seq + 1
        ));
        seq += 2;
    }
    let snapshot = Arc::new(Snapshot::build(
        ctxlens::ingest::parse_bytes(log.as_bytes()),
        &[],
    ));
    snapshot.build_newest_view();
    let mut app = App::new("walk".into(), snapshot, "tester".into());
    let built = |app: &App| -> Vec<String> {
        (1..=4)
            .map(|k| format!("k{k}"))
            .filter(|id| app.snapshot.built_view(id).is_some())
            .collect()
    };
    assert_eq!(built(&app), ["k4"]);
    chars(&mut app, "g");
    for k in 1..=3 {
        chars(&mut app, "]");
        let id = app.selected_compaction().unwrap().info.id.clone();
        assert_eq!(id, format!("k{k}"));
        let Some(Request::BuildView {
            snapshot,
            compaction,
        }) = app.wanted_view()
        else {
            panic!("no request for the view model of {id}");
        };
        snapshot.0.build_view(&compaction);
        app.update(Action::Worker(Update::ViewBuilt));
        assert_eq!(built(&app), [id.as_str(), "k4"]);
    }
    // Back to k2, let go of when k3 was shown: asked for again.
    chars(&mut app, "[");
    assert_eq!(app.selected_compaction().unwrap().info.id, "k2");
    assert!(
        matches!(app.wanted_view(), Some(Request::BuildView { compaction, .. }) if compaction == "k2")
    );
}

/// The timeline's rows ask for gists alone (a screen of whole texts was megabytes: each
/// text and its raw form up to 64 KiB); the compaction view asks for its region's
/// events' heads and its summary whole, and an open event for its whole text. A
/// shallower text that comes later replaces no deeper one.
#[test]
fn each_view_asks_for_as_much_of_a_text_as_it_shows() {
    let mut app = app("seed-migration-rollback.jsonl");
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    chars(&mut app, "g");
    term.draw(|f| view::draw(&app, f)).unwrap();
    let wanted = app.wanted_texts();
    assert!(!wanted.is_empty());
    assert!(wanted.iter().all(|t| t.depth == Depth::Gist), "{wanted:?}");
    let reply = |wanted: &[TextRef]| worker_reply(wanted, |t| format!("{:?}", t.depth));
    app.update(reply(&wanted));
    assert!(app.wanted_texts().is_empty(), "asked again");
    // The compaction view: its region's events' heads, its summary whole; each once.
    chars(&mut app, "]");
    let c = app.selected_compaction().unwrap();
    let mut expected: Vec<(usize, Depth)> = app
        .region_shown(c)
        .into_iter()
        .map(|i| (i, Depth::Head))
        .collect();
    expected.push((c.info.def, Depth::Whole));
    let deeper = app.wanted_texts();
    let mut asked: Vec<(usize, Depth)> = deeper.iter().map(|t| (t.index, t.depth)).collect();
    asked.sort_unstable();
    expected.sort_unstable();
    assert_eq!(asked, expected);
    // A gist asked before arrives after the head: the head stays.
    let head = deeper.iter().find(|t| t.depth == Depth::Head).unwrap();
    let late_gist = reply(&[TextRef {
        depth: Depth::Gist,
        ..*head
    }]);
    app.update(reply(&deeper));
    app.update(late_gist);
    assert!(app
        .text_to(head.index, Depth::Head)
        .is_some_and(|t| t.text == "Head"));
    assert!(app.text_to(head.index, Depth::Whole).is_none());
    assert!(app.wanted_texts().is_empty(), "asked again");
    // Opened: the whole text is asked for.
    chars(&mut app, "g");
    press(&mut app, KeyCode::Enter);
    let opened = app.wanted_texts();
    assert!(opened.iter().any(|t| t.depth == Depth::Whole), "{opened:?}");
}

/// Bookkeeping records (progress, file snapshots) are hidden until `b`, and the cursor
/// stays on its event either way.
#[test]
fn bookkeeping_is_hidden_until_asked_for_and_the_cursor_keeps_its_event() {
    let mut app = app("claude-code-compaction.jsonl");
    let all = app.snapshot.rows.len();
    let reading = app.rows().len();
    assert!(reading < all, "{reading} of {all} rows");
    assert!(app.rows().iter().filter_map(|r| r.event_index()).all(
        |i| ctxlens::legend::EventRole::of(&app.snapshot.session.events[i].kind)
            != ctxlens::legend::EventRole::Bookkeeping
    ));
    chars(&mut app, "g]");
    let event = app.cursor_event();
    chars(&mut app, "b");
    assert_eq!(app.rows().len(), all);
    assert_eq!(app.cursor_event(), event);
    chars(&mut app, "b");
    assert_eq!(app.rows().len(), reading);
    assert_eq!(app.cursor_event(), event);
}

/// A Qwen Code recording whose compression a hook holds right now: the fixture cut
/// before its compression, with the hook's ledger entry beside it.
fn held_qwen_compression(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::OpenOptionsExt;
    let full = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/qwen-code-compression.jsonl"),
    )
    .unwrap();
    let cut = full.find("\"subtype\":\"chat_compression\"").unwrap();
    let line_start = full[..cut].rfind('\n').unwrap() + 1;
    let path = dir.join("5b63a2d6-1839-4b44-98e8-0b0589ef1fda.jsonl");
    std::fs::write(&path, &full[..line_start]).unwrap();
    let entry = serde_json::json!({"event": "pre-compact", "id": "pre-compact-1",
        "ts": "2026-12-04T17:34:20Z", "trigger": "manual", "handle": null, "from_byte": 0,
        "to_byte": line_start, "tokens": [], "hold_until": "2099-01-01T00:00:00Z"});
    let mut ledger = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(format!("{}.ctxlens-ledger.jsonl", path.display()))
        .unwrap();
    std::io::Write::write_all(&mut ledger, format!("{entry}\n").as_bytes()).unwrap();
    path
}

#[test]
fn a_compaction_held_by_qwen_code_offers_no_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let path = held_qwen_compression(dir.path());
    let snapshot = Snapshot::load(&path).unwrap();
    let mut app = App::new("qwen".into(), Arc::new(snapshot), "tester".into());
    chars(&mut app, "g]");
    assert_eq!(app.pending_selected().unwrap().info.id, "pre-compact-1");
    let mut term = Terminal::new(TestBackend::new(120, 30)).unwrap();
    term.draw(|f| view::draw(&app, f)).unwrap();
    let screen = format!("{:?}", term.backend().buffer());
    assert!(
        screen.contains(" p preserve"),
        "the decision keys are offered"
    );
    assert!(
        !screen.contains(" x refuse"),
        "no refuse is offered: {screen}"
    );
    // The key says why, and asks nothing of the worker.
    assert!(chars(&mut app, "x").is_empty());
    assert!(app
        .message
        .as_deref()
        .unwrap()
        .contains("Qwen Code cannot block"));
    // A verdict it can carry out is recorded (or confirmed first when it overrides).
    let requests = chars(&mut app, "p");
    assert!(requests.len() == 1 || app.overlay.is_some());
}

#[test]
fn a_compaction_of_an_agent_that_cannot_be_gated_says_so_where_a_decision_would_be() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/copilot-cli-compaction.jsonl");
    let snapshot = Snapshot::load(&path).unwrap();
    let mut app = App::new("copilot".into(), Arc::new(snapshot), "tester".into());
    chars(&mut app, "g]");
    assert!(app.selected_compaction().is_some());
    let mut term = Terminal::new(TestBackend::new(120, 30)).unwrap();
    term.draw(|f| view::draw(&app, f)).unwrap();
    let screen = format!("{:?}", term.backend().buffer());
    assert!(
        screen.contains("no decision: Copilot CLI cannot be gated"),
        "{screen}"
    );
}
