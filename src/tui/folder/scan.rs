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
pub(super) struct FoundLog<'a> {
    /// The root it was found under.
    root: &'a PathBuf,
    path: PathBuf,
    len: u64,
    modified: SystemTime,
}

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
    let is_large = |i: &usize| files.get(*i).is_some_and(|f| f.len >= LARGE_LOG);
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
                    let Some(found) = files.get(i) else {
                        return;
                    };
                    let entry = summarize(found.root, &found.path, found.modified, several);
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
        let mut scanner = Scanner {
            several: roots.len() > 1,
            roots,
            to_app,
            known: HashMap::new(),
            last: None,
        };
        while scanner.scan() {
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

/// What the scanner keeps between scans.
struct Scanner {
    roots: Vec<PathBuf>,
    several: bool,
    to_app: Sender<Msg>,
    /// Each log read, with its signature when it was read.
    known: HashMap<PathBuf, (Signature, Entry)>,
    /// What the app was sent last: nothing yet, so that an empty folder's first
    /// (empty) list goes out and the app knows the scan ended.
    last: Option<Vec<Entry>>,
}

impl Scanner {
    /// One scan: the list as known at once, then filled in as the logs not read yet
    /// are read. False when the app has gone.
    fn scan(&mut self) -> bool {
        let roots = std::mem::take(&mut self.roots);
        let files = found_logs(&roots);
        let mut entries = self.entries_known(&files);
        let going = self.send(&entries) && self.read_unread(&files, &mut entries);
        let going = going && self.send(&entries);
        self.roots = roots;
        going
    }

    /// An entry for each of `files`: the one read before when the log has not changed
    /// since, its name alone otherwise (read next).
    fn entries_known(&self, files: &[FoundLog]) -> Vec<Entry> {
        files
            .iter()
            .map(|found| {
                self.known
                    .get(&found.path)
                    .filter(|(s, _)| *s == signature(found))
                    .map(|(_, e)| e.clone())
                    .unwrap_or_else(|| {
                        summarize_name(found.root, &found.path, found.modified, self.several)
                    })
            })
            .collect()
    }

    /// Reads the logs of `entries` not read yet, on every core, most recent first; the
    /// list is sent as it fills in. False when the app has gone.
    fn read_unread(&mut self, files: &[FoundLog], entries: &mut [Entry]) -> bool {
        let unread: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.read)
            .map(|(i, _)| i)
            .collect();
        let mut sent = std::time::Instant::now();
        read_in_parallel(files, &unread, self.several, |i, mut entry| {
            let Some(found) = files.get(i) else {
                return true;
            };
            // It changed while we watched: live, whatever its records say.
            if self.known.contains_key(&found.path) {
                entry.live = age(found.modified) < Duration::from_secs(60);
                entry.activity = entry.activity.max(found.modified);
            }
            self.known
                .insert(found.path.clone(), (signature(found), entry.clone()));
            if let Some(slot) = entries.get_mut(i) {
                *slot = entry;
            }
            if sent.elapsed() > Duration::from_millis(300) {
                sent = std::time::Instant::now();
                // The app is gone: let the readers run out and stop.
                return self.send(entries);
            }
            true
        })
    }

    /// Sends `entries` unless they are what was sent last; false when the app has
    /// gone.
    fn send(&mut self, entries: &[Entry]) -> bool {
        if self.last.as_deref() == Some(entries) {
            return true;
        }
        self.last = Some(entries.to_vec());
        self.to_app.send(Msg::Folder(entries.to_vec())).is_ok()
    }
}

/// The logs under `roots`, newest first, each with its root, size and time.
fn found_logs(roots: &[PathBuf]) -> Vec<FoundLog<'_>> {
    let mut files: Vec<FoundLog> = roots
        .iter()
        .flat_map(|root| find_logs(root).into_iter().map(move |p| (root, p)))
        .filter_map(|(root, path)| {
            let meta = std::fs::metadata(&path).ok()?;
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            Some(FoundLog {
                root,
                path,
                len: meta.len(),
                modified,
            })
        })
        .collect();
    files.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
    files
}

/// What says a log changed since it was read: its size and time, and those of the
/// files beside it.
fn signature(found: &FoundLog) -> Signature {
    (
        found.len,
        found.modified,
        crate::session::followed::Beside::of(&found.path),
    )
}
