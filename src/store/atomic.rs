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

/// Appends one line in one write and flushes it, creating the file if needed.
pub fn append_line(path: &Path, line: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    file.lock()?;
    let mut bytes = Vec::with_capacity(line.len() + 2);
    let len = file.metadata()?.len();
    if len > 0 {
        // Keep a torn last line (from a crashed writer) on its own line.
        let mut last = [0u8; 1];
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut last, len - 1)?;
        if last[0] != b'\n' {
            bytes.push(b'\n');
        }
    }
    bytes.extend_from_slice(line);
    bytes.push(b'\n');
    let result = file.write_all(&bytes).and_then(|()| file.sync_data());
    let _ = file.unlock();
    result
}
