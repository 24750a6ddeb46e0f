//! Choosing the store: files beside the log, or the NATS server of `--nats`.

use super::args::FleetArgs;
use super::CliError;
use crate::store::channel::Backend;
use crate::store::nats::{self, keys, Nats};
use std::path::Path;
use std::sync::Arc;

/// The server of `fleet`, connected; `None` without `--nats` (or `CTXLENS_NATS_URL`).
#[cfg(feature = "fleet")]
pub(crate) fn connect(fleet: &FleetArgs) -> Result<Option<Arc<Nats>>, CliError> {
    let Some(url) = fleet.nats.as_deref().filter(|u| !u.trim().is_empty()) else {
        return Ok(None);
    };
    let config = nats::NatsConfig {
        url: url.to_owned(),
        creds: fleet.nats_creds.clone(),
        ca: fleet.nats_ca.clone(),
        replicas: fleet.nats_replicas,
    };
    Ok(Some(Nats::connect(&config)?))
}

/// Built without fleet mode: `--nats` is refused, saying why.
#[cfg(not(feature = "fleet"))]
pub(crate) fn connect(fleet: &FleetArgs) -> Result<Option<Arc<Nats>>, CliError> {
    match fleet.nats.as_deref().filter(|u| !u.trim().is_empty()) {
        None => Ok(None),
        Some(_) => Err(no_fleet()),
    }
}

/// What a fleet command says in a build without fleet mode.
#[cfg(not(feature = "fleet"))]
pub(crate) fn no_fleet() -> CliError {
    CliError::unusable(
        "this ctxlens was built without fleet mode (the `fleet` feature): no NATS server can be used",
    )
}

/// The decision channel and spill store of `log`: on the server when there is one
/// (under this host and the log's name), beside the log otherwise.
pub(crate) fn backend(log: &Path, fleet: &FleetArgs) -> Result<Backend, CliError> {
    Ok(backend_on(connect(fleet)?.as_ref(), log))
}

/// [`backend`] on a server already connected, or none.
pub(crate) fn backend_on(server: Option<&Arc<Nats>>, log: &Path) -> Backend {
    match server {
        Some(server) => nats::backend(server, &keys::session_of_log(&keys::host(), log)),
        None => Backend::files(log),
    }
}

/// Where the TUI keeps the decisions and spills of each log it opens: on the server of
/// `fleet` (under this host and the log's name), beside each log otherwise.
pub(crate) fn stores(fleet: &FleetArgs) -> Result<crate::store::Stores, CliError> {
    let server = connect(fleet)?;
    Ok(Arc::new(move |path: &Path| {
        backend_on(server.as_ref(), path)
    }))
}

#[cfg(feature = "fleet")]
/// How the stores are replicated, for the fleet's header: the replicas asked for, and
/// each existing store's replicas and leader (`decisions R3 n1`), so an operator sees a
/// store left on one replica in a cluster.
fn replication(server: &nats::Nats) -> String {
    let asked = server.replicas();
    let stores = match server.stores() {
        Ok(stores) => stores,
        Err(e) => return format!("R{asked}, stores unread: {e}"),
    };
    let shown: Vec<String> = stores
        .iter()
        .map(|s| {
            let what = match s.stream.as_str() {
                nats::EVENTS_STREAM => "logs",
                stream if stream.starts_with("KV_") => "decisions",
                _ => "spills",
            };
            match (&s.leader, s.replicas) {
                // One replica's leader is the one server: naming it says nothing, and
                // an unnamed server's name is its 56-character id.
                (_, 1) => format!("{what} R1"),
                (Some(leader), n) => format!("{what} R{n} {}", short_name(leader)),
                (None, n) => format!("{what} R{n} with no leader"),
            }
        })
        .collect();
    match shown.is_empty() {
        true => format!("R{asked}"),
        false => shown.join(", "),
    }
}

#[cfg(feature = "fleet")]
/// A server's name as the header shows it: an unnamed server's id cut to 12 characters.
fn short_name(name: &str) -> String {
    match name.char_indices().nth(12) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_owned(),
    }
}

/// `ctxlens fleet` in a build without fleet mode.
#[cfg(not(feature = "fleet"))]
pub(crate) fn run_view(_fleet: &FleetArgs) -> Result<u8, CliError> {
    Err(no_fleet())
}

/// `ctxlens fleet`: mirrors the server into a private temporary folder and shows it in
/// the folder view; decisions and spills made there go to the server.
#[cfg(feature = "fleet")]
pub(crate) fn run_view(fleet: &FleetArgs) -> Result<u8, CliError> {
    let server = connect(fleet)?.ok_or_else(|| {
        CliError::unusable("fleet needs a server: --nats URL or CTXLENS_NATS_URL")
    })?;
    let mirror = tempfile::Builder::new()
        .prefix("ctxlens-fleet-")
        .tempdir()
        .map_err(|source| CliError::Io {
            what: "cannot make the mirror folder",
            source,
        })?;
    nats::mirror::start(&server, mirror.path())?;
    let on_server = server.clone();
    let stores: crate::store::Stores =
        Arc::new(
            move |path: &Path| match nats::mirror::session_of_path(path) {
                Some(session) => nats::backend(&on_server, &session),
                None => Backend::files(path),
            },
        );
    // What an operator checks first on a cluster, before the (long) server list.
    let title = format!("fleet {} on {}", replication(&server), server.url());
    crate::tui::run::run_folders_titled(vec![mirror.path().to_owned()], title, stores)?;
    Ok(super::EXIT_OK)
}
