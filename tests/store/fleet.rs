//! Fleet mode against a real `nats-server` (started by each test): decisions, spills
//! and shipped logs on JetStream, across processes, kills and restarts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::nats::{the_one_standing_decision, NatsServer};
use crate::common::*;
use ctxlens::store::nats::{keys, Nats, NatsConfig};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn on(server: &NatsServer) -> assert_cmd::Command {
    let mut cmd = ctxlens();
    cmd.env("CTXLENS_NATS_URL", server.url());
    cmd
}

fn spawn_on(server: &NatsServer, args: &[&str], log: &Path) -> Child {
    let bin = assert_cmd::cargo::cargo_bin("ctxlens");
    let mut cmd = Command::new(bin);
    cmd.args(args.iter().take(1))
        .arg(log)
        .args(args.iter().skip(1))
        .env("CTXLENS_NATS_URL", server.url())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().unwrap()
}

/// `decide` on the server.
fn decide_on(
    server: &NatsServer,
    log: &Path,
    id: &str,
    verdict: &str,
    by: &str,
) -> std::process::Output {
    on(server)
        .args(["decide"])
        .arg(log)
        .args([id, verdict, "--by", by])
        .output()
        .unwrap()
}

/// What the stream holds of `log`, replayed through the library.
fn replayed(server: &NatsServer, log: &Path) -> Vec<u8> {
    let nats = Nats::connect(&NatsConfig {
        url: server.url(),
        ..NatsConfig::default()
    })
    .unwrap();
    let subject = keys::events_subject(&keys::session_of_log(&keys::host(), log));
    nats.replay(&subject).unwrap()
}

#[test]
fn the_first_decision_stands_across_forty_deciders() {
    let Some(server) = NatsServer::start("the_first_decision_stands_across_forty_deciders") else {
        return;
    };
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let deciders: Vec<Child> = (0..40)
        .map(|i| {
            let verdict = if i % 2 == 0 { "spill" } else { "refuse" };
            let by = format!("operator-{i}");
            spawn_on(&server, &["decide", "k1", verdict, "--by", &by], &log)
        })
        .collect();
    let outputs: Vec<_> = deciders
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    the_one_standing_decision(&outputs);
    // Nothing was written beside the log: the server holds the decision and the spill.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn a_decision_reaches_an_await_in_another_process() {
    let Some(server) = NatsServer::start("a_decision_reaches_an_await_in_another_process") else {
        return;
    };
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let waiting = spawn_on(&server, &["await", "k1", "--timeout", "60"], &log);
    // The waiter subscribes before it looks, so the order does not matter; give it
    // time to be waiting for real.
    std::thread::sleep(Duration::from_millis(700));
    let decided = decide_on(&server, &log, "k1", "refuse", "remote");
    let decided_at = Instant::now();
    assert_exit(&decided, 0);
    let out = waiting.wait_with_output().unwrap();
    eprintln!(
        "await returned {} ms after decide exited",
        decided_at.elapsed().as_millis()
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["verdict"], "refuse");
    assert_eq!(got["by"], "remote");
}

#[test]
fn a_spill_is_stored_on_the_server_and_checked_when_read() {
    let Some(server) = NatsServer::start("a_spill_is_stored_on_the_server_and_checked_when_read")
    else {
        return;
    };
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let out = decide_on(&server, &log, "k1", "spill", "ops");
    assert_exit(&out, 0);
    let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
    let handle = decision["handle"].as_str().unwrap().to_owned();
    let region = on(&server)
        .args(["spill", "get"])
        .arg(&log)
        .arg(&handle)
        .output()
        .unwrap();
    assert_exit(&region, 0);
    let text = String::from_utf8(region.stdout).unwrap();
    assert!(
        text.contains("4f9a2c81d0e7"),
        "the region holds the rollback revision"
    );
    assert!(text
        .lines()
        .all(|l| serde_json::from_str::<Value>(l).is_ok()));

    // An object planted under another region's hash is refused, not printed.
    let forged = format!("{:064x}", 7);
    let url = server.url();
    let name = forged.clone();
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(async move {
            let client = async_nats::connect(url).await.unwrap();
            let js = async_nats::jetstream::new(client);
            let store = js.get_object_store("ctxlens-spills").await.unwrap();
            store
                .put(name.as_str(), &mut &b"not what was spilled\n"[..])
                .await
                .unwrap();
        });
    let refused = on(&server)
        .args(["spill", "get"])
        .arg(&log)
        .arg(format!("sha256:{forged}"))
        .output()
        .unwrap();
    assert_exit(&refused, 2);
    assert!(refused.stdout.is_empty());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("corrupt"));
}

/// A canonical log of `lines` messages, with one line longer than a message may be.
fn grow_log(log: &Path, from: u64, lines: u64) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let mut text = String::new();
    for seq in from..from + lines {
        let body = if seq % 500 == 7 {
            "long ".repeat(70_000)
        } else {
            format!("step {seq} touched rev-{seq:08x} and went on")
        };
        text.push_str(&format!(
            "{{\"type\":\"message\",\"seq\":{seq},\"role\":\"assistant\",\"text\":\"{body}\"}}\n"
        ));
    }
    file.write_all(text.as_bytes()).unwrap();
}

#[test]
fn ship_publishes_every_line_once_when_it_is_killed_and_restarted() {
    let Some(server) =
        NatsServer::start("ship_publishes_every_line_once_when_it_is_killed_and_restarted")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("shipped.jsonl");
    grow_log(&log, 1, 1500);
    let mut seq = 1501;
    // Kill the shipper at varied moments while the log grows.
    for round in 0..6u64 {
        let mut ship = spawn_on(&server, &["ship"], &log);
        std::thread::sleep(Duration::from_millis(40 + round * 70));
        grow_log(&log, seq, 300);
        seq += 300;
        std::thread::sleep(Duration::from_millis(30 * round));
        ship.kill().unwrap();
        ship.wait().unwrap();
    }
    let last = on(&server)
        .args(["ship", "--once"])
        .arg(&log)
        .output()
        .unwrap();
    assert_exit(&last, 0);
    // Shipping again resumes where the server's copy ends: nothing is sent twice (the
    // server's duplicate window would hide a repeat; this does not rely on it).
    let again = on(&server)
        .args(["ship", "--once"])
        .arg(&log)
        .output()
        .unwrap();
    assert_exit(&again, 0);
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("shipped 0 lines"), "{said}");
    let shipped = replayed(&server, &log);
    let local = std::fs::read(&log).unwrap();
    assert_eq!(shipped.len(), local.len(), "no line lost or sent twice");
    assert!(shipped == local, "the stream equals the log byte for byte");
    // The fleet audits it from the stream as it would the file.
    let subject = keys::events_subject(&keys::session_of_log(&keys::host(), &log));
    let from_stream = on(&server)
        .args(["audit", "--json", &subject])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&from_stream.stdout).unwrap();
    assert_eq!(report["events"], seq - 1);
}

#[test]
fn a_server_killed_and_restarted_keeps_every_acknowledged_decision_and_line() {
    let Some(mut server) = NatsServer::start(
        "a_server_killed_and_restarted_keeps_every_acknowledged_decision_and_line",
    ) else {
        return;
    };
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let decided = decide_on(&server, &log, "k1", "spill", "ops");
    assert_exit(&decided, 0);
    let mut ship = spawn_on(&server, &["ship"], &log);
    std::thread::sleep(Duration::from_millis(500));
    server.kill();
    grow_log(&log, 100, 200);
    server.restart();
    grow_log(&log, 300, 200);
    // The shipper reconnects and goes on where the server's copy ends.
    let started = Instant::now();
    let local = std::fs::read(&log).unwrap();
    while replayed_or_empty(&server, &log).len() < local.len()
        && started.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    ship.kill().unwrap();
    ship.wait().unwrap();
    assert!(replayed(&server, &log) == local, "0 lost, 0 duplicated");
    let standing = on(&server)
        .args(["await"])
        .arg(&log)
        .args(["k1", "--timeout", "5"])
        .output()
        .unwrap();
    assert_exit(&standing, 0);
    let decision: Value = serde_json::from_slice(&standing.stdout).unwrap();
    assert_eq!(decision["verdict"], "spill");
}

fn replayed_or_empty(server: &NatsServer, log: &Path) -> Vec<u8> {
    let nats = Nats::connect(&NatsConfig {
        url: server.url(),
        ..NatsConfig::default()
    });
    let subject = keys::events_subject(&keys::session_of_log(&keys::host(), log));
    nats.and_then(|n| n.replay(&subject)).unwrap_or_default()
}

#[test]
fn a_truncated_log_is_shipped_again_as_a_new_epoch() {
    let Some(server) = NatsServer::start("a_truncated_log_is_shipped_again_as_a_new_epoch") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("rotating.jsonl");
    grow_log(&log, 1, 50);
    let ship = |server: &NatsServer| {
        let out = on(server)
            .args(["ship", "--once"])
            .arg(&log)
            .output()
            .unwrap();
        assert_exit(&out, 0);
    };
    ship(&server);
    std::fs::write(&log, b"").unwrap();
    grow_log(&log, 1, 10);
    ship(&server);
    assert!(replayed(&server, &log) == std::fs::read(&log).unwrap());
}

#[test]
fn the_tripwire_reads_the_spill_handle_from_the_server() {
    let Some(server) = NatsServer::start("the_tripwire_reads_the_spill_handle_from_the_server")
    else {
        return;
    };
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let decided = decide_on(&server, &log, "k1", "spill", "alice");
    assert_exit(&decided, 0);
    let handle = serde_json::from_slice::<Value>(&decided.stdout).unwrap()["handle"].clone();
    apply_k1_and_run_the_smoke_step(&log);
    let action = r#"{"name":"rollback","target":"7b1e9d03c2a5","step":"s3"}"#;
    for (where_, expect) in [("server", handle), ("files", Value::Null)] {
        let mut cmd = if where_ == "server" {
            on(&server)
        } else {
            ctxlens()
        };
        let out = cmd
            .args(["check"])
            .arg(&log)
            .args(["--action", action])
            .output()
            .unwrap();
        assert_exit(&out, 1);
        let said: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(said["handle"], expect, "{where_}: {said}");
    }
    // The gate and the audit see the decision that stands on the server.
    let gate = on(&server)
        .args(["audit", "--json"])
        .arg(&log)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&gate.stdout).unwrap();
    assert_eq!(report["compactions"][0]["decision"]["verdict"], "spill");
}

#[test]
fn a_decision_made_on_the_server_while_held_is_the_landed_compactions() {
    let Some(server) =
        NatsServer::start("a_decision_made_on_the_server_while_held_is_the_landed_compactions")
    else {
        return;
    };
    let (_dir, path, rest) = claude_transcript_before_boundary();
    let url = server.url();
    let hook = hold_claude_code(&path, &[("CTXLENS_NATS_URL", &url)]);
    assert_exit(
        &decide_on(&server, &path, "pre-compact-1", "spill", "ops"),
        0,
    );
    assert_exit(&hook.wait_with_output().unwrap(), 0);
    // The decision lives on the server, not beside the transcript.
    assert!(!Path::new(&format!("{}.decisions.jsonl", path.display())).exists());
    land(&path, &rest);
    let out = on(&server)
        .args(["audit", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let compaction = &report["compactions"][0];
    assert_eq!(compaction["held_as"], "pre-compact-1", "{compaction}");
    assert_eq!(compaction["decision"]["verdict"], "spill", "{compaction}");
    assert_eq!(out.status.code(), Some(0), "{report}");
}

#[test]
fn a_compaction_id_of_any_length_is_decided_on_either_store() {
    let Some(server) =
        NatsServer::start("a_compaction_id_of_any_length_is_decided_on_either_store")
    else {
        return;
    };
    let long = "k".repeat(10_000);
    for id in ["k1", "k.1 with spaces/and*wild>cards", long.as_str()] {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("session.jsonl");
        let compaction = serde_json::json!({
            "type": "compaction", "seq": 3, "id": id, "phase": "proposed",
            "range": {"from": 1, "to": 2}, "summary": "the work so far"
        });
        std::fs::write(
            &log,
            format!(
                "{}\n{}\n{compaction}\n",
                r#"{"type":"message","seq":1,"role":"user","text":"deploy"}"#,
                r#"{"type":"message","seq":2,"role":"assistant","text":"done"}"#
            ),
        )
        .unwrap();
        // The file store, then the server, take the same id.
        assert_exit(&decide(&log, id, "approve", "ops"), 0);
        let out = decide_on(&server, &log, id, "refuse", "ops");
        assert_exit(&out, 0);
        let out = on(&server)
            .args(["await"])
            .arg(&log)
            .args([id, "--timeout", "5"])
            .output()
            .unwrap();
        assert_exit(&out, 0);
        let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(decision["compaction"], id);
        assert_eq!(decision["verdict"], "refuse");
    }
}

/// The server goes away while a hook holds a compaction: the hook waits out its timeout
/// (the server may come back), lets the compaction go ahead as a timeout does, and its
/// ledger line says why.
#[test]
fn a_held_hook_whose_server_is_lost_times_out_and_says_why() {
    let Some(mut server) =
        NatsServer::start("a_held_hook_whose_server_is_lost_times_out_and_says_why")
    else {
        return;
    };
    let (_dir, path, _rest) = claude_transcript_before_boundary();
    let url = server.url();
    let held = ledger_len(&path) + 1;
    let hook = spawn_with_stdin(
        &[
            "hook",
            "claude-code",
            "pre-compact",
            "--hold",
            "--timeout",
            "10",
        ],
        &[("CTXLENS_NATS_URL", &url)],
        &hook_payload("pre-compact.json", &path),
    );
    wait_for_ledger(&path, held);
    // Lost once the hook waits on it.
    std::thread::sleep(Duration::from_secs(2));
    server.kill();
    let started = Instant::now();
    let out = hook.wait_with_output().unwrap();
    assert_exit(&out, 0);
    assert!(
        // The hold, and well within the 30 s more that install gives the agent's own
        // hook timeout.
        started.elapsed() < Duration::from_secs(25),
        "it kept to its timeout: {:?}\n{}",
        started.elapsed(),
        String::from_utf8_lossy(&out.stderr)
    );
    let ledger =
        std::fs::read_to_string(format!("{}.ctxlens-ledger.jsonl", path.display())).unwrap();
    let released: Value = ledger
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["kind"] == "released" || e.get("why").is_some())
        .unwrap_or_else(|| panic!("no released line:\n{ledger}"));
    let why = released["why"].as_str().unwrap_or_default();
    assert!(why.contains("no decision before the timeout"), "{released}");
    assert!(why.contains("could not be read"), "{released}");
}

/// An OpenCode database ships as one log per session, each the lines `audit` reads: the
/// fleet audits the session from the stream as it would the database.
#[cfg(feature = "opencode")]
#[test]
fn an_opencode_database_ships_one_log_per_session() {
    let Some(server) = NatsServer::start("an_opencode_database_ships_one_log_per_session") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let db = opencode_database(dir.path());
    let out = on(&server)
        .args(["ship", "--once"])
        .arg(&db)
        .env("XDG_STATE_HOME", state.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let subject = keys::events_subject(&keys::session_of_log(
        &keys::host(),
        Path::new("ses_dbf35cbc4ffexZCIwXw14GB2r3.jsonl"),
    ));
    let from_stream = on(&server)
        .args(["audit", "--json", "--tokens", &subject])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&from_stream.stdout).unwrap();
    assert_eq!(report["format"], "opencode");
    let dropped = report["compactions"][0]["dropped_tokens"]
        .as_array()
        .unwrap();
    assert!(dropped.iter().any(|t| t["token"] == "4f9a2c81d0e7"));
    // Nothing was written beside the database.
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("opencode.db")));
}

/// A Copilot CLI session is `<session-id>/events.jsonl`: two of them on one host are two
/// fleet sessions. Shipped together, each keeps its own subject; a decision on one is
/// never read by the other.
#[test]
fn two_sessions_with_one_file_name_never_share_a_subject_or_a_decision() {
    let Some(server) =
        NatsServer::start("two_sessions_with_one_file_name_never_share_a_subject_or_a_decision")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot-cli-compaction.jsonl"),
    )
    .unwrap();
    let logs: Vec<_> = [
        "3f1c2b9e-8d4a-4e0f-9a6b-1c2d3e4f5a6b",
        "77aa0c1d-0000-4e0f-9a6b-1c2d3e4f5a6b",
    ]
    .iter()
    .map(|id| {
        let folder = dir.path().join("session-state").join(id);
        std::fs::create_dir_all(&folder).unwrap();
        let log = folder.join("events.jsonl");
        std::fs::write(&log, &fixture).unwrap();
        log
    })
    .collect();
    let (a, b) = (&logs[0], &logs[1]);
    // Different content, so a mixed subject would show.
    let mut extra = std::fs::OpenOptions::new().append(true).open(b).unwrap();
    writeln!(extra, r#"{{"type":"user.message","data":{{"content":"only in b"}},"id":"x","timestamp":"2026-12-04T09:09:00.000Z","parentId":null}}"#).unwrap();
    let out = on(&server)
        .args(["ship", "--once"])
        .arg(dir.path().join("session-state"))
        .env("XDG_STATE_HOME", state.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_ne!(
        keys::session_of_log(&keys::host(), a),
        keys::session_of_log(&keys::host(), b)
    );
    assert_eq!(replayed(&server, a), std::fs::read(a).unwrap());
    assert_eq!(replayed(&server, b), std::fs::read(b).unwrap());
    // A refuse on A is A's alone.
    let id = "compacted-1";
    let audit = |log: &Path| {
        let out = on(&server)
            .args(["gate", "--json"])
            .arg(log)
            .arg(id)
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null)
    };
    let before = audit(b);
    let decided = decide_on(&server, a, id, "approve", "ops");
    assert_exit(&decided, 0);
    assert_eq!(audit(b), before, "B reads no decision of A's");
    assert_ne!(audit(a), before, "A reads its own");
}

/// A subject that holds another file's log (two hosts of one name shipping one path)
/// is refused loudly, and what it holds is left as it was.
#[test]
fn a_shipper_refuses_a_subject_that_holds_another_files_log() {
    let Some(server) =
        NatsServer::start("a_shipper_refuses_a_subject_that_holds_another_files_log")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir
        .path()
        .join("3f2a0b1c-0000-4e0f-9a6b-1c2d3e4f5a6b.jsonl");
    std::fs::write(
        &log,
        "{\"type\":\"message\",\"seq\":1,\"text\":\"first host\"}\n",
    )
    .unwrap();
    let ship = |state: &Path| {
        on(&server)
            .args(["ship", "--once"])
            .arg(&log)
            .env("XDG_STATE_HOME", state)
            .output()
            .unwrap()
    };
    let first = tempfile::tempdir().unwrap();
    assert_exit(&ship(first.path()), 0);
    let shipped = replayed(&server, &log);
    // Another machine (another ctxlens id) with the same host name and path.
    std::fs::write(
        &log,
        "{\"type\":\"message\",\"seq\":1,\"text\":\"second host, longer\"}\n",
    )
    .unwrap();
    let second = tempfile::tempdir().unwrap();
    let refused = ship(second.path());
    assert_exit(&refused, 2);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("refused") && stderr.contains("another file"),
        "{stderr}"
    );
    assert_eq!(
        replayed(&server, &log),
        shipped,
        "the first host's log stands"
    );
    // The first machine goes on shipping its own.
    assert_exit(&ship(first.path()), 0);
}

/// A server without JetStream fails every fleet command within seconds, saying which
/// server ctxlens needs and how to get it: never an election's wait, never a parse
/// error. A hook on such a server adds no such wait to the agent's turn.
#[test]
fn a_server_without_jetstream_is_refused_at_once_with_what_to_do() {
    let Some(server) = NatsServer::start_without_jetstream(
        "a_server_without_jetstream_is_refused_at_once_with_what_to_do",
    ) else {
        return;
    };
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    for args in [
        vec!["audit".to_owned(), log.display().to_string()],
        vec![
            "await".to_owned(),
            log.display().to_string(),
            "k1".to_owned(),
            "--timeout".to_owned(),
            "3".to_owned(),
        ],
    ] {
        let started = Instant::now();
        let out = on(&server).args(&args).output().unwrap();
        let took = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("without JetStream"), "{args:?}: {stderr}");
        assert!(stderr.contains("scripts/install-nats-server"), "{stderr}");
        assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
    }
    let started = Instant::now();
    let hook = on(&server)
        .args(["hook", "claude-code", "pre-compact"])
        .write_stdin(hook_payload("pre-compact.json", &log))
        .output()
        .unwrap();
    assert_exit(&hook, 0);
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// A store's failure says whose it is: the server's (out of reach, here killed) is
/// told from the disk's (a sidecar that cannot be read), so an operator knows where to
/// look.
#[test]
fn a_server_failure_is_told_from_a_disk_failure() {
    let Some(mut server) = NatsServer::start("a_server_failure_is_told_from_a_disk_failure") else {
        return;
    };
    let (_dir, log) = sample_copy("pending-compaction.jsonl");
    let nats = Nats::connect(&NatsConfig {
        url: server.url(),
        ..NatsConfig::default()
    })
    .unwrap();
    let session = keys::session_of_log(&keys::host(), &log);
    let backend = ctxlens::store::nats::backend(&nats, &session);
    backend.channel.standing().unwrap();
    server.kill();
    let lost = backend.channel.standing().unwrap_err();
    assert!(lost.is_server(), "{lost:?}");

    // The file store's sidecar is a folder here: the disk's failure.
    std::fs::create_dir(ctxlens::store::paths::decisions_path(&log)).unwrap();
    let files = ctxlens::store::channel::Backend::files(&log);
    let unreadable = files.channel.standing().unwrap_err();
    assert!(
        matches!(unreadable, ctxlens::store::StoreError::Disk(_)),
        "{unreadable:?}"
    );
}
