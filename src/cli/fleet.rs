//! Choosing the store: files beside the log, or the NATS server of `--nats`.

use super::args::FleetArgs;
use super::CliError;
use crate::store::channel::Backend;
use crate::store::nats::{self, keys, Nats, NatsConfig};
use std::path::Path;
use std::sync::Arc;

/// The server of `fleet`, connected; `None` without `--nats` (or `CTXLENS_NATS_URL`).
pub fn connect(fleet: &FleetArgs) -> Result<Option<Arc<Nats>>, CliError> {
    let Some(url) = fleet.nats.as_deref().filter(|u| !u.trim().is_empty()) else {
        return Ok(None);
    };
    let config = NatsConfig {
        url: url.to_owned(),
        creds: fleet.nats_creds.clone(),
        ca: fleet.nats_ca.clone(),
    };
    Nats::connect(&config)
        .map(Some)
        .map_err(|e| CliError::unusable(e.to_string()))
}

/// The decision channel and spill store of `log`: on the server when there is one
/// (under this host and the log's name), beside the log otherwise.
pub fn backend(log: &Path, fleet: &FleetArgs) -> Result<Backend, CliError> {
    Ok(match connect(fleet)? {
        Some(server) => nats::backend(&server, &keys::session_of_log(&keys::host(), log)),
        None => Backend::files(log),
    })
}
