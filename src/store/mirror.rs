//! ctxlens's own copies of sessions that are not log files (OpenCode's database): one
//! JSONL file per session, under `$XDG_STATE_HOME/ctxlens/mirror/` (`~/.local/state`),
//! which the TUI opens and follows, `ship` publishes, and beside which decisions, spills
//! and the hooks' ledger live, as beside any log. The agent's own files are never
//! written. A copy grows by appends while the session only grows, and is replaced
//! whole (by rename) when an earlier part changed.

use super::{atomic, private};
use sha2::{Digest, Sha256};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// ctxlens's own state folder: `$XDG_STATE_HOME/ctxlens` (`~/.local/state/ctxlens`).
pub fn state_folder() -> io::Result<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .ok_or_else(|| io::Error::other("neither XDG_STATE_HOME nor HOME is set"))?;
    Ok(base.join("ctxlens"))
}

/// The folder all copies are under: `$XDG_STATE_HOME/ctxlens/mirror`
/// (`~/.local/state/ctxlens/mirror`).
pub fn root() -> io::Result<PathBuf> {
    Ok(state_folder()?.join("mirror"))
}

/// The folder of the copies of `source`'s sessions: named after the source's resolved
/// path alone (its stem and a hash of it), so two databases never share one and every
/// name of one database (a link to it, a relative path) finds the same.
pub fn folder_for(source: &Path) -> io::Result<PathBuf> {
    let absolute = source.canonicalize()?;
    let digest = Sha256::digest(absolute.as_os_str().as_encoded_bytes());
    let name: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let stem = absolute
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(root()?.join(format!("{stem}-{name}")))
}

/// Makes `folder` (from [`folder_for`]) and the folders above it up to the state
/// folder, each owner-only.
pub fn prepare(folder: &Path) -> io::Result<()> {
    let mirror = folder.parent().unwrap_or(folder);
    let ctxlens = mirror.parent().unwrap_or(mirror);
    if let Some(base) = ctxlens.parent() {
        std::fs::create_dir_all(base)?;
    }
    for dir in [ctxlens, mirror, folder] {
        private::folder(dir)?;
    }
    Ok(())
}

/// Holds the folder's lock (`.lock` in it) until dropped: one writer of its copies at
/// a time, across processes.
pub fn lock(folder: &Path) -> io::Result<std::fs::File> {
    let file = private::open_append(&folder.join(".lock"))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
    Ok(file)
}

/// Makes the copy at `path` hold `bytes`: nothing when it does, the new end appended
/// when it holds their beginning, the whole file replaced otherwise. Whether it changed.
pub fn sync(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let mut current = Vec::new();
    match private::open_read(path) {
        Ok(mut file) => {
            file.read_to_end(&mut current)?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    if current == bytes {
        return Ok(false);
    }
    match bytes.strip_prefix(current.as_slice()) {
        Some(tail) if !current.is_empty() => {
            let mut file = private::open_append(path)?;
            file.write_all(tail)?;
            file.sync_data()?;
        }
        _ => atomic::write(path, bytes)?,
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_copy_grows_by_appends_and_is_replaced_when_its_start_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        assert!(sync(&path, b"a\n").unwrap());
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let first = inode(&path);
        assert!(!sync(&path, b"a\n").unwrap());
        assert!(sync(&path, b"a\nb\n").unwrap());
        assert_eq!(inode(&path), first, "appended in place");
        assert!(sync(&path, b"A\nb\n").unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"A\nb\n");
        assert_ne!(inode(&path), first, "replaced whole");
    }
}
