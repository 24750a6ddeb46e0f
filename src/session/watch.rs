//! Waking up when a log or a file beside it changes.
//!
//! notify's inotify backend always asks the kernel for open and close-nowrite events
//! too. A follower's own check of the log (open, read the head, close) would then wake
//! it again at once, and an idle viewer would spin on its own reads. Only events that
//! can change what is read pass: writes, creations, removals and renames.

use notify::event::{EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::path::Path;

/// Whether a file event can change the content of a watched file.
pub(crate) fn is_content_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// Watches the folder that holds `path` (not the file: rotation and deletion replace
/// the file) and calls `wake` on every content change in it. `None` when the platform
/// cannot watch; callers keep polling either way.
pub(crate) fn watch_folder_of(
    path: &Path,
    wake: impl Fn() + Send + 'static,
) -> Option<RecommendedWatcher> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    watching(folder, RecursiveMode::NonRecursive, wake)
}

/// Watches every folder under `root` and calls `wake` on every content change there.
pub(crate) fn watch_tree(
    root: &Path,
    wake: impl Fn() + Send + 'static,
) -> Option<RecommendedWatcher> {
    watching(root, RecursiveMode::Recursive, wake)
}

/// A watcher of `at` that calls `wake` on every content change there.
fn watching(
    at: &Path,
    mode: RecursiveMode,
    wake: impl Fn() + Send + 'static,
) -> Option<RecommendedWatcher> {
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| is_content_change(&e.kind)) {
            wake();
        }
    })
    .ok()?;
    watcher.watch(at, mode).ok()?;
    Some(watcher)
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, MetadataKind};

    #[test]
    fn reads_do_not_wake_and_writes_do() {
        assert!(!is_content_change(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!is_content_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!is_content_change(&EventKind::Modify(
            ModifyKind::Metadata(MetadataKind::AccessTime)
        )));
        assert!(is_content_change(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(is_content_change(&EventKind::Create(CreateKind::File)));
    }
}
