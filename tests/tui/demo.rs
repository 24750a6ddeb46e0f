//! The demo's simulated agent, run headless: each decision leads to its branch, through
//! the real decision channel.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use ctxlens::tui::demo::{write_scenario, Outcome, Scenario};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn play(verdict: &str) -> (serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("demo.jsonl");
    std::fs::write(&log, "").unwrap();
    let writer = {
        let log = log.clone();
        std::thread::spawn(move || {
            let stop = AtomicBool::new(false);
            let outcome = Mutex::new(Outcome::default());
            write_scenario(
                &Scenario::builtin().unwrap(),
                &log,
                Duration::ZERO,
                &stop,
                &outcome,
            )
            .unwrap();
            outcome.into_inner().unwrap()
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("\"phase\":\"proposed\"")
    {
        assert!(Instant::now() < deadline, "the demo never proposed");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_exit(&decide(&log, "k1", verdict, "demo-test"), 0);
    let outcome = writer.join().unwrap();
    assert!(outcome.finished);
    let (report, _) = audit_json(&log, &[]);
    (report, std::fs::read_to_string(&log).unwrap())
}

fn divergence(report: &serde_json::Value) -> Option<serde_json::Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "non_idempotent")
        .cloned()
}

#[test]
fn approving_lets_the_agent_regenerate_the_revision() {
    let (report, _) = play("approve");
    let finding = divergence(&report).expect("the divergence alert");
    assert_eq!(finding["regenerated_from"], "4f9a2c81d0e7");
}

#[test]
fn spilling_lets_the_agent_read_the_region_back_and_roll_back_right() {
    let (report, log) = play("spill");
    assert!(divergence(&report).is_none(), "{report}");
    let handle = report["compactions"][0]["decision"]["handle"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(log.contains("ctxlens spill get") && log.contains(&handle));
    // The runtime's tripwire stopped the made-up rollback before it ran.
    assert!(
        log.contains("ctxlens check stopped rollback on 7b1e9d03c2a5: step s3 expects rollback on 4f9a2c81d0e7"),
        "{log}"
    );
    assert!(!log.contains("downgrade 7b1e9d03c2a5"));
    // The restore read the real, hash-checked region: it names the revision.
    assert!(log.contains("lines name 4f9a2c81d0e7"), "{log}");
    assert!(log.contains("downgrade 4f9a2c81d0e7"));
}

#[test]
fn preserving_re_summarizes_with_the_contract() {
    let (report, log) = play("preserve");
    assert!(divergence(&report).is_none(), "{report}");
    let k1 = &report["compactions"][0];
    assert_eq!(k1["decision"]["verdict"], "preserve");
    let k2 = &report["compactions"][1];
    assert_eq!(k2["verdict"], "approve", "{report}");
    assert!(
        log.contains("Keep these identifiers verbatim:\\n- 4f9a2c81d0e7"),
        "{log}"
    );
}

#[test]
fn degrading_marks_the_session() {
    let (report, _) = play("degrade");
    assert_eq!(report["degraded"]["since"], "k1");
}

#[test]
fn refetch_and_refuse_keep_the_revision() {
    for verdict in ["refetch", "refuse"] {
        let (report, _) = play(verdict);
        assert!(divergence(&report).is_none(), "{verdict}: {report}");
    }
    let (report, _) = play("refetch");
    let k2 = &report["compactions"][1];
    assert_eq!(
        k2["verdict"], "approve",
        "the re-summary keeps the revision"
    );
}

/// The closing words say only what happened and list only files that exist: a quit
/// before deciding leaves no agent waiting and no decisions file to point at.
#[test]
fn the_closing_words_tell_what_happened_and_name_files_that_exist() {
    use ctxlens::tui::demo::closing_words;
    use ctxlens_core::model::Verdict;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("demo.jsonl");
    std::fs::write(&log, "").unwrap();
    let quit = closing_words(&Outcome::default(), &log);
    assert!(!quit.contains("still waiting"), "{quit}");
    assert!(quit.contains("nothing was decided"), "{quit}");
    assert!(
        !quit.contains("decisions") && !quit.contains("spills"),
        "{quit}"
    );
    let early = Outcome {
        decision: Some((Verdict::Spill, Some("sha256:ab".into()))),
        ..Outcome::default()
    };
    let said = closing_words(&early, &log);
    assert!(said.contains("quit before the agent went on"), "{said}");
    assert!(
        !said.contains("rollback went to"),
        "nothing past the decision: {said}"
    );
    std::fs::write(dir.path().join("demo.jsonl.decisions.jsonl"), "").unwrap();
    let decided = closing_words(&early, &log);
    assert!(
        decided.contains("decisions"),
        "a decisions file that exists is named: {decided}"
    );
}
