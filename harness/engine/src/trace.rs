//! Counterexamples as the engine builds them: a path of steps from the
//! initial state, or a lasso (a path whose last state closes a cycle).
//! Rendering them for people or tools is `crate::output::counterexample`.
//!
//! Searches that keep a parent link per state rebuild a path by walking
//! the links back to the initial state: [`walk_back`] is that walk, for
//! any way a search keeps its links ([`parent_steps`] for links by dense
//! id, the initial state's id 0).

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

/// One link back from a state towards the initial state (see
/// [`walk_back`]).
pub enum Back<K> {
    /// The state is the initial one, these its bytes: the walk ends.
    Initial(Vec<u8>),
    /// The state's parent, and the step from the parent to the state.
    Parent(K, Step),
}

/// The initial state and the steps from it to `at`, following `back` from
/// `at` (which is called once per state of the path, `at` first).
pub fn walk_back<K>(mut at: K, mut back: impl FnMut(K) -> Back<K>) -> (Vec<u8>, Vec<Step>) {
    let mut steps = Vec::new();
    loop {
        match back(at) {
            Back::Initial(initial) => {
                steps.reverse();
                return (initial, steps);
            }
            Back::Parent(parent, step) => {
                steps.push(step);
                at = parent;
            }
        }
    }
}

/// The steps from state 0 to `id` along parent links by id: `link(id)` is
/// the parent of `id` and the entry that led to it, `state(id)` its bytes.
pub fn parent_steps(
    id: u32,
    mut link: impl FnMut(u32) -> (u32, Succ),
    mut state: impl FnMut(u32) -> Vec<u8>,
) -> Vec<Step> {
    let (_, steps) = walk_back(id, |id| {
        if id == 0 {
            return Back::Initial(Vec::new());
        }
        let (parent, e) = link(id);
        let step = Step {
            label: e.label,
            error: e.error,
            state: state(id),
        };
        Back::Parent(parent, step)
    });
    steps
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
    /// The path from `initial` through `steps` (not a lasso).
    pub fn path(initial: Vec<u8>, steps: Vec<Step>) -> Trace {
        Trace {
            initial,
            steps,
            cycle_start: None,
        }
    }

    /// The path from state 0 to `id` along parent links by id (see
    /// [`parent_steps`]), then the step `last` when given.
    pub fn from_parents(
        id: u32,
        link: impl FnMut(u32) -> (u32, Succ),
        mut state: impl FnMut(u32) -> Vec<u8>,
        last: Option<(Succ, &[u8])>,
    ) -> Trace {
        let mut steps = parent_steps(id, link, &mut state);
        steps.extend(last.map(|(e, s)| Step::new(e, s)));
        Trace::path(state(0), steps)
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use dve_frontend::model::Label;

    fn entry(t: u32) -> Succ {
        Succ {
            label: Label::local(t),
            error: false,
        }
    }

    /// Links 0 <- 1 <- 3 <- 4 (2 off the path): the path to 4 goes
    /// through 1 and 3 in that order, each step with its entry and state.
    #[test]
    fn parent_links_give_the_path_from_the_initial_state() {
        let parents = [
            (0, entry(0)),
            (0, entry(10)),
            (0, entry(20)),
            (1, entry(30)),
            (3, entry(40)),
        ];
        let state = |id: u32| vec![id as u8; 2];
        let t = Trace::from_parents(
            4,
            |id| parents[id as usize],
            state,
            Some((entry(50), &[9, 9][..])),
        );
        assert_eq!(t.initial, vec![0, 0]);
        let got: Vec<(u32, u8)> = t.steps.iter().map(|s| (s.label.trans, s.state[0])).collect();
        assert_eq!(got, vec![(10, 1), (30, 3), (40, 4), (50, 9)]);
        assert_eq!(t.cycle_start, None);
        assert!(parent_steps(0, |id| parents[id as usize], state).is_empty());
    }

    /// A walk whose links are not ids: it ends where `back` says, at
    /// whatever key.
    #[test]
    fn a_walk_back_ends_at_the_initial_state_it_is_given() {
        let (initial, steps) = walk_back((2usize, 7u32), |(rank, id)| {
            if rank == 0 {
                Back::Initial(vec![id as u8])
            } else {
                Back::Parent((rank - 1, id + 1), Step::new(entry(id), &[rank as u8]))
            }
        });
        assert_eq!(initial, vec![9]);
        let got: Vec<(u32, u8)> = steps.iter().map(|s| (s.label.trans, s.state[0])).collect();
        assert_eq!(got, vec![(8, 1), (7, 2)]);
    }
}
