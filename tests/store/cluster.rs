//! Fleet mode on a real 3-node JetStream cluster started by the test: every store on
//! three replicas, a deployment made on one replica raised, a decision that survives the
//! loss of its store's leader, and a clear failure when the majority is gone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::nats::{the_one_standing_decision, NatsCluster};
use crate::common::*;
use ctxlens::store::nats::{Nats, NatsConfig, StoreState, DECISIONS_BUCKET};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A connection once the cluster has elected its JetStream leader.
fn connect(urls: &str, replicas: Option<usize>) -> Arc<Nats> {
    let deadline = Instant::now() + Duration::from_secs(90);
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
fn a_cluster_keeps_every_store_on_three_replicas_and_a_wait_survives_losing_its_server() {
    let Some(mut cluster) = NatsCluster::start(
        "a_cluster_keeps_every_store_on_three_replicas_and_a_wait_survives_losing_its_server",
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

    // A server dies once the bucket's replicas caught up: a decision still lands,
    // through another server.
    let leader = caught_up_leader(&three, &kv);
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
    // The server the waiting `await` is connected to dies (the bucket's leader where
    // it cannot be told).
    let ports: Vec<u16> = cluster.nodes.iter().map(|n| n.port).collect();
    let connected = crate::common::nats::connected_port(waiting.id(), &ports);
    if Path::new("/proc/net/tcp").exists() {
        assert!(connected.is_some(), "the server the await is connected to");
    }
    let lost = connected
        .and_then(|port| cluster.nodes.iter().find(|n| n.port == port))
        .map_or(leader.clone(), |n| n.name.clone());
    cluster.kill(&lost);
    let out = decide_on(&urls, &log, "k2", &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The wait wakes on the decision made after its server was lost, through another.
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
        .find(|n| *n != lost)
        .unwrap();
    cluster.kill(&other);
    let out = decide_on(&urls, &log, "k3", &[]);
    assert_ne!(out.status.code(), Some(0), "no quorum, nothing recorded");
    assert!(!String::from_utf8_lossy(&out.stderr).trim().is_empty());
}

/// The bucket's leader once its three replicas are current.
fn caught_up_leader(nats: &Nats, kv: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let state = store(&nats.stores().unwrap(), kv).clone();
        if let (Some(leader), 3) = (&state.leader, state.current) {
            return leader.clone();
        }
        assert!(
            Instant::now() < deadline,
            "replicas never caught up: {state:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Forty deciders in separate processes race while the bucket's leader is killed:
/// exactly one decision stands and every decider is told the same one. The killed
/// server, started again, catches up, and `audit` through each server alone reports
/// the same decisions.
#[test]
fn racing_deciders_agree_through_a_lost_leader_and_a_restarted_server_catches_up() {
    let Some(mut cluster) = NatsCluster::start(
        "racing_deciders_agree_through_a_lost_leader_and_a_restarted_server_catches_up",
        3,
    ) else {
        return;
    };
    let urls = cluster.urls();
    let dir = tempfile::tempdir().unwrap();
    let log = three_pending(dir.path());
    let nats = connect(&urls, None);
    assert_exit(&decide_on(&urls, &log, "k1", &[]), 0);
    let kv = format!("KV_{DECISIONS_BUCKET}");
    let leader = caught_up_leader(&nats, &kv);
    drop(nats);

    let deciders: Vec<std::process::Child> = (0..40)
        .map(|i| {
            let verdict = if i % 2 == 0 { "spill" } else { "refuse" };
            std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
                .args(["decide"])
                .arg(&log)
                .args([
                    "k2",
                    verdict,
                    "--by",
                    &format!("operator-{i}"),
                    "--nats",
                    &urls,
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    cluster.kill(&leader);
    let outputs: Vec<_> = deciders
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let standing = the_one_standing_decision(&outputs);

    // The killed server comes back and catches up; each server alone says the same.
    cluster.restart(&leader);
    let nats = connect(&urls, None);
    caught_up_leader(&nats, &kv);
    drop(nats);
    let verdict = standing["verdict"].as_str().unwrap();
    for node in &cluster.nodes {
        let one = format!("nats://127.0.0.1:{}", node.port);
        let (report, _) = audit_json(&log, &["--nats", &one]);
        let decided: Vec<&str> = report["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["decision"]["verdict"].as_str().unwrap_or("none"))
            .collect();
        assert_eq!(
            decided,
            ["spill", verdict, "none"],
            "through {}: {report:#}",
            node.name
        );
    }
}

fn grow(log: &Path, from: u64, lines: u64) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let text: String = (from..from + lines)
        .map(|seq| {
            format!(
                "{{\"type\":\"message\",\"seq\":{seq},\"role\":\"assistant\",\"text\":\"step {seq} at rev-{seq:08x}\"}}\n"
            )
        })
        .collect();
    file.write_all(text.as_bytes()).unwrap();
}

/// A server of the cluster dies while `ship` streams a growing log (the events stream's
/// leader): the shipper goes on through the others, and the stream equals the log byte
/// for byte, no line lost or sent twice.
#[test]
fn ship_goes_on_through_a_lost_server_and_loses_no_line() {
    let Some(mut cluster) =
        NatsCluster::start("ship_goes_on_through_a_lost_server_and_loses_no_line", 3)
    else {
        return;
    };
    let urls = cluster.urls();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("shipped.jsonl");
    grow(&log, 1, 500);
    // Three replicas asked for: a shipper that reached a server of a cluster still
    // forming would size the stream by the servers that server knew yet.
    let mut ship = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
        .args(["ship"])
        .arg(&log)
        .args(["--nats", &urls, "--nats-replicas", "3"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let nats = connect(&urls, Some(3));
    let subject = ctxlens::store::nats::keys::events_subject(
        &ctxlens::store::nats::keys::session_of_log(&ctxlens::store::nats::keys::host(), &log),
    );
    let events = ctxlens::store::nats::EVENTS_STREAM;
    // Once `ship` made the stream and it has a leader (an acknowledged line is on a
    // quorum: the leader may die before the third replica catches up). A loaded
    // machine starts the shipper slowly.
    let deadline = Instant::now() + Duration::from_secs(90);
    let leader = loop {
        let state = nats
            .stores()
            .ok()
            .and_then(|s| s.into_iter().find(|s| s.stream == events));
        if let Some(StoreState {
            leader: Some(leader),
            replicas: 3,
            ..
        }) = &state
        {
            break leader.clone();
        }
        assert!(
            Instant::now() < deadline,
            "the events stream never had a leader: {state:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    drop(nats);
    grow(&log, 501, 300);
    std::thread::sleep(Duration::from_millis(200));
    cluster.kill(&leader);
    grow(&log, 801, 300);
    let local = std::fs::read(&log).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let shipped = connect(&urls, Some(3)).replay(&subject).unwrap_or_default();
        if shipped == local {
            break;
        }
        assert!(
            shipped.len() <= local.len() && local.starts_with(&shipped),
            "the stream holds more than the log, or other bytes: {} of {}",
            shipped.len(),
            local.len()
        );
        assert!(
            Instant::now() < deadline,
            "the stream stopped at {} of {} bytes",
            shipped.len(),
            local.len()
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let _ = ship.kill();
    let _ = ship.wait();
}
