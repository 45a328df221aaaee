//! Helpers shared by the integration tests.

#[allow(dead_code)] // the tests of BEEM's properties use it
pub mod beem;
#[allow(dead_code)] // each test file uses some of it
pub mod dvemc;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{Label, ModelInfo, NextState, SuccBuf};
use dvemc_run::algo::check::Trace;
use dvemc_run::model::beem::Beem;

/// The BEEM suite (`../shared/beem`, or `BEEM_DIR`).
#[allow(dead_code)] // not every test file reads BEEM
pub fn beem() -> Beem {
    Beem::locate(None).unwrap_or_else(|e| panic!("the BEEM suite is needed for this test: {e}"))
}

/// A model of `beem/examples`, for the interpreter.
#[allow(dead_code)] // not every test file loads the examples
pub fn example_model(name: &str) -> Interpreter {
    let path = dvemc::example(name);
    let model = dve_frontend::load_file(path.as_ref()).unwrap_or_else(|e| panic!("{path}: {e}"));
    Interpreter::new(model)
}

/// An explicit graph over `u32` node numbers (4-byte states, node 0
/// initial): node `i`'s transitions lead to `succ[i]`, in order, the
/// `k`-th labelled `local(k)`; those listed in `errors` as `(i, k)` are
/// error transitions.
#[allow(dead_code)] // not every test file builds graphs
pub struct Graph {
    pub info: ModelInfo,
    pub succ: Vec<Vec<u32>>,
    pub errors: Vec<(u32, usize)>,
}

#[allow(dead_code)]
impl Graph {
    pub fn new(name: &str, succ: Vec<Vec<u32>>) -> Graph {
        Graph {
            info: ModelInfo {
                name: name.into(),
                state_len: 4,
                ..Default::default()
            },
            succ,
            errors: Vec::new(),
        }
    }

    /// The same graph with transition `k` of node `i` an error for each
    /// `(i, k)` of `errors`.
    pub fn with_errors(self, errors: &[(u32, usize)]) -> Graph {
        Graph {
            errors: errors.to_vec(),
            ..self
        }
    }
}

impl NextState for Graph {
    fn info(&self) -> &ModelInfo {
        &self.info
    }
    fn initial_state(&self, out: &mut [u8]) {
        out.copy_from_slice(&0u32.to_le_bytes());
    }
    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        out.clear();
        let node = u32::from_le_bytes(src.try_into().expect("4-byte state"));
        for (k, &t) in self.succ[node as usize].iter().enumerate() {
            let error = self.errors.contains(&(node, k));
            out.push_zeroed(Label::local(k as u32), error)
                .copy_from_slice(&t.to_le_bytes());
        }
    }
}

/// Checks that a counterexample starts in the initial state and that
/// every step of it is an enabled transition of the previous state; for a
/// lasso, that its cycle has a step and closes on its entry state.
#[allow(dead_code)] // not every test file replays
pub fn replay(m: &dyn NextState, t: &Trace) -> Result<(), String> {
    t.replay(m)
}

/// Checks an accepting-cycle counterexample of `m`: it replays
/// ([`replay`]), is a lasso, and its cycle passes an accepting state.
#[allow(dead_code)] // not every test file checks lassos
pub fn check_lasso(m: &dyn NextState, t: &Trace) -> Result<(), String> {
    replay(m, t)?;
    let (stem, cycle) = t.lasso().ok_or("not a lasso")?;
    if !(stem + 1..=stem + cycle).any(|i| m.info().is_accepting(t.state(i))) {
        return Err("the cycle has no accepting state".into());
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

/// Records what a search met: the deadlock states and whether a step
/// erred (led to the error state).
#[derive(Default)]
#[allow(dead_code)] // the tests of the reduction use it
pub struct Recorder {
    pub deadlocks: Mutex<BTreeSet<Vec<u8>>>,
    pub error: AtomicBool,
}

impl dvemc_run::algo::por::Tap for Recorder {
    fn tap(&self, src: &[u8], out: &mut SuccBuf) {
        if out.is_empty() {
            self.deadlocks.lock().unwrap().insert(src.to_vec());
        }
        if out.entries().iter().any(|e| e.error) {
            self.error.store(true, Ordering::Relaxed);
        }
    }
}
