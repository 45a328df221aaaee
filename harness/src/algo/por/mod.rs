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
//! be co-enabled with it. Then the reduced graph keeps every deadlock
//! reachable in the full one, and the error state if it is reachable.
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
//! Assertions and reachability goals are not preserved (there is no
//! visibility and no cycle proviso). A model with a property process, a
//! `system sync` model, and one where a rendezvous receiver's guard may err
//! (§8.2 makes every sender on the channel erroneous whatever its state)
//! are not reduced: [`Por::new`] leaves every successor.

mod stubborn;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use dve_frontend::deps::Deps;
use dve_frontend::ir;
use dve_frontend::model::{ModelInfo, NextState, SuccBuf};

/// A model's successors reduced to a stubborn set.
pub struct Por {
    inner: Box<dyn NextState>,
    deps: Deps,
    /// Per group, the groups dependent with it that may be co-enabled.
    dna: Vec<Vec<u32>>,
    /// Per group, the groups that may err and may be co-enabled with it.
    err_partners: Vec<Vec<u32>>,
    groups_of: HashMap<(u32, u32), u32>,
    error_offset: usize,
    error_marker: u16,
    /// States whose successors were all kept although there were several.
    full: AtomicU64,
    /// States whose successors were reduced.
    reduced: AtomicU64,
}

/// How many states a reduced search expanded fully and how many it reduced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PorStats {
    pub full: u64,
    pub reduced: u64,
}

impl Por {
    /// Wraps `inner`, the successor generator of `model`.
    pub fn new(model: &ir::Model, inner: Box<dyn NextState>) -> Por {
        let deps = Deps::new(model);
        let n = deps.groups.len();
        let dna = (0..n)
            .map(|g| {
                (0..n)
                    .filter(|&h| h != g && deps.dependent(g, h) && deps.groups_may_be_coenabled(g, h))
                    .map(|h| h as u32)
                    .collect()
            })
            .collect();
        let err_partners = (0..n)
            .map(|g| {
                (0..n)
                    .filter(|&h| h != g && deps.groups[h].may_err && deps.groups_may_be_coenabled(g, h))
                    .map(|h| h as u32)
                    .collect()
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
        Por {
            inner,
            deps,
            dna,
            err_partners,
            groups_of,
            error_offset: model.processes[0].state_offset,
            error_marker: model.error_marker(),
            full: AtomicU64::new(0),
            reduced: AtomicU64::new(0),
        }
    }

    /// Why the model is not reduced (every successor is kept), if so.
    pub fn irreducible(&self) -> Option<&str> {
        self.deps.irreducible.as_deref()
    }

    pub fn deps(&self) -> &Deps {
        &self.deps
    }

    pub fn stats(&self) -> PorStats {
        PorStats {
            full: self.full.load(Ordering::Relaxed),
            reduced: self.reduced.load(Ordering::Relaxed),
        }
    }

    fn is_error_state(&self, s: &[u8]) -> bool {
        u16::from_le_bytes([s[self.error_offset], s[self.error_offset + 1]]) == self.error_marker
    }
}

impl NextState for Por {
    fn info(&self) -> &ModelInfo {
        self.inner.info()
    }

    fn initial_state(&self, out: &mut [u8]) {
        self.inner.initial_state(out)
    }

    fn fingerprint(&self, state: &[u8]) -> u64 {
        self.inner.fingerprint(state)
    }

    fn state_functions(&self) -> usize {
        self.inner.state_functions()
    }

    fn state_function(&self, i: usize, state: &[u8]) -> Option<i32> {
        self.inner.state_function(i, state)
    }

    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        self.inner.successors(src, out);
        if out.len() <= 1 || self.deps.irreducible.is_some() {
            return;
        }
        let full = || {
            self.full.fetch_add(1, Ordering::Relaxed);
        };
        if self.is_error_state(src) || out.entries().iter().any(|e| e.error) {
            return full();
        }
        let mut groups = Vec::with_capacity(out.len());
        for e in out.entries() {
            match self.groups_of.get(&(e.label.trans, e.label.partner)) {
                Some(&g) => groups.push(g as usize),
                None => return full(),
            }
        }
        match stubborn::select(&self.deps, &self.dna, &self.err_partners, src, &groups) {
            Some(keep) if groups.iter().any(|&g| !keep[g]) => {
                self.reduced.fetch_add(1, Ordering::Relaxed);
                out.retain(|i| keep[groups[i]]);
            }
            _ => full(),
        }
    }
}
