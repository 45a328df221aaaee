//! Partial-order reduction: stubborn sets that preserve deadlocks (Valmari),
//! selected from guards as LTSmin does (Laarman, Pater, van de Pol, Weber,
//! "Guard-based partial-order reduction", SPIN 2013).
//!
//! [`Por`] wraps a model's [`NextState`] with the model's dependency
//! information ([`dve_frontend::deps`]): `successors(s)` gives only the
//! successors by the groups of a stubborn set of `s`, unchanged otherwise
//! (same order, error flags and labels). It computes every successor and
//! drops the others, so any backend serves.
//!
//! **The stubborn set** `T` of a state with an enabled group is built from
//! one enabled *key* group `k` and closed under: an enabled group brings
//! every group it is dependent with and may be co-enabled with; a disabled
//! group brings the necessary enabling set of one of its conjuncts that is
//! false in the state; and `k` also brings every group that may err and may
//! be co-enabled with it (the choice brings those of every enabled group,
//! a superset: any set closed under these rules will do). Then the reduced
//! graph keeps every deadlock reachable in the full one, and the error
//! state if it is reachable.
//!
//! **Run-time errors**: an erroneous step leads to the error state, which
//! changes every slot and which the search expands further (§8.3). Take a
//! path `w` from `s` to a deadlock or into the error state. Along a prefix
//! of `w` outside `T`, `k` stays enabled and no step errs: the first that
//! did would be co-enabled with `k` and may err, so in `T`; a step that does
//! not err and is outside `T` is independent of `k`. So if `w` has no step
//! in `T`, `k` is still enabled at its end (not a deadlock), and its last
//! step cannot err (that step would be in `T`); otherwise the first step of
//! `w` in `T` was enabled in `s` (a necessary enabling set is in `T`), is
//! independent of the prefix (which does not err), so it moves to the front
//! with the same outcome, and induction on the length of `w` finishes (the
//! error state being an ordinary state on the way). A state with an
//! erroneous successor, and the error state itself (where process 0 has no
//! control state and the committed rule is the reference's accident), are
//! expanded fully.
//!
//! **Assertions and reachability goals** ([`Reducer::new`] with what the
//! checks read). A group is *visible* when it may change what a goal or
//! an assertion reads: it writes a slot the expression reads, or (an
//! assertion of process `p` in control state `c`) it moves `p` into or out
//! of `c`. A closure that takes in an enabled visible group is dropped, so
//! the set kept has no enabled visible group (the simplest form of
//! Valmari's condition V); a state where every closure does is expanded
//! fully. Every enabled group of the set is then invisible, and (as above)
//! independent of every step outside the set that can follow it, so a path
//! `w` to a goal or a violated assertion that has no step in `T` still
//! leads there after any kept step, with the same first step still to
//! take. The *cycle proviso* makes sure that step is taken eventually (the
//! ignoring problem): a reduction stands only if
//! - BFS (closed-set proviso): some kept successor is not expanded yet
//!   (not stored, or queued after the state);
//! - DFS (stack proviso): no kept successor is on the stack (the state
//!   itself included);
//! - parallel BFS and DFS (`--threads`): some kept successor is not
//!   stored yet when the state is expanded. Every stored state is expanded
//!   once, after it was stored, so that successor begins its expansion
//!   after this state began its own, whichever thread stores it, and the
//!   store's lookups and insertions are atomic. Following such successors
//!   from any state therefore never comes back and, the state space being
//!   finite, ends at a state expanded fully, where the first step of `w`
//!   is taken. The sequential provisos are the same argument with the
//!   store's order (BFS) or with every cycle closing on the stack (DFS).
//!
//! Without a goal or an assertion to preserve, no group is visible and no
//! proviso applies. A `system sync` model, and one where a rendezvous
//! receiver's guard may err (§8.2 makes every sender on the channel
//! erroneous whatever its state) are not reduced: every successor is kept
//! ([`Reducer::irreducible`] says why). Nor is a model with a property
//! process by this reducer; `crate::ltl_reduced` reduces an LTL
//! property's product, with [`Reducer::for_product`] and [`ProductCut`].

mod conjuncts;
mod cuts;
mod explain;
mod stubborn;
mod tapped;

pub use cuts::{Cuts, ProductCut};
pub use tapped::{Tap, Tapped};

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use dve_frontend::deps::{meets, Deps, Set};
use dve_frontend::ir;
use dve_frontend::model::{NextState, SuccBuf};
use rustc_hash::FxHashMap;

use dvemc_engine::{Proviso, Reduce};

/// The selection is timed in one expanded state of this many.
const TIMED: u64 = 16;

/// The stubborn-set reduction of a model's successors.
pub struct Reducer {
    /// Tells this reducer's cached choices from another's.
    id: u64,
    /// Whether the choice backs off where it keeps failing
    /// ([`stubborn::skip`]); else it is a function of the state.
    adaptive: bool,
    /// Why every successor is kept, if so.
    refusal: Option<String>,
    /// The cycle proviso even with no visible group (an LTL property).
    always_proviso: bool,
    /// The groups kept in each state cut ([`cuts`]).
    record: Option<Mutex<Cuts>>,
    deps: Deps,
    /// Per group, the groups dependent with it that may be co-enabled.
    dna: stubborn::Relation,
    /// Per group, the groups that may err and may be co-enabled with it.
    err_partners: Vec<Vec<u32>>,
    /// Per group, whether it may change what a check reads.
    visible: Vec<bool>,
    enabling: stubborn::Rows,
    conjuncts: conjuncts::GroupConjuncts,
    quick: conjuncts::Quick,
    groups_of: FxHashMap<(u32, u32), u32>,
    error_offset: usize,
    error_marker: u16,
    /// What limits the reduction ([`explain`]): the groups that may err,
    /// and the variables every process touches.
    may_err_text: Option<String>,
    shared_text: Option<String>,
    expanded: AtomicU64,
    reduced: AtomicU64,
    proviso: AtomicU64,
    select_ns: AtomicU64,
}

/// What a reduced search's selection did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PorStats {
    /// States expanded (a DFS frame that regenerates its successors counts
    /// again).
    pub expanded: u64,
    /// States whose successors were cut.
    pub reduced: u64,
    /// States expanded fully because the cycle proviso refused a cut.
    pub proviso: u64,
    /// Time spent choosing the sets, in nanoseconds (estimated from one
    /// expanded state in 16).
    pub select_ns: u64,
    /// The model's transition groups, and those the analysis could not
    /// prove free of run-time errors (each joins every set whose key it
    /// may be co-enabled with, which is what limits most reductions).
    pub groups: u64,
    pub groups_may_err: u64,
}

/// What a reducer reports at the end of a search ([`Reducer::report`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PorReport {
    pub stats: PorStats,
    /// Why no state was cut, when the model cannot be reduced.
    pub not_reduced: Option<String>,
    /// The groups that may err, named with what part of them may.
    pub may_err: Option<String>,
    /// Variables every process touches and several write.
    pub shared: Option<String>,
}

impl PorStats {
    /// States whose successors were all kept.
    pub fn full(&self) -> u64 {
        self.expanded - self.reduced
    }
}

/// The assertions of `model` as (process, control state, expression).
fn assertions(model: &ir::Model) -> impl Iterator<Item = (usize, u16, &ir::Expr)> {
    model
        .processes
        .iter()
        .enumerate()
        .flat_map(|(p, pr)| pr.asserts.iter().map(move |(c, e, _)| (p, *c, e)))
}

impl Reducer {
    /// The reduction of `model`'s successors preserving deadlocks, run-time
    /// errors, the reachability of the `goals`, and the assertions if
    /// `asserts` (see the module documentation).
    pub fn new(model: &ir::Model, goals: &[ir::Expr], asserts: bool) -> Reducer {
        let deps = Deps::new(model);
        let n = deps.groups.len();
        let related = |g: usize, pick: &dyn Fn(usize) -> bool| -> Vec<u32> {
            (0..n)
                .filter(|&h| h != g && pick(h) && deps.groups_may_be_coenabled(g, h))
                .map(|h| h as u32)
                .collect()
        };
        let dna = stubborn::Relation::new((0..n).map(|g| related(g, &|h| deps.dependent(g, h))).collect());
        let err_partners = (0..n).map(|g| related(g, &|h| deps.groups[h].may_err)).collect();
        let mut read: Set = goals.iter().flat_map(|e| deps.expr_slots(e)).collect();
        let asserted: Vec<(usize, u16)> = if asserts {
            assertions(model)
                .map(|(p, c, e)| {
                    read.extend(deps.expr_slots(e));
                    (p, c)
                })
                .collect()
        } else {
            Vec::new()
        };
        read.sort_unstable();
        read.dedup();
        let visible = deps
            .groups
            .iter()
            .map(|g| {
                meets(&g.may_write, &read)
                    || g.transitions().iter().any(|&t| {
                        let t = &model.transitions[t];
                        t.from != t.to
                            && asserted
                                .iter()
                                .any(|&(p, c)| p == t.process && (t.from == c || t.to == c))
                    })
            })
            .collect();
        let groups_of = deps
            .groups
            .iter()
            .enumerate()
            .map(|(g, group)| {
                let ts = group.transitions();
                let key = (
                    ts[0] as u32,
                    ts.get(1).map_or(dve_frontend::model::NONE, |&r| r as u32),
                );
                (key, g as u32)
            })
            .collect();
        let (may_err_text, shared_text) = (explain::may_err(model, &deps), explain::shared(model, &deps));
        static REDUCERS: AtomicU64 = AtomicU64::new(1);
        Reducer {
            id: REDUCERS.fetch_add(1, Ordering::Relaxed),
            adaptive: true,
            refusal: deps.irreducible.clone().or_else(|| {
                deps.property.map(|p| {
                    format!(
                        "the model has a property process (`{}`); give an LTL property (--ltl, --property) to reduce its product",
                        model.processes[p].name
                    )
                })
            }),
            always_proviso: false,
            record: None,
            enabling: stubborn::Rows::new(&deps),
            conjuncts: conjuncts::GroupConjuncts::new(&deps),
            quick: conjuncts::Quick::new(&deps),
            deps,
            dna,
            err_partners,
            visible,
            groups_of,
            error_offset: model.processes[0].state_offset,
            error_marker: model.error_marker(),
            may_err_text,
            shared_text,
            expanded: AtomicU64::new(0),
            reduced: AtomicU64::new(0),
            proviso: AtomicU64::new(0),
            select_ns: AtomicU64::new(0),
        }
    }

    /// Why the model is not reduced (every successor is kept), if so.
    pub fn irreducible(&self) -> Option<&str> {
        self.refusal.as_deref()
    }

    pub fn deps(&self) -> &Deps {
        &self.deps
    }

    /// Groups that may change what a check reads.
    pub fn visible(&self) -> usize {
        self.visible.iter().filter(|&&v| v).count()
    }

    pub fn stats(&self) -> PorStats {
        PorStats {
            expanded: self.expanded.load(Ordering::Relaxed),
            reduced: self.reduced.load(Ordering::Relaxed),
            proviso: self.proviso.load(Ordering::Relaxed),
            select_ns: self.select_ns.load(Ordering::Relaxed),
            groups: self.deps.groups.len() as u64,
            groups_may_err: self.deps.groups.iter().filter(|g| g.may_err).count() as u64,
        }
    }

    /// The counters and what limits the cut: why nothing was cut when the
    /// model cannot be, the groups that may err, the shared variables.
    pub fn report(&self) -> PorReport {
        PorReport {
            stats: self.stats(),
            not_reduced: self.refusal.clone(),
            may_err: self.may_err_text.clone(),
            shared: self.shared_text.clone(),
        }
    }

    fn is_error_state(&self, s: &[u8]) -> bool {
        u16::from_le_bytes([s[self.error_offset], s[self.error_offset + 1]]) == self.error_marker
    }

    /// Cuts `out`, the successors of `src`, to a stubborn set, if the
    /// proviso (when a check needs one) lets it.
    fn cut(&self, src: &[u8], out: &mut SuccBuf, proviso: Option<Proviso<'_>>, adapt: bool) {
        let nth = self.expanded.fetch_add(1, Ordering::Relaxed);
        if out.len() <= 1 || self.refusal.is_some() {
            return;
        }
        if self.is_error_state(src) || out.entries().iter().any(|e| e.error) {
            return;
        }
        if adapt && stubborn::skip(self.id) {
            return;
        }
        // The clock is read in one state of TIMED only: a cached choice is
        // as cheap as reading it.
        let start = nth.is_multiple_of(TIMED).then(Instant::now);
        let keep = self.select(src, out, adapt);
        if let Some(start) = start {
            let ns = start.elapsed().as_nanos() as u64 * TIMED;
            self.select_ns.fetch_add(ns, Ordering::Relaxed);
        }
        let Some(keep) = keep else { return };
        if let Some(mut proviso) = proviso.filter(|_| self.always_proviso || self.visible.iter().any(|&v| v))
        {
            let kept = (0..out.len()).filter(|&i| keep[i]);
            if !proviso.allows(kept.map(|i| out.state(i))) {
                self.proviso.fetch_add(1, Ordering::Relaxed);
                return;
            }
        }
        self.reduced.fetch_add(1, Ordering::Relaxed);
        out.retain(|i| keep[i]);
        self.note_cut(src, out);
    }

    /// Which successors in `out` a stubborn set of `src` keeps, if it
    /// leaves one out.
    fn select(&self, src: &[u8], out: &SuccBuf, adapt: bool) -> Option<Vec<bool>> {
        let mut groups = Vec::with_capacity(out.len());
        for e in out.entries() {
            groups.push(*self.groups_of.get(&(e.label.trans, e.label.partner))? as usize);
        }
        let rel = stubborn::Relations {
            deps: &self.deps,
            dna: &self.dna,
            err_partners: &self.err_partners,
            visible: &self.visible,
            enabling: &self.enabling,
            conjuncts: &self.conjuncts,
            quick: &self.quick,
        };
        let keep = stubborn::select(self.id, adapt, &rel, src, &groups)?;
        keep.contains(&false).then_some(keep)
    }
}

impl Reduce for Reducer {
    fn reduce(&self, src: &[u8], buf: &mut SuccBuf, proviso: Proviso<'_>) {
        self.cut(src, buf, Some(proviso), true)
    }

    /// Without the back-off of [`stubborn::skip`]: the choice itself is a
    /// function of the state.
    fn reduce_again(&self, src: &[u8], buf: &mut SuccBuf, proviso: Proviso<'_>) {
        self.cut(src, buf, Some(proviso), false)
    }
}

/// A model's successors reduced to a stubborn set that preserves deadlocks
/// and run-time errors (no proviso needed): a [`NextState`] any search
/// takes. `M` holds the model's successor generator (a box or a reference).
pub type Por<M = Box<dyn NextState>> = Tapped<M, Reducer>;

impl Tap for Reducer {
    fn tap(&self, src: &[u8], out: &mut SuccBuf) {
        self.cut(src, out, None, self.adaptive)
    }
}

impl<M: Deref<Target: NextState>> Tapped<M, Reducer> {
    /// Wraps `inner`, the successor generator of `model`.
    pub fn new(model: &ir::Model, inner: M) -> Por<M> {
        Por::with_reducer(inner, Reducer::new(model, &[], false))
    }

    /// [`Por::new`] whose successors are a function of the state, as a
    /// search that generates a state's successors more than once needs
    /// (the sequential DFS regenerates them when it drops the kept lists):
    /// the choice never backs off.
    pub fn fixed(model: &ir::Model, inner: M) -> Por<M> {
        let mut reducer = Reducer::new(model, &[], false);
        reducer.adaptive = false;
        Por::with_reducer(inner, reducer)
    }

    /// [`Por::new`] as if no step could err, as LTSmin's DVE front end
    /// assumes (it has no error state): the groups that may err bring
    /// nothing. It may lose the error state, so it is not a reduction
    /// dvemc offers; it measures what preserving run-time errors costs
    /// (`examples/por_without_errors.rs`).
    pub fn assuming_no_errors(model: &ir::Model, inner: M) -> Por<M> {
        let mut reducer = Reducer::new(model, &[], false);
        for partners in &mut reducer.err_partners {
            partners.clear();
        }
        Por::with_reducer(inner, reducer)
    }

    /// `inner` cut by `reducer` without a cycle proviso (which the search
    /// alone can apply): a reducer with visible groups then loses goals and
    /// assertions behind ignored steps (the tests show it).
    pub fn with_reducer(inner: M, reducer: Reducer) -> Por<M> {
        Tapped { inner, tap: reducer }
    }

    /// Why the model is not reduced (every successor is kept), if so.
    pub fn irreducible(&self) -> Option<&str> {
        self.tap.irreducible()
    }

    pub fn deps(&self) -> &Deps {
        self.tap.deps()
    }

    pub fn stats(&self) -> PorStats {
        self.tap.stats()
    }

    pub fn report(&self) -> PorReport {
        self.tap.report()
    }
}
