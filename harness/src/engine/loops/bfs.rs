//! Breadth-first search: the engine's fast path for every search that goes
//! level by level over a store with dense ids.
//!
//! Ids are assigned in breadth-first order, so the store is the queue:
//! states are expanded by increasing id, and a level ends at the id that
//! was the store's length when the level began. Per level it records
//! states, out-edges and back-level edges, and the longest back-level edge
//! in levels. A *back-level edge* is an edge `u -> v` with `v != u` and
//! `level(v) <= level(u)` (duplicates counted, self-loops not): this is the
//! definition that reproduces `<back-level-edges>` of all 93 BEEM stat files
//! (`level(v) < level(u)`, or counting self-loops, does not).
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

use crate::engine::counters::Counters;
use crate::engine::limits::{visit, Budget};
use crate::engine::observer::{Cx, Observer, PathSource, NO_SUCC};
use crate::engine::outcome::Outcome;
use crate::engine::reduce::Proviso;
use crate::engine::store::{Insert, Store};

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
    let mut run = Bfs {
        counters: Counters::default(),
        stopped: false,
        expansions: 0,
        levels: Vec::new(),
        back_level_edges: 0,
        max_back_level_edge: 0,
        parents: Vec::new(),
        frontier_bytes: 0,
    };
    let keep = opts.parents;
    let mut parents: Vec<(u32, Succ)> = Vec::new();
    // The memory of the parent links, counting the doubling of a full vector.
    let parent_bytes = |p: &Vec<(u32, Succ)>| {
        if !keep {
            0
        } else if p.len() == p.capacity() {
            (p.capacity() * 2).max(4) * PARENT_BYTES
        } else {
            p.capacity() * PARENT_BYTES
        }
    };
    macro_rules! cx {
        () => {
            Cx {
                store: &*store,
                path: PathSource::Parents(&parents),
            }
        };
    }
    // First id of every level.
    let mut level_starts: Vec<u32> = Vec::new();

    let init = model.initial_vec();
    match visit(store, budget, 0, &init, model.fingerprint(&init)) {
        Ok(ins) => {
            level_starts.push(0);
            run.levels.push(LevelStats {
                level: 0,
                states: 1,
                ..Default::default()
            });
            if keep {
                parents.push((0, NO_SUCC));
            }
            if obs.new_state(&cx!(), ins.id(), &init, None).stop() {
                run.stopped = true;
            }
        }
        Err(stop) => run.counters.result = stop,
    }

    let mut fps: Vec<u64> = Vec::new();
    let mut next: usize = 0;
    let mut level_start: usize = 0;
    let mut level_end: usize = store.len();
    let mut bufs: Vec<SuccBuf> = (0..BATCH).map(|_| SuccBuf::new(n)).collect();
    let mut scratch = Vec::new();
    let mut batches = 0u64;
    'search: while run.counters.result == Outcome::Complete && !run.stopped && next < store.len() {
        if next == level_end {
            level_start = next;
            level_end = store.len();
            level_starts.push(next as u32);
            run.levels.push(LevelStats {
                level: run.levels.len() as u32,
                states: (level_end - level_start) as u64,
                ..Default::default()
            });
        }
        if batches & 63 == 0 && batches > 0 {
            let depth = run.levels.len() as u64 - 1;
            if let Some(stop) = budget.poll_with(store.len() as u64, run.counters.transitions, depth) {
                run.counters.result = stop;
                break;
            }
        }
        batches += 1;
        let end = level_end.min(next + BATCH);
        fps.clear();
        for (b, src) in (next..end).enumerate() {
            model.successors(store.state(src as u32, &mut scratch), &mut bufs[b]);
            if let Some(r) = obs.reducer() {
                // Closed-set proviso: some kept successor is not expanded
                // yet (not stored, or stored after `src`).
                let st = &*store;
                let mut open = |s: &[u8]| {
                    st.find(s, model.fingerprint(s))
                        .is_none_or(|id| id as usize > src)
                };
                r.reduce(
                    st.state(src as u32, &mut scratch),
                    &mut bufs[b],
                    Proviso::SomeOpen(&mut open),
                );
            }
            for i in 0..bufs[b].len() {
                let s = bufs[b].state(i);
                let fp = model.fingerprint(s);
                store.prefetch(s, fp);
                fps.push(fp);
            }
        }
        for &fp in &fps {
            store.prefetch_state(fp);
        }
        let mut f = 0;
        let cur_level = run.levels.len() as u64 - 1;
        for (b, src) in (next..end).enumerate() {
            let buf = &bufs[b];
            let k = buf.len();
            let src_id = src as u32;
            run.levels.last_mut().expect("level").edges += k as u64;
            run.counters.transitions += k as u64;
            run.expansions += 1;
            store.expanding(src_id);
            if obs.expanded(&cx!(), src_id, k).stop() {
                run.stopped = true;
                break 'search;
            }
            if k == 0 {
                run.counters.deadlocks += 1;
                if obs.deadlock(&cx!(), src_id).stop() {
                    run.stopped = true;
                    break 'search;
                }
            }
            for i in 0..k {
                let e = buf.entry(i);
                let s = buf.state(i);
                if e.error {
                    run.counters.error_transitions += 1;
                }
                if obs.successor(&cx!(), src_id, e, s).stop() {
                    run.stopped = true;
                    break 'search;
                }
                let fp = fps[f];
                f += 1;
                let frontier = parent_bytes(&parents);
                match visit(store, budget, frontier, s, fp) {
                    Ok(Insert::New(id)) => {
                        if keep {
                            parents.push((src_id, e));
                        }
                        if obs.new_state(&cx!(), id, s, Some((src_id, e))).stop()
                            || obs.edge(&cx!(), src_id, e, id, true).stop()
                        {
                            run.stopped = true;
                            break 'search;
                        }
                    }
                    Ok(Insert::Seen(id)) => {
                        let idu = id as usize;
                        if idu < level_end && idu != src {
                            // Target on this level or an earlier one, not a self-loop.
                            run.back_level_edges += 1;
                            run.levels.last_mut().expect("level").back_level_edges += 1;
                            if idu < level_start {
                                let target_level = level_starts.partition_point(|&s| s as usize <= idu) - 1;
                                run.max_back_level_edge =
                                    run.max_back_level_edge.max(cur_level - target_level as u64);
                            }
                        }
                        if obs.edge(&cx!(), src_id, e, id, false).stop() {
                            run.stopped = true;
                            break 'search;
                        }
                    }
                    Err(stop) => {
                        run.counters.result = stop;
                        break 'search;
                    }
                }
            }
            next = src + 1;
        }
    }
    run.frontier_bytes = (parents.capacity() * PARENT_BYTES) as u64;
    run.parents = parents;
    run.counters.states = store.len() as u64;
    run
}
