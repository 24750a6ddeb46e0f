//! Work split between threads, its results in order.

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

/// `work` over `items` split into up to `threads` contiguous parts of at least
/// `least` items each, on a thread each (see [`each_in_parallel`]); the parts' results
/// in order. Fewer items than two parts' worth are worked on this thread alone.
pub fn in_parts<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    least: usize,
    work: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let parts = threads.min(items.len() / least.max(1)).max(1);
    if parts == 1 {
        return vec![work(items)];
    }
    each_in_parallel(items.chunks(items.len().div_ceil(parts)).collect(), work)
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
    fn parts_cover_the_items_in_order_and_are_never_too_small() {
        let items: Vec<u32> = (0..10).collect();
        let parts = |threads, least| in_parts(&items, threads, least, <[u32]>::to_vec);
        assert_eq!(parts(2, 4), [vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]]);
        assert_eq!(parts(3, 4), [vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]]);
        for whole in [parts(2, 6), parts(1, 1), parts(0, 0)] {
            assert_eq!(whole, std::slice::from_ref(&items));
        }
        assert_eq!(parts(4, 1).concat(), items);
        assert_eq!(parts(4, 1).len(), 4);
        assert_eq!(in_parts(&[] as &[u32], 4, 1, <[u32]>::len), [0]);
    }
}
