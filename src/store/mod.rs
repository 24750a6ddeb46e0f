//! The only code that writes files: the decision channel and the spill store.

pub mod atomic;
pub mod decisions;
pub mod ledger;
pub mod paths;
pub mod private;
pub mod record;
pub mod spill;
