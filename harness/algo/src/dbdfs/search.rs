//! `IterBoundedDfs`: the iterations, their frontiers and the rebuilding
//! of frontier states by replaying their traces.

use super::config::*;
use super::report::*;
use dve_frontend::model::{NextState, SuccBuf};
use dvemc_engine::store::StateStore;
use dvemc_engine::{peak_rss_bytes, visit, Budget, Outcome, Store, StoreKind, POLL_MASK};
use std::time::Instant;

/// Marks "absent" in the depth/threshold table and "no node" in the tree.
const NONE: u32 = u32::MAX;

/// Runs the search in the store `opts.store` and returns its report; an
/// error names a store that cannot serve it.
pub fn dbdfs(model: &dyn NextState, opts: &Options) -> Result<Report, String> {
    if let Some(why) = store_refusal(opts.store) {
        return Err(why);
    }
    Ok(match opts.store {
        StoreKind::Tree => {
            run_in(model, opts, |b| {
                dvemc_engine::store::tree::leaf_order::tree_store_for(model, b)
            })
            .report
        }
        _ => run(model, opts).report,
    })
}

/// Appends a successor index to an encoded trace.
#[inline]
pub(crate) fn push_index(out: &mut Vec<u8>, i: u32) {
    if i < 255 {
        out.push(i as u8);
    } else {
        out.push(255);
        out.extend_from_slice(&i.to_le_bytes());
    }
}

/// Decodes one index at `*pos` of an encoded trace.
#[inline]
pub(crate) fn next_index(t: &[u8], pos: &mut usize) -> u32 {
    let b = t[*pos];
    *pos += 1;
    if b < 255 {
        b as u32
    } else {
        let v = u32::from_le_bytes(t[*pos..*pos + 4].try_into().expect("4 bytes"));
        *pos += 4;
        v
    }
}

/// Replaces `state` by its successor number `idx`, for every index of the
/// encoded `trace`; returns the number of steps.
pub(crate) fn replay(model: &dyn NextState, buf: &mut SuccBuf, state: &mut [u8], trace: &[u8]) -> u64 {
    let mut pos = 0;
    let mut steps = 0;
    while pos < trace.len() {
        let idx = next_index(trace, &mut pos) as usize;
        model.successors(state, buf);
        assert!(
            idx < buf.len(),
            "replay: successor {idx} of {} does not exist (non-deterministic successor order?)",
            buf.len()
        );
        state.copy_from_slice(buf.state(idx));
        steps += 1;
    }
    steps
}

/// A frontier (the input or the output of one iteration).
#[derive(Default)]
pub(crate) struct Layer {
    /// State id of every entry (`NONE` for the initial frontier).
    pub(crate) ids: Vec<u32>,
    /// `States`: the states back to back. `Traces`: the traces back to back.
    pub(crate) data: Vec<u8>,
    /// `Traces`: where each trace starts, plus the end (`ids.len() + 1`).
    pub(crate) offs: Vec<usize>,
    /// `Tree`: index of the node of entry 0 (the layer's nodes are contiguous).
    pub(crate) first_node: usize,
}

impl Layer {
    pub(crate) fn bytes(&self) -> usize {
        self.ids.capacity() * 4 + self.data.capacity() + self.offs.capacity() * 8
    }
}

/// The frontier tree: nodes of all iterations, each with its parent and
/// the trace from it (`off[i]..off[i + 1]` of `bytes`).
pub(crate) struct Tree {
    pub(crate) parent: Vec<u32>,
    pub(crate) off: Vec<usize>,
    pub(crate) bytes: Vec<u8>,
}

impl Tree {
    pub(crate) fn trace(&self, node: usize) -> &[u8] {
        &self.bytes[self.off[node]..self.off[node + 1]]
    }
    pub(crate) fn bytes(&self) -> usize {
        self.parent.capacity() * 4 + self.off.capacity() * 8 + self.bytes.capacity()
    }
}

/// One state on the DFS stack: its successors are
/// `succ[base .. base + count * state_len]`, `next` the one to examine next,
/// `th` the paper's `myThreshold` (clamped at 0).
pub(crate) struct Frame {
    pub(crate) id: u32,
    pub(crate) base: usize,
    pub(crate) count: u32,
    pub(crate) next: u32,
    pub(crate) th: u32,
}

/// What handling a reached state did.
pub(crate) enum Step {
    /// Not explored; the value is the threshold it returns (Fig. 6).
    Done(u32),
    /// Explored: its frame is on the stack.
    Pushed,
}

/// Where the state being handled lives.
#[derive(Clone, Copy)]
pub(crate) enum Src {
    Root,
    Succ(usize),
}

pub(crate) struct Engine<'a, S: Store> {
    pub(crate) model: &'a dyn NextState,
    pub(crate) n: usize,
    pub(crate) variant: Variant,
    pub(crate) kind: FrontierKind,
    pub(crate) budget: Budget,
    pub(crate) track_memory: bool,
    pub(crate) store: S,
    /// `DoneStates` (naive) or `Threshold` per id; `NONE` = absent.
    pub(crate) val: Vec<u32>,
    /// Membership in the `outFrontier` being built, one bit per id.
    pub(crate) in_front: Vec<u64>,
    pub(crate) frames: Vec<Frame>,
    pub(crate) succ: Vec<u8>,
    pub(crate) buf: SuccBuf,
    /// The state of the current DFS root.
    pub(crate) root: Vec<u8>,
    /// `Traces`: the trace of the current root from the initial state.
    pub(crate) root_trace: Vec<u8>,
    /// `Tree`: the node of the current root.
    pub(crate) root_node: u32,
    pub(crate) out: Layer,
    /// Entries of `out` removed from `outFrontier` since its last compaction.
    pub(crate) out_dead: usize,
    pub(crate) tree: Tree,
    /// `Tree`: nodes on the path from the tree's root to the last rebuilt
    /// node (index = level), and their states back to back.
    pub(crate) anc: Vec<u32>,
    pub(crate) anc_states: Vec<u8>,
    pub(crate) chain: Vec<u32>,
    // Counters.
    pub(crate) expansions: u64,
    pub(crate) revisits: u64,
    pub(crate) transitions: u64,
    pub(crate) replay_steps: u64,
    pub(crate) work: u64,
    pub(crate) peak_frontier: usize,
}

impl<'a, S: Store> Engine<'a, S> {
    pub(crate) fn frontier_bytes(&self, input: &Layer) -> usize {
        input.bytes()
            + self.out.bytes()
            + self.tree.bytes()
            + self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.succ.capacity()
            + self.root.capacity()
            + self.root_trace.capacity()
            + self.anc.capacity() * 4
            + self.anc_states.capacity()
            + self.chain.capacity() * 4
    }

    pub(crate) fn table_bytes(&self) -> usize {
        self.val.capacity() * 4 + self.in_front.capacity() * 8
    }

    #[inline]
    pub(crate) fn tick(&mut self) -> Result<(), Outcome> {
        self.work += 1;
        if self.work & POLL_MASK == 0 {
            let states = self.store.len() as u64;
            if let Some(stop) = self
                .budget
                .poll_with(states, self.transitions, self.frames.len() as u64)
            {
                return Err(stop);
            }
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn bit(&self, id: u32) -> bool {
        self.in_front[id as usize >> 6] & (1u64 << (id & 63)) != 0
    }

    #[inline]
    pub(crate) fn set_bit(&mut self, id: u32, on: bool) {
        let w = &mut self.in_front[id as usize >> 6];
        if on {
            *w |= 1u64 << (id & 63);
        } else {
            *w &= !(1u64 << (id & 63));
        }
    }

    /// `getState`: puts the state of entry `i` of `input` into `self.root`
    /// (and its trace or node into `root_trace` / `root_node`).
    pub(crate) fn get_state(&mut self, input: &Layer, i: usize, level: usize) -> Result<(), Outcome> {
        let n = self.n;
        match self.kind {
            FrontierKind::States => {
                self.root.copy_from_slice(&input.data[i * n..(i + 1) * n]);
            }
            FrontierKind::Traces => {
                let t = &input.data[input.offs[i]..input.offs[i + 1]];
                self.root_trace.clear();
                self.root_trace.extend_from_slice(t);
                self.model.initial_state(&mut self.root);
                let mut pos = 0;
                while pos < t.len() {
                    let idx = next_index(t, &mut pos) as usize;
                    self.model.successors(&self.root, &mut self.buf);
                    assert!(idx < self.buf.len(), "replay: successor {idx} does not exist");
                    self.root.copy_from_slice(self.buf.state(idx));
                    self.replay_steps += 1;
                    self.tick()?;
                }
            }
            FrontierKind::Tree => {
                let g = (input.first_node + i) as u32;
                self.root_node = g;
                // Walk up from g to the lowest common ancestor with the path
                // of the previous node.
                self.chain.clear();
                let mut x = g;
                let mut l = level;
                loop {
                    if l < self.anc.len() && self.anc[l] == x {
                        break;
                    }
                    self.chain.push(x);
                    x = self.tree.parent[x as usize];
                    debug_assert!(l > 0, "the tree's root is always on the path");
                    l -= 1;
                }
                // Unwind to the ancestor ...
                self.anc.truncate(l + 1);
                self.anc_states.truncate((l + 1) * n);
                // ... and replay the traces below it.
                for k in (0..self.chain.len()).rev() {
                    let node = self.chain[k];
                    let len = self.anc_states.len();
                    self.anc_states.extend_from_within(len - n..len);
                    let steps = replay(
                        self.model,
                        &mut self.buf,
                        &mut self.anc_states[len..len + n],
                        self.tree.trace(node as usize),
                    );
                    self.anc.push(node);
                    self.replay_steps += steps;
                }
                if !self.chain.is_empty() {
                    if let Some(stop) = self.budget.poll() {
                        return Err(stop);
                    }
                }
                let len = self.anc_states.len();
                self.root.copy_from_slice(&self.anc_states[len - n..len]);
            }
        }
        Ok(())
    }

    /// Adds the state at `src` (id `id`, at the bound) to `outFrontier`.
    pub(crate) fn add_frontier(&mut self, src: Src, id: u32) {
        if self.bit(id) {
            return; // already in the set
        }
        self.set_bit(id, true);
        self.out.ids.push(id);
        let n = self.n;
        match self.kind {
            FrontierKind::States => {
                let s = match src {
                    Src::Root => &self.root[..],
                    Src::Succ(off) => &self.succ[off..off + n],
                };
                self.out.data.extend_from_slice(s);
            }
            FrontierKind::Traces => {
                self.out.data.extend_from_slice(&self.root_trace);
                for f in &self.frames {
                    push_index(&mut self.out.data, f.next - 1);
                }
                self.out.offs.push(self.out.data.len());
            }
            FrontierKind::Tree => {
                self.tree.parent.push(self.root_node);
                for f in &self.frames {
                    push_index(&mut self.tree.bytes, f.next - 1);
                }
                self.tree.off.push(self.tree.bytes.len());
            }
        }
    }

    /// The body of `BoundedDfs` up to the loop over successors: decides
    /// whether the state at `src`, reached at `depth`, is explored, added
    /// to the frontier, or skipped.
    pub(crate) fn handle(&mut self, src: Src, depth: u32, bound: u32) -> Result<Step, Outcome> {
        let n = self.n;
        let frontier = if self.track_memory {
            self.frontier_bytes(&Layer::default()) + self.table_bytes()
        } else {
            0
        };
        let state = match src {
            Src::Root => &self.root[..],
            Src::Succ(off) => &self.succ[off..off + n],
        };
        let fp = self.model.fingerprint(state);
        let ins = visit(&mut self.store, &self.budget, frontier, state, fp)?;
        let id = ins.id();
        if ins.is_new() {
            self.val.push(NONE);
            if id as usize >> 6 >= self.in_front.len() {
                self.in_front.push(0);
            }
        }
        let v = self.val[id as usize];
        match self.variant {
            Variant::NaiveUnsound => {
                if v != NONE {
                    return Ok(Step::Done(0));
                }
                if depth >= bound {
                    self.add_frontier(src, id);
                    return Ok(Step::Done(0));
                }
            }
            Variant::NaiveSound => {
                if v != NONE && v <= depth {
                    return Ok(Step::Done(0));
                }
                if depth >= bound {
                    self.add_frontier(src, id);
                    return Ok(Step::Done(0));
                }
                self.remove_frontier(id);
            }
            Variant::Threshold => {
                if v != NONE && depth >= v {
                    return Ok(Step::Done(v));
                }
                if depth >= bound {
                    self.add_frontier(src, id);
                    return Ok(Step::Done(depth));
                }
                self.remove_frontier(id);
            }
        }
        // Explore.
        if v != NONE {
            self.revisits += 1;
        }
        self.val[id as usize] = depth;
        self.expansions += 1;
        let state = match src {
            Src::Root => &self.root[..],
            Src::Succ(off) => &self.succ[off..off + n],
        };
        self.model.successors(state, &mut self.buf);
        let k = self.buf.len();
        self.transitions += k as u64;
        let base = self.succ.len();
        for i in 0..k {
            self.succ.extend_from_slice(self.buf.state(i));
        }
        self.frames.push(Frame {
            id,
            base,
            count: k as u32,
            next: 0,
            th: 0,
        });
        self.tick()?;
        Ok(Step::Pushed)
    }

    /// `BoundedDfs(root, bound)` with an explicit stack.
    pub(crate) fn bounded_dfs(&mut self, root_depth: u32, bound: u32) -> Result<(), Outcome> {
        let threshold = self.variant == Variant::Threshold;
        if let Step::Done(_) = self.handle(Src::Root, root_depth, bound)? {
            return Ok(());
        }
        while let Some(top) = self.frames.last_mut() {
            if top.next == top.count {
                let f = self.frames.pop().expect("frame");
                self.succ.truncate(f.base);
                if threshold {
                    self.val[f.id as usize] = f.th;
                    if let Some(parent) = self.frames.last_mut() {
                        parent.th = parent.th.max(f.th.saturating_sub(1));
                    }
                }
                continue;
            }
            let off = top.base + top.next as usize * self.n;
            top.next += 1;
            let depth = root_depth + self.frames.len() as u32;
            match self.handle(Src::Succ(off), depth, bound) {
                Ok(Step::Done(th)) => {
                    if threshold {
                        let top = self.frames.last_mut().expect("frame");
                        top.th = top.th.max(th.saturating_sub(1));
                    }
                }
                Ok(Step::Pushed) => {}
                Err(stop) => {
                    // Leave the stack empty for the report.
                    self.frames.clear();
                    self.succ.clear();
                    return Err(stop);
                }
            }
        }
        Ok(())
    }

    /// `outFrontier.Remove`: clears the bit; the entry goes at the next
    /// compaction, done as soon as removed entries are the majority (so the
    /// frontier never holds more than twice its live entries).
    #[inline]
    pub(crate) fn remove_frontier(&mut self, id: u32) {
        if self.bit(id) {
            self.set_bit(id, false);
            self.out_dead += 1;
            if self.out_dead >= 1024 && self.out_dead * 2 > self.out.ids.len() {
                self.compact_out();
            }
        }
    }

    /// Keeps the entries of `out` still in `outFrontier` (their bit is set).
    /// In a tree, the nodes of `out` are referenced by nothing else yet.
    pub(crate) fn compact_out(&mut self) {
        self.out_dead = 0;
        let n = self.n;
        let mut keep = 0;
        let mut data_end = 0;
        let mut node_end = self.out.first_node;
        for i in 0..self.out.ids.len() {
            let id = self.out.ids[i];
            if !self.bit(id) {
                continue;
            }
            self.out.ids[keep] = id;
            match self.kind {
                FrontierKind::States => {
                    self.out.data.copy_within(i * n..(i + 1) * n, keep * n);
                }
                FrontierKind::Traces => {
                    let (s, e) = (self.out.offs[i], self.out.offs[i + 1]);
                    self.out.data.copy_within(s..e, data_end);
                    self.out.offs[keep] = data_end;
                    data_end += e - s;
                }
                FrontierKind::Tree => {
                    let node = self.out.first_node + i;
                    let (s, e) = (self.tree.off[node], self.tree.off[node + 1]);
                    let start = self.tree.off[node_end];
                    self.tree.bytes.copy_within(s..e, start);
                    self.tree.parent[node_end] = self.tree.parent[node];
                    self.tree.off[node_end + 1] = start + (e - s);
                    node_end += 1;
                }
            }
            keep += 1;
        }
        self.out.ids.truncate(keep);
        match self.kind {
            FrontierKind::States => self.out.data.truncate(keep * n),
            FrontierKind::Traces => {
                self.out.offs[keep] = data_end;
                self.out.offs.truncate(keep + 1);
                self.out.data.truncate(data_end);
            }
            FrontierKind::Tree => {
                self.tree.parent.truncate(node_end);
                self.tree.off.truncate(node_end + 1);
                self.tree.bytes.truncate(self.tree.off[node_end]);
            }
        }
    }
}

/// Runs `IterBoundedDfs` and keeps the visited set (for tests).
pub fn run(model: &dyn NextState, opts: &Options) -> Run {
    run_in(model, opts, |_| StateStore::new(model.state_len()))
}

/// [`run`] in the store `new_store` makes (given the run's budget, which a
/// tree store's leaf order polls while it samples).
pub fn run_in<S: Store>(
    model: &dyn NextState,
    opts: &Options,
    new_store: impl FnOnce(&Budget) -> S,
) -> Run<S> {
    let start = Instant::now();
    let increment = opts.increment.max(1);
    let cutoff = opts.depth_cutoff.unwrap_or(u32::MAX - 1).max(1);
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let store = new_store(&budget);
    let mut e = Engine::new(model, opts, budget, store);

    // The initial frontier: {initialState}, at depth 0.
    let mut input = Layer {
        ids: vec![NONE],
        data: match opts.frontier {
            FrontierKind::States => model.initial_vec(),
            _ => Vec::new(),
        },
        offs: vec![0, 0],
        first_node: 0,
    };
    let mut level = 0usize; // iterations done: the tree level of `input`
    let mut prev_bound = 0u32;
    let mut bound = increment.min(cutoff);
    let mut result = Outcome::Complete;
    let mut exhausted = false;
    let mut max_depth = 0u32;
    let mut frontier_sizes = Vec::new();
    let mut frontiers = Vec::new();
    let mut iterations = Vec::new();
    let mut rebuild = Rebuild::default();
    loop {
        let (stats, stopped) = e.iteration(&input, level, (prev_bound, bound), opts, &mut rebuild);
        iterations.push(stats);
        if let Some(stop) = stopped {
            result = stop;
            break;
        }
        max_depth = bound;
        frontier_sizes.push(e.out.ids.len() as u64);
        if opts.record_frontiers {
            frontiers.push(e.out.ids.clone());
        }
        if e.out.ids.is_empty() {
            exhausted = true;
            break;
        }
        if bound >= cutoff {
            break;
        }
        input = std::mem::take(&mut e.out);
        level += 1;
        prev_bound = bound;
        bound = bound.saturating_add(increment).min(cutoff);
    }
    e.peak_frontier = e.peak_frontier.max(e.frontier_bytes(&input));

    let time_s = start.elapsed().as_secs_f64();
    let states = e.store.len() as u64;
    let store_bytes = e.store.bytes_used() as u64;
    let report = Report {
        model: model.info().name.clone(),
        strategy: "dbdfs".to_string(),
        dbdfs: opts.variant,
        frontier: opts.frontier,
        depth_cutoff: opts.depth_cutoff,
        increment,
        backend: String::new(),
        state_len: e.n,
        result,
        state_space_exhausted: exhausted,
        states,
        expansions: e.expansions,
        revisits: e.revisits,
        transitions: e.transitions,
        max_depth_explored: max_depth,
        frontier_sizes,
        get_state_time_s: rebuild.get_state_ns as f64 * 1e-9,
        replay_steps: e.replay_steps,
        time_s,
        states_per_s: if time_s > 0.0 { states as f64 / time_s } else { 0.0 },
        store_bytes,
        table_bytes: e.table_bytes() as u64,
        frontier_bytes: e.peak_frontier as u64,
        bytes_per_state: if states > 0 {
            (store_bytes + e.table_bytes() as u64) as f64 / states as f64
        } else {
            0.0
        },
        peak_rss_bytes: peak_rss_bytes(),
        iterations,
    };
    Run {
        report,
        store: e.store,
        frontiers,
        rebuild_mismatches: rebuild.mismatches,
    }
}

/// What rebuilding the frontier's states cost over the iterations, and
/// (with `verify_rebuild`) how many differed from the stored ones.
#[derive(Default)]
struct Rebuild {
    get_state_ns: u128,
    mismatches: u64,
    scratch: Vec<u8>,
}

impl<'a, S: Store> Engine<'a, S> {
    fn new(model: &'a dyn NextState, opts: &Options, budget: Budget, store: S) -> Engine<'a, S> {
        let n = model.state_len();
        Engine {
            model,
            n,
            variant: opts.variant,
            kind: opts.frontier,
            budget,
            track_memory: opts.limits.memory_bytes.is_some(),
            store,
            val: Vec::new(),
            in_front: Vec::new(),
            frames: Vec::new(),
            succ: Vec::new(),
            buf: SuccBuf::new(n),
            root: vec![0; n],
            root_trace: Vec::new(),
            root_node: 0,
            out: Layer::default(),
            out_dead: 0,
            tree: Tree {
                parent: vec![NONE],
                off: vec![0, 0],
                bytes: Vec::new(),
            },
            anc: vec![0],
            anc_states: model.initial_vec(),
            chain: Vec::new(),
            expansions: 0,
            revisits: 0,
            transitions: 0,
            replay_steps: 0,
            work: 0,
            peak_frontier: 0,
        }
    }

    /// One iteration, `BoundedDfsFromFrontier(input, bound)` from the
    /// frontier `input` (tree level `level`) at depth `prev_bound`: its
    /// figures, and the outcome if it stopped.
    fn iteration(
        &mut self,
        input: &Layer,
        level: usize,
        (prev_bound, bound): (u32, u32),
        opts: &Options,
        rebuild: &mut Rebuild,
    ) -> (IterationStats, Option<Outcome>) {
        let it_start = Instant::now();
        let (exp0, rev0, rep0, gs0) = (
            self.expansions,
            self.revisits,
            self.replay_steps,
            rebuild.get_state_ns,
        );
        for &id in &input.ids {
            if id != NONE {
                self.set_bit(id, false);
            }
        }
        self.out = Layer {
            ids: Vec::new(),
            data: Vec::new(),
            offs: vec![0],
            first_node: self.tree.parent.len(),
        };
        self.out_dead = 0;
        let mut stopped = None;
        for i in 0..input.ids.len() {
            let t0 = Instant::now();
            let r = self.get_state(input, i, level);
            rebuild.get_state_ns += t0.elapsed().as_nanos();
            if let Err(stop) = r {
                stopped = Some(stop);
                break;
            }
            if opts.verify_rebuild
                && input.ids[i] != NONE
                && self.store.state(input.ids[i], &mut rebuild.scratch) != &self.root[..]
            {
                rebuild.mismatches += 1;
            }
            if let Err(stop) = self.bounded_dfs(prev_bound, bound) {
                stopped = Some(stop);
                break;
            }
        }
        self.peak_frontier = self.peak_frontier.max(self.frontier_bytes(input));
        let finished = stopped.is_none();
        if finished {
            self.compact_out();
        }
        let stats = IterationStats {
            bound,
            roots: input.ids.len() as u64,
            frontier: if finished { self.out.ids.len() as u64 } else { 0 },
            states: self.store.len() as u64,
            expansions: self.expansions - exp0,
            revisits: self.revisits - rev0,
            replay_steps: self.replay_steps - rep0,
            get_state_time_s: (rebuild.get_state_ns - gs0) as f64 * 1e-9,
            time_s: it_start.elapsed().as_secs_f64(),
            finished,
        };
        (stats, stopped)
    }
}
