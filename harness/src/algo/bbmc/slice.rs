//! Slices and how the paper's three algorithms build them (Algorithms 1-3).

use super::graph::{Csr, NONE};
use crate::algo::check::Trace;
use crate::engine::progress::Meter;
use crate::engine::rng::Rng;
use crate::engine::store::StateStore;
use crate::engine::{visit, Budget, Limits, Outcome, POLL_MASK};
use dve_frontend::model::{Label, NextState, Succ, SuccBuf};
use serde::Serialize;
use std::time::Instant;

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
        Trace::from_parents(
            id,
            |id| self.parent[id as usize],
            |id| self.states.get(id).to_vec(),
            None,
        )
    }
    /// Adjacency in compressed form: the edges of state `v` are
    /// `order[start[v]..start[v + 1]]` (indices into `edges`).
    pub fn adjacency(&self) -> Csr {
        Csr::build(self.len(), self.edges.iter().map(|e| (e.from, e.to)))
    }
}

/// Draws `k` distinct elements of `pool` uniformly (partial Fisher–Yates,
/// in place: they end up in `pool[..k]`).
pub(crate) fn choose_k(rng: &mut Rng, pool: &mut [u32], k: usize) {
    let k = k.min(pool.len());
    for i in 0..k {
        let j = i + rng.below(pool.len() - i);
        pool.swap(i, j);
    }
}

/// Rejected draws after which a queue is built rather than drawn.
pub(crate) const UNIFORM_TRIES: usize = 1000;

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
