//! `ctxlens gate LOG ID [--json] [--strict]`

use super::human::Style;
use super::{json_line, require_compaction, CliError, EXIT_FINDING, EXIT_OK};
use crate::cli::args::GateArgs;
use crate::sanitize;
use ctxlens_core::model::Verdict;
use std::io::Write;

pub(crate) fn run(args: &GateArgs, out: &mut impl Write, style: Style) -> Result<u8, CliError> {
    let backend = super::fleet::backend(&args.log, &args.fleet)?;
    let loaded = super::load_from(&args.log, &*backend.channel, args.strict, &mut |_| {})?;
    let compaction = require_compaction(&loaded, &args.log, &args.id)?;
    let verdict = loaded.analysis.verdict(compaction);
    let reasons = compaction.reasons(args.strict);
    let text = if args.json {
        let value = serde_json::json!({
            "file": args.log.display().to_string(),
            "compaction": compaction.info.id,
            "verdict": verdict,
            "reasons": reasons,
            "findings": &*compaction.findings,
        });
        json_line(&value) + "\n"
    } else {
        let mut text = format!(
            "{}: {}\n",
            sanitize::line(&compaction.info.id),
            style.verdict(verdict)
        );
        if !reasons.is_empty() {
            text += &format!("  because: {}\n", reasons.join("; "));
        }
        for finding in compaction.findings.iter().filter(|f| f.is_error()) {
            text += &format!("  {}\n", style.finding(finding));
        }
        text
    };
    let _ = out.write_all(text.as_bytes());
    super::freed_by_exit(loaded);
    Ok(if verdict == Verdict::Approve {
        EXIT_OK
    } else {
        EXIT_FINDING
    })
}
