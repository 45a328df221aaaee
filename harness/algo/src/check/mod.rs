//! Property checking with counterexamples: deadlocks, assertions, run-time
//! errors and reachability goals during a BFS or DFS, and accepting cycles
//! of a property process (LTL through a Büchi automaton) by nested DFS.
//!
//! **What it guarantees**: every reachable state is checked (a run that
//! ends `complete` without a violation proves the property, `holds`); the
//! first violation stops the run unless all violations are counted. BFS
//! gives shortest counterexamples (parent links per state); DFS reads the
//! path from its stack. Nested DFS is the algorithm of Courcoubetis, Vardi,
//! Wolper and Yannakakis (1992) with the stack test of Holzmann, Peled and
//! Yannakakis: the inner search, started in post-order from each accepting
//! state, stops at any state on the outer stack, which closes a cycle
//! through that accepting state.
//!
//! **Memory**: the exact state store; BFS adds a parent id and a label per
//! state; DFS keeps the successors of the states on its stack; nested DFS
//! adds two bits per state.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use dve_frontend::interp;
use dve_frontend::ir;
use dve_frontend::model::{ModelInfo, NextState, Succ, NONE};

use dvemc_engine::loops::parallel::ParallelRun;
use serde::Serialize;

use crate::export::{LoggedObserver, LoggedWatch};
use crate::lts::EdgeLog;
use crate::por::Reducer;
use crate::system_deadlock::SystemView;
use dvemc_engine::Reduce;
use dvemc_engine::{
    self, peak_rss_bytes, BfsOptions, Budget, Control, Counters, Cx, DfsOptions, Insert, Limits, Observer,
    Outcome, Root, StateStore, Store, StoreKind,
};
mod nested;

pub use dvemc_engine::{Step, Trace};
use nested::Nested;

/// The state checks to make besides goals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    pub deadlock: bool,
    pub assert: bool,
    /// A transition that raises a run-time error (leads to the error state).
    pub error: bool,
}

impl Checks {
    /// The value of `--check` that asks for these checks.
    pub fn option_value(self) -> String {
        let names: Vec<&str> = [
            (self.deadlock, "deadlock"),
            (self.assert, "assert"),
            (self.error, "error"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(",")
        }
    }
}

/// A reachability goal: found when the expression is non-zero.
#[derive(Clone, Debug)]
pub struct Goal {
    pub text: String,
    pub expr: ir::Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Search {
    Bfs,
    Dfs,
    /// Nested DFS for accepting cycles.
    Ndfs,
    /// Nested DFS on several threads (CNDFS).
    Cndfs,
}

impl Search {
    pub fn name(self) -> &'static str {
        match self {
            Search::Bfs => "bfs",
            Search::Dfs => "dfs",
            Search::Ndfs => "ndfs",
            Search::Cndfs => "cndfs",
        }
    }
}

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub search: Search,
    pub checks: Checks,
    pub goals: Vec<Goal>,
    /// Count every violation instead of stopping at the first.
    pub all_violations: bool,
    pub limits: Limits,
    /// Where the progress line reads the counters.
    pub meter: Option<dvemc_engine::progress::Meter>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    Deadlock,
    Assert,
    Goal,
    AcceptingCycle,
    ErrorState,
}

impl ViolationKind {
    pub fn name(self) -> &'static str {
        match self {
            ViolationKind::Deadlock => "deadlock",
            ViolationKind::Assert => "assert",
            ViolationKind::Goal => "goal",
            ViolationKind::AcceptingCycle => "accepting_cycle",
            ViolationKind::ErrorState => "error_state",
        }
    }
}

/// A set of violation kinds: those a run counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kinds(u8);

impl Kinds {
    pub fn insert(&mut self, k: ViolationKind) {
        self.0 |= 1 << k as u8;
    }
    pub fn contains(self, k: ViolationKind) -> bool {
        self.0 & (1 << k as u8) != 0
    }
}

/// A check's verdict; its name (`holds`, `violated`, `unknown`) is the
/// record's word for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Verdict {
    Holds,
    Violated,
    /// A budget ended the search before a violation or a proof.
    Unknown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

#[derive(Clone, Debug)]
pub struct Violation {
    pub kind: ViolationKind,
    /// What was violated: the goal's text, the assertion, ...
    pub detail: String,
    pub trace: Trace,
}

#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub model: String,
    pub strategy: Search,
    pub verdict: Verdict,
    pub violation_kind: Option<ViolationKind>,
    pub violation: Option<String>,
    /// Transitions of the counterexample (stem plus cycle for a lasso).
    pub cex_length: Option<usize>,
    /// Violations counted (1 when the first one stops the run).
    pub violations: u64,
    /// How the search ended, and its counters.
    #[serde(flatten)]
    pub counters: Counters,
    pub time_s: f64,
    pub states_per_s: f64,
    /// Bytes of the state store at the end.
    pub store_bytes: u64,
    pub bytes_per_state: f64,
    pub peak_rss_bytes: u64,
    #[serde(skip)]
    pub first: Option<Violation>,
    /// The kinds of the violations counted (more than the first's only
    /// with `all_violations`).
    #[serde(skip)]
    pub violated: Kinds,
    /// The violation that ended the search, if one did (none when it ran
    /// to its end or a budget stopped it).
    #[serde(skip)]
    pub stopped_by: Option<ViolationKind>,
}

impl CheckReport {
    /// Counts `seconds` of another pass of the same check in its time and
    /// rate.
    pub fn add_time(&mut self, seconds: f64) {
        self.time_s += seconds;
        self.states_per_s = if self.time_s > 0.0 {
            self.counters.states as f64 / self.time_s
        } else {
            0.0
        };
    }
}

/// The state functions a check evaluates through the model boundary, in
/// order: the goals, then every assertion (processes in order, each
/// process's assertions in order). Build the backend with them
/// (`backend::build_with`) so that the JIT evaluates them natively.
pub fn state_functions(ir: &ir::Model, goals: &[Goal]) -> Vec<ir::Expr> {
    goals
        .iter()
        .map(|g| g.expr.clone())
        .chain(
            ir.processes
                .iter()
                .flat_map(|p| p.asserts.iter().map(|(_, e, _)| e.clone())),
        )
        .collect()
}

/// The property side: what to check in a state.
pub struct Prop<'a> {
    model: &'a ir::Model,
    /// Evaluates the state functions.
    backend: &'a dyn NextState,
    /// The backend was built with [`state_functions`]; else (a model
    /// built without them) the interpreter's evaluator reads the IR.
    native: bool,
    opts: &'a CheckOptions,
    /// Partial-order reduction of the successors.
    reducer: Option<&'a Reducer>,
    /// The kinds of the violations a parallel search found ([`Kinds`]).
    seen: AtomicU8,
    /// Under a property process, with deadlocks checked: whether the
    /// system can move in a product state without successors.
    system: Option<SystemView>,
}

impl<'a> Prop<'a> {
    fn new(
        model: &'a ir::Model,
        backend: &'a dyn NextState,
        opts: &'a CheckOptions,
        reducer: Option<&'a Reducer>,
    ) -> Prop<'a> {
        let functions = opts.goals.len() + model.processes.iter().map(|p| p.asserts.len()).sum::<usize>();
        Prop {
            model,
            backend,
            native: functions > 0 && backend.state_functions() == functions,
            opts,
            reducer,
            seen: AtomicU8::new(0),
            system: opts.checks.deadlock.then(|| SystemView::new(model)).flatten(),
        }
    }

    /// Whether a state without successors is a deadlock of the system
    /// (see [`crate::system_deadlock`]).
    fn system_deadlock(&self, state: &[u8]) -> bool {
        self.system.as_ref().is_none_or(|v| v.deadlocked(state))
    }

    /// Whether state function `i` (expression `e`) holds in `s`; one that
    /// cannot be evaluated (a run-time error) does not.
    #[inline]
    fn holds(&self, i: usize, e: &ir::Expr, s: &[u8]) -> bool {
        let v = if self.native {
            self.backend.state_function(i, s)
        } else {
            interp::eval(e, s).ok()
        };
        matches!(v, Some(v) if v != 0)
    }

    /// A violation visible in the state itself (goal or assertion).
    fn state_violation(&self, s: &[u8]) -> Option<(ViolationKind, String)> {
        for (i, g) in self.opts.goals.iter().enumerate() {
            if self.holds(i, &g.expr, s) {
                return Some((ViolationKind::Goal, g.text.clone()));
            }
        }
        if self.opts.checks.assert && !self.model.is_error_state(s) {
            let mut i = self.opts.goals.len();
            for p in &self.model.processes {
                let cs = u16::from_le_bytes([s[p.state_offset], s[p.state_offset + 1]]);
                for (state, e, text) in &p.asserts {
                    // An assertion that cannot be evaluated counts as violated.
                    if *state == cs && !self.holds(i, e, s) {
                        return Some((
                            ViolationKind::Assert,
                            assertion_text(self.backend.info(), e, text, s),
                        ));
                    }
                    i += 1;
                }
            }
        }
        None
    }
}

/// A violated assertion as people read it: its text (`P: assert in s:
/// expr`), then the values it read in the violating state `s`.
fn assertion_text(info: &ModelInfo, e: &ir::Expr, text: &str, s: &[u8]) -> String {
    let mut offsets = Vec::new();
    interp::reads(e, s, &mut offsets);
    let values: Vec<String> = offsets
        .iter()
        .filter_map(|&off| info.slots.iter().find(|slot| slot.offset == off))
        .map(|slot| format!("{} = {}", slot.name, info.value_text(slot, s)))
        .collect();
    let mut out = text.to_string();
    if let Err(why) = interp::eval(e, s) {
        out += &format!(", which cannot be evaluated ({why})");
    }
    if !values.is_empty() {
        out += &format!(", where {}", values.join(", "));
    }
    out
}

/// The violation with what failed named: a run-time error's kind, found by
/// re-evaluating the last step on the reference interpreter (the JIT only
/// flags errors), and the transition it happened on; a lasso shortened
/// ([`crate::lasso`]).
fn explain(ir: &ir::Model, model: &dyn NextState, mut v: Violation) -> Violation {
    let info = model.info();
    if v.trace.cycle_start.is_some() {
        v.trace = crate::lasso::shorten(model, &v.trace);
    }
    if let (ViolationKind::ErrorState, Some(step)) = (v.kind, v.trace.steps.last()) {
        let src = v.trace.state(v.trace.steps.len() - 1);
        let why = interp::Interpreter::new(ir.clone())
            .step_error(src, step.label)
            .map_or_else(|| "run-time error".to_string(), |e| e.to_string());
        v.detail = format!("{why} in {}", info.label_detail(&step.label));
    }
    v
}

/// The checks of [`CheckOptions`] one state at a time, for a run that
/// follows one path (`dvemc simulate`): the same goals, assertions and
/// messages as the searches.
pub struct StateChecks<'a> {
    prop: Prop<'a>,
}

impl<'a> StateChecks<'a> {
    pub fn new(model: &'a dyn NextState, ir: &'a ir::Model, opts: &'a CheckOptions) -> StateChecks<'a> {
        StateChecks {
            prop: Prop::new(ir, model, opts, None),
        }
    }

    /// A goal reached or an assertion violated in `s`.
    pub fn state(&self, s: &[u8]) -> Option<(ViolationKind, String)> {
        self.prop.state_violation(s)
    }

    /// The checks asked besides goals and assertions.
    pub fn checks(&self) -> Checks {
        self.prop.opts.checks
    }

    /// The violation as the searches report it (a run-time error named).
    pub fn explain(&self, v: Violation) -> Violation {
        explain(self.prop.model, self.prop.backend, v)
    }
}

/// A state predicate (a reachability goal), shareable between threads.
pub type GoalFn<'a> = &'a (dyn Fn(&[u8]) -> bool + Sync);

/// A reachability predicate from compiled goals (any of them non-zero),
/// evaluated by `model`'s state functions when it was built with the goals
/// first (`state_functions`), else by the interpreter's evaluator.
pub fn goal_predicate<'a>(model: &'a dyn NextState, goals: &'a [Goal]) -> impl Fn(&[u8]) -> bool + Sync + 'a {
    let native = model.state_functions() >= goals.len();
    move |s: &[u8]| {
        goals.iter().enumerate().any(|(i, g)| {
            let v = if native {
                model.state_function(i, s)
            } else {
                interp::eval(&g.expr, s).ok()
            };
            matches!(v, Some(v) if v != 0)
        })
    }
}

/// The violation bookkeeping shared by the searches.
struct Run {
    violations: u64,
    first: Option<Violation>,
    all: bool,
    kinds: Kinds,
    stopped_by: Option<ViolationKind>,
}

impl Run {
    fn new(all: bool) -> Run {
        Run {
            violations: 0,
            first: None,
            all,
            kinds: Kinds::default(),
            stopped_by: None,
        }
    }

    /// Records a violation; true when the search should stop.
    fn violation(&mut self, kind: ViolationKind, detail: String, trace: impl FnOnce() -> Trace) -> bool {
        self.violations += 1;
        self.kinds.insert(kind);
        if self.first.is_none() {
            self.first = Some(Violation {
                kind,
                detail,
                trace: trace(),
            });
        }
        if !self.all {
            self.stopped_by = Some(kind);
        }
        !self.all
    }
}

/// The checking observer: goals and assertions on every new state,
/// deadlocks (of the system: under a property process, a state where only
/// the property moves), run-time errors on every erroneous transition.
struct Checker<'a> {
    prop: Prop<'a>,
    run: Run,
    /// The last state found deadlocked by its stutter steps (each of its
    /// property moves is one).
    stutter: Option<u32>,
}

impl Checker<'_> {
    fn control(stop: bool) -> Control {
        if stop {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

impl<S: Store> Observer<S> for Checker<'_> {
    const LABELS: bool = true;

    fn reducer(&self) -> Option<&dyn Reduce> {
        self.prop.reducer.map(|r| r as &dyn Reduce)
    }

    fn new_state(&mut self, cx: &Cx<S>, _id: u32, state: &[u8], via: Option<(u32, Succ)>) -> Control {
        let Some((kind, detail)) = self.prop.state_violation(state) else {
            return Control::Continue;
        };
        let stop = self.run.violation(kind, detail, || match via {
            None => cx.trace_via(0, None),
            Some((src, e)) => cx.trace_via(src, Some((e, state))),
        });
        Checker::control(stop)
    }

    fn successor(&mut self, cx: &Cx<S>, src: u32, e: Succ, state: &[u8]) -> Control {
        // Only the property process moves: the system is deadlocked in
        // `src` (the product stutters there, so `deadlock` never sees it).
        if e.label.trans == NONE && self.prop.opts.checks.deadlock && self.stutter != Some(src) {
            self.stutter = Some(src);
            let stop = self
                .run
                .violation(ViolationKind::Deadlock, "deadlock".into(), || {
                    cx.trace_via(src, None)
                });
            if stop {
                return Control::Stop;
            }
        }
        if !(e.error && self.prop.opts.checks.error) {
            return Control::Continue;
        }
        let stop = self
            .run
            .violation(ViolationKind::ErrorState, "run-time error".into(), || {
                cx.trace_via(src, Some((e, state)))
            });
        Checker::control(stop)
    }

    fn deadlock(&mut self, cx: &Cx<S>, id: u32) -> Control {
        if !self.prop.opts.checks.deadlock || !self.prop.system_deadlock(&cx.state(id)) {
            return Control::Continue;
        }
        let stop = self
            .run
            .violation(ViolationKind::Deadlock, "deadlock".into(), || {
                cx.trace_via(id, None)
            });
        Checker::control(stop)
    }
}

impl Prop<'_> {
    /// Notes the kind of `found`, a violation a parallel search counts.
    fn seen(&self, found: Option<(ViolationKind, String)>) -> Option<(ViolationKind, String)> {
        if let Some((k, _)) = &found {
            self.seen.fetch_or(1 << *k as u8, Ordering::Relaxed);
        }
        found
    }
}

/// The parallel search's view of the properties.
impl dvemc_engine::loops::parallel::Watch for Prop<'_> {
    type Found = (ViolationKind, String);
    fn state(&self, state: &[u8]) -> Option<Self::Found> {
        self.seen(self.state_violation(state))
    }
    fn system_deadlock(&self, state: &[u8]) -> bool {
        Prop::system_deadlock(self, state)
    }
    fn deadlock(&self) -> Option<Self::Found> {
        self.seen(
            self.opts
                .checks
                .deadlock
                .then(|| (ViolationKind::Deadlock, "deadlock".into())),
        )
    }
    fn error(&self) -> Option<Self::Found> {
        self.seen(
            self.opts
                .checks
                .error
                .then(|| (ViolationKind::ErrorState, "run-time error".into())),
        )
    }
    fn accepting_cycle(&self) -> Option<Self::Found> {
        self.seen(Some((ViolationKind::AcceptingCycle, "accepting cycle".into())))
    }
    fn all(&self) -> bool {
        self.opts.all_violations
    }
    fn reducer(&self) -> Option<&dyn Reduce> {
        self.reducer.map(|r| r as &dyn Reduce)
    }
}

/// [`check`] on `threads` threads: a breadth-first check (deadlocks,
/// assertions, goals, run-time errors) runs on the parallel search
/// (`engine::loops::parallel`), its counterexample a shortest path as with one
/// thread; DFS on the depth-first-like one (`engine::loops::parallel_dfs`);
/// nested DFS becomes CNDFS (`engine::loops::cndfs`).
pub fn check_threads(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    threads: usize,
) -> CheckReport {
    check_reduced(model, ir, opts, threads, None)
}

/// [`check_threads`] with the successors cut by `reducer` (partial-order
/// reduction; BFS and DFS, not nested DFS), built for the same goals and
/// assertions.
pub fn check_reduced(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    threads: usize,
    reducer: Option<&Reducer>,
) -> CheckReport {
    check_with(model, ir, opts, threads, reducer, None)
}

/// [`check_threads`] recording every transition in `log` (`--export`;
/// BFS and DFS).
pub fn check_logged(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    threads: usize,
    log: &EdgeLog,
) -> CheckReport {
    assert!(
        matches!(opts.search, Search::Bfs | Search::Dfs),
        "the export is of BFS or DFS"
    );
    check_with(model, ir, opts, threads, None, Some(log))
}

fn check_with(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    threads: usize,
    reducer: Option<&Reducer>,
    log: Option<&EdgeLog>,
) -> CheckReport {
    assert!(
        reducer.is_none() || opts.search != Search::Ndfs,
        "nested DFS is not reduced"
    );
    if threads <= 1 {
        return check_one(model, ir, opts, reducer, log);
    }
    check_on(model, ir, opts, reducer, |prop, budget| match log {
        None => parallel_search(model, threads, budget, prop, opts.search),
        Some(log) => {
            let watch = LoggedWatch { inner: prop, log };
            parallel_search(model, threads, budget, &watch, opts.search)
        }
    })
}

/// The parallel search of `search` with `watch`.
fn parallel_search<W: dvemc_engine::loops::parallel::Watch>(
    model: &dyn NextState,
    threads: usize,
    budget: &Budget,
    watch: &W,
    search: Search,
) -> (
    ParallelRun,
    u64,
    Option<dvemc_engine::loops::parallel::Violation<W::Found>>,
) {
    match search {
        Search::Bfs => {
            dvemc_engine::loops::parallel::parallel_check(model, threads, budget, watch, StoreKind::Exact)
        }
        Search::Dfs => dvemc_engine::loops::parallel_dfs::parallel_dfs_check(
            model,
            threads,
            budget,
            watch,
            StoreKind::Exact,
        ),
        Search::Ndfs | Search::Cndfs => {
            dvemc_engine::loops::cndfs::cndfs_check(model, threads, budget, watch)
        }
    }
}

/// A violation as a [`Watch`](dvemc_engine::loops::parallel::Watch) search reports it.
pub type Found = dvemc_engine::loops::parallel::Violation<(ViolationKind, String)>;

/// A check of `opts` by `search`, a search that takes the properties as a
/// [`Watch`](dvemc_engine::loops::parallel::Watch) (parallel or distributed):
/// its counters, the violations it counted and the first one; `reducer`
/// as for [`check_reduced`].
pub fn check_on(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    reducer: Option<&Reducer>,
    search: impl FnOnce(&Prop<'_>, &Budget) -> (ParallelRun, u64, Option<Found>),
) -> CheckReport {
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let prop = Prop::new(ir, model, opts, reducer);
    let (r, violations, first) = search(&prop, &budget);
    let time_s = start.elapsed().as_secs_f64();
    let first = first.map(|((kind, detail), trace)| explain(ir, model, Violation { kind, detail, trace }));
    // Without `all_violations` the first violation stopped the search: the
    // ones other threads met at the same time were not counted.
    let kind = first.as_ref().map(|v| v.kind);
    let (violated, stopped_by) = if opts.all_violations {
        let violated = Kinds(prop.seen.load(Ordering::Relaxed));
        let cycle = violated.contains(ViolationKind::AcceptingCycle);
        (violated, cycle.then_some(ViolationKind::AcceptingCycle))
    } else {
        let mut violated = Kinds::default();
        if let Some(k) = kind {
            violated.insert(k);
        }
        (violated, kind)
    };
    let verdict = if violations > 0 {
        Verdict::Violated
    } else if r.counters.result.is_complete() {
        Verdict::Holds
    } else {
        Verdict::Unknown
    };
    CheckReport {
        model: model.info().name.clone(),
        strategy: if opts.search == Search::Ndfs {
            Search::Cndfs
        } else {
            opts.search
        },
        verdict,
        violation_kind: first.as_ref().map(|v| v.kind),
        violation: first.as_ref().map(|v| v.detail.clone()),
        cex_length: first.as_ref().map(|v| v.trace.steps.len()),
        violations,
        counters: r.counters,
        time_s,
        states_per_s: if time_s > 0.0 {
            r.counters.states as f64 / time_s
        } else {
            0.0
        },
        store_bytes: r.store_bytes,
        bytes_per_state: if r.counters.states > 0 {
            r.store_bytes as f64 / r.counters.states as f64
        } else {
            0.0
        },
        peak_rss_bytes: peak_rss_bytes(),
        first,
        violated,
        stopped_by,
    }
}

/// Runs the check. `ir` is the model's IR (for assertions); the successors
/// come from `model`, which may be any backend of the same IR.
pub fn check(model: &dyn NextState, ir: &ir::Model, opts: &CheckOptions) -> CheckReport {
    check_one(model, ir, opts, None, None)
}

fn check_one(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    reducer: Option<&Reducer>,
    log: Option<&EdgeLog>,
) -> CheckReport {
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let mut checker = Checker {
        prop: Prop::new(ir, model, opts, reducer),
        run: Run::new(opts.all_violations),
        stutter: None,
    };
    let mut store = StateStore::new(model.state_len());
    let (mut counters, run) = match opts.search {
        Search::Bfs => {
            let bfs_opts = BfsOptions { parents: true };
            let r = match log {
                None => dvemc_engine::bfs(model, &mut store, &budget, bfs_opts, &mut checker),
                Some(log) => {
                    let mut obs = LoggedObserver {
                        inner: &mut checker,
                        log,
                    };
                    dvemc_engine::bfs(model, &mut store, &budget, bfs_opts, &mut obs)
                }
            };
            (r.counters, checker.run)
        }
        Search::Dfs => {
            let dfs_opts = DfsOptions::new(&budget);
            let r = match log {
                None => dvemc_engine::dfs(model, &mut store, &budget, dfs_opts, &mut checker),
                Some(log) => {
                    let mut obs = LoggedObserver {
                        inner: &mut checker,
                        log,
                    };
                    dvemc_engine::dfs(model, &mut store, &budget, dfs_opts, &mut obs)
                }
            };
            (r.counters, checker.run)
        }
        Search::Ndfs | Search::Cndfs => {
            let mut nested = Nested {
                checker,
                model,
                budget: Budget::new(
                    &Limits {
                        max_states: None,
                        ..opts.limits
                    },
                    start,
                ),
                seen: Vec::new(),
                inner_result: None,
            };
            let r = dvemc_engine::dfs(model, &mut store, &budget, DfsOptions::new(&budget), &mut nested);
            let mut counters = r.counters;
            counters.result = nested.inner_result.unwrap_or(counters.result);
            (counters, nested.checker.run)
        }
    };
    let time_s = start.elapsed().as_secs_f64();
    let states = store.len() as u64;
    counters.states = states;
    let verdict = if run.violations > 0 {
        Verdict::Violated
    } else if counters.result.is_complete() {
        Verdict::Holds
    } else {
        Verdict::Unknown
    };
    let first = run.first.map(|v| explain(ir, model, v));
    CheckReport {
        model: model.info().name.clone(),
        strategy: opts.search,
        verdict,
        violation_kind: first.as_ref().map(|v| v.kind),
        violation: first.as_ref().map(|v| v.detail.clone()),
        cex_length: first.as_ref().map(|v| v.trace.steps.len()),
        violations: run.violations,
        counters,
        time_s,
        states_per_s: if time_s > 0.0 { states as f64 / time_s } else { 0.0 },
        store_bytes: store.bytes_used() as u64,
        bytes_per_state: if states > 0 {
            store.bytes_used() as f64 / states as f64
        } else {
            0.0
        },
        peak_rss_bytes: peak_rss_bytes(),
        first,
        violated: run.kinds,
        stopped_by: run.stopped_by,
    }
}
