//! `ctxlens export LOG [--format html|markdown|json] [-o FILE]`

use super::{CliError, EXIT_OK};
use crate::cli::args::ExportArgs;
use std::io::Write;

pub(crate) fn run(args: &ExportArgs, out: &mut impl Write) -> Result<u8, CliError> {
    let backend = super::fleet::backend(&args.log, &args.fleet)?;
    let loaded = super::load_from(&args.log, &*backend.channel, false, &mut |_| {})?;
    let log = crate::session::open_log(&args.log).map_err(|source| CliError::File {
        path: args.log.clone(),
        source,
    })?;
    let name = args.log.display().to_string();
    let export = crate::export::build(&name, &loaded, &log);
    let text = crate::export::render(&export, args.format, args.full);
    match &args.output {
        Some(path) => {
            crate::store::atomic::write(path, text.as_bytes()).map_err(|source| CliError::File {
                path: path.clone(),
                source,
            })?
        }
        // Standard output may be a terminal, now or at the end of a pipe: no control
        // character from the log reaches it raw (`-o` writes the bytes as they are).
        None => {
            let safe = match args.format {
                crate::export::ExportFormat::Json => crate::sanitize::json(text),
                _ => crate::sanitize::block(&text).into_owned(),
            };
            let _ = out.write_all(safe.as_bytes());
        }
    }
    Ok(EXIT_OK)
}
