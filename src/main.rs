use clap::Parser;
use ctxlens::cli::args::{ClaudeHook, Cli, CodexHook, Command, HookAgent, SpillCommand};
use ctxlens::cli::{self, human::Style, CliError};
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    // clap's own messages quote what was typed: they go through the sanitizer too.
    let args = match Cli::try_parse() {
        Ok(args) => args,
        Err(e) => {
            let text = e.render().to_string();
            let text = ctxlens::sanitize::block(&text);
            if e.use_stderr() {
                eprint!("{text}");
            } else {
                print!("{text}");
            }
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
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
        Some(Command::Spill(SpillCommand::Get { log, handle, fleet })) => {
            cli::spill::get(log, handle, fleet, &mut out, terminal)
        }
        Some(Command::Ship(a)) => cli::ship::run(a),
        Some(Command::Fleet(a)) => cli::fleet::run_view(a),
        Some(Command::Hook(HookAgent::ClaudeCode(hook))) => Ok(claude_hook(hook, &mut out)),
        Some(Command::Hook(HookAgent::Codex(hook))) => Ok(codex_hook(hook, &mut out)),
        Some(Command::Demo) => ctxlens::tui::demo::run()
            .map(|()| 0)
            .map_err(CliError::unusable),
        None => cli::fleet::stores(&args.fleet).and_then(|stores| {
            match &args.path {
                Some(path) => ctxlens::tui::run::run(path, stores),
                None => ctxlens::tui::run::run_own_sessions(stores),
            }
            .map(|()| 0)
            .map_err(CliError::unusable)
        }),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("ctxlens: {}", ctxlens::sanitize::block(&error.message));
            ExitCode::from(error.code)
        }
    }
}

fn claude_hook(hook: &ClaudeHook, out: &mut impl std::io::Write) -> u8 {
    use ctxlens::cli::hook::{self, setup, Agent};
    let stdin = &mut std::io::stdin().lock();
    match hook {
        ClaudeHook::PreCompact(h) => hook::run(
            Agent::ClaudeCode,
            "pre-compact",
            h.hold,
            h.timeout,
            stdin,
            out,
        ),
        ClaudeHook::SessionStart => {
            hook::run(Agent::ClaudeCode, "session-start", false, None, stdin, out)
        }
        ClaudeHook::PostCompact => {
            hook::run(Agent::ClaudeCode, "post-compact", false, None, stdin, out)
        }
        ClaudeHook::Install(args) => setup::install(Agent::ClaudeCode, args, out),
        ClaudeHook::Uninstall(args) => setup::uninstall(Agent::ClaudeCode, args, out),
        ClaudeHook::Status(args) => setup::status(Agent::ClaudeCode, args, out),
    }
}

fn codex_hook(hook: &CodexHook, out: &mut impl std::io::Write) -> u8 {
    use ctxlens::cli::hook::{self, setup, Agent};
    let stdin = &mut std::io::stdin().lock();
    match hook {
        CodexHook::PreCompact(h) => {
            hook::run(Agent::Codex, "pre-compact", h.hold, h.timeout, stdin, out)
        }
        CodexHook::SessionStart => {
            hook::run(Agent::Codex, "session-start", false, None, stdin, out)
        }
        CodexHook::PostCompact => hook::run(Agent::Codex, "post-compact", false, None, stdin, out),
        CodexHook::Install(args) => setup::install(Agent::Codex, args, out),
        CodexHook::Uninstall(args) => setup::uninstall(Agent::Codex, args, out),
        CodexHook::Status(args) => setup::status(Agent::Codex, args, out),
    }
}
