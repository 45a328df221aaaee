//! The reduction under an LTL property (a property process; the formula
//! without next-time), in two passes, so that the reduced graph is fixed
//! before the product is searched:
//!
//! 1. The system alone ([`system_view`]: the property process held in its
//!    initial state by a self-loop) is explored by a sequential DFS with
//!    stubborn sets that hold no enabled visible group (a group writing
//!    what a guard of the property process reads) and with the stack
//!    proviso always on, so that every cycle of the reduced system graph
//!    has a state expanded fully (Valmari's conditions D1, D2, V, I and L;
//!    Peled's C0 to C3). A reducer from [`Reducer::for_product`] records the
//!    groups kept in each state it cut.
//! 2. The product (the model with its property process) is searched for
//!    accepting cycles with each state's system steps cut to what pass 1
//!    kept in its system part ([`ProductCut`]); a system state pass 1 did
//!    not cut keeps every step.
//!
//! The reduced system graph is stuttering equivalent to the full one for
//! the propositions the property reads, so its product with the automaton
//! has an accepting cycle exactly when the full product has. Choosing the
//! sets on the fly from product states, with the proviso on the product's
//! stack, is the combination Siegel (CAV 2019) showed unsound; here the
//! choice and the proviso see system states only.

use std::sync::Mutex;

use dve_frontend::ir::{self, Expr};
use dve_frontend::model::{NextState, SuccBuf, NONE};
use rustc_hash::FxHashMap;

use super::{Reducer, Tap, Tapped};
use crate::algo::check::{self, CheckOptions, CheckReport, Checks, Search, Verdict};
use crate::model::backend::{build_with, Backend};

/// What pass 1 kept: per system state it cut, the groups kept (sorted).
pub type Cuts = FxHashMap<Box<[u8]>, Box<[u32]>>;

/// `model` with its property process held in its initial state: its first
/// transition becomes a self-loop there with no guard and no effect, the
/// others are never enabled. The state vector is the product's, so that a
/// product state's system part is itself with the property's part reset.
pub fn system_view(model: &ir::Model) -> Option<ir::Model> {
    let p = model.property?;
    let mut out = model.clone();
    let init = out.processes[p].init;
    let mut first = true;
    for &t in &model.processes[p].all {
        let t = &mut out.transitions[t];
        if std::mem::take(&mut first) {
            t.from = init;
            t.to = init;
            t.guard = None;
            t.effects.clear();
        } else {
            t.guard = Some(Expr::Const(0));
        }
    }
    if first {
        None
    } else {
        Some(out)
    }
}

/// The guards of the property process of `model`: what makes a system
/// group visible.
pub fn property_guards(model: &ir::Model) -> Vec<Expr> {
    let Some(p) = model.property else {
        return Vec::new();
    };
    model.processes[p]
        .all
        .iter()
        .filter_map(|&t| model.transitions[t].guard.clone())
        .collect()
}

impl Reducer {
    /// Pass 1's reducer, for `system` (a [`system_view`]) under a property
    /// that reads `guards` (and the assertions if `asserts`): the choice is a function of the state, the
    /// proviso is always on, and the groups kept in each state cut are
    /// recorded ([`Reducer::take_cuts`]).
    pub fn for_product(system: &ir::Model, guards: &[Expr], asserts: bool) -> Reducer {
        let mut r = Reducer::new(system, guards, asserts);
        r.adaptive = false;
        r.always_proviso = true;
        r.record = Some(Mutex::new(Cuts::default()));
        r.refusal = r.deps.irreducible.clone();
        r
    }

    /// The cuts recorded (see [`Reducer::for_product`]).
    pub fn take_cuts(&self) -> Cuts {
        self.record
            .as_ref()
            .map(|m| std::mem::take(&mut *m.lock().unwrap_or_else(|e| e.into_inner())))
            .unwrap_or_default()
    }

    /// Records that `src` kept the steps left in `out`.
    pub(super) fn note_cut(&self, src: &[u8], out: &SuccBuf) {
        let Some(record) = &self.record else { return };
        let mut kept: Vec<u32> = out
            .entries()
            .iter()
            .filter_map(|e| self.groups_of.get(&(e.label.trans, e.label.partner)).copied())
            .collect();
        kept.sort_unstable();
        kept.dedup();
        record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(src.into(), kept.into_boxed_slice());
    }
}

/// Pass 2: a product state's system steps cut as pass 1 cut its system
/// part.
pub struct ProductCut {
    cuts: Cuts,
    groups_of: FxHashMap<(u32, u32), u32>,
    /// Where the property process's part of the vector is, and what it
    /// holds in the initial state.
    range: (usize, usize),
    initial: Vec<u8>,
}

impl ProductCut {
    pub fn new(model: &ir::Model, reducer: &Reducer, cuts: Cuts) -> ProductCut {
        let p = model.property.expect("a model with a property process");
        let (start, len) = model.processes[p].range;
        ProductCut {
            cuts,
            groups_of: reducer.groups_of.clone(),
            range: (start, len),
            initial: model.initial[start..start + len].to_vec(),
        }
    }
}

impl Tap for ProductCut {
    fn tap(&self, src: &[u8], out: &mut SuccBuf) {
        if out.len() <= 1 || out.entries().iter().any(|e| e.error) {
            return;
        }
        let (start, len) = self.range;
        let mut key = src.to_vec();
        key[start..start + len].copy_from_slice(&self.initial);
        let Some(kept) = self.cuts.get(&key[..]) else {
            return;
        };
        let labels: Vec<_> = out.entries().iter().map(|e| e.label).collect();
        out.retain(|i| {
            let l = labels[i];
            l.trans == NONE
                || self
                    .groups_of
                    .get(&(l.trans, l.partner))
                    .is_none_or(|g| kept.binary_search(g).is_ok())
        });
    }
}

/// An LTL check reduced in two passes, and the states of the reduced system
/// (`None` when the first pass stopped: then the report is its own, with
/// an unknown verdict).
pub struct Checked {
    pub report: CheckReport,
    pub system_states: Option<u64>,
}

/// Checks `opts` (an LTL property: `ir` has a property process; `model`
/// its successors) with the product reduced as the module says: pass 1 by
/// `reducer` (from [`Reducer::for_product`]) on the system built with
/// `backend`, pass 2 on `threads` threads (nested DFS, or CNDFS).
pub fn check(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    threads: usize,
    backend: Backend,
    reducer: &Reducer,
) -> Checked {
    let system = system_view(ir).expect("a model with a property process");
    let built = build_with(system.clone(), backend, Vec::new());
    let first = CheckOptions {
        search: Search::Dfs,
        checks: Checks {
            deadlock: false,
            assert: false,
            error: false,
        },
        goals: Vec::new(),
        all_violations: false,
        limits: opts.limits,
        meter: opts.meter.clone(),
    };
    let pass = check::check_reduced(built.model.as_ref(), &system, &first, 1, Some(reducer));
    if !pass.counters.result.is_complete() {
        // The run is the LTL check's, though it ended in pass 1.
        return Checked {
            report: CheckReport {
                verdict: Verdict::Unknown,
                strategy: opts.search,
                ..pass
            },
            system_states: None,
        };
    }
    let cuts = reducer.take_cuts();
    // What pass 1 keeps for pass 2 counts against the memory budget of
    // pass 2 (a map entry: the vector, the groups, two boxes).
    let kept: usize = cuts
        .iter()
        .map(|(k, v)| k.len() + 4 * v.len() + 2 * size_of::<Box<[u8]>>())
        .sum();
    let mut second = opts.clone();
    second.limits.memory_bytes = opts.limits.memory_bytes.map(|m| m.saturating_sub(kept as u64));
    let reduced = Tapped {
        inner: model,
        tap: ProductCut::new(ir, reducer, cuts),
    };
    let mut report = check::check_threads(&reduced, ir, &second, threads);
    // The run's time is both passes'.
    report.add_time(pass.time_s);
    Checked {
        report,
        system_states: Some(pass.counters.states),
    }
}
