//! Breadth-bounded exploration and Breadth-Bounded Model Checking (BBMC).
//!
//! Reference: M. G. Meulen, F. P. M. Stappers, T. A. C. Willemse,
//! "Breadth-Bounded Model Checking" (`../shared/papers/`). Names follow the
//! paper: the *breadth bound* `N`, the *queues* `Q_d`, the *visited set* `V`,
//! the *graceful degradation depth* `D`, and the three kinds of transitions
//! of a slice: *single steps* (`Q_i -> Q_{i+1}`), *back edges*
//! (`Q_i -> Q_j`, `j <= i`) and *jumps* (`Q_i -> Q_{i+j}`, `j > 1`).
//!
//! **Algorithms** ([`build_slice`]):
//!
//! - *Highway simulation* (Algorithm 1): `R := succ(Q_d) \ V`; the next queue
//!   is a uniformly random `N`-close subset of `R` (`min(|R|, N)` states).
//! - *Bounded breadth-first exploration* (Algorithm 2): the same, but the
//!   next queue must give every non-sink state of `Q_d` at least one
//!   successor in `Q_{d+1} ∪ V`, so the slice has no sink that is not a
//!   deadlock of the model (Proposition 1). The paper chooses uniformly among
//!   all admissible `N`-close subsets; so do we, by rejection (a uniform
//!   subset, kept if admissible). Counting admissible subsets is a
//!   hitting-set count, so after 1,000 rejections we build one instead (the
//!   needy states served by random successors, the rest uniform) and count
//!   the queue in `biased_queues`.
//! - *Graceful degradation* (Algorithm 3): below depth `D` as Algorithm 2;
//!   from depth `D` on, only the states of `Q_d` that have no successor in
//!   `V` (and are not sinks) are continued: the next queue is an `|R|`-close
//!   subset of their successors serving each of them.
//!
//! The slice's transitions are `V² ∩ →` (every model transition, label
//! included, between two states of `V`; duplicates counted like BEEM's
//! edges). Single steps and back edges are recorded while a queue is
//! expanded; transitions to states not chosen at that point are kept aside
//! and become jumps, a posteriori, if their target enters `V` later.
//!
//! **Checking** ([`find_witness`]): on the slice, a reachability goal (a
//! state satisfying it), a deadlock (a state without successors in the
//! model) and, for a model with a property process, an accepting cycle (a
//! non-trivial strongly connected component of the slice holding an
//! accepting state, found with Tarjan's algorithm). The slice is simulated
//! by the full state space (Theorem 2), so every witness found is a real
//! counterexample; its trace is a path of the slice.
//!
//! **BMC** ([`bmc`]): the paper compares with an explicit bounded model
//! checker, a BFS that stops at the first witness; its figure is the number
//! of states stored at that moment (for a goal, when the goal state is
//! stored; for a deadlock, when the deadlocked state is expanded; for an
//! accepting cycle, after the fewest BFS expansions whose transitions close
//! an accepting cycle).
//!
//! **Repetition** ([`run_many`]): run `r` of a series with seed `S` uses the
//! `r`-th 64-bit output of the project RNG seeded with `S` ([`run_seeds`]),
//! so every run is reproducible on its own.

use std::io::Write;
use std::time::Instant;

use dve_frontend::model::{Label, ModelInfo, NextState, Succ, SuccBuf};
use serde::Serialize;

pub use crate::algo::check::{goal_predicate, GoalFn};
use crate::algo::check::{Step, Trace, ViolationKind};
use crate::engine::progress::Meter;
pub use crate::engine::rng::run_seeds;
use crate::engine::rng::Rng;
use crate::engine::store::StateStore;
use crate::engine::{
    self, visit, BfsOptions, Budget, Control, Cx, Limits, Observer, Outcome, Store, POLL_MASK,
};

const NONE: u32 = u32::MAX;

/// Which of the paper's algorithms built a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Algorithm 1: Highway simulation (no totality constraint).
    Highway,
    /// Algorithm 2: bounded breadth-first exploration.
    Bounded,
    /// Algorithm 3: bounded breadth-first exploration with graceful degradation.
    Degrading,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Highway => "highway",
            Algorithm::Bounded => "bounded",
            Algorithm::Degrading => "graceful_degradation",
        }
    }
}

/// Parameters of one slice construction.
#[derive(Clone, Debug)]
pub struct SliceOptions {
    /// The breadth bound `N > 0`.
    pub breadth: usize,
    /// Keep the slice total (Algorithms 2 and 3); false is Algorithm 1.
    pub total: bool,
    /// Graceful degradation depth `D > 0` (Algorithm 3; needs `total`).
    pub degrade_depth: Option<u32>,
    /// Budgets of one construction: `max_states` bounds the distinct states
    /// it generates (the slice and the successors considered), `memory_bytes`
    /// what it allocates, `time` its wall time.
    pub limits: Limits,
    /// Where the construction publishes its counters (the progress line:
    /// states generated, successors, the queue's depth).
    pub meter: Option<Meter>,
}

impl SliceOptions {
    pub fn highway(breadth: usize) -> SliceOptions {
        SliceOptions {
            breadth,
            total: false,
            degrade_depth: None,
            limits: Limits::default(),
            meter: None,
        }
    }
    pub fn bounded(breadth: usize) -> SliceOptions {
        SliceOptions {
            total: true,
            ..SliceOptions::highway(breadth)
        }
    }
    pub fn degrading(breadth: usize, depth: u32) -> SliceOptions {
        SliceOptions {
            total: true,
            degrade_depth: Some(depth),
            ..SliceOptions::highway(breadth)
        }
    }
    pub fn algorithm(&self) -> Algorithm {
        match (self.total, self.degrade_depth) {
            (false, _) => Algorithm::Highway,
            (true, None) => Algorithm::Bounded,
            (true, Some(_)) => Algorithm::Degrading,
        }
    }
}

/// The paper's classification of a slice transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// From `Q_i` to `Q_{i+1}`.
    SingleStep,
    /// From `Q_i` to `Q_j`, `j <= i` (self-loops included).
    BackEdge,
    /// From `Q_i` to `Q_{i+j}`, `j > 1`.
    Jump,
}

/// One transition of a slice, between slice ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceEdge {
    pub from: u32,
    pub to: u32,
    pub label: Label,
    pub error: bool,
    pub kind: EdgeKind,
}

/// The state space built by [`build_slice`]: `H = <V, s0, L|V, V² ∩ →>`.
#[derive(Debug)]
pub struct Slice {
    pub algorithm: Algorithm,
    pub breadth: usize,
    pub degrade_depth: Option<u32>,
    /// `complete` unless a limit stopped the construction.
    pub result: Outcome,
    /// `V`; slice ids are given queue by queue (id 0 is the initial state).
    pub states: StateStore,
    /// Queue index `d` of every state (`Q_d`).
    pub queue: Vec<u32>,
    /// First id of every queue.
    pub queue_starts: Vec<u32>,
    /// The state of the previous queue each state was chosen from, and the
    /// transition (unused for the initial state).
    pub parent: Vec<(u32, Succ)>,
    /// Number of successors in the model; `NONE` (u32::MAX) if the state
    /// was never expanded (only when a limit stopped the construction).
    pub model_degree: Vec<u32>,
    /// `V² ∩ →`: single steps and back edges in construction order, then jumps.
    pub edges: Vec<SliceEdge>,
    pub single_steps: u64,
    pub back_edges: u64,
    pub jumps: u64,
    /// Queues not drawn uniformly among the admissible subsets (rejection
    /// gave up: see `build_slice`).
    pub biased_queues: u64,
    /// Distinct states generated (`V` plus successors considered but not
    /// chosen): the peak of the construction's visited-state storage.
    pub generated: u64,
    /// Successor entries computed (one per model transition looked at).
    pub successors: u64,
    pub time_s: f64,
}

impl Slice {
    pub fn len(&self) -> usize {
        self.states.len()
    }
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
    /// Number of queues `Q_0 .. Q_{d}` that are non-empty.
    pub fn queues(&self) -> usize {
        self.queue_starts.len()
    }
    /// Out-degree of every state within the slice.
    pub fn out_degrees(&self) -> Vec<u32> {
        let mut deg = vec![0u32; self.len()];
        for e in &self.edges {
            deg[e.from as usize] += 1;
        }
        deg
    }
    /// States that are deadlocks of the model.
    pub fn deadlocks(&self) -> u64 {
        self.model_degree.iter().filter(|&&d| d == 0).count() as u64
    }
    /// Sinks of the slice that are not deadlocks of the model (expanded
    /// states only). Always 0 for Algorithms 2 and 3 (Propositions 1, 2).
    pub fn introduced_sinks(&self) -> u64 {
        self.out_degrees()
            .iter()
            .zip(&self.model_degree)
            .filter(|&(&out, &m)| out == 0 && m != 0 && m != NONE)
            .count() as u64
    }
    /// The path of chosen transitions from the initial state to `id`.
    pub fn path_to(&self, id: u32) -> Trace {
        let mut steps = Vec::new();
        let mut cur = id;
        while cur != 0 {
            let (p, e) = self.parent[cur as usize];
            steps.push(Step {
                label: e.label,
                error: e.error,
                state: self.states.get(cur).to_vec(),
            });
            cur = p;
        }
        steps.reverse();
        Trace {
            initial: self.states.get(0).to_vec(),
            steps,
            cycle_start: None,
        }
    }
    /// Adjacency in compressed form: the edges of state `v` are
    /// `order[start[v]..start[v + 1]]` (indices into `edges`).
    pub fn adjacency(&self) -> Csr {
        Csr::build(self.len(), self.edges.iter().map(|e| (e.from, e.to)))
    }
}

/// A compressed adjacency list: the out-edges of node `v` are
/// `order[start[v]..start[v + 1]]`, indices into the edge sequence it was
/// built from; `target[i]` is the target of `order[i]`.
pub struct Csr {
    pub start: Vec<u32>,
    pub order: Vec<u32>,
    pub target: Vec<u32>,
}

impl Csr {
    pub fn build(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut start = vec![0u32; n + 1];
        let mut m = 0usize;
        for (f, _) in edges.clone() {
            start[f as usize + 1] += 1;
            m += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut order = vec![0u32; m];
        let mut target = vec![0u32; m];
        for (i, (f, t)) in edges.enumerate() {
            let at = fill[f as usize] as usize;
            fill[f as usize] += 1;
            order[at] = i as u32;
            target[at] = t;
        }
        Csr { start, order, target }
    }
    pub fn nodes(&self) -> usize {
        self.start.len() - 1
    }
    pub fn succ(&self, v: u32) -> std::ops::Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }
}

/// Strongly connected components (Tarjan, iterative): a component number
/// per node.
pub fn sccs(g: &Csr) -> Vec<u32> {
    let n = g.nodes();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, usize)> = Vec::new();
    let mut next_index = 0u32;
    let mut next_comp = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        call.push((root, g.succ(root).start));
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let end = g.succ(v).end;
            if *i < end {
                let w = g.target[*i];
                *i += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, g.succ(w).start));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p as usize] = low[p as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w as usize] = false;
                        comp[w as usize] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

/// The nodes lying on a cycle: in a component of two or more nodes, or
/// with a self-loop.
pub fn on_cycle(g: &Csr) -> Vec<bool> {
    let comp = sccs(g);
    let mut size = vec![0u32; comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0)];
    for &c in &comp {
        size[c as usize] += 1;
    }
    (0..g.nodes() as u32)
        .map(|v| size[comp[v as usize] as usize] > 1 || g.succ(v).any(|i| g.target[i] == v))
        .collect()
}

/// Draws `k` distinct elements of `pool` uniformly (partial Fisher–Yates,
/// in place: they end up in `pool[..k]`).
fn choose_k(rng: &mut Rng, pool: &mut [u32], k: usize) {
    let k = k.min(pool.len());
    for i in 0..k {
        let j = i + rng.below(pool.len() - i);
        pool.swap(i, j);
    }
}

/// Rejected draws after which a queue is built rather than drawn.
const UNIFORM_TRIES: usize = 1000;

/// Builds a slice of `model` with the options' algorithm, drawing from `rng`.
pub fn build_slice(model: &dyn NextState, opts: &SliceOptions, rng: &mut Rng) -> Slice {
    assert!(opts.breadth > 0, "the breadth bound must be positive");
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let n = model.state_len();
    let mut buf = SuccBuf::new(n);

    // `seen`: every generated state (V and the states considered but not
    // chosen); `slice_of[seen id]` is its slice id or NONE.
    let mut seen = StateStore::new(n);
    let mut slice_of: Vec<u32> = Vec::new();
    // Per seen id: last queue in which it was put in R / was picked.
    let mut r_mark: Vec<u32> = Vec::new();
    let mut pick_mark: Vec<u32> = Vec::new();
    // Per seen id: the draw (`stamp`) that last put it in a tried queue.
    let mut try_mark: Vec<u32> = Vec::new();
    let mut stamp: u32 = 0;
    let mut biased_queues = 0u64;
    // Per slice id.
    let mut seen_of: Vec<u32> = Vec::new();
    let mut queue: Vec<u32> = Vec::new();
    let mut queue_starts: Vec<u32> = Vec::new();
    let mut parent: Vec<(u32, Succ)> = Vec::new();
    let mut model_degree: Vec<u32> = Vec::new();
    let mut edges: Vec<SliceEdge> = Vec::new();
    // Transitions to states outside V when they were looked at: (from slice
    // id, to seen id, entry); jumps if the target joins V later.
    let mut pending: Vec<(u32, u32, Succ)> = Vec::new();
    let none = Succ {
        label: Label::local(NONE),
        error: false,
    };

    // V on its own, in slice order, filled as states join V (so that a
    // stopped construction returns at once, whatever V's size).
    let mut states = StateStore::new(n);
    let init = model.initial_vec();
    seen.insert(&init, model.fingerprint(&init));
    states.insert(&init, model.fingerprint(&init));
    slice_of.push(0);
    r_mark.push(NONE);
    pick_mark.push(NONE);
    try_mark.push(0);
    seen_of.push(0);
    queue.push(0);
    queue_starts.push(0);
    parent.push((0, none));
    model_degree.push(NONE);

    // Successors of the current queue: entries `flat[lo[i]..lo[i + 1]]` for
    // its i-th state, as (seen id, entry).
    let mut flat: Vec<(u32, Succ)> = Vec::new();
    let mut lo: Vec<usize> = Vec::new();
    let mut r_list: Vec<u32> = Vec::new();
    let mut needy: Vec<u32> = Vec::new();
    let mut distinct: Vec<u32> = Vec::new();
    let mut picked: Vec<u32> = Vec::new();
    let mut pool: Vec<u32> = Vec::new();

    let mut result = Outcome::Complete;
    let mut successors = 0u64;
    let mut expansions = 0u64;
    let mut d: u32 = 0;
    'levels: loop {
        let q_lo = queue_starts[d as usize] as usize;
        let q_hi = seen_of.len();
        if q_lo == q_hi {
            // Q_d is empty (not reached: an empty pick ends the loop below).
            break;
        }
        // Expand Q_d.
        flat.clear();
        lo.clear();
        r_list.clear();
        // What the construction holds besides `seen`: per seen state, per
        // slice state (and its copy in the slice's own store at the end),
        // the expansion of Q_d and the transitions, each vector counted
        // with its next doubling.
        let aux = |seen_len: usize, v: usize, flat: usize, edges: usize, pending: usize| {
            seen_len * 16
                + v * (28 + n + 16)
                + 2 * (flat.max(64) * 20 + edges * std::mem::size_of::<SliceEdge>() + pending * 24)
        };
        for s in q_lo..q_hi {
            let mut stop = None;
            if expansions & POLL_MASK == 0 && expansions > 0 {
                stop = budget.poll_with(seen.len() as u64, successors, d as u64);
            }
            if stop.is_none() {
                expansions += 1;
                lo.push(flat.len());
                model.successors(seen.get(seen_of[s]), &mut buf);
                model_degree[s] = buf.len() as u32;
                successors += buf.len() as u64;
                for (e, t) in buf.iter() {
                    let frontier = aux(
                        seen.len(),
                        seen_of.len(),
                        flat.capacity(),
                        edges.capacity(),
                        pending.capacity(),
                    );
                    let (id, new) = match visit(&mut seen, &budget, frontier, t, model.fingerprint(t)) {
                        Ok(ins) => ins.split(),
                        Err(o) => {
                            stop = Some(o);
                            break;
                        }
                    };
                    if new {
                        slice_of.push(NONE);
                        r_mark.push(NONE);
                        pick_mark.push(NONE);
                        try_mark.push(0);
                    }
                    flat.push((id, e));
                    if slice_of[id as usize] == NONE && r_mark[id as usize] != d {
                        r_mark[id as usize] = d;
                        r_list.push(id);
                    }
                }
            }
            if let Some(o) = stop {
                // Q_d is left unexpanded.
                for deg in &mut model_degree[q_lo..=s.min(q_hi - 1)] {
                    *deg = NONE;
                }
                result = o;
                break 'levels;
            }
        }
        lo.push(flat.len());
        let width = q_hi - q_lo;

        // States of Q_d that are not sinks and have no successor in V.
        needy.clear();
        if opts.total {
            for i in 0..width {
                let succ = &flat[lo[i]..lo[i + 1]];
                if !succ.is_empty() && succ.iter().all(|&(id, _)| slice_of[id as usize] == NONE) {
                    needy.push(i as u32);
                }
            }
        }
        let degrading = opts.total && opts.degrade_depth.is_some_and(|dd| d >= dd);
        // The candidates and the size of the next queue.
        let (candidates, size): (&[u32], usize) = if degrading {
            // Line 7-8 of Algorithm 3: R is the needy states, the
            // candidates succ(R), the queue |R|-close to succ(R).
            distinct.clear();
            for &i in &needy {
                distinct.extend(flat[lo[i as usize]..lo[i as usize + 1]].iter().map(|&(id, _)| id));
            }
            distinct.sort_unstable();
            distinct.dedup();
            (&distinct, needy.len().min(distinct.len()))
        } else {
            (&r_list, opts.breadth.min(r_list.len()))
        };

        // The next queue: a uniformly random `size`-subset of the candidates
        // that serves every needy state, as the paper draws it ("uniformly
        // among all admissible subsets"). Counting the admissible subsets
        // is a hitting-set count, so we draw by rejection: a uniform subset,
        // kept if it serves every needy state. After `UNIFORM_TRIES`
        // rejections (many needy states with few successors each) we build
        // one instead, each needy state not yet served getting a random
        // successor and the rest drawn uniformly: every admissible subset
        // can still come, not all with the same probability; such queues
        // are counted (`biased_queues`).
        picked.clear();
        let tries = if needy.is_empty() { 1 } else { UNIFORM_TRIES };
        let mut stop = None;
        for _ in 0..tries {
            // A try shuffles every candidate: a draw of many rejections
            // takes long enough to need the budget's check.
            stop = budget.poll();
            if stop.is_some() {
                break;
            }
            pool.clear();
            pool.extend_from_slice(candidates);
            choose_k(rng, &mut pool, size);
            stamp = stamp.wrapping_add(1).max(1);
            for &id in &pool[..size] {
                try_mark[id as usize] = stamp;
            }
            let serves = |i: &u32| {
                flat[lo[*i as usize]..lo[*i as usize + 1]]
                    .iter()
                    .any(|&(id, _)| try_mark[id as usize] == stamp)
            };
            if needy.iter().all(serves) {
                picked.extend_from_slice(&pool[..size]);
                break;
            }
        }
        if let Some(o) = stop {
            // Q_d's successors were not chosen: it counts as unexpanded,
            // as when the budget stops its expansion.
            for deg in &mut model_degree[q_lo..q_hi] {
                *deg = NONE;
            }
            result = o;
            break 'levels;
        }
        if picked.is_empty() && size > 0 {
            biased_queues += 1;
            let k = needy.len();
            choose_k(rng, &mut needy, k);
            for &i in &needy {
                let succ = &flat[lo[i as usize]..lo[i as usize + 1]];
                if succ.iter().any(|&(id, _)| pick_mark[id as usize] == d) {
                    continue;
                }
                // A uniformly random successor (distinct states).
                pool.clear();
                for &(id, _) in succ {
                    if !pool.contains(&id) {
                        pool.push(id);
                    }
                }
                let id = pool[rng.below(pool.len())];
                pick_mark[id as usize] = d;
                picked.push(id);
            }
            // |Q_d| <= N, so the picks never exceed the queue's size.
            debug_assert!(picked.len() <= size);
            pool.clear();
            pool.extend(
                candidates
                    .iter()
                    .copied()
                    .filter(|&id| pick_mark[id as usize] != d),
            );
            let more = size.saturating_sub(picked.len());
            choose_k(rng, &mut pool, more);
            picked.extend_from_slice(&pool[..more.min(pool.len())]);
        }
        for &id in &picked {
            pick_mark[id as usize] = d;
        }

        // V := V ∪ Q_{d+1}.
        if !picked.is_empty() {
            queue_starts.push(seen_of.len() as u32);
        }
        for &id in &picked {
            slice_of[id as usize] = seen_of.len() as u32;
            seen_of.push(id);
            let s = seen.get(id);
            states.insert(s, model.fingerprint(s));
            queue.push(d + 1);
            parent.push((NONE, none));
            model_degree.push(NONE);
        }
        // Classify the transitions of Q_d: back edges and single steps now,
        // the others kept for jumps.
        for i in 0..width {
            let from = (q_lo + i) as u32;
            for &(id, e) in &flat[lo[i]..lo[i + 1]] {
                let to = slice_of[id as usize];
                if to == NONE {
                    pending.push((from, id, e));
                    continue;
                }
                let kind = if queue[to as usize] <= d {
                    EdgeKind::BackEdge
                } else {
                    if parent[to as usize].0 == NONE {
                        parent[to as usize] = (from, e);
                    }
                    EdgeKind::SingleStep
                };
                edges.push(SliceEdge {
                    from,
                    to,
                    label: e.label,
                    error: e.error,
                    kind,
                });
            }
        }
        if picked.is_empty() {
            break;
        }
        d += 1;
        continue 'levels;
    }
    if result != Outcome::Complete {
        // Drop the queue whose successors were not chosen.
        while queue_starts.last().is_some_and(|&s| s as usize >= seen_of.len()) {
            queue_starts.pop();
        }
    }

    // Jumps, a posteriori.
    for &(from, id, e) in &pending {
        let to = slice_of[id as usize];
        if to != NONE {
            debug_assert!(queue[to as usize] > queue[from as usize] + 1);
            edges.push(SliceEdge {
                from,
                to,
                label: e.label,
                error: e.error,
                kind: EdgeKind::Jump,
            });
        }
    }
    let count = |k: EdgeKind| edges.iter().filter(|e| e.kind == k).count() as u64;
    let (single_steps, back_edges, jumps) = (
        count(EdgeKind::SingleStep),
        count(EdgeKind::BackEdge),
        count(EdgeKind::Jump),
    );

    debug_assert_eq!(states.len(), seen_of.len());
    Slice {
        algorithm: opts.algorithm(),
        breadth: opts.breadth,
        degrade_depth: if opts.total { opts.degrade_depth } else { None },
        result,
        states,
        queue,
        queue_starts,
        parent,
        model_degree,
        edges,
        single_steps,
        back_edges,
        jumps,
        biased_queues,
        generated: seen.len() as u64,
        successors,
        time_s: start.elapsed().as_secs_f64(),
    }
}

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
fn bfs_path(slice: &Slice, g: &Csr, from: u32, to: u32, nonempty: bool) -> Option<Vec<Step>> {
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
    let r = engine::bfs(model, &mut store, &budget, BfsOptions::default(), &mut w);
    let mut result = r.result;
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
struct BmcWatch<'t, 'g> {
    targets: &'t Targets<'g>,
    accepting: bool,
    found: Option<(u64, ViolationKind)>,
    edges: Vec<(u32, u32)>,
    len_after: Vec<u32>,
    edges_after: Vec<u32>,
    /// The state being expanded.
    open: Option<u32>,
}

impl BmcWatch<'_, '_> {
    /// The expansion under way is done.
    fn close(&mut self, store: &impl Store) {
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

/// One run of a BBMC series.
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    pub run: usize,
    pub seed: u64,
    pub result: Outcome,
    pub slice_states: u64,
    pub slice_transitions: u64,
    pub single_steps: u64,
    pub back_edges: u64,
    pub jumps: u64,
    pub biased_queues: u64,
    pub queues: u64,
    pub deadlocks: u64,
    pub introduced_sinks: u64,
    pub generated: u64,
    /// Successor entries computed.
    pub successors: u64,
    pub witness: Option<ViolationKind>,
    /// Transitions of the witness trace (stem plus cycle for a lasso).
    pub witness_length: Option<usize>,
    pub time_s: f64,
}

/// A series of seeded slice constructions and witness searches.
#[derive(Clone, Debug, Serialize)]
pub struct BbmcSummary {
    pub algorithm: Algorithm,
    pub breadth: usize,
    pub degrade_depth: Option<u32>,
    pub runs: usize,
    pub seed: u64,
    /// Runs whose slice holds a witness.
    pub witness_found: u64,
    /// `witness_found / runs`: the estimated probability of a witness.
    pub witness_rate: f64,
    pub mean_slice_states: f64,
    pub mean_slice_transitions: f64,
    pub mean_queues: f64,
    pub max_slice_states: u64,
    /// Runs stopped by a limit.
    pub incomplete: u64,
    pub time_s: f64,
    #[serde(skip)]
    pub records: Vec<RunRecord>,
}

fn one_run(
    model: &dyn NextState,
    opts: &SliceOptions,
    targets: &Targets,
    run: usize,
    seed: u64,
) -> (RunRecord, Slice, Option<Witness>) {
    let mut rng = Rng::seeded(seed);
    let slice = build_slice(model, opts, &mut rng);
    let witness = if targets.any() {
        find_witness(&slice, model.info(), targets)
    } else {
        None
    };
    let rec = RunRecord {
        run,
        seed,
        result: slice.result,
        slice_states: slice.len() as u64,
        slice_transitions: slice.edges.len() as u64,
        single_steps: slice.single_steps,
        back_edges: slice.back_edges,
        jumps: slice.jumps,
        biased_queues: slice.biased_queues,
        queues: slice.queues() as u64,
        deadlocks: slice.deadlocks(),
        introduced_sinks: slice.introduced_sinks(),
        generated: slice.generated,
        successors: slice.successors,
        witness: witness.as_ref().map(|w| w.kind),
        witness_length: witness.as_ref().map(|w| w.trace.steps.len()),
        time_s: slice.time_s,
    };
    (rec, slice, witness)
}

/// What [`run_many`] keeps besides the summary: the slice of run 0 and the
/// first run (lowest index) with a witness.
pub struct Kept {
    pub first_slice: Option<Slice>,
    pub witness: Option<(usize, Witness)>,
}

/// Runs `runs` seeded constructions (seeds from [`run_seeds`]) on up to
/// `threads` threads; the figures do not depend on the thread count.
pub fn run_many(
    model: &dyn NextState,
    opts: &SliceOptions,
    targets: &Targets,
    seed: u64,
    runs: usize,
    threads: usize,
) -> (BbmcSummary, Kept) {
    let start = Instant::now();
    let seeds = run_seeds(seed, runs);
    let threads = threads.clamp(1, runs.max(1));
    type Part = (Vec<RunRecord>, Option<Slice>, Option<(usize, Witness)>);
    let results: Vec<Part> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let seeds = &seeds;
                sc.spawn(move || {
                    let mut recs = Vec::new();
                    let mut first = None;
                    let mut wit: Option<(usize, Witness)> = None;
                    for r in (t..seeds.len()).step_by(threads) {
                        let (rec, slice, w) = one_run(model, opts, targets, r, seeds[r]);
                        recs.push(rec);
                        if r == 0 {
                            first = Some(slice);
                        }
                        if let (None, Some(w)) = (&wit, w) {
                            wit = Some((r, w));
                        }
                    }
                    (recs, first, wit)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bbmc worker"))
            .collect()
    });
    let mut records = Vec::with_capacity(runs);
    let mut kept = Kept {
        first_slice: None,
        witness: None,
    };
    for (recs, first, wit) in results {
        records.extend(recs);
        if first.is_some() {
            kept.first_slice = first;
        }
        if let Some((r, w)) = wit {
            if kept.witness.as_ref().is_none_or(|(k, _)| r < *k) {
                kept.witness = Some((r, w));
            }
        }
    }
    records.sort_by_key(|r| r.run);
    let m = runs.max(1) as f64;
    let witness_found = records.iter().filter(|r| r.witness.is_some()).count() as u64;
    let summary = BbmcSummary {
        algorithm: opts.algorithm(),
        breadth: opts.breadth,
        degrade_depth: if opts.total { opts.degrade_depth } else { None },
        runs,
        seed,
        witness_found,
        witness_rate: witness_found as f64 / m,
        mean_slice_states: records.iter().map(|r| r.slice_states as f64).sum::<f64>() / m,
        mean_slice_transitions: records.iter().map(|r| r.slice_transitions as f64).sum::<f64>() / m,
        mean_queues: records.iter().map(|r| r.queues as f64).sum::<f64>() / m,
        max_slice_states: records.iter().map(|r| r.slice_states).max().unwrap_or(0),
        incomplete: records.iter().filter(|r| r.result != Outcome::Complete).count() as u64,
        time_s: start.elapsed().as_secs_f64(),
        records,
    };
    (summary, kept)
}

/// Largest slice [`write_dot`] draws.
pub const DOT_MAX_STATES: usize = 5000;

fn edge_label(info: &ModelInfo, e: &SliceEdge) -> String {
    let mut text = info.label_text(&e.label);
    if text.is_empty() {
        text = format!("t{}", e.label.trans);
    }
    if e.error {
        text.push_str(" [error]");
    }
    text
}

/// The slice in Aldebaran format: `des (initial, transitions, states)` and
/// one `(from, "label", to)` line per transition; state 0 is the initial
/// state. Double quotes inside labels become single quotes.
pub fn write_aut(out: &mut impl Write, slice: &Slice, info: &ModelInfo) -> std::io::Result<()> {
    writeln!(out, "des (0, {}, {})", slice.edges.len(), slice.len())?;
    for e in &slice.edges {
        writeln!(
            out,
            "({}, \"{}\", {})",
            e.from,
            edge_label(info, e).replace('"', "'"),
            e.to
        )?;
    }
    Ok(())
}

/// The slice in Graphviz DOT: one rank per queue; single steps solid, back
/// edges dotted, jumps dashed (the paper's Fig. 2); deadlocks as boxes,
/// accepting states as double circles.
pub fn write_dot(out: &mut impl Write, slice: &Slice, info: &ModelInfo) -> std::io::Result<()> {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    writeln!(out, "digraph slice {{")?;
    writeln!(
        out,
        "  // {} states, {} transitions, {} queues",
        slice.len(),
        slice.edges.len(),
        slice.queues()
    )?;
    writeln!(out, "  node [shape=circle, fontsize=10];")?;
    writeln!(out, "  edge [fontsize=8];")?;
    for (q, &lo) in slice.queue_starts.iter().enumerate() {
        let hi = slice.queue_starts.get(q + 1).map_or(slice.len() as u32, |&h| h);
        write!(out, "  {{ rank=same;")?;
        for v in lo..hi {
            write!(out, " {v};")?;
        }
        writeln!(out, " }}")?;
    }
    for v in 0..slice.len() as u32 {
        let s = slice.states.get(v);
        let mut attrs = vec![format!(
            "tooltip=\"Q{}: {}\"",
            slice.queue[v as usize],
            esc(&info.state_text(s))
        )];
        if slice.model_degree[v as usize] == 0 {
            attrs.push("shape=box".into());
        } else if info.is_accepting(s) {
            attrs.push("shape=doublecircle".into());
        }
        if v == 0 {
            attrs.push("style=bold".into());
        }
        writeln!(out, "  {v} [{}];", attrs.join(", "))?;
    }
    for e in &slice.edges {
        let style = match e.kind {
            EdgeKind::SingleStep => "solid",
            EdgeKind::BackEdge => "dotted",
            EdgeKind::Jump => "dashed",
        };
        writeln!(
            out,
            "  {} -> {} [label=\"{}\", style={style}];",
            e.from,
            e.to,
            esc(&edge_label(info, e))
        )?;
    }
    writeln!(out, "}}")
}

/// Why a slice could not be exported.
#[derive(Debug)]
pub enum ExportError {
    /// DOT is for small slices.
    TooBig(String),
    /// The file could not be written.
    Io(String),
}

/// Writes `slice` as Aldebaran (`.aut`) or Graphviz (`.dot`, at most
/// [`DOT_MAX_STATES`] states) by the file's extension.
pub fn export(path: &std::path::Path, slice: &Slice, info: &ModelInfo) -> Result<(), ExportError> {
    let is_dot = path.extension().is_some_and(|e| e == "dot");
    if is_dot && slice.len() > DOT_MAX_STATES {
        return Err(ExportError::TooBig(format!(
            "the slice has {} states: DOT export is for slices of at most {DOT_MAX_STATES} states; use a .aut file",
            slice.len()
        )));
    }
    let io = |e: std::io::Error| ExportError::Io(format!("writing {}: {e}", path.display()));
    let file = std::fs::File::create(path)
        .map_err(|e| ExportError::Io(format!("cannot create {}: {e}", path.display())))?;
    let mut w = std::io::BufWriter::new(file);
    if is_dot {
        write_dot(&mut w, slice, info).map_err(io)?;
    } else {
        write_aut(&mut w, slice, info).map_err(io)?;
    }
    w.flush().map_err(io)
}
