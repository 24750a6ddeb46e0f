//! The only code that writes: the decision channel and the spill store, behind the
//! traits of `channel` (files beside the log, or NATS JetStream for fleets), the hooks'
//! ledger, ctxlens's own copies of sessions that are not log files, and what `ship`
//! publishes.

pub mod atomic;
pub mod channel;
pub mod decisions;
mod identity;
pub mod ledger;
pub mod mirror;
#[cfg(feature = "fleet")]
pub mod nats;
#[cfg(not(feature = "fleet"))]
#[path = "nats_off.rs"]
pub mod nats;
pub mod paths;
pub mod private;
pub mod spill;

pub use identity::machine_id;
