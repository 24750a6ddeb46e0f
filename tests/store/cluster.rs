//! Fleet mode on a real 3-node JetStream cluster started by the test: every store on
//! three replicas, a deployment made on one replica raised, a decision that survives the
//! loss of its store's leader, and a clear failure when the majority is gone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::nats::NatsCluster;
use crate::common::*;
use ctxlens::store::nats::{Nats, NatsConfig, StoreState, DECISIONS_BUCKET};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A connection once the cluster has elected its JetStream leader.
fn connect(urls: &str, replicas: Option<usize>) -> Arc<Nats> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let config = NatsConfig {
            url: urls.to_owned(),
            replicas,
            ..NatsConfig::default()
        };
        match Nats::connect(&config) {
            Ok(nats) => return nats,
            Err(e) if Instant::now() < deadline => {
                eprintln!("cluster not ready yet: {e}");
                std::thread::sleep(Duration::from_millis(300));
            }
            Err(e) => panic!("the cluster never answered: {e}"),
        }
    }
}

fn decide_on(urls: &str, log: &Path, id: &str, extra: &[&str]) -> std::process::Output {
    ctxlens()
        .args(["decide"])
        .arg(log)
        .args([id, "spill", "--by", "ops", "--nats", urls])
        .args(extra)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

fn store<'a>(stores: &'a [StoreState], stream: &str) -> &'a StoreState {
    stores
        .iter()
        .find(|s| s.stream == stream)
        .unwrap_or_else(|| panic!("no {stream} in {stores:?}"))
}

/// Three proposed compactions, each a region of one message.
fn three_pending(dir: &Path) -> std::path::PathBuf {
    let log = dir.join("s.jsonl");
    let mut lines = vec![r#"{"type":"session","seq":1,"cwd":"/srv"}"#.to_owned()];
    for k in 1..=3 {
        let m = 2 * k;
        lines.push(format!(
            r#"{{"type":"message","seq":{m},"role":"assistant","text":"rolled to 4f9a2c81d0e{k}"}}"#
        ));
        lines.push(format!(
            r#"{{"type":"compaction","seq":{},"id":"k{k}","phase":"proposed","range":{{"from":{m},"to":{m}}},"summary":"rolled"}}"#,
            m + 1
        ));
    }
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    log
}

#[test]
fn a_cluster_keeps_every_store_on_three_replicas_and_decides_through_a_lost_leader() {
    let Some(mut cluster) = NatsCluster::start(
        "a_cluster_keeps_every_store_on_three_replicas_and_decides_through_a_lost_leader",
        3,
    ) else {
        return;
    };
    let urls = cluster.urls();
    let dir = tempfile::tempdir().unwrap();
    let log = three_pending(dir.path());
    let _ready = connect(&urls, None);

    // A deployment made with one replica (as on a single server) …
    let out = decide_on(&urls, &log, "k1", &["--nats-replicas", "1"]);
    assert_exit(&out, 0);
    let kv = format!("KV_{DECISIONS_BUCKET}");
    let one = connect(&urls, Some(1)).stores().unwrap();
    assert_eq!(store(&one, &kv).replicas, 1, "{one:?}");
    // … is raised to the cluster's three by the next connection that does not say otherwise.
    let three = connect(&urls, None);
    assert_eq!(three.replicas(), 3);
    let stores = three.stores().unwrap();
    for state in &stores {
        assert_eq!(state.replicas, 3, "{stores:?}");
    }

    // The bucket's leader dies once its replicas caught up: a decision still lands,
    // through another server.
    let deadline = Instant::now() + Duration::from_secs(30);
    let leader = loop {
        let kv_state = store(&three.stores().unwrap(), &kv).clone();
        if let (Some(leader), 3) = (&kv_state.leader, kv_state.current) {
            break leader.clone();
        }
        assert!(
            Instant::now() < deadline,
            "the bucket's replicas never caught up: {kv_state:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    drop(three);
    // A runtime waits for k2's decision through the cluster.
    let waiting = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
        .args(["await"])
        .arg(&log)
        .args(["k2", "--timeout", "90", "--nats", &urls])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    cluster.kill(&leader);
    let out = decide_on(&urls, &log, "k2", &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The wait wakes on the decision made after the leader was lost.
    let awaited = waiting.wait_with_output().unwrap();
    assert_eq!(
        awaited.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&awaited.stderr)
    );
    assert!(String::from_utf8_lossy(&awaited.stdout).contains("\"verdict\":\"spill\""));
    let (report, _) = audit_json(&log, &["--nats", &urls]);
    let decided: Vec<&str> = report["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["decision"]["verdict"].as_str())
        .collect();
    assert_eq!(decided, ["spill", "spill"], "{report:#}");

    // A second server lost: no quorum, and `decide` says so rather than records.
    let other = cluster
        .nodes
        .iter()
        .map(|n| n.name.clone())
        .find(|n| *n != leader)
        .unwrap();
    cluster.kill(&other);
    let out = decide_on(&urls, &log, "k3", &[]);
    assert_ne!(out.status.code(), Some(0), "no quorum, nothing recorded");
    assert!(!String::from_utf8_lossy(&out.stderr).trim().is_empty());
}
