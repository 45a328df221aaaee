//! Breadth-first search: the engine's fast path for every search that goes
//! level by level over a store with dense ids.
//!
//! Ids are assigned in breadth-first order, so the store is the queue:
//! states are expanded by increasing id, and a level ends at the id that
//! was the store's length when the level began. Per level it records
//! states, out-edges and back-level edges, and the longest back-level edge
//! in levels. A *back-level edge* is an edge `u -> v` with `v != u` and
//! `level(v) <= level(u)` (duplicates counted, self-loops not), as BEEM's
//! stat files count `<back-level-edges>`.
//!
//! `transitions` counts every successor entry, duplicates, self-loops and
//! erroneous ones included (BEEM's `edges`). With `parents`, the search keeps
//! the parent id and entry of every state, so observers get shortest
//! counterexamples.
//!
//! **Speed.** States are expanded in batches of up to [`BATCH`] sources of
//! one level: all their successors are fingerprinted and their index slots
//! prefetched, then (the slots having arrived meanwhile) the stored states
//! those slots point to, before any is inserted: the cache misses of a
//! whole batch overlap, where one insert at a time would wait for two misses
//! in a row per successor. Insertion order, observer calls, and so every id
//! and counter, are the same as one state at a time.
//!
//! **Memory**: the store, plus 20 bytes per state with `parents`; budgets
//! are checked before the store grows.

use dve_frontend::model::{NextState, Succ, SuccBuf};
use serde::{Deserialize, Serialize};

use crate::counters::Counters;
use crate::limits::{visit, Budget};
use crate::observer::{Cx, Observer, PathSource, NO_SUCC};
use crate::outcome::Outcome;
use crate::reduce::Proviso;
use crate::store::{Insert, Store};

/// Sources expanded together.
pub const BATCH: usize = 16;

/// One BFS level, as in `<bfs-levels>` of BEEM's stat files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelStats {
    pub level: u32,
    pub states: u64,
    /// Out-edges of the states of this level.
    pub edges: u64,
    /// Out-edges of this level's states leading to another state of this or
    /// an earlier level (self-loops excluded).
    pub back_level_edges: u64,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct BfsOptions {
    /// Keep a parent link per state (for counterexamples).
    pub parents: bool,
}

/// What a breadth-first search did.
#[derive(Clone, Debug)]
pub struct Bfs {
    pub counters: Counters,
    /// An observer stopped the search (`result` is then `complete`).
    pub stopped: bool,
    pub expansions: u64,
    pub levels: Vec<LevelStats>,
    pub back_level_edges: u64,
    pub max_back_level_edge: u64,
    /// `parents[id]`: the parent's id and the entry that led to `id` (with
    /// [`BfsOptions::parents`]).
    pub parents: Vec<(u32, Succ)>,
    /// Bytes of the parent links.
    pub frontier_bytes: u64,
}

const PARENT_BYTES: usize = std::mem::size_of::<(u32, Succ)>();

/// Breadth-first search from the model's initial state into the empty
/// `store`; see the module documentation.
pub fn bfs<S: Store, O: Observer<S>>(
    model: &dyn NextState,
    store: &mut S,
    budget: &Budget,
    opts: BfsOptions,
    obs: &mut O,
) -> Bfs {
    assert!(store.is_empty(), "BFS needs an empty store (ids are its queue)");
    let n = model.state_len();
    let mut s = BfsSearch {
        model,
        store,
        budget,
        obs,
        keep: opts.parents,
        run: Bfs {
            counters: Counters::default(),
            stopped: false,
            expansions: 0,
            levels: Vec::new(),
            back_level_edges: 0,
            max_back_level_edge: 0,
            parents: Vec::new(),
            frontier_bytes: 0,
        },
        parents: Vec::new(),
        level_starts: Vec::new(),
        next: 0,
        level_start: 0,
        level_end: 0,
        fps: Vec::new(),
        bufs: (0..BATCH).map(|_| SuccBuf::new(n)).collect(),
        scratch: Vec::new(),
    };
    s.start();
    s.run();
    let mut run = s.run;
    run.frontier_bytes = (s.parents.capacity() * PARENT_BYTES) as u64;
    run.parents = s.parents;
    run.counters.states = s.store.len() as u64;
    run
}

/// An observer's view of the search: the store and the parent links.
macro_rules! cx {
    ($s:expr) => {
        Cx {
            store: &*$s.store,
            path: PathSource::Parents(&$s.parents),
        }
    };
}

/// One breadth-first search under way: the level being expanded, the
/// batch's successors, and what the search reports.
struct BfsSearch<'a, S, O> {
    model: &'a dyn NextState,
    store: &'a mut S,
    budget: &'a Budget,
    obs: &'a mut O,
    /// Keep the parent links.
    keep: bool,
    run: Bfs,
    parents: Vec<(u32, Succ)>,
    /// First id of every level.
    level_starts: Vec<u32>,
    /// The next id to expand, and the level's first and past-the-end ids.
    next: usize,
    level_start: usize,
    level_end: usize,
    /// Fingerprints of the batch's successors, in order.
    fps: Vec<u64>,
    bufs: Vec<SuccBuf>,
    scratch: Vec<u8>,
}

impl<S: Store, O: Observer<S>> BfsSearch<'_, S, O> {
    /// The memory of the parent links, counting the doubling of a full
    /// vector.
    #[inline]
    fn parent_bytes(&self) -> usize {
        let p = &self.parents;
        if !self.keep {
            0
        } else if p.len() == p.capacity() {
            (p.capacity() * 2).max(4) * PARENT_BYTES
        } else {
            p.capacity() * PARENT_BYTES
        }
    }

    /// Stores the initial state: level 0.
    fn start(&mut self) {
        let init = self.model.initial_vec();
        match visit(self.store, self.budget, 0, &init, self.model.fingerprint(&init)) {
            Ok(ins) => {
                self.level_starts.push(0);
                self.run.levels.push(LevelStats {
                    level: 0,
                    states: 1,
                    ..Default::default()
                });
                if self.keep {
                    self.parents.push((0, NO_SUCC));
                }
                if self.obs.new_state(&cx!(self), ins.id(), &init, None).stop() {
                    self.run.stopped = true;
                }
            }
            Err(stop) => self.run.counters.result = stop,
        }
        self.level_end = self.store.len();
    }

    /// Expands batches until the queue is empty or the search ends.
    fn run(&mut self) {
        let mut batches = 0u64;
        while self.run.counters.result == Outcome::Complete
            && !self.run.stopped
            && self.next < self.store.len()
        {
            if self.next == self.level_end {
                self.begin_level();
            }
            if batches & 63 == 0 && batches > 0 {
                let depth = self.run.levels.len() as u64 - 1;
                let (states, transitions) = (self.store.len() as u64, self.run.counters.transitions);
                if let Some(stop) = self.budget.poll_with(states, transitions, depth) {
                    self.run.counters.result = stop;
                    break;
                }
            }
            batches += 1;
            let end = self.level_end.min(self.next + BATCH);
            self.generate(end);
            if !self.expand_batch(end) {
                break;
            }
        }
    }

    /// The next level starts: it holds the states stored so far and not
    /// expanded.
    fn begin_level(&mut self) {
        self.level_start = self.next;
        self.level_end = self.store.len();
        self.level_starts.push(self.next as u32);
        self.run.levels.push(LevelStats {
            level: self.run.levels.len() as u32,
            states: (self.level_end - self.level_start) as u64,
            ..Default::default()
        });
    }

    /// The successors of the sources `next..end` into the batch's buffers
    /// (cut by the observer's reducer), their fingerprints, and the index
    /// slots and stored states they will be looked up in prefetched.
    #[inline]
    fn generate(&mut self, end: usize) {
        let model = self.model;
        self.fps.clear();
        for (b, src) in (self.next..end).enumerate() {
            model.successors(self.store.state(src as u32, &mut self.scratch), &mut self.bufs[b]);
            if let Some(r) = self.obs.reducer() {
                // Closed-set proviso: some kept successor is not expanded
                // yet (not stored, or stored after `src`).
                let st = &*self.store;
                let mut open = |s: &[u8]| {
                    st.find(s, model.fingerprint(s))
                        .is_none_or(|id| id as usize > src)
                };
                r.reduce(
                    st.state(src as u32, &mut self.scratch),
                    &mut self.bufs[b],
                    Proviso::SomeOpen(&mut open),
                );
            }
            for i in 0..self.bufs[b].len() {
                let s = self.bufs[b].state(i);
                let fp = model.fingerprint(s);
                self.store.prefetch(s, fp);
                self.fps.push(fp);
            }
        }
        for &fp in &self.fps {
            self.store.prefetch_state(fp);
        }
    }

    /// Expands the sources `next..end` from the batch's buffers: false if
    /// the search ends.
    #[inline]
    fn expand_batch(&mut self, end: usize) -> bool {
        let mut f = 0;
        let bufs = std::mem::take(&mut self.bufs);
        let mut go = true;
        for (b, src) in (self.next..end).enumerate() {
            if !self.expand(src, &bufs[b], &mut f) {
                go = false;
                break;
            }
            self.next = src + 1;
        }
        self.bufs = bufs;
        go
    }

    /// Expands `src`, whose successors are `buf` (their fingerprints from
    /// `fps[*f]` on): false if the search ends.
    #[inline]
    fn expand(&mut self, src: usize, buf: &SuccBuf, f: &mut usize) -> bool {
        let k = buf.len();
        let src_id = src as u32;
        self.run.levels.last_mut().expect("level").edges += k as u64;
        self.run.counters.transitions += k as u64;
        self.run.expansions += 1;
        self.store.expanding(src_id);
        if self.obs.expanded(&cx!(self), src_id, k).stop() {
            self.run.stopped = true;
            return false;
        }
        if k == 0 {
            self.run.counters.deadlocks += 1;
            if self.obs.deadlock(&cx!(self), src_id).stop() {
                self.run.stopped = true;
                return false;
            }
        }
        for i in 0..k {
            let fp = self.fps[*f];
            *f += 1;
            if !self.successor(src, buf.entry(i), buf.state(i), fp) {
                return false;
            }
        }
        true
    }

    /// Looks up the successor `s` of `src` through `e`, stores it if new:
    /// false if the search ends.
    #[inline]
    fn successor(&mut self, src: usize, e: Succ, s: &[u8], fp: u64) -> bool {
        let src_id = src as u32;
        if e.error {
            self.run.counters.error_transitions += 1;
        }
        if self.obs.successor(&cx!(self), src_id, e, s).stop() {
            self.run.stopped = true;
            return false;
        }
        let frontier = self.parent_bytes();
        match visit(self.store, self.budget, frontier, s, fp) {
            Ok(Insert::New(id)) => {
                if self.keep {
                    self.parents.push((src_id, e));
                }
                if self.obs.new_state(&cx!(self), id, s, Some((src_id, e))).stop()
                    || self.obs.edge(&cx!(self), src_id, e, id, true).stop()
                {
                    self.run.stopped = true;
                    return false;
                }
            }
            Ok(Insert::Seen(id)) => {
                self.seen(src, id as usize);
                if self.obs.edge(&cx!(self), src_id, e, id, false).stop() {
                    self.run.stopped = true;
                    return false;
                }
            }
            Err(stop) => {
                self.run.counters.result = stop;
                return false;
            }
        }
        true
    }

    /// Counts the edge from `src` to the stored state `id` if it is a
    /// back-level edge.
    #[inline]
    fn seen(&mut self, src: usize, id: usize) {
        if id < self.level_end && id != src {
            // Target on this level or an earlier one, not a self-loop.
            self.run.back_level_edges += 1;
            self.run.levels.last_mut().expect("level").back_level_edges += 1;
            if id < self.level_start {
                let cur_level = self.run.levels.len() as u64 - 1;
                let target_level = self.level_starts.partition_point(|&s| s as usize <= id) - 1;
                self.run.max_back_level_edge =
                    self.run.max_back_level_edge.max(cur_level - target_level as u64);
            }
        }
    }
}
