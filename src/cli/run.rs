//! What `main` runs: the command line parsed, the path resolved, the command run, and
//! its error printed with its causes.

use super::args::{
    ClaudeHook, Cli, CodexHook, Command, CopilotHook, HookAgent, OpenCodeHook, QwenHook,
    SpillCommand,
};
use super::{self as cli, human::Style, CliError};
use clap::Parser;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Runs ctxlens as its command line says; the process's exit status.
pub fn main() -> ExitCode {
    // clap's own messages quote what was typed: they go through the sanitizer too.
    let mut args = match Cli::try_parse() {
        Ok(args) => args,
        Err(e) => {
            let text = e.render().to_string();
            let text = crate::sanitize::block(&text);
            if e.use_stderr() {
                eprint!("{text}");
            } else {
                print!("{text}");
            }
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    // An OpenCode database, one of its sessions (`db#ses_…`) or an export opens as
    // ctxlens's copy of that session.
    if let Some(log) = args.command.as_mut().and_then(Command::log_mut) {
        match crate::session::source::resolve(log) {
            Ok(resolved) => *log = resolved,
            Err(error) => return fail(&CliError::from(error)),
        }
    }
    if let (None, Some(path)) = (&args.command, args.path.as_mut()) {
        if !crate::session::source::is_database(path) {
            match crate::session::source::resolve(path) {
                Ok(resolved) => *path = resolved,
                Err(error) => return fail(&CliError::from(error)),
            }
        }
    }
    let stdout = std::io::stdout();
    let terminal = stdout.is_terminal();
    let style = Style {
        color: terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let mut out = cli::pipe::PipeAware::new(stdout.lock());
    let result: Result<u8, CliError> = match &args.command {
        Some(Command::Audit(a)) => Ok(cli::audit::run(a, &mut out, style)),
        Some(Command::Gate(a)) => cli::gate::run(a, &mut out, style),
        Some(Command::Decide(a)) => cli::decide::run(a, &mut out),
        Some(Command::Await(a)) => cli::await_decision::run(a, &mut out),
        Some(Command::Contract(a)) => cli::contract::run(a, &mut out),
        Some(Command::Check(a)) => cli::check::run(a, &mut out),
        Some(Command::Export(a)) => cli::export::run(a, &mut out),
        Some(Command::Spill(SpillCommand::Get { log, handle, fleet })) => {
            cli::spill::get(log, handle, fleet, &mut out, terminal)
        }
        #[cfg(feature = "fleet")]
        Some(Command::Ship(a)) => cli::ship::run(a),
        #[cfg(not(feature = "fleet"))]
        Some(Command::Ship(_)) => Err(cli::fleet::no_fleet()),
        Some(Command::Fleet(a)) => cli::fleet::run_view(a),
        Some(Command::Hook(HookAgent::ClaudeCode(hook))) => claude_hook(hook, &mut out),
        Some(Command::Hook(HookAgent::Codex(hook))) => codex_hook(hook, &mut out),
        Some(Command::Hook(HookAgent::QwenCode(hook))) => qwen_hook(hook, &mut out),
        Some(Command::Hook(HookAgent::CopilotCli(hook))) => copilot_hook(hook, &mut out),
        Some(Command::Hook(HookAgent::Opencode(hook))) => opencode_hook(hook, &mut out),
        Some(Command::Demo) => crate::tui::demo::run().map(|()| 0).map_err(CliError::from),
        None => cli::fleet::stores(&args.fleet).and_then(|stores| {
            match &args.path {
                Some(path) => crate::tui::run::run(path, stores),
                None => crate::tui::run::run_own_sessions(stores),
            }
            .map(|()| 0)
            .map_err(CliError::from)
        }),
    };
    // The reader went away (`ctxlens audit | head`): nothing went wrong.
    let _ = std::io::Write::flush(&mut out);
    if out.broken() {
        return ExitCode::SUCCESS;
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => fail(&error),
    }
}

fn fail(error: &CliError) -> ExitCode {
    eprintln!("ctxlens: {}", crate::sanitize::block(&cli::chain(error)));
    ExitCode::from(error.code())
}

fn claude_hook(hook: &ClaudeHook, out: &mut impl std::io::Write) -> Result<u8, CliError> {
    use super::hook::{self, setup, Agent, HookEvent};
    let agent = Agent::ClaudeCode;
    match hook {
        ClaudeHook::PreCompact(h) => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PreCompact,
            Some(h),
            out,
        )),
        ClaudeHook::SessionStart => Ok(hook::run_from_stdin(
            agent,
            HookEvent::SessionStart,
            None,
            out,
        )),
        ClaudeHook::PostCompact => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PostCompact,
            None,
            out,
        )),
        ClaudeHook::Install(args) => setup::install(agent, args, out),
        ClaudeHook::Uninstall(args) => setup::uninstall(agent, args, out),
        ClaudeHook::Status(args) => setup::status(agent, args, out),
    }
}

fn codex_hook(hook: &CodexHook, out: &mut impl std::io::Write) -> Result<u8, CliError> {
    use super::hook::{self, setup, Agent, HookEvent};
    let agent = Agent::Codex;
    match hook {
        CodexHook::PreCompact(h) => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PreCompact,
            Some(h),
            out,
        )),
        CodexHook::SessionStart => Ok(hook::run_from_stdin(
            agent,
            HookEvent::SessionStart,
            None,
            out,
        )),
        CodexHook::PostCompact => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PostCompact,
            None,
            out,
        )),
        CodexHook::Install(args) => setup::install(agent, args, out),
        CodexHook::Uninstall(args) => setup::uninstall(agent, args, out),
        CodexHook::Status(args) => setup::status(agent, args, out),
    }
}

fn qwen_hook(hook: &QwenHook, out: &mut impl std::io::Write) -> Result<u8, CliError> {
    use super::hook::{self, setup, Agent, HookEvent};
    let agent = Agent::QwenCode;
    match hook {
        QwenHook::PreCompact(h) => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PreCompact,
            Some(h),
            out,
        )),
        QwenHook::PostCompact => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PostCompact,
            None,
            out,
        )),
        QwenHook::Install(args) => setup::install(agent, args, out),
        QwenHook::Uninstall(args) => setup::uninstall(agent, args, out),
        QwenHook::Status(args) => setup::status(agent, args, out),
    }
}

fn copilot_hook(hook: &CopilotHook, out: &mut impl std::io::Write) -> Result<u8, CliError> {
    use super::hook::{self, setup, Agent, HookEvent};
    let agent = Agent::CopilotCli;
    match hook {
        CopilotHook::PreCompact => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PreCompact,
            None,
            out,
        )),
        CopilotHook::Install(args) => setup::install(agent, args, out),
        CopilotHook::Uninstall(args) => setup::uninstall(agent, args, out),
        CopilotHook::Status(args) => setup::status(agent, args, out),
    }
}

fn opencode_hook(hook: &OpenCodeHook, out: &mut impl std::io::Write) -> Result<u8, CliError> {
    use super::hook::{self, setup, Agent, HookEvent};
    let agent = Agent::OpenCode;
    match hook {
        OpenCodeHook::PreCompact(h) => Ok(hook::run_from_stdin(
            agent,
            HookEvent::PreCompact,
            Some(h),
            out,
        )),
        OpenCodeHook::Install(args) => setup::install(agent, args, out),
        OpenCodeHook::Uninstall(args) => setup::uninstall(agent, args, out),
        OpenCodeHook::Status(args) => setup::status(agent, args, out),
    }
}
