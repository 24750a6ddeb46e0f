//! Timing a process, its peak anonymous memory, and a TUI in a real terminal.

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The median of `runs` timings.
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The `p`th percentile (0–100) of `samples`.
pub fn percentile(mut samples: Vec<f64>, p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (samples.len() as f64 - 1.0)).round() as usize;
    samples.get(rank).copied().unwrap_or(f64::NAN)
}

/// `RssAnon` of a running process, in KiB.
pub fn rss_anon_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Runs `cmd` with its output discarded; its wall time in seconds and its peak
/// `RssAnon` in MiB (sampled every 5 ms).
pub fn run(cmd: &mut Command) -> (f64, f64) {
    let started = Instant::now();
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the command starts");
    let mut peak = 0;
    while child.try_wait().expect("waits").is_none() {
        peak = peak.max(rss_anon_kib(child.id()).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(5));
    }
    (started.elapsed().as_secs_f64(), peak as f64 / 1024.0)
}

/// Median wall time of three runs of the command `make` builds, and the peak memory
/// of any of them.
pub fn three_runs(make: impl FnOnce() -> Command) -> (f64, f64) {
    let turns = three_turns(&mut [make()]);
    (turns[0].wall, turns[0].peak)
}

/// A command's runs: the median wall time, the peak `RssAnon`, the share of the
/// machine's CPU time that the hypervisor took back while they ran (`steal`), and the
/// median CPU time the command used (user and system), where the system tells them.
pub struct Turns {
    pub wall: f64,
    pub peak: f64,
    pub steal: Option<f64>,
    pub cpu: Option<f64>,
}

/// One run of a command, with what the machine and the command used meanwhile.
struct Measured {
    wall: f64,
    peak: f64,
    ticks: Option<CpuTicks>,
    cpu: Option<f64>,
}

fn measured(cmd: &mut Command) -> Measured {
    let (ticks_before, cpu_before) = (CpuTicks::now(), children_cpu());
    let (wall, peak) = run(cmd);
    let ticks = ticks_before
        .zip(CpuTicks::now())
        .map(|(before, after)| CpuTicks {
            stolen: after.stolen.saturating_sub(before.stolen),
            all: after.all.saturating_sub(before.all),
        });
    let cpu = cpu_before
        .zip(children_cpu())
        .map(|(before, after)| after - before);
    Measured {
        wall,
        peak,
        ticks,
        cpu,
    }
}

/// Each command run three times in turns (one run of each, in order, then again), so
/// that a host that slows down or speeds up during the rows weighs on every command of
/// a ratio alike (run one after the other, three runs each, a slow phase that began
/// during the first command's runs counted against it alone).
pub fn three_turns(commands: &mut [Command]) -> Vec<Turns> {
    let mut runs: Vec<Vec<Measured>> = commands.iter().map(|_| Vec::new()).collect();
    for _ in 0..3 {
        for (cmd, runs) in commands.iter_mut().zip(&mut runs) {
            runs.push(measured(cmd));
        }
    }
    runs.into_iter()
        .map(|runs| {
            let ticks: Option<Vec<CpuTicks>> = runs.iter().map(|r| r.ticks).collect();
            let (stolen, all) = ticks
                .unwrap_or_default()
                .iter()
                .fold((0, 0), |(s, a), t| (s + t.stolen, a + t.all));
            let cpu: Option<Vec<f64>> = runs.iter().map(|r| r.cpu).collect();
            Turns {
                wall: median(runs.iter().map(|r| r.wall).collect()),
                peak: runs.iter().map(|r| r.peak).fold(0.0, f64::max),
                steal: (all > 0).then(|| stolen as f64 / all as f64),
                cpu: cpu.map(median),
            }
        })
        .collect()
}

/// The CPU time, user and system, of this process's children that ended and were
/// waited for, in seconds (`cutime` and `cstime` in `/proc/self/stat`, at the usual
/// 100 ticks a second).
fn children_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's name, which is in parentheses and may hold
    // spaces: `cutime` and `cstime` are the 16th and 17th fields of the line.
    let after_name = stat.get(stat.rfind(')')? + 1..)?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |at: usize| fields.get(at)?.parse::<f64>().ok();
    Some((ticks(13)? + ticks(14)?) / 100.0)
}

/// The machine's CPU time since boot, in clock ticks: what the hypervisor took back
/// (`steal`) and all of it (the first line of `/proc/stat`).
#[derive(Clone, Copy)]
struct CpuTicks {
    stolen: u64,
    all: u64,
}

impl CpuTicks {
    fn now() -> Option<CpuTicks> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let fields: Vec<u64> = stat
            .lines()
            .next()?
            .split_whitespace()
            .skip(1)
            .take(8)
            .map(|field| field.parse().ok())
            .collect::<Option<_>>()?;
        Some(CpuTicks {
            stolen: *fields.get(7)?,
            all: fields.iter().sum(),
        })
    }
}

/// Wall time of one run of `cmd`, by its exit, its output discarded.
fn exit_time(cmd: &mut Command) -> f64 {
    let started = Instant::now();
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the command runs");
    started.elapsed().as_secs_f64()
}

/// Median wall time of three runs of the command `make` builds, timed by their exit
/// alone (no memory sampled): for runs of a few milliseconds, below the sampler's step.
pub fn three_exits(mut make: impl FnMut() -> Command) -> f64 {
    median((0..3).map(|_| exit_time(&mut make())).collect())
}

/// Whether a program is on PATH.
pub fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// The TUI in a real terminal (a pty), its screen parsed as a terminal shows it.
pub struct Tui {
    child: Box<dyn Child + Send + Sync>,
    screen: Arc<Mutex<vt100::Parser>>,
    /// Each chunk of output, after it reached the screen.
    drawn: Receiver<()>,
    started: Instant,
    /// Peak `RssAnon` so far, KiB, sampled every 10 ms.
    peak: Arc<std::sync::atomic::AtomicU64>,
    /// What is typed into the terminal.
    keys: Mutex<Box<dyn std::io::Write + Send>>,
}

const ROWS: u16 = 30;
const COLS: u16 = 120;

impl Tui {
    pub fn start(args: &[&Path]) -> Tui {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_ctxlens"));
        for arg in args {
            cmd.arg(arg);
        }
        cmd.env("TERM", "xterm-256color");
        let started = Instant::now();
        let child = pty.slave.spawn_command(cmd).expect("the TUI starts");
        let mut reader = pty.master.try_clone_reader().expect("reads the pty");
        let keys = Mutex::new(pty.master.take_writer().expect("writes to the pty"));
        let size = |n| std::num::NonZeroU16::new(n).expect("not zero");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(size(ROWS), size(COLS), 0)));
        let (tx, drawn): (Sender<()>, _) = channel();
        let into = screen.clone();
        // The pty's master end stays open as long as this thread reads from it.
        std::thread::spawn(move || {
            let _master = pty.master;
            let mut buf = [0u8; 65536];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                into.lock().expect("screen").process(&buf[..n]);
                let _ = tx.send(());
            }
        });
        let peak = Arc::new(std::sync::atomic::AtomicU64::new(0));
        if let Some(pid) = child.process_id() {
            let peak = peak.clone();
            std::thread::spawn(move || {
                while let Some(kib) = rss_anon_kib(pid) {
                    peak.fetch_max(kib, std::sync::atomic::Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(10));
                }
            });
        }
        Tui {
            child,
            screen,
            drawn,
            started,
            peak,
            keys,
        }
    }

    /// Types `text` into the terminal.
    pub fn type_text(&self, text: &str) {
        let mut keys = self.keys.lock().expect("keys");
        keys.write_all(text.as_bytes()).expect("types");
        keys.flush().expect("types");
    }

    pub fn contents(&self) -> String {
        self.screen.lock().expect("screen").screen().contents()
    }

    /// Waits until the screen shows `text`; the time since the TUI started.
    pub fn wait_for(&self, text: &str, limit: Duration) -> Option<Duration> {
        self.wait_until(|screen| screen.contains(text), limit)
            .map(|_| self.started.elapsed())
    }

    /// Waits until `ready` holds of the screen; when it did.
    pub fn wait_until(&self, ready: impl Fn(&str) -> bool, limit: Duration) -> Option<Instant> {
        let deadline = Instant::now() + limit;
        loop {
            if ready(&self.contents()) {
                return Some(Instant::now());
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            let wait = self.drawn.recv_timeout(left.min(Duration::from_millis(50)));
            if let Err(std::sync::mpsc::RecvTimeoutError::Disconnected) = wait {
                // The TUI is gone (its screen says why).
                eprintln!("the TUI ended; its screen:\n{}", self.contents());
                return ready(&self.contents()).then(Instant::now);
            }
        }
    }

    /// Peak `RssAnon` so far, MiB.
    pub fn peak_mib(&self) -> f64 {
        self.peak.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1024.0
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
