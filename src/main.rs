use clap::Parser;
use ctxlens::cli::args::{Cli, Command, SpillCommand};
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
        Some(Command::Spill(SpillCommand::Get { log, handle })) => {
            cli::spill::get(log, handle, &mut out, terminal)
        }
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
