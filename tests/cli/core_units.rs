//! Unit-level checks of the core analysis on logs the canonical reader parses (the
//! reader lives in the main crate, so these tests do too).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

mod contract {
    use ctxlens::ingest::parse_bytes;
    use ctxlens_core::analysis::analyze;
    use ctxlens_core::analysis::contract::*;

    const LOG: &[u8] = br#"{"type":"session","seq":1,"cwd":"/p"}
{"type":"tool_result","seq":2,"text":"rev 4f9a2c81d0e7 log /p/a.log"}
{"type":"binding","seq":3,"token":"4f9a2c81d0e7","regenerable":false,"note":"the rollback target"}
{"type":"binding","seq":4,"token":"/p/a.log","regenerable":true}
{"type":"obligation","seq":5,"id":"ob-rollback","name":"roll back if smoke fails","requires":["4f9a2c81d0e7","tok_9"]}
{"type":"plan","seq":6,"steps":[{"id":"s1","action":"smoke","target":"staging"},{"id":"s2","action":"rollback","target":"4f9a2c81d0e7"},{"id":"s3","action":"read","target":"/p/a.log"}]}
{"type":"compaction","seq":7,"id":"k1","range":{"from":2,"to":4},"summary":"migrated; log at /p/a.log"}
"#;

    #[test]
    fn the_contract_now_holds_every_required_and_targeted_token_in_log_order() {
        let session = parse_bytes(LOG);
        let contract = at_end(&session);
        assert_eq!(contract.at, 7);
        assert_eq!(
            contract.text(),
            "Keep these identifiers verbatim:\n\
             - 4f9a2c81d0e7: the rollback target (needed by ob-rollback, s2)\n\
             - /p/a.log: read (needed by s3)\n\
             - tok_9: roll back if smoke fails (needed by ob-rollback)\n"
        );
        let tok_9 = &contract.bindings[2];
        assert_eq!(tok_9.regenerable, None);
        let json = serde_json::to_value(&contract).unwrap();
        assert_eq!(json["bindings"][0]["required_by"][1], "s2");
        assert!(json["bindings"][0].get("why").is_none());
    }

    #[test]
    fn a_compaction_contract_holds_what_its_summary_dropped_of_what_is_at_stake() {
        let session = parse_bytes(LOG);
        let analysis = analyze(&session, &[], false);
        let contract = for_compaction(&session, &analysis.compactions[0]);
        let tokens: Vec<&str> = contract.bindings.iter().map(|e| e.token.as_str()).collect();
        // The log path survived, tok_9 is not in the region: only the revision.
        assert_eq!(tokens, ["4f9a2c81d0e7"]);
        assert_eq!(contract.at, 7);
    }
}

mod marks {
    use ctxlens::ingest::parse_bytes;
    use ctxlens::tui::view::marks::*;
    use ctxlens_core::analysis::analyze;

    #[test]
    fn marks_follow_the_analysis() {
        let log = br#"{"type":"session","seq":1,"cwd":"/p"}
{"type":"tool_result","seq":2,"text":"rev 4f9a2c81d0e7 log /p/a/b.log tok_77 9c3e5b7a1f20"}
{"type":"binding","seq":3,"token":"4f9a2c81d0e7","regenerable":false}
{"type":"binding","seq":4,"token":"a/b.log","regenerable":true}
{"type":"binding","seq":5,"token":"tok_77","regenerable":false}
{"type":"compaction","seq":6,"id":"k1","range":{"from":2,"to":5},"summary":"kept 9c3e5b7a1f20"}
"#;
        let session = parse_bytes(log);
        let analysis = analyze(&session, &[], false);
        let k1 = &analysis.compactions[0];
        let text = "4f9a2c81d0e7 then a/b.log and tok_77, 9c3e5b7a1f20";
        let states: Vec<(&str, TokenState)> = Marker::new(&session, k1)
            .marks(text, &session)
            .iter()
            .map(|m| (&text[m.start..m.end], m.state))
            .collect();
        assert_eq!(
            states,
            [
                ("4f9a2c81d0e7", TokenState::DroppedNoRefetch),
                ("a/b.log", TokenState::DroppedRegenerable),
                ("tok_77", TokenState::DroppedNoRefetch),
                ("9c3e5b7a1f20", TokenState::Kept),
            ]
        );
        assert_eq!(binding_state("tok_77", &session, k1), BindingState::Dropped);
        assert_eq!(
            binding_state("/p/a/b.log", &session, k1),
            BindingState::Regenerable
        );
        assert_eq!(binding_state("nope", &session, k1), BindingState::Unknown);
    }
}

mod token_rows {
    use ctxlens::ingest::parse_bytes;
    use ctxlens::tui::view::marks::TokenState;
    use ctxlens::tui::view::token_rows::*;
    use ctxlens_core::analysis::analyze;

    #[test]
    fn rows_put_the_worst_first_and_name_the_sentence_that_kept_a_token() {
        let log = br#"{"type":"session","seq":1,"cwd":"/p"}
{"type":"tool_result","seq":2,"text":"rev 4f9a2c81d0e7 log /p/src/lib/a.rs tok_77 9c3e5b7a1f20aa"}
{"type":"binding","seq":3,"token":"tok_77","regenerable":false}
{"type":"compaction","seq":4,"id":"k1","range":{"from":2,"to":3},"summary":"Checked things.\n- Edited lib/a.rs. Deployed 9c3e5b7a1f20aa at noon."}
"#;
        let session = parse_bytes(log);
        let analysis = analyze(&session, &[], false);
        let table = token_rows(&session, &analysis.compactions[0]);
        let shown: Vec<(&str, TokenState, Option<&str>)> = table
            .rows
            .iter()
            .map(|r| (session.tokens.text(r.token), r.state, table.sentence(r)))
            .collect();
        assert_eq!(shown[0], ("tok_77", TokenState::DroppedNoRefetch, None));
        assert!(shown.contains(&("4f9a2c81d0e7", TokenState::Dropped, None)));
        assert!(shown.contains(&(
            "9c3e5b7a1f20aa",
            TokenState::Kept,
            Some("Deployed 9c3e5b7a1f20aa at noon.")
        )));
        assert!(table
            .rows
            .iter()
            .all(|r| TokenRows::seen_at(r, &session) == 2));
    }

    /// A summary that is one long sentence (identifiers joined by "and") is held once,
    /// not once per token it keeps: 2,000 copies of a 100 KB sentence took gigabytes.
    #[test]
    fn every_row_shares_the_one_sentence_that_keeps_its_token() {
        let ids: Vec<String> = (0..2000)
            .map(|i| format!("{:012x}", 0xabc000 + i))
            .collect();
        let mut log = String::from("{\"type\":\"session\",\"seq\":1}\n");
        log.push_str(&format!(
            "{{\"type\":\"tool_result\",\"seq\":2,\"text\":\"{}\"}}\n",
            ids.join(" ")
        ));
        log.push_str(&format!(
            "{{\"type\":\"compaction\",\"seq\":3,\"id\":\"k1\",\"range\":{{\"from\":2,\"to\":2}},\"summary\":\"kept {}\"}}\n",
            ids.join(" and ")
        ));
        let session = parse_bytes(log.as_bytes());
        let analysis = analyze(&session, &[], false);
        let table = token_rows(&session, &analysis.compactions[0]);
        let sentences: Vec<u32> = table.rows.iter().filter_map(|r| r.sentence).collect();
        assert_eq!(sentences.len(), 2000);
        assert!(sentences.iter().all(|&s| s == sentences[0]));
        assert_eq!(table.sentences.len(), 1);
    }
}
