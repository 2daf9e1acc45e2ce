//! Independent jobs on a bounded number of threads (the test machines have few cores, shared).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The number of jobs to run at once: `P4DP_TEST_JOBS` if set to a positive number, else 2.
pub fn jobs() -> usize {
    std::env::var("P4DP_TEST_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n > 0)
        .unwrap_or(2)
}

/// `f` applied to every item on at most `jobs` threads; the results in the items' order.
pub fn map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(items.len().max(1)) {
            s.spawn(|| loop {
                // Relaxed: the counter only hands out distinct indices; the results are published
                // through the mutex and the scope's join.
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order_and_runs_every_item() {
        let items: Vec<u32> = (0..50).collect();
        assert_eq!(
            super::map(&items, 3, |x| x * 2),
            (0..50).map(|x| x * 2).collect::<Vec<_>>()
        );
        assert!(super::map(&Vec::<u32>::new(), 2, |x| *x).is_empty());
    }
}
