//! Waiting for the decision on one compaction of a log: `await` and the hooks that
//! hold a compaction wait the same way. A file event in the log's folder (a decision
//! appended beside it, the log replaced) or a decision on the server wakes the wait;
//! without either it looks again at each poll.

use crate::store::channel::{DecisionChannel, Subscription};
use crate::store::StoreResult;
use ctxlens_core::model::Decision;
use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// A wait for the decision on one compaction.
pub(crate) struct DecisionWait {
    subscription: Box<dyn Subscription>,
    woken: Receiver<()>,
    _watcher: Option<notify::RecommendedWatcher>,
}

impl DecisionWait {
    /// Starts waiting for a decision on `compaction` of the log at `log`, recorded on
    /// `channel`.
    pub(crate) fn start(
        log: &Path,
        channel: &dyn DecisionChannel,
        compaction: &str,
    ) -> StoreResult<DecisionWait> {
        let (wake, woken) = std::sync::mpsc::channel::<()>();
        let wake_on_file = wake.clone();
        let watcher = super::watch::watch_folder_of(log, move || {
            let _ = wake_on_file.send(());
        });
        let subscription = channel.subscribe(
            compaction,
            Box::new(move || {
                let _ = wake.send(());
            }),
        )?;
        Ok(DecisionWait {
            subscription,
            woken,
            _watcher: watcher,
        })
    }

    /// The decision, once one stands on the channel.
    pub(crate) fn check(&mut self) -> StoreResult<Option<Decision>> {
        self.subscription.check()
    }

    /// What keeps a decision from being seen now (a store that cannot be reached), if
    /// anything.
    pub(crate) fn trouble(&self) -> Option<String> {
        self.subscription.trouble()
    }

    /// Sleeps until something may have changed, or `up_to` has passed; the wakes of a
    /// burst are taken together.
    pub(crate) fn sleep(&self, up_to: Duration) {
        // A channel that never wakes (no watcher, no server) must not make the wait a
        // busy loop: then it sleeps the time out.
        if let Err(RecvTimeoutError::Disconnected) = self.woken.recv_timeout(up_to) {
            std::thread::sleep(up_to);
        }
        while self.woken.try_recv().is_ok() {}
    }
}
