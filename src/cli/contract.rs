//! `ctxlens contract LOG [ID] [--json]` (docs/remedies.md).

use super::{json_line, require_compaction, CliError, EXIT_FINDING, EXIT_OK};
use crate::cli::args::ContractArgs;
use ctxlens_core::analysis::contract::{at_end, for_compaction};
use std::io::Write;

pub(crate) fn run(args: &ContractArgs, out: &mut impl Write) -> Result<u8, CliError> {
    let backend = super::fleet::backend(&args.log, &args.fleet)?;
    let loaded = super::load_from(&args.log, &*backend.channel, false, &mut |_| {})?;
    let contract = match &args.id {
        Some(id) => for_compaction(&loaded.session, require_compaction(&loaded, &args.log, id)?),
        None => at_end(&loaded.session),
    };
    let text = if args.json {
        json_line(&contract) + "\n"
    } else {
        crate::sanitize::block(&contract.text()).into_owned()
    };
    let _ = out.write_all(text.as_bytes());
    Ok(if contract.is_empty() {
        EXIT_FINDING
    } else {
        EXIT_OK
    })
}
