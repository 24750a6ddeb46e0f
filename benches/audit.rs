//! `cargo bench --bench audit`: how fast ctxlens reads and analyses a large log, measured
//! side by side with `rg --count-matches` (or `grep -cE` where rg is missing) over the same
//! file with an identifier regex, and how long a followed log takes to show one appended
//! event. Sizes: `CTXLENS_BENCH_MIB` (default 64). Ratios, not absolute times, are what
//! to compare across machines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use ctxlens::analysis::analyze;
use ctxlens::ingest::follow::Follower;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const IDENTIFIER_REGEX: &str = r"[0-9a-f]{7,64}|/[A-Za-z0-9_./-]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

fn generate(path: &Path, mib: u64) -> std::io::Result<u64> {
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    let mut written = 0u64;
    let mut seq = 0u64;
    let mut region_start = 1;
    let mut k = 0;
    let line = |out: &mut BufWriter<std::fs::File>, text: String| -> std::io::Result<u64> {
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")?;
        Ok(text.len() as u64 + 1)
    };
    seq += 1;
    written += line(
        &mut out,
        format!(r#"{{"type":"session","seq":{seq},"cwd":"/home/dev/app"}}"#),
    )?;
    while written < mib << 20 {
        seq += 1;
        let sha = format!("{:012x}", seq.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 16);
        written += line(
            &mut out,
            format!(
                r#"{{"type":"tool_call","seq":{seq},"call_id":"c{seq}","name":"shell","input":{{"cmd":"git show {sha} -- src/mod{}/file.rs"}}}}"#,
                seq % 97
            ),
        )?;
        seq += 1;
        written += line(
            &mut out,
            format!(
                r#"{{"type":"tool_result","seq":{seq},"call_id":"c{}","text":"{} commit {sha} touched /var/lib/app/state{}.db and PR #{}"}}"#,
                seq - 1,
                "lorem ipsum dolor sit amet ".repeat(20),
                seq % 13,
                seq % 900 + 10
            ),
        )?;
        if seq.is_multiple_of(200) {
            seq += 1;
            written += line(
                &mut out,
                format!(r#"{{"type":"binding","seq":{seq},"token":"{sha}","regenerable":false}}"#),
            )?;
        }
        if seq - region_start > 2000 {
            seq += 1;
            k += 1;
            written += line(
                &mut out,
                format!(
                    r#"{{"type":"compaction","seq":{seq},"id":"k{k}","phase":"applied","range":{{"from":{region_start},"to":{}}},"summary":"work continued on commit {sha}"}}"#,
                    seq - 1
                ),
            )?;
            region_start = seq + 1;
        }
    }
    out.flush()?;
    Ok(written)
}

/// A log whose one compaction covers all of it, with a summary that keeps every tenth
/// identifier: the shape that shows whether the analysis grows with region × summary.
fn generate_one_region(path: &Path, mib: f64) -> std::io::Result<u64> {
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    let mut written = 0u64;
    let mut kept = String::new();
    let mut seq = 1u64;
    writeln!(out, r#"{{"type":"session","seq":1,"cwd":"/home/dev/app"}}"#)?;
    while (written as f64) < mib * (1u64 << 20) as f64 {
        seq += 1;
        let sha = format!("{:012x}", seq.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 16);
        let line = format!(
            r#"{{"type":"tool_result","seq":{seq},"text":"commit {sha} touched /var/lib/app/state{}.db {}"}}"#,
            seq % 5000,
            "lorem ipsum dolor ".repeat(8)
        );
        written += line.len() as u64 + 1;
        writeln!(out, "{line}")?;
        if seq.is_multiple_of(10) {
            kept.push_str(&format!("kept {sha} "));
        }
        kept.push_str("word ");
    }
    writeln!(
        out,
        r#"{{"type":"compaction","seq":{},"id":"k1","phase":"proposed","range":{{"from":2,"to":{seq}}},"input":"log","summary":"{kept}"}}"#,
        seq + 1
    )?;
    out.flush()?;
    Ok(written)
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = f();
        best = best.min(start.elapsed());
        last = Some(value);
    }
    (best, last.expect("at least one run"))
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let mib = std::env::var("CTXLENS_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("bench.jsonl");
    let bytes = generate(&log, mib).expect("generate the log");
    let mb = bytes as f64 / (1 << 20) as f64;
    println!("log: {mb:.0} MiB");

    let (ours, compactions) = best_of(3, || {
        let session = ctxlens::ingest::load(&log).expect("loads");
        analyze(&session, &[], false).compactions.len()
    });
    println!(
        "ctxlens load + analysis: {:.2} s ({:.0} MiB/s, {compactions} compactions)",
        ours.as_secs_f64(),
        mb / ours.as_secs_f64()
    );

    let tool = if Command::new("rg").arg("--version").output().is_ok() {
        "rg"
    } else {
        "grep"
    };
    let (theirs, _) = best_of(3, || {
        let mut cmd = Command::new(tool);
        if tool == "rg" {
            cmd.args(["--count-matches", IDENTIFIER_REGEX]);
        } else {
            cmd.args(["-cE", IDENTIFIER_REGEX]);
        }
        cmd.arg(&log).output().expect("runs")
    });
    println!(
        "{tool} over the same file: {:.2} s; ctxlens / {tool} = {:.2} (target: at most 1.0 against rg)",
        theirs.as_secs_f64(),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );

    // Tail: one event appended to a followed log, until its analysis is ready.
    let mut follower = Follower::open(&log).expect("follows");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("appends");
    // The TUI's worker keeps an incremental analyzer: settled compactions are reused.
    let mut analyzer = ctxlens::analysis::report::Analyzer::default();
    let _ = analyzer.analyze(follower.session(), &[], false);
    let (tail, _) = best_of(3, || {
        writeln!(file, r#"{{"type":"message","text":"one more"}}"#).expect("writes");
        let start = Instant::now();
        follower.poll().expect("polls");
        let session = follower.session().clone();
        let _ = analyzer.analyze(&session, &[], false);
        start.elapsed()
    });
    println!(
        "tail (poll + clone + incremental analysis of one appended event): {:.1} ms (target: 20 ms)",
        tail.as_secs_f64() * 1000.0
    );
    // Cost growth: time per MiB of a log that is one region, at an eighth of the size
    // and at the size (target: at most 1.25x).
    let per_mib = |size: f64| {
        let path = dir.path().join(format!("region-{size}.jsonl"));
        let bytes = generate_one_region(&path, size).expect("generate");
        let (time, _) = best_of(3, || {
            let session = ctxlens::ingest::load(&path).expect("loads");
            analyze(&session, &[], false).compactions.len()
        });
        time.as_secs_f64() / (bytes as f64 / (1 << 20) as f64)
    };
    let (small, large) = (per_mib(mb / 8.0), per_mib(mb));
    println!(
        "one region of the whole log: {:.1} ms/MiB at {:.0} MiB, {:.1} ms/MiB at {:.0} MiB: growth {:.2}x (target: at most 1.25x)",
        small * 1000.0,
        mb / 8.0,
        large * 1000.0,
        mb,
        large / small
    );
    if let Some(kib) = peak_rss_kib() {
        let budget = mb * 0.05 + 64.0;
        println!(
            "peak memory: {:.0} MiB (target: {budget:.0} MiB = 5% of the log + 64 MiB)",
            kib as f64 / 1024.0
        );
    }
}
