//! Decisions, spills, the hooks and fleet mode: the code that writes, against real
//! files, processes and a real `nats-server`.

#[path = "../common/mod.rs"]
mod common;

mod channel;
#[cfg(feature = "fleet")]
mod cluster;
#[cfg(feature = "fleet")]
mod fleet;
mod hooks;
mod store_safety;
