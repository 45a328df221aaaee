//! The reducer's part of the two-pass reduction under an LTL property
//! (`crate::ltl_reduced`): pass 1's reducer records the groups it
//! kept in each system state it cut ([`Cuts`]), and pass 2 cuts each
//! product state's system steps as pass 1 cut its system part
//! ([`ProductCut`]).

use std::sync::Mutex;

use dve_frontend::ir::{self, Expr};
use dve_frontend::model::{SuccBuf, NONE};
use rustc_hash::FxHashMap;

use super::{Reducer, Tap};

/// What pass 1 kept: per system state it cut, the groups kept (sorted).
pub type Cuts = FxHashMap<Box<[u8]>, Box<[u32]>>;

impl Reducer {
    /// Pass 1's reducer, for `system` (the system alone,
    /// `dve_frontend::property::system_view`) under a property
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
