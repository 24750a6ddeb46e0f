//! The fleet, mirrored into a local folder for the operator's view: every shipped log
//! at `<root>/<host>/<session>.jsonl` (its ledger beside it), every decision in that
//! log's sidecar. The folder list and the session view then show the fleet as they
//! show local logs, live. The mirror follows the stream and the decisions bucket on
//! the client's runtime thread, and starts over after a lost connection from the last
//! message it applied.

use super::decisions::bucket;
use super::{failed, Nats, EVENTS_STREAM};
use crate::store::{decisions, ledger, private};
use crate::store::{StoreError, StoreResult};
use async_nats::jetstream::{self, consumer, kv};
use ctxlens_core::model::Decision;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Starts mirroring the fleet into `root` (a folder of its own).
pub fn start(nats: &Arc<Nats>, root: &Path) -> StoreResult<()> {
    private::folder(root)?;
    let (js, into) = (nats.js(), root.to_owned());
    nats.spawn(async move {
        let mut files = Files::default();
        let mut next = 1;
        loop {
            // A lost server: go on from the next message once it is back.
            if let Err(e) = follow_events(&js, &into, &mut files, &mut next).await {
                note(&into, &e);
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let (js, into, replicas) = (nats.js(), root.to_owned(), nats.replicas());
    nats.spawn(async move {
        loop {
            if let Err(e) = follow_decisions(&js, &into, replicas).await {
                note(&into, &e);
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    Ok(())
}

/// What went wrong, for the operator to look at (the terminal belongs to the TUI).
fn note(root: &Path, e: &StoreError) {
    if let Ok(mut file) = private::open_append(&root.join("mirror.log")) {
        let _ = writeln!(file, "{e}");
    }
}

/// The mirror file of a subject: `ctxlens.<host>.<session>.<events|ledger>`.
pub fn path_of(root: &Path, subject: &str) -> Option<PathBuf> {
    let mut parts = subject.strip_prefix("ctxlens.")?.split('.');
    let (host, session, kind) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || host.is_empty() || session.is_empty() {
        return None;
    }
    let log = root.join(host).join(format!("{session}.jsonl"));
    match kind {
        "events" => Some(log),
        "ledger" => Some(ledger::ledger_path(&log)),
        _ => None,
    }
}

/// The session key of a mirror file (`<root>/<host>/<session>.jsonl`).
pub fn session_of_path(path: &Path) -> Option<String> {
    let session = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let host = path.parent()?.file_name()?.to_str()?;
    Some(format!("{host}.{session}"))
}

/// The epoch and length of each mirror file, and the one written last, kept open (a
/// replay brings one log's lines in a row).
#[derive(Default)]
struct Files {
    known: HashMap<PathBuf, (u64, u64)>,
    open: Option<(PathBuf, std::fs::File)>,
}

impl Files {
    fn file(&mut self, path: &Path) -> StoreResult<&mut std::fs::File> {
        if self.open.as_ref().is_none_or(|(p, _)| p != path) {
            if let Some(folder) = path.parent() {
                private::folder(folder)?;
            }
            self.open = Some((path.to_owned(), private::open_append(path)?));
        }
        match &mut self.open {
            Some((_, file)) => Ok(file),
            None => Err(StoreError::server_said("no mirror file")),
        }
    }
}

fn header_u64(message: &jetstream::Message, name: &str) -> u64 {
    message
        .headers
        .as_ref()
        .and_then(|h| h.get(name))
        .and_then(|v| v.as_str().parse().ok())
        .unwrap_or(0)
}

/// Applies every message of the events stream from sequence `next` on.
async fn follow_events(
    js: &jetstream::Context,
    root: &Path,
    files: &mut Files,
    next: &mut u64,
) -> StoreResult<()> {
    let stream = js
        .get_stream(EVENTS_STREAM)
        .await
        .map_err(|e| failed("the events stream", e))?;
    let consumer = stream
        .create_consumer(consumer::pull::OrderedConfig {
            deliver_policy: consumer::DeliverPolicy::ByStartSequence {
                start_sequence: *next,
            },
            max_batch: super::events::PULL_BATCH,
            ..Default::default()
        })
        .await
        .map_err(|e| failed("the events stream", e))?;
    let mut messages = consumer
        .messages()
        .await
        .map_err(|e| failed("the events stream", e))?;
    while let Some(message) = messages.next().await {
        let message = message.map_err(|e| failed("the events stream", e))?;
        let sequence = message
            .info()
            .map_err(|e| failed("the events stream", e))?
            .stream_sequence;
        if let Some(path) = path_of(root, message.subject.as_str()) {
            apply(files, &path, &message)?;
        }
        *next = sequence + 1;
    }
    Ok(())
}

/// Writes one shipped chunk into its mirror file: a newer epoch starts the file over,
/// an older one or a chunk it has is skipped.
fn apply(files: &mut Files, path: &Path, message: &jetstream::Message) -> StoreResult<()> {
    let epoch = header_u64(message, "Ctxlens-Epoch");
    let offset = header_u64(message, "Ctxlens-Offset");
    let (known_epoch, len) = files.known.get(path).copied().unwrap_or((0, 0));
    if epoch < known_epoch || (epoch == known_epoch && offset < len) {
        return Ok(());
    }
    let file = files.file(path)?;
    let len = if epoch > known_epoch {
        file.set_len(0)?;
        0
    } else {
        len
    };
    file.write_all(&message.payload)?;
    files
        .known
        .insert(path.to_owned(), (epoch, len + message.payload.len() as u64));
    Ok(())
}

/// Writes every decision of the bucket into its session's mirror sidecar (the first
/// stands there as on the server).
async fn follow_decisions(
    js: &jetstream::Context,
    root: &Path,
    replicas: usize,
) -> StoreResult<()> {
    let store = bucket(js, replicas).await?;
    let mut watch = store
        .watch_with_history(">")
        .await
        .map_err(|e| failed("the decisions bucket", e))?;
    while let Some(entry) = watch.next().await {
        let entry = entry.map_err(|e| failed("the decisions bucket", e))?;
        if entry.operation != kv::Operation::Put {
            continue;
        }
        let mut parts = entry.key.splitn(3, '.');
        let (Some(host), Some(session), Some(_)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(decision) = serde_json::from_slice::<Decision>(&entry.value) else {
            continue;
        };
        let folder = root.join(host);
        private::folder(&folder)?;
        decisions::record(&folder.join(format!("{session}.jsonl")), &decision)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_map_to_mirror_files_and_back() {
        let root = Path::new("/m");
        let log = path_of(root, "ctxlens.vm.s1.events").unwrap();
        assert_eq!(log, Path::new("/m/vm/s1.jsonl"));
        assert_eq!(
            path_of(root, "ctxlens.vm.s1.ledger").unwrap(),
            Path::new("/m/vm/s1.jsonl.ctxlens-ledger.jsonl")
        );
        assert_eq!(path_of(root, "ctxlens.vm.s1.other"), None);
        assert_eq!(path_of(root, "ctxlens.vm.events"), None);
        assert_eq!(session_of_path(&log).as_deref(), Some("vm.s1"));
    }
}
