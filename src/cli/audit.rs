//! `ctxlens audit PATH… [--json] [--strict] [--tokens]`

use super::human::{self, Style};
use super::{json_line, load_from, CliError, Loaded, EXIT_FINDING, EXIT_OK, EXIT_UNUSABLE};
use crate::cli::args::AuditArgs;
use crate::ingest::progress::Reading;
use ctxlens_core::analysis::{report, Options};
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
    let sources = sources(&args.paths, server.as_deref());
    let last = sources.len().saturating_sub(1);
    for (index, source) in sources.into_iter().enumerate() {
        let (name, loaded) = match source {
            Ok(Source::File(path)) => {
                let loaded = load_file(&path, server.as_ref(), args.strict, progress);
                (path.display().to_string(), loaded)
            }
            Ok(Source::OpenCode(db, session)) => {
                let name = crate::session::source::session_name(&db, &session);
                (name, from_database(&db, &session, args.strict))
            }
            Ok(Source::Subject(subject)) => {
                let loaded = server
                    .as_ref()
                    .ok_or_else(|| CliError::unusable("no server"))
                    .and_then(|server| from_stream(server, &subject, args.strict));
                (subject, loaded)
            }
            Ok(Source::Empty(db)) => {
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
    // Not one event, and NUL bytes, which no text log holds: a binary, not a log.
    let lines = loaded.session.malformed.total();
    if loaded.session.events.is_empty() && lines > 0 && starts_with_a_nul_byte(path) {
        return Err(CliError::unusable(format!(
            "{shown}: not a session log (a binary file: no line of it is an event)"
        )));
    }
    Ok(loaded)
}

/// Whether the first block of the file at `path` holds a NUL byte.
fn starts_with_a_nul_byte(path: &std::path::Path) -> bool {
    let mut first = [0u8; 8192];
    let read = crate::ingest::open_log(path)
        .ok()
        .and_then(|mut file| std::io::Read::read(&mut file, &mut first).ok())
        .unwrap_or(0);
    first.get(..read).is_some_and(|bytes| bytes.contains(&0))
}

/// Where a report's log comes from.
enum Source {
    File(std::path::PathBuf),
    /// An OpenCode database with no session.
    Empty(std::path::PathBuf),
    /// A session of an OpenCode database.
    OpenCode(std::path::PathBuf, String),
    /// A subject of the events stream.
    Subject(String),
}

/// The logs `paths` name: files, and with a server, subjects (wildcards expanded).
fn sources(
    paths: &[std::path::PathBuf],
    server: Option<&crate::store::nats::Nats>,
) -> Vec<Result<Source, (String, CliError)>> {
    let mut out = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        let failed =
            |e: &dyn std::fmt::Display| Err((name.clone(), CliError::unusable(e.to_string())));
        // A session of an OpenCode database by the name this command prints.
        if let Some((db, session)) = crate::session::source::split_session_name(path) {
            out.push(Ok(Source::OpenCode(db, session)));
            continue;
        }
        // OpenCode's own export of a session: ctxlens's copy of it.
        match crate::session::source::export_copy(path) {
            Ok(Some(copy)) => {
                out.push(Ok(Source::File(copy)));
                continue;
            }
            Ok(None) => {}
            Err(e) => {
                out.push(failed(&e));
                continue;
            }
        }
        // A folder: its session logs, as the TUI lists them.
        if path.is_dir() {
            let mut logs = crate::ingest::find_logs(path);
            logs.sort();
            if logs.is_empty() {
                out.push(failed(&format!(
                    "{}: no session logs (*.jsonl) under it",
                    crate::sanitize::line(&name)
                )));
            }
            out.extend(logs.into_iter().map(|log| Ok(Source::File(log))));
            continue;
        }
        // An OpenCode database: each of its sessions.
        if path.is_file() && crate::ingest::opencode::is_database(path) {
            match crate::ingest::opencode::sessions(path) {
                Ok(sessions) if sessions.is_empty() => out.push(Ok(Source::Empty(path.clone()))),
                Ok(sessions) => out.extend(
                    sessions
                        .into_iter()
                        .map(|s| Ok(Source::OpenCode(path.clone(), s.id))),
                ),
                Err(e) => out.push(failed(&e)),
            }
            continue;
        }
        let Some(server) = server.filter(|_| !path.exists()) else {
            out.push(Ok(Source::File(path.clone())));
            // Claude Code's subagents compact on their own: their transcripts follow
            // their session's, unless named as well.
            out.extend(
                crate::ingest::subagents_of(path)
                    .into_iter()
                    .filter(|agent| !paths.contains(agent))
                    .map(|agent| Ok(Source::File(agent))),
            );
            continue;
        };
        let filter = path.to_string_lossy();
        match server.subjects(&filter) {
            Ok(subjects) if subjects.is_empty() => out.push(failed(&format!(
                "{}: no such file, and no session on the events stream matches it",
                crate::sanitize::line(&filter)
            ))),
            Ok(subjects) => out.extend(
                subjects
                    .into_iter()
                    .filter(|s| s.ends_with(".events"))
                    .map(|s| Ok(Source::Subject(s))),
            ),
            Err(e) => out.push(failed(&format!("{}: {e}", crate::sanitize::line(&filter)))),
        }
    }
    out
}

/// A session of an OpenCode database as it stands, with the decisions and the hooks'
/// ledger recorded beside ctxlens's copy of it (which the TUI and the hooks use).
fn from_database(db: &std::path::Path, session: &str, strict: bool) -> Result<Loaded, CliError> {
    let bytes = crate::ingest::opencode::session_lines(db, session)?;
    let mut parsed = crate::ingest::parse_bytes(&bytes);
    let copy = crate::session::mirror::copy_of(db, session)?;
    // The hooks' ledger lies beside the copy, whose lines these are.
    crate::session::attach_sidecars(&mut parsed, &copy)
        .map_err(|e| CliError::unusable(format!("{}: {e}", copy.display())))?;
    let backend = crate::store::channel::Backend::files(&copy);
    super::analyze_with(parsed, &*backend.channel, strict)
}

/// A session replayed from the stream, with its decisions from the server.
fn from_stream(
    server: &std::sync::Arc<crate::store::nats::Nats>,
    subject: &str,
    strict: bool,
) -> Result<Loaded, CliError> {
    let bytes = server
        .replay(subject)
        .map_err(|e| CliError::unusable(e.to_string()))?;
    let session = crate::ingest::parse_bytes(&bytes);
    let key = crate::store::nats::keys::session_of_subject(subject)
        .ok_or_else(|| CliError::unusable(format!("{subject}: not an events subject")))?;
    let backend = crate::store::nats::backend(server, &key);
    super::analyze_with(session, &*backend.channel, strict)
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
