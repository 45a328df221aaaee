//! State-space export (`explore --export FILE`): the exhaustive searches,
//! one thread or several, with every transition they take recorded in an
//! [`EdgeLog`], written as `.aut` or `.dot` by `crate::lts` when
//! the search has seen the whole state space.
//!
//! The recording wraps the search's own observer ([`LoggedObserver`], one
//! thread) or watch ([`LoggedWatch`], several): a search without
//! `--export` runs the unwrapped one and pays nothing.

use dve_frontend::model::Succ;

use crate::lts::EdgeLog;
use dvemc_engine::loops::parallel::Watch;
use dvemc_engine::{Control, Cx, Observer, Reduce, Store};

/// `inner` with every transition recorded in `log`.
pub struct LoggedObserver<'a, O> {
    pub inner: &'a mut O,
    pub log: &'a EdgeLog,
}

impl<S: Store, O: Observer<S>> Observer<S> for LoggedObserver<'_, O> {
    // Transitions are recorded with their labels, which DFS keeps only
    // when asked.
    const LABELS: bool = true;

    #[inline]
    fn reducer(&self) -> Option<&dyn Reduce> {
        self.inner.reducer()
    }
    #[inline]
    fn new_state(&mut self, cx: &Cx<S>, id: u32, state: &[u8], via: Option<(u32, Succ)>) -> Control {
        if let Some((src, e)) = via {
            self.log.record(src, e, id, Some(state));
        }
        self.inner.new_state(cx, id, state, via)
    }
    #[inline]
    fn expanded(&mut self, cx: &Cx<S>, id: u32, count: usize) -> Control {
        self.inner.expanded(cx, id, count)
    }
    #[inline]
    fn successor(&mut self, cx: &Cx<S>, src: u32, e: Succ, state: &[u8]) -> Control {
        self.inner.successor(cx, src, e, state)
    }
    #[inline]
    fn edge(&mut self, cx: &Cx<S>, src: u32, e: Succ, dst: u32, new: bool) -> Control {
        // A new state's transition was recorded with the state.
        if !new {
            self.log.record(src, e, dst, None);
        }
        self.inner.edge(cx, src, e, dst, new)
    }
    #[inline]
    fn deadlock(&mut self, cx: &Cx<S>, id: u32) -> Control {
        self.inner.deadlock(cx, id)
    }
    #[inline]
    fn closed(&mut self, cx: &Cx<S>, id: u32) -> Control {
        self.inner.closed(cx, id)
    }
}

/// `inner` with every transition recorded in `log`, on several threads.
pub struct LoggedWatch<'a, W> {
    pub inner: &'a W,
    pub log: &'a EdgeLog,
}

impl<W: Watch> Watch for LoggedWatch<'_, W> {
    type Found = W::Found;
    const PARENTS: bool = W::PARENTS;
    const EDGES: bool = true;

    fn state(&self, state: &[u8]) -> Option<W::Found> {
        self.inner.state(state)
    }
    fn deadlock(&self) -> Option<W::Found> {
        self.inner.deadlock()
    }
    fn error(&self) -> Option<W::Found> {
        self.inner.error()
    }
    fn accepting_cycle(&self) -> Option<W::Found> {
        self.inner.accepting_cycle()
    }
    fn all(&self) -> bool {
        self.inner.all()
    }
    fn reducer(&self) -> Option<&dyn Reduce> {
        self.inner.reducer()
    }
    #[inline]
    fn edge(&self, src: u32, e: Succ, dst: u32, new: Option<&[u8]>) {
        self.log.record(src, e, dst, new);
        self.inner.edge(src, e, dst, new);
    }
}
