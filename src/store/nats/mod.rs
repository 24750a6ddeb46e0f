//! The NATS JetStream backend, for fleets: decisions in a key-value bucket whose
//! `create` fails when the key exists (the first decision stands, enforced by the
//! server), spills in an object store named by SHA-256, session logs in a stream with
//! one subject per session. The `async-nats` client runs on a runtime thread of its
//! own; everything here is called synchronously.

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

/// How to reach the server, as NATS users give it.
#[derive(Debug, Clone, Default)]
pub struct NatsConfig {
    /// `nats://host:port` or `tls://host:port` (several separated by commas).
    pub url: String,
    /// A `.creds` file (JWT and NKey seed).
    pub creds: Option<PathBuf>,
    /// A CA certificate (PEM) that signs the server's certificate.
    pub ca: Option<PathBuf>,
}

/// A connection, with the runtime thread it lives on.
pub struct Nats {
    runtime: tokio::runtime::Runtime,
    client: async_nats::Client,
    js: async_nats::jetstream::Context,
    url: String,
}

/// Any client error, as an I/O error that says what failed.
pub(crate) fn failed(what: &str, e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{what}: {e}"))
}

impl Nats {
    /// Connects (giving up after 5 s) and checks that JetStream answers.
    pub fn connect(config: &NatsConfig) -> io::Result<Arc<Nats>> {
        // Its own thread: the rest of ctxlens stays synchronous and never blocks it.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("ctxlens-nats")
            .enable_all()
            .build()?;
        let url = config.url.clone();
        let creds = config.creds.clone();
        let ca = config.ca.clone();
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
                .connect(url.as_str())
                .await
                .map_err(|e| failed(&format!("cannot reach NATS at {url}"), e))?;
            let js = async_nats::jetstream::new(client.clone());
            js.query_account()
                .await
                .map_err(|e| failed(&format!("{url}: JetStream does not answer"), e))?;
            Ok::<_, io::Error>((client, js))
        })?;
        Ok(Arc::new(Nats {
            runtime,
            client,
            js,
            url: config.url.clone(),
        }))
    }

    /// Runs `work` on the client's runtime thread and waits for its result.
    pub(crate) fn run<T, F>(&self, work: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: Future<Output = io::Result<T>> + Send + 'static,
    {
        let (done, result) = std::sync::mpsc::sync_channel(1);
        self.runtime.spawn(async move {
            let _ = done.send(work.await);
        });
        result
            .recv()
            .map_err(|_| io::Error::other("the NATS client stopped"))?
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

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Waits until everything published has reached the server.
    pub fn flush(&self) -> io::Result<()> {
        let client = self.client.clone();
        self.run(async move { client.flush().await.map_err(|e| failed("flush", e)) })
    }
}

/// The subjects of `stream` that hold messages and match `filter` (wildcards allowed).
pub(crate) async fn subjects_matching(
    stream: &async_nats::jetstream::stream::Stream,
    filter: &str,
) -> io::Result<Vec<String>> {
    use futures_util::StreamExt;
    let mut subjects = stream
        .info_with_subjects(filter)
        .await
        .map_err(|e| failed(filter, e))?;
    let mut found = Vec::new();
    while let Some(subject) = subjects.next().await {
        found.push(subject.map_err(|e| failed(filter, e))?.0);
    }
    Ok(found)
}

/// The backend of one session on the server: `session` is its key (see `keys`).
pub fn backend(nats: &Arc<Nats>, session: &str) -> Backend {
    Backend {
        channel: Box::new(NatsChannel::new(nats.clone(), session)),
        spills: Box::new(NatsSpills::new(nats.clone())),
    }
}
