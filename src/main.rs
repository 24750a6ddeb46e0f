use std::process::ExitCode;

fn main() -> ExitCode {
    ctxlens::cli::main()
}
