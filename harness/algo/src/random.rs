//! Resource-aware randomized exploration with a memory bound of `N` states.
//!
//! Reference: N. Abed, S. Tripakis, J.-M. Vincent, "Resource-Aware
//! Verification using Randomized Exploration of Large State Spaces"
//! (`../shared/papers/`). Names follow the paper: the memory size `N`
//! (states), the number of steps `n`, the stored set `V`, *covered* nodes,
//! *redundancy* `(n - k) / n`, *mean cover time*, URS, SDRS and their
//! re-initialized forms RURS and RSDRS.
//!
//! Every algorithm is an instance of the paper's generic scheme (Fig. 1):
//! a loop of *select* (the next node), *check* (the property) and *update*
//! (the stored set). One **step** is one select: one node is picked and one
//! of its successors, chosen uniformly, is *visited*; the number of steps is
//! the paper's time `n`. "A successor chosen uniformly" is a successor
//! *state*: several transitions to one state count once
//! ([`SuccessorChoice::State`]; `Transition`, a uniform transition, is kept
//! as an option).
//!
//! - **URS** (Uniform Random Search, Fig. 2): pick a stored state `u ∈ V`
//!   uniformly, then a successor `v` of `u` uniformly; if `v ∉ V` it is
//!   checked and stored.
//! - **SDRS** (simplified, memory-aware Deep Random Search): a random walk
//!   from the current node whose successors are stored as URS stores them;
//!   at a deadlock the step finds no successor (a *closed point*, Lemma 2)
//!   and the next step starts from a uniformly chosen state of `V` instead
//!   of the initial state.
//! - **Memory full**: `V` never holds more than `N` states. A successor that
//!   is not in `V` when `|V| = N` is checked (it was visited) but cannot be
//!   stored: URS and SDRS stop there; **RURS** and **RSDRS** empty the
//!   memory and restart, from the initial state or from a uniformly chosen
//!   state of the `V` being emptied ([`Restart`]).
//! - **Mixing parameter** `X ∈ [0, 1]` (URS, Section 4: "the rate of leaves
//!   or internal nodes to be explored"): with probability `X` the state `u`
//!   is drawn uniformly among the *leaves* (stored states never selected
//!   yet: depth-oriented), otherwise among the *internal* nodes (states
//!   already selected: breadth-oriented); from the other class when one is
//!   empty. Without `X`, `u` is uniform over `V` (plain URS).
//! - **Random walk** (the baseline): a uniform successor of the current
//!   state, restart from the initial state at a deadlock; one state stored.
//! - **Memory-bounded BFS** (the exhaustive baseline of Fig. 5): breadth-first
//!   search that stops when a new state no longer fits in `N`. One step is
//!   one successor looked at.
//!
//! **Evaluation only**: an exact [`StateStore`] of every state ever visited
//! (not part of the `N`-state memory) gives `covered`, the cover times of
//! given state counts in steps and seconds, samples of coverage over steps
//! and time, and `redundancy = (n - k) / n` where `k` is the number of steps
//! that covered a new state (`covered - 1`: the initial state is covered
//! before the first step).
//!
//! The figure of the URS/SDRS pseudo-code is not in the text we have; the
//! algorithms follow the paper's prose and the recursions of Lemmas 1 and 2
//! (a step from a deadlock is a step that covers nothing).

use std::time::{Duration, Instant};

use dve_frontend::model::{Label, NextState, Succ, SuccBuf};
use serde::Serialize;

use crate::check::GoalFn;
use crate::check::{Step, Trace};
use dvemc_engine::names::either;
use dvemc_engine::progress::Meter;
use dvemc_engine::rng::run_seeds;
use dvemc_engine::rng::Rng;
use dvemc_engine::trace::parent_steps;
use dvemc_engine::{BfsOptions, Budget, Control, Cx, Limits, Observer, Outcome, StateStore, Store};

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "kebab-case")]
pub enum Algo {
    Urs,
    Sdrs,
    RandomWalk,
    /// Memory-bounded breadth-first search.
    Bfs,
}

impl Algo {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// What happens when the memory is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "lowercase")]
pub enum Restart {
    /// Stop (URS, SDRS).
    Stop,
    /// Restart from the initial state (RURS, RSDRS).
    Initial,
    /// Restart from a uniformly chosen state of the memory being emptied.
    Random,
}

impl Restart {
    /// The restarts one may ask for (`Stop` is what urs and sdrs do).
    const ASKED: [Restart; 2] = [Restart::Initial, Restart::Random];

    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl std::str::FromStr for Restart {
    type Err = String;
    fn from_str(s: &str) -> Result<Restart, String> {
        Restart::ASKED.into_iter().find(|r| r.name() == s).ok_or_else(|| {
            format!(
                "unknown restart `{s}` (expected {}; urs and sdrs stop when the memory is full)",
                either(&Restart::ASKED.map(Restart::name))
            )
        })
    }
}

/// How a step chooses among the successors of the selected state.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "lowercase", parse_err_ty = String, parse_err_fn = unknown_choice)]
pub enum SuccessorChoice {
    /// A uniformly random successor *state* (the paper: "a successor of u
    /// chosen uniformly"): several transitions to one state count once.
    #[default]
    State,
    /// A uniformly random *transition*: a state reached by k transitions is
    /// k times as likely (dvemc's choice before the paper's was followed).
    Transition,
}

fn unknown_choice(s: &str) -> String {
    use strum::VariantNames;
    format!(
        "unknown successor choice `{s}` (expected {})",
        either(SuccessorChoice::VARIANTS)
    )
}

impl SuccessorChoice {
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The entry of `buf` (not empty) a step goes to. `firsts` is scratch.
    fn pick(self, rng: &mut Rng, buf: &SuccBuf, firsts: &mut Vec<usize>) -> usize {
        if self == SuccessorChoice::Transition || buf.len() == 1 {
            return rng.below(buf.len());
        }
        // The first entry of each distinct successor state (degrees are
        // small: pairwise comparison).
        firsts.clear();
        for i in 0..buf.len() {
            if !firsts.iter().any(|&j| buf.state(j) == buf.state(i)) {
                firsts.push(i);
            }
        }
        firsts[rng.below(firsts.len())]
    }
}

#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub algo: Algo,
    /// `N`: most states stored at once (at least 1).
    pub memory_states: usize,
    /// `n`: most steps.
    pub steps: u64,
    pub restart: Restart,
    pub successor_choice: SuccessorChoice,
    /// URS mixing parameter `X` (probability of selecting a leaf).
    pub mixing: Option<f64>,
    /// Budgets of one run: distinct states covered (`max_states`), the
    /// bytes of the memory and of the evaluation's covered set, wall time.
    pub limits: Limits,
    /// State counts whose cover times (first step and time at which
    /// `covered` reaches them) are recorded; ascending.
    pub cover_targets: Vec<u64>,
    /// Stop once the last cover target is reached.
    pub stop_when_covered: bool,
    /// Record a coverage sample every so many steps (0: never).
    pub sample_every: u64,
    /// Record a coverage sample at least this often in time.
    pub sample_interval: Option<Duration>,
    /// Where a run publishes its counters (the progress line: states
    /// covered, steps, restarts).
    pub meter: Option<Meter>,
}

impl SearchOptions {
    pub fn new(algo: Algo, memory_states: usize, steps: u64) -> SearchOptions {
        SearchOptions {
            algo,
            memory_states,
            steps,
            restart: Restart::Stop,
            successor_choice: SuccessorChoice::State,
            mixing: None,
            limits: Limits::default(),
            cover_targets: Vec::new(),
            stop_when_covered: false,
            sample_every: 0,
            sample_interval: None,
            meter: None,
        }
    }
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// `n` steps done.
    Steps,
    /// The memory was full and the algorithm does not restart.
    MemoryFull,
    /// The last cover target was reached.
    Covered,
    /// A goal state was found.
    Goal,
    TimeLimit,
    /// BFS explored the whole state space.
    Exhausted,
    /// `--max-states`: one more state would have been covered.
    StateLimit,
    /// `--memory-limit`.
    MemoryLimit,
    /// SIGINT or SIGTERM.
    Interrupted,
}

impl Stop {
    /// The stop of a budget.
    fn of(o: Outcome) -> Stop {
        match o {
            Outcome::StateLimit => Stop::StateLimit,
            Outcome::MemoryLimit => Stop::MemoryLimit,
            Outcome::Interrupted => Stop::Interrupted,
            _ => Stop::TimeLimit,
        }
    }

    /// The result of a run that ended so (`complete` for the algorithm's
    /// own ends).
    pub fn outcome(self) -> Outcome {
        match self {
            Stop::TimeLimit => Outcome::TimeLimit,
            Stop::StateLimit => Outcome::StateLimit,
            Stop::MemoryLimit => Outcome::MemoryLimit,
            Stop::Interrupted => Outcome::Interrupted,
            _ => Outcome::Complete,
        }
    }
}

/// Coverage at one moment of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sample {
    pub steps: u64,
    pub time_s: f64,
    pub covered: u64,
    pub restarts: u64,
}

/// One run.
#[derive(Clone, Debug, Serialize)]
pub struct SearchRun {
    pub algo: Algo,
    pub restart: Restart,
    pub seed: u64,
    pub memory_states: usize,
    pub stop: Stop,
    /// `n`: steps taken.
    pub steps: u64,
    pub restarts: u64,
    /// Most states held in the memory `V` at once (at most `N`).
    pub stored_peak: u64,
    /// Distinct states ever visited (the evaluation counter).
    pub covered: u64,
    /// `(n - k) / n`, `k = covered - 1`; 0 before the first step.
    pub redundancy: f64,
    pub time_s: f64,
    /// Per cover target: the step / time at which it was reached.
    pub cover_steps: Vec<Option<u64>>,
    pub cover_time_s: Vec<Option<f64>>,
    pub samples: Vec<Sample>,
    /// Step at which a goal state was found.
    pub goal_step: Option<u64>,
    #[serde(skip)]
    pub witness: Option<Trace>,
}

/// The memory `V`: states with a dense id, the transition each was first
/// reached by (for traces), and the leaf/internal partition for mixing.
struct Memory {
    store: StateStore,
    parent: Vec<(u32, Succ)>,
    /// Steps from the initial state to the root (id 0) after a random restart.
    prefix: Vec<Step>,
    /// `order[..internal]` are internal (already selected), the rest leaves.
    order: Vec<u32>,
    pos: Vec<u32>,
    internal: usize,
}

impl Memory {
    fn new(n: usize, root: &[u8], fp: u64, prefix: Vec<Step>) -> Memory {
        let mut m = Memory {
            store: StateStore::new(n),
            parent: Vec::new(),
            prefix,
            order: Vec::new(),
            pos: Vec::new(),
            internal: 0,
        };
        m.insert(root, fp, (NONE, NO_SUCC));
        m
    }
    fn len(&self) -> usize {
        self.store.len()
    }
    /// Bytes allocated.
    fn bytes(&self) -> usize {
        self.store.bytes_used()
            + self.parent.capacity() * 20
            + (self.order.capacity() + self.pos.capacity()) * 4
    }
    fn find(&self, s: &[u8], fp: u64) -> Option<u32> {
        self.store.find(s, fp)
    }
    fn insert(&mut self, s: &[u8], fp: u64, parent: (u32, Succ)) -> u32 {
        let (id, new) = self.store.insert(s, fp).split();
        debug_assert!(new);
        self.parent.push(parent);
        self.pos.push(self.order.len() as u32);
        self.order.push(id);
        id
    }
    fn mark_selected(&mut self, id: u32) {
        let p = self.pos[id as usize] as usize;
        if p >= self.internal {
            let other = self.order[self.internal];
            self.order.swap(p, self.internal);
            self.pos[other as usize] = p as u32;
            self.pos[id as usize] = self.internal as u32;
            self.internal += 1;
        }
    }
    fn select(&mut self, rng: &mut Rng, mixing: Option<f64>) -> u32 {
        let id = match mixing {
            None => rng.below(self.len()) as u32,
            Some(x) => {
                let leaves = self.len() - self.internal;
                let leaf = if leaves == 0 {
                    false
                } else if self.internal == 0 {
                    true
                } else {
                    rng.next_f64() < x
                };
                if leaf {
                    self.order[self.internal + rng.below(leaves)]
                } else {
                    self.order[rng.below(self.internal)]
                }
            }
        };
        self.mark_selected(id);
        id
    }
    /// The steps from the initial state to `id`.
    fn path_to(&self, id: u32) -> Vec<Step> {
        let steps = parent_steps(
            id,
            |id| self.parent[id as usize],
            |id| self.store.get(id).to_vec(),
        );
        let mut all = self.prefix.clone();
        all.extend(steps);
        all
    }
}

const NO_SUCC: Succ = Succ {
    label: Label {
        trans: NONE,
        partner: NONE,
        prop: NONE,
    },
    error: false,
};

/// Counters shared by the algorithms.
struct Eval<'a> {
    opts: &'a SearchOptions,
    start: Instant,
    budget: Budget,
    covered: StateStore,
    steps: u64,
    restarts: u64,
    stored_peak: u64,
    next_target: usize,
    cover_steps: Vec<Option<u64>>,
    cover_time_s: Vec<Option<f64>>,
    samples: Vec<Sample>,
    last_sample: Instant,
}

impl<'a> Eval<'a> {
    fn new(opts: &'a SearchOptions, n: usize) -> Eval<'a> {
        let start = Instant::now();
        Eval {
            opts,
            start,
            budget: Budget::new(&opts.limits, start).with_meter(opts.meter.clone()),
            covered: StateStore::new(n),
            steps: 0,
            restarts: 0,
            stored_peak: 0,
            next_target: 0,
            cover_steps: vec![None; opts.cover_targets.len()],
            cover_time_s: vec![None; opts.cover_targets.len()],
            samples: Vec::new(),
            last_sample: start,
        }
    }
    fn sample(&mut self, now: Instant) {
        self.last_sample = now;
        self.samples.push(Sample {
            steps: self.steps,
            time_s: (now - self.start).as_secs_f64(),
            covered: self.covered.len() as u64,
            restarts: self.restarts,
        });
    }
    /// Called before each step: the step and time budgets, and sampling.
    fn before_step(&mut self) -> Option<Stop> {
        if self.steps >= self.opts.steps {
            return Some(Stop::Steps);
        }
        if self.opts.sample_every > 0 && self.steps.is_multiple_of(self.opts.sample_every) {
            self.sample(Instant::now());
        }
        if self.steps & 255 == 0 {
            let covered = self.covered.len() as u64;
            if let Some(o) = self.budget.poll_with(covered, self.steps, self.restarts) {
                return Some(Stop::of(o));
            }
            if let Some(i) = self.opts.sample_interval {
                let now = Instant::now();
                if now - self.last_sample >= i {
                    self.sample(now);
                }
            }
        }
        self.steps += 1;
        None
    }
    /// Records a visit; `Some(Stop::Covered)` when the last target is
    /// reached, a budget's stop when the state would exceed it (`held`:
    /// the bytes the search holds besides the covered set).
    fn visit(&mut self, s: &[u8], fp: u64, held: usize) -> Option<Stop> {
        let new = match dvemc_engine::visit(&mut self.covered, &self.budget, held, s, fp) {
            Ok(ins) => ins.is_new(),
            Err(o) => return Some(Stop::of(o)),
        };
        if new {
            let c = self.covered.len() as u64;
            while self
                .opts
                .cover_targets
                .get(self.next_target)
                .is_some_and(|&t| c >= t)
            {
                self.cover_steps[self.next_target] = Some(self.steps);
                self.cover_time_s[self.next_target] = Some(self.start.elapsed().as_secs_f64());
                self.next_target += 1;
            }
            if self.opts.stop_when_covered
                && !self.opts.cover_targets.is_empty()
                && self.next_target == self.opts.cover_targets.len()
            {
                return Some(Stop::Covered);
            }
        }
        None
    }
    fn finish(
        mut self,
        algo: Algo,
        seed: u64,
        stop: Stop,
        goal_step: Option<u64>,
        witness: Option<Trace>,
    ) -> SearchRun {
        self.sample(Instant::now());
        let covered = self.covered.len() as u64;
        let k = covered.saturating_sub(1);
        SearchRun {
            algo,
            restart: self.opts.restart,
            seed,
            memory_states: self.opts.memory_states,
            stop,
            steps: self.steps,
            restarts: self.restarts,
            stored_peak: self.stored_peak,
            covered,
            redundancy: if self.steps > 0 {
                self.steps.saturating_sub(k) as f64 / self.steps as f64
            } else {
                0.0
            },
            time_s: self.start.elapsed().as_secs_f64(),
            cover_steps: self.cover_steps,
            cover_time_s: self.cover_time_s,
            samples: self.samples,
            goal_step,
            witness,
        }
    }
}

/// One run of the options' algorithm with `seed`. `goal`, if given, is
/// checked on every state entering the memory (every visited state for the
/// random walk and BFS); the run stops at the first goal state.
pub fn search(model: &dyn NextState, opts: &SearchOptions, goal: Option<GoalFn>, seed: u64) -> SearchRun {
    assert!(opts.memory_states >= 1, "the memory must hold at least one state");
    match opts.algo {
        Algo::Urs | Algo::Sdrs => urs_sdrs(model, opts, goal, seed),
        Algo::RandomWalk => random_walk(model, opts, goal, seed),
        Algo::Bfs => bounded_bfs(model, opts, goal, seed),
    }
}

fn urs_sdrs(model: &dyn NextState, opts: &SearchOptions, goal: Option<GoalFn>, seed: u64) -> SearchRun {
    let n = model.state_len();
    let mut rng = Rng::seeded(seed);
    let mut ev = Eval::new(opts, n);
    let mut buf = SuccBuf::new(n);
    let mut firsts: Vec<usize> = Vec::new();
    let init = model.initial_vec();
    let init_fp = model.fingerprint(&init);
    let mut mem = Memory::new(n, &init, init_fp, Vec::new());
    ev.stored_peak = 1;
    ev.visit(&init, init_fp, 0);
    if goal.is_some_and(|g| g(&init)) {
        let w = Trace::path(init.clone(), Vec::new());
        return ev.finish(opts.algo, seed, Stop::Goal, Some(0), Some(w));
    }
    let sdrs = opts.algo == Algo::Sdrs;
    let mixing = if sdrs { None } else { opts.mixing };
    // SDRS: the current node; None at a closed point.
    let mut current: Option<u32> = Some(0);
    let stop = loop {
        if let Some(stop) = ev.before_step() {
            break stop;
        }
        // select
        let u = if sdrs {
            match current {
                Some(c) => c,
                None => rng.below(mem.len()) as u32,
            }
        } else {
            mem.select(&mut rng, mixing)
        };
        model.successors(mem.store.get(u), &mut buf);
        if buf.is_empty() {
            current = None;
            continue;
        }
        let i = opts.successor_choice.pick(&mut rng, &buf, &mut firsts);
        let e = buf.entry(i);
        let v = buf.state(i);
        let fp = model.fingerprint(v);
        if let Some(stop) = ev.visit(v, fp, mem.bytes()) {
            break stop;
        }
        // update
        if let Some(id) = mem.find(v, fp) {
            current = Some(id);
            continue;
        }
        // check: v is new to V.
        if goal.is_some_and(|g| g(v)) {
            let mut steps = mem.path_to(u);
            steps.push(Step {
                label: e.label,
                error: e.error,
                state: v.to_vec(),
            });
            let w = Trace::path(init.clone(), steps);
            let step = ev.steps;
            return ev.finish(opts.algo, seed, Stop::Goal, Some(step), Some(w));
        }
        if mem.len() < opts.memory_states {
            let id = mem.insert(v, fp, (u, e));
            ev.stored_peak = ev.stored_peak.max(mem.len() as u64);
            current = Some(id);
            continue;
        }
        // The memory is full.
        match opts.restart {
            Restart::Stop => break Stop::MemoryFull,
            Restart::Initial => mem = Memory::new(n, &init, init_fp, Vec::new()),
            Restart::Random => {
                let r = rng.below(mem.len()) as u32;
                let root = mem.store.get(r).to_vec();
                // The path to the new root, kept only to report a goal's trace.
                let prefix = if goal.is_some() {
                    mem.path_to(r)
                } else {
                    Vec::new()
                };
                mem = Memory::new(n, &root, model.fingerprint(&root), prefix);
            }
        }
        ev.restarts += 1;
        current = Some(0);
    };
    ev.finish(opts.algo, seed, stop, None, None)
}

fn random_walk(model: &dyn NextState, opts: &SearchOptions, goal: Option<GoalFn>, seed: u64) -> SearchRun {
    let n = model.state_len();
    let mut rng = Rng::seeded(seed);
    let mut ev = Eval::new(opts, n);
    let mut buf = SuccBuf::new(n);
    let mut firsts: Vec<usize> = Vec::new();
    let init = model.initial_vec();
    let mut cur = init.clone();
    ev.stored_peak = 1;
    ev.visit(&init, model.fingerprint(&init), 0);
    // The walk since the last restart, kept only to report a goal's trace.
    let mut path: Vec<Step> = Vec::new();
    let trace = |path: &Vec<Step>| Trace::path(init.clone(), path.clone());
    if goal.is_some_and(|g| g(&init)) {
        return ev.finish(opts.algo, seed, Stop::Goal, Some(0), Some(trace(&path)));
    }
    let stop = loop {
        if let Some(stop) = ev.before_step() {
            break stop;
        }
        model.successors(&cur, &mut buf);
        if buf.is_empty() {
            cur.copy_from_slice(&init);
            path.clear();
            ev.restarts += 1;
            continue;
        }
        let i = opts.successor_choice.pick(&mut rng, &buf, &mut firsts);
        let v = buf.state(i);
        cur.copy_from_slice(v);
        if let Some(stop) = ev.visit(&cur, model.fingerprint(&cur), 0) {
            break stop;
        }
        if let Some(g) = goal {
            let e = buf.entry(i);
            path.push(Step {
                label: e.label,
                error: e.error,
                state: cur.clone(),
            });
            if g(&cur) {
                let step = ev.steps;
                return ev.finish(opts.algo, seed, Stop::Goal, Some(step), Some(trace(&path)));
            }
        }
    };
    ev.finish(opts.algo, seed, stop, None, None)
}

fn bounded_bfs(model: &dyn NextState, opts: &SearchOptions, goal: Option<GoalFn>, seed: u64) -> SearchRun {
    /// One step per successor looked at; the evaluation counters, the goal.
    struct Watch<'a, 'e> {
        model: &'a dyn NextState,
        ev: Eval<'e>,
        goal: Option<GoalFn<'a>>,
        stop: Option<Stop>,
        witness: Option<(u64, Trace)>,
    }
    impl<S: Store> Observer<S> for Watch<'_, '_> {
        const LABELS: bool = true;
        fn new_state(&mut self, cx: &Cx<S>, _id: u32, v: &[u8], via: Option<(u32, Succ)>) -> Control {
            let covered = self.ev.visit(v, self.model.fingerprint(v), cx.store.bytes_used());
            if let Some((src, e)) = via {
                if let Some(stop) = covered {
                    self.stop = Some(stop);
                    return Control::Stop;
                }
                self.ev.stored_peak = cx.store.len() as u64;
                if self.goal.is_some_and(|g| g(v)) {
                    self.witness = Some((self.ev.steps, cx.trace_via(src, Some((e, v)))));
                    return Control::Stop;
                }
            } else {
                self.ev.stored_peak = 1;
                if self.goal.is_some_and(|g| g(v)) {
                    self.witness = Some((0, cx.trace_via(0, None)));
                    return Control::Stop;
                }
            }
            Control::Continue
        }
        fn successor(&mut self, _cx: &Cx<S>, _src: u32, _e: Succ, _v: &[u8]) -> Control {
            match self.ev.before_step() {
                Some(stop) => {
                    self.stop = Some(stop);
                    Control::Stop
                }
                None => Control::Continue,
            }
        }
    }
    let mut w = Watch {
        model,
        ev: Eval::new(opts, model.state_len()),
        goal,
        stop: None,
        witness: None,
    };
    // The memory of N states is the state budget.
    let limits = Limits {
        max_states: Some(opts.memory_states as u64),
        ..Limits::default()
    };
    let budget = Budget::new(&limits, w.ev.start);
    let mut store = StateStore::new(model.state_len());
    let r = dvemc_engine::bfs(model, &mut store, &budget, BfsOptions { parents: true }, &mut w);
    if let Some((step, trace)) = w.witness {
        return w.ev.finish(opts.algo, seed, Stop::Goal, Some(step), Some(trace));
    }
    let stop = match (w.stop, r.counters.result) {
        (Some(stop), _) => stop,
        (None, Outcome::Complete) => Stop::Exhausted,
        (None, Outcome::StateLimit) => Stop::MemoryFull,
        (None, _) => Stop::TimeLimit,
    };
    w.ev.finish(opts.algo, seed, stop, None, None)
}

/// Means over a series of runs.
#[derive(Clone, Debug, Serialize)]
pub struct SearchSummary {
    pub algo: Algo,
    pub restart: Restart,
    pub memory_states: usize,
    pub mixing: Option<f64>,
    pub runs: usize,
    pub seed: u64,
    pub steps: f64,
    pub covered: f64,
    pub restarts: f64,
    /// Largest `stored_peak` of any run.
    pub stored_peak: u64,
    pub redundancy: f64,
    pub goal_found: u64,
    pub goal_rate: f64,
    pub cover_targets: Vec<u64>,
    /// Per target: runs that reached it, and their mean cover time.
    pub cover_reached: Vec<u64>,
    pub mean_cover_steps: Vec<Option<f64>>,
    pub mean_cover_time_s: Vec<Option<f64>>,
    pub time_s: f64,
}

/// Runs `runs` seeded runs (seeds from [`run_seeds`]) on up to `threads`
/// threads; returns the runs in order.
pub fn run_many(
    model: &dyn NextState,
    opts: &SearchOptions,
    goal: Option<GoalFn>,
    seed: u64,
    runs: usize,
    threads: usize,
) -> Vec<SearchRun> {
    let seeds = run_seeds(seed, runs);
    let threads = threads.clamp(1, runs.max(1));
    let mut all: Vec<SearchRun> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let seeds = &seeds;
                sc.spawn(move || {
                    (t..seeds.len())
                        .step_by(threads)
                        .map(|r| (r, search(model, opts, goal, seeds[r])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut v: Vec<(usize, SearchRun)> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("search worker"))
            .collect();
        v.sort_by_key(|(r, _)| *r);
        v.into_iter().map(|(_, run)| run).collect()
    });
    all.shrink_to_fit();
    all
}

/// The means of a series.
pub fn summarize(opts: &SearchOptions, seed: u64, runs: &[SearchRun]) -> SearchSummary {
    let m = runs.len().max(1) as f64;
    let mean = |f: &dyn Fn(&SearchRun) -> f64| runs.iter().map(f).sum::<f64>() / m;
    let t = opts.cover_targets.len();
    let mut reached = vec![0u64; t];
    let mut steps = vec![0f64; t];
    let mut secs = vec![0f64; t];
    for r in runs {
        for i in 0..t {
            if let (Some(s), Some(x)) = (r.cover_steps[i], r.cover_time_s[i]) {
                reached[i] += 1;
                steps[i] += s as f64;
                secs[i] += x;
            }
        }
    }
    let goal_found = runs.iter().filter(|r| r.goal_step.is_some()).count() as u64;
    SearchSummary {
        algo: opts.algo,
        restart: opts.restart,
        memory_states: opts.memory_states,
        mixing: opts.mixing,
        runs: runs.len(),
        seed,
        steps: mean(&|r| r.steps as f64),
        covered: mean(&|r| r.covered as f64),
        restarts: mean(&|r| r.restarts as f64),
        stored_peak: runs.iter().map(|r| r.stored_peak).max().unwrap_or(0),
        redundancy: mean(&|r| r.redundancy),
        goal_found,
        goal_rate: goal_found as f64 / m,
        cover_targets: opts.cover_targets.clone(),
        mean_cover_steps: (0..t)
            .map(|i| (reached[i] > 0).then(|| steps[i] / reached[i] as f64))
            .collect(),
        mean_cover_time_s: (0..t)
            .map(|i| (reached[i] > 0).then(|| secs[i] / reached[i] as f64))
            .collect(),
        cover_reached: reached,
        time_s: runs.iter().map(|r| r.time_s).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options' names, and the messages that list them.
    #[test]
    fn option_names_and_messages() {
        assert_eq!(Algo::RandomWalk.name(), "random-walk");
        assert_eq!(Restart::Stop.name(), "stop");
        assert_eq!("random".parse::<Restart>(), Ok(Restart::Random));
        assert_eq!(
            "stop".parse::<Restart>(),
            Err("unknown restart `stop` (expected initial or random; urs and sdrs stop when the memory is full)"
                .to_string())
        );
        assert_eq!(
            "transition".parse::<SuccessorChoice>(),
            Ok(SuccessorChoice::Transition)
        );
        assert_eq!(SuccessorChoice::State.name(), "state");
        assert_eq!(
            "edge".parse::<SuccessorChoice>(),
            Err("unknown successor choice `edge` (expected state or transition)".to_string())
        );
    }
}
