//! The store seam: where decisions and spills live. The file backend (the embedded
//! default) keeps them beside the log; the NATS JetStream backend (`super::nats`) keeps
//! them on a server a fleet shares. Everything that decides or reads a decision goes
//! through these traits.

use super::decisions::{self, Recorded, Sidecar};
use super::spill::{self, Handle, ReadError};
use crate::store::StoreResult;
use ctxlens_core::model::Decision;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The decision channel of one session (docs/store.md): the first decision stands.
pub trait DecisionChannel: Send + Sync {
    /// Every decision recorded for the session, in the order recorded.
    fn standing(&self) -> StoreResult<Sidecar>;
    /// Records `decision` unless one already stands for its compaction.
    fn record(&self, decision: &Decision) -> StoreResult<Recorded>;
    /// Starts watching for a decision on `compaction`. `wake` is called when one may
    /// have arrived; `Subscription::check` says whether it has.
    fn subscribe(
        &self,
        compaction: &str,
        wake: Box<dyn Fn() + Send + Sync>,
    ) -> StoreResult<Box<dyn Subscription>>;
    /// Calls `wake` whenever someone else may have recorded a decision of the session.
    fn watch(&self, wake: Box<dyn Fn() + Send + Sync>) -> StoreResult<()>;
    /// Where the decisions live, for messages.
    fn location(&self) -> String;
}

/// A wait for one compaction's decision.
pub trait Subscription: Send {
    /// The decision, once one stands.
    fn check(&mut self) -> StoreResult<Option<Decision>>;
    /// What keeps a decision from being seen now (a store that cannot be reached), if
    /// anything: the waiter says it when it gives up.
    fn trouble(&self) -> Option<String> {
        None
    }
}

/// The spill store: regions stored by their SHA-256, checked on every read.
pub trait SpillStore: Send + Sync {
    /// Stores `region` and returns its handle; durable before it returns.
    fn put(&self, region: &mut dyn Read) -> StoreResult<Handle>;
    /// The spilled bytes of `handle`, after checking that they still hash to it.
    fn get(&self, handle: &Handle) -> Result<Vec<u8>, ReadError>;
}

/// The decision channel and the spill store of one session.
pub struct Backend {
    /// Where the session's decisions are recorded and read.
    pub channel: Box<dyn DecisionChannel>,
    /// Where its regions are spilled.
    pub spills: Box<dyn SpillStore>,
}

impl Backend {
    /// The embedded default: `<log>.decisions.jsonl` and `<log>.spill/`.
    pub fn files(log: &Path) -> Backend {
        Backend {
            channel: Box::new(FileChannel {
                log: log.to_owned(),
            }),
            spills: Box::new(FileSpills {
                log: log.to_owned(),
            }),
        }
    }
}

/// Decisions in `<log>.decisions.jsonl`, appended under an advisory lock.
pub struct FileChannel {
    log: PathBuf,
}

impl DecisionChannel for FileChannel {
    fn standing(&self) -> StoreResult<Sidecar> {
        Ok(decisions::read(&self.log)?)
    }

    fn record(&self, decision: &Decision) -> StoreResult<Recorded> {
        Ok(decisions::record(&self.log, decision)?)
    }

    /// The caller watches the log's folder (where the sidecar is) and calls `check` on
    /// every file event; `wake` is not needed here.
    fn subscribe(
        &self,
        compaction: &str,
        _wake: Box<dyn Fn() + Send + Sync>,
    ) -> StoreResult<Box<dyn Subscription>> {
        Ok(Box::new(SidecarTail {
            path: super::paths::decisions_path(&self.log),
            compaction: compaction.to_owned(),
            offset: 0,
            partial: Vec::new(),
        }))
    }

    /// Nothing to start: whoever watches the log's folder sees the sidecar change.
    fn watch(&self, _wake: Box<dyn Fn() + Send + Sync>) -> StoreResult<()> {
        Ok(())
    }

    fn location(&self) -> String {
        super::paths::decisions_path(&self.log)
            .display()
            .to_string()
    }
}

/// The sidecar as read so far: only what was appended is read on each look.
struct SidecarTail {
    path: PathBuf,
    compaction: String,
    offset: u64,
    /// An incomplete last line, kept until its newline arrives.
    partial: Vec<u8>,
}

impl Subscription for SidecarTail {
    fn check(&mut self) -> StoreResult<Option<Decision>> {
        use std::io::{Seek, SeekFrom};
        let mut file = match super::private::open_read(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let len = file.metadata()?.len();
        if len < self.offset {
            // Rewritten from scratch: read it all again.
            self.offset = 0;
            self.partial.clear();
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut fresh = Vec::new();
        file.read_to_end(&mut fresh)?;
        self.offset += fresh.len() as u64;
        self.partial.extend_from_slice(&fresh);
        let complete = self
            .partial
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let lines: Vec<u8> = self.partial.drain(..complete).collect();
        Ok(lines
            .split(|&b| b == b'\n')
            .filter_map(|line| serde_json::from_slice::<Decision>(line).ok())
            .find(|d| d.compaction == self.compaction))
    }
}

/// Spills in `<log>.spill/<sha256>`.
pub struct FileSpills {
    log: PathBuf,
}

impl SpillStore for FileSpills {
    fn put(&self, region: &mut dyn Read) -> StoreResult<Handle> {
        Ok(spill::store(&self.log, region)?)
    }

    fn get(&self, handle: &Handle) -> Result<Vec<u8>, ReadError> {
        spill::read(&self.log, handle)
    }
}
