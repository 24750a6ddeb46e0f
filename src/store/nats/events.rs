//! Session logs on the stream `CTXLENS_EVENTS`: the lines of one log on
//! `ctxlens.<host>.<session>.events` (its hooks' ledger on `….ledger`), whole lines up
//! to `MAX_CHUNK` a message, each message headed by the byte offset it starts at and
//! the log's epoch (which grows when the log is truncated or replaced). A message's id
//! is `<host>.<session>.<events|ledger>.<epoch>.<offset>`, so the server drops a
//! repeat; shipping resumes after the last message stored, so nothing is sent twice
//! even past the server's duplicate window.

use super::{failed, Nats, EVENTS_STREAM};
use crate::store::{StoreError, StoreResult};
use async_nats::jetstream::{self, consumer, stream};
use futures_util::StreamExt;

use std::time::Duration;

/// The byte offset header.
const OFFSET: &str = "Ctxlens-Offset";
/// The epoch header.
const EPOCH: &str = "Ctxlens-Epoch";
/// Which file the lines came from: `<shipper's id> <absolute path>`. A shipper finds
/// another file's origin on its subject and refuses to ship there.
const ORIGIN: &str = "Ctxlens-Origin";
/// The most of a line one message carries: longer lines take several.
pub const MAX_CHUNK: usize = 256 * 1024;
/// Messages a replay pulls at once: at up to `MAX_CHUNK` each, what the client buffers
/// (the client's default of 500 would be 128 MiB).
pub const PULL_BATCH: i64 = 16;
/// Messages in flight before their acknowledgements are awaited.
const IN_FLIGHT: usize = 256;

/// Where shipping a log stands on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    /// The log's epoch: a truncated log starts a new one.
    pub epoch: u64,
    /// The byte after the last one stored.
    pub offset: u64,
}

/// Where shipping a subject stands, and which file its last lines came from (`None`
/// when nothing was shipped, or by a ctxlens that did not say).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resume {
    /// Where the next line goes.
    pub at: Position,
    /// Which file's log the subject holds (machine and path).
    pub origin: Option<String>,
}

async fn events_stream(js: &jetstream::Context, replicas: usize) -> StoreResult<stream::Stream> {
    js.get_or_create_stream(stream::Config {
        name: EVENTS_STREAM.into(),
        description: Some("ctxlens: session logs, one subject per session".into()),
        subjects: vec!["ctxlens.*.*.events".into(), "ctxlens.*.*.ledger".into()],
        storage: stream::StorageType::File,
        duplicate_window: Duration::from_secs(120),
        num_replicas: replicas,
        ..Default::default()
    })
    .await
    .map_err(|e| failed("cannot open the events stream", e))
}

fn header_u64(headers: Option<&async_nats::HeaderMap>, name: &str) -> Option<u64> {
    headers?.get(name)?.as_str().parse().ok()
}

/// One chunk to publish: where it starts in the log and its bytes.
pub struct Chunk {
    /// The byte offset of the chunk in the log.
    pub offset: u64,
    /// Its bytes: whole lines.
    pub bytes: Vec<u8>,
}

impl Nats {
    /// Where shipping `subject` resumes: after its last stored message, or at the start.
    pub fn resume_point(&self, subject: &str) -> StoreResult<Resume> {
        let js = self.js();
        let replicas = self.replicas();
        let subject = subject.to_owned();
        self.run(async move {
            let stream = events_stream(&js, replicas).await?;
            match stream.get_last_raw_message_by_subject(&subject).await {
                Ok(message) => {
                    let headers = Some(&message.headers);
                    let offset = header_u64(headers, OFFSET).unwrap_or(0);
                    Ok(Resume {
                        at: Position {
                            epoch: header_u64(headers, EPOCH).unwrap_or(0),
                            offset: offset + message.payload.len() as u64,
                        },
                        origin: message.headers.get(ORIGIN).map(|v| v.as_str().to_owned()),
                    })
                }
                Err(e) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => {
                    Ok(Resume::default())
                }
                Err(e) => Err(failed("cannot read where shipping stopped", e)),
            }
        })
    }

    /// Publishes `chunks` of `subject` in `epoch`, from the file `origin` names, and
    /// waits until the server has acknowledged every one. Returns how many it already
    /// had.
    pub fn publish(
        &self,
        subject: &str,
        origin: &str,
        epoch: u64,
        chunks: Vec<Chunk>,
    ) -> StoreResult<usize> {
        let js = self.js();
        let replicas = self.replicas();
        let subject = subject.to_owned();
        let origin = origin.to_owned();
        self.run(async move {
            events_stream(&js, replicas).await?;
            // The subject without its `ctxlens.` prefix names the file uniquely.
            let session = subject
                .strip_prefix("ctxlens.")
                .unwrap_or(&subject)
                .to_owned();
            let mut duplicates = 0;
            let mut pending = Vec::with_capacity(IN_FLIGHT);
            for chunk in chunks {
                let message = jetstream::message::PublishMessage::build()
                    .message_id(format!("{session}.{epoch}.{}", chunk.offset))
                    .header(OFFSET, chunk.offset.to_string().as_str())
                    .header(EPOCH, epoch.to_string().as_str())
                    .header(ORIGIN, origin.as_str())
                    .payload(chunk.bytes.into());
                let ack = js
                    .send_publish(subject.clone(), message)
                    .await
                    .map_err(|e| failed("cannot publish", e))?;
                pending.push(ack);
                if pending.len() >= IN_FLIGHT {
                    duplicates += settle(&mut pending).await?;
                }
            }
            duplicates += settle(&mut pending).await?;
            Ok(duplicates)
        })
    }

    /// The bytes of the newest epoch of `subject`'s log, as shipped, in order.
    pub fn replay(&self, subject: &str) -> StoreResult<Vec<u8>> {
        let js = self.js();
        let replicas = self.replicas();
        let subject = subject.to_owned();
        self.run(async move {
            let stream = events_stream(&js, replicas).await?;
            let last = match stream.get_last_raw_message_by_subject(&subject).await {
                Ok(message) => message,
                Err(e) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => {
                    return Err(StoreError::server(
                        subject,
                        "nothing was shipped on this subject",
                    ))
                }
                Err(e) => return Err(failed(&subject, e)),
            };
            let epoch = header_u64(Some(&last.headers), EPOCH).unwrap_or(0);
            let consumer = stream
                .create_consumer(consumer::pull::OrderedConfig {
                    filter_subject: subject.clone(),
                    deliver_policy: consumer::DeliverPolicy::All,
                    max_batch: PULL_BATCH,
                    ..Default::default()
                })
                .await
                .map_err(|e| failed(&subject, e))?;
            let mut messages = consumer.messages().await.map_err(|e| failed(&subject, e))?;
            let mut bytes = Vec::new();
            while let Some(message) = messages.next().await {
                let message = message.map_err(|e| failed(&subject, e))?;
                let sequence = message
                    .info()
                    .map_err(|e| failed(&subject, e))?
                    .stream_sequence;
                if header_u64(message.headers.as_ref(), EPOCH).unwrap_or(0) == epoch {
                    bytes.extend_from_slice(&message.payload);
                }
                if sequence >= last.sequence {
                    break;
                }
            }
            Ok(bytes)
        })
    }

    /// The events subjects on the stream that match `filter` (wildcards allowed).
    pub fn subjects(&self, filter: &str) -> StoreResult<Vec<String>> {
        let js = self.js();
        let replicas = self.replicas();
        let filter = filter.to_owned();
        self.run(async move {
            let stream = events_stream(&js, replicas).await?;
            let mut found = super::subjects_matching(&stream, &filter).await?;
            found.sort();
            Ok(found)
        })
    }
}

/// Awaits the acknowledgements in `pending`; returns how many were duplicates.
async fn settle(pending: &mut Vec<jetstream::context::PublishAckFuture>) -> StoreResult<usize> {
    let mut duplicates = 0;
    for ack in pending.drain(..) {
        let ack = ack.await.map_err(|e| failed("not acknowledged", e))?;
        duplicates += usize::from(ack.duplicate);
    }
    Ok(duplicates)
}
