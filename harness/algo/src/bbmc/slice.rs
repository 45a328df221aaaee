//! Slices and how the paper's three algorithms build them (Algorithms 1-3).

use super::graph::{Csr, NONE};
use crate::check::Trace;
use dve_frontend::model::{Label, NextState, Succ, SuccBuf};
use dvemc_engine::progress::Meter;
use dvemc_engine::rng::Rng;
use dvemc_engine::store::StateStore;
use dvemc_engine::{visit, Budget, Limits, Outcome, POLL_MASK};
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
    let mut b = Builder::new(model, opts, start);
    let mut result = Outcome::Complete;
    let mut d: u32 = 0;
    loop {
        let q_lo = b.queue_starts[d as usize] as usize;
        let q_hi = b.seen_of.len();
        if q_lo == q_hi {
            // Q_d is empty (not reached: an empty pick ends the loop below).
            break;
        }
        if let Err(o) = b.expand_queue(d, q_lo, q_hi) {
            result = o;
            break;
        }
        let size = b.candidates(d, q_hi - q_lo);
        if let Err(o) = b.pick(rng, d, size) {
            // Q_d's successors were not chosen: it counts as unexpanded,
            // as when the budget stops its expansion.
            for deg in &mut b.model_degree[q_lo..q_hi] {
                *deg = NONE;
            }
            result = o;
            break;
        }
        b.add_queue(d);
        b.classify(d, q_lo, q_hi - q_lo);
        if b.picked.is_empty() {
            break;
        }
        d += 1;
    }
    if result != Outcome::Complete {
        // Drop the queue whose successors were not chosen.
        while b
            .queue_starts
            .last()
            .is_some_and(|&s| s as usize >= b.seen_of.len())
        {
            b.queue_starts.pop();
        }
    }
    b.finish(result, start)
}

/// A slice under construction.
struct Builder<'a> {
    model: &'a dyn NextState,
    opts: &'a SliceOptions,
    budget: Budget,
    n: usize,
    buf: SuccBuf,
    /// Every generated state (V and the states considered but not
    /// chosen); `slice_of[seen id]` is its slice id or NONE.
    seen: StateStore,
    slice_of: Vec<u32>,
    /// Per seen id: last queue in which it was put in R / was picked.
    r_mark: Vec<u32>,
    pick_mark: Vec<u32>,
    /// Per seen id: the draw (`stamp`) that last put it in a tried queue.
    try_mark: Vec<u32>,
    stamp: u32,
    biased_queues: u64,
    // Per slice id.
    seen_of: Vec<u32>,
    queue: Vec<u32>,
    queue_starts: Vec<u32>,
    parent: Vec<(u32, Succ)>,
    model_degree: Vec<u32>,
    edges: Vec<SliceEdge>,
    /// Transitions to states outside V when they were looked at: (from
    /// slice id, to seen id, entry); jumps if the target joins V later.
    pending: Vec<(u32, u32, Succ)>,
    /// V on its own, in slice order, filled as states join V (so that a
    /// stopped construction returns at once, whatever V's size).
    states: StateStore,
    /// Successors of the current queue: entries `flat[lo[i]..lo[i + 1]]`
    /// for its i-th state, as (seen id, entry).
    flat: Vec<(u32, Succ)>,
    lo: Vec<usize>,
    r_list: Vec<u32>,
    /// States of Q_d that are not sinks and have no successor in V (by
    /// index in Q_d).
    needy: Vec<u32>,
    /// The candidates for the next queue.
    candidates: Vec<u32>,
    picked: Vec<u32>,
    pool: Vec<u32>,
    successors: u64,
    expansions: u64,
}

impl<'a> Builder<'a> {
    /// The builder, V holding the initial state.
    fn new(model: &'a dyn NextState, opts: &'a SliceOptions, start: Instant) -> Builder<'a> {
        let n = model.state_len();
        let mut seen = StateStore::new(n);
        let mut states = StateStore::new(n);
        let init = model.initial_vec();
        seen.insert(&init, model.fingerprint(&init));
        states.insert(&init, model.fingerprint(&init));
        Builder {
            model,
            opts,
            budget: Budget::new(&opts.limits, start).with_meter(opts.meter.clone()),
            n,
            buf: SuccBuf::new(n),
            seen,
            slice_of: vec![0],
            r_mark: vec![NONE],
            pick_mark: vec![NONE],
            try_mark: vec![0],
            stamp: 0,
            biased_queues: 0,
            seen_of: vec![0],
            queue: vec![0],
            queue_starts: vec![0],
            parent: vec![(0, none())],
            model_degree: vec![NONE],
            edges: Vec::new(),
            pending: Vec::new(),
            states,
            flat: Vec::new(),
            lo: Vec::new(),
            r_list: Vec::new(),
            needy: Vec::new(),
            candidates: Vec::new(),
            picked: Vec::new(),
            pool: Vec::new(),
            successors: 0,
            expansions: 0,
        }
    }

    /// What the construction holds besides `seen`: per seen state, per
    /// slice state (and its copy in the slice's own store at the end), the
    /// expansion of Q_d and the transitions, each vector counted with its
    /// next doubling.
    fn aux_bytes(&self) -> usize {
        let flat = self.flat.capacity();
        let (edges, pending) = (self.edges.capacity(), self.pending.capacity());
        self.seen.len() * 16
            + self.seen_of.len() * (28 + self.n + 16)
            + 2 * (flat.max(64) * 20 + edges * std::mem::size_of::<SliceEdge>() + pending * 24)
    }

    /// Expands Q_d (slice ids `q_lo..q_hi`) into `flat`, R into `r_list`;
    /// a stop leaves Q_d unexpanded.
    fn expand_queue(&mut self, d: u32, q_lo: usize, q_hi: usize) -> Result<(), Outcome> {
        self.flat.clear();
        self.lo.clear();
        self.r_list.clear();
        for s in q_lo..q_hi {
            if let Err(o) = self.expand_one(d, s) {
                for deg in &mut self.model_degree[q_lo..=s.min(q_hi - 1)] {
                    *deg = NONE;
                }
                return Err(o);
            }
        }
        self.lo.push(self.flat.len());
        Ok(())
    }

    /// Expands the slice state `s` of Q_d.
    fn expand_one(&mut self, d: u32, s: usize) -> Result<(), Outcome> {
        if self.expansions & POLL_MASK == 0 && self.expansions > 0 {
            let stop = self
                .budget
                .poll_with(self.seen.len() as u64, self.successors, d as u64);
            if let Some(o) = stop {
                return Err(o);
            }
        }
        self.expansions += 1;
        self.lo.push(self.flat.len());
        let model = self.model;
        model.successors(self.seen.get(self.seen_of[s]), &mut self.buf);
        self.model_degree[s] = self.buf.len() as u32;
        self.successors += self.buf.len() as u64;
        for i in 0..self.buf.len() {
            let (e, t) = (self.buf.entry(i), self.buf.state(i));
            let frontier = self.aux_bytes();
            let (id, new) = visit(&mut self.seen, &self.budget, frontier, t, model.fingerprint(t))?.split();
            if new {
                self.slice_of.push(NONE);
                self.r_mark.push(NONE);
                self.pick_mark.push(NONE);
                self.try_mark.push(0);
            }
            self.flat.push((id, e));
            if self.slice_of[id as usize] == NONE && self.r_mark[id as usize] != d {
                self.r_mark[id as usize] = d;
                self.r_list.push(id);
            }
        }
        Ok(())
    }

    /// The successors of the i-th state of Q_d.
    fn succ(&self, i: usize) -> &[(u32, Succ)] {
        &self.flat[self.lo[i]..self.lo[i + 1]]
    }

    /// The needy states of Q_d (`width` states), the candidates for the
    /// next queue, and its size.
    fn candidates(&mut self, d: u32, width: usize) -> usize {
        let opts = self.opts;
        self.needy.clear();
        if opts.total {
            for i in 0..width {
                let succ = self.succ(i);
                if !succ.is_empty() && succ.iter().all(|&(id, _)| self.slice_of[id as usize] == NONE) {
                    self.needy.push(i as u32);
                }
            }
        }
        let degrading = opts.total && opts.degrade_depth.is_some_and(|dd| d >= dd);
        self.candidates.clear();
        if degrading {
            // Line 7-8 of Algorithm 3: R is the needy states, the
            // candidates succ(R), the queue |R|-close to succ(R).
            for &i in &self.needy {
                let succ = &self.flat[self.lo[i as usize]..self.lo[i as usize + 1]];
                self.candidates.extend(succ.iter().map(|&(id, _)| id));
            }
            self.candidates.sort_unstable();
            self.candidates.dedup();
            self.needy.len().min(self.candidates.len())
        } else {
            self.candidates.extend_from_slice(&self.r_list);
            opts.breadth.min(self.r_list.len())
        }
    }

    /// The next queue into `picked`: a uniformly random `size`-subset of
    /// the candidates that serves every needy state, as the paper draws
    /// it ("uniformly among all admissible subsets"). Counting the
    /// admissible subsets is a hitting-set count, so we draw by rejection:
    /// a uniform subset, kept if it serves every needy state. After
    /// `UNIFORM_TRIES` rejections (many needy states with few successors
    /// each) we build one instead ([`Self::pick_biased`]).
    fn pick(&mut self, rng: &mut Rng, d: u32, size: usize) -> Result<(), Outcome> {
        self.picked.clear();
        let tries = if self.needy.is_empty() { 1 } else { UNIFORM_TRIES };
        for _ in 0..tries {
            // A try shuffles every candidate: a draw of many rejections
            // takes long enough to need the budget's check.
            if let Some(o) = self.budget.poll() {
                return Err(o);
            }
            self.pool.clear();
            self.pool.extend_from_slice(&self.candidates);
            choose_k(rng, &mut self.pool, size);
            let stamp = self.stamp.wrapping_add(1).max(1);
            self.stamp = stamp;
            for &id in &self.pool[..size] {
                self.try_mark[id as usize] = stamp;
            }
            let serves = |i: &u32| {
                self.flat[self.lo[*i as usize]..self.lo[*i as usize + 1]]
                    .iter()
                    .any(|&(id, _)| self.try_mark[id as usize] == stamp)
            };
            if self.needy.iter().all(serves) {
                self.picked.extend_from_slice(&self.pool[..size]);
                break;
            }
        }
        if self.picked.is_empty() && size > 0 {
            self.pick_biased(rng, d, size);
        }
        for &id in &self.picked {
            self.pick_mark[id as usize] = d;
        }
        Ok(())
    }

    /// A next queue built rather than drawn: each needy state not yet
    /// served gets a random successor and the rest is drawn uniformly.
    /// Every admissible subset can still come, not all with the same
    /// probability; such queues are counted (`biased_queues`).
    fn pick_biased(&mut self, rng: &mut Rng, d: u32, size: usize) {
        self.biased_queues += 1;
        let k = self.needy.len();
        choose_k(rng, &mut self.needy, k);
        for &i in &self.needy {
            let succ = &self.flat[self.lo[i as usize]..self.lo[i as usize + 1]];
            if succ.iter().any(|&(id, _)| self.pick_mark[id as usize] == d) {
                continue;
            }
            // A uniformly random successor (distinct states).
            self.pool.clear();
            for &(id, _) in succ {
                if !self.pool.contains(&id) {
                    self.pool.push(id);
                }
            }
            let id = self.pool[rng.below(self.pool.len())];
            self.pick_mark[id as usize] = d;
            self.picked.push(id);
        }
        // |Q_d| <= N, so the picks never exceed the queue's size.
        debug_assert!(self.picked.len() <= size);
        self.pool.clear();
        let pick_mark = &self.pick_mark;
        self.pool.extend(
            self.candidates
                .iter()
                .copied()
                .filter(|&id| pick_mark[id as usize] != d),
        );
        let more = size.saturating_sub(self.picked.len());
        choose_k(rng, &mut self.pool, more);
        self.picked
            .extend_from_slice(&self.pool[..more.min(self.pool.len())]);
    }

    /// V := V ∪ Q_{d+1}.
    fn add_queue(&mut self, d: u32) {
        if !self.picked.is_empty() {
            self.queue_starts.push(self.seen_of.len() as u32);
        }
        for &id in &self.picked {
            self.slice_of[id as usize] = self.seen_of.len() as u32;
            self.seen_of.push(id);
            let s = self.seen.get(id);
            self.states.insert(s, self.model.fingerprint(s));
            self.queue.push(d + 1);
            self.parent.push((NONE, none()));
            self.model_degree.push(NONE);
        }
    }

    /// Classifies the transitions of Q_d (`width` states from slice id
    /// `q_lo`): back edges and single steps now, the others kept for jumps.
    fn classify(&mut self, d: u32, q_lo: usize, width: usize) {
        for i in 0..width {
            let from = (q_lo + i) as u32;
            for &(id, e) in &self.flat[self.lo[i]..self.lo[i + 1]] {
                let to = self.slice_of[id as usize];
                if to == NONE {
                    self.pending.push((from, id, e));
                    continue;
                }
                let kind = if self.queue[to as usize] <= d {
                    EdgeKind::BackEdge
                } else {
                    if self.parent[to as usize].0 == NONE {
                        self.parent[to as usize] = (from, e);
                    }
                    EdgeKind::SingleStep
                };
                self.edges.push(SliceEdge {
                    from,
                    to,
                    label: e.label,
                    error: e.error,
                    kind,
                });
            }
        }
    }

    /// The slice, with its jumps found a posteriori.
    fn finish(mut self, result: Outcome, start: Instant) -> Slice {
        for &(from, id, e) in &self.pending {
            let to = self.slice_of[id as usize];
            if to != NONE {
                debug_assert!(self.queue[to as usize] > self.queue[from as usize] + 1);
                self.edges.push(SliceEdge {
                    from,
                    to,
                    label: e.label,
                    error: e.error,
                    kind: EdgeKind::Jump,
                });
            }
        }
        let edges = self.edges;
        let count = |k: EdgeKind| edges.iter().filter(|e| e.kind == k).count() as u64;
        let (single_steps, back_edges, jumps) = (
            count(EdgeKind::SingleStep),
            count(EdgeKind::BackEdge),
            count(EdgeKind::Jump),
        );
        debug_assert_eq!(self.states.len(), self.seen_of.len());
        let opts = self.opts;
        Slice {
            algorithm: opts.algorithm(),
            breadth: opts.breadth,
            degrade_depth: if opts.total { opts.degrade_depth } else { None },
            result,
            states: self.states,
            queue: self.queue,
            queue_starts: self.queue_starts,
            parent: self.parent,
            model_degree: self.model_degree,
            edges,
            single_steps,
            back_edges,
            jumps,
            biased_queues: self.biased_queues,
            generated: self.seen.len() as u64,
            successors: self.successors,
            time_s: start.elapsed().as_secs_f64(),
        }
    }
}

/// The entry of the initial state, which no transition reached.
fn none() -> Succ {
    Succ {
        label: Label::local(NONE),
        error: false,
    }
}
