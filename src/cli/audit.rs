//! `ctxlens audit PATH… [--json] [--strict] [--tokens]`

use super::human::{self, Style};
use super::{json_line, load_reporting, EXIT_FINDING, EXIT_OK, EXIT_UNUSABLE};
use crate::analysis::{report, Options};
use crate::cli::args::AuditArgs;
use crate::ingest::progress::Reading;
use std::io::IsTerminal;
use std::io::Write;
use std::time::Duration;

pub fn run(args: &AuditArgs, out: &mut impl Write, style: Style) -> u8 {
    let options = Options {
        strict: args.strict,
        list_tokens: args.tokens,
    };
    let mut worst = EXIT_OK;
    // On a terminal, a read that takes over a second says how far it has got.
    let show_progress = std::io::stderr().is_terminal();
    let after = std::env::var("CTXLENS_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_secs(1), Duration::from_millis);
    for path in &args.paths {
        let file = path.display().to_string();
        let shown = crate::sanitize::line(&file).into_owned();
        let mut drew = false;
        let mut progress = |reading: Reading| {
            if show_progress && reading.elapsed >= after {
                eprint!("\r{shown}: reading {}\x1b[K", reading.describe());
                drew = true;
            }
        };
        let loaded = load_reporting(path, args.strict, &mut progress);
        if drew {
            eprint!("\r\x1b[K");
        }
        let code = match loaded {
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
