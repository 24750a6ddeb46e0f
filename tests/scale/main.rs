//! Guards that work grows linearly with the input, at small sizes and without a clock:
//! memory is counted by this binary's allocator, SQLite's work by its own step counter.
//! The figures at size live in `cargo bench --bench scale`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[path = "../common/copilot_log.rs"]
mod copilot_log;
use copilot_log::copilot_log;

/// Counts the bytes live and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)]
// SAFETY: every call is passed on to the system allocator unchanged; only counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's layout, as GlobalAlloc::alloc requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement at a time: the counters are the whole process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The most bytes live while `f` ran, beyond those live before it.
fn peak_of<T>(f: impl FnOnce() -> T) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    drop(out);
    peak
}

/// Memory grows with the number of compactions, not its square (each compaction's
/// window once held the list of every compaction before it).
#[test]
fn memory_grows_linearly_with_the_compactions() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let measure = |n: usize| {
        let log = copilot_log(n).into_bytes();
        peak_of(|| {
            let session = ctxlens_core::parse::parse(&log);
            let analysis =
                ctxlens_core::analysis::Analyzer::with_threads(1).analyze(&session, &[], false);
            assert_eq!(analysis.compactions.len(), n);
            (session, analysis)
        })
    };
    let small = measure(300);
    let large = measure(1200);
    let ratio = large as f64 / small as f64;
    // Four times the compactions: about four times the memory; sixteen if quadratic.
    assert!(ratio < 7.0, "{small} B then {large} B: {ratio:.1}×");
}

#[cfg(feature = "opencode")]
/// A database of OpenCode's three tables (no index), then `more` run on it: its
/// folder, its path and a connection.
fn opencode_tables(more: &str) -> (tempfile::TempDir, std::path::PathBuf, rusqlite::Connection) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute_batch(
            "CREATE TABLE session (id text PRIMARY KEY, directory text, title text, time_created integer);
             CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, data text);
             CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer, data text);",
        )
        .unwrap();
    connection.execute_batch(more).unwrap();
    (dir, db, connection)
}

/// An OpenCode database without the indexes OpenCode makes is read in work linear in
/// its rows: never a query per message over every part.
#[cfg(feature = "opencode")]
#[test]
fn an_opencode_session_without_indexes_is_read_in_linear_work() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let work = |n: usize| {
        let (_dir, db, connection) =
            opencode_tables("INSERT INTO session VALUES ('ses_1', '/w', 't', 1);");
        let tx = connection.unchecked_transaction().unwrap();
        for i in 0..n {
            tx.execute(
                "INSERT INTO message VALUES (?1, 'ses_1', ?2, '{\"role\":\"user\"}')",
                rusqlite::params![format!("msg_{i:06}"), i as i64],
            )
            .unwrap();
            tx.execute(
                "INSERT INTO part VALUES (?1, ?2, 'ses_1', ?3, '{\"type\":\"text\",\"text\":\"go on\"}')",
                rusqlite::params![format!("prt_{i:06}"), format!("msg_{i:06}"), i as i64],
            )
            .unwrap();
        }
        tx.commit().unwrap();
        let database = ctxlens::ingest::opencode::Database::open(&db).unwrap();
        let before = database.work();
        let (lines, _) = database.session_lines("ses_1", false).unwrap();
        assert_eq!(lines.iter().filter(|&&b| b == b'\n').count(), n + 1);
        database.work() - before
    };
    let small = work(500).max(1);
    let large = work(2000);
    let ratio = large as f64 / small as f64;
    assert!(
        ratio < 7.0,
        "{small} then {large} thousand steps: {ratio:.1}×"
    );
}

/// Following a database, a commit of one message costs work in proportion to what
/// was added, not to the database: a look between full looks finds added rows by
/// rowid.
#[cfg(feature = "opencode")]
#[test]
fn a_commit_to_a_followed_database_costs_what_it_added() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let look = |sessions: usize| {
        let (dir, db, connection) = opencode_tables(
            "CREATE INDEX message_session_idx ON message(session_id);
             CREATE INDEX part_session_idx ON part(session_id);",
        );
        let tx = connection.unchecked_transaction().unwrap();
        for n in 0..sessions {
            let session = format!("ses_{n:05}");
            tx.execute(
                "INSERT INTO session VALUES (?1, '/w', 't', ?2)",
                rusqlite::params![session, n as i64],
            )
            .unwrap();
            for m in 0..20 {
                let id = format!("msg_{n:05}_{m:02}");
                tx.execute(
                    r#"INSERT INTO message VALUES (?1, ?2, ?3, '{"role":"user"}')"#,
                    rusqlite::params![id, session, m],
                )
                .unwrap();
                tx.execute(
                    r#"INSERT INTO part VALUES (?1, ?2, ?3, ?4, '{"type":"text","text":"go on"}')"#,
                    rusqlite::params![format!("prt_{n:05}_{m:02}"), id, session, m],
                )
                .unwrap();
            }
        }
        tx.commit().unwrap();
        let folder = dir.path().join("state/ctxlens/mirror/opencode-test");
        let database = ctxlens::ingest::opencode::Database::open(&db).unwrap();
        let mut mirror = ctxlens::session::mirror::Mirror::default();
        mirror.refresh(&database, &folder, None).unwrap();
        connection
            .execute_batch(
                r#"INSERT INTO message VALUES ('msg_new', 'ses_00000', 99, '{"role":"user"}');
                   INSERT INTO part VALUES ('prt_new', 'msg_new', 'ses_00000', 99, '{"type":"text","text":"one more"}');"#,
            )
            .unwrap();
        let before = database.work();
        let refreshed = mirror.refresh(&database, &folder, None).unwrap();
        assert_eq!(refreshed.read, 1);
        let look = database.work() - before;
        let before = database.work();
        database.signatures().unwrap();
        (look, database.work() - before)
    };
    // Finding the added rows by rowid and reading the one session that has them costs a
    // small share of one pass over the tables (the small session table is read whole).
    let (look, pass) = look(800);
    assert!(
        look * 4 < pass,
        "a look took {look} thousand steps, a pass {pass}"
    );
}
