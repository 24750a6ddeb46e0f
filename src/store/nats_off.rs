//! Built without the `fleet` feature: no NATS server can be reached. [`Nats`] has no
//! value, so every path that would use one cannot be taken, and `--nats` is refused
//! where it is read (`cli::fleet::connect`). The subject and key names stay: they are
//! plain text.

use super::channel::Backend;
use crate::store::StoreResult;
use std::io;
use std::sync::Arc;

#[path = "nats/keys.rs"]
pub mod keys;

/// A connected server: none exists in this build.
pub enum Nats {}

impl Nats {
    /// A log replayed from the events stream.
    pub fn replay(&self, _subject: &str) -> StoreResult<Vec<u8>> {
        match *self {}
    }

    /// The subjects of the events stream that `filter` matches.
    pub fn subjects(&self, _filter: &str) -> StoreResult<Vec<String>> {
        match *self {}
    }
}

/// The decision channel and spill store of `session` on `nats`.
pub fn backend(nats: &Arc<Nats>, _session: &str) -> Backend {
    match **nats {}
}

/// The spill bucket of a server: none exists in this build.
pub struct NatsSpills(Nats);

impl NatsSpills {
    /// The spill store on `nats`, which cannot exist.
    pub fn new(nats: Arc<Nats>) -> NatsSpills {
        match *nats {}
    }
}

impl super::channel::SpillStore for NatsSpills {
    fn put(&self, _region: &mut dyn io::Read) -> StoreResult<super::spill::Handle> {
        match self.0 {}
    }

    fn get(&self, _handle: &super::spill::Handle) -> Result<Vec<u8>, super::spill::ReadError> {
        match self.0 {}
    }
}
