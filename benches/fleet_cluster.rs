//! `cargo bench --bench fleet_cluster`: the fleet on a real 3-node JetStream cluster
//! (three `nats-server` on loopback, from `$CTXLENS_NATS_SERVER` or the PATH), at each
//! size of `CTXLENS_BENCH_SIZES` (default `1000,10000`) sessions, each a small log with
//! one held compaction, shipped with `ship`. Per size: `ship --once` of them all, the
//! `fleet` view's first screen (every session listed, then every one read), its `/`
//! filter, its peak memory, a new pending compaction until the fleet shows it, a
//! decision until a waiting `await` prints it, and the servers' CPU while idle. Then
//! whether the fleet's memory and first screen grow no faster than the sessions do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // a bench fails loudly

#[path = "../tests/common/nats.rs"]
#[allow(dead_code)] // the tests use all of it, the benchmark a part
mod nats_server;

/// The server module's skip notice (a benchmark is run by hand).
fn skip(test: &str, why: &str) {
    eprintln!("skipped {test}: {why}");
}

use ctxlens::store::nats::{self, keys, Nats, NatsConfig};
use ctxlens_core::model::{Decision, Verdict};
use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Sessions that start with no pending compaction: the pending probe gives them one,
/// the first to let `ship` catch up (it asks the server where each log stands first),
/// the others timed.
const PROBES: usize = 11;

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn held(id: &str) -> String {
    format!(
        "{{\"type\":\"compaction\",\"seq\":3,\"id\":\"{id}\",\"phase\":\"proposed\",\"range\":{{\"from\":1,\"to\":2}},\"summary\":\"deploy done\"}}\n"
    )
}

/// `n` small logs: two messages naming a revision, and a held compaction, except the
/// first `PROBES`, which hold none yet.
fn sessions(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let log = dir.join(format!("agent-{i:05}.jsonl"));
            let mut text = format!(
                "{{\"type\":\"message\",\"seq\":1,\"role\":\"user\",\"text\":\"deploy {i:05} at rev 4f9a{i:08x}\"}}\n\
                 {{\"type\":\"message\",\"seq\":2,\"role\":\"assistant\",\"text\":\"deployed 4f9a{i:08x}\"}}\n"
            );
            if i >= PROBES {
                text.push_str(&held("k1"));
            }
            std::fs::write(&log, text).unwrap();
            log
        })
        .collect()
}

/// The connection once the cluster has elected its JetStream leader.
fn connect(urls: &str) -> Arc<Nats> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match Nats::connect(&NatsConfig {
            url: urls.to_owned(),
            ..NatsConfig::default()
        }) {
            Ok(nats) => return nats,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(300)),
            Err(e) => panic!("the cluster never answered: {e}"),
        }
    }
}

/// `ctxlens fleet` in a terminal, its screen as a terminal shows it.
struct Fleet {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    seen: Arc<Mutex<Vec<u8>>>,
    _mirror: tempfile::TempDir,
}

impl Fleet {
    fn start(urls: &str) -> Fleet {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 140,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mirror = tempfile::tempdir().unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_ctxlens"));
        cmd.arg("fleet");
        cmd.env("CTXLENS_NATS_URL", urls);
        cmd.env("XDG_STATE_HOME", mirror.path());
        cmd.env("HOME", mirror.path());
        cmd.env("TERM", "xterm-256color");
        let child = pty.slave.spawn_command(cmd).unwrap();
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        let seen = Arc::new(Mutex::new(Vec::<u8>::new()));
        let into = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                into.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Fleet {
            child,
            writer,
            seen,
            _mirror: mirror,
        }
    }

    fn screen(&self) -> String {
        let size = |n| std::num::NonZeroU16::new(n).unwrap();
        let mut screen = vt100::Parser::new(size(40), size(140), 0);
        screen.process(&self.seen.lock().unwrap());
        screen.screen().contents()
    }

    /// Seconds until the screen shows `text`, or `None` after `limit`.
    fn until(&self, text: &str, limit: Duration) -> Option<f64> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if self.screen().contains(text) {
                return Some(started.elapsed().as_secs_f64());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn keys(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    fn peak_kib(&self) -> Option<u64> {
        let pid = self.child.process_id()?;
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()?
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

fn ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    fields
        .get(11)
        .and_then(|u| u.parse::<u64>().ok())
        .unwrap_or(0)
        + fields
            .get(12)
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0)
}

/// What one size measured.
struct Measured {
    sessions: usize,
    ship_secs: f64,
    listed_secs: Option<f64>,
    read_secs: Option<f64>,
    filter_secs: Option<f64>,
    fleet_mib: Option<f64>,
    pending_ms: Vec<f64>,
    decision_ms: Vec<f64>,
    idle_cpu: f64,
}

/// A decision recorded on the cluster, to a waiting `await` process printing it: ten
/// sessions' held compactions.
fn decision_latency(server: &Arc<Nats>, urls: &str, logs: &[PathBuf]) -> Vec<f64> {
    let mut decision_ms = Vec::new();
    for log in logs.iter().skip(PROBES).take(10) {
        let mut waiting = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
            .args(["await"])
            .arg(log)
            .args(["k1", "--timeout", "30"])
            .env("CTXLENS_NATS_URL", urls)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        let session = keys::session_of_log(&keys::host(), log);
        let backend = nats::backend(server, &session);
        let decision = Decision {
            compaction: "k1".into(),
            verdict: Verdict::Approve,
            by: Some("bench".into()),
            ts: None,
            handle: None,
            reason: None,
            is_override: None,
            contract: None,
        };
        let started = Instant::now();
        backend.channel.record(&decision).unwrap();
        let mut out = String::new();
        waiting
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        decision_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let _ = waiting.wait();
    }
    decision_ms
}

fn measure(n: usize) -> Option<Measured> {
    let cluster = nats_server::NatsCluster::start("the fleet cluster benchmark", 3)?;
    let urls = cluster.urls();
    let server = connect(&urls);
    let dir = tempfile::tempdir().unwrap();
    let logs = sessions(dir.path(), n);
    eprintln!("{n} sessions: shipping …");
    let started = Instant::now();
    let shipped = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["ship", "--once"])
        .arg(dir.path())
        .env("CTXLENS_NATS_URL", &urls)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(shipped.success());
    let ship_secs = started.elapsed().as_secs_f64();
    eprintln!("{n} sessions: the fleet view …");
    let mut fleet = Fleet::start(&urls);
    let limit = Duration::from_secs(900);
    let listed_secs = fleet.until(&format!(" {n} sessions "), limit);
    let read_secs = fleet
        .until(&format!("{} with PENDING decisions", n - PROBES), limit)
        .map(|more| more + listed_secs.unwrap_or(0.0));
    let fleet_mib = fleet.peak_kib().map(|kib| kib as f64 / 1024.0);
    let wanted = format!("agent-{:05}", n / 2);
    fleet.keys(&format!("/{wanted}"));
    let filter_secs = fleet.until(&format!("“{wanted}”: 1 of {n}"), Duration::from_secs(60));
    fleet.keys("\x1b");
    // A session the fleet shows with no pending compaction gets one, through `ship`.
    eprintln!("{n} sessions: pending → fleet …");
    let mut ship = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["ship"])
        .arg(dir.path())
        .env("CTXLENS_NATS_URL", &urls)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let mut pending_ms = Vec::new();
    for (k, log) in logs.iter().take(PROBES).enumerate() {
        let started = Instant::now();
        std::fs::OpenOptions::new()
            .append(true)
            .open(log)
            .unwrap()
            .write_all(held("k1").as_bytes())
            .unwrap();
        let shown = format!("{} with PENDING decisions", n - PROBES + k + 1);
        let limit = Duration::from_secs(if k == 0 { 300 } else { 30 });
        if fleet.until(&shown, limit).is_some() && k > 0 {
            pending_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let _ = ship.kill();
    let _ = ship.wait();
    drop(fleet);
    eprintln!("{n} sessions: decision → await …");
    let decision_ms = decision_latency(&server, &urls, &logs);
    drop(server);
    // The servers with every session on them and no client.
    std::thread::sleep(Duration::from_secs(3));
    let pids = cluster.pids();
    let before: u64 = pids.iter().map(|&p| ticks(p)).sum();
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(10));
    let used = (pids.iter().map(|&p| ticks(p)).sum::<u64>() - before) as f64 / 100.0;
    let idle_cpu = used / started.elapsed().as_secs_f64() / pids.len() as f64 * 100.0;
    Some(Measured {
        sessions: n,
        ship_secs,
        listed_secs,
        read_secs,
        filter_secs,
        fleet_mib,
        pending_ms,
        decision_ms,
        idle_cpu,
    })
}

fn secs(s: Option<f64>) -> String {
    s.map_or("not seen".to_owned(), |s| format!("{s:.1} s"))
}

fn main() {
    let sizes: Vec<usize> = std::env::var("CTXLENS_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,10000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let mut rows = Vec::new();
    for n in sizes {
        match measure(n) {
            Some(m) => rows.push(m),
            None => return,
        }
    }
    println!("| sessions | `ship --once` | fleet: all listed | fleet: all read | `/` filter | fleet peak memory | pending → fleet p50 / p99 | decision → `await` p50 / p99 | servers' CPU idle (each) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for m in &mut rows {
        println!(
            "| {} | {:.1} s | {} | {} | {} | {} | {:.0} / {:.0} ms ({} of {}) | {:.0} / {:.0} ms | {:.2}% |",
            m.sessions,
            m.ship_secs,
            secs(m.listed_secs),
            secs(m.read_secs),
            m.filter_secs
                .map_or("not seen".to_owned(), |s| format!("{:.0} ms", s * 1000.0)),
            m.fleet_mib
                .map_or("not measured".to_owned(), |mib| format!("{mib:.0} MiB")),
            percentile(&mut m.pending_ms, 0.5),
            percentile(&mut m.pending_ms, 0.99),
            m.pending_ms.len(),
            PROBES - 1,
            percentile(&mut m.decision_ms, 0.5),
            percentile(&mut m.decision_ms, 0.99),
            m.idle_cpu
        );
    }
    if let (Some(small), Some(large)) = (rows.first(), rows.last()) {
        if large.sessions > small.sessions {
            let growth = large.sessions as f64 / small.sessions as f64;
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if a > 0.0 => format!("{:.1}×", b / a),
                _ => "n/a".to_owned(),
            };
            println!();
            println!(
                "From {} to {} sessions ({growth:.0}× as many): fleet peak memory {}, all read {}, all listed {}.",
                small.sessions,
                large.sessions,
                ratio(small.fleet_mib, large.fleet_mib),
                ratio(small.read_secs, large.read_secs),
                ratio(small.listed_secs, large.listed_secs)
            );
        }
    }
}
