//! Whole-file writes that a crash cannot tear: a hidden temporary file beside the target,
//! flushed, renamed over it, and the folder flushed.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(folder)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = folder.join(format!(".{name}.ctxlens-{}", std::process::id()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        File::open(folder)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Opens `path` for appending (created if needed) and runs `f` while holding an
/// exclusive advisory lock on it, so concurrent writers take turns.
pub fn with_lock<T>(path: &Path, f: impl FnOnce(&mut File) -> io::Result<T>) -> io::Result<T> {
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    file.lock()?;
    let result = f(&mut file);
    let _ = file.unlock();
    result
}

/// Appends one line to a file whose lock the caller holds, in one write, then flushes
/// it. A torn last line (from a crashed writer) is first closed with a newline, so the
/// new line stands on its own.
pub fn append_locked(file: &mut File, line: &[u8]) -> io::Result<()> {
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
    file.write_all(&bytes)?;
    file.sync_data()
}

/// Appends one line under the lock, creating the file if needed.
pub fn append_line(path: &Path, line: &[u8]) -> io::Result<()> {
    with_lock(path, |file| append_locked(file, line))
}
