//! The fuzz targets' properties for the sidecar's line cap and the seq rule, run on
//! generated inputs in CI (`fuzz/` needs a nightly toolchain and is run by hand).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use ctxlens::store::decisions::parse_sidecar_with_max_line;
use ctxlens_core::model::{Decision, Format, Session};
use proptest::prelude::*;

/// A line of a sidecar: a decision, a torn one, garbage, or a long one.
fn sidecar_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "k[0-9]{1,3}".prop_map(|id| format!(r#"{{"compaction":"{id}","verdict":"spill"}}"#)),
        "k[0-9]{1,3}".prop_map(|id| format!(r#"{{"compaction":"{id}","verd"#)),
        "[ -~]{0,12}",
        "x{40,90}",
        Just(String::new()),
    ]
}

/// A line of a canonical log, with the seq it is given.
fn log_line(seq: u64, kind: u8) -> String {
    match kind % 4 {
        0 => format!(r#"{{"type":"message","seq":{seq},"role":"user","text":"rev 4f9a2c81d0e7"}}"#),
        1 => format!(
            r#"{{"type":"compaction","seq":{seq},"id":"k{seq}","phase":"applied","range":{{"from":1,"to":{}}},"summary":"s"}}"#,
            seq.saturating_sub(1).max(1)
        ),
        2 => "not json".to_owned(),
        _ => format!(r#"{{"type":"tool_result","seq":{seq},"text":"ok"}}"#),
    }
}

fn compaction_ids(session: &Session) -> Vec<String> {
    session.compactions().into_iter().map(|c| c.id).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A line over the cap is unreadable, and every decision under it is read, after
    /// an oversized line as before one.
    #[test]
    fn a_sidecar_line_over_the_cap_hides_no_decision(
        lines in proptest::collection::vec(sidecar_line(), 0..12),
        cap in 1usize..80,
    ) {
        let data = lines.join("\n");
        let sidecar = parse_sidecar_with_max_line(data.as_bytes(), cap);
        let mut decisions = 0;
        for (at, line) in data.split('\n').enumerate() {
            let number = at as u64 + 1;
            if line.len() > cap {
                prop_assert!(sidecar.unreadable.contains(&number), "line {} of {:?}", number, data);
            } else if serde_json::from_str::<Decision>(line).is_ok() {
                decisions += 1;
            }
        }
        prop_assert_eq!(sidecar.decisions.len(), decisions, "{:?}", data);
    }

    /// One line whose seq is `u64::MAX`, anywhere: it alone is malformed, and every
    /// compaction is still found.
    #[test]
    fn one_absurd_seq_is_malformed_alone(
        kinds in proptest::collection::vec(0u8..4, 1..14),
        at in 0usize..15,
    ) {
        let lines: Vec<String> = kinds
            .iter()
            .enumerate()
            .map(|(i, &kind)| log_line(i as u64 + 1, kind))
            .collect();
        let data = lines.join("\n") + "\n";
        let session = ctxlens::ingest::parse_bytes(data.as_bytes());
        prop_assume!(session.format == Format::Canonical);
        let mut with_absurd = lines.clone();
        with_absurd.insert(
            at.min(lines.len()),
            r#"{"type":"message","seq":18446744073709551615,"role":"user","text":"x"}"#.to_owned(),
        );
        let again = ctxlens::ingest::parse_bytes((with_absurd.join("\n") + "\n").as_bytes());
        prop_assert_eq!(again.malformed.total(), session.malformed.total() + 1, "{:?}", with_absurd);
        prop_assert_eq!(compaction_ids(&again), compaction_ids(&session));
    }
}

#[cfg(feature = "opencode")]
/// A value of any SQLite type, as an OpenCode column may hold one.
fn column_value() -> impl Strategy<Value = rusqlite::types::Value> {
    use rusqlite::types::Value as V;
    prop_oneof![
        Just(V::Null),
        any::<i64>().prop_map(V::Integer),
        prop_oneof![
            Just(i64::MAX),
            Just(-1i64),
            Just(253_402_300_800_000i64),
            Just(1_796_383_340_000_000i64)
        ]
        .prop_map(V::Integer),
        any::<f64>().prop_map(V::Real),
        "[ -~]{0,40}".prop_map(V::Text),
        prop_oneof![
            Just(r#"{"role":"user"}"#.to_owned()),
            Just(r#"{"role":"assistant","time":{"created":1,"completed":2}}"#.to_owned()),
            Just(r#"{"type":"text","text":"rev 4f9a2c81d0e7"}"#.to_owned()),
            Just(r#"{"type":"compaction","auto":true}"#.to_owned()),
            Just(r#"{"role":"assistant","summary":true,"mode":"compaction"}"#.to_owned()),
            Just(r#"{"type":"text","te"#.to_owned()),
        ]
        .prop_map(V::Text),
        proptest::collection::vec(any::<u8>(), 0..24).prop_map(V::Blob),
    ]
}

#[cfg(feature = "opencode")]
/// (id, time, data) of a row, each of any type.
fn row() -> impl Strategy<Value = [rusqlite::types::Value; 3]> {
    use rusqlite::types::Value as V;
    (
        prop_oneof![3 => "m[0-9]".prop_map(V::Text), 1 => column_value()],
        column_value(),
        column_value(),
    )
        .prop_map(|(a, b, c)| [a, b, c])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// OpenCode rows of any column type and value (out-of-range times, JSON cut short,
    /// blobs, reals, nulls) are read without a panic: every message row stands in the
    /// lines as a message or an unreadable row, and the parser counts each unreadable
    /// one as a malformed line.
    #[cfg(feature = "opencode")]
#[test]
    fn opencode_rows_of_any_type_are_read_or_marked(
        messages in proptest::collection::vec(row(), 0..8),
        parts in proptest::collection::vec((0usize..8, row()), 0..10),
        session_time in column_value(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("opencode.db");
        let connection = rusqlite::Connection::open(&db).unwrap();
        connection.execute_batch(
            "CREATE TABLE session (id, directory, title, time_created);
             CREATE TABLE message (id, session_id, time_created, data);
             CREATE TABLE part (id, message_id, session_id, time_created, data);",
        ).unwrap();
        connection.execute(
            "INSERT INTO session VALUES ('ses_1', '/w', 't', ?1)",
            [&session_time],
        ).unwrap();
        for [id, time, data] in &messages {
            connection.execute(
                "INSERT INTO message VALUES (?1, 'ses_1', ?2, ?3)",
                rusqlite::params![id, time, data],
            ).unwrap();
        }
        for (n, (of, [id, time, data])) in parts.iter().enumerate() {
            let message = format!("m{of}");
            connection.execute(
                "INSERT INTO part VALUES (?1, ?2, 'ses_1', ?3, ?4)",
                rusqlite::params![id, message, time, data],
            ).unwrap_or_else(|e| panic!("part {n}: {e}"));
        }
        drop(connection);
        let database = ctxlens::ingest::opencode::Database::open(&db).unwrap();
        let (lines, _) = database.session_lines("ses_1", false).unwrap();
        let records: Vec<serde_json::Value> = lines
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let kind = |k: &str| records.iter().filter(|r| r["type"] == k).count();
        // Every message row is a message line, or (its id unreadable) an unreadable
        // line with no id: none is lost.
        let without_id = records
            .iter()
            .filter(|r| r["type"] == "opencode.unreadable" && r["table"] == "message" && r["id"].is_null())
            .count();
        prop_assert_eq!(kind("opencode.message") + without_id, messages.len());
        let session = ctxlens::ingest::parse_bytes(&lines);
        prop_assert_eq!(session.malformed.total(), kind("opencode.unreadable"));
    }

    /// Two sessions whose logs share a file name (Copilot CLI's
    /// `<session-id>/events.jsonl`) never share a fleet subject or a decision key.
    #[test]
    fn logs_of_one_file_name_in_two_session_folders_never_share_a_subject(
        a in "[0-9a-f]{8}-[0-9a-f]{4}",
        b in "[0-9a-f]{8}-[0-9a-f]{4}",
        stem in prop_oneof![Just("events"), Just("session"), Just("log"), Just("chat")],
        root in "(/[a-z]{1,6}){0,3}",
    ) {
        prop_assume!(a != b);
        use ctxlens::store::nats::keys;
        let path = |id: &str| std::path::PathBuf::from(format!("{root}/{id}/{stem}.jsonl"));
        let (sa, sb) = (keys::session_of_log("h", &path(&a)), keys::session_of_log("h", &path(&b)));
        prop_assert_ne!(&sa, &sb);
        prop_assert_ne!(keys::events_subject(&sa), keys::events_subject(&sb));
        prop_assert_ne!(keys::decision_key(&sa, "compacted-1"), keys::decision_key(&sb, "compacted-1"));
    }
}
