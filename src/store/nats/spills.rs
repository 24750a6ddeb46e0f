//! Spills in the object store `ctxlens-spills`, named by the SHA-256 of their bytes.
//! A read checks the bytes against the name, as the file backend does.

use super::{failed, Nats, SPILLS_BUCKET};
use crate::store::channel::SpillStore;
use crate::store::spill::{hex, Handle, ReadError};
use crate::store::StoreResult;
use async_nats::jetstream::object_store;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::io::AsyncReadExt;

/// Spills in the fleet's object store, by their SHA-256.
pub struct NatsSpills {
    nats: Arc<Nats>,
}

impl NatsSpills {
    /// The spill store on `nats`.
    pub fn new(nats: Arc<Nats>) -> NatsSpills {
        NatsSpills { nats }
    }

    /// How a spill is named in messages.
    fn place(&self, handle: &Handle) -> PathBuf {
        PathBuf::from(format!(
            "{} object store {SPILLS_BUCKET}, {}",
            self.nats.url(),
            handle
        ))
    }
}

async fn store(
    js: &async_nats::jetstream::Context,
    replicas: usize,
) -> StoreResult<object_store::ObjectStore> {
    super::open_or_create(
        || js.get_object_store(SPILLS_BUCKET),
        || {
            js.create_object_store(object_store::Config {
                bucket: SPILLS_BUCKET.into(),
                description: Some("ctxlens: spilled regions, named by SHA-256".into()),
                storage: async_nats::jetstream::stream::StorageType::File,
                num_replicas: replicas,
                ..Default::default()
            })
        },
        "the spill store",
    )
    .await
}

impl SpillStore for NatsSpills {
    /// The region is read into memory, hashed, then stored under its hash (the object
    /// store cannot rename, so the name must be known before the upload).
    fn put(&self, region: &mut dyn Read) -> StoreResult<Handle> {
        let mut bytes = Vec::new();
        region.read_to_end(&mut bytes)?;
        let handle = Handle::of_digest(&Sha256::digest(&bytes));
        let name = handle.hex().to_owned();
        let js = self.nats.js();
        let replicas = self.nats.replicas();
        self.nats.run(async move {
            let store = store(&js, replicas).await?;
            // Stored under its digest: storing it again while a cluster elects the
            // store's leader writes the same object.
            super::through_election("cannot store the spill", || async {
                store.put(name.as_str(), &mut bytes.as_slice()).await
            })
            .await?;
            Ok(())
        })?;
        Ok(handle)
    }

    fn get(&self, handle: &Handle) -> Result<Vec<u8>, ReadError> {
        let js = self.nats.js();
        let replicas = self.nats.replicas();
        let name = handle.hex().to_owned();
        let place = self.place(handle);
        let got = self.nats.run(async move {
            let store = store(&js, replicas).await?;
            let mut object = match store.get(name.as_str()).await {
                Ok(object) => object,
                Err(e) if e.kind() == object_store::GetErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(failed("cannot read the spill", e)),
            };
            let mut bytes = Vec::new();
            object
                .read_to_end(&mut bytes)
                .await
                .map_err(|e| failed("cannot read the spill", e))?;
            Ok(Some(bytes))
        });
        let bytes = match got {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Err(ReadError::Missing(place)),
            Err(e) => return Err(ReadError::Server(place, e)),
        };
        let actual = hex(&Sha256::digest(&bytes));
        if actual != handle.hex() {
            return Err(ReadError::Corrupt {
                path: place,
                actual,
            });
        }
        Ok(bytes)
    }
}
