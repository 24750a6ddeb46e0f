//! `ctxlens spill get LOG HANDLE`

use super::args::FleetArgs;
use super::CliError;
use crate::sanitize;
use crate::store::spill::{self, Handle};
use std::io::Write;
use std::path::Path;

/// Writes the region; escaped when `to_terminal`, byte-exact otherwise.
pub fn get(
    log: &Path,
    handle: &str,
    fleet: &FleetArgs,
    out: &mut impl Write,
    to_terminal: bool,
) -> Result<u8, CliError> {
    let parsed = Handle::parse(handle).ok_or_else(|| {
        CliError::unusable(format!(
            "malformed handle {}: expected sha256: and 64 lowercase hex digits",
            sanitize::line(handle)
        ))
    })?;
    if let Some(server) = super::fleet::connect(fleet)? {
        use crate::store::channel::SpillStore;
        let bytes = crate::store::nats::NatsSpills::new(server)
            .get(&parsed)
            .map_err(|e| CliError::unusable(e.to_string()))?;
        let written = if to_terminal {
            out.write_all(sanitize::block(&String::from_utf8_lossy(&bytes)).as_bytes())
        } else {
            out.write_all(&bytes)
        };
        written
            .and_then(|()| out.flush())
            .map_err(|e| CliError::unusable(format!("cannot write the region: {e}")))?;
        return Ok(0);
    }
    let mut file =
        spill::open_verified(log, &parsed).map_err(|e| CliError::unusable(e.to_string()))?;
    let written = if to_terminal {
        // A terminal gets text, escaped; read whole so no character is split.
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).and_then(|_| {
            out.write_all(sanitize::block(&String::from_utf8_lossy(&bytes)).as_bytes())
        })
    } else {
        std::io::copy(&mut file, out).map(|_| ())
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| CliError::unusable(format!("cannot write the region: {e}")))?;
    Ok(0)
}
