//! The only code that writes: the decision channel and the spill store, behind the
//! traits of `channel` (files beside the log, or NATS JetStream for fleets), the hooks'
//! ledger, ctxlens's own copies of sessions that are not log files, and what `ship`
//! publishes.

pub(crate) mod atomic;
pub mod channel;
pub mod decisions;
mod error;
pub use error::{StoreError, StoreResult};
mod identity;
pub(crate) mod ledger;
pub mod mirror;
#[cfg(feature = "fleet")]
pub mod nats;
#[cfg(not(feature = "fleet"))]
#[path = "nats_off.rs"]
pub mod nats;
pub mod paths;
pub mod private;
pub(crate) mod spill;

pub use identity::machine_id;

/// Where the decisions and spills of each log go: files beside it, or the fleet's
/// server; what a view of many logs opens each one with.
pub type Stores = std::sync::Arc<dyn Fn(&std::path::Path) -> channel::Backend + Send + Sync>;

/// Decisions and spills beside each log.
pub fn files_beside_each_log() -> Stores {
    std::sync::Arc::new(channel::Backend::files)
}
