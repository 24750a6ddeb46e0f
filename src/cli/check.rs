//! `ctxlens check LOG --action JSON` (docs/remedies.md): the tripwire a runtime calls before it
//! acts after a compaction.

use super::{json_line, CliError, EXIT_FINDING, EXIT_OK};
use crate::cli::args::CheckArgs;
use ctxlens_core::analysis::{tripwire, ProposedAction};
use ctxlens_core::analysis::{ExpectedStep, FindingKind};
use ctxlens_core::model::Verdict;
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write;

/// What `check` prints for a divergence, in the order of docs/remedies.md.
#[derive(Serialize)]
struct Diverges<'a> {
    diverges: bool,
    expected: &'a ExpectedStep,
    regenerated_from: Option<&'a str>,
    compaction: &'a str,
    handle: Option<&'a str>,
}

/// The action as the runtime gives it: an object with a string `name`.
fn parse_action(text: &str) -> Result<ProposedAction, CliError> {
    let unusable = |why: &str| CliError::unusable(format!("--action: {why}"));
    let value: Value = serde_json::from_str(text).map_err(CliError::ActionNotJson)?;
    let Value::Object(object) = value else {
        return Err(unusable("not a JSON object"));
    };
    let Some(Value::String(name)) = object.get("name") else {
        return Err(unusable("no string \"name\""));
    };
    let step = match object.get("step") {
        None | Some(Value::Null) => None,
        Some(Value::String(step)) => Some(step.clone()),
        Some(_) => return Err(unusable("\"step\" is not a string")),
    };
    Ok(ProposedAction {
        step,
        name: name.clone(),
        target: object.get("target").cloned().unwrap_or(Value::Null),
    })
}

pub(crate) fn run(args: &CheckArgs, out: &mut impl Write) -> Result<u8, CliError> {
    let action = parse_action(&args.action)?;
    let backend = super::fleet::backend(&args.log, &args.fleet)?;
    let loaded = super::load_from(&args.log, &*backend.channel, false, &mut |_| {})?;
    let compactions = &loaded.analysis.compactions;
    let Some((index, finding)) = tripwire(&loaded.session, compactions, &action) else {
        let _ = writeln!(out, "{}", json_line(&json!({ "diverges": false })));
        return Ok(EXIT_OK);
    };
    let FindingKind::NonIdempotent {
        expected,
        regenerated_from,
        ..
    } = &finding.kind
    else {
        return Err(CliError::unusable("a divergence that is not one"));
    };
    let compaction = compactions
        .get(index)
        .ok_or_else(|| CliError::unusable("a divergence of no compaction"))?;
    // The spill to restore from, if the operator spilled this compaction.
    let handle = compaction
        .decision
        .as_ref()
        .filter(|d| d.verdict == Verdict::Spill)
        .and_then(|d| d.handle.clone());
    let result = Diverges {
        diverges: true,
        expected,
        regenerated_from: regenerated_from.as_deref(),
        compaction: &compaction.info.id,
        handle: handle.as_deref(),
    };
    let _ = writeln!(out, "{}", json_line(&result));
    Ok(EXIT_FINDING)
}
