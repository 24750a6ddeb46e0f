//! The spill store (docs/store.md): regions stored by SHA-256 in `<log>.spill/`, written
//! atomically, checked on every read.

use super::paths::spill_dir;
use super::private;
use sha2::{Digest, Sha256};
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const PREFIX: &str = "sha256:";

/// `sha256:<64 lowercase hex>`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handle(String);

impl Handle {
    pub fn parse(text: &str) -> Option<Handle> {
        let hex = text.strip_prefix(PREFIX)?;
        let valid = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        valid.then(|| Handle(hex.to_owned()))
    }

    /// The handle of bytes whose SHA-256 is `digest`.
    pub fn of_digest(digest: &[u8]) -> Handle {
        Handle(hex(digest))
    }

    pub fn hex(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", self.0)
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Copies `region` into the spill store of `log` and returns its handle. The bytes go to
/// a hidden temporary file that is flushed, then renamed to its hash, then the folder is
/// flushed: a crash leaves either no spill or a complete one.
pub(crate) fn store(log: &Path, mut region: impl Read) -> io::Result<Handle> {
    let dir = spill_dir(log);
    let in_dir = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", dir.display()));
    private::folder(&dir).map_err(in_dir)?;
    remove_orphans(&dir);
    super::atomic::create_then_rename(&dir, "incoming", |file| {
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = region.read(&mut buf)?;
            if n == 0 {
                break;
            }
            let read = buf.get(..n).unwrap_or_default();
            hasher.update(read);
            file.write_all(read)?;
        }
        file.set_permissions(fs::Permissions::from_mode(0o400))?;
        let handle = Handle::of_digest(&hasher.finalize());
        Ok((dir.join(handle.hex()), handle))
    })
    .map_err(in_dir)
}

/// Temporary files of writers that died mid-spill (killed `decide`): their process is
/// gone, so nobody will finish them.
fn remove_orphans(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if super::atomic::orphan_writer(&entry.file_name().to_string_lossy()).is_some() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Why a spill could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{}: no such spill", .0.display())]
    Missing(PathBuf),
    #[error("{}: corrupt spill, its content hashes to sha256:{actual}; nothing was printed", path.display())]
    Corrupt { path: PathBuf, actual: String },
    #[error("{path}: {source}", path = .0.display(), source = .1)]
    Io(PathBuf, #[source] io::Error),
    #[error("{path}: {source}", path = .0.display(), source = .1)]
    Server(PathBuf, #[source] crate::store::StoreError),
}

/// The spill of `handle`, opened and checked: its bytes (streamed, never all in memory)
/// still hash to the handle. The file is positioned at its start. A link, a FIFO or a
/// device planted in its place is refused.
pub(crate) fn open_verified(log: &Path, handle: &Handle) -> Result<File, ReadError> {
    let path = spill_dir(log).join(handle.hex());
    let mut file = match private::open_read(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadError::Missing(path)),
        Err(e) => return Err(ReadError::Io(path, e)),
    };
    let mut hasher = Sha256::new();
    let io_error = |path: &Path, e| ReadError::Io(path.to_path_buf(), e);
    io::copy(&mut file, &mut HashWriter(&mut hasher)).map_err(|e| io_error(&path, e))?;
    let actual = hex(&hasher.finalize());
    if actual != handle.hex() {
        return Err(ReadError::Corrupt { path, actual });
    }
    file.seek(SeekFrom::Start(0))
        .map_err(|e| io_error(&path, e))?;
    Ok(file)
}

/// Feeds what is written to a hasher.
struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The spilled bytes of `handle`, after checking that they still hash to it.
pub(crate) fn read(log: &Path, handle: &Handle) -> Result<Vec<u8>, ReadError> {
    let path = spill_dir(log).join(handle.hex());
    let mut file = open_verified(log, handle)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(path, e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        let handle = store(&log, &b"region bytes\n"[..]).unwrap();
        assert_eq!(
            handle.to_string(),
            "sha256:596b1c725bc1920bf6a97d4e4fc81a49e46c740908ac2679e12ed7eb703e9473"
        );
        assert_eq!(read(&log, &handle).unwrap(), b"region bytes\n");
        let mode = fs::metadata(spill_dir(&log)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let path = spill_dir(&log).join(handle.hex());
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o400
        );
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(&path, b"region bytes, edited\n").unwrap();
        assert!(matches!(
            read(&log, &handle),
            Err(ReadError::Corrupt { .. })
        ));
    }

    #[test]
    fn handles_are_strict() {
        assert!(Handle::parse(&format!("sha256:{}", "a".repeat(64))).is_some());
        assert!(Handle::parse(&format!("sha256:{}", "A".repeat(64))).is_none());
        assert!(Handle::parse(&format!("sha1:{}", "a".repeat(64))).is_none());
        assert!(Handle::parse("sha256:abc").is_none());
        assert!(Handle::parse(&format!("sha256:../{}", "a".repeat(61))).is_none());
    }
}
