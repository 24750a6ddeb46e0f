//! Garbage, truncation, invalid UTF-8, deep nesting, huge lines: a clear result, no panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use std::io::Write;

fn log_from(lines: &[&[u8]]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    for line in lines {
        file.write_all(line).unwrap();
    }
    (dir, path)
}

#[test]
fn binary_garbage_is_malformed_lines_not_a_crash() {
    let garbage: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    let (_dir, path) = log_from(&[
        b"{\"type\":\"message\",\"seq\":1,\"text\":\"ok\"}\n",
        &garbage,
        b"\n{\"type\":\"message\",\"seq\":2,\"text\":\"still read\"}\n",
    ]);
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["events"], 2);
    assert!(report["malformed_lines"].as_u64().unwrap() >= 1);
}

#[test]
fn truncated_last_line_is_malformed_in_audit_but_a_complete_one_is_read() {
    let (_dir, path) = log_from(&[
        b"{\"type\":\"message\",\"seq\":1,\"text\":\"ok\"}\n",
        b"{\"type\":\"message\",\"seq\":2,\"te",
    ]);
    let (report, _) = audit_json(&path, &[]);
    assert_eq!(report["events"], 1);
    assert_eq!(report["findings"][0]["line"], 2);
    assert_eq!(report["findings"][0]["offset"], 39);
    let (_dir, path) = log_from(&[b"{\"type\":\"message\",\"seq\":1,\"text\":\"no newline\"}"]);
    let (report, _) = audit_json(&path, &[]);
    assert_eq!(report["events"], 1);
    assert_eq!(report["malformed_lines"], 0);
}

#[test]
fn invalid_utf8_is_a_malformed_line() {
    let (_dir, path) = log_from(&[b"{\"type\":\"message\",\"seq\":1,\"text\":\"\xc3\x28\"}\n"]);
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["malformed_lines"], 1);
}

#[test]
fn deeply_nested_json_is_a_malformed_line() {
    let deep = format!(
        "{{\"type\":\"tool_call\",\"seq\":1,\"input\":{}{}}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let (_dir, path) = log_from(&[
        deep.as_bytes(),
        b"{\"type\":\"message\",\"seq\":2,\"text\":\"after\"}\n",
    ]);
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["events"], 1);
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("recursion limit"));
}

#[test]
fn a_twenty_megabyte_line_is_read() {
    // 20 MB of text holding a few tokens, in a region a summary compacts.
    let mut text = String::with_capacity(20 << 20);
    while text.len() < 20 << 20 {
        text.push_str("lorem ipsum dolor sit amet abcdefgh/ijkl+mnop== ");
    }
    text.push_str("the revision is 4f9a2c81d0e7");
    let line =
        format!("{{\"type\":\"tool_result\",\"seq\":1,\"call_id\":\"c1\",\"text\":\"{text}\"}}\n");
    let compaction = b"{\"type\":\"compaction\",\"seq\":2,\"id\":\"k1\",\"phase\":\"applied\",\"range\":{\"from\":1,\"to\":1},\"summary\":\"a long lorem ipsum\"}\n";
    let (_dir, path) = log_from(&[line.as_bytes(), compaction]);
    let (report, code) = audit_json(&path, &["--tokens"]);
    assert_eq!(code, 0);
    assert_eq!(report["events"], 2);
    let dropped = &report["compactions"][0]["dropped_tokens"];
    assert_eq!(dropped[0]["token"], "4f9a2c81d0e7");
}

#[test]
fn escape_sequences_never_reach_the_terminal_raw() {
    let (_dir, path) = log_from(&[
        b"{\"type\":\"binding\",\"seq\":1,\"token\":\"tok\\u001b]52;c;cHduZWQ=\\u0007\",\"regenerable\":false}\n",
        b"{\"type\":\"obligation\",\"seq\":2,\"id\":\"ob\\u001b[2J\",\"requires\":[\"tok\\u001b]52;c;cHduZWQ=\\u0007\"]}\n",
        b"{\"type\":\"message\",\"seq\":3,\"text\":\"x\"}\n",
        b"{\"type\":\"compaction\",\"seq\":4,\"id\":\"k\\u009b1\",\"range\":{\"from\":1,\"to\":3},\"summary\":\"\"}\n",
    ]);
    let out = ctxlens().arg("audit").arg(&path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{9b}'),
        "{text}"
    );
    assert!(text.contains("\\u{1b}]52"), "{text}");
    let out = ctxlens()
        .args(["audit", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(!json.contains('\u{1b}') && !json.contains('\u{9b}'));
    let report: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(
        report["compactions"][0]["id"], "k\u{9b}1",
        "JSON keeps the exact text"
    );
}

/// Every kind of character that moves or styles a terminal: C0 and C1 controls, CSI,
/// OSC (title, clipboard), DCS, bidi overrides, zero-width and invisible format
/// characters.
fn hostile() -> String {
    let mut text: String = (0u32..0x20)
        .chain(0x7f..0xa0)
        .filter_map(char::from_u32)
        .collect();
    text.push_str(
        "\u{1b}[2J\u{1b}]0;title\u{7}\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}P1$qm\u{1b}\\\u{9b}31m",
    );
    for c in [
        '\u{202a}',
        '\u{202b}',
        '\u{202c}',
        '\u{202d}',
        '\u{202e}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{200e}',
        '\u{200f}',
        '\u{61c}',
        '\u{200b}',
        '\u{200c}',
        '\u{200d}',
        '\u{2060}',
        '\u{feff}',
        '\u{2028}',
        '\u{2029}',
        '\u{ad}',
        '\u{e0041}',
    ] {
        text.push(c);
    }
    text
}

fn is_raw(c: char) -> bool {
    ctxlens::sanitize::is_unsafe(c) && c != '\n' && c != '\t'
}

/// Stdout and stderr carry none of `hostile()` raw.
fn assert_inert(what: &str, out: &std::process::Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        if let Some(c) = text.chars().find(|&c| is_raw(c)) {
            panic!("{what}: {stream} carries U+{:04X} raw:\n{text}", c as u32);
        }
    }
}

#[test]
fn every_field_of_every_output_is_inert() {
    let h = hostile();
    let j = |s: &str| serde_json::to_string(s).unwrap();
    let hq = j(&h);
    let tok = j(&format!("tok{h}"));
    let lines = [
        format!(r#"{{"type":"session","seq":1,"cwd":{hq},"agent":{hq}}}"#),
        format!(r#"{{"type":"message","seq":2,"role":{hq},"text":{hq}}}"#),
        format!(
            r#"{{"type":"tool_call","seq":3,"call_id":{hq},"name":{hq},"input":{{"cmd":{hq}}}}}"#
        ),
        format!(r#"{{"type":"tool_result","seq":4,"call_id":{hq},"text":{hq},"is_error":true}}"#),
        format!(r#"{{"type":"binding","seq":5,"token":{tok},"regenerable":false,"note":{hq}}}"#),
        format!(r#"{{"type":"obligation","seq":6,"id":{hq},"name":{hq},"requires":[{tok}]}}"#),
        format!(
            r#"{{"type":"plan","seq":7,"steps":[{{"id":{hq},"action":{hq},"target":{tok}}}]}}"#
        ),
        format!(r#"{{"type":"choice","seq":8,"entity":{hq},"polarity":"rejected","note":{hq}}}"#),
        format!(
            r#"{{"type":"compaction","seq":9,"id":"k1","phase":"proposed","range":{{"from":2,"to":8}},"summary":{hq},"entities":[{{"entity":{hq},"polarity":"chosen"}}]}}"#
        ),
        format!(
            r#"{{"type":"decision","seq":10,"compaction":"k1","verdict":"approve","by":{hq},"reason":{hq},"handle":{hq}}}"#
        ),
        r#"{"type":"compaction","seq":11,"id":"k1","phase":"applied"}"#.to_string(),
        format!(r#"{{"type":"action","seq":12,"step":{hq},"name":{hq},"target":{hq}}}"#),
        format!(r#"{{"type":{hq},"seq":13}}"#),
        format!("not json {h}"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hostile.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    // A sidecar line with a hostile handle and an unreadable one.
    std::fs::write(
        dir.path().join("hostile.jsonl.decisions.jsonl"),
        format!("{{\"compaction\":{hq},\"verdict\":\"spill\",\"by\":{hq},\"handle\":{hq}}}\n{h}\n"),
    )
    .unwrap();
    let run = |args: &[&str]| ctxlens().args(args).output().unwrap();
    let path = log.to_str().unwrap();
    let action = format!(r#"{{"name":{hq},"target":{hq}}}"#);
    // Arguments cannot hold NUL.
    let h = h.replace('\0', "");
    let hostile_file = format!("{}/x{h}.jsonl", dir.path().display());
    for args in [
        vec!["audit", path],
        vec!["audit", "--json", "--tokens", path],
        vec!["audit", "--strict", path],
        vec!["gate", path, "k1"],
        vec!["gate", "--json", path, "k1"],
        vec!["gate", path, &h],
        vec!["contract", path],
        vec!["contract", "--json", path, "k1"],
        vec!["check", path, "--action", &action],
        vec!["check", path, "--action", &h],
        vec!["decide", path, "k1", "refuse", "--by", &h, "--reason", &h],
        vec!["decide", path, &h, "approve"],
        vec!["await", path, "k1"],
        vec!["spill", "get", path, &h],
        vec!["audit", &hostile_file],
        vec!["decide", path, "k1", &h],
        vec![&h],
    ] {
        assert_inert(&args.join(" "), &run(&args));
    }
    // The hooks' logs name the transcript and what they stored.
    let payload = format!(r#"{{"transcript_path":{},"trigger":{hq}}}"#, j(path));
    for agent in ["claude-code", "codex"] {
        let out = ctxlens()
            .args(["hook", agent, "pre-compact"])
            .write_stdin(payload.clone())
            .output()
            .unwrap();
        assert_inert(agent, &out);
        let out = ctxlens()
            .args(["hook", agent, "post-compact"])
            .write_stdin(format!(
                r#"{{"transcript_path":{},"compact_summary":{hq}}}"#,
                j(path)
            ))
            .output()
            .unwrap();
        assert_inert(agent, &out);
    }
}

#[test]
fn a_lone_surrogate_a_huge_number_and_a_bom_lose_nothing() {
    let pending = std::fs::read_to_string(sample("pending-compaction.jsonl")).unwrap();
    // Half an emoji in the summary, as Node's JSON.stringify writes it: the summary is
    // still read, so the gate still sees the dropped revision and says spill.
    let cut_emoji = pending.replace("Next step:", "Next step \\ud83d:");
    // A number no float holds, in a tool input: the event is kept.
    let huge = cut_emoji.replace(
        "\"input\": {\"cmd\": \"alembic -c deploy/staging.ini upgrade head\"}",
        "\"input\": {\"cmd\": \"alembic -c deploy/staging.ini upgrade head\", \"retries\": 1e400}",
    );
    assert_ne!(huge, cut_emoji, "the fixture has the tool input");
    // A byte order mark before the first record.
    let with_bom = format!("\u{feff}{huge}");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("s.jsonl");
    std::fs::write(&log, with_bom).unwrap();
    let (report, code) = audit_json(&log, &[]);
    assert_eq!(report["malformed_lines"], 0, "{report}");
    assert_eq!(report["events"], 13);
    assert_eq!(report["compactions"][0]["verdict"], "spill");
    assert_eq!(code, 1);
    let original = audit_json(&sample("pending-compaction.jsonl"), &[]).0;
    assert_eq!(
        report["compactions"][0]["dropped"],
        original["compactions"][0]["dropped"]
    );
}

#[test]
fn an_unreadable_summary_record_denies_approve() {
    // A Claude Code summary record cut mid-write (a torn line): the compaction is still
    // there, its summary is not, and the gate does not approve what it cannot read.
    let full = std::fs::read_to_string(sample("claude-code-compaction.jsonl")).unwrap();
    let torn: String = full
        .lines()
        .map(|l| {
            if l.contains("\"isCompactSummary\"") {
                l[..l.len() / 2].to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("t.jsonl");
    std::fs::write(&log, torn).unwrap();
    let (report, _) = audit_json(&log, &[]);
    assert_eq!(report["malformed_lines"], 1);
    assert_ne!(report["compactions"][0]["verdict"], "approve", "{report}");
}

#[test]
fn an_unreadable_obligation_or_binding_before_a_compaction_denies_approve() {
    // The pending sample spills because k1 drops a binding the obligation needs. Make
    // the obligation's line unreadable (a Latin-1 byte in its name, broken JSON, a
    // missing field) and nothing says the binding is at stake any more: the gate must
    // still not approve, and say why.
    let pending = std::fs::read(sample("pending-compaction.jsonl")).unwrap();
    let obligation = br#""type": "obligation""#;
    let at = pending
        .windows(obligation.len())
        .position(|w| w == obligation)
        .unwrap();
    let line_start = pending[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = at + pending[at..].iter().position(|&b| b == b'\n').unwrap();
    let line = &pending[line_start..line_end];
    let latin1: Vec<u8> = String::from_utf8_lossy(line)
        .replace("roll staging", "roll st\u{e4}ging")
        .chars()
        .map(|c| c as u32 as u8)
        .collect();
    let broken = &line[..line.len() - 2];
    let missing = String::from_utf8_lossy(line).replace("\"id\"", "\"ident\"");
    for bad in [latin1, broken.to_vec(), missing.into_bytes()] {
        let mut log = pending[..line_start].to_vec();
        log.extend_from_slice(&bad);
        log.extend_from_slice(&pending[line_end..]);
        let (_dir, path) = log_from(&[&log]);
        let (report, _) = audit_json(&path, &[]);
        assert_eq!(report["malformed_lines"], 1, "{report}");
        let compaction = &report["compactions"][0];
        assert_eq!(compaction["verdict"], "spill", "{compaction}");
        assert!(
            compaction["reasons"]
                .to_string()
                .contains("may hold a binding"),
            "{compaction}"
        );
    }
}

#[test]
fn garbage_lines_are_counted_but_only_the_first_thousand_kept() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("garbage.jsonl");
    std::fs::write(&log, "{}\n".repeat(200_000)).unwrap();
    let (report, code) = audit_json(&log, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["malformed_lines"], 200_000);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(
        findings.len(),
        1001,
        "the first 1000, then one for the rest"
    );
    assert!(findings[1000]["message"]
        .as_str()
        .unwrap()
        .starts_with("199000 more lines were skipped"));
}

#[test]
fn a_device_or_a_pipe_is_refused_not_read_forever() {
    for path in ["/dev/zero", "/dev/stdin"] {
        let out = ctxlens()
            .args(["audit", path])
            .write_stdin("")
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert_exit(&out, 2);
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    }
}

/// A FIFO named as a log: a plain open would wait for a writer forever.
fn fifo() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    (dir, path)
}

#[test]
fn a_fifo_given_as_a_log_is_refused_at_once_by_every_command() {
    let (_dir, log) = fifo();
    let log = log.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["audit", log],
        &["gate", log, "k1"],
        &["contract", log],
        &["check", log, "--action", r#"{"name":"x"}"#],
        &["decide", log, "k1", "approve"],
        &["await", log, "k1", "--timeout", "1"],
        &["ship", log, "--once", "--nats", "nats://127.0.0.1:9"],
    ];
    for args in commands {
        let out = ctxlens()
            .args(args)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert_exit(&out, 2);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("not a regular file")
                || stderr.contains("nats")
                || stderr.contains("fleet"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn following_goes_on_when_a_fifo_or_a_device_stood_in_for_the_log_a_moment() {
    use ctxlens::ingest::follow::{Change, Follower};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    std::fs::write(&log, "{\"type\":\"message\",\"seq\":1,\"text\":\"a\"}\n").unwrap();
    let mut follower = Follower::open(&log).unwrap();
    // Replaced by a FIFO, then by a link to /dev/zero: each look fails at once.
    std::fs::remove_file(&log).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &log,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert!(follower.poll().is_err());
    std::fs::remove_file(&log).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &log).unwrap();
    assert!(follower.poll().is_err());
    // A regular file comes back: it is read.
    std::fs::remove_file(&log).unwrap();
    std::fs::write(
        &log,
        "{\"type\":\"message\",\"seq\":1,\"text\":\"b\"}\n{\"type\":\"message\",\"seq\":2,\"text\":\"c\"}\n",
    )
    .unwrap();
    // (Another file, or the same inode reused with other bytes: read again either way.)
    assert!(matches!(
        follower.poll().unwrap(),
        Change::Replaced | Change::Truncated
    ));
    assert_eq!(follower.session().events.len(), 2);
}

#[test]
fn a_line_over_the_cap_is_skipped_unread_and_reported() {
    use ctxlens::ingest::lines::LineReader;
    let data = format!(
        "{{\"type\":\"message\",\"text\":\"{}\"}}\nshort\n",
        "x".repeat(100)
    );
    let mut reader = LineReader::new(data.as_bytes()).with_max_line(32);
    let first = reader.next_line().unwrap().unwrap();
    assert!(first.oversized && first.bytes.is_empty() && first.terminated);
    let first_span = first.span;
    assert_eq!(first.span as usize, data.find('\n').unwrap() + 1);
    let second = reader.next_line().unwrap().unwrap();
    assert_eq!((second.bytes, second.offset), (&b"short"[..], first_span));
}

#[test]
fn a_codex_record_written_twice_is_read_once() {
    let rollout = std::fs::read_to_string(sample("codex-rollout.jsonl")).unwrap();
    let twice: String = rollout
        .lines()
        .flat_map(|l| [l, l])
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("rollout-twice.jsonl");
    std::fs::write(&log, twice).unwrap();
    let (report, _) = audit_json(&log, &[]);
    let (original, _) = audit_json(&sample("codex-rollout.jsonl"), &[]);
    assert_eq!(report["events"], original["events"]);
    assert_eq!(
        report["compactions"].as_array().unwrap().len(),
        original["compactions"].as_array().unwrap().len()
    );
}

#[test]
fn one_line_with_an_absurd_seq_is_malformed_alone_and_hides_nothing_after_it() {
    // The seed session with a line whose seq is u64::MAX early on: the compaction and
    // everything after it must still be read (audit exits 1, not 0).
    let seed = std::fs::read_to_string(sample("seed-migration-rollback.jsonl")).unwrap();
    let mut lines: Vec<&str> = seed.lines().collect();
    let absurd = r#"{"type":"message","seq":18446744073709551615,"role":"user","text":"x"}"#;
    lines.insert(2, absurd);
    let (_dir, path) = log_from(&[(lines.join("\n") + "\n").as_bytes()]);
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["malformed_lines"], 1, "{report}");
    assert_eq!(
        report["compactions"].as_array().unwrap().len(),
        1,
        "{report}"
    );
    let reason = first_finding(&report, "malformed_line")["message"].to_string();
    assert!(reason.contains("more than 2^32 above"), "{reason}");
}

#[test]
fn seqs_at_the_edge_of_u64_are_named_exactly_and_never_overflow() {
    let (_dir, path) = log_from(&[
        b"{\"type\":\"message\",\"seq\":18446744073709551615,\"text\":\"a\"}\n",
        b"{\"type\":\"message\",\"seq\":18446744073709551616,\"text\":\"b\"}\n",
    ]);
    let out = ctxlens().arg("audit").arg(&path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("seq 18446744073709551616 is not an integer"),
        "{text}"
    );
    assert!(!text.contains("e+19"), "{text}");
    let out = ctxlens()
        .args(["check"])
        .arg(&path)
        .args(["--action", r#"{"name":"x"}"#])
        .output()
        .unwrap();
    assert_exit(&out, 0);
}

/// A log of unique identifiers past what the token table records: memory stays bounded,
/// the compaction says it is too dense to check and the gate spills; a binding
/// declared after the table filled is still recorded, and its loss still found.
#[test]
fn a_log_denser_than_the_token_cap_is_reported_too_dense_and_spilled() {
    use std::fmt::Write as _;
    let cap = ctxlens_core::model::TOKEN_CAP;
    let mut log = String::from("{\"type\":\"session\",\"seq\":1,\"cwd\":\"/srv\"}\n");
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut seq = 1;
    let per_line = 24;
    for _ in 0..cap / per_line + 50 {
        seq += 1;
        let mut text = String::new();
        for _ in 0..per_line {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            // A letter first: every token is a hex id, none a number.
            let _ = write!(text, "a{:011x} ", state >> 20);
        }
        let _ = writeln!(
            log,
            "{{\"type\":\"tool_result\",\"seq\":{seq},\"call_id\":\"c{seq}\",\"text\":\"{text}\"}}"
        );
    }
    let at_stake = [
        r#"{"type":"binding","seq":SEQ1,"token":"4f9a2c81d0e7","regenerable":false}"#,
        r#"{"type":"obligation","seq":SEQ2,"id":"ob-rollback","requires":["4f9a2c81d0e7"],"status":"open"}"#,
        r#"{"type":"message","seq":SEQ3,"role":"assistant","text":"staging is at 4f9a2c81d0e7"}"#,
        r#"{"type":"compaction","seq":SEQ4,"id":"k1","phase":"proposed","range":{"from":1,"to":SEQ3},"summary":"migrated staging"}"#,
    ];
    for line in at_stake {
        let mut line = line.to_string();
        for n in 1..=4 {
            line = line.replace(&format!("SEQ{n}"), &(seq + n).to_string());
        }
        log.push_str(&line);
        log.push('\n');
    }
    let (_dir, path) = log_from(&[log.as_bytes()]);
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 1, "the dropped binding is an error");
    assert_eq!(report["compactions"][0]["verdict"], "spill");
    let kinds = finding_kinds(&report);
    assert!(kinds.contains(&"too_dense".to_owned()), "{kinds:?}");
    assert_eq!(
        first_finding(&report, "dropped_binding")["token"],
        "4f9a2c81d0e7"
    );
    assert!(
        report["compactions"][0]["opaque_tokens"].as_u64().unwrap() <= cap as u64 + 1,
        "no more tokens recorded than the cap"
    );
}
