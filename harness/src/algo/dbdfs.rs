//! Iterative depth-bounded depth-first search, after Udupa, Desai and
//! Rajamani, "Depth Bounded Explicit-State Model Checking" (SPIN 2011;
//! `../shared/papers/depth-bounded-dfs-udupa-desai-rajamani.md`).
//!
//! The outer loop is the paper's Fig. 2 (`IterBoundedDfs`): starting from the
//! frontier `{initial state}`, run a bounded DFS from every frontier state with
//! the bound `inc`, `2 inc`, ... up to the depth cutoff; the states reached
//! exactly at the bound form the next frontier. It stops when a frontier is
//! empty (every reachable state has been explored: the paper's `true`) or
//! after the iteration whose bound is the cutoff. Depths are absolute (from
//! the initial state). When the increment does not divide the cutoff, the
//! last bound is the cutoff.
//!
//! Three interchangeable bounded DFS procedures ([`Variant`]):
//!
//! - **naive unsound** (Fig. 3): a state is explored once; reached again it is
//!   skipped, whatever the depth. It can miss states within the bound
//!   (`beem/examples/fig4.dve` is the paper's Fig. 4).
//! - **naive sound** (Fig. 5): `DoneStates` keeps the least depth at which each
//!   state was explored; a state reached at a smaller depth is explored again
//!   (a *revisit*) and removed from `outFrontier`.
//! - **threshold** (Fig. 6): `Threshold` keeps, per state, the depth below
//!   which a revisit can find anything new: on return from a state it is the
//!   largest threshold of its successors minus one (a frontier successor
//!   counts with its depth, a skipped one with its own threshold).
//!
//! Thresholds are stored clamped at 0: the paper's `-1` (no successor needs
//! a revisit) and `0` both mean "never re-explore", since depths are
//! non-negative, and propagate identically.
//!
//! Three frontier representations ([`FrontierKind`]):
//!
//! - **states**: full state vectors, packed in one byte area;
//! - **traces**: the path from the initial state, as successor indices (the
//!   position of the successor in the model's successor list), replayed
//!   from the initial state to rebuild the state (`getState`);
//! - **tree** (Fig. 8 and 9): one frontier-tree node per frontier state, with
//!   its parent (the frontier state of the previous iteration its DFS started
//!   from) and the trace from the parent. The state of the next frontier node
//!   is rebuilt from the lowest common ancestor with the previous one: the
//!   states along the current root-to-node path are kept (DVE transitions
//!   are not invertible, so this is the "undo log"), unwinding is popping
//!   them, and only the traces below the ancestor are replayed.
//!
//! Traces are bytes: an index below 255 is one byte, a larger one is 255
//! followed by the index as 4 little-endian bytes.
//!
//! Bookkeeping is memory-light: the visited set is a [`Store`] (every state
//! reached, including those seen only at the bound; the exact
//! [`StateStore`], or with `--store tree` the tree-compressed one, whose
//! states keep their numbers as the search's tables need), with a
//! parallel `Vec<u32>` holding `DoneStates`/`Threshold` per id (`u32::MAX`:
//! absent) and a bit per id for membership in the `outFrontier` being built.
//! Nothing is allocated per state. Removal from `outFrontier` clears the bit;
//! the frontier is compacted at the end of the iteration.
//!
//! Metrics, under the paper's names: distinct states explored (`states`:
//! every state reached, which for a finished bound `b` are exactly the states
//! at distance at most `b`), revisits (`revisits`: explorations of a state
//! that had been explored before), the largest depth fully explored
//! (`max_depth_explored`: the bound of the last finished iteration), the
//! size of `outFrontier` per iteration (`frontier_sizes`), the time spent in
//! `getState` (`get_state_time_s`) with the number of transitions replayed
//! (`replay_steps`), execution time (`time_s`) and peak memory
//! (`peak_rss_bytes`).

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use dve_frontend::model::{NextState, SuccBuf};
use serde::Serialize;

use crate::engine::progress::Meter;
use crate::engine::store::StateStore;
use crate::engine::{peak_rss_bytes, visit, Budget, Limits, Outcome, Store, StoreKind, POLL_MASK};

/// Marks "absent" in the depth/threshold table and "no node" in the tree.
const NONE: u32 = u32::MAX;

/// The bounded DFS procedure of each iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Fig. 3: explore each state once (unsound).
    NaiveUnsound,
    /// Fig. 5: keep minimum depths, re-explore at smaller depths.
    NaiveSound,
    /// Fig. 6: keep thresholds.
    Threshold,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::NaiveUnsound, Variant::NaiveSound, Variant::Threshold];
    pub fn name(self) -> &'static str {
        match self {
            Variant::NaiveUnsound => "naive-unsound",
            Variant::NaiveSound => "naive-sound",
            Variant::Threshold => "threshold",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Variant, String> {
        Variant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| {
            format!("unknown dbdfs variant `{s}` (expected naive-unsound, naive-sound or threshold)")
        })
    }
}

/// How frontier states are kept between iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrontierKind {
    States,
    Traces,
    Tree,
}

impl FrontierKind {
    pub const ALL: [FrontierKind; 3] = [FrontierKind::States, FrontierKind::Traces, FrontierKind::Tree];
    pub fn name(self) -> &'static str {
        match self {
            FrontierKind::States => "states",
            FrontierKind::Traces => "traces",
            FrontierKind::Tree => "tree",
        }
    }
}

impl fmt::Display for FrontierKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FrontierKind {
    type Err = String;
    fn from_str(s: &str) -> Result<FrontierKind, String> {
        FrontierKind::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| format!("unknown frontier representation `{s}` (expected states, traces or tree)"))
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    /// The paper's `depthCutoff`; `None`: go on until a frontier is empty.
    pub depth_cutoff: Option<u32>,
    /// The paper's `inc` (at least 1).
    pub increment: u32,
    pub variant: Variant,
    pub frontier: FrontierKind,
    pub limits: Limits,
    /// Where the progress line reads the counters.
    pub meter: Option<Meter>,
    /// Keep the ids of every iteration's `outFrontier` in [`Run::frontiers`].
    pub record_frontiers: bool,
    /// Compare every rebuilt frontier state with the stored one (tests).
    pub verify_rebuild: bool,
    /// The visited set: exact or tree (the others give states no number,
    /// or no way back to them; [`dbdfs`] refuses them).
    pub store: StoreKind,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            depth_cutoff: None,
            increment: 50,
            variant: Variant::Threshold,
            frontier: FrontierKind::Tree,
            limits: Limits::default(),
            meter: None,
            record_frontiers: false,
            verify_rebuild: false,
            store: StoreKind::Exact,
        }
    }
}

/// One call of `BoundedDfsFromFrontier`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IterationStats {
    pub bound: u32,
    /// Frontier states the iteration started from.
    pub roots: u64,
    /// Size of the `outFrontier` it returned (0 if it did not finish).
    pub frontier: u64,
    /// Distinct states stored at its end.
    pub states: u64,
    pub expansions: u64,
    pub revisits: u64,
    pub replay_steps: u64,
    pub get_state_time_s: f64,
    pub time_s: f64,
    /// The iteration ran to its end (no budget stopped it).
    pub finished: bool,
}

/// The result of a depth-bounded search.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub model: String,
    /// Always `dbdfs`.
    pub strategy: String,
    pub dbdfs: Variant,
    pub frontier: FrontierKind,
    pub depth_cutoff: Option<u32>,
    pub increment: u32,
    /// Set by the caller (`interp`, `jit`, ...); empty if unknown.
    pub backend: String,
    pub state_len: usize,
    pub result: Outcome,
    /// `IterBoundedDfs` returned true: a frontier was empty, every reachable
    /// state was explored.
    pub state_space_exhausted: bool,
    /// Distinct states explored (reached).
    pub states: u64,
    /// Explorations (expansions) of states, first ones and revisits.
    pub expansions: u64,
    /// Explorations of a state that had been explored before.
    pub revisits: u64,
    /// Successors generated by explorations (replays not counted).
    pub transitions: u64,
    /// Largest depth bound fully explored (0 before the first iteration ends).
    pub max_depth_explored: u32,
    /// `outFrontier` size returned by every finished iteration.
    pub frontier_sizes: Vec<u64>,
    /// Time spent rebuilding frontier states (the paper's `getState()`).
    pub get_state_time_s: f64,
    /// Transitions replayed to rebuild frontier states.
    pub replay_steps: u64,
    pub time_s: f64,
    pub states_per_s: f64,
    /// Bytes allocated by the state store.
    pub store_bytes: u64,
    /// Bytes of the depth/threshold table and the frontier-membership bits.
    pub table_bytes: u64,
    /// Largest allocation of frontiers, frontier tree and DFS stack seen.
    pub frontier_bytes: u64,
    pub bytes_per_state: f64,
    /// Peak resident set size of the process (VmHWM), 0 if unavailable.
    pub peak_rss_bytes: u64,
    pub iterations: Vec<IterationStats>,
}

/// A finished search with what tests look at.
pub struct Run<S = StateStore> {
    pub report: Report,
    /// The visited set: every state reached.
    pub store: S,
    /// With `record_frontiers`: the state ids of every finished iteration's
    /// `outFrontier`, in order.
    pub frontiers: Vec<Vec<u32>>,
    /// With `verify_rebuild`: frontier states rebuilt differently from the
    /// state stored for them (0 unless something is wrong).
    pub rebuild_mismatches: u64,
}

/// Runs the search in the store `opts.store` and returns its report; an
/// error names a store that cannot serve it.
pub fn dbdfs(model: &dyn NextState, opts: &Options) -> Result<Report, String> {
    if let Some(why) = store_refusal(opts.store) {
        return Err(why);
    }
    Ok(match opts.store {
        StoreKind::Tree => {
            run_in(model, opts, |b| {
                crate::engine::store::tree::leaf_order::tree_store_for(model, b)
            })
            .report
        }
        _ => run(model, opts).report,
    })
}

/// Why dbdfs cannot search in `store`, if it cannot (checked by the
/// strategy registry before a run, and by [`dbdfs`]).
pub fn store_refusal(store: StoreKind) -> Option<String> {
    (!matches!(store, StoreKind::Exact | StoreKind::Tree)).then(|| {
        format!(
            "--store {store}: dbdfs keeps a number per state (its thresholds, its frontiers) and goes back to stored states, so it takes --store exact or tree"
        )
    })
}

/// Appends a successor index to an encoded trace.
#[inline]
fn push_index(out: &mut Vec<u8>, i: u32) {
    if i < 255 {
        out.push(i as u8);
    } else {
        out.push(255);
        out.extend_from_slice(&i.to_le_bytes());
    }
}

/// Decodes one index at `*pos` of an encoded trace.
#[inline]
fn next_index(t: &[u8], pos: &mut usize) -> u32 {
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
fn replay(model: &dyn NextState, buf: &mut SuccBuf, state: &mut [u8], trace: &[u8]) -> u64 {
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
struct Layer {
    /// State id of every entry (`NONE` for the initial frontier).
    ids: Vec<u32>,
    /// `States`: the states back to back. `Traces`: the traces back to back.
    data: Vec<u8>,
    /// `Traces`: where each trace starts, plus the end (`ids.len() + 1`).
    offs: Vec<usize>,
    /// `Tree`: index of the node of entry 0 (the layer's nodes are contiguous).
    first_node: usize,
}

impl Layer {
    fn bytes(&self) -> usize {
        self.ids.capacity() * 4 + self.data.capacity() + self.offs.capacity() * 8
    }
}

/// The frontier tree: nodes of all iterations, each with its parent and
/// the trace from it (`off[i]..off[i + 1]` of `bytes`).
struct Tree {
    parent: Vec<u32>,
    off: Vec<usize>,
    bytes: Vec<u8>,
}

impl Tree {
    fn trace(&self, node: usize) -> &[u8] {
        &self.bytes[self.off[node]..self.off[node + 1]]
    }
    fn bytes(&self) -> usize {
        self.parent.capacity() * 4 + self.off.capacity() * 8 + self.bytes.capacity()
    }
}

/// One state on the DFS stack: its successors are
/// `succ[base .. base + count * state_len]`, `next` the one to examine next,
/// `th` the paper's `myThreshold` (clamped at 0).
struct Frame {
    id: u32,
    base: usize,
    count: u32,
    next: u32,
    th: u32,
}

/// What handling a reached state did.
enum Step {
    /// Not explored; the value is the threshold it returns (Fig. 6).
    Done(u32),
    /// Explored: its frame is on the stack.
    Pushed,
}

/// Where the state being handled lives.
#[derive(Clone, Copy)]
enum Src {
    Root,
    Succ(usize),
}

struct Engine<'a, S: Store> {
    model: &'a dyn NextState,
    n: usize,
    variant: Variant,
    kind: FrontierKind,
    budget: Budget,
    track_memory: bool,
    store: S,
    /// `DoneStates` (naive) or `Threshold` per id; `NONE` = absent.
    val: Vec<u32>,
    /// Membership in the `outFrontier` being built, one bit per id.
    in_front: Vec<u64>,
    frames: Vec<Frame>,
    succ: Vec<u8>,
    buf: SuccBuf,
    /// The state of the current DFS root.
    root: Vec<u8>,
    /// `Traces`: the trace of the current root from the initial state.
    root_trace: Vec<u8>,
    /// `Tree`: the node of the current root.
    root_node: u32,
    out: Layer,
    /// Entries of `out` removed from `outFrontier` since its last compaction.
    out_dead: usize,
    tree: Tree,
    /// `Tree`: nodes on the path from the tree's root to the last rebuilt
    /// node (index = level), and their states back to back.
    anc: Vec<u32>,
    anc_states: Vec<u8>,
    chain: Vec<u32>,
    // Counters.
    expansions: u64,
    revisits: u64,
    transitions: u64,
    replay_steps: u64,
    work: u64,
    peak_frontier: usize,
}

impl<'a, S: Store> Engine<'a, S> {
    fn frontier_bytes(&self, input: &Layer) -> usize {
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

    fn table_bytes(&self) -> usize {
        self.val.capacity() * 4 + self.in_front.capacity() * 8
    }

    #[inline]
    fn tick(&mut self) -> Result<(), Outcome> {
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
    fn bit(&self, id: u32) -> bool {
        self.in_front[id as usize >> 6] & (1u64 << (id & 63)) != 0
    }

    #[inline]
    fn set_bit(&mut self, id: u32, on: bool) {
        let w = &mut self.in_front[id as usize >> 6];
        if on {
            *w |= 1u64 << (id & 63);
        } else {
            *w &= !(1u64 << (id & 63));
        }
    }

    /// `getState`: puts the state of entry `i` of `input` into `self.root`
    /// (and its trace or node into `root_trace` / `root_node`).
    fn get_state(&mut self, input: &Layer, i: usize, level: usize) -> Result<(), Outcome> {
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
    fn add_frontier(&mut self, src: Src, id: u32) {
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
    fn handle(&mut self, src: Src, depth: u32, bound: u32) -> Result<Step, Outcome> {
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
    fn bounded_dfs(&mut self, root_depth: u32, bound: u32) -> Result<(), Outcome> {
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
    fn remove_frontier(&mut self, id: u32) {
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
    fn compact_out(&mut self) {
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
    let n = model.state_len();
    let increment = opts.increment.max(1);
    let cutoff = opts.depth_cutoff.unwrap_or(u32::MAX - 1).max(1);
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let store = new_store(&budget);
    let mut scratch = Vec::new();
    let mut e = Engine {
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
    };

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
    let mut get_state_ns = 0u128;
    let mut mismatches = 0u64;

    'outer: loop {
        // BoundedDfsFromFrontier(input, bound).
        let it_start = Instant::now();
        let (exp0, rev0, rep0, gs0) = (e.expansions, e.revisits, e.replay_steps, get_state_ns);
        for &id in &input.ids {
            if id != NONE {
                e.set_bit(id, false);
            }
        }
        e.out = Layer {
            ids: Vec::new(),
            data: Vec::new(),
            offs: vec![0],
            first_node: e.tree.parent.len(),
        };
        e.out_dead = 0;
        let mut stopped = None;
        for i in 0..input.ids.len() {
            let t0 = Instant::now();
            let r = e.get_state(&input, i, level);
            get_state_ns += t0.elapsed().as_nanos();
            if let Err(stop) = r {
                stopped = Some(stop);
                break;
            }
            if opts.verify_rebuild
                && input.ids[i] != NONE
                && e.store.state(input.ids[i], &mut scratch) != &e.root[..]
            {
                mismatches += 1;
            }
            if let Err(stop) = e.bounded_dfs(prev_bound, bound) {
                stopped = Some(stop);
                break;
            }
        }
        e.peak_frontier = e.peak_frontier.max(e.frontier_bytes(&input));
        let finished = stopped.is_none();
        if finished {
            e.compact_out();
        }
        iterations.push(IterationStats {
            bound,
            roots: input.ids.len() as u64,
            frontier: if finished { e.out.ids.len() as u64 } else { 0 },
            states: e.store.len() as u64,
            expansions: e.expansions - exp0,
            revisits: e.revisits - rev0,
            replay_steps: e.replay_steps - rep0,
            get_state_time_s: (get_state_ns - gs0) as f64 * 1e-9,
            time_s: it_start.elapsed().as_secs_f64(),
            finished,
        });
        if let Some(stop) = stopped {
            result = stop;
            break 'outer;
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
        state_len: n,
        result,
        state_space_exhausted: exhausted,
        states,
        expansions: e.expansions,
        revisits: e.revisits,
        transitions: e.transitions,
        max_depth_explored: max_depth,
        frontier_sizes,
        get_state_time_s: get_state_ns as f64 * 1e-9,
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
        rebuild_mismatches: mismatches,
    }
}
