//! Why a store could not do what it was asked: the disk (files beside the log, a
//! local folder) or the fleet's server. An operator fixes the two differently (a full
//! disk against a server out of reach or without a majority), so they are told apart.

use std::io;

/// A store's failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or folder of the store on this machine.
    #[error(transparent)]
    Disk(#[from] io::Error),
    /// The fleet's server: out of reach, without a majority, or refusing or failing
    /// what it was asked; `what` says what was asked.
    #[error("{what}: {reason}")]
    Server {
        /// What the server was asked.
        what: String,
        /// What it answered, or why it did not.
        reason: String,
    },
}

impl StoreError {
    /// The server failed `what`, for `reason`.
    pub fn server(what: impl Into<String>, reason: impl std::fmt::Display) -> StoreError {
        StoreError::Server {
            what: what.into(),
            reason: reason.to_string(),
        }
    }

    /// The server failed, as `reason` says (what was asked is in the reason).
    pub fn server_said(reason: impl std::fmt::Display) -> StoreError {
        StoreError::Server {
            what: "the fleet's server".into(),
            reason: reason.to_string(),
        }
    }

    /// Whether the server failed (not the disk).
    pub fn is_server(&self) -> bool {
        matches!(self, StoreError::Server { .. })
    }
}

/// A store's answer.
pub type StoreResult<T> = Result<T, StoreError>;
