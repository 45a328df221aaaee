//! Parent links in a shared store's extra bytes: the parent's id and the
//! transition that led to a state, and the counterexample rebuilt from them.

use crate::store::shared::ConcurrentStore;
use crate::trace::Trace;
use dve_frontend::model::{Label, Succ};

/// Bytes of a parent link: the parent's id, the transition's label (three
/// numbers) and its error flag.
pub(crate) const PARENT_BYTES: usize = 17;

pub(crate) fn parent_link(src: u32, e: Succ) -> [u8; PARENT_BYTES] {
    let mut b = [0u8; PARENT_BYTES];
    for (i, v) in [src, e.label.trans, e.label.partner, e.label.prop]
        .into_iter()
        .enumerate()
    {
        b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    b[16] = e.error as u8;
    b
}

pub(crate) fn read_link(b: &[u8]) -> (u32, Succ) {
    let n = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    let label = Label {
        trans: n(1),
        partner: n(2),
        prop: n(3),
    };
    (
        n(0),
        Succ {
            label,
            error: b[16] != 0,
        },
    )
}

/// The path of parent links from the initial state (id 0) to `id`, then
/// the step `last` if any.
pub(crate) fn trace_to<S: ConcurrentStore>(store: &S, id: u32, last: Option<(Succ, &[u8])>) -> Trace {
    Trace::from_parents(id, |id| read_link(store.extra(id)), |id| store.read(id), last)
}
