use clap::Parser;
use ctxlens::cli::args::{ClaudeHook, Cli, Command, HookAgent, SpillCommand};
use ctxlens::cli::{self, human::Style, CliError};
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = Cli::parse();
    let stdout = std::io::stdout();
    let terminal = stdout.is_terminal();
    let style = Style {
        color: terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let mut out = stdout.lock();
    let result: Result<u8, CliError> = match &args.command {
        Some(Command::Audit(a)) => Ok(cli::audit::run(a, &mut out, style)),
        Some(Command::Gate(a)) => cli::gate::run(a, &mut out, style),
        Some(Command::Decide(a)) => cli::decide::run(a, &mut out),
        Some(Command::Await(a)) => cli::await_decision::run(a, &mut out),
        Some(Command::Contract(a)) => cli::contract::run(a, &mut out),
        Some(Command::Check(a)) => cli::check::run(a, &mut out),
        Some(Command::Spill(SpillCommand::Get { log, handle })) => {
            cli::spill::get(log, handle, &mut out, terminal)
        }
        Some(Command::Hook(HookAgent::ClaudeCode(hook))) => Ok(claude_hook(hook, &mut out)),
        Some(Command::Demo) => ctxlens::tui::demo::run()
            .map(|()| 0)
            .map_err(CliError::unusable),
        None => match &args.path {
            Some(path) => ctxlens::tui::run::run(path)
                .map(|()| 0)
                .map_err(CliError::unusable),
            None => ctxlens::tui::run::run_own_sessions()
                .map(|()| 0)
                .map_err(CliError::unusable),
        },
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("ctxlens: {error}");
            ExitCode::from(error.code)
        }
    }
}

fn claude_hook(hook: &ClaudeHook, out: &mut impl std::io::Write) -> u8 {
    use ctxlens::cli::hook;
    let stdin = &mut std::io::stdin().lock();
    match hook {
        ClaudeHook::PreCompact { hold, timeout } => {
            hook::run("pre-compact", *hold, *timeout, stdin, out)
        }
        ClaudeHook::SessionStart => hook::run("session-start", false, None, stdin, out),
        ClaudeHook::PostCompact => hook::run("post-compact", false, None, stdin, out),
        ClaudeHook::Install { project } => {
            let program = std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "ctxlens".into());
            let result = hook::settings_path(project.as_deref())
                .and_then(|path| hook::install(&path, &program).map(|added| (path, added)));
            match result {
                Ok((path, added)) if added.is_empty() => {
                    let _ = writeln!(
                        out,
                        "{}: the ctxlens hooks are already installed",
                        path.display()
                    );
                    0
                }
                Ok((path, added)) => {
                    let _ = writeln!(out, "{}: added", path.display());
                    for line in added {
                        let _ = writeln!(out, "  {line}");
                    }
                    0
                }
                Err(e) => {
                    eprintln!("ctxlens: {e}");
                    2
                }
            }
        }
    }
}
