//! Writes that a crash cannot tear and that never go through a link an attacker
//! planted: whole files replaced by rename, lines appended under a lock and undone when
//! they do not fit.

use super::private;
use std::fs::{self, DirBuilder, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Replaces the file at `path` with `bytes`: a new file beside it (created 0600,
/// exclusively), flushed, given the old file's mode and owner, renamed over it, the
/// folder flushed. A link at `path` is written through to its target, which is what a
/// person who linked their settings file expects; a file nobody may write is refused.
///
/// Run as root (`sudo -E ctxlens hook … install`), the file keeps its owner (a new one
/// gets its folder's), so the agent can still read its own settings; run as anyone
/// else, a file another user owns is refused rather than taken over.
pub(crate) fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let path = resolve_link(path)?;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&folder)?;
    let me = private::euid();
    let (mode, owner) = match fs::metadata(&path) {
        Ok(meta) if meta.mode() & 0o200 == 0 => {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{}: read-only; not touched", path.display()),
            ))
        }
        Ok(meta) if meta.uid() != me && me != 0 => {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                "{}: owned by user {}, not by you (user {me}); not touched: run this as its owner",
                path.display(),
                meta.uid()
            ),
            ))
        }
        Ok(meta) => (meta.mode() & 0o7777, (meta.uid(), meta.gid())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let folder = fs::metadata(&folder)?;
            (0o600, (folder.uid(), folder.gid()))
        }
        Err(e) => return Err(e),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    create_then_rename(&folder, &name, |file| {
        file.write_all(bytes)?;
        if me == 0 && owner != (me, 0) {
            rustix::fs::fchown(
                &*file,
                Some(rustix::fs::Uid::from_raw(owner.0)),
                Some(rustix::fs::Gid::from_raw(owner.1)),
            )?;
        }
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        Ok((path.clone(), ()))
    })
}

/// The one way a whole file is written here: a new file in `folder` (created 0600,
/// exclusively, under a name [`orphan_writer`] knows), filled by `fill`, flushed,
/// renamed to the path `fill` names, the folder flushed. A crash leaves the old file or
/// the new one, never a torn one; on an error the temporary file is removed.
pub(crate) fn create_then_rename<T>(
    folder: &Path,
    stem: &str,
    fill: impl FnOnce(&mut File) -> io::Result<(PathBuf, T)>,
) -> io::Result<T> {
    let temp = folder.join(format!(
        ".{stem}{TEMP_MARK}{}-{}",
        std::process::id(),
        nanos()
    ));
    let result = (|| {
        let mut file = private::create_new(&temp)?;
        let (to, value) = fill(&mut file)?;
        file.sync_all()?;
        fs::rename(&temp, to)?;
        File::open(folder)?.sync_all()?;
        Ok(value)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// What names a temporary file of [`create_then_rename`], before its writer's pid.
const TEMP_MARK: &str = ".ctxlens-";

/// The pid of the writer whose temporary file `name` is, when that writer is gone: a
/// file nobody will finish. Asked of the kernel (a signal-0 probe), so it holds where
/// there is no `/proc`; a process of another user is alive too.
pub(crate) fn orphan_writer(name: &str) -> Option<i32> {
    let (_, rest) = name.strip_prefix('.')?.rsplit_once(TEMP_MARK)?;
    let pid: i32 = rest.split('-').next()?.parse().ok()?;
    let alive = match rustix::process::Pid::from_raw(pid) {
        Some(p) => !matches!(
            rustix::process::test_kill_process(p),
            Err(rustix::io::Errno::SRCH)
        ),
        None => true,
    };
    (!alive).then_some(pid)
}

/// The file a link at `path` points to (followed to the end), or `path` itself. A link
/// whose target is missing is refused: writing through it would create a file (and
/// folders) wherever the link points.
fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    let mut followed = false;
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
                followed = true;
            }
            Err(e) if followed && e.kind() == io::ErrorKind::NotFound => {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "a link to {}, which does not exist; not touched",
                        path.display()
                    ),
                ))
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of links",
        path.display()
    )))
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Opens `path` for appending (created 0600 if needed, never through a link, ours only)
/// and runs `f` while holding an exclusive advisory lock on it, so concurrent writers
/// take turns.
pub(crate) fn with_lock<T>(
    path: &Path,
    f: impl FnOnce(&mut File) -> io::Result<T>,
) -> io::Result<T> {
    let mut file = private::open_append(path)?;
    file.lock()?;
    let result = f(&mut file);
    let _ = file.unlock();
    result
}

/// Appends one line to a file whose lock the caller holds, in one write, then flushes
/// it. A torn last line (from a crashed writer) is first closed with a newline, so the
/// new line stands on its own. When the write or the flush fails (a full disk), the
/// file is cut back to its length before, so a failure means nothing was recorded.
pub(crate) fn append_locked(file: &mut File, line: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut bytes = Vec::with_capacity(line.len() + 2);
    let len = file.metadata()?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1)?;
        if last[0] != b'\n' {
            bytes.push(b'\n');
        }
    }
    bytes.extend_from_slice(line);
    bytes.push(b'\n');
    let written = file.write_all(&bytes).and_then(|()| file.sync_data());
    if let Err(e) = written {
        let undone = file.set_len(len).and_then(|()| file.sync_data());
        return Err(match undone {
            Ok(()) => e,
            Err(undo) => io::Error::new(
                e.kind(),
                format!("{e}; cutting back the partial line failed too: {undo}"),
            ),
        });
    }
    Ok(())
}

/// Appends one line under the lock, creating the file if needed.
pub(crate) fn append_line(path: &Path, line: &[u8]) -> io::Result<()> {
    with_lock(path, |file| append_locked(file, line))
}

/// The whole of a file of ours, read without following a link and without blocking on
/// a FIFO; `None` when it does not exist.
pub(crate) fn read_private(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match private::open_read(path) {
        Ok(mut file) => {
            let mut bytes = Vec::new();
            file.seek(SeekFrom::Start(0))?;
            file.read_to_end(&mut bytes)?;
            Ok(Some(bytes))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}
