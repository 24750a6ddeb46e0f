//! Files and folders ctxlens writes are its own: opened without following a link,
//! owned by the user who runs it, readable by that user only (0600 files, 0700
//! folders) whatever the umask. Something else at one of its paths is refused, not
//! written through.

use std::fs::{self, DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

fn no_follow() -> i32 {
    rustix::fs::OFlags::NOFOLLOW.bits() as i32
}

/// The effective user id of this process.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

fn refuse(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{}: {why}; refused, nothing written", path.display()),
    )
}

/// A symlink at `path` makes `open` fail with ELOOP under O_NOFOLLOW: say so plainly.
fn explain_link(path: &Path, e: io::Error) -> io::Error {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        refuse(path, "is a symbolic link")
    } else {
        e
    }
}

/// Checks that an opened file is a regular file of ours, and narrows its mode to 0600.
fn own_regular(path: &Path, file: &File, meta: &Metadata) -> io::Result<()> {
    if !meta.file_type().is_file() {
        return Err(refuse(path, "is not a regular file"));
    }
    if meta.uid() != euid() {
        return Err(refuse(
            path,
            &format!("belongs to user {}, not to you", meta.uid()),
        ));
    }
    // Another name for the same file (a hard link planted there) would be written
    // through, and made owner-only, under a name ctxlens does not know.
    if meta.nlink() > 1 {
        return Err(refuse(
            path,
            &format!(
                "has {} names (hard links); ctxlens writes only a file of one name",
                meta.nlink()
            ),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

/// Opens `path` to read and append, created 0600 if missing.
pub fn open_append(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(no_follow())
        .open(path)
        .map_err(|e| explain_link(path, e))?;
    own_regular(path, &file, &file.metadata()?)?;
    Ok(file)
}

/// Creates a new file 0600 at `path`; fails if anything is there already.
pub fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(no_follow())
        .open(path)
}

/// Opens a regular file of ours to read, never blocking on a FIFO and never following
/// a link.
pub fn open_read(path: &Path) -> io::Result<File> {
    let nonblocking = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(no_follow() | nonblocking)
        .open(path)
        .map_err(|e| explain_link(path, e))?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(refuse(path, "is not a regular file"));
    }
    Ok(file)
}

/// Makes sure `path` is a folder of ours with mode 0700, creating it if missing.
pub fn folder(path: &Path) -> io::Result<()> {
    match DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => return fs::set_permissions(path, fs::Permissions::from_mode(0o700)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(refuse(path, "is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(refuse(path, "is not a folder"));
    }
    if meta.uid() != euid() {
        return Err(refuse(
            path,
            &format!("belongs to user {}, not to you", meta.uid()),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_foreign_kinds_are_refused_and_modes_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, b"precious\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = open_append(&link).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(fs::read(&target).unwrap(), b"precious\n");
        // A lax file of ours is narrowed to 0600.
        let lax = dir.path().join("lax");
        fs::write(&lax, b"").unwrap();
        fs::set_permissions(&lax, fs::Permissions::from_mode(0o666)).unwrap();
        open_append(&lax).unwrap();
        assert_eq!(fs::metadata(&lax).unwrap().mode() & 0o777, 0o600);
        // A FIFO is not read (and opening it does not block).
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(open_read(&fifo).is_err());
        // Folders: a link is refused, a lax one narrowed.
        let linked = dir.path().join("linked.spill");
        std::os::unix::fs::symlink(dir.path(), &linked).unwrap();
        assert!(folder(&linked).is_err());
        let open_folder = dir.path().join("open.spill");
        DirBuilder::new().mode(0o777).create(&open_folder).unwrap();
        fs::set_permissions(&open_folder, fs::Permissions::from_mode(0o777)).unwrap();
        folder(&open_folder).unwrap();
        assert_eq!(fs::metadata(&open_folder).unwrap().mode() & 0o777, 0o700);
    }
}
