//! Any bytes as a log, in whatever format they are detected as (canonical, Claude
//! Code, Codex: the seeds cover all three), then the whole analysis, the report, the
//! contract and the tripwire: nothing may panic.
#![no_main]
use ctxlens_core::analysis::signals::continuation::{tripwire, ProposedAction};
use ctxlens_core::analysis::{analyze, contract, report, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let session = ctxlens::ingest::parse_bytes(data);
    let analysis = analyze(&session, &[], true);
    let _ = report::report("fuzz", &session, &analysis, Options::default());
    let _ = contract::at_end(&session);
    for c in &analysis.compactions {
        let _ = contract::for_compaction(&session, c);
        let _ = ctxlens::tui::view::token_rows::token_rows(&session, c);
    }
    let action = ProposedAction {
        step: None,
        name: "x".into(),
        target: serde_json::Value::Null,
    };
    let _ = tripwire(&session, &analysis.compactions, &action);
});
