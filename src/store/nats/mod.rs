//! The NATS JetStream backend, for fleets: decisions in a key-value bucket whose
//! `create` fails when the key exists (the first decision stands, enforced by the
//! server), spills in an object store named by SHA-256, session logs in a stream with
//! one subject per session. The `async-nats` client runs on a runtime thread of its
//! own; everything here is called synchronously.

use crate::store::{StoreError, StoreResult};
mod decisions;
pub mod events;
pub mod keys;
pub mod mirror;
mod spills;

pub use decisions::NatsChannel;
pub use spills::NatsSpills;

use super::channel::Backend;
use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The key-value bucket of decisions.
pub const DECISIONS_BUCKET: &str = "ctxlens-decisions";
/// The object store of spills.
pub const SPILLS_BUCKET: &str = "ctxlens-spills";
/// The stream of session logs (`ctxlens.<host>.<session>.events`).
pub const EVENTS_STREAM: &str = "CTXLENS_EVENTS";
/// The streams the stores live in: the decisions bucket's, the spill store's, the
/// session logs'.
fn store_streams() -> [String; 3] {
    [
        format!("KV_{DECISIONS_BUCKET}"),
        format!("OBJ_{SPILLS_BUCKET}"),
        EVENTS_STREAM.to_owned(),
    ]
}

/// Replicas a store gets in a cluster unless told otherwise: a quorum survives one
/// server lost, as operators run JetStream (R3).
pub const MOST_REPLICAS: usize = 3;

/// Whether `error` (or an error under it) is the server's "a stream of that name
/// exists": a store that could not be opened a moment before, while a cluster elected
/// the leader of its stream.
pub(crate) fn names_an_existing_stream(error: &(dyn std::error::Error + 'static)) -> bool {
    use async_nats::jetstream::context::{CreateStreamError, CreateStreamErrorKind};
    use async_nats::jetstream::ErrorCode;
    let mut at = Some(error);
    while let Some(e) = at {
        // The server's error is the kind of a stream's creation error, or a source.
        if let Some(created) = e.downcast_ref::<CreateStreamError>() {
            if let CreateStreamErrorKind::JetStream(js) = created.kind() {
                return js.error_code() == ErrorCode::STREAM_NAME_EXIST;
            }
        }
        if let Some(js) = e.downcast_ref::<async_nats::jetstream::Error>() {
            return js.error_code() == ErrorCode::STREAM_NAME_EXIST;
        }
        at = e.source();
    }
    false
}

/// Whether `error` (or an error under it) says a request found no answer in time: a
/// cluster electing a new leader for the stream asked, after it lost one.
pub(crate) fn is_transient(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut at = Some(error);
    while let Some(e) = at {
        let said = e.to_string();
        if said.contains("timed out") || said.contains("no responders") {
            return true;
        }
        at = e.source();
    }
    false
}

/// `request` answered, asked again while the cluster elects a leader (a request that
/// timed out or found no responder), for [`ELECTION`] at most; `what` names it in the
/// error that is left.
pub(crate) async fn through_election<T, E, F>(what: &str, request: impl Fn() -> F) -> StoreResult<T>
where
    F: Future<Output = Result<T, E>>,
    E: std::error::Error + 'static,
{
    let deadline = tokio::time::Instant::now() + ELECTION;
    loop {
        match request().await {
            Ok(answer) => return Ok(answer),
            Err(e) if is_transient(&e) && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(e) => return Err(failed(what, e)),
        }
    }
}

/// How long opening a store waits for a cluster to elect its stream's leader.
pub(crate) const ELECTION: Duration = Duration::from_secs(20);

/// A store, opened, or created when there is none. A store that cannot be opened and
/// cannot be created exists, its stream without a leader for the moment (a cluster
/// electing one), and a create that found no answer in time met a leader lost while it
/// asked: both are tried again until the stream has a leader, for [`ELECTION`] at most.
pub(crate) async fn open_or_create<T, E1, E2, O, C>(
    open: impl Fn() -> O,
    create: impl Fn() -> C,
    what: &str,
) -> StoreResult<T>
where
    O: Future<Output = Result<T, E1>>,
    C: Future<Output = Result<T, E2>>,
    E2: std::error::Error + 'static,
{
    let deadline = tokio::time::Instant::now() + ELECTION;
    loop {
        if let Ok(store) = open().await {
            return Ok(store);
        }
        match create().await {
            Ok(store) => return Ok(store),
            // The stream exists without a leader, or the request found none in time
            // (the leader was lost while it was asked): both end with an election.
            Err(e)
                if (names_an_existing_stream(&e) || is_transient(&e))
                    && tokio::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(e) => return Err(failed(&format!("cannot open {what}"), e)),
        }
    }
}

/// Raises the replicas of `stream` (a store's stream) to `replicas` when it has fewer:
/// a deployment made on one server keeps one replica when it moves to a cluster
/// otherwise. A server that cannot (too few servers up) says why.
pub(crate) async fn raise_replicas(
    js: &async_nats::jetstream::Context,
    stream: &str,
    replicas: usize,
) -> StoreResult<()> {
    let mut found = js
        .get_stream(stream)
        .await
        .map_err(|e| failed(&format!("cannot open the stream {stream}"), e))?;
    let config = found
        .info()
        .await
        .map_err(|e| failed(&format!("cannot read the stream {stream}"), e))?
        .config
        .clone();
    if config.num_replicas >= replicas {
        return Ok(());
    }
    js.update_stream(async_nats::jetstream::stream::Config {
        num_replicas: replicas,
        ..config
    })
    .await
    .map_err(|e| {
        failed(
            &format!("cannot raise {stream} to {replicas} replicas (nats stream edit {stream} --replicas {replicas})"),
            e,
        )
    })?;
    Ok(())
}

/// How to reach the server, as NATS users give it.
#[derive(Debug, Clone, Default)]
pub struct NatsConfig {
    /// `nats://host:port` or `tls://host:port` (several separated by commas).
    pub url: String,
    /// A `.creds` file (JWT and NKey seed).
    pub creds: Option<PathBuf>,
    /// A CA certificate (PEM) that signs the server's certificate.
    pub ca: Option<PathBuf>,
    /// Replicas of each store; `None`: as many as the cluster has servers, up to 3.
    pub replicas: Option<usize>,
}

/// A store's stream on the server: how many replicas it has and who leads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreState {
    /// The stream's name.
    pub stream: String,
    /// How many servers hold a copy of it.
    pub replicas: usize,
    /// The server that leads it; `None` on a server with no cluster, or when no quorum
    /// is left to elect one.
    pub leader: Option<String>,
    /// The replicas that are up to date with the leader, the leader among them.
    pub current: usize,
}

/// A connection, with the runtime thread it lives on.
pub struct Nats {
    runtime: tokio::runtime::Runtime,
    client: async_nats::Client,
    js: async_nats::jetstream::Context,
    url: String,
    /// Replicas each store is created with, or raised to.
    replicas: usize,
}

/// The oldest nats-server whose JetStream API the client speaks.
pub const OLDEST_SERVER: (u64, u64) = (2, 10);

/// Why the server that answered cannot hold ctxlens's stores: it runs without
/// JetStream, or is older than [`OLDEST_SERVER`]. `Ok` when it can.
pub fn server_fit(info: &async_nats::ServerInfo, url: &str) -> StoreResult<()> {
    let how = "ctxlens needs nats-server 2.10 or newer with JetStream on (`nats-server -js`); \
               scripts/install-nats-server installs one";
    let numbers: Vec<u64> = info
        .version
        .trim_start_matches('v')
        .split(['.', '-'])
        .map_while(|n| n.parse().ok())
        .collect();
    let (major, minor) = (
        numbers.first().copied().unwrap_or(0),
        numbers.get(1).copied().unwrap_or(0),
    );
    if (major, minor) < OLDEST_SERVER {
        return Err(StoreError::server(
            url,
            format!("nats-server {} is too old: {how}", info.version),
        ));
    }
    if !info.jetstream {
        return Err(StoreError::server(
            url,
            format!("nats-server {} runs without JetStream: {how}", info.version),
        ));
    }
    Ok(())
}

/// Any client error, as an I/O error that says what failed.
pub(crate) fn failed(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::server(what, e)
}

impl Nats {
    /// Connects (giving up after 5 s) and checks that JetStream answers.
    pub fn connect(config: &NatsConfig) -> StoreResult<Arc<Nats>> {
        // Its own thread: the rest of ctxlens stays synchronous and never blocks it.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("ctxlens-nats")
            .enable_all()
            .build()?;
        let url = config.url.clone();
        let creds = config.creds.clone();
        let ca = config.ca.clone();
        // Every server of a cluster the operator lists: the client fails over among them.
        let servers: Vec<String> = url
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let (client, js) = runtime.block_on(async move {
            let mut options = async_nats::ConnectOptions::new()
                .name("ctxlens")
                .connection_timeout(Duration::from_secs(5))
                .request_timeout(Some(Duration::from_secs(10)));
            if let Some(creds) = creds {
                options = options
                    .credentials_file(&creds)
                    .await
                    .map_err(|e| failed(&creds.display().to_string(), e))?;
            }
            if let Some(ca) = ca {
                options = options.add_root_certificates(ca).require_tls(true);
            }
            let client = options
                .connect(servers)
                .await
                .map_err(|e| failed(&format!("cannot reach NATS at {url}"), e))?;
            // A server without JetStream, or older than the API the client speaks,
            // never answers as a store: said at once, not after an election's wait.
            server_fit(&client.server_info(), &url)?;
            let js = async_nats::jetstream::new(client.clone());
            // A cluster that lost its JetStream leader answers again once it elected
            // another: wait for that, not longer.
            let deadline = tokio::time::Instant::now() + ELECTION;
            while let Err(e) = js.query_account().await {
                if tokio::time::Instant::now() >= deadline {
                    return Err(failed(&format!("{url}: JetStream does not answer"), e));
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Ok::<_, StoreError>((client, js))
        })?;
        // A server in a cluster lists the client URLs of the servers in it (itself
        // among them); a lone server lists none.
        let servers = client.server_info().connect_urls.len().max(1);
        let replicas = config.replicas.unwrap_or(servers.min(MOST_REPLICAS)).max(1);
        let nats = Nats {
            runtime,
            client,
            js,
            url: config.url.clone(),
            replicas,
        };
        nats.raise_stores()?;
        Ok(Arc::new(nats))
    }

    /// Why no server answers now, when the connection to every server of the list is
    /// down (it is being made again).
    pub fn unreachable(&self) -> Option<String> {
        use async_nats::connection::State;
        match self.client.connection_state() {
            State::Connected => None,
            _ => Some(format!("no server of {} is connected", self.url)),
        }
    }

    /// Each store that exists, with its replicas and the server that leads it: what an
    /// operator checks on a cluster (`ctxlens fleet` shows it).
    pub fn stores(&self) -> StoreResult<Vec<StoreState>> {
        let js = self.js();
        self.run(async move {
            let mut states = Vec::new();
            for stream in store_streams() {
                let Ok(mut found) = js.get_stream(&stream).await else {
                    continue;
                };
                let info = found
                    .info()
                    .await
                    .map_err(|e| failed(&format!("cannot read the stream {stream}"), e))?;
                let leader = info.cluster.as_ref().and_then(|c| c.leader.clone());
                let followers = info
                    .cluster
                    .as_ref()
                    .map_or(0, |c| c.replicas.iter().filter(|p| p.current).count());
                states.push(StoreState {
                    stream,
                    replicas: info.config.num_replicas,
                    current: usize::from(leader.is_some()) + followers,
                    leader,
                });
            }
            Ok(states)
        })
    }

    /// Raises the stores that exist to [`Self::replicas`] (those that do not are created
    /// with them on first use): once a connection, not on every use.
    fn raise_stores(&self) -> StoreResult<()> {
        let (js, replicas) = (self.js(), self.replicas);
        self.run(async move {
            for stream in store_streams() {
                if js.get_stream(&stream).await.is_ok() {
                    raise_replicas(&js, &stream, replicas).await?;
                }
            }
            Ok(())
        })
    }

    /// Replicas each store is created with, or raised to.
    pub fn replicas(&self) -> usize {
        self.replicas
    }

    /// Runs `work` on the client's runtime thread and waits for its result.
    pub(crate) fn run<T, F>(&self, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: Future<Output = StoreResult<T>> + Send + 'static,
    {
        let (done, result) = std::sync::mpsc::sync_channel(1);
        self.runtime.spawn(async move {
            let _ = done.send(work.await);
        });
        result
            .recv()
            .map_err(|_| StoreError::server_said("the NATS client stopped"))?
    }

    /// Starts `work` on the runtime thread without waiting for it.
    pub(crate) fn spawn<F>(&self, work: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.runtime.spawn(work);
    }

    pub(crate) fn js(&self) -> async_nats::jetstream::Context {
        self.js.clone()
    }

    /// The server's URL, as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Waits until everything published has reached the server.
    pub fn flush(&self) -> StoreResult<()> {
        let client = self.client.clone();
        self.run(async move { client.flush().await.map_err(|e| failed("flush", e)) })
    }
}

/// The subjects of `stream` that hold messages and match `filter` (wildcards allowed).
pub(crate) async fn subjects_matching(
    stream: &async_nats::jetstream::stream::Stream,
    filter: &str,
) -> StoreResult<Vec<String>> {
    use futures_util::StreamExt;
    through_election(filter, || async {
        let mut subjects = stream
            .info_with_subjects(filter)
            .await
            .map_err(io::Error::other)?;
        let mut found = Vec::new();
        while let Some(subject) = subjects.next().await {
            found.push(subject.map_err(io::Error::other)?.0);
        }
        Ok::<_, StoreError>(found)
    })
    .await
}

/// The backend of one session on the server: `session` is its key (see `keys`).
pub fn backend(nats: &Arc<Nats>, session: &str) -> Backend {
    Backend {
        channel: Box::new(NatsChannel::new(nats.clone(), session)),
        spills: Box::new(NatsSpills::new(nats.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_too_old_or_without_jetstream_is_named_with_what_to_do() {
        let info = |version: &str, jetstream: bool| async_nats::ServerInfo {
            version: version.to_owned(),
            jetstream,
            ..Default::default()
        };
        assert!(server_fit(&info("2.10.0", true), "u").is_ok());
        assert!(server_fit(&info("2.15.1-beta", true), "u").is_ok());
        let old = server_fit(&info("2.9.10", true), "u").map_err(|e| e.to_string());
        assert!(old
            .is_err_and(|e| e.contains("2.9.10 is too old") && e.contains("install-nats-server")));
        let off = server_fit(&info("2.11.0", false), "u").map_err(|e| e.to_string());
        assert!(off.is_err_and(|e| e.contains("without JetStream")));
    }
}
