//! Exhaustive breadth-first and depth-first exploration of a whole state space.
//!
//! **What it explores**: every state reachable from the initial state of any
//! [`NextState`] model, visiting successors in the model's order (DiVinE's
//! order for DVE models, so the counters reproduce BEEM's `stat.xml` files).
//!
//! **What it guarantees**: a run that ends [`Outcome::Complete`] has stored
//! every reachable state exactly once ([`StateStore`] is exact) and generated
//! every transition once: `transitions` counts every successor entry,
//! duplicates, self-loops and erroneous ones included (BEEM's `edges`).
//! A run stopped by a limit reports the counters reached so far.
//!
//! **BFS**: ids are assigned in breadth-first order, so the store's arena is
//! the queue: states are expanded by increasing id, and a level ends at the id
//! that was the store's length when the level began. Per level it records
//! states, out-edges and back-level edges, and the longest back-level edge in
//! levels. A *back-level edge* is an edge `u -> v` with `v != u` and
//! `level(v) <= level(u)` (duplicates counted, self-loops not): this is the
//! definition that reproduces `<back-level-edges>` of all 93 BEEM stat files
//! (`level(v) < level(u)`, or counting self-loops, does not).
//!
//! **DFS**: the recursive depth-first order, run iteratively on a stack of
//! frames (state id, next successor index; each frame's successors are kept
//! with their fingerprints up to a memory cap, beyond which they are
//! generated again on backtracking): a new
//! successor is entered before the next sibling is looked at. Every edge is
//! classified when it is examined: *front* (tree) edge when its target is new,
//! *back* edge when the target is on the stack, *cross* edge otherwise.
//! `max_stack` is the largest number of frames, the initial state's included
//! (BEEM's `<dfs-info>`).
//!
//! **Memory**: the store (arena chunks + index) plus, for DFS, 16 bytes per
//! frame, the kept successor lists (at most 64 MiB) and one bit per state for the stack; no allocation per state in
//! the loop (buffers are reused and grow geometrically). The memory limit is
//! checked against store + frontier bytes before either grows, so the run
//! stops cleanly instead of allocating past the limit.
//!
//! **Limits**: maximum number of states, wall time (polled every 1024
//! expansions, never per successor), memory in bytes.
//!
//! Reference: the general state-exploring algorithm of the state-caching
//! paper (`../shared/papers/`), in its two plain instances; BEEM statistics
//! definitions from Pelánek, "BEEM: Benchmarks for Explicit Model Checkers",
//! SPIN 2007.

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use dve_frontend::model::NextState;
use serde::Serialize;

use crate::search::dfs::keep_cap;
use crate::search::{self, BfsOptions, Budget, DfsOptions, Nothing, Root, StateStore};
pub use crate::search::{peak_rss_bytes, DfsStats, LevelStats, Limits, Outcome};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Bfs,
    Dfs,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Bfs => "bfs",
            Strategy::Dfs => "dfs",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Strategy, String> {
        match s {
            "bfs" => Ok(Strategy::Bfs),
            "dfs" => Ok(Strategy::Dfs),
            _ => Err(format!("unknown strategy `{s}` (expected `bfs` or `dfs`)")),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploreOptions {
    pub strategy: Strategy,
    pub limits: Limits,
    /// Include the per-level table (BFS) in the report.
    pub level_table: bool,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            strategy: Strategy::Bfs,
            limits: Limits::default(),
            level_table: false,
        }
    }
}

/// The result of one exploration.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub model: String,
    pub strategy: Strategy,
    /// Set by the caller (`interp`, `jit`, ...); empty if unknown.
    pub backend: String,
    pub state_len: usize,
    pub result: Outcome,
    pub states: u64,
    pub transitions: u64,
    /// States without any successor.
    pub deadlocks: u64,
    /// Successor entries marked erroneous (each leads to the error state).
    pub error_transitions: u64,
    /// Number of BFS levels (`None` for DFS).
    pub levels: Option<u64>,
    /// BFS: edges into another state of the same or an earlier level.
    pub back_level_edges: Option<u64>,
    /// BFS: largest `level(source) - level(target)` over back-level edges.
    pub max_back_level_edge: Option<u64>,
    /// BFS: largest number of states in one level.
    pub max_level_states: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level_table: Option<Vec<LevelStats>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dfs: Option<DfsStats>,
    pub time_s: f64,
    pub states_per_s: f64,
    /// Bytes allocated by the state store at the end.
    pub store_bytes: u64,
    /// Largest frontier allocation seen (DFS stack; 0 for BFS, whose queue is the store).
    pub frontier_bytes: u64,
    pub bytes_per_state: f64,
    /// Peak resident set size of the process (VmHWM), 0 if unavailable.
    pub peak_rss_bytes: u64,
}

/// Explores `model` with the options' strategy.
pub fn explore(model: &dyn NextState, opts: &ExploreOptions) -> Report {
    match opts.strategy {
        Strategy::Bfs => bfs(model, &opts.limits, opts.level_table),
        Strategy::Dfs => dfs(model, &opts.limits),
    }
}

fn finish_report(
    model: &dyn NextState,
    strategy: Strategy,
    store: &StateStore,
    start: Instant,
    result: Outcome,
) -> Report {
    let time_s = start.elapsed().as_secs_f64();
    let states = store.len() as u64;
    let store_bytes = store.bytes_used() as u64;
    Report {
        model: model.info().name.clone(),
        strategy,
        backend: String::new(),
        state_len: model.state_len(),
        result,
        states,
        transitions: 0,
        deadlocks: 0,
        error_transitions: 0,
        levels: None,
        back_level_edges: None,
        max_back_level_edge: None,
        max_level_states: None,
        level_table: None,
        dfs: None,
        time_s,
        states_per_s: if time_s > 0.0 { states as f64 / time_s } else { 0.0 },
        store_bytes,
        frontier_bytes: 0,
        bytes_per_state: if states > 0 {
            store_bytes as f64 / states as f64
        } else {
            0.0
        },
        peak_rss_bytes: peak_rss_bytes(),
    }
}

/// Breadth-first search; see the module documentation.
pub fn bfs(model: &dyn NextState, limits: &Limits, level_table: bool) -> Report {
    let start = Instant::now();
    let budget = Budget::new(limits, start);
    let mut store = StateStore::new(model.state_len());
    let r = search::bfs(model, &mut store, &budget, BfsOptions::default(), &mut Nothing);
    let mut report = finish_report(model, Strategy::Bfs, &store, start, r.result);
    report.transitions = r.transitions;
    report.deadlocks = r.deadlocks;
    report.error_transitions = r.error_transitions;
    report.levels = Some(r.levels.len() as u64);
    report.back_level_edges = Some(r.back_level_edges);
    report.max_back_level_edge = Some(r.max_back_level_edge);
    report.max_level_states = Some(r.levels.iter().map(|l| l.states).max().unwrap_or(0));
    if level_table {
        report.level_table = Some(r.levels);
    }
    report
}

/// Depth-first search; see the module documentation.
pub fn dfs(model: &dyn NextState, limits: &Limits) -> Report {
    dfs_keeping(model, limits, keep_cap(limits.memory_bytes))
}

/// [`dfs`] with the kept successor lists capped at `cap` bytes.
fn dfs_keeping(model: &dyn NextState, limits: &Limits, cap: usize) -> Report {
    let start = Instant::now();
    let budget = Budget::new(limits, start);
    let mut store = StateStore::new(model.state_len());
    let opts = DfsOptions {
        keep_bytes: cap,
        root: Root::Initial,
    };
    let r = search::dfs(model, &mut store, &budget, opts, &mut Nothing);
    let mut report = finish_report(model, Strategy::Dfs, &store, start, r.result);
    report.transitions = r.transitions;
    report.deadlocks = r.deadlocks;
    report.error_transitions = r.error_transitions;
    report.dfs = Some(r.stats);
    report.frontier_bytes = r.frontier_bytes;
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeping successor lists or regenerating them (always, or beyond a
    /// cap reached mid-search) gives the same search.
    #[test]
    fn dfs_is_the_same_whatever_is_kept() {
        let beem = crate::manifest::Beem::locate(None).expect("the BEEM suite");
        let path = beem.model_path("brp.1");
        let model = dve_frontend::interp::Interpreter::new(dve_frontend::load_file(&path).unwrap());
        let limits = Limits::default();
        let all = dfs_keeping(&model, &limits, usize::MAX);
        assert!(all.states > 1000, "a model big enough to matter");
        let stats = |r: &Report| {
            (
                r.states,
                r.transitions,
                r.deadlocks,
                r.dfs.map(|d| format!("{d:?}")),
            )
        };
        for cap in [0, 64, 4096, 65536] {
            assert_eq!(
                stats(&dfs_keeping(&model, &limits, cap)),
                stats(&all),
                "cap {cap}"
            );
        }
    }
}
