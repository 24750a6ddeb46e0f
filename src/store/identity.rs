//! This machine's ctxlens id: 16 random bytes, made once and kept owner-only in
//! `$XDG_STATE_HOME/ctxlens/machine-id` (`~/.local/state`). `ship` names the file each
//! log comes from with it, so two hosts that share a name (cloned images, containers)
//! never take each other's subjects for their own.

use super::{atomic, private};
use std::io::{self, Read};
use std::path::PathBuf;

fn path() -> io::Result<PathBuf> {
    Ok(super::mirror::state_folder()?.join("machine-id"))
}

/// The id, made on first use.
pub fn machine_id() -> io::Result<String> {
    let path = path()?;
    match private::open_read(&path) {
        Ok(mut file) => {
            let mut text = String::new();
            file.read_to_string(&mut text)?;
            let id = text.trim();
            if id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Ok(id.to_owned());
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        if let Some(base) = dir.parent() {
            std::fs::create_dir_all(base)?;
        }
        private::folder(dir)?;
    }
    atomic::write(&path, format!("{id}\n").as_bytes())?;
    Ok(id)
}
