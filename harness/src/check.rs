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

use std::time::Instant;

use dve_frontend::interp;
use dve_frontend::ir;
use dve_frontend::model::{Label, NextState, Succ, SuccBuf};
use serde::Serialize;

use crate::explore::{peak_rss_bytes, visit, Budget, Limits, Outcome, POLL_MASK};
use crate::store::{Insert, StateStore};

/// The state checks to make besides goals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    pub deadlock: bool,
    pub assert: bool,
    /// A transition that raises a run-time error (leads to the error state).
    pub error: bool,
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
}

impl Search {
    pub fn name(self) -> &'static str {
        match self {
            Search::Bfs => "bfs",
            Search::Dfs => "dfs",
            Search::Ndfs => "ndfs",
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Holds,
    Violated,
    /// A budget ended the search before a violation or a proof.
    Unknown,
}

/// One transition of a counterexample and the state it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub label: Label,
    pub error: bool,
    pub state: Vec<u8>,
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
    pub result: Outcome,
    pub verdict: Verdict,
    pub violation_kind: Option<ViolationKind>,
    pub violation: Option<String>,
    /// Transitions of the counterexample (stem plus cycle for a lasso).
    pub cex_length: Option<usize>,
    /// Violations counted (1 when the first one stops the run).
    pub violations: u64,
    pub states: u64,
    pub transitions: u64,
    pub deadlocks: u64,
    pub error_transitions: u64,
    pub time_s: f64,
    pub states_per_s: f64,
    pub bytes_per_state: f64,
    pub peak_rss_bytes: u64,
    #[serde(skip)]
    pub first: Option<Violation>,
}

/// The property side: what to check in a state.
struct Prop<'a> {
    model: &'a ir::Model,
    opts: &'a CheckOptions,
}

impl Prop<'_> {
    /// A violation visible in the state itself (goal or assertion).
    fn state_violation(&self, s: &[u8]) -> Option<(ViolationKind, String)> {
        for g in &self.opts.goals {
            if matches!(interp::eval(&g.expr, s), Ok(v) if v != 0) {
                return Some((ViolationKind::Goal, g.text.clone()));
            }
        }
        if self.opts.checks.assert && !self.model.is_error_state(s) {
            for p in &self.model.processes {
                let cs = u16::from_le_bytes([s[p.state_offset], s[p.state_offset + 1]]);
                for (state, e, text) in &p.asserts {
                    // An assertion that cannot be evaluated counts as violated.
                    if *state == cs && !matches!(interp::eval(e, s), Ok(v) if v != 0) {
                        return Some((ViolationKind::Assert, text.clone()));
                    }
                }
            }
        }
        None
    }
}

/// Counters and the violation bookkeeping shared by the searches.
struct Run {
    transitions: u64,
    deadlocks: u64,
    errors: u64,
    violations: u64,
    first: Option<Violation>,
    all: bool,
}

impl Run {
    /// Records a violation; true when the search should stop.
    fn violation(&mut self, kind: ViolationKind, detail: String, trace: impl FnOnce() -> Trace) -> bool {
        self.violations += 1;
        if self.first.is_none() {
            self.first = Some(Violation {
                kind,
                detail,
                trace: trace(),
            });
        }
        !self.all
    }
}

/// Runs the check. `ir` is the model's IR (for assertions); the successors
/// come from `model`, which may be any backend of the same IR.
pub fn check(model: &dyn NextState, ir: &ir::Model, opts: &CheckOptions) -> CheckReport {
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start);
    let prop = Prop { model: ir, opts };
    let mut run = Run {
        transitions: 0,
        deadlocks: 0,
        errors: 0,
        violations: 0,
        first: None,
        all: opts.all_violations,
    };
    let mut store = StateStore::new(model.state_len());
    let result = match opts.search {
        Search::Bfs => bfs(model, &prop, &budget, &mut store, &mut run),
        Search::Dfs => dfs(model, &prop, &budget, &mut store, &mut run, false),
        Search::Ndfs => dfs(model, &prop, &budget, &mut store, &mut run, true),
    };
    let time_s = start.elapsed().as_secs_f64();
    let states = store.len() as u64;
    let verdict = if run.violations > 0 {
        Verdict::Violated
    } else if result.is_complete() {
        Verdict::Holds
    } else {
        Verdict::Unknown
    };
    let first = run.first;
    CheckReport {
        model: model.info().name.clone(),
        strategy: opts.search,
        result,
        verdict,
        violation_kind: first.as_ref().map(|v| v.kind),
        violation: first.as_ref().map(|v| v.detail.clone()),
        cex_length: first.as_ref().map(|v| v.trace.steps.len()),
        violations: run.violations,
        states,
        transitions: run.transitions,
        deadlocks: run.deadlocks,
        error_transitions: run.errors,
        time_s,
        states_per_s: if time_s > 0.0 { states as f64 / time_s } else { 0.0 },
        bytes_per_state: if states > 0 {
            store.bytes_used() as f64 / states as f64
        } else {
            0.0
        },
        peak_rss_bytes: peak_rss_bytes(),
        first,
    }
}

/// BFS with a parent link and label per state: shortest counterexamples.
fn bfs(
    model: &dyn NextState,
    prop: &Prop,
    budget: &Budget,
    store: &mut StateStore,
    run: &mut Run,
) -> Outcome {
    let n = model.state_len();
    let mut buf = SuccBuf::new(n);
    // parent[id] and the entry that led to it.
    let mut parent: Vec<(u32, Succ)> = Vec::new();
    let path = |store: &StateStore, parent: &Vec<(u32, Succ)>, id: u32, last: Option<(Succ, &[u8])>| {
        parent_path(store, parent, id, last)
    };
    let init = model.initial_vec();
    if let Err(stop) = visit(store, budget, 0, &init, model.fingerprint(&init)) {
        return stop;
    }
    parent.push((
        0,
        Succ {
            label: Label::local(u32::MAX),
            error: false,
        },
    ));
    if let Some((kind, detail)) = prop.state_violation(&init) {
        if run.violation(kind, detail, || path(store, &parent, 0, None)) {
            return Outcome::Complete;
        }
    }
    let mut next = 0usize;
    while next < store.len() {
        if next as u64 & POLL_MASK == 0 && next > 0 && budget.out_of_time() {
            return Outcome::TimeLimit;
        }
        model.successors(store.get(next as u32), &mut buf);
        let k = buf.len();
        run.transitions += k as u64;
        if k == 0 {
            run.deadlocks += 1;
            if prop.opts.checks.deadlock
                && run.violation(ViolationKind::Deadlock, "deadlock".into(), || {
                    path(store, &parent, next as u32, None)
                })
            {
                return Outcome::Complete;
            }
        }
        for i in 0..k {
            let (e, s) = (buf.entry(i), buf.state(i));
            if e.error {
                run.errors += 1;
                if prop.opts.checks.error
                    && run.violation(ViolationKind::ErrorState, "run-time error".into(), || {
                        path(store, &parent, next as u32, Some((e, s)))
                    })
                {
                    return Outcome::Complete;
                }
            }
            match visit(store, budget, 0, s, model.fingerprint(s)) {
                Ok(Insert::New(id)) => {
                    parent.push((next as u32, e));
                    if let Some((kind, detail)) = prop.state_violation(s) {
                        if run.violation(kind, detail, || path(store, &parent, id, None)) {
                            return Outcome::Complete;
                        }
                    }
                }
                Ok(Insert::Seen(_)) => {}
                Err(stop) => return stop,
            }
        }
        next += 1;
    }
    Outcome::Complete
}

/// The path from the initial state (id 0) to state `id` along BFS parent
/// links (`parent[id]` = the parent's id and the entry that led to `id`),
/// extended by the step `last` when given.
pub fn parent_path(
    store: &StateStore,
    parent: &[(u32, Succ)],
    mut id: u32,
    last: Option<(Succ, &[u8])>,
) -> Trace {
    let mut steps = Vec::new();
    if let Some((e, s)) = last {
        steps.push(Step {
            label: e.label,
            error: e.error,
            state: s.to_vec(),
        });
    }
    while id != 0 {
        let (p, e) = parent[id as usize];
        steps.push(Step {
            label: e.label,
            error: e.error,
            state: store.get(id).to_vec(),
        });
        id = p;
    }
    steps.reverse();
    Trace {
        initial: store.get(0).to_vec(),
        steps,
        cycle_start: None,
    }
}

/// A state on a DFS stack: its successors are entries `base..base + count`
/// of the shared successor stack, `next` the one to examine next; `via` is
/// the entry that led to it.
struct Frame {
    id: u32,
    base: usize,
    count: usize,
    next: usize,
    via: Succ,
}

/// A stack of frames with their successors.
struct Stack {
    n: usize,
    frames: Vec<Frame>,
    bytes: Vec<u8>,
    entries: Vec<Succ>,
}

impl Stack {
    fn new(n: usize) -> Stack {
        Stack {
            n,
            frames: Vec::new(),
            bytes: Vec::new(),
            entries: Vec::new(),
        }
    }
    fn push(&mut self, id: u32, via: Succ, buf: &SuccBuf) {
        let base = self.entries.len();
        self.bytes
            .extend((0..buf.len()).flat_map(|i| buf.state(i).iter().copied()));
        self.entries.extend_from_slice(buf.entries());
        self.frames.push(Frame {
            id,
            base,
            count: buf.len(),
            next: 0,
            via,
        });
    }
    fn pop(&mut self) {
        if let Some(f) = self.frames.pop() {
            self.entries.truncate(f.base);
            self.bytes.truncate(f.base * self.n);
        }
    }
    fn succ(&self, i: usize) -> (Succ, &[u8]) {
        (self.entries[i], &self.bytes[i * self.n..(i + 1) * self.n])
    }
    fn bytes_used(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.bytes.capacity()
            + self.entries.capacity() * std::mem::size_of::<Succ>()
    }
    /// The steps along the stack, frames `from..` (frame 0 is the root).
    fn steps(&self, store: &StateStore, from: usize) -> Vec<Step> {
        self.frames[from.max(1)..]
            .iter()
            .map(|f| Step {
                label: f.via.label,
                error: f.via.error,
                state: store.get(f.id).to_vec(),
            })
            .collect()
    }
}

fn bit(bits: &[u64], id: u32) -> bool {
    bits.get(id as usize >> 6)
        .is_some_and(|w| w & (1 << (id & 63)) != 0)
}

fn set_bit(bits: &mut Vec<u64>, id: u32, on: bool) {
    let w = id as usize >> 6;
    if w >= bits.len() {
        bits.resize(w + 1, 0);
    }
    if on {
        bits[w] |= 1 << (id & 63);
    } else {
        bits[w] &= !(1 << (id & 63));
    }
}

/// DFS; with `nested`, the outer search of nested DFS.
fn dfs(
    model: &dyn NextState,
    prop: &Prop,
    budget: &Budget,
    store: &mut StateStore,
    run: &mut Run,
    nested: bool,
) -> Outcome {
    let n = model.state_len();
    let mut buf = SuccBuf::new(n);
    let mut stack = Stack::new(n);
    let mut on_stack: Vec<u64> = Vec::new();
    let mut inner_seen: Vec<u64> = Vec::new();
    let mut expansions = 0u64;
    let none = Succ {
        label: Label::local(u32::MAX),
        error: false,
    };
    let trace_to = |stack: &Stack, store: &StateStore, last: Option<Step>| Trace {
        initial: store.get(0).to_vec(),
        steps: stack.steps(store, 1).into_iter().chain(last).collect(),
        cycle_start: None,
    };

    let init = model.initial_vec();
    let root = match visit(store, budget, 0, &init, model.fingerprint(&init)) {
        Ok(ins) => ins.id(),
        Err(stop) => return stop,
    };
    if let Some((kind, detail)) = prop.state_violation(&init) {
        let t = Trace {
            initial: init.clone(),
            steps: Vec::new(),
            cycle_start: None,
        };
        if run.violation(kind, detail, || t) {
            return Outcome::Complete;
        }
    }
    // Expands `id` (reached through `via`) onto the stack.
    macro_rules! enter {
        ($id:expr, $via:expr) => {{
            let id: u32 = $id;
            model.successors(store.get(id), &mut buf);
            let extra = buf.len() * (n + std::mem::size_of::<Succ>()) + 64;
            if budget.refuse_frontier(store, stack.bytes_used(), extra) {
                return Outcome::MemoryLimit;
            }
            expansions += 1;
            run.transitions += buf.len() as u64;
            stack.push(id, $via, &buf);
            set_bit(&mut on_stack, id, true);
            if buf.is_empty() {
                run.deadlocks += 1;
                if prop.opts.checks.deadlock
                    && run.violation(ViolationKind::Deadlock, "deadlock".into(), || {
                        trace_to(&stack, store, None)
                    })
                {
                    return Outcome::Complete;
                }
            }
        }};
    }
    enter!(root, none);

    while let Some(top) = stack.frames.last_mut() {
        if top.next == top.count {
            let id = top.id;
            if nested && model.info().is_accepting(store.get(id)) {
                if let Some(v) = inner(model, store, &stack, &on_stack, &mut inner_seen, id) {
                    run.violations += 1;
                    run.first.get_or_insert(v);
                    return Outcome::Complete;
                }
            }
            set_bit(&mut on_stack, id, false);
            stack.pop();
            continue;
        }
        let i = top.base + top.next;
        top.next += 1;
        if expansions & POLL_MASK == 0 && budget.out_of_time() {
            return Outcome::TimeLimit;
        }
        let (e, s) = stack.succ(i);
        if e.error {
            run.errors += 1;
            if prop.opts.checks.error {
                let step = Step {
                    label: e.label,
                    error: true,
                    state: s.to_vec(),
                };
                if run.violation(ViolationKind::ErrorState, "run-time error".into(), || {
                    trace_to(&stack, store, Some(step))
                }) {
                    return Outcome::Complete;
                }
            }
        }
        let s = s.to_vec();
        match visit(store, budget, stack.bytes_used(), &s, model.fingerprint(&s)) {
            Ok(Insert::New(id)) => {
                if let Some((kind, detail)) = prop.state_violation(&s) {
                    let step = Step {
                        label: e.label,
                        error: e.error,
                        state: s.clone(),
                    };
                    if run.violation(kind, detail, || trace_to(&stack, store, Some(step))) {
                        return Outcome::Complete;
                    }
                }
                enter!(id, e);
            }
            Ok(Insert::Seen(_)) => {}
            Err(stop) => return stop,
        }
    }
    Outcome::Complete
}

/// The inner search of nested DFS from the accepting state `seed` (on top
/// of the outer stack): looks for a path back to any state on the outer
/// stack. Every state it meets was already stored by the outer search.
fn inner(
    model: &dyn NextState,
    store: &StateStore,
    outer: &Stack,
    on_stack: &[u64],
    seen: &mut Vec<u64>,
    seed: u32,
) -> Option<Violation> {
    let n = model.state_len();
    let mut buf = SuccBuf::new(n);
    let mut stack = Stack::new(n);
    let none = Succ {
        label: Label::local(u32::MAX),
        error: false,
    };
    model.successors(store.get(seed), &mut buf);
    stack.push(seed, none, &buf);
    while let Some(top) = stack.frames.last_mut() {
        if top.next == top.count {
            stack.pop();
            continue;
        }
        let i = top.base + top.next;
        top.next += 1;
        let (e, s) = stack.succ(i);
        let Some(id) = store.find(s, model.fingerprint(s)) else {
            continue;
        };
        if bit(on_stack, id) {
            // Lasso: initial ->(outer stack)-> id ->(outer stack)-> seed ->(inner)-> id.
            let at = outer
                .frames
                .iter()
                .position(|f| f.id == id)
                .expect("state on the outer stack");
            let mut steps = outer.steps(store, 1);
            steps.extend(stack.steps(store, 1));
            steps.push(Step {
                label: e.label,
                error: e.error,
                state: s.to_vec(),
            });
            let trace = Trace {
                initial: store.get(0).to_vec(),
                steps,
                cycle_start: Some(at),
            };
            return Some(Violation {
                kind: ViolationKind::AcceptingCycle,
                detail: "accepting cycle".into(),
                trace,
            });
        }
        if !bit(seen, id) {
            set_bit(seen, id, true);
            let via = e;
            model.successors(s, &mut buf);
            stack.push(id, via, &buf);
        }
    }
    None
}
