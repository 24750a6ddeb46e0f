//! Seeded, agent-like canonical logs for the benchmark: prose with an identifier every
//! ~25 words, long tool results, bindings, obligations, plans and actions, and
//! applied compactions at a fixed interval; or one region closed by a pending one.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// A small, seeded generator (splitmix64): the same log on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "the",
    "deploy",
    "checks",
    "passed",
    "and",
    "service",
    "answered",
    "every",
    "probe",
    "before",
    "next",
    "step",
    "of",
    "rollout",
    "could",
    "start",
    "migration",
    "applied",
    "to",
    "staging",
    "with",
    "logs",
    "showing",
    "no",
    "errors",
    "while",
    "agent",
    "waited",
    "for",
    "health",
    "endpoint",
    "report",
    "green",
    "then",
    "it",
    "moved",
    "on",
    "build",
    "cache",
    "warmed",
    "tests",
    "ran",
    "in",
    "parallel",
    "workers",
    "finished",
    "quickly",
];

/// One identifier of the kinds the identifier pattern matches, drawn from a pool of
/// `pool` so that agents come back to what they work on.
fn identifier(rng: &mut Rng, pool: u64) -> String {
    let n = rng.below(pool);
    let h = |salt: u64| (n.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ salt).wrapping_mul(0x9e37_79b9);
    match n % 6 {
        0 => format!("{:016x}{:016x}{:08x}", h(1), h(2), h(3) as u32),
        1 => format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            h(1) as u32,
            h(2) as u16,
            h(3) as u16,
            h(4) as u16,
            h(5) & 0xffff_ffff_ffff
        ),
        2 => format!(
            "arn:aws:rds:us-east-1:123456789012:snapshot:snap-{:x}",
            h(1)
        ),
        3 => format!("https://ci.example.com/runs/{}", h(1) % 1_000_000),
        4 => format!("/srv/app/releases/r{}/config.yaml", h(1) % 100_000),
        _ => format!("deploy-{:x}", h(1) as u32 | 0x10_0000),
    }
}

/// `words` words of prose with an identifier about every 25th; returns the text and
/// the identifiers in it.
fn prose(rng: &mut Rng, words: usize, pool: u64) -> (String, Vec<String>) {
    let mut text = String::with_capacity(words * 7);
    let mut ids = Vec::new();
    for i in 0..words {
        if i > 0 {
            text.push(' ');
        }
        if rng.below(25) == 0 {
            let id = identifier(rng, pool);
            text.push_str(&id);
            ids.push(id);
        } else {
            text.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        }
    }
    (text, ids)
}

struct Writer {
    out: BufWriter<File>,
    written: u64,
    seq: u64,
}

impl Writer {
    fn event(&mut self, body: std::fmt::Arguments) -> io::Result<u64> {
        self.seq += 1;
        let line = format!("{{\"seq\":{},{body}}}\n", self.seq);
        self.out.write_all(line.as_bytes())?;
        self.written += line.len() as u64;
        Ok(self.seq)
    }
}

/// What a log holds besides its size.
#[derive(Clone, Copy)]
pub enum Shape {
    /// An applied compaction every this many bytes, its summary keeping a tenth of
    /// the region's identifiers.
    CompactEvery(u64),
    /// One region, the whole log, closed by a pending compaction `k1` whose summary
    /// keeps every tenth identifier.
    OneRegion,
    /// As `CompactEvery`, with every identifier drawn anew (no pool the agent comes back
    /// to): the densest log in distinct identifiers, for the memory bound.
    Unique(u64),
}

/// Writes a log of about `bytes` bytes to `path`.
pub fn log(path: &Path, bytes: u64, shape: Shape, seed: u64) -> io::Result<()> {
    let mut rng = Rng(seed);
    let mut w = Writer {
        out: BufWriter::with_capacity(1 << 20, File::create(path)?),
        written: 0,
        seq: 0,
    };
    // Drawn from so large a pool, no identifier comes back.
    let pool = match shape {
        Shape::Unique(_) => u64::MAX,
        _ => 50_000,
    };
    w.event(format_args!(
        r#""type":"session","cwd":"/home/dev/bench","agent":"bench""#
    ))?;
    let mut region_from = w.seq + 1;
    let mut region_start_bytes = 0;
    let mut kept: Vec<String> = Vec::new();
    let mut compactions = 0;
    let mut obligations = 0;
    while w.written < bytes {
        let words = 40 + rng.below(40) as usize;
        let (text, ids) = prose(&mut rng, words, pool);
        w.event(format_args!(
            r#""type":"message","role":"assistant","text":"{text}""#
        ))?;
        kept.extend(ids.into_iter().step_by(10));
        let target = identifier(&mut rng, pool);
        let call = w.seq + 1;
        w.event(format_args!(
            r#""type":"tool_call","call_id":"c{call}","name":"shell","input":{{"cmd":"kubectl describe {target}"}}"#
        ))?;
        let words = 300 + rng.below(900) as usize;
        let (text, ids) = prose(&mut rng, words, pool);
        w.event(format_args!(
            r#""type":"tool_result","call_id":"c{call}","text":"{text}""#
        ))?;
        kept.extend(ids.into_iter().step_by(10));
        if rng.below(40) == 0 {
            w.event(format_args!(
                r#""type":"binding","token":"{target}","regenerable":false,"note":"needed to roll back""#
            ))?;
            obligations += 1;
            w.event(format_args!(
                r#""type":"obligation","id":"ob-{obligations}","name":"roll back with {target} if the checks fail","requires":["{target}"],"status":"open""#
            ))?;
            w.event(format_args!(
                r#""type":"plan","steps":[{{"id":"s{obligations}","action":"rollback","target":"{target}"}}]"#
            ))?;
        }
        if rng.below(60) == 0 {
            let step = obligations.max(1);
            w.event(format_args!(
                r#""type":"action","step":"s{step}","name":"verify","target":"{target}""#
            ))?;
        }
        if let Shape::CompactEvery(every) | Shape::Unique(every) = shape {
            if w.written - region_start_bytes >= every {
                compactions += 1;
                let summary = kept.join(" and ");
                let to = w.seq;
                w.event(format_args!(
                    r#""type":"compaction","id":"k{compactions}","phase":"applied","range":{{"from":{region_from},"to":{to}}},"input":"log","summary":"work went on with {summary}""#
                ))?;
                kept.clear();
                region_from = w.seq + 1;
                region_start_bytes = w.written;
            }
        }
    }
    if let Shape::OneRegion = shape {
        let summary = kept.join(" and ");
        let to = w.seq;
        w.event(format_args!(
            r#""type":"compaction","id":"k1","phase":"proposed","range":{{"from":{region_from},"to":{to}}},"input":"log","summary":"work went on with {summary}""#
        ))?;
    }
    w.out.flush()
}

/// A canonical log of a few KiB: one of a folder of many.
pub fn small_log(path: &Path, seed: u64) -> io::Result<()> {
    let mut rng = Rng(seed);
    let mut out = BufWriter::new(File::create(path)?);
    writeln!(
        out,
        r#"{{"type":"session","seq":1,"cwd":"/home/dev/project-{}"}}"#,
        seed % 40
    )?;
    for seq in 2..12 {
        let (text, _) = prose(&mut rng, 60, 5_000);
        writeln!(
            out,
            r#"{{"type":"message","seq":{seq},"role":"assistant","text":"{text}"}}"#
        )?;
    }
    out.flush()
}
