//! Garbage, truncation, invalid UTF-8, deep nesting, huge lines: a clear result, no panic.

mod common;
use common::*;
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
