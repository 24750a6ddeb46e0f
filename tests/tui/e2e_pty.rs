//! The real binary in a pseudo-terminal, driven as an operator would drive it; the screen
//! is read back through a terminal emulator (vt100).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

struct Tui {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Receiver<Vec<u8>>,
    parser: vt100::Parser,
    _master: Box<dyn MasterPty + Send>,
}

impl Tui {
    fn start(args: &[&Path]) -> Tui {
        Tui::start_with_env(args, &[])
    }

    fn start_with_env(args: &[&Path], env: &[(&str, &Path)]) -> Tui {
        Tui::start_sized(args, env, (32, 120))
    }

    /// The TUI on `args` in a terminal of `(rows, cols)`.
    fn start_sized(args: &[&Path], env: &[(&str, &Path)], (rows, cols): (u16, u16)) -> Tui {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(assert_cmd::cargo::cargo_bin("ctxlens"));
        for arg in args {
            cmd.arg(arg);
        }
        cmd.env("TERM", "xterm-256color");
        cmd.env("USER", "e2e-operator");
        for (key, value) in env {
            cmd.env(key, value);
        }
        let child = pair.slave.spawn_command(cmd).expect("spawns");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let (tx, output) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let writer = pair.master.take_writer().expect("writer");
        Tui {
            child,
            writer,
            output,
            parser: vt100::Parser::new(
                std::num::NonZeroU16::new(rows).unwrap(),
                std::num::NonZeroU16::new(cols).unwrap(),
                0,
            ),
            _master: pair.master,
        }
    }

    fn pump(&mut self, wait: Duration) {
        if let Ok(bytes) = self.output.recv_timeout(wait) {
            self.parser.process(&bytes);
        }
        while let Ok(bytes) = self.output.try_recv() {
            self.parser.process(&bytes);
        }
    }

    fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Waits (up to 20 s on a loaded machine) until the screen shows `text`.
    fn wait_for(&mut self, text: &str) {
        self.wait_until(&format!("{text:?} appeared"), |screen| {
            screen.contains(text)
        });
    }

    /// Waits (up to 20 s) until `done` holds of the screen; `what` names it.
    fn wait_until(&mut self, what: &str, done: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            self.pump(Duration::from_millis(50));
            if done(&self.screen()) {
                return;
            }
        }
        panic!("never {what}; the screen:\n{}", self.screen());
    }

    fn keys(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Waits for the process to end; its exit status and whether the terminal is back.
    fn wait_exit(&mut self) -> (bool, bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            self.pump(Duration::from_millis(50));
            if let Some(status) = self.child.try_wait().unwrap() {
                self.pump(Duration::from_millis(200));
                let restored =
                    !self.parser.screen().alternate_screen() && !self.parser.screen().hide_cursor();
                return (status.success(), restored);
            }
            assert!(
                Instant::now() < deadline,
                "the TUI did not exit:\n{}",
                self.screen()
            );
        }
    }
}

#[test]
fn open_a_pending_log_spill_the_compaction_and_quit() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("1 PENDING");
    tui.keys("g");
    tui.wait_for("‖ paused");
    tui.keys("]");
    tui.wait_for("Compaction k1 · proposed");
    assert!(
        tui.screen().contains("4f9a2c81d0e7"),
        "the dropped revision is on screen"
    );
    tui.keys("s");
    tui.wait_for("recorded spill for k1");
    let sidecar =
        std::fs::read_to_string(log.with_file_name("pending-compaction.jsonl.decisions.jsonl"))
            .unwrap();
    let decision: serde_json::Value = serde_json::from_str(sidecar.trim()).unwrap();
    assert_eq!(decision["verdict"], "spill");
    assert_eq!(decision["by"], "e2e-operator");
    assert!(decision["handle"].as_str().unwrap().starts_with("sha256:"));
    tui.wait_for("decision: SPILL by e2e-operator");
    tui.keys("q");
    let (ok, restored) = tui.wait_exit();
    assert!(ok, "exit status 0");
    assert!(restored, "alternate screen left and cursor shown");
}

#[test]
fn a_decision_written_by_another_process_shows_up() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("1 PENDING");
    assert_exit(&decide(&log, "k1", "refuse", "bob"), 0);
    tui.wait_for("decision: REFUSE by bob");
    assert!(!tui.screen().contains("PENDING"));
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

#[test]
fn a_followed_log_grows_is_truncated_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("live.jsonl");
    let line = |seq: u64, text: &str| {
        format!(
            "{{\"type\":\"message\",\"seq\":{seq},\"role\":\"assistant\",\"text\":\"{text}\"}}\n"
        )
    };
    std::fs::write(&log, line(1, "first words")).unwrap();
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("first words");
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(line(2, "appended").as_bytes()).unwrap();
    // Half a line waits for its newline.
    file.write_all(b"{\"type\":\"message\",\"seq\":3,\"text\":\"half")
        .unwrap();
    tui.wait_for("appended");
    tui.wait_for("2 events");
    file.write_all(b"done\"}\n").unwrap();
    tui.wait_for("halfdone");
    tui.wait_for("3 events");
    // Truncation: the file starts over, shorter.
    std::fs::write(&log, line(1, "restarted")).unwrap();
    tui.wait_for("truncated, re-read");
    tui.wait_for("restarted");
    // Rotation: another file takes the path.
    let next = dir.path().join("next.jsonl");
    std::fs::write(&next, line(1, "rotated") + &line(2, "second line")).unwrap();
    std::fs::rename(&next, &log).unwrap();
    tui.wait_for("replaced, re-read");
    tui.wait_for("rotated");
    std::fs::remove_file(&log).unwrap();
    tui.wait_for("file gone");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

#[test]
fn sigterm_restores_the_terminal() {
    let (_dir, log) = sample_copy("benign-compaction.jsonl");
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("1 compaction");
    let pid = tui.child.process_id().expect("pid");
    std::process::Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status()
        .unwrap();
    let (_, restored) = tui.wait_exit();
    assert!(restored);
}

#[test]
fn folder_mode_lists_logs_opens_one_and_goes_back() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["pending-compaction.jsonl", "benign-compaction.jsonl"] {
        std::fs::copy(sample(name), dir.path().join(name)).unwrap();
    }
    let mut tui = Tui::start(&[dir.path()]);
    tui.wait_for("2 sessions");
    tui.wait_for("1 PENDING");
    let screen = tui.screen();
    assert!(screen.contains("pending-compaction ") && screen.contains("benign-compaction "));
    // Copies are not live: their records are old. Writing to one makes it live; a
    // session waiting for a decision stays on top of it.
    assert!(!screen.contains("● live"), "{screen}");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("benign-compaction.jsonl"))
        .unwrap();
    file.write_all(b"{\"type\":\"message\",\"seq\":99,\"text\":\"still going\"}\n")
        .unwrap();
    tui.wait_for("● live");
    let screen = tui.screen();
    let row = |name: &str| screen.lines().position(|l| l.contains(name)).unwrap();
    assert!(
        row("pending-compaction") < row("benign-compaction"),
        "{screen}"
    );
    tui.keys("g\r");
    tui.wait_for("Timeline");
    tui.keys("\x1b");
    tui.wait_for("Sessions (PENDING first, then most recent activity)");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// An empty folder's scan ends with a line that says so, not "scanning…" forever.
#[test]
fn an_empty_folder_says_it_holds_no_session_logs() {
    let dir = tempfile::tempdir().unwrap();
    let mut tui = Tui::start(&[dir.path()]);
    tui.wait_for("no session logs (*.jsonl) under");
    assert!(tui.screen().contains("0 sessions"));
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// The list opens on its first row once the scan has sorted it (the first log the scan
/// met is not followed to wherever it sorts), and one log is "1 session".
#[test]
fn the_folder_list_opens_on_its_first_row() {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "benign-compaction.jsonl",
        "choices-and-entities.jsonl",
        "codex-rollout.jsonl",
        "pending-compaction.jsonl",
    ];
    for name in names {
        std::fs::copy(sample(name), dir.path().join(name)).unwrap();
    }
    let mut tui = Tui::start(&[dir.path()]);
    tui.wait_for("4 sessions");
    tui.wait_for("2 with PENDING");
    let screen = tui.screen();
    let first = screen
        .lines()
        .find(|l| l.contains("compaction") && !l.contains('■'))
        .unwrap_or_default()
        .to_owned();
    assert!(first.contains('▶'), "the first row is selected:\n{screen}");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
    let one = tempfile::tempdir().unwrap();
    std::fs::copy(sample(names[0]), one.path().join(names[0])).unwrap();
    let mut tui = Tui::start(&[one.path()]);
    tui.wait_for("1 session ");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

#[cfg(feature = "opencode")]
#[test]
fn no_argument_opens_the_operators_own_sessions_of_every_agent() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join("claude-config");
    let codex = home.path().join("codex-home");
    // Copilot CLI's default place under $HOME, not an override.
    // Gemini CLI's GEMINI_CLI_HOME stands for the home folder.
    let gemini = home.path().join("gemini-home/.gemini/tmp/shop/chats");
    std::fs::create_dir_all(&gemini).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-cli-compression.jsonl"),
        gemini.join("session-2026-12-04T09-15-9dcd83e1.jsonl"),
    )
    .unwrap();
    let opencode = opencode_database(home.path());
    let qwen = home.path().join("qwen-home/projects/-home-dev-shop/chats");
    std::fs::create_dir_all(&qwen).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen-code-compression.jsonl"),
        qwen.join("5b63a2d6-1839-4b44-98e8-0b0589ef1fda.jsonl"),
    )
    .unwrap();
    let copilot = home.path().join(".copilot/session-state/157d0ca2");
    std::fs::create_dir_all(&copilot).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot-cli-compaction.jsonl"),
        copilot.join("events.jsonl"),
    )
    .unwrap();
    let project = claude.join("projects").join("-home-dev-payments");
    let day = codex.join("sessions").join("2026").join("11").join("21");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&day).unwrap();
    std::fs::copy(
        sample("claude-code-compaction.jsonl"),
        project.join("8c1d2e3f.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        sample("codex-rollout.jsonl"),
        day.join("rollout-2026-11-21T09-00-00.jsonl"),
    )
    .unwrap();
    let mut tui = Tui::start_with_env(
        &[],
        &[
            ("HOME", home.path()),
            ("CLAUDE_CONFIG_DIR", &claude),
            ("CODEX_HOME", &codex),
            ("QWEN_HOME", &home.path().join("qwen-home")),
            ("OPENCODE_DB", &opencode),
            ("GEMINI_CLI_HOME", &home.path().join("gemini-home")),
            ("XDG_STATE_HOME", &home.path().join("state")),
        ],
    );
    tui.wait_for("6 sessions");
    // Listed at once, filled in as they are read.
    tui.wait_for("claude-code ");
    tui.wait_for("codex ");
    tui.wait_for("copilot-cli ");
    tui.wait_for("gemini-cli ");
    tui.wait_for("qwen-code ");
    tui.wait_for("opencode ");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// An OpenCode database opens like a folder, one session each; an open session follows
/// what OpenCode writes into the database, through ctxlens's copy of it.
#[cfg(feature = "opencode")]
#[test]
fn an_opencode_database_opens_as_its_sessions_and_follows_what_opencode_writes() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    let mut tui = Tui::start_with_env(&[&db], &[("XDG_STATE_HOME", state.path())]);
    tui.wait_for("1 session ");
    tui.wait_for("opencode ");
    tui.keys("\r");
    tui.wait_for("● following  12 events");
    add_opencode_message(
        &db,
        "ses_dbf35cbc4ffexZCIwXw14GB2r3",
        "msg_zzzzzzzzzzzzzzzzzzzzzzzzzz",
        "user",
        "Roll out canary 7e3b9d1c5a20 next.",
    );
    tui.wait_for("13 events");
    tui.keys("G");
    tui.wait_for("user        Roll out canary");
    // Following the database costs nothing while OpenCode writes nothing.
    if Path::new("/proc/self/stat").exists() {
        tui.pump(Duration::from_millis(500));
        let pid = tui.child.process_id().expect("pid");
        let before = cpu_ticks(pid);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            tui.pump(Duration::from_millis(200));
        }
        let used = (cpu_ticks(pid) - before) as f64 / clock_ticks_per_second() as f64;
        let share = used / started.elapsed().as_secs_f64();
        assert!(share < 0.01, "{:.1}% of a core while idle", share * 100.0);
    }
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
    // Nothing was written beside the database.
    let beside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("opencode.db"))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
}

#[test]
fn no_argument_and_no_sessions_says_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    let out = ctxlens()
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("QWEN_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("OPENCODE_DB")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give a log or a folder"));
}

/// User plus system CPU time of a process, in clock ticks (`/proc/PID/stat`, fields 14
/// and 15; the command name in field 2 may hold spaces, so count from its `)`).
#[test]
fn an_idle_tui_uses_no_cpu() {
    if !Path::new("/proc/self/stat").exists() {
        skip(
            "an_idle_tui_uses_no_cpu",
            "no /proc: idle CPU cannot be measured",
        );
        return;
    }
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("1 PENDING");
    // Let the first read and draw settle, then measure 10 s of doing nothing.
    tui.pump(Duration::from_millis(500));
    let pid = tui.child.process_id().expect("pid");
    let before = cpu_ticks(pid);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        tui.pump(Duration::from_millis(200));
    }
    let used = (cpu_ticks(pid) - before) as f64 / clock_ticks_per_second() as f64;
    let share = used / started.elapsed().as_secs_f64();
    assert!(
        share < 0.01,
        "an idle TUI used {:.1}% of a core over 10 s",
        share * 100.0
    );
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// A process standing in for Claude Code: it runs the held pre-compact hook with the
/// recorded payload and, when the hook lets the compaction go ahead (exit 0), writes the
/// compaction to the transcript. Returns the hook's exit code and stdout.
fn claude_code_compacts(transcript: &Path, rest: &str) -> std::thread::JoinHandle<(i32, String)> {
    let payload = hook_payload("pre-compact.json", transcript);
    let (transcript, rest) = (transcript.to_owned(), rest.to_owned());
    std::thread::spawn(move || {
        let out = ctxlens()
            .args([
                "hook",
                "claude-code",
                "pre-compact",
                "--hold",
                "--timeout",
                "120",
            ])
            .write_stdin(payload)
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        if code == 0 {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&transcript)
                .unwrap();
            file.write_all(rest.as_bytes()).unwrap();
        }
        (code, String::from_utf8_lossy(&out.stdout).into_owned())
    })
}

/// Confirms an override when the TUI asks for one, and waits until it is recorded.
fn confirm_if_asked(tui: &mut Tui, verdict: &str) {
    let done = format!("recorded {verdict} for");
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        tui.pump(Duration::from_millis(50));
        let screen = tui.screen();
        if screen.contains("Override?") {
            tui.keys("y");
        } else if screen.contains(&done) {
            return;
        }
    }
    panic!("the decision was never recorded:\n{}", tui.screen());
}

#[test]
fn a_held_claude_code_compaction_is_decided_live_in_the_tui() {
    let (_dir, transcript, rest) = claude_transcript_before_boundary();
    let mut tui = Tui::start(&[&transcript]);
    tui.wait_for("● following");
    // Refuse: the hook exits 2 and Claude Code does not compact.
    let started = Instant::now();
    let claude = claude_code_compacts(&transcript, &rest);
    tui.wait_for("1 PENDING");
    // Measured, not asserted: machines here are shared (the README gives the figure).
    eprintln!(
        "held compaction PENDING in the TUI after {:?}",
        started.elapsed()
    );
    tui.wait_for("HELD by pre-compact");
    let screen = tui.screen();
    assert!(screen.contains("at risk:"), "{screen}");
    // No summary yet: nothing "was dropped", and the region counts what is at risk.
    assert!(!screen.contains("was dropped"), "{screen}");
    assert!(screen.contains("4 at risk"), "{screen}");
    assert!(!screen.contains("no opaque tokens"), "{screen}");
    // A hook cannot re-summarize on request: refetch is not offered.
    assert!(!screen.contains(" r refetch"), "{screen}");
    tui.keys("r");
    tui.wait_for("refetch is not offered");
    tui.keys("x");
    confirm_if_asked(&mut tui, "refuse");
    let (code, _) = claude.join().unwrap();
    assert_eq!(code, 2, "refuse blocks the compaction");
    // Preserve: the contract goes to the summarizer on stdout, and Claude Code compacts.
    let claude = claude_code_compacts(&transcript, &rest);
    tui.wait_for("pre-compact-2");
    tui.wait_for("1 PENDING");
    tui.keys("p");
    confirm_if_asked(&mut tui, "preserve");
    let (code, stdout) = claude.join().unwrap();
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("Keep these identifiers verbatim:\n- "),
        "{stdout}"
    );
    // The compaction landed: no longer held, no longer pending (a look that falls
    // between the agent's writes may show it a moment longer).
    tui.wait_for("COMPACTION cb01");
    tui.wait_until("neither PENDING nor HELD", |screen| {
        !screen.contains("PENDING") && !screen.contains("HELD")
    });
    let sidecar =
        std::fs::read_to_string(format!("{}.decisions.jsonl", transcript.display())).unwrap();
    assert!(sidecar.contains("\"compaction\":\"pre-compact-1\",\"verdict\":\"refuse\""));
    assert!(sidecar.contains("\"compaction\":\"pre-compact-2\",\"verdict\":\"preserve\""));
    // The refuse differed from the gate's spill: recorded as an override.
    assert!(
        sidecar
            .lines()
            .any(|l| l.contains("\"verdict\":\"refuse\"") && l.contains("\"override\":true")),
        "{sidecar}"
    );
    // The landed compaction carries the preserve decided while it was held.
    tui.keys("]");
    tui.wait_for("held as pre-compact-2");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

#[test]
fn a_held_compaction_is_pending_in_the_folder_list() {
    let (dir, transcript, rest) = claude_transcript_before_boundary();
    let mut tui = Tui::start(&[dir.path()]);
    tui.wait_for("1 session ");
    tui.wait_for("0 with PENDING");
    let claude = claude_code_compacts(&transcript, &rest);
    tui.wait_for("1 with PENDING");
    assert!(tui.screen().contains("1 PENDING"), "{}", tui.screen());
    assert_exit(&decide(&transcript, "pre-compact-1", "approve", "ops"), 0);
    let (code, _) = claude.join().unwrap();
    assert_eq!(code, 0);
    tui.wait_for("0 with PENDING");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

#[test]
fn audit_on_a_terminal_shows_its_progress_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("big.jsonl");
    let filler = "lorem ipsum dolor sit amet ".repeat(20);
    let text: String = (1..6000)
        .map(|seq| {
            format!("{{\"type\":\"message\",\"seq\":{seq},\"text\":\"{filler} {seq:012x}\"}}\n")
        })
        .collect();
    std::fs::write(&log, text).unwrap();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(assert_cmd::cargo::cargo_bin("ctxlens"));
    cmd.args(["audit", "--json"]);
    cmd.arg(&log);
    cmd.env("CTXLENS_PROGRESS_AFTER_MS", "0");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut seen = Vec::new();
    let _ = reader.read_to_end(&mut seen);
    assert!(child.wait().unwrap().success());
    let seen = String::from_utf8_lossy(&seen);
    assert!(
        seen.contains("big.jsonl: reading ") && seen.contains("% · "),
        "{seen}"
    );
}

/// Resident memory of a process, in KiB (`/proc/PID/status`).
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc is there");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

/// Follows a log that grows by `grown_mib` MiB of `event(seq)` lines, after a warm-up
/// of 2 MiB: the TUI's resident KiB when warm and at the end, and the log's final size.
fn follow_and_measure(event: impl Fn(u64) -> String, grown_mib: u64) -> (u64, u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("growing.jsonl");
    std::fs::write(&log, event(1)).unwrap();
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("1 event");
    let pid = tui.child.process_id().expect("pid");
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let mut seq = 1;
    let mut append_mib = |tui: &mut Tui, mib: u64| {
        let mut chunk = String::new();
        while (chunk.len() as u64) < mib << 20 {
            seq += 1;
            chunk.push_str(&event(seq));
        }
        file.write_all(chunk.as_bytes()).unwrap();
        tui.wait_for(&format!("{seq} events"));
    };
    // Warm up (the first screens, caches, allocator), then measure what more log costs.
    append_mib(&mut tui, 2);
    tui.pump(Duration::from_millis(300));
    let warm = resident_kib(pid);
    for _ in 0..grown_mib / 2 {
        append_mib(&mut tui, 2);
    }
    tui.pump(Duration::from_millis(300));
    let after = resident_kib(pid);
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
    let log_kib = std::fs::metadata(&log).unwrap().len() / 1024;
    (warm, after, log_kib)
}

#[test]
fn memory_stays_bounded_while_following_a_growing_log() {
    if !Path::new("/proc/self/status").exists() {
        skip("memory of the TUI", "no /proc: memory cannot be measured");
        return;
    }
    // A tool result of about 8 KiB: prose with an identifier every ~25 words, most of
    // them seen before (agents reuse what they work on), one new per event.
    let event = |seq: u64| {
        let mut text = String::new();
        while text.len() < 8 * 1024 {
            text.push_str("the deployment checks went through and the service answered ");
            text.push_str("every probe before the next step of the rollout could start ");
            text.push_str(&format!("rev-{:08x} ", (seq * 7 + text.len() as u64) % 97));
        }
        text.push_str(&format!("snapshot-{seq:016x}"));
        format!(
            "{{\"type\":\"tool_result\",\"seq\":{seq},\"call_id\":\"c{seq}\",\"text\":\"{text}\"}}\n"
        )
    };
    let grown_mib = 24;
    let (warm, after, _) = follow_and_measure(event, grown_mib);
    let grown = after.saturating_sub(warm);
    eprintln!("resident: {warm} KiB warm, {after} KiB after {grown_mib} MiB more");
    // The log's text is never held: what grows is an index entry and a token list per
    // event (about 100 bytes here), plus the shown texts' cache up to its 4 MiB budget
    // and the allocator's slack. Holding the appended text would take 24 MiB or more.
    assert!(
        grown < 12 * 1024,
        "following {grown_mib} MiB more of log grew resident memory by {grown} KiB ({warm} KiB → {after} KiB)"
    );
}

/// The worst case for the per-event index: records of 80 bytes, each an event.
/// The whole TUI stays within the memory budget (64 MiB and 5% of the log).
#[test]
fn following_a_log_of_tiny_events_keeps_to_the_memory_budget() {
    if !Path::new("/proc/self/status").exists() {
        skip("memory of the TUI", "no /proc: memory cannot be measured");
        return;
    }
    let event = |seq: u64| {
        format!(
            "{{\"type\":\"message\",\"seq\":{seq},\"ts\":\"2026-12-04T10:{:02}:{:02}Z\",\"role\":\"user\",\"text\":\"ok\"}}\n",
            seq / 60 % 60,
            seq % 60
        )
    };
    let grown_mib = 24;
    let (warm, after, log_kib) = follow_and_measure(event, grown_mib);
    let budget = 64 * 1024 + log_kib / 20;
    eprintln!(
        "resident: {warm} KiB warm, {after} KiB after {grown_mib} MiB more; budget {budget} KiB"
    );
    assert!(
        after <= budget,
        "following {log_kib} KiB of tiny events took {after} KiB resident, over the {budget} KiB budget"
    );
}

#[cfg(feature = "fleet")]
#[test]
fn the_fleet_view_shows_a_shipped_pending_compaction_and_decides_it_for_a_remote_agent() {
    let Some(server) = crate::common::nats::NatsServer::start(
        "the_fleet_view_shows_a_shipped_pending_compaction_and_decides_it_for_a_remote_agent",
    ) else {
        return;
    };
    let url = server.url();
    // Machine A: an agent's log, shipped, and the runtime waiting for a decision.
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let shipped = ctxlens()
        .env("CTXLENS_NATS_URL", &url)
        .args(["ship", "--once"])
        .arg(&log)
        .output()
        .unwrap();
    assert_exit(&shipped, 0);
    let waiting = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
        .args(["await"])
        .arg(&log)
        .args(["k1", "--timeout", "60"])
        .env("CTXLENS_NATS_URL", &url)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The operator's machine: the fleet view, from the server only.
    let mut tui = Tui::start_with_env(
        &[Path::new("fleet")],
        &[("CTXLENS_NATS_URL", Path::new(&url))],
    );
    tui.wait_for("1 PENDING");
    // The header says how the stores are replicated: one server, one replica.
    tui.wait_for("logs R1");
    tui.keys("\r");
    tui.wait_for("13 events");
    tui.keys("g");
    tui.wait_for("‖ paused");
    tui.keys("]");
    tui.wait_for("Compaction k1 · proposed");
    tui.keys("s");
    tui.wait_for("recorded spill for k1");
    let out = waiting.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let decision: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(decision["verdict"], "spill");
    assert_eq!(decision["by"], "e2e-operator");
    // The spill went to the server: machine A reads it back by its handle.
    let handle = decision["handle"].as_str().unwrap();
    let region = ctxlens()
        .env("CTXLENS_NATS_URL", &url)
        .args(["spill", "get"])
        .arg(&log)
        .arg(handle)
        .output()
        .unwrap();
    assert_exit(&region, 0);
    assert!(String::from_utf8_lossy(&region.stdout).contains("4f9a2c81d0e7"));
    tui.wait_for("decision: SPILL by e2e-operator");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

#[cfg(feature = "fleet")]
#[test]
fn with_a_server_the_tui_on_a_log_shows_and_records_decisions_there() {
    let Some(server) = crate::common::nats::NatsServer::start(
        "with_a_server_the_tui_on_a_log_shows_and_records_decisions_there",
    ) else {
        return;
    };
    let url = server.url();
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let mut tui = Tui::start_with_env(&[&log], &[("CTXLENS_NATS_URL", Path::new(&url))]);
    tui.wait_for("1 PENDING");
    // Another machine decides on the server: the view learns of it without a file.
    let decided = ctxlens()
        .env("CTXLENS_NATS_URL", &url)
        .args(["decide"])
        .arg(&log)
        .args(["k1", "refuse", "--by", "bob"])
        .output()
        .unwrap();
    assert_exit(&decided, 0);
    tui.wait_for("decision: REFUSE by bob");
    assert!(!tui.screen().contains("PENDING"));
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
    let beside: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(beside.len(), 1, "nothing was written beside the log");
}

/// `c` reads the session as a conversation: a message under its role, time and model
/// tokens (counted from the message's last streamed record), its text wrapped; a
/// tool call one line until Enter unfolds it, thinking folded.
#[test]
fn the_conversation_view_wraps_messages_and_folds_calls() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    let base = r#""cwd":"/w","sessionId":"s1","version":"2.1.40","isSidechain":false"#;
    let long = "The restart went through and every pod answered its probe. ".repeat(4);
    let lines = [
        format!(
            r#"{{{base},"type":"user","uuid":"u1","timestamp":"2026-12-04T10:00:00Z","message":{{"role":"user","content":"Restart the payments pods, please."}}}}"#
        ),
        format!(
            r#"{{{base},"type":"assistant","uuid":"a1","timestamp":"2026-12-04T10:00:05Z","message":{{"id":"msg_1","role":"assistant","model":"m","content":[{{"type":"thinking","thinking":"First I look at what runs now.","signature":"s"}}],"usage":{{"input_tokens":3,"output_tokens":9,"cache_read_input_tokens":40000}}}}}}"#
        ),
        format!(
            r#"{{{base},"type":"assistant","uuid":"a2","timestamp":"2026-12-04T10:00:06Z","message":{{"id":"msg_1","role":"assistant","model":"m","content":[{{"type":"tool_use","id":"toolu_1","name":"Bash","input":{{"command":"kubectl rollout restart deploy/payments-api"}}}}],"usage":{{"input_tokens":3,"output_tokens":1349,"cache_read_input_tokens":40000}}}}}}"#
        ),
        format!(
            r#"{{{base},"type":"user","uuid":"u2","timestamp":"2026-12-04T10:00:09Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"deployment.apps/payments-api restarted"}}]}}}}"#
        ),
        format!(
            r#"{{{base},"type":"assistant","uuid":"a3","timestamp":"2026-12-04T10:00:12Z","message":{{"id":"msg_2","role":"assistant","model":"m","content":[{{"type":"text","text":"{long}"}}],"usage":{{"input_tokens":5,"output_tokens":60}}}}}}"#
        ),
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("events");
    tui.keys("g");
    tui.keys("c");
    tui.wait_for("Conversation");
    tui.wait_until("the texts read", |s| {
        s.contains("│Restart the payments pods") && s.contains("▸ tool call  Bash")
    });
    let screen = tui.screen();
    // The first message of msg_1 carries its usage, from its last record.
    assert!(
        screen.contains("in 3 · out 1.3k · cache read 40k"),
        "{screen}"
    );
    assert!(screen.contains("▸ thinking"), "{screen}");
    assert!(
        !screen.contains("First I look"),
        "thinking is folded:\n{screen}"
    );
    assert!(screen.contains("▸ tool call"), "{screen}");
    assert!(screen.contains("in 5 · out 60"), "{screen}");
    // The long message wraps (words kept whole): all of it is on screen, not cut at
    // the pane's edge.
    assert!(screen.matches("answered").count() >= 4, "{screen}");
    // Down to the tool call (past the thinking), then Enter unfolds it.
    tui.keys("jj");
    tui.wait_until("the cursor on the tool call", |s| {
        s.lines().any(|l| l.contains("▶ ▸ tool call"))
    });
    tui.keys("\r");
    tui.wait_for("▾ tool call");
    // The call's input under its line.
    tui.wait_for("│Bash: kubectl rollout restart");
    tui.keys("\r");
    tui.wait_until("the call folded again", |s| !s.contains("▾ tool call"));
    // `c` again: the rows.
    tui.keys("c");
    tui.wait_for("Timeline");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// A session with subagents' transcripts beside it says so in its status bar: they are
/// listed, and open, under it in the folder list.
#[test]
fn a_session_names_its_subagents_transcripts() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("3f2a.jsonl");
    std::fs::copy(sample("claude-code-compaction.jsonl"), &log).unwrap();
    let agents = dir.path().join("3f2a/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    for name in ["agent-a.jsonl", "agent-b.jsonl", "agent-acompact-c.jsonl"] {
        std::fs::copy(sample("claude-code-compaction.jsonl"), agents.join(name)).unwrap();
    }
    let mut tui = Tui::start(&[&log]);
    tui.wait_for("↳ 2 subagents");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// A panic on a background thread, while the main thread holds standard output, ends
/// the viewer: the terminal is given back, what failed is said, the status is not 0.
#[test]
fn a_background_thread_that_panics_ends_the_viewer_with_the_terminal_restored() {
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let mut tui = Tui::start_with_env(
        &[&log],
        &[("CTXLENS_TEST_PANIC_AFTER_MS", Path::new("1500"))],
    );
    tui.wait_for("1 PENDING");
    let (success, restored) = tui.wait_exit();
    assert!(!success, "exits non-zero");
    assert!(restored, "the terminal is restored:\n{}", tui.screen());
    assert!(
        tui.screen().contains("failed on purpose"),
        "{}",
        tui.screen()
    );
}

/// Following an OpenCode database: a database replaced under it (moved over, as a
/// restore does) is opened again and read, as a rotated log is.
#[cfg(feature = "opencode")]
#[test]
fn a_followed_database_replaced_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    let mut tui = Tui::start_with_env(&[&db], &[("XDG_STATE_HOME", state.path())]);
    tui.wait_for("1 session ");
    tui.keys("\r");
    tui.wait_for("● following  12 events");
    let next = dir.path().join("next.db");
    std::fs::copy(&db, &next).unwrap();
    add_opencode_message(
        &next,
        "ses_dbf35cbc4ffexZCIwXw14GB2r3",
        "msg_zzzzzzzzzzzzzzzzzzzzzzzzz1",
        "user",
        "After the restore.",
    );
    std::fs::rename(&next, &db).unwrap();
    tui.wait_for("13 events");
    tui.keys("G");
    tui.wait_for("user        After the restore");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// A disk too full to keep ctxlens's copy of a database session makes the view say it
/// is stalled, and why, instead of "following"; once there is room, it follows again
/// with nothing lost. Needs a small file system of its own, which the test mounts
/// where the machine lets it (CI runs as root).
#[cfg(feature = "opencode")]
#[test]
fn a_full_disk_says_stalled_until_the_copy_can_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    let session = "ses_dbf35cbc4ffexZCIwXw14GB2r3";
    let state = tempfile::tempdir().unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(state.path())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        skip(
            "a_full_disk_says_stalled_until_the_copy_can_be_written",
            "this machine lets the test mount no small file system (it needs root)",
        );
        return;
    }
    // Unmounted however the test ends.
    struct Mounted<'a>(&'a Path);
    impl Drop for Mounted<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(self.0)
                .status();
        }
    }
    let _mounted = Mounted(state.path());
    let mut tui = Tui::start_with_env(&[&db], &[("XDG_STATE_HOME", state.path())]);
    tui.wait_for("1 session ");
    tui.keys("\r");
    tui.wait_for("● following  12 events");
    let filler = state.path().join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let block = vec![b'x'; 4096];
    while file
        .write_all(&block)
        .and_then(|()| file.sync_all())
        .is_ok()
    {}
    drop(file);
    let long = "x".repeat(8192);
    add_opencode_message(
        &db,
        session,
        "msg_zzzzzzzzzzzzzzzzzzzzzzzzz2",
        "user",
        &long,
    );
    tui.wait_for("stalled");
    std::fs::remove_file(&filler).unwrap();
    add_opencode_message(
        &db,
        session,
        "msg_zzzzzzzzzzzzzzzzzzzzzzzzz3",
        "user",
        "Room again.",
    );
    tui.wait_for("● following  14 events");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}

/// At 80x24 a conversation gets the screen; Enter on a compaction opens its summary
/// across the whole width, wrapped, with what it dropped and something needs; a
/// search says which match of how many it landed on.
#[test]
fn at_80x24_the_conversation_reads_a_compactions_summary_and_counts_search_matches() {
    let log = sample("claude-code-ssh-host.jsonl");
    let mut tui = Tui::start_sized(&[&log], &[], (24, 80));
    tui.wait_for("events");
    tui.keys("c");
    tui.wait_for("Conversation");
    tui.keys("g");
    tui.wait_until("the conversation has the screen", |s| {
        let lines: Vec<&str> = s.lines().collect();
        // The pane's bottom border sits on row 22, above the tabs and the hint bar.
        lines.len() >= 22 && lines[1].contains("Conversation") && lines[21].starts_with('└')
    });
    tui.keys("]");
    tui.wait_until("the compaction is selected", |s| {
        s.contains("COMPACTION cb01")
    });
    tui.keys("\r");
    tui.wait_until("the summary opened", |s| {
        s.contains("Compaction cb01 · summary") && s.contains("dropped, and needed")
    });
    let screen = tui.screen();
    assert!(
        screen.contains("continued from a previous conversation"),
        "{screen}"
    );
    // Across the whole width: the summary's lines run from the first column's border.
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("│This session is being continued")),
        "{screen}"
    );
    tui.keys("\x1b");
    tui.wait_until("the summary closed", |s| !s.contains("dropped, and needed"));
    tui.keys("g/203.0.113\r");
    tui.wait_until("the search counted", |s| {
        s.contains("1/") && s.contains("\"203.0.113\"")
    });
    tui.keys("n");
    tui.wait_for("2/");
    tui.keys("q");
    let (ok, restored) = tui.wait_exit();
    assert!(ok && restored);
}

/// `/` in the folder list keeps the filter on Enter and searches every session's text:
/// a session whose title says nothing of the words is listed by where its text holds
/// them, with the line.
#[test]
fn the_folder_list_finds_a_session_by_what_happened_in_it() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["claude-code-ssh-host.jsonl", "pending-compaction.jsonl"] {
        std::fs::copy(sample(name), dir.path().join(name)).unwrap();
    }
    let mut tui = Tui::start_sized(&[dir.path()], &[], (24, 80));
    tui.wait_for("2 sessions");
    tui.wait_for("1 PENDING");
    tui.keys("/203.0.113.7");
    tui.wait_for("of 2 (0 by their text)");
    tui.keys("\r");
    tui.wait_until("the text was searched", |s| {
        s.contains("1 of 2 (1 by their text)") && s.contains("line 3:")
    });
    let screen = tui.screen();
    assert!(screen.contains("claude-code-ssh-host"), "{screen}");
    assert!(!screen.contains("pending-compaction"), "{screen}");
    assert!(screen.contains("203.0.113.7"), "{screen}");
    tui.keys("q");
    assert_eq!(tui.wait_exit(), (true, true));
}
