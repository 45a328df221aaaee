//! Checking on a slice: a goal, a deadlock or an accepting cycle, and its
//! trace as a path of the slice.

use super::graph::*;
use super::slice::*;
use crate::check::GoalFn;
use crate::check::{Step, Trace, ViolationKind};
use dve_frontend::model::ModelInfo;

/// What counts as a witness.
#[derive(Clone, Copy, Default)]
pub struct Targets<'a> {
    /// A reachability goal: true in a state that satisfies it.
    pub goal: Option<GoalFn<'a>>,
    /// A state without successors in the model.
    pub deadlock: bool,
    /// An accepting cycle of the property process.
    pub accepting: bool,
}

impl Targets<'_> {
    pub fn any(&self) -> bool {
        self.goal.is_some() || self.deadlock || self.accepting
    }
}

/// A witness found in a slice.
#[derive(Clone, Debug)]
pub struct Witness {
    pub kind: ViolationKind,
    pub trace: Trace,
}

/// Looks for a witness of the targets in a slice: a goal state, then a
/// deadlock (both with the path of chosen transitions), then an accepting
/// cycle (a lasso of slice transitions: shortest stem, shortest cycle).
pub fn find_witness(slice: &Slice, info: &ModelInfo, targets: &Targets) -> Option<Witness> {
    if let Some(goal) = targets.goal {
        if let Some(id) = (0..slice.len() as u32).find(|&id| goal(slice.states.get(id))) {
            return Some(Witness {
                kind: ViolationKind::Goal,
                trace: slice.path_to(id),
            });
        }
    }
    if targets.deadlock {
        if let Some(id) = slice.model_degree.iter().position(|&d| d == 0) {
            return Some(Witness {
                kind: ViolationKind::Deadlock,
                trace: slice.path_to(id as u32),
            });
        }
    }
    if targets.accepting && info.property.is_some() {
        let g = slice.adjacency();
        let cyc = on_cycle(&g);
        let a =
            (0..slice.len() as u32).find(|&v| cyc[v as usize] && info.is_accepting(slice.states.get(v)))?;
        let stem = bfs_path(slice, &g, 0, a, false)?;
        let cycle = bfs_path(slice, &g, a, a, true)?;
        let mut steps = stem;
        let cycle_start = steps.len();
        steps.extend(cycle);
        return Some(Witness {
            kind: ViolationKind::AcceptingCycle,
            trace: Trace {
                initial: slice.states.get(0).to_vec(),
                steps,
                cycle_start: Some(cycle_start),
            },
        });
    }
    None
}

/// Shortest path of slice transitions from `from` to `to`; non-empty
/// when `nonempty` (a cycle back to `from`), else empty if `from == to`.
pub(crate) fn bfs_path(slice: &Slice, g: &Csr, from: u32, to: u32, nonempty: bool) -> Option<Vec<Step>> {
    if from == to && !nonempty {
        return Some(Vec::new());
    }
    // pred[v]: index into slice.edges of the transition that reached v.
    let mut pred: Vec<u32> = vec![NONE; slice.len()];
    let mut queue = std::collections::VecDeque::new();
    // `from` is not marked: a path may come back to it.
    let push = |pred: &mut Vec<u32>, queue: &mut std::collections::VecDeque<u32>, v: u32| {
        for i in g.succ(v) {
            let t = g.target[i];
            if pred[t as usize] == NONE {
                pred[t as usize] = g.order[i];
                queue.push_back(t);
            }
        }
    };
    push(&mut pred, &mut queue, from);
    while pred[to as usize] == NONE {
        let v = queue.pop_front()?;
        push(&mut pred, &mut queue, v);
    }
    let mut steps = Vec::new();
    let mut cur = to;
    loop {
        let e = slice.edges[pred[cur as usize] as usize];
        steps.push(Step {
            label: e.label,
            error: e.error,
            state: slice.states.get(cur).to_vec(),
        });
        cur = e.from;
        if cur == from {
            break;
        }
    }
    steps.reverse();
    Some(steps)
}
