//! The signals on small hand-written logs, through the library (no process).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use ctxlens::ingest::parse_bytes;
use ctxlens_core::analysis::{analyze, FindingKind};
use ctxlens_core::model::Verdict;

fn analysis(log: &str) -> ctxlens_core::analysis::SessionAnalysis {
    let session = parse_bytes(log.as_bytes());
    assert!(session.malformed.is_empty(), "{:?}", session.malformed);
    analyze(&session, &[], false)
}

fn kinds(a: &ctxlens_core::analysis::SessionAnalysis) -> Vec<&'static str> {
    a.findings().map(|f| f.kind.name()).collect()
}

const HEAD: &str = r#"{"type":"session","seq":1,"cwd":"/home/me/proj"}
{"type":"tool_result","seq":2,"text":"edited src/main.rs and wrote tok_partial_77 to the upload"}
{"type":"binding","seq":3,"token":"tok_partial_77","regenerable":false}
{"type":"binding","seq":4,"token":"src/main.rs","regenerable":false}
{"type":"obligation","seq":5,"id":"ob-upload","requires":["tok_partial_77","src/main.rs"]}
"#;

#[test]
fn a_relative_path_survives_as_its_absolute_form_and_declared_tokens_of_any_shape_count() {
    let log = format!(
        "{HEAD}{}\n",
        r#"{"type":"compaction","seq":6,"id":"k1","range":{"from":2,"to":5},"summary":"Edited /home/me/proj/src/main.rs; the upload token was written."}"#
    );
    let a = analysis(&log);
    let k1 = a.compaction("k1").unwrap();
    assert_eq!(k1.tokens.len(), 2, "src/main.rs and tok_partial_77");
    assert_eq!(k1.kept(), 1, "the path survives in absolute form");
    assert_eq!(
        a.verdict(k1),
        Verdict::Spill,
        "tok_partial_77 is dropped and cannot be re-fetched"
    );
    let dropped: Vec<_> = a
        .findings()
        .filter(|f| f.kind.name() == "dropped_binding")
        .collect();
    assert_eq!(dropped.len(), 1);
    assert!(
        matches!(&dropped[0].kind, FindingKind::DroppedBinding { token, .. } if token == "tok_partial_77")
    );
}

#[test]
fn a_summary_that_keeps_the_bindings_is_approved() {
    let log = format!(
        "{HEAD}{}\n",
        r#"{"type":"compaction","seq":6,"id":"k1","range":{"from":2,"to":5},"summary":"Edited src/main.rs, upload token tok_partial_77."}"#
    );
    let a = analysis(&log);
    assert_eq!(a.verdict(a.compaction("k1").unwrap()), Verdict::Approve);
    assert_eq!(kinds(&a), ["undecided"]);
}

#[test]
fn a_done_obligation_puts_nothing_at_stake() {
    let log = format!(
        "{HEAD}{}\n{}\n",
        r#"{"type":"obligation","seq":6,"id":"ob-upload","status":"done"}"#,
        r#"{"type":"compaction","seq":7,"id":"k1","range":{"from":2,"to":6},"summary":"The upload is finished."}"#
    );
    let a = analysis(&log);
    assert_eq!(a.verdict(a.compaction("k1").unwrap()), Verdict::Approve);
}

const PLAN: &str = r#"{"type":"tool_result","seq":1,"text":"current revision 4f9a2c81d0e7"}
{"type":"binding","seq":2,"token":"4f9a2c81d0e7","regenerable":false}
{"type":"plan","seq":3,"steps":[{"id":"s1","action":"migrate","target":"staging"},{"id":"s2","action":"smoke","target":"staging"},{"id":"s3","action":"rollback","target":"4f9a2c81d0e7"}]}
{"type":"compaction","seq":4,"id":"k1","phase":"applied","range":{"from":1,"to":3},"summary":"Plan: migrate, smoke, roll back."}
"#;

#[test]
fn following_the_plan_is_not_a_divergence() {
    let log = format!(
        "{PLAN}{}\n{}\n{}\n",
        r#"{"type":"action","seq":5,"step":"s1","name":"migrate","target":"staging"}"#,
        r#"{"type":"action","seq":6,"name":"smoke","target":"staging"}"#,
        r#"{"type":"action","seq":7,"step":"s3","name":"rollback","target":"4f9a2c81d0e7"}"#,
    );
    assert!(!kinds(&analysis(&log)).contains(&"non_idempotent"));
}

#[test]
fn a_skipped_step_diverges() {
    let log = format!(
        "{PLAN}{}\n",
        r#"{"type":"action","seq":5,"step":"s2","name":"smoke","target":"staging"}"#
    );
    let a = analysis(&log);
    let finding = a
        .findings()
        .find(|f| f.kind.name() == "non_idempotent")
        .expect("skip");
    let FindingKind::NonIdempotent {
        expected,
        regenerated_from,
        ..
    } = &finding.kind
    else {
        unreachable!()
    };
    assert_eq!(expected.id, "s2");
    assert_eq!(*regenerated_from, None);
}

#[test]
fn a_new_plan_that_retargets_a_step_diverges_and_names_the_regenerated_binding() {
    let log = format!(
        "{PLAN}{}\n{}\n",
        r#"{"type":"plan","seq":5,"steps":[{"id":"s1","action":"migrate","target":"staging"},{"id":"s3","action":"rollback","target":"7b1e9d03c2a5"}]}"#,
        r#"{"type":"action","seq":6,"step":"s1","name":"deploy","target":"prod"}"#,
    );
    let a = analysis(&log);
    let divergences: Vec<_> = a
        .findings()
        .filter(|f| f.kind.name() == "non_idempotent")
        .collect();
    assert_eq!(divergences.len(), 1, "checking stops at the new plan");
    let FindingKind::NonIdempotent {
        expected,
        regenerated_from,
        ..
    } = &divergences[0].kind
    else {
        unreachable!()
    };
    assert_eq!(expected.id, "s3");
    assert_eq!(regenerated_from.as_deref(), Some("4f9a2c81d0e7"));
}

#[test]
fn a_divergence_belongs_to_the_most_recent_applied_compaction() {
    let log = format!(
        "{PLAN}{}\n{}\n",
        r#"{"type":"compaction","seq":5,"id":"k2","phase":"applied","range":{"from":4,"to":4},"input":"summary","summary":"Plan: migrate, smoke, roll back."}"#,
        r#"{"type":"action","seq":6,"step":"s1","name":"deploy","target":"prod"}"#,
    );
    let a = analysis(&log);
    let finding = a
        .findings()
        .find(|f| f.kind.name() == "non_idempotent")
        .expect("divergence");
    assert_eq!(finding.compaction.as_deref(), Some("k2"));
}

#[test]
fn a_range_past_the_newest_event_or_missing_is_refused() {
    let a = analysis(
        r#"{"type":"message","seq":1,"text":"hello"}
{"type":"compaction","seq":2,"id":"k1","range":{"from":1,"to":9},"summary":"hello"}
{"type":"compaction","seq":3,"id":"k2","summary":"hello"}
{"type":"compaction","seq":4,"id":"k3","range":{"from":"a","to":1},"summary":"hello"}
"#,
    );
    for id in ["k1", "k2", "k3"] {
        assert_eq!(
            a.verdict(a.compaction(id).unwrap()),
            Verdict::Refuse,
            "{id}"
        );
    }
    assert_eq!(
        kinds(&a).iter().filter(|k| **k == "coverage_gap").count(),
        3
    );
}

#[test]
fn later_events_of_a_compaction_only_move_its_phase() {
    let a = analysis(
        r#"{"type":"message","seq":1,"text":"job 4471 failed"}
{"type":"compaction","seq":2,"id":"k1","phase":"proposed","range":{"from":1,"to":1},"summary":"job 4471 failed"}
{"type":"compaction","seq":3,"id":"k1","phase":"applied","range":{"from":1,"to":2},"summary":"nothing"}
"#,
    );
    let k1 = a.compaction("k1").unwrap();
    assert_eq!(k1.info.phase.as_str(), "applied");
    assert_eq!(k1.opaque_ratio, Some(1.0));
}
