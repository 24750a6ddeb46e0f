//! The analysis of a growing log equals the analysis from scratch: each sample log is
//! grown one line at a time, analysed by one `Analyzer` that keeps its settled
//! compactions, and compared with a fresh analysis of the same lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use ctxlens::ingest::parse_bytes;
use ctxlens_core::analysis::{analyze, Analyzer};

fn grow_and_compare(name: &str, text: &str) {
    use ctxlens::tui::snapshot::Snapshot;
    let mut analyzer = Analyzer::default();
    let mut threaded = Analyzer::with_threads(3);
    let mut prefix = String::new();
    let mut before: Option<Snapshot> = None;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        prefix.push_str(line);
        let session = parse_bytes(prefix.as_bytes());
        let incremental = analyzer.analyze(&session, &[], false);
        let scratch = analyze(&session, &[], false);
        assert_eq!(
            format!("{incremental:?}"),
            format!("{scratch:?}"),
            "{name}, after line {}",
            n + 1
        );
        // Regions analysed on several threads, growing too, give the same analysis.
        let threaded = threaded.analyze(&session, &[], false);
        assert_eq!(
            format!("{threaded:?}"),
            format!("{scratch:?}"),
            "{name}, on threads, after line {}",
            n + 1
        );
        // The view models the TUI keeps from the snapshot before equal fresh ones.
        let reuse = before.as_ref().map(|b| (b, analyzer.reused()));
        let kept = Snapshot::from_analysis(session.clone(), incremental, reuse);
        let fresh = Snapshot::from_analysis(session, scratch, None);
        assert_eq!(
            kept.rows,
            fresh.rows,
            "{name}, timeline after line {}",
            n + 1
        );
        for c in &fresh.analysis.compactions {
            let id = c.info.id.as_str();
            assert_eq!(
                kept.token_rows(id),
                fresh.token_rows(id),
                "{name}, line {}",
                n + 1
            );
            assert_eq!(
                kept.compaction_marks(id),
                fresh.compaction_marks(id),
                "{name}, line {}",
                n + 1
            );
        }
        before = Some(kept);
    }
}

#[test]
fn incremental_analysis_equals_from_scratch_at_every_line() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        grow_and_compare(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        );
    }
}

#[test]
fn incremental_analysis_equals_from_scratch_on_a_copilot_cli_session() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/copilot-cli-compaction.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    grow_and_compare("copilot-cli-compaction.jsonl", &text);
}

#[test]
fn incremental_analysis_equals_from_scratch_on_a_gemini_cli_recording() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gemini-cli-compression.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    grow_and_compare("gemini-cli-compression.jsonl", &text);
}

#[test]
fn incremental_analysis_equals_from_scratch_on_a_qwen_code_recording() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/qwen-code-compression.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    grow_and_compare("qwen-code-compression.jsonl", &text);
}

#[test]
fn incremental_analysis_equals_from_scratch_on_real_transcripts() {
    // The two smallest real transcripts with compactions, every line.
    for name in [
        "kvsankar__agent-history__claude-session_with_compaction.jsonl",
        "kvsankar__agent-history__codex-session_with_compaction.jsonl",
    ] {
        let Some(path) = real_session(
            "incremental_analysis_equals_from_scratch_on_real_transcripts",
            name,
        ) else {
            return;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        grow_and_compare(name, &text);
    }
}

/// The plain form of a compaction's analysis (`analyze_compaction`, the region and the
/// window after it, no cache) gives what the `Analyzer` gives, before what needs the
/// whole log: divergences and decisions only add findings after these.
fn plain_equals_analyzer(name: &str, bytes: &[u8]) -> usize {
    use ctxlens_core::analysis::analyze_compaction;
    use ctxlens_core::analysis::short_id;
    use ctxlens_core::analysis::StateAt;
    let session = parse_bytes(bytes);
    let analysis = analyze(&session, &[], false);
    for cached in &analysis.compactions {
        let id = cached.info.id.as_str();
        let state = StateAt::of(session.events.iter().take(cached.info.at));
        let plain = analyze_compaction(&session, &cached.info, state);
        assert_eq!(plain.region, cached.region, "{name} {id}");
        assert_eq!(plain.tokens, cached.tokens, "{name} {id}");
        assert_eq!(plain.dropped, cached.dropped, "{name} {id}");
        assert_eq!(plain.dropped_counts, cached.dropped_counts, "{name} {id}");
        assert_eq!(plain.flags, cached.flags, "{name} {id}");
        assert_eq!(
            (plain.opaque_ratio, plain.prose_ratio, plain.region_words),
            (cached.opaque_ratio, cached.prose_ratio, cached.region_words),
            "{name} {id}"
        );
        let messages = |findings: &[ctxlens_core::analysis::Finding]| -> Vec<String> {
            findings
                .iter()
                .map(|f| format!("{} {}", f.kind.name(), f.message.replace(id, short_id(id))))
                .collect()
        };
        let cached = messages(&cached.findings);
        let plain = messages(&plain.findings);
        assert!(
            cached.starts_with(&plain),
            "{name} {id}: {plain:#?} against {cached:#?}"
        );
    }
    analysis.compactions.len()
}

#[test]
fn the_plain_analysis_of_a_compaction_equals_the_analyzers() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut compared = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        compared +=
            plain_equals_analyzer(&path.display().to_string(), &std::fs::read(&path).unwrap());
    }
    assert!(compared > 10, "only {compared} compactions compared");
    for path in real_session_files("the_plain_analysis_of_a_compaction_equals_the_analyzers") {
        plain_equals_analyzer(&path.display().to_string(), &std::fs::read(&path).unwrap());
    }
}

/// A binding declared after two compactions reaches back into the region of the first
/// (settled, its window closed): the declared token (a shape the extractor does not
/// see) is found in a region event the analyzer read before, which its next look must
/// read again.
#[test]
fn a_binding_declared_after_a_compaction_reaches_back_into_its_region() {
    let log = [
        r#"{"type":"session","seq":1,"cwd":"/srv"}"#,
        r#"{"type":"tool_result","seq":2,"call_id":"c0","text":"created blue_falcon_7 for the cutover"}"#,
        r#"{"type":"compaction","seq":3,"id":"k1","phase":"applied","range":{"from":1,"to":2},"summary":"created the cutover"}"#,
        r#"{"type":"message","seq":4,"role":"assistant","text":"next: the cutover"}"#,
        r#"{"type":"compaction","seq":5,"id":"k2","phase":"applied","range":{"from":4,"to":4},"summary":"cutover next"}"#,
        r#"{"type":"binding","seq":6,"token":"blue_falcon_7","regenerable":false}"#,
        r#"{"type":"message","seq":7,"role":"assistant","text":"cutting over blue_falcon_7"}"#,
        "",
    ]
    .join("\n");
    let whole = parse_bytes(log.as_bytes());
    let found = whole.declared.of(1);
    assert_eq!(found.len(), 1, "the region event holds the declared token");
    assert_eq!(whole.tokens.text(found[0]), "blue_falcon_7");
    grow_and_compare("declared after its region", &log);
}

#[test]
fn a_snapshot_that_keeps_settled_compactions_equals_a_fresh_one() {
    use ctxlens::tui::snapshot::Snapshot;
    for name in [
        "summary-of-summary.jsonl",
        "codex-rollout.jsonl",
        "rotated-log.jsonl",
    ] {
        let text = std::fs::read_to_string(sample(name)).unwrap();
        let mut analyzer = Analyzer::default();
        let mut before: Option<Snapshot> = None;
        let mut prefix = String::new();
        for line in text.split_inclusive('\n') {
            prefix.push_str(line);
            let session = parse_bytes(prefix.as_bytes());
            let analysis = analyzer.analyze(&session, &[], false);
            let reuse = before.as_ref().map(|b| (b, analyzer.reused()));
            let kept = Snapshot::from_analysis(session.clone(), analysis, reuse);
            let fresh = Snapshot::build(session, &[]);
            for c in &fresh.analysis.compactions {
                let id = &c.info.id;
                assert_eq!(
                    format!("{:?}", kept.token_rows(id)),
                    format!("{:?}", fresh.token_rows(id)),
                    "{name} {id}"
                );
                assert_eq!(
                    kept.compaction_marks(id).map(|v| v.summary.clone()),
                    fresh.compaction_marks(id).map(|v| v.summary.clone()),
                    "{name} {id}"
                );
            }
            before = Some(kept);
        }
    }
}

/// An event rewritten in place (a transcript's rewind, a summary written late) before
/// the newest compaction: what the analyzer kept from its last look no longer holds
/// from there on, and the analysis still equals one from scratch.
#[test]
fn an_event_rewritten_before_the_newest_compaction_is_analysed_again() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut rewritten = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        rewritten += rewrite_each_event(&path.display().to_string(), &bytes);
    }
    // A failed call on a look-alike in the newest window: the scan for it that a look
    // kept holds only while the events it read are unchanged.
    let regenerated = [
        r#"{"type":"session","seq":1,"cwd":"/srv"}"#,
        r#"{"type":"tool_result","seq":2,"call_id":"c0","text":"head is 4f9a2c81d0e7"}"#,
        r#"{"type":"compaction","seq":3,"id":"k1","phase":"applied","range":{"from":1,"to":2},"summary":"migrated staging"}"#,
        r#"{"type":"tool_call","seq":4,"call_id":"c1","name":"shell","input":{"cmd":"alembic downgrade 7b1e9d03c2a5"}}"#,
        r#"{"type":"tool_result","seq":5,"call_id":"c1","is_error":true,"text":"Can't locate revision identified by '7b1e9d03c2a5'"}"#,
        r#"{"type":"message","seq":6,"role":"assistant","text":"retrying"}"#,
    ]
    .join("\n");
    rewritten += rewrite_each_event("regenerated", regenerated.as_bytes());
    assert!(rewritten > 50, "only {rewritten} events rewritten");
}

/// Rewrites each event of a log in turn (as a rewind does) after an `Analyzer` read the
/// log as it was, and compares its next look with a fresh analysis. How many it
/// rewrote.
fn rewrite_each_event(name: &str, bytes: &[u8]) -> usize {
    use ctxlens_core::analysis::first_seen;
    use ctxlens_core::model::EventKind;
    let original = ctxlens::ingest::parse_bytes(bytes);
    let mut rewritten = 0;
    for index in 0..original.events.len() {
        let mut analyzer = Analyzer::default();
        let _ = analyzer.analyze(&original, &[], false);
        let mut session = original.clone();
        let Some(event) = session.events.get_mut(index) else {
            continue;
        };
        if matches!(event.kind, EventKind::Compaction { .. }) {
            continue;
        }
        event.kind = EventKind::Other {
            type_name: "rewound".into(),
        };
        rewritten += 1;
        // The first event of each token, brought up to date from the original's.
        let common = original.events.common_prefix(&session.events);
        assert_eq!(common, index);
        let updated = first_seen(&original).update(original.events.len(), common, &session);
        assert_eq!(updated, first_seen(&session), "{name}, event {index}");
        let incremental = analyzer.analyze(&session, &[], false);
        let scratch = analyze(&session, &[], false);
        assert_eq!(
            format!("{incremental:?}"),
            format!("{scratch:?}"),
            "{name}, event {index} rewritten"
        );
    }
    rewritten
}

/// A look that changes nothing of a settled compaction shares its findings with the
/// look before (a session can hold thousands), rather than copying them.
#[test]
fn a_look_that_changes_nothing_shares_the_findings() {
    let text = std::fs::read_to_string(sample("rotated-log.jsonl")).unwrap();
    let session = parse_bytes(text.as_bytes());
    let mut analyzer = Analyzer::default();
    let first = analyzer.analyze(&session, &[], false);
    let second = analyzer.analyze(&session, &[], false);
    let settled = &first.compactions[0];
    assert!(!settled.findings.is_empty());
    assert!(std::sync::Arc::ptr_eq(
        &settled.findings,
        &second.compactions[0].findings
    ));
}

/// A region with more tokens than a part's least, analysed with two threads, is
/// analysed as with one: its tokens are checked against the summary, and what needs
/// each dropped one is looked up, in parts on both threads.
#[test]
fn a_large_region_on_two_threads_is_analysed_as_on_one() {
    let token = |i: usize| format!("a{i:07x}b");
    let mut log = String::from("{\"type\":\"session\",\"seq\":1,\"cwd\":\"/w\"}\n");
    let mut seq = 2;
    let mut line = |log: &mut String, json: String| {
        log.push_str(&json.replace("SEQ", &seq.to_string()));
        log.push('\n');
        seq += 1;
    };
    for first in (0..10_000).step_by(50) {
        let words: Vec<String> = (first..first + 50).map(token).collect();
        let text = words.join(" ");
        line(
            &mut log,
            format!(r#"{{"type":"message","seq":SEQ,"text":"{text}"}}"#),
        );
    }
    for i in (0..10_000).step_by(499) {
        let (t, r) = (token(i), i % 2 == 0);
        line(
            &mut log,
            format!(r#"{{"type":"binding","seq":SEQ,"token":"{t}","regenerable":{r}}}"#),
        );
        line(
            &mut log,
            format!(
                r#"{{"type":"obligation","seq":SEQ,"id":"ob-{i}","name":"use it","requires":["{t}"],"status":"open"}}"#
            ),
        );
    }
    let kept: Vec<String> = (0..10_000).step_by(3).map(token).collect();
    let kept = kept.join(" ");
    line(
        &mut log,
        format!(
            r#"{{"type":"compaction","seq":SEQ,"id":"k1","phase":"proposed","range":{{"from":2,"to":SEQ}},"input":"log","summary":"{kept}"}}"#
        ),
    );
    // The range ends before the compaction itself.
    let log = log.replace(
        &format!(r#""to":{}"#, seq - 1),
        &format!(r#""to":{}"#, seq - 2),
    );
    let session = parse_bytes(log.as_bytes());
    let one = Analyzer::with_threads(1).analyze(&session, &[], false);
    let two = Analyzer::with_threads(2).analyze(&session, &[], false);
    assert_eq!(format!("{two:?}"), format!("{one:?}"));
    // Not an empty comparison: most tokens were dropped, some that obligations need.
    let analysed = &one.compactions[0];
    let dropped = analysed.tokens.iter().filter(|t| t.survived == Some(false));
    assert_eq!(dropped.count(), 10_000 - 3_334);
    assert!(analysed.dropped.len() > 10, "{}", analysed.dropped.len());
    assert!(analysed.findings.iter().filter(|f| f.is_error()).count() > 5);
}
