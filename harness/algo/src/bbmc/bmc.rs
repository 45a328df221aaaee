//! The explicit bounded model checker the paper compares with: a BFS that
//! stops at the first witness.

use super::graph::*;
use super::witness::*;
use crate::check::ViolationKind;
use dve_frontend::model::{NextState, Succ};
use dvemc_engine::store::StateStore;
use dvemc_engine::{BfsOptions, Budget, Control, Cx, Limits, Observer, Outcome, Store};
use serde::Serialize;
use std::time::Instant;

/// The BMC baseline: a BFS that stops at the first witness.
#[derive(Clone, Debug, Serialize)]
pub struct BmcReport {
    /// States stored when the first witness could be reported; `None` if
    /// there is none (or a limit came first).
    pub states: Option<u64>,
    pub kind: Option<ViolationKind>,
    /// `complete` when the BFS ended (witness or whole state space).
    pub result: Outcome,
    /// States stored at the end.
    pub explored: u64,
    pub time_s: f64,
}

/// The BMC baseline of the paper: breadth-first search stopped at the first
/// witness; see the module documentation for what is counted.
pub fn bmc(model: &dyn NextState, targets: &Targets, limits: &Limits) -> BmcReport {
    let start = Instant::now();
    let budget = Budget::new(limits, start);
    let mut store = StateStore::new(model.state_len());
    let mut w = BmcWatch {
        targets,
        accepting: targets.accepting && model.info().property.is_some(),
        found: None,
        edges: Vec::new(),
        len_after: vec![1],
        edges_after: vec![0],
        open: None,
    };
    let r = dvemc_engine::bfs(model, &mut store, &budget, BfsOptions::default(), &mut w);
    let mut result = r.counters.result;
    if result.is_complete() && !r.stopped {
        w.close(&store);
    }
    let BmcWatch {
        mut found,
        edges,
        len_after,
        edges_after,
        accepting,
        ..
    } = w;
    if accepting {
        // The fewest expansions whose transitions close an accepting cycle
        // (monotone in the number of expansions: binary search).
        let info = model.info();
        let has_cycle = |e: usize| {
            let nodes = len_after[e] as usize;
            let g = Csr::build(nodes, edges[..edges_after[e] as usize].iter().copied());
            let cyc = on_cycle(&g);
            (0..nodes).any(|v| cyc[v] && info.is_accepting(store.get(v as u32)))
        };
        let total = len_after.len() - 1;
        if total > 0 && has_cycle(total) {
            let (mut lo, mut hi) = (1usize, total);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if has_cycle(mid) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            let states = len_after[lo] as u64;
            if found.is_none_or(|(s, _)| states < s) {
                found = Some((states, ViolationKind::AcceptingCycle));
            }
        }
    }
    if found.is_some() {
        result = Outcome::Complete;
    }
    BmcReport {
        states: found.map(|f| f.0),
        kind: found.map(|f| f.1),
        result,
        explored: store.len() as u64,
        time_s: start.elapsed().as_secs_f64(),
    }
}

/// The BMC baseline's observer: the first goal state or deadlock, and for
/// accepting cycles every transition in BFS order with, after `e`
/// expansions, the store size and the number of transitions.
pub(crate) struct BmcWatch<'t, 'g> {
    pub(crate) targets: &'t Targets<'g>,
    pub(crate) accepting: bool,
    pub(crate) found: Option<(u64, ViolationKind)>,
    pub(crate) edges: Vec<(u32, u32)>,
    pub(crate) len_after: Vec<u32>,
    pub(crate) edges_after: Vec<u32>,
    /// The state being expanded.
    pub(crate) open: Option<u32>,
}

impl BmcWatch<'_, '_> {
    /// The expansion under way is done.
    pub(crate) fn close(&mut self, store: &impl Store) {
        if self.accepting && self.open.take().is_some() {
            self.len_after.push(store.len() as u32);
            self.edges_after.push(self.edges.len() as u32);
        }
    }
}

impl<S: Store> Observer<S> for BmcWatch<'_, '_> {
    fn new_state(&mut self, cx: &Cx<S>, _id: u32, state: &[u8], _via: Option<(u32, Succ)>) -> Control {
        if self.targets.goal.is_some_and(|g| g(state)) {
            self.found = Some((cx.store.len() as u64, ViolationKind::Goal));
            return Control::Stop;
        }
        Control::Continue
    }

    fn expanded(&mut self, cx: &Cx<S>, id: u32, _count: usize) -> Control {
        self.close(cx.store);
        self.open = Some(id);
        Control::Continue
    }

    fn deadlock(&mut self, cx: &Cx<S>, _id: u32) -> Control {
        if self.targets.deadlock {
            self.found = Some((cx.store.len() as u64, ViolationKind::Deadlock));
            return Control::Stop;
        }
        Control::Continue
    }

    fn edge(&mut self, _cx: &Cx<S>, src: u32, _e: Succ, dst: u32, _new: bool) -> Control {
        if self.accepting {
            self.edges.push((src, dst));
        }
        Control::Continue
    }
}
