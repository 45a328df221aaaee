//! The hook of a successor reduction that depends on the search (partial-
//! order reduction's cycle proviso): right after a state's successors are
//! generated, a [`Reduce`] may cut them to a subset, asking the search
//! through a [`Proviso`] whether the cut may stand.
//!
//! Observers ([`crate::Observer::reducer`]) and the parallel
//! searches' watches ([`crate::loops::parallel::Watch::reducer`])
//! hand a reducer to the loops; the default is none, a constant the
//! loops' generic code drops, so a search without one pays nothing.

use dve_frontend::model::SuccBuf;

/// What the search answers about a kept successor, and the rule that
/// decides from the answers.
pub enum Proviso<'a> {
    /// The reduction stands if some kept successor is still to be expanded
    /// (`open(state)`): not stored yet, or (sequential BFS) queued.
    SomeOpen(&'a mut dyn FnMut(&[u8]) -> bool),
    /// The reduction stands if no kept successor is on the search stack
    /// (`on_stack(state)`, the state itself included): DFS.
    NoneOnStack(&'a mut dyn FnMut(&[u8]) -> bool),
}

impl Proviso<'_> {
    /// Whether a reduction to `kept` may stand.
    pub fn allows<'s>(&mut self, mut kept: impl Iterator<Item = &'s [u8]>) -> bool {
        match self {
            Proviso::SomeOpen(open) => kept.any(open),
            Proviso::NoneOnStack(on_stack) => !kept.any(on_stack),
        }
    }
}

/// A reduction of the successors of a state.
pub trait Reduce: Sync {
    /// Cuts `buf`, the successors of `src`, to a subset (in order), or
    /// leaves it whole.
    fn reduce(&self, src: &[u8], buf: &mut SuccBuf, proviso: Proviso<'_>);

    /// [`Reduce::reduce`] on a state it cut before, under the same proviso
    /// (a DFS frame regenerating its successors): the same cut, whatever a
    /// reduction that adapts to the states it met would choose by now.
    fn reduce_again(&self, src: &[u8], buf: &mut SuccBuf, proviso: Proviso<'_>) {
        self.reduce(src, buf, proviso)
    }
}
