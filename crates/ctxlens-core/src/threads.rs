//! Work split between threads, its results in order.

/// The cores this process may use (1 where that cannot be told), asked of the system
/// once: each asking reads the process's control-group files, and a command asked
/// three times.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES
        .get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// `work` over each of `items`, the first on this thread and each other on a thread of
/// its own, and the results in the order of the items. A panic on one of the threads
/// is raised again here.
///
/// The first item stays on this thread because memory a thread allocates goes to a
/// pool of its own (an arena of the C allocator), which other threads do not reuse:
/// every extra thread that builds large results raises the peak (measured in the TUI).
pub fn each_in_parallel<T: Send, R: Send>(items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return Vec::new();
    };
    std::thread::scope(|scope| {
        let work = &work;
        let running: Vec<_> = items.map(|item| scope.spawn(move || work(item))).collect();
        let mut results = Vec::with_capacity(running.len() + 1);
        results.push(work(first));
        results.extend(running.into_iter().map(|thread| {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }));
        results
    })
}

/// `here()` on this thread and `elsewhere()` on another, unless this thread is done
/// with `here` before the other starts: then this one runs `elsewhere` too, rather than
/// wait for a thread to start (see [`in_parts`]).
pub fn both<A, B: Send>(here: impl FnOnce() -> A, elsewhere: impl FnOnce() -> B + Send) -> (A, B) {
    let task = std::sync::Mutex::new(Some(elsewhere));
    let take = || {
        let mut task = task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        task.take()
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(|| take().map(|elsewhere| elsewhere()));
        let a = here();
        let b_here = take().map(|elsewhere| elsewhere());
        let b_there = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match b_here.or(b_there) {
            Some(b) => (a, b),
            // This thread takes the task if the other has not: one of them ran it.
            None => unreachable!("the task was left untaken"),
        }
    })
}

/// `work` over `items` in contiguous chunks, on up to `threads` threads (this one and
/// others), when there are at least `least` items for each; the chunks' results in
/// order. Each thread takes the next chunk no other has taken, so a thread that starts
/// late takes fewer: on this project's machine a new thread can wait a millisecond or
/// two for a core, and with the items split in halves this thread, done with its half,
/// waited for the other to start and run all of its own.
pub fn in_parts<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    least: usize,
    work: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let parts = threads.min(items.len() / least.max(1)).max(1);
    if parts == 1 {
        return vec![work(items)];
    }
    let chunks: Vec<&[T]> = items
        .chunks(items.len().div_ceil(parts * CHUNKS_PER_THREAD))
        .collect();
    let next = AtomicUsize::new(0);
    let take = |()| {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(chunk) = chunks.get(at) else {
                return done;
            };
            done.push((at, work(chunk)));
        }
    };
    let mut results: Vec<(usize, R)> = each_in_parallel(vec![(); parts], take)
        .into_iter()
        .flatten()
        .collect();
    results.sort_unstable_by_key(|&(at, _)| at);
    results.into_iter().map(|(_, result)| result).collect()
}

/// Chunks per thread in [`in_parts`]: enough that a late thread's share is small,
/// few enough that taking one costs nothing beside its work.
const CHUNKS_PER_THREAD: usize = 8;

/// Jobs worked on a number of threads, each taking the next job as it is free, whose
/// results are taken in the order the jobs were handed out (a result that is done
/// before an older one waits for it). Its threads end when its jobs' side is dropped
/// and the jobs handed out are done. The two sides may go to two threads
/// ([`InOrder::split`]).
pub struct InOrder<J, R> {
    jobs: Jobs<J>,
    results: InOrderResults<R>,
}

/// Jobs (and results) waiting per thread of an [`InOrder`].
const WAITING_PER_THREAD: usize = 2;

/// The side of an [`InOrder`] that hands jobs out.
pub struct Jobs<J> {
    queue: std::sync::mpsc::SyncSender<(usize, J)>,
    handed_out: usize,
}

/// The side of an [`InOrder`] that takes results, in the order the jobs went out.
pub struct InOrderResults<R> {
    done: std::sync::mpsc::Receiver<(usize, std::thread::Result<R>)>,
    taken: usize,
    arrived: std::collections::BTreeMap<usize, R>,
}

impl<J: Send, R: Send> InOrder<J, R> {
    /// `threads` threads of `scope` that run `work` on each job handed out.
    pub fn start<'scope, 'env: 'scope, W>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        threads: usize,
        work: &'env W,
    ) -> Self
    where
        W: Fn(J) -> R + Sync,
        J: 'scope,
        R: 'scope,
    {
        // A few jobs wait for each thread, each way: a thread that hands out more
        // waits (one that read ahead of the workers took the cores from them).
        let waiting = threads.max(1) * WAITING_PER_THREAD;
        let (jobs, queue) = std::sync::mpsc::sync_channel::<(usize, J)>(waiting);
        let (done, results) = std::sync::mpsc::sync_channel(waiting);
        let queue = std::sync::Arc::new(std::sync::Mutex::new(queue));
        for _ in 0..threads {
            let (queue, done) = (std::sync::Arc::clone(&queue), done.clone());
            scope.spawn(move || loop {
                // The lock is held while waiting: the others would wait for a job too.
                let next = queue.lock().map(|queue| queue.recv());
                let Ok(Ok((number, job))) = next else {
                    break;
                };
                // A panic goes to the thread that takes this result, which raises it
                // again (the others would wait for the result for ever).
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(job)));
                if done.send((number, result)).is_err() {
                    break;
                }
            });
        }
        InOrder {
            jobs: Jobs {
                queue: jobs,
                handed_out: 0,
            },
            results: InOrderResults {
                done: results,
                taken: 0,
                arrived: std::collections::BTreeMap::new(),
            },
        }
    }

    /// Hands `job` out; false if the threads are gone.
    pub fn hand_out(&mut self, job: J) -> bool {
        self.jobs.hand_out(job)
    }

    /// The jobs handed out so far.
    pub fn handed_out(&self) -> usize {
        self.jobs.handed_out
    }

    /// The results taken so far.
    pub fn taken(&self) -> usize {
        self.results.taken
    }

    /// The result of the oldest job whose result is not taken yet, once it is done (a
    /// panic in that job is raised here); `None` if every result handed out was taken,
    /// or the threads are gone.
    pub fn next_result(&mut self) -> Option<R> {
        if self.results.taken == self.jobs.handed_out {
            return None;
        }
        self.results.next()
    }

    /// The two sides, for a thread that hands jobs out and another that takes the
    /// results: the results end once the jobs' side is dropped and every job is done.
    pub fn split(self) -> (Jobs<J>, InOrderResults<R>) {
        (self.jobs, self.results)
    }
}

impl<J> Jobs<J> {
    /// Hands `job` out, once a thread is free for it or few wait; false if the threads
    /// are gone.
    pub fn hand_out(&mut self, job: J) -> bool {
        if self.queue.send((self.handed_out, job)).is_err() {
            return false;
        }
        self.handed_out += 1;
        true
    }
}

impl<R> Iterator for InOrderResults<R> {
    type Item = R;

    /// The result of the oldest job whose result is not taken yet, once it is done (a
    /// panic in that job is raised here); `None` once the threads are gone.
    fn next(&mut self) -> Option<R> {
        while !self.arrived.contains_key(&self.taken) {
            let (number, result) = self.done.recv().ok()?;
            let result = result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            self.arrived.insert(number, result);
        }
        let result = self.arrived.remove(&self.taken);
        self.taken += 1;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_order_of_the_items() {
        let slow_first = |n: u64| {
            std::thread::sleep(std::time::Duration::from_millis(20 / (n + 1)));
            (n, std::thread::current().id())
        };
        let results = each_in_parallel((0..5).collect(), slow_first);
        let order: Vec<u64> = results.iter().map(|(n, _)| *n).collect();
        assert_eq!(order, [0, 1, 2, 3, 4]);
        // The first item is worked on this thread; each other on one of its own.
        let here = std::thread::current().id();
        assert_eq!(results.iter().filter(|(_, id)| *id == here).count(), 1);
        assert_eq!(results.first().map(|(_, id)| *id), Some(here));
        assert!(each_in_parallel(Vec::<u64>::new(), slow_first).is_empty());
    }

    #[test]
    fn chunks_cover_the_items_in_order_and_split_only_with_enough() {
        let items: Vec<u32> = (0..100).collect();
        let parts = |threads, least| in_parts(&items, threads, least, <[u32]>::to_vec);
        // Too few items for two threads, or one thread: one chunk, on this thread.
        for whole in [parts(2, 60), parts(1, 1), parts(0, 0)] {
            assert_eq!(whole, std::slice::from_ref(&items));
        }
        for (threads, least) in [(2, 40), (3, 4), (4, 1)] {
            let chunks = parts(threads, least);
            assert_eq!(chunks.concat(), items);
            assert!(chunks.len() > 1 && chunks.len() <= threads * CHUNKS_PER_THREAD);
            assert!(chunks.iter().all(|chunk| !chunk.is_empty()));
        }
        assert_eq!(in_parts(&[] as &[u32], 4, 1, <[u32]>::len), [0]);
    }

    #[test]
    fn results_come_in_the_order_jobs_went_out() {
        // The first job waits until the others are done (on the other thread): its
        // result arrives last, and the others' wait for it.
        let finished = std::sync::Mutex::new(Vec::new());
        let work = |job: u64| {
            let started = std::time::Instant::now();
            while job == 0
                && finished.lock().unwrap().len() < 5
                && started.elapsed() < std::time::Duration::from_secs(5)
            {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            finished.lock().unwrap().push(job);
            job
        };
        let results: Vec<u64> = std::thread::scope(|scope| {
            let mut pool = InOrder::start(scope, 2, &work);
            assert_eq!(pool.next_result(), None);
            for job in 0..6 {
                assert!(pool.hand_out(job));
            }
            let results = std::iter::from_fn(|| pool.next_result()).collect();
            assert_eq!((pool.handed_out(), pool.taken()), (6, 6));
            results
        });
        assert_eq!(finished.into_inner().unwrap().last(), Some(&0));
        assert_eq!(results, [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_panic_in_a_job_is_raised_where_its_result_is_taken() {
        let work = |job: u32| {
            assert!(job != 1, "job 1 fails");
            job
        };
        let caught = std::panic::catch_unwind(|| {
            std::thread::scope(|scope| {
                let mut pool = InOrder::start(scope, 2, &work);
                (0..3).for_each(|job| assert!(pool.hand_out(job)));
                (pool.next_result(), pool.next_result())
            })
        });
        assert!(caught.is_err());
    }

    #[test]
    fn both_run_each_task_once() {
        let here = std::thread::current().id();
        let runs = std::sync::atomic::AtomicUsize::new(0);
        let count = || runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(both(|| 1, || (count(), 2)).0, 1);
        assert_eq!(runs.into_inner(), 1);
        // This thread is done long after the other could start: the other runs it.
        let slow = || std::thread::sleep(std::time::Duration::from_millis(50));
        let (_, ran_on) = both(slow, || std::thread::current().id());
        assert_ne!(ran_on, here);
    }

    #[test]
    fn a_thread_that_starts_late_leaves_its_chunks_to_this_one() {
        // Chunks that wait until this thread has taken most: the others start late,
        // as a new thread can, and every chunk is still worked once, in order.
        let items: Vec<u32> = (0..64).collect();
        let here = std::thread::current().id();
        let slow_elsewhere = |chunk: &[u32]| {
            if std::thread::current().id() != here {
                std::thread::sleep(std::time::Duration::from_millis(30));
            }
            (chunk.to_vec(), std::thread::current().id())
        };
        let results = in_parts(&items, 2, 1, slow_elsewhere);
        let worked: Vec<u32> = results
            .iter()
            .flat_map(|(chunk, _)| chunk.clone())
            .collect();
        assert_eq!(worked, items);
        let on_this_thread = results.iter().filter(|(_, id)| *id == here).count();
        assert!(
            on_this_thread > results.len() / 2,
            "{on_this_thread} of {}",
            results.len()
        );
    }
}
