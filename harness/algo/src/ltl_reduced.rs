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

use dve_frontend::ir;
use dve_frontend::model::NextState;

use crate::check::{self, CheckOptions, CheckReport, Checks, Search, Verdict};
use crate::por::{ProductCut, Reducer, Tapped};
#[cfg(doc)]
use dve_frontend::property::system_view;

/// An LTL check reduced in two passes, and the states of the reduced system
/// (`None` when the first pass stopped: then the report is its own, with
/// an unknown verdict).
pub struct TwoPass {
    pub report: CheckReport,
    pub system_states: Option<u64>,
}

/// The system alone of a model with a property process: its IR
/// ([`system_view`]) and its successors.
pub struct System<'a> {
    pub ir: &'a ir::Model,
    pub model: &'a dyn NextState,
}

/// Checks `opts` (an LTL property: `ir` has a property process; `model`
/// its successors) with the product reduced as the module says: pass 1 by
/// `reducer` (from [`Reducer::for_product`]) on `system`, pass 2 on
/// `threads` threads (nested DFS, or CNDFS).
pub fn check(
    model: &dyn NextState,
    ir: &ir::Model,
    system: System<'_>,
    opts: &CheckOptions,
    threads: usize,
    reducer: &Reducer,
) -> TwoPass {
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
    let pass = check::check_reduced(system.model, system.ir, &first, 1, Some(reducer));
    if !pass.counters.result.is_complete() {
        // The run is the LTL check's, though it ended in pass 1.
        return TwoPass {
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
    TwoPass {
        report,
        system_states: Some(pass.counters.states),
    }
}
