//! The folder's scanner: finds the logs under the roots and summarizes each (large logs
//! on threads of their own), again whenever a file changes.

use super::*;

pub(super) fn summarize(root: &Path, path: &Path, modified: SystemTime, several: bool) -> Entry {
    let entry = summarize_name(root, path, modified, several);
    // The counts only: no view model (token rows, marks) for a list entry.
    match crate::tui::snapshot::load_analysed(path) {
        Ok((session, analysis)) => entry.read_from(&session, &analysis),
        Err(e) => Entry {
            read: true,
            unreadable: Some(e.to_string()),
            ..entry
        },
    }
}

/// The entry of a log before it is read, named by its path under its root; with
/// `several` roots, after its root's folder too (names could clash).
pub(super) fn summarize_name(
    root: &Path,
    path: &Path,
    modified: SystemTime,
    several: bool,
) -> Entry {
    let base = root
        .parent()
        .and_then(|p| p.file_name())
        .filter(|_| several)
        .map(|n| Path::new(n).join(root.file_name().unwrap_or_default()));
    let relative = path.strip_prefix(root).unwrap_or(path);
    let name = base
        .map_or_else(|| relative.to_path_buf(), |b| b.join(relative))
        .display()
        .to_string();
    Entry::unread(path, name, modified)
}

/// What says a log's entry is still current: its size and time, and those of its
/// decision sidecar and hook ledger (a held compaction shows in the ledger first).
pub(super) type Signature = (u64, SystemTime, crate::session::followed::Beside);

/// A log this large is read by one reader, one after another: its analysis takes
/// several times its size, and memory a reader thread frees stays with that thread
/// for its next log, not for another's.
pub(super) const LARGE_LOG: u64 = 8 << 20;

/// A log the scanner found: its root, path, size and modification time.
pub(super) type FoundLog<'a> = (&'a PathBuf, PathBuf, u64, SystemTime);

/// Summarizes `files[i]` for every `i` of `unread`, in that order, on every core (up
/// to 4). `on_read` gets each as it is done; when it returns false the readers stop
/// taking work and this returns false.
pub(super) fn read_in_parallel(
    files: &[FoundLog],
    unread: &[usize],
    several: bool,
    mut on_read: impl FnMut(usize, Entry) -> bool,
) -> bool {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let is_large = |i: &usize| files.get(*i).is_some_and(|f| f.2 >= LARGE_LOG);
    let (large, small): (Vec<usize>, Vec<usize>) = unread.iter().partition(|i| is_large(i));
    let next_small = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (done, finished) = std::sync::mpsc::channel::<(usize, Entry)>();
    let cores = ctxlens_core::threads::cores().min(4);
    let mut going = true;
    std::thread::scope(|scope| {
        for reader in 0..cores {
            let (done, next_small, stop) = (done.clone(), &next_small, &stop);
            let (large, small) = (&large, &small);
            scope.spawn(move || {
                // The first reader takes the large logs, then helps with the rest.
                let mine = if reader == 0 { large.as_slice() } else { &[] };
                let shared = std::iter::from_fn(|| {
                    let at = next_small.fetch_add(1, Ordering::Relaxed);
                    small.get(at).copied()
                });
                for i in mine.iter().copied().chain(shared) {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let Some((root, path, _, modified)) = files.get(i) else {
                        return;
                    };
                    let entry = summarize(root, path, *modified, several);
                    if done.send((i, entry)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        for (i, entry) in finished {
            if going && !on_read(i, entry) {
                going = false;
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    going
}

/// Rescans the roots when a file under them changes (or every ten seconds; every two
/// without file events), re-reading only logs whose size or time changed, newest first,
/// and sends what it has at least every 300 ms: a folder of many large transcripts
/// lists at once and fills in.
pub fn spawn_scanner(roots: Vec<PathBuf>, to_app: Sender<Msg>) {
    let several = roots.len() > 1;
    std::thread::spawn(move || {
        let (wake, woken) = std::sync::mpsc::channel::<()>();
        // Kept alive by the loop; without them (no inotify) it rescans every two seconds.
        let watchers: Vec<_> = roots
            .iter()
            .filter_map(|root| {
                let wake = wake.clone();
                crate::session::watch::watch_tree(root, move || {
                    let _ = wake.send(());
                })
            })
            .collect();
        let mut known: HashMap<PathBuf, (Signature, Entry)> = HashMap::new();
        // What the app was sent last: nothing yet, so that an empty folder's first
        // (empty) list goes out and the app knows the scan ended.
        let mut last: Option<Vec<Entry>> = None;
        let send = |entries: &Vec<Entry>, last: &mut Option<Vec<Entry>>| {
            if last.as_ref() != Some(entries) {
                *last = Some(entries.clone());
                return to_app.send(Msg::Folder(entries.clone())).is_ok();
            }
            true
        };
        loop {
            let mut files: Vec<FoundLog> = roots
                .iter()
                .flat_map(|root| find_logs(root).into_iter().map(move |p| (root, p)))
                .filter_map(|(root, path)| {
                    let meta = std::fs::metadata(&path).ok()?;
                    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    Some((root, path, meta.len(), modified))
                })
                .collect();
            files.sort_by(|a, b| b.3.cmp(&a.3).then(a.1.cmp(&b.1)));
            let signature = |path: &Path, len: u64, modified: SystemTime| -> Signature {
                (len, modified, crate::session::followed::Beside::of(path))
            };
            let fresh = |path: &Path, len: u64, modified: SystemTime| {
                known
                    .get(path)
                    .filter(|(s, _)| *s == signature(path, len, modified))
                    .map(|(_, e)| e.clone())
            };
            let mut entries: Vec<Entry> = files
                .iter()
                .map(|(root, path, len, modified)| {
                    fresh(path, *len, *modified)
                        .unwrap_or_else(|| summarize_name(root, path, *modified, several))
                })
                .collect();
            if !send(&entries, &mut last) {
                return;
            }
            // Read the logs not read yet on every core, most recent first; the list is
            // sent as it fills in.
            let unread: Vec<usize> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.read)
                .map(|(i, _)| i)
                .collect();
            let mut sent = std::time::Instant::now();
            let stopped = !read_in_parallel(&files, &unread, several, |i, mut entry| {
                let Some((_, path, len, modified)) = files.get(i) else {
                    return true;
                };
                // It changed while we watched: live, whatever its records say.
                if known.contains_key(path) {
                    entry.live = age(*modified) < Duration::from_secs(60);
                    entry.activity = entry.activity.max(*modified);
                }
                known.insert(
                    path.clone(),
                    (signature(path, *len, *modified), entry.clone()),
                );
                if let Some(slot) = entries.get_mut(i) {
                    *slot = entry;
                }
                if sent.elapsed() > Duration::from_millis(300) {
                    sent = std::time::Instant::now();
                    // The app is gone: let the readers run out and stop.
                    return send(&entries, &mut last);
                }
                true
            });
            if stopped {
                return;
            }
            if !send(&entries, &mut last) {
                return;
            }
            // File events wake the rescan; without them it looks every two seconds.
            let fallback = if watchers.is_empty() {
                Duration::from_secs(2)
            } else {
                Duration::from_secs(10)
            };
            // A burst of writes is one rescan.
            if woken.recv_timeout(fallback).is_ok() {
                std::thread::sleep(Duration::from_millis(50));
                while woken.try_recv().is_ok() {}
            }
        }
    });
}
