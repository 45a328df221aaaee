//! Nested DFS (Courcoubetis, Vardi, Wolper and Yannakakis): the inner
//! search that closes a cycle through an accepting state, over the states
//! the outer search stored.

use super::*;

/// Nested DFS: the checking observer on the outer search, and in post-order
/// from every accepting state the inner search ([`CycleCloser`]) over the
/// states the outer one stored, each entered at most once over all inner
/// searches (`seen`).
pub(super) struct Nested<'a> {
    pub(super) checker: Checker<'a>,
    pub(super) model: &'a dyn NextState,
    /// The inner searches' budget (no state limit: they store nothing).
    pub(super) budget: Budget,
    pub(super) seen: Vec<u64>,
    /// How an inner search ended if a budget stopped it.
    pub(super) inner_result: Option<Outcome>,
}

impl<S: Store> Observer<S> for Nested<'_> {
    const LABELS: bool = true;

    fn new_state(&mut self, cx: &Cx<S>, id: u32, state: &[u8], via: Option<(u32, Succ)>) -> Control {
        self.checker.new_state(cx, id, state, via)
    }

    fn successor(&mut self, cx: &Cx<S>, src: u32, e: Succ, state: &[u8]) -> Control {
        self.checker.successor(cx, src, e, state)
    }

    fn deadlock(&mut self, cx: &Cx<S>, id: u32) -> Control {
        <Checker as Observer<S>>::deadlock(&mut self.checker, cx, id)
    }

    fn closed(&mut self, cx: &Cx<S>, id: u32) -> Control {
        if !self.model.info().is_accepting(&cx.state(id)) {
            return Control::Continue;
        }
        let mut marked = Marked {
            base: cx.store,
            seen: &mut self.seen,
        };
        let mut closer = CycleCloser {
            outer: cx,
            found: None,
        };
        let opts = DfsOptions {
            root: Root::Stored(id),
            ..DfsOptions::new(&self.budget)
        };
        let r = dvemc_engine::dfs(self.model, &mut marked, &self.budget, opts, &mut closer);
        if let Some(v) = closer.found {
            let run = &mut self.checker.run;
            run.violations += 1;
            run.kinds.insert(ViolationKind::AcceptingCycle);
            run.stopped_by = Some(ViolationKind::AcceptingCycle);
            run.first.get_or_insert(v);
            return Control::Stop;
        }
        if r.counters.result != Outcome::Complete {
            self.inner_result = Some(r.counters.result);
            return Control::Stop;
        }
        Control::Continue
    }
}

/// The inner search of nested DFS from an accepting state on top of the
/// outer stack: it closes a cycle when it reaches any state on the outer
/// stack (the stack test of Holzmann, Peled and Yannakakis).
struct CycleCloser<'o, 'a, S> {
    outer: &'o Cx<'a, S>,
    found: Option<Violation>,
}

impl<'o, 'a, 'm, S: Store> Observer<Marked<'m, S>> for CycleCloser<'o, 'a, S> {
    const LABELS: bool = true;

    fn edge(&mut self, cx: &Cx<Marked<'m, S>>, _src: u32, e: Succ, dst: u32, _new: bool) -> Control {
        if !self.outer.on_stack(dst) {
            return Control::Continue;
        }
        // Lasso: initial ->(outer stack)-> dst ->(outer stack)-> seed ->(inner)-> dst.
        let outer = self.outer.stack();
        let at = outer
            .iter()
            .position(|f| f.id == dst)
            .expect("state on the outer stack");
        let mut steps = self.outer.stack_steps(1);
        steps.extend(cx.stack_steps(1));
        steps.push(Step::new(e, &cx.state(dst)));
        self.found = Some(Violation {
            kind: ViolationKind::AcceptingCycle,
            detail: "accepting cycle".into(),
            trace: Trace {
                initial: self.outer.state(0),
                steps,
                cycle_start: Some(at),
            },
        });
        Control::Stop
    }
}

/// The outer search's store seen through a second set of marks: a state is
/// new to the inner searches until one of them enters it.
struct Marked<'a, S> {
    base: &'a S,
    seen: &'a mut Vec<u64>,
}

impl<S: Store> Store for Marked<'_, S> {
    fn state_len(&self) -> usize {
        self.base.state_len()
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn state<'b>(&'b self, id: u32, scratch: &'b mut Vec<u8>) -> &'b [u8] {
        self.base.state(id, scratch)
    }
    fn find(&self, state: &[u8], fp: u64) -> Option<u32> {
        self.base.find(state, fp)
    }
    fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        // Every state reachable from a state closed in post-order was stored
        // by the outer search.
        let Some(id) = self.base.find(state, fp) else {
            debug_assert!(false, "inner search reached a state the outer one did not store");
            return Insert::Seen(u32::MAX);
        };
        let w = id as usize >> 6;
        if w >= self.seen.len() {
            self.seen.resize(w + 1, 0);
        }
        if self.seen[w] & (1 << (id & 63)) != 0 {
            Insert::Seen(id)
        } else {
            self.seen[w] |= 1 << (id & 63);
            Insert::New(id)
        }
    }
    fn bytes_used(&self) -> usize {
        self.base.bytes_used() + self.seen.capacity() * 8
    }
    fn next_growth_bytes(&self) -> usize {
        0
    }
}
