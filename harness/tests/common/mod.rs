//! Helpers shared by the integration tests.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Checks every cell on two threads (the machines have two cores) and
/// returns every problem found, in no particular order.
pub fn problems_on_two_threads<T: Sync>(
    cells: &[T],
    check: impl Fn(&T) -> Vec<String> + Sync,
) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| {
                while let Some(cell) = cells.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let found = check(cell);
                    problems.lock().unwrap().extend(found);
                }
            });
        }
    });
    problems.into_inner().unwrap()
}
