//! `cargo bench --bench fleet`: the fleet goals of docs/fleet.md, measured on this
//! machine over loopback against a real `nats-server` (from `$CTXLENS_NATS_SERVER` or
//! the PATH; `scripts/install-nats-server` installs it). Sessions:
//! `CTXLENS_BENCH_SESSIONS` (default 1000), for `CTXLENS_BENCH_SECS` (default 20).
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
use futures_util::StreamExt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[at]
}

fn line(seq: u64, text: &str) -> String {
    format!("{{\"type\":\"message\",\"seq\":{seq},\"role\":\"assistant\",\"text\":\"{text}\"}}\n")
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// The ship goal: N sessions writing one event every 2 s each, followed by one
/// `ctxlens ship`; the time from an append to its message on the stream.
fn shipping(url: &str, dir: &Path, sessions: u64, secs: u64) -> (Vec<f64>, u64, u64) {
    let logs: Vec<PathBuf> = (0..sessions)
        .map(|i| {
            let log = dir.join(format!("agent-{i:04}.jsonl"));
            std::fs::write(&log, line(1, "session start")).unwrap();
            log
        })
        .collect();
    let seen: Arc<Mutex<Vec<f64>>> = Arc::default();
    // The operator's side: every message as it lands on the stream.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (url_owned, seen_in) = (url.to_owned(), seen.clone());
    runtime.spawn(async move {
        let client = async_nats::connect(url_owned).await.unwrap();
        let mut messages = client.subscribe("ctxlens.*.*.events").await.unwrap();
        while let Some(message) = messages.next().await {
            let text = String::from_utf8_lossy(&message.payload);
            if let Some(at) = text
                .split("written-at-")
                .nth(1)
                .and_then(|t| t.split('"').next())
                .and_then(|t| t.parse::<u64>().ok())
            {
                let ms = now_micros().saturating_sub(at) as f64 / 1000.0;
                seen_in.lock().unwrap().push(ms);
            }
        }
    });
    let mut ship = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["ship"])
        .arg(dir)
        .env("CTXLENS_NATS_URL", url)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    // One event per 2 s per session, spread evenly.
    let gap = Duration::from_micros(2_000_000 / sessions.max(1));
    let started = Instant::now();
    let mut written = 0u64;
    let mut seq = vec![1u64; logs.len()];
    while started.elapsed() < Duration::from_secs(secs) {
        let i = (written % sessions) as usize;
        seq[i] += 1;
        append(
            &logs[i],
            &line(seq[i], &format!("step written-at-{}", now_micros())),
        );
        written += 1;
        let next = gap * (written as u32);
        if let Some(wait) = next.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
    }
    std::thread::sleep(Duration::from_secs(3));
    let _ = ship.kill();
    let _ = ship.wait();
    let samples = seen.lock().unwrap().clone();
    let received = samples.len() as u64;
    drop(runtime);
    (samples, written, received)
}

/// `CTXLENS_BENCH_ARCHIVES` (default 10) archived sessions of `CTXLENS_BENCH_ARCHIVE_MB`
/// (default 50) each, shipped with `ship --once`; returns their subjects and MB/s.
fn archives(dir: &Path, url: &str) -> (Vec<String>, f64) {
    let count = env_or("CTXLENS_BENCH_ARCHIVES", 10);
    let mb = env_or("CTXLENS_BENCH_ARCHIVE_MB", 50);
    for a in 0..count {
        let path = dir.join(format!("archive-{a:02}.jsonl"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut written = 0u64;
        let mut seq = 0u64;
        while written < mb * 1_000_000 {
            seq += 1;
            let text = line(
                seq,
                &format!(
                    "ran migration step {seq} at rev-{:012x} and checked /srv/app/db/{}.sql",
                    seq * 7919,
                    seq % 97
                ),
            );
            out.write_all(text.as_bytes()).unwrap();
            written += text.len() as u64;
        }
    }
    let started = Instant::now();
    let shipped = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["ship", "--once"])
        .arg(dir)
        .env("CTXLENS_NATS_URL", url)
        .output()
        .unwrap();
    assert!(shipped.status.success());
    let rate = (count * mb) as f64 / started.elapsed().as_secs_f64();
    let subjects = (0..count)
        .map(|a| {
            let log = dir.join(format!("archive-{a:02}.jsonl"));
            keys::events_subject(&keys::session_of_log(&keys::host(), &log))
        })
        .collect();
    (subjects, rate)
}

/// Operators replaying the archives from the stream, each once, all at once: what
/// the server and the stream carry. (An operator's analysis of a replay runs on the
/// operator's machine, not beside the shipper; `audit` of one archive is timed apart.)
/// Returns how many replays finished.
fn replaying(url: &str, subjects: &[String]) -> Vec<std::thread::JoinHandle<u64>> {
    subjects
        .iter()
        .map(|subject| {
            let (url, subject) = (url.to_owned(), subject.clone());
            std::thread::spawn(move || {
                let reader = Nats::connect(&NatsConfig {
                    url,
                    ..NatsConfig::default()
                })
                .unwrap();
                // Each operator replays its archive once, as one opening an archived
                // session would; started together, at the start of the live phase.
                u64::from(reader.replay(&subject).is_ok_and(|b| !b.is_empty()))
            })
        })
        .collect()
}

/// `audit` of one archive straight from the stream, in seconds.
fn audit_from_stream(url: &str, subject: &str) -> f64 {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["audit", "--json", subject])
        .env("CTXLENS_NATS_URL", url)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(out.code().is_some_and(|c| c <= 1));
    started.elapsed().as_secs_f64()
}

/// The memory goal: `ctxlens fleet` in a terminal over every shipped session; its
/// peak resident memory once the list holds them all.
fn fleet_memory(url: &str, expect: u64) -> Option<u64> {
    use portable_pty::{native_pty_system, CommandBuilder, PtySize};
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 140,
            pixel_width: 0,
            pixel_height: 0,
        })
        .ok()?;
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_ctxlens"));
    cmd.arg("fleet");
    cmd.env("CTXLENS_NATS_URL", url);
    cmd.env("TERM", "xterm-256color");
    let mut child = pty.slave.spawn_command(cmd).ok()?;
    let pid = child.process_id()?;
    let mut reader = pty.master.try_clone_reader().ok()?;
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
    let wanted = format!("{expect} sessions");
    let started = Instant::now();
    let mut listed = false;
    while started.elapsed() < Duration::from_secs(300) {
        // The screen as a terminal shows it (the TUI redraws only what changed).
        let size = |n| std::num::NonZeroU16::new(n).unwrap();
        let mut screen = vt100::Parser::new(size(40), size(140), 0);
        screen.process(&seen.lock().unwrap());
        if screen.screen().contents().contains(&wanted) {
            listed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // Let the list finish reading every session.
    std::thread::sleep(Duration::from_secs(5));
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<u64>().ok());
    let _ = child.kill();
    listed.then_some(peak?)
}

/// The fleet goal: a new pending compaction reaches the fleet's mirror (what the
/// fleet view reads) after it is appended on an agent's machine.
fn pending_latency(server: &Arc<Nats>, dir: &Path, url: &str) -> Vec<f64> {
    let mirror = tempfile::tempdir().unwrap();
    nats::mirror::start(server, mirror.path()).unwrap();
    let log = dir.join("pending-probe.jsonl");
    let mut samples = Vec::new();
    let mut ship = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["ship"])
        .arg(&log)
        .env("CTXLENS_NATS_URL", url)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mirrored = mirror
        .path()
        .join(keys::encode(&keys::host()))
        .join("pending-probe.jsonl");
    // Measured once the mirror has caught up with the stream (it replays it all first).
    let started = Instant::now();
    while !mirrored.exists() && started.elapsed() < Duration::from_secs(600) {
        std::thread::sleep(Duration::from_millis(100));
    }
    for k in 0..20 {
        let id = format!("bench-{k}");
        let record = format!(
            "{{\"type\":\"compaction\",\"id\":\"{id}\",\"phase\":\"proposed\",\"range\":{{\"from\":1,\"to\":1}},\"summary\":\"s\"}}\n"
        );
        let started = Instant::now();
        append(&log, &record);
        while !std::fs::read_to_string(&mirrored)
            .map(|t| t.contains(&id))
            .unwrap_or(false)
        {
            if started.elapsed() > Duration::from_secs(10) {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        samples.push(started.elapsed().as_secs_f64() * 1000.0);
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = ship.kill();
    let _ = ship.wait();
    samples
}

/// The decision goal: a decision recorded on the server, to the waiting `await`
/// process printing it.
fn decision_latency(server: &Arc<Nats>, dir: &Path, url: &str) -> Vec<f64> {
    let log = dir.join("decisions.jsonl");
    let mut text = line(1, "start");
    for k in 0..30 {
        text.push_str(&format!(
            "{{\"type\":\"compaction\",\"id\":\"d{k}\",\"phase\":\"proposed\",\"range\":{{\"from\":1,\"to\":1}},\"summary\":\"s\"}}\n"
        ));
    }
    std::fs::write(&log, text).unwrap();
    let session = keys::session_of_log(&keys::host(), &log);
    let backend = nats::backend(server, &session);
    let mut samples = Vec::new();
    for k in 0..30 {
        let mut waiting = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
            .args(["await"])
            .arg(&log)
            .args([&format!("d{k}"), "--timeout", "30"])
            .env("CTXLENS_NATS_URL", url)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // Let it subscribe (it would see an earlier decision anyway).
        std::thread::sleep(Duration::from_millis(400));
        let decision = Decision {
            compaction: format!("d{k}"),
            verdict: Verdict::Refuse,
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
        samples.push(started.elapsed().as_secs_f64() * 1000.0);
        let _ = waiting.wait();
    }
    samples
}

fn main() {
    let sessions = env_or("CTXLENS_BENCH_SESSIONS", 1000);
    let secs = env_or("CTXLENS_BENCH_SECS", 20);
    let Some(running) = nats_server::NatsServer::start("the fleet benchmark") else {
        return;
    };
    let url = running.url();
    let server = Nats::connect(&NatsConfig {
        url: url.clone(),
        ..NatsConfig::default()
    })
    .unwrap();
    let archive_dir = tempfile::tempdir().unwrap();
    eprintln!("shipping the archives …");
    let (subjects, ship_rate) = archives(archive_dir.path(), &url);
    let dir = tempfile::tempdir().unwrap();
    eprintln!("shipping {sessions} live sessions for {secs} s while the archives are replayed …");
    let readers = replaying(&url, &subjects);
    let (mut ship, written, received) = shipping(&url, dir.path(), sessions, secs);
    let replays: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    let audit_secs = subjects
        .first()
        .map_or(f64::NAN, |s| audit_from_stream(&url, s));
    let pending_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        pending_dir.path().join("pending-probe.jsonl"),
        line(1, "start"),
    )
    .unwrap();
    let mut pending = pending_latency(&server, pending_dir.path(), &url);
    let mut decided = decision_latency(&server, dir.path(), &url);
    let archives = env_or("CTXLENS_BENCH_ARCHIVES", 10);
    let memory = fleet_memory(&url, sessions + archives + 1);
    println!("| goal | target | measured |");
    println!("|---|---|---|");
    println!(
        "| ship keeps up: {sessions} sessions, one event per 2 s each, while operators replay {archives} archives of {} MB | every event on the stream | {received} of {written} events; append → stream p50 {:.0} ms, p99 {:.0} ms; {replays} replays finished |",
        env_or("CTXLENS_BENCH_ARCHIVE_MB", 50),
        percentile(&mut ship, 0.5),
        percentile(&mut ship, 0.99)
    );
    println!(
        "| a new pending compaction reaches the fleet's mirror | p99 < 1 s | p50 {:.0} ms, p99 {:.0} ms (20 samples, while idle) |",
        percentile(&mut pending, 0.5),
        percentile(&mut pending, 0.99)
    );
    println!(
        "| decision recorded → waiting `await` process prints it | p99 < 100 ms | p50 {:.0} ms, p99 {:.0} ms (30 samples) |",
        percentile(&mut decided, 0.5),
        percentile(&mut decided, 0.99)
    );
    println!("| `ship --once` of the archives | (throughput) | {ship_rate:.1} MB/s |");
    println!(
        "| `audit` of one {} MB archive from the stream | (throughput) | {audit_secs:.1} s |",
        env_or("CTXLENS_BENCH_ARCHIVE_MB", 50)
    );
    println!(
        "| memory of `fleet` with every session listed | ≤ 150 MiB | {} |",
        memory.map_or(
            "not measured (the list never showed them all)".to_owned(),
            |kib| format!("{:.0} MiB peak", kib as f64 / 1024.0)
        )
    );
}
