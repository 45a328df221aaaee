//! Counterexamples as the engine builds them: a path of steps from the
//! initial state, or a lasso (a path whose last state closes a cycle).
//! Rendering them for people or tools is `crate::output::counterexample`.

use dve_frontend::model::{Label, NextState, Succ, SuccBuf};

/// One transition of a counterexample and the state it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub label: Label,
    pub error: bool,
    pub state: Vec<u8>,
}

impl Step {
    pub fn new(e: Succ, state: &[u8]) -> Step {
        Step {
            label: e.label,
            error: e.error,
            state: state.to_vec(),
        }
    }
}

/// A path from the initial state. For a lasso, `cycle_start` is the index
/// of the state (0 = the initial state, i = after step i) where the cycle
/// begins; the last state equals it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub initial: Vec<u8>,
    pub steps: Vec<Step>,
    pub cycle_start: Option<usize>,
}

impl Trace {
    /// The state after `i` steps.
    pub fn state(&self, i: usize) -> &[u8] {
        if i == 0 {
            &self.initial
        } else {
            &self.steps[i - 1].state
        }
    }

    /// For a lasso, the steps of its stem (the initial state to the
    /// cycle's entry) and of its cycle (the entry back to itself).
    pub fn lasso(&self) -> Option<(usize, usize)> {
        self.cycle_start.map(|c| (c, self.steps.len() - c))
    }

    /// Checks that the trace starts in `model`'s initial state and that
    /// every step is an enabled transition of the state before it (what a
    /// reduced search's counterexample must be in the full model).
    pub fn replay(&self, model: &dyn NextState) -> Result<(), String> {
        if self.initial != model.initial_vec() {
            return Err("the trace does not start in the initial state".into());
        }
        let mut buf = SuccBuf::new(model.state_len());
        for (i, step) in self.steps.iter().enumerate() {
            model.successors(self.state(i), &mut buf);
            let found = buf
                .iter()
                .any(|(e, s)| e.label == step.label && e.error == step.error && s == &step.state[..]);
            if !found {
                return Err(format!("step {} is not an enabled transition", i + 1));
            }
        }
        if let Some((stem, cycle)) = self.lasso() {
            if cycle == 0 {
                return Err("the lasso's cycle has no step".into());
            }
            if self.state(stem) != self.state(stem + cycle) {
                return Err(format!(
                    "the cycle does not close: the state after step {} is not the one after step {stem}",
                    stem + cycle
                ));
            }
        }
        Ok(())
    }
}
