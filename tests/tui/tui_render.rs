//! The TUI's views, rendered with ratatui's TestBackend and kept as insta snapshots. Each
//! snapshot holds the screen as text and, below it, every coloured run with its colour,
//! so the marking of tokens is part of what is checked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ctxlens::tui::app::{Action, App, CompactionView};
use ctxlens::tui::folder::{self, FolderApp};
use ctxlens::tui::snapshot::Snapshot;
use ctxlens::tui::view;
use ctxlens::tui::worker::{read_texts, Request, Update};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// The screen as text, then each run of coloured or reversed cells: `row:col colour text`.
fn styled_text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut screen = String::new();
    let mut runs = String::new();
    for y in 0..area.height {
        let mut run: Option<(u16, String, String)> = None;
        for x in 0..area.width {
            let cell = &buffer[(x, y)];
            screen.push_str(cell.symbol());
            let tag = match cell.fg {
                Color::Red => "red",
                Color::Yellow => "yellow",
                Color::Green => "green",
                _ if cell.modifier.contains(Modifier::REVERSED) => "selected",
                _ => "",
            };
            match &mut run {
                Some((_, t, text)) if t == tag => text.push_str(cell.symbol()),
                _ => {
                    if let Some((x0, t, text)) = run.take() {
                        if !t.is_empty() && !text.trim().is_empty() {
                            runs.push_str(&format!("{y:>2}:{x0:<3} {t:<8} {}\n", text.trim_end()));
                        }
                    }
                    run = Some((x, tag.to_owned(), cell.symbol().to_owned()));
                }
            }
        }
        if let Some((x0, t, text)) = run.take() {
            if !t.is_empty() && !text.trim().is_empty() {
                runs.push_str(&format!("{y:>2}:{x0:<3} {t:<8} {}\n", text.trim_end()));
            }
        }
        screen.push('\n');
    }
    format!("{screen}\n--- coloured runs ---\n{runs}")
}

fn open(path: &Path, width: u16, height: u16) -> (App, Terminal<TestBackend>) {
    let snapshot = Snapshot::load(path).expect("sample loads");
    let mut app = App::new("sample.jsonl".into(), Arc::new(snapshot), "tester".into());
    app.size = (width, height);
    let terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    (app, terminal)
}

/// Draws until every text and view model the views want has been read or built: what
/// the worker would do.
fn settle(app: &mut App, terminal: &mut Terminal<TestBackend>, path: &Path) -> String {
    let file = File::open(path).unwrap();
    for _ in 0..4 {
        terminal.draw(|f| view::draw(app, f)).unwrap();
        let view = app.wanted_view();
        if let Some(Request::BuildView {
            snapshot,
            compaction,
        }) = &view
        {
            snapshot.0.build_view(compaction);
            app.update(Action::Worker(Update::ViewBuilt));
        }
        let wanted = app.wanted_texts();
        if wanted.is_empty() && view.is_none() {
            break;
        }
        let format = app.snapshot.session.format;
        app.update(Action::Worker(Update::Texts(read_texts(
            &file, format, &wanted,
        ))));
    }
    terminal.draw(|f| view::draw(app, f)).unwrap();
    styled_text(terminal.backend().buffer())
}

fn key(app: &mut App, c: char) {
    let code = match c {
        '\n' => KeyCode::Enter,
        '\t' => KeyCode::Tab,
        '\u{1b}' => KeyCode::Esc,
        c => KeyCode::Char(c),
    };
    app.update(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

#[test]
fn pending_compaction_wide() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, mut term) = open(&path, 120, 32);
    insta::assert_snapshot!(settle(&mut app, &mut term, &path));
}

#[test]
fn pending_compaction_at_80x24_stacks_the_panes() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, mut term) = open(&path, 80, 24);
    let screen = settle(&mut app, &mut term, &path);
    // The compaction under the cursor gets the most room.
    let rows_of = |title: &str| {
        let lines: Vec<&str> = screen.lines().collect();
        let top = lines.iter().position(|l| l.starts_with(title)).unwrap();
        lines[top + 1..]
            .iter()
            .take_while(|l| !l.starts_with('└'))
            .count()
    };
    assert!(
        rows_of("┌ Compaction k1") > 2 * rows_of("┌ Timeline"),
        "{screen}"
    );
    insta::assert_snapshot!("narrow_compaction", screen);
    key(&mut app, '\t');
    key(&mut app, '\t');
    insta::assert_snapshot!("narrow_obligations", settle(&mut app, &mut term, &path));
}

#[test]
fn seed_scenario_alerts_walk_to_the_divergence() {
    let path = sample("seed-migration-rollback.jsonl");
    let (mut app, mut term) = open(&path, 120, 32);
    key(&mut app, 'e');
    key(&mut app, 'e');
    key(&mut app, 'e');
    insta::assert_snapshot!(settle(&mut app, &mut term, &path));
}

#[test]
fn at_80x24_help_scrolls_and_the_bars_keep_help_and_quit() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, mut term) = open(&path, 80, 24);
    let screen = settle(&mut app, &mut term, &path);
    let rows: Vec<&str> = screen.lines().collect();
    assert!(
        rows[0].contains("1 PENDING") && rows[0].contains("? help"),
        "{}",
        rows[0]
    );
    assert!(
        rows[23].contains("s spill") && rows[23].contains("q quit"),
        "{}",
        rows[23]
    );
    key(&mut app, '?');
    let top = settle(&mut app, &mut term, &path);
    assert!(
        top.contains("j/k scroll") && top.contains("approve it"),
        "{top}"
    );
    for _ in 0..30 {
        key(&mut app, 'j');
    }
    let bottom = settle(&mut app, &mut term, &path);
    assert!(
        bottom.contains("this help") && bottom.contains(" q     quit"),
        "{bottom}"
    );
    assert!(!bottom.contains("approve it"), "{bottom}");
}

#[test]
fn help_overlay_lists_every_key() {
    let path = sample("benign-compaction.jsonl");
    let (mut app, mut term) = open(&path, 120, 40);
    key(&mut app, '?');
    let screen = settle(&mut app, &mut term, &path);
    for binding in ctxlens::tui::keys::BINDINGS {
        assert!(
            screen.contains(binding.help),
            "{} missing from help",
            binding.help
        );
    }
    insta::assert_snapshot!(screen);
    key(&mut app, '\u{1b}');
    assert!(app.overlay.is_none());
}

#[test]
fn detail_overlay_shows_the_whole_event() {
    let path = sample("benign-compaction.jsonl");
    let (mut app, mut term) = open(&path, 100, 30);
    key(&mut app, 'g');
    for _ in 0..3 {
        key(&mut app, 'j');
    }
    key(&mut app, '\n');
    insta::assert_snapshot!(settle(&mut app, &mut term, &path));
}

#[test]
fn override_asks_for_confirmation() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, mut term) = open(&path, 120, 32);
    key(&mut app, 'a');
    insta::assert_snapshot!(settle(&mut app, &mut term, &path));
    key(&mut app, 'n');
    assert!(app.overlay.is_none());
}

#[test]
fn malformed_lines_and_escapes_are_visible_not_raw() {
    let path = sample("malformed-lines.jsonl");
    let (mut app, mut term) = open(&path, 120, 24);
    let screen = settle(&mut app, &mut term, &path);
    assert!(!screen.contains('\u{1b}'));
    insta::assert_snapshot!(screen);
}

#[test]
fn no_color_keeps_the_glyphs() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, mut term) = open(&path, 120, 32);
    app.color = false;
    let screen = settle(&mut app, &mut term, &path);
    let (screen, runs) = screen.split_once("--- coloured runs ---").unwrap();
    assert!(!runs.contains("red") && !runs.contains("green"), "{runs}");
    assert!(screen.contains("✖ 4f9a2c81d0e7") && screen.contains("✖ dropped (no refetch)"));
}

#[test]
fn folder_view_lists_sessions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut names: Vec<_> = folder::find_logs(&root);
    names.sort();
    let entries = names
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let snapshot = Snapshot::load(path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // Fixed ages, so the snapshot does not depend on the clock.
            let at = std::time::SystemTime::now()
                - std::time::Duration::from_secs(3600 * (i as u64 + 1) + 5);
            let mut entry = folder::Entry::unread(path, name, at)
                .read_from(&snapshot.session, &snapshot.analysis);
            entry.activity = at;
            entry
        })
        .collect();
    let mut app = FolderApp::new("sample-sessions".into(), true);
    app.set_entries(entries);
    app.cursor = 1;
    let mut term = Terminal::new(TestBackend::new(120, 24)).unwrap();
    term.draw(|f| folder::draw(&app, f)).unwrap();
    let screen = styled_text(term.backend().buffer());
    // docs/tui.md shows this very screen.
    let plain: String = screen
        .split("\n--- coloured runs ---")
        .next()
        .unwrap()
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect();
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tui.md")).unwrap();
    assert!(
        docs.contains(&plain),
        "docs/tui.md's folder list differs from:\n{plain}"
    );
    insta::assert_snapshot!(screen);

    // `/` narrows the list to what matches, Esc brings every session back.
    let press = |app: &mut FolderApp, code: KeyCode| {
        app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    };
    press(&mut app, KeyCode::Char('/'));
    for c in "CODEX".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    let shown: Vec<&str> = app.visible().iter().map(|e| e.format).collect();
    assert!(
        !shown.is_empty() && shown.iter().all(|f| *f == "codex"),
        "{shown:?}"
    );
    term.draw(|f| folder::draw(&app, f)).unwrap();
    let screen = styled_text(term.backend().buffer());
    assert!(screen.contains("Sessions matching “codex”"), "{screen}");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.visible().len(), app.entries.len());
    // A Claude Code session is found by the folder it ran in, which its row does not show.
    press(&mut app, KeyCode::Char('/'));
    for c in "/home/dev/payments".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let shown: Vec<&str> = app.visible().iter().map(|e| e.name.as_str()).collect();
    assert!(shown.contains(&"claude-code-compaction.jsonl"), "{shown:?}");
}

#[test]
fn d_switches_between_the_token_and_the_event_views() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, _term) = open(&path, 120, 32);
    key(&mut app, 'd');
    assert_eq!(app.compaction_view, CompactionView::Events);
    key(&mut app, 'd');
    assert_eq!(app.compaction_view, CompactionView::Tokens);
}

#[test]
fn todo_lists_read_as_text_and_metadata_shows() {
    let path = sample("claude-code-compaction.jsonl");
    let (mut app, mut term) = open(&path, 100, 30);
    key(&mut app, 'g');
    let screen = settle(&mut app, &mut term, &path);
    assert!(!screen.contains("{\"todos\""), "{screen}");
    assert!(screen.contains("obligation  ☐ Rotate the secret and restart deployment"));
    assert!(screen.contains("TodoWrite: ▶ Record the current version"));
    // Title, model and branch in the status bar; trigger and size on the compaction.
    let (mut app, mut term) = open(&path, 150, 30);
    let screen = settle(&mut app, &mut term, &path);
    let status = screen.lines().next().unwrap();
    assert!(status.contains("“Rotate the DB credentials") && status.contains("claude-opus-4-6"));
    assert!(status.contains("⎇ main"), "{status}");
    key(&mut app, ']');
    let screen = settle(&mut app, &mut term, &path);
    assert!(
        screen.contains("Compaction cb01 · auto · 167k→? tokens"),
        "{screen}"
    );
}

#[test]
fn a_spilled_compaction_shows_its_findings_resolved() {
    let (_dir, path) = sample_copy("pending-compaction.jsonl");
    assert_exit(&decide(&path, "k1", "spill", "tester"), 0);
    let (mut app, mut term) = open(&path, 120, 32);
    let screen = settle(&mut app, &mut term, &path);
    let status = screen.lines().next().unwrap();
    assert!(
        !status.contains("error") && status.contains("resolved"),
        "{status}"
    );
    assert!(screen.contains("(resolved by spill)"), "{screen}");
    assert!(!screen.contains("PENDING"), "{screen}");
}

#[test]
fn zero_width_and_bidi_characters_never_reach_the_screen_raw() {
    let h = "a\u{200d}b\u{200b}c\u{202e}d\u{2066}e\u{feff}f\u{1b}]0;t\u{7}g\u{9b}h\u{2028}i";
    let hq = serde_json::to_string(h).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zw.jsonl");
    std::fs::write(
        &path,
        format!(
            "{{\"type\":\"session\",\"seq\":1,\"cwd\":{hq}}}\n{{\"type\":\"message\",\"seq\":2,\"text\":{hq}}}\n{{\"type\":\"choice\",\"seq\":3,\"entity\":{hq},\"polarity\":\"chosen\"}}\n{{\"type\":\"compaction\",\"seq\":4,\"id\":{hq},\"range\":{{\"from\":2,\"to\":3}},\"summary\":{hq}}}\n"
        ),
    )
    .unwrap();
    for keys in ["", "]", "]d", "\t", "?"] {
        let (mut app, mut term) = open(&path, 120, 32);
        for c in keys.chars() {
            key(&mut app, c);
        }
        let screen = settle(&mut app, &mut term, &path);
        let raw = screen
            .chars()
            .find(|&c| ctxlens::sanitize::is_unsafe(c) && c != '\n');
        assert_eq!(raw, None, "keys {keys:?}:\n{screen}");
        assert!(
            screen.contains("\\u{200d}"),
            "shown as a placeholder:\n{screen}"
        );
    }
}

#[test]
fn an_error_always_shows_in_the_status_bar_cut_to_fit() {
    let path = sample("pending-compaction.jsonl");
    for width in [80, 120, 200] {
        let (mut app, mut term) = open(&path, width, 24);
        let long = format!(
            "/srv/agents/{}/session.jsonl: Permission denied (os error 13)",
            "deep/".repeat(20)
        );
        app.update(Action::Worker(Update::Error(long)));
        term.draw(|f| view::draw(&app, f)).unwrap();
        let screen = styled_text(term.backend().buffer());
        let bar = screen.lines().next().unwrap();
        assert!(bar.contains("✖ /srv/agents/"), "{width}: {bar}");
        assert!(
            bar.contains("1 PENDING") && bar.contains("? help"),
            "{width}: {bar}"
        );
    }
}

#[test]
fn the_first_read_shows_how_far_it_has_got() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, mut term) = open(&path, 120, 32);
    app.file_event = ctxlens::tui::app::FileEvent::Reading(None);
    let mut screen_at = |read: u64, elapsed: std::time::Duration| {
        let reading = ctxlens::ingest::progress::Reading {
            read,
            total: 200 << 20,
            elapsed,
        };
        app.update(Action::Worker(Update::Reading(reading)));
        term.draw(|f| view::draw(&app, f)).unwrap();
        styled_text(term.backend().buffer())
    };
    let screen = screen_at(50 << 20, std::time::Duration::from_millis(500));
    assert!(
        screen.contains("reading the log… 25% · 100 MB/s"),
        "{screen}"
    );
    // Read to the end, the analysis of the whole log is what is left.
    let screen = screen_at(200 << 20, std::time::Duration::from_secs(2));
    assert!(screen.contains("analysing the log…"), "{screen}");
}

#[test]
fn every_view_draws_wide_characters_at_every_small_size() {
    // Wide characters (CJK, full-width, emoji with a skin tone) in every field a view
    // shows, drawn into terminals down to one cell: a pane narrower than a character
    // is drawn without it, never by a panic.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"seq":1,"type":"session","cwd":"/home/开发","agent":"测试"}"#,
            "\n",
            r#"{"seq":2,"type":"message","role":"user","text":"回滚到修订版本 rev 4821，快照 arn:aws:rds:us-east-1:123456789012:snapshot:快照-9ac8a08d"}"#,
            "\n",
            r#"{"seq":3,"type":"tool_call","call_id":"c1","name":"shell","input":{"cmd":"kubectl rollout undo 部署/网关 --to-revision=4821"}}"#,
            "\n",
            r#"{"seq":4,"type":"tool_result","call_id":"c1","text":"部署已回滚 ✅ 👍🏽 한국어 テキスト ｆｕｌｌｗｉｄｔｈ"}"#,
            "\n",
            r#"{"seq":5,"type":"compaction","id":"k1","range":{"from":2,"to":4},"summary":"用户要求回滚网关部署。","status":"pending"}"#,
            "\n",
        ),
    )
    .unwrap();
    let sizes = (1..=12u16).chain([20, 40]);
    for width in sizes {
        for height in [1, 2, 3, 5, 8, 12, 24] {
            for keys in ["", "\t\t", "jj\n", "]", "]\t", "]\t\t", "]d", "?"] {
                let (mut app, mut term) = open(&path, width, height);
                for c in keys.chars() {
                    key(&mut app, c);
                }
                let drawn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    settle(&mut app, &mut term, &path)
                }));
                assert!(drawn.is_ok(), "{width}x{height}, keys {keys:?}");
            }
        }
    }
}

/// At 80 columns a long session name is cut (its start: the end names the file), and
/// the counts after it stay whole.
#[test]
fn at_80_columns_the_folder_list_cuts_long_names_not_counts() {
    let path = sample("pending-compaction.jsonl");
    let snapshot = Snapshot::load(&path).unwrap();
    let long = "Beep206__CyberVPN__31_9947db02af_0_full-with-a-longer-name.jsonl".to_owned();
    let entry = folder::Entry::unread(&path, long, std::time::SystemTime::now())
        .read_from(&snapshot.session, &snapshot.analysis);
    let mut app = FolderApp::new("sessions".into(), false);
    app.set_entries(vec![entry]);
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| folder::draw(&app, f)).unwrap();
    let screen = styled_text(term.backend().buffer());
    let row = screen
        .lines()
        .find(|l| l.contains("1 compaction  1 PENDING"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains('…'), "{row}");
    for count in ["1 compaction", "1 PENDING", "1 alert", "2 warnings"] {
        assert!(row.contains(count), "{count} in {row}");
    }
}

/// A subagent's transcript is listed under its session's, whatever its activity.
#[test]
fn the_folder_list_shows_subagents_under_their_session() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("3f2a/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let paths = [
        dir.path().join("3f2a.jsonl"),
        dir.path().join("other.jsonl"),
        agents.join("agent-b.jsonl"),
        agents.join("agent-a.jsonl"),
    ];
    // Newest first would put the subagents and the other session above the parent.
    let entries = paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let name = path.strip_prefix(dir.path()).unwrap().display().to_string();
            let at = std::time::SystemTime::now() - std::time::Duration::from_secs(600 - i as u64);
            folder::Entry::unread(path, name, at)
        })
        .collect();
    let mut app = FolderApp::new("dir".into(), false);
    app.set_entries(entries);
    let order: Vec<_> = app
        .visible()
        .iter()
        .map(|e| {
            (
                e.path.file_name().unwrap().to_string_lossy().into_owned(),
                e.under_parent,
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            ("other.jsonl".to_owned(), false),
            ("3f2a.jsonl".to_owned(), false),
            ("agent-a.jsonl".to_owned(), true),
            ("agent-b.jsonl".to_owned(), true),
        ]
    );
    let mut term = Terminal::new(TestBackend::new(100, 12)).unwrap();
    term.draw(|f| folder::draw(&app, f)).unwrap();
    let screen = styled_text(term.backend().buffer());
    assert!(screen.contains("↳ agent-a "), "{screen}");
}

/// The conversation view of a Claude Code session, as the README shows it.
#[test]
fn conversation_view_of_a_claude_code_session() {
    let path = sample("claude-code-compaction.jsonl");
    let (mut app, mut term) = open(&path, 120, 32);
    key(&mut app, 'g');
    key(&mut app, 'c');
    insta::assert_snapshot!(settle(&mut app, &mut term, &path));
}

/// A copy of a database session that is no longer kept up to date (a full disk) says
/// so where "following" was, survives the file's own events, and goes when it ends.
#[test]
fn a_stalled_copy_says_stalled_not_following() {
    let path = sample("pending-compaction.jsonl");
    let (mut app, mut term) = open(&path, 200, 24);
    let why = "stalled: ctxlens's copy of the database is not kept up to date: No space left on device (os error 28)";
    app.update(Action::Worker(Update::Stalled(Some(why.to_owned()))));
    term.draw(|f| view::draw(&app, f)).unwrap();
    let bar = styled_text(term.backend().buffer());
    let bar = bar.lines().next().unwrap().to_owned();
    assert!(
        bar.contains("◌ stalled") && bar.contains("No space left"),
        "{bar}"
    );
    assert!(!bar.contains("● following"), "{bar}");
    app.update(Action::Worker(Update::Stalled(None)));
    term.draw(|f| view::draw(&app, f)).unwrap();
    let bar = styled_text(term.backend().buffer());
    assert!(bar.lines().next().unwrap().contains("● following"), "{bar}");
}

/// The folder list groups sessions by project, each project's line with its sessions,
/// compactions, alerts and model tokens in all; at 80x24 each session still shows its
/// counts whole.
#[test]
fn the_folder_list_groups_sessions_by_project_at_80x24() {
    let names = [
        ("pending-compaction.jsonl", "/work/billing"),
        ("benign-compaction.jsonl", "/work/search"),
        ("claude-code-compaction.jsonl", "/work/billing"),
        ("summary-of-summary.jsonl", "/work/search"),
    ];
    let entries: Vec<folder::Entry> = names
        .iter()
        .enumerate()
        .map(|(i, (name, project))| {
            let path = sample(name);
            let snapshot = Snapshot::load(&path).unwrap();
            let at = std::time::SystemTime::now() - std::time::Duration::from_secs(60 * i as u64);
            let mut entry = folder::Entry::unread(&path, (*name).to_owned(), at)
                .read_from(&snapshot.session, &snapshot.analysis);
            entry.project = Some((*project).to_owned());
            entry.activity = at;
            entry
        })
        .collect();
    let mut app = FolderApp::new("sessions".into(), false);
    app.set_entries(entries);
    // Each project's sessions together; the project waiting longest for a decision
    // (summary-of-summary's, the oldest PENDING) first.
    let groups: Vec<String> = app.visible().iter().map(|e| e.group()).collect();
    assert_eq!(
        groups,
        [
            "/work/search",
            "/work/search",
            "/work/billing",
            "/work/billing"
        ]
    );
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| folder::draw(&app, f)).unwrap();
    let screen = styled_text(term.backend().buffer());
    let lines: Vec<&str> = screen.lines().collect();
    let billing = lines
        .iter()
        .position(|l| l.contains("■ /work/billing  2 sessions · 2 compactions"))
        .unwrap_or_else(|| panic!("{screen}"));
    let search = lines
        .iter()
        .position(|l| l.contains("■ /work/search  2 sessions"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(search < billing, "{screen}");
    // Under each project's line, its two sessions (two lines each).
    let under = |at: usize| format!("{}\n{}", lines[at + 1], lines[at + 3]);
    assert!(under(billing).contains("pending-compaction"), "{screen}");
    assert!(
        under(billing).contains("claude-code-compaction"),
        "{screen}"
    );
    assert!(under(search).contains("benign-compaction"), "{screen}");
    assert!(under(billing).contains("1 PENDING"), "{screen}");
}
