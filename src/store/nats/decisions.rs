//! Decisions in the key-value bucket `ctxlens-decisions`, one key per compaction
//! (`<host>.<session>.<compaction>`). A decision is a `create`: the server refuses a
//! second one, so the first stands across the fleet.

use super::keys::{decision_key, decode};
use super::{failed, Nats, DECISIONS_BUCKET};
use crate::store::channel::{DecisionChannel, Subscription};
use crate::store::decisions::{Recorded, Sidecar};
use crate::store::{StoreError, StoreResult};
use async_nats::jetstream::kv;
use ctxlens_core::model::Decision;
use futures_util::StreamExt;
use std::io;
use std::sync::{Arc, Mutex};

/// The decisions of one session in the fleet's key-value bucket.
pub struct NatsChannel {
    nats: Arc<Nats>,
    session: String,
}

impl NatsChannel {
    /// The decision channel of `session` on `nats`.
    pub fn new(nats: Arc<Nats>, session: &str) -> NatsChannel {
        NatsChannel {
            nats,
            session: session.to_owned(),
        }
    }
}

/// The bucket, created on first use.
pub(super) async fn bucket(
    js: &async_nats::jetstream::Context,
    replicas: usize,
) -> StoreResult<kv::Store> {
    super::open_or_create(
        || js.get_key_value(DECISIONS_BUCKET),
        || {
            js.create_key_value(kv::Config {
                bucket: DECISIONS_BUCKET.into(),
                description: "ctxlens: the first decision on each compaction".into(),
                history: 1,
                storage: async_nats::jetstream::stream::StorageType::File,
                num_replicas: replicas,
                ..Default::default()
            })
        },
        "the decisions bucket",
    )
    .await
}

fn parse(key: &str, value: &[u8]) -> StoreResult<Decision> {
    serde_json::from_slice(value)
        .map_err(|e| StoreError::server_said(format!("decision {key} cannot be read: {e}")))
}

impl DecisionChannel for NatsChannel {
    /// Only this session's keys are read: the subjects of the bucket's stream under
    /// `<session>.`, then the last message of each.
    fn standing(&self) -> StoreResult<Sidecar> {
        let js = self.nats.js();
        let replicas = self.nats.replicas();
        let filter = format!("$KV.{DECISIONS_BUCKET}.{}.>", self.session);
        let entries = self.nats.run(async move {
            bucket(&js, replicas).await?;
            let stream = super::through_election("cannot read the decisions", || {
                js.get_stream(format!("KV_{DECISIONS_BUCKET}"))
            })
            .await?;
            let names = super::subjects_matching(&stream, &filter).await?;
            let mut found = Vec::new();
            for subject in names {
                let message = super::through_election("cannot read a decision", || {
                    stream.get_last_raw_message_by_subject(&subject)
                })
                .await?;
                let removed = message
                    .headers
                    .get("KV-Operation")
                    .is_some_and(|op| op.as_str() != "PUT");
                if !removed {
                    found.push((message.sequence, subject, message.payload));
                }
            }
            Ok(found)
        })?;
        let mut sidecar = Sidecar::default();
        let mut entries = entries;
        // In the order they were recorded.
        entries.sort_by_key(|(sequence, _, _)| *sequence);
        for (sequence, key, value) in entries {
            match parse(&key, &value) {
                Ok(decision) => sidecar.decisions.push(decision),
                Err(_) => sidecar.unreadable.push(sequence),
            }
        }
        Ok(sidecar)
    }

    fn record(&self, decision: &Decision) -> StoreResult<Recorded> {
        let js = self.nats.js();
        let replicas = self.nats.replicas();
        let key = decision_key(&self.session, &decision.compaction);
        let value = serde_json::to_vec(decision).map_err(io::Error::other)?;
        let standing = self.nats.run(async move {
            let store = bucket(&js, replicas).await?;
            let deadline = tokio::time::Instant::now() + super::ELECTION;
            loop {
                // While a cluster elects the bucket's leader, a create may time out
                // having been stored: asked again, it finds this very decision standing.
                let created = super::through_election("cannot record the decision", || async {
                    match store.create(&key, value.clone().into()).await {
                        // Another decision stands; during an election the client may
                        // only say that the key's last sequence was not the none it
                        // expected.
                        Err(e)
                            if e.kind() == kv::CreateErrorKind::AlreadyExists
                                || e.to_string().contains("wrong last sequence") =>
                        {
                            Ok(false)
                        }
                        Err(e) => Err(e),
                        Ok(_) => Ok(true),
                    }
                })
                .await?;
                if created {
                    return Ok(None);
                }
                let value = super::through_election("cannot read the standing decision", || {
                    store.get(key.clone())
                })
                .await?;
                match value {
                    Some(value) => return Ok(Some(parse(&key, &value)?)),
                    // Said to stand, yet not there: a replica that has not caught up
                    // answered, in an election. Asked again, the cluster agrees.
                    None if tokio::time::Instant::now() < deadline => {
                        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
                    }
                    None => return Err(StoreError::server_said(
                        "a decision stands but cannot be read (the cluster did not agree in time)",
                    )),
                }
            }
        })?;
        Ok(match standing {
            None => Recorded::Written,
            Some(standing) if standing == *decision => Recorded::Written,
            Some(standing) => Recorded::AlreadyDecided(standing),
        })
    }

    fn subscribe(
        &self,
        compaction: &str,
        wake: Box<dyn Fn() + Send + Sync>,
    ) -> StoreResult<Box<dyn Subscription>> {
        let js = self.nats.js();
        let replicas = self.nats.replicas();
        let key = decision_key(&self.session, compaction);
        let found: Arc<Mutex<Option<StoreResult<Decision>>>> = Arc::new(Mutex::new(None));
        // Watch first, then look: a decision made in between is seen either way.
        let watch = {
            let key = key.clone();
            self.nats.run(async move {
                let store = bucket(&js, replicas).await?;
                let watch = store
                    .watch(&key)
                    .await
                    .map_err(|e| failed("cannot watch for the decision", e))?;
                let now = store
                    .get(key.clone())
                    .await
                    .map_err(|e| failed("cannot read the decision", e))?;
                Ok((watch, now))
            })?
        };
        let (mut watch, now) = watch;
        if let Some(value) = now {
            if let Ok(mut slot) = found.lock() {
                *slot = Some(parse(&key, &value));
            }
        }
        let slot = found.clone();
        let trouble: Arc<Mutex<Option<String>>> = Arc::default();
        let said = trouble.clone();
        let say = move |what: Option<String>| {
            if let Ok(mut said) = said.lock() {
                *said = what;
            }
        };
        let js = self.nats.js();
        self.nats.spawn(async move {
            // A watch that ends or fails (its server lost, the bucket's leader moved) is
            // opened again, and the key read again: a decision made meanwhile is seen.
            loop {
                while let Some(entry) = watch.next().await {
                    let Ok(entry) = entry else {
                        break;
                    };
                    if entry.operation == kv::Operation::Put {
                        if let Ok(mut slot) = slot.lock() {
                            slot.get_or_insert(parse(&entry.key, &entry.value));
                        }
                        wake();
                        return;
                    }
                }
                loop {
                    // Once a second: a wait while the server is away stays near idle.
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    let store = match bucket(&js, replicas).await {
                        Ok(store) => store,
                        Err(e) => {
                            say(Some(e.to_string()));
                            continue;
                        }
                    };
                    let again = match store.watch(&key).await {
                        Ok(again) => again,
                        Err(e) => {
                            say(Some(format!("cannot watch for the decision: {e}")));
                            continue;
                        }
                    };
                    say(None);
                    watch = again;
                    if let Ok(Some(value)) = store.get(key.clone()).await {
                        if let Ok(mut slot) = slot.lock() {
                            slot.get_or_insert(parse(&key, &value));
                        }
                        wake();
                        return;
                    }
                    break;
                }
            }
        });
        Ok(Box::new(Watched {
            found,
            trouble,
            nats: self.nats.clone(),
        }))
    }

    fn watch(&self, wake: Box<dyn Fn() + Send + Sync>) -> StoreResult<()> {
        let js = self.nats.js();
        let replicas = self.nats.replicas();
        let keys = format!("{}.>", self.session);
        let mut watch = self.nats.run(async move {
            let store = bucket(&js, replicas).await?;
            store
                .watch(&keys)
                .await
                .map_err(|e| failed("cannot watch the session's decisions", e))
        })?;
        self.nats.spawn(async move {
            while watch.next().await.is_some() {
                wake();
            }
        });
        Ok(())
    }

    fn location(&self) -> String {
        let session = self
            .session
            .split('.')
            .map(|part| decode(part).unwrap_or_else(|| part.to_owned()))
            .collect::<Vec<_>>()
            .join("/");
        format!(
            "{} bucket {DECISIONS_BUCKET}, session {session}",
            self.nats.url()
        )
    }
}

struct Watched {
    found: Arc<Mutex<Option<StoreResult<Decision>>>>,
    /// Why the watch cannot be opened again, while it cannot.
    trouble: Arc<Mutex<Option<String>>>,
    nats: Arc<Nats>,
}

impl Subscription for Watched {
    fn check(&mut self) -> StoreResult<Option<Decision>> {
        let mut slot = self
            .found
            .lock()
            .map_err(|_| StoreError::server_said("the decision watch failed"))?;
        match slot.take() {
            None => Ok(None),
            Some(Ok(decision)) => {
                *slot = Some(Ok(decision.clone()));
                Ok(Some(decision))
            }
            Some(Err(e)) => Err(e),
        }
    }

    fn trouble(&self) -> Option<String> {
        self.nats
            .unreachable()
            .or_else(|| self.trouble.lock().ok().and_then(|t| t.clone()))
    }
}
