//! Built without the `opencode` feature: no SQLite. Opening a database says so; no
//! [`Database`] value exists, so nothing else can be asked of one.

use super::{SessionRow, Signature};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Why the database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    /// Any database: this build cannot read one.
    #[error("{path}: this ctxlens was built without OpenCode support (the `opencode` feature)")]
    NotBuilt {
        /// The database's path.
        path: String,
    },
}

enum Never {}

/// An OpenCode database opened to read: none can be, in this build.
pub struct Database(Never);

// Each method is documented where it works, in `database.rs`.
#[allow(missing_docs)]
impl Database {
    pub fn open(db: &Path) -> Result<Database, DatabaseError> {
        Err(DatabaseError::NotBuilt {
            path: db.display().to_string(),
        })
    }

    pub fn work(&self) -> u64 {
        match self.0 {}
    }

    pub fn data_version(&self) -> Result<i64, DatabaseError> {
        match self.0 {}
    }

    pub fn sessions(&self) -> Result<Vec<SessionRow>, DatabaseError> {
        match self.0 {}
    }

    pub fn newest_rowids(&self) -> Result<[i64; 2], DatabaseError> {
        match self.0 {}
    }

    pub fn sessions_with_rows_after(
        &self,
        _rowids: [i64; 2],
    ) -> Result<HashSet<String>, DatabaseError> {
        match self.0 {}
    }

    pub fn session_rows(&self) -> Result<HashMap<String, String>, DatabaseError> {
        match self.0 {}
    }

    pub fn signatures(&self) -> Result<HashMap<String, Signature>, DatabaseError> {
        match self.0 {}
    }

    pub fn session_lines(
        &self,
        _session: &str,
        _settled: bool,
    ) -> Result<(Vec<u8>, bool), DatabaseError> {
        match self.0 {}
    }
}
