//! Observers: what a search reports to the algorithm or check running it.
//!
//! The search loops call an [`Observer`] at fixed points (a new state, each
//! successor before and after its lookup, a deadlock, a state closed in
//! post-order); each hook may stop the search. Observers are generic
//! parameters of the loops, so the default hooks (`Continue`) compile to
//! nothing: plain exploration pays nothing for them.
//!
//! Goals, assertions, deadlocks and run-time errors (`crate::algo::check`), the
//! inner search of nested DFS, the BMC baseline's witness, the transition
//! graph of the sweep-line's progress measures and the step counting of the
//! memory-bounded BFS baseline are observers.
//!
//! A hook gets a [`Cx`]: the store, and the path to the state at hand
//! (parent links in BFS, the stack in DFS), from which
//! [`Cx::trace_via`] builds a counterexample.

use dve_frontend::model::{Label, Succ, NONE};

use crate::reduce::Reduce;
use crate::store::Store;
use crate::trace::{parent_steps, Step, Trace};

/// What a hook asks of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// End the search now (its result is `complete`: it did what it was for).
    Stop,
}

impl Control {
    #[inline]
    pub fn stop(self) -> bool {
        self == Control::Stop
    }
}

/// The entry given for the root and, in DFS, where labels are not kept.
pub const NO_SUCC: Succ = Succ {
    label: Label {
        trans: NONE,
        partner: NONE,
        prop: NONE,
    },
    error: false,
};

/// Callbacks of a search; every hook defaults to `Continue`.
pub trait Observer<S: Store> {
    /// Whether the hooks need transition labels and counterexample paths.
    /// DFS then keeps each frame's entry and each kept successor's label
    /// (more memory per frame); without it DFS hooks get [`NO_SUCC`] for
    /// entries and [`Cx::trace_via`] is not available.
    const LABELS: bool = false;

    /// A reduction of every state's successors (partial-order reduction),
    /// applied as they are generated.
    #[inline]
    fn reducer(&self) -> Option<&dyn Reduce> {
        None
    }

    /// A state was stored: `id`, reached from `via` (source id and entry;
    /// `None` for the root).
    #[inline]
    fn new_state(&mut self, _cx: &Cx<S>, _id: u32, _state: &[u8], _via: Option<(u32, Succ)>) -> Control {
        Control::Continue
    }

    /// State `id` is expanded: its `count` successors come next (BFS: in
    /// the order states are processed; DFS: as its frame is pushed).
    #[inline]
    fn expanded(&mut self, _cx: &Cx<S>, _id: u32, _count: usize) -> Control {
        Control::Continue
    }

    /// Successor `e` of `src`, before it is looked up.
    #[inline]
    fn successor(&mut self, _cx: &Cx<S>, _src: u32, _e: Succ, _state: &[u8]) -> Control {
        Control::Continue
    }

    /// Successor `e` of `src` was looked up: it is state `dst`, new or not.
    #[inline]
    fn edge(&mut self, _cx: &Cx<S>, _src: u32, _e: Succ, _dst: u32, _new: bool) -> Control {
        Control::Continue
    }

    /// State `id` has no successor.
    #[inline]
    fn deadlock(&mut self, _cx: &Cx<S>, _id: u32) -> Control {
        Control::Continue
    }

    /// DFS: every successor of `id` is done (post-order), `id` is still on
    /// top of the stack.
    #[inline]
    fn closed(&mut self, _cx: &Cx<S>, _id: u32) -> Control {
        Control::Continue
    }
}

/// The observer that observes nothing: plain exploration.
pub struct Nothing;

impl<S: Store> Observer<S> for Nothing {}

/// One frame of the DFS stack as hooks see it.
#[derive(Clone, Copy, Debug)]
pub struct StackEntry {
    pub id: u32,
    /// The entry that led to it ([`NO_SUCC`] for the root).
    pub via: Succ,
}

/// One state on the DFS stack (the loop is `loops::dfs`): its id, how many successors it has, the index of
/// the next one to examine, and where its kept list starts (`NOT_KEPT`: the
/// frame regenerates its successors).
#[derive(Clone, Copy)]
pub(crate) struct Frame {
    pub(crate) id: u32,
    pub(crate) next: u32,
    pub(crate) count: u32,
    pub(crate) kept: u32,
}

/// Where the path to the current state comes from.
pub(crate) enum PathSource<'a> {
    /// BFS: `parents[id]` = the parent's id and the entry that led to `id`.
    Parents(&'a [(u32, Succ)]),
    /// DFS: the stack (bottom first) and the on-stack bits.
    Stack {
        frames: &'a [Frame],
        /// Entry of every frame (empty unless the observer wants labels).
        vias: &'a [Succ],
        on_stack: &'a [u64],
    },
}

/// What a hook may look at.
pub struct Cx<'a, S> {
    pub store: &'a S,
    pub(crate) path: PathSource<'a>,
}

impl<'a, S: Store> Cx<'a, S> {
    /// A context with BFS parent links (`parents[id]` = parent id and entry).
    pub fn with_parents(store: &'a S, parents: &'a [(u32, Succ)]) -> Cx<'a, S> {
        Cx {
            store,
            path: PathSource::Parents(parents),
        }
    }

    /// The bytes of state `id`.
    pub fn state(&self, id: u32) -> Vec<u8> {
        let mut scratch = Vec::new();
        self.store.state(id, &mut scratch).to_vec()
    }

    /// The counterexample to `src` (BFS: along parent links, a shortest
    /// one; DFS: along the stack, whose top is `src`), extended by the step
    /// `last` when given.
    pub fn trace_via(&self, src: u32, last: Option<(Succ, &[u8])>) -> Trace {
        let mut steps = match &self.path {
            PathSource::Parents(parents) => parent_steps(src, |id| parents[id as usize], |id| self.state(id)),
            PathSource::Stack { .. } => self.stack_steps(1),
        };
        if let Some((e, s)) = last {
            steps.push(Step::new(e, s));
        }
        Trace::path(self.state(0), steps)
    }

    /// DFS: whether state `id` is on the stack.
    pub fn on_stack(&self, id: u32) -> bool {
        match &self.path {
            PathSource::Stack { on_stack, .. } => on_stack
                .get(id as usize >> 6)
                .is_some_and(|w| w & (1 << (id & 63)) != 0),
            _ => false,
        }
    }

    /// DFS: the stack, bottom first.
    pub fn stack(&self) -> Vec<StackEntry> {
        match &self.path {
            PathSource::Stack { frames, vias, .. } => frames
                .iter()
                .enumerate()
                .map(|(i, f)| StackEntry {
                    id: f.id,
                    via: vias.get(i).copied().unwrap_or(NO_SUCC),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// DFS: the steps along the stack from frame `from` on (frame 0 is the
    /// root, reached by no step).
    pub fn stack_steps(&self, from: usize) -> Vec<Step> {
        self.stack()
            .into_iter()
            .skip(from.max(1))
            .map(|f| Step::new(f.via, &self.state(f.id)))
            .collect()
    }
}
