//! `ctxlens audit PATH… [--json] [--strict] [--tokens]`

use super::human::{self, Style};
use super::{json_line, load, EXIT_FINDING, EXIT_OK, EXIT_UNUSABLE};
use crate::analysis::{report, Options};
use crate::cli::args::AuditArgs;
use std::io::Write;

pub fn run(args: &AuditArgs, out: &mut impl Write, style: Style) -> u8 {
    let options = Options {
        strict: args.strict,
        list_tokens: args.tokens,
    };
    let mut worst = EXIT_OK;
    for path in &args.paths {
        let file = path.display().to_string();
        let code = match load(path, args.strict) {
            Ok(loaded) => {
                let report = report(&file, &loaded.session, &loaded.analysis, options);
                let text = if args.json {
                    json_line(&report) + "\n"
                } else {
                    human::report(&report, style)
                };
                let _ = out.write_all(text.as_bytes());
                if report.has_errors() {
                    EXIT_FINDING
                } else {
                    EXIT_OK
                }
            }
            Err(error) => {
                eprintln!("ctxlens: {}", crate::sanitize::block(&error.message));
                if args.json {
                    let line = serde_json::json!({"file": file, "error": error.message});
                    let _ = writeln!(out, "{}", json_line(&line));
                }
                error.code
            }
        };
        worst = worst.max(code);
    }
    worst.min(EXIT_UNUSABLE)
}
