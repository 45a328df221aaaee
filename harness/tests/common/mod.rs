//! Helpers shared by the integration tests.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use dve_frontend::model::{NextState, SuccBuf};
use harness::check::Trace;

/// Checks that a counterexample starts in the initial state and that
/// every step of it is an enabled transition of the previous state.
#[allow(dead_code)] // not every test file replays
pub fn replay(m: &dyn NextState, t: &Trace) -> Result<(), String> {
    if t.initial != m.initial_vec() {
        return Err("the trace does not start in the initial state".into());
    }
    let mut buf = SuccBuf::new(m.state_len());
    for (i, step) in t.steps.iter().enumerate() {
        m.successors(t.state(i), &mut buf);
        let found = buf
            .iter()
            .any(|(e, s)| e.label == step.label && e.error == step.error && s == &step.state[..]);
        if !found {
            return Err(format!("step {} is not an enabled transition", i + 1));
        }
    }
    Ok(())
}

/// Checks every cell on two threads (the machines have two cores) and
/// returns every problem found, in no particular order.
#[allow(dead_code)] // not every test file checks cells
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
