//! `ctxlens spill get LOG HANDLE`

use super::args::FleetArgs;
use super::CliError;
use crate::sanitize;
use crate::store::spill::{self, Handle};
use std::io::Write;
use std::path::Path;

/// The one spilled region of `log` whose handle starts with `start` (6 or more hex
/// digits, with or without `sha256:`), as handles are shown cut.
fn start_of_a_handle(log: &Path, start: &str) -> Result<Handle, CliError> {
    let hex = start.strip_prefix("sha256:").unwrap_or(start);
    let is_hex = hex.len() >= 6 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !is_hex {
        return Err(CliError::unusable(format!(
            "malformed handle {}: expected sha256: and 64 lowercase hex digits, or 6 or more of them",
            sanitize::line(start)
        )));
    }
    let dir = crate::store::paths::spill_dir(log);
    let mut starting: Vec<Handle> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with(hex))
        .filter_map(|name| Handle::parse(&format!("sha256:{name}")))
        .collect();
    match starting.len() {
        1 => Ok(starting.remove(0)),
        0 => Err(CliError::unusable(format!(
            "no spilled region of {} has a handle that starts with {}",
            log.display(),
            sanitize::line(start)
        ))),
        n => Err(CliError::unusable(format!(
            "{} starts {n} handles ({}); give more of it",
            sanitize::line(start),
            starting
                .iter()
                .map(|h| format!("sha256:{}", h.hex()))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Writes the region; escaped when `to_terminal`, byte-exact otherwise.
pub(crate) fn get(
    log: &Path,
    handle: &str,
    fleet: &FleetArgs,
    out: &mut impl Write,
    to_terminal: bool,
) -> Result<u8, CliError> {
    let parsed = match Handle::parse(handle) {
        Some(parsed) => parsed,
        None if fleet.nats.is_none() => start_of_a_handle(log, handle)?,
        None => {
            return Err(CliError::unusable(format!(
                "malformed handle {}: expected sha256: and 64 lowercase hex digits",
                sanitize::line(handle)
            )))
        }
    };
    if let Some(server) = super::fleet::connect(fleet)? {
        use crate::store::channel::SpillStore;
        let bytes = crate::store::nats::NatsSpills::new(server).get(&parsed)?;
        let written = if to_terminal {
            out.write_all(sanitize::block(&String::from_utf8_lossy(&bytes)).as_bytes())
        } else {
            out.write_all(&bytes)
        };
        written
            .and_then(|()| out.flush())
            .map_err(|source| CliError::Io {
                what: "cannot write the region",
                source,
            })?;
        return Ok(0);
    }
    let mut file = spill::open_verified(log, &parsed)?;
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
        .map_err(|source| CliError::Io {
            what: "cannot write the region",
            source,
        })?;
    Ok(0)
}
