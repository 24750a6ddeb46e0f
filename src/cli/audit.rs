//! `ctxlens audit PATH… [--json] [--strict] [--tokens]`

use super::human::{self, Style};
use super::{json_line, load_from, CliError, Loaded, EXIT_FINDING, EXIT_OK, EXIT_UNUSABLE};
use crate::cli::args::AuditArgs;
use crate::session::source::{from_database, from_stream, origins, Origin};
use crate::session::Reading;
use ctxlens_core::analysis::{report, Options};
use std::io::IsTerminal;
use std::io::Write;
use std::time::Duration;

pub(crate) fn run(args: &AuditArgs, out: &mut impl Write, style: Style) -> u8 {
    let options = Options {
        strict: args.strict,
        list_tokens: args.tokens,
    };
    let mut worst = EXIT_OK;
    // On a terminal, a read that takes over a second says how far it has got.
    let progress = Progress {
        shown: std::io::stderr().is_terminal(),
        after: std::env::var("CTXLENS_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(1), Duration::from_millis),
    };
    let server = match super::fleet::connect(&args.fleet) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("ctxlens: {}", crate::sanitize::block(&error.to_string()));
            return error.code();
        }
    };
    let sources = origins(&args.paths, server.as_deref());
    let last = sources.len().saturating_sub(1);
    for (index, source) in sources.into_iter().enumerate() {
        let (name, loaded) = match source {
            Ok(Origin::File(path)) => {
                let loaded = load_file(&path, server.as_ref(), args.strict, progress);
                (path.display().to_string(), loaded)
            }
            Ok(Origin::DatabaseSession(db, session)) => {
                let name = crate::session::source::session_name(&db, &session);
                let loaded = from_database(&db, &session, args.strict);
                (name, loaded.map_err(CliError::from))
            }
            Ok(Origin::Subject(subject)) => {
                let loaded = server
                    .as_ref()
                    .ok_or_else(|| CliError::unusable("no server"))
                    .and_then(|server| Ok(from_stream(server, &subject, args.strict)?));
                (subject, loaded)
            }
            Ok(Origin::EmptyDatabase(db)) => {
                let name = db.display().to_string();
                let note = "an OpenCode database with no sessions: nothing to audit";
                if args.json {
                    let line = serde_json::json!({"file": name, "sessions": 0, "note": note});
                    let _ = writeln!(out, "{}", json_line(&line));
                } else {
                    let _ = writeln!(out, "{}: {note}", crate::sanitize::line(&name));
                }
                continue;
            }
            Err((name, error)) => {
                let error = CliError::from(error);
                eprintln!("ctxlens: {}", crate::sanitize::block(&error.to_string()));
                if args.json {
                    let line = serde_json::json!({"file": name, "error": error.to_string()});
                    let _ = writeln!(out, "{}", json_line(&line));
                }
                worst = worst.max(error.code());
                continue;
            }
        };
        worst = worst.max(print(&name, &loaded, args, out, options, style));
        if index == last {
            super::freed_by_exit(loaded);
        }
    }
    worst.min(EXIT_UNUSABLE)
}

/// Whether a long read says how far it has got on stderr, and after how long.
#[derive(Clone, Copy)]
struct Progress {
    shown: bool,
    after: Duration,
}

/// A log file read and analysed with its decisions, its progress shown as `progress`
/// says.
fn load_file(
    path: &std::path::Path,
    server: Option<&std::sync::Arc<crate::store::nats::Nats>>,
    strict: bool,
    progress: Progress,
) -> Result<Loaded, CliError> {
    let shown = crate::sanitize::line(&path.display().to_string()).into_owned();
    let mut drew = false;
    let mut report = |reading: Reading| {
        if progress.shown && reading.elapsed >= progress.after {
            eprint!("\r{shown}: reading {}\x1b[K", reading.describe());
            drew = true;
        }
    };
    let backend = super::fleet::backend_on(server, path);
    let loaded = load_from(path, &*backend.channel, strict, &mut report);
    if drew {
        eprint!("\r\x1b[K");
    }
    let loaded = loaded?;
    crate::session::source::refuse_binary(path, &loaded.session)?;
    Ok(loaded)
}

/// Writes the report of one log; returns its exit status.
fn print(
    file: &str,
    loaded: &Result<Loaded, CliError>,
    args: &AuditArgs,
    out: &mut impl Write,
    options: Options,
    style: Style,
) -> u8 {
    let file = file.to_owned();
    {
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
                eprintln!("ctxlens: {}", crate::sanitize::block(&error.to_string()));
                if args.json {
                    let line = serde_json::json!({"file": file, "error": error.to_string()});
                    let _ = writeln!(out, "{}", json_line(&line));
                }
                error.code()
            }
        };
        code
    }
}
