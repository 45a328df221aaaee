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
use std::time::{Duration, Instant};

use dve_frontend::model::{NextState, SuccBuf};
use serde::Serialize;

use crate::store::{Insert, StateStore};

/// Expansions between two polls of the clock.
pub(crate) const POLL_MASK: u64 = 1023;

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

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Complete,
    StateLimit,
    TimeLimit,
    MemoryLimit,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Complete => "complete",
            Outcome::StateLimit => "state_limit",
            Outcome::TimeLimit => "time_limit",
            Outcome::MemoryLimit => "memory_limit",
        }
    }
    pub fn is_complete(self) -> bool {
        self == Outcome::Complete
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Budgets of a run; `None` = unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Most states to store; the run stops when one more new state is found.
    pub max_states: Option<u64>,
    /// Wall-clock budget of the search.
    pub time: Option<Duration>,
    /// Budget in bytes for the store plus the frontier.
    pub memory_bytes: Option<u64>,
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

/// One BFS level, as in `<bfs-levels>` of BEEM's stat files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LevelStats {
    pub level: u32,
    pub states: u64,
    /// Out-edges of the states of this level.
    pub edges: u64,
    /// Out-edges of this level's states leading to another state of this or
    /// an earlier level (self-loops excluded).
    pub back_level_edges: u64,
}

/// BEEM's `<dfs-info>` counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DfsStats {
    pub max_stack: u64,
    pub front_edges: u64,
    pub back_edges: u64,
    pub cross_edges: u64,
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

/// Shared limit bookkeeping.
pub(crate) struct Budget {
    max_states: usize,
    deadline: Option<Instant>,
    memory: Option<u64>,
}

impl Budget {
    pub(crate) fn new(limits: &Limits, start: Instant) -> Budget {
        Budget {
            max_states: limits
                .max_states
                .map(|m| m.min(usize::MAX as u64) as usize)
                .unwrap_or(usize::MAX),
            deadline: limits.time.and_then(|t| start.checked_add(t)),
            memory: limits.memory_bytes,
        }
    }

    /// Whether storing one more new state is not allowed (state or memory
    /// budget). `frontier` is the frontier's current allocation.
    #[inline]
    pub(crate) fn refuse_new(&self, store: &StateStore, frontier: usize) -> Option<Outcome> {
        if store.len() >= self.max_states {
            return Some(Outcome::StateLimit);
        }
        if let Some(mem) = self.memory {
            let grow = store.next_growth_bytes();
            if grow > 0 && (store.bytes_used() + grow + frontier) as u64 > mem {
                return Some(Outcome::MemoryLimit);
            }
        }
        None
    }

    /// Whether the frontier may grow by `extra` bytes.
    #[inline]
    pub(crate) fn refuse_frontier(&self, store: &StateStore, frontier: usize, extra: usize) -> bool {
        match self.memory {
            Some(mem) => (store.bytes_used() + frontier + extra) as u64 > mem,
            None => false,
        }
    }

    #[inline]
    pub(crate) fn out_of_time(&self) -> bool {
        matches!(self.deadline, Some(d) if Instant::now() >= d)
    }
}

/// Looks a successor up and stores it if new, unless the budget refuses a
/// new state; `Err(outcome)` then.
#[inline]
pub(crate) fn visit(
    store: &mut StateStore,
    budget: &Budget,
    frontier: usize,
    state: &[u8],
    fp: u64,
) -> Result<Insert, Outcome> {
    if let Some(stop) = budget.refuse_new(store, frontier) {
        return match store.find(state, fp) {
            Some(id) => Ok(Insert::Seen(id)),
            None => Err(stop),
        };
    }
    Ok(store.insert_state(state, fp))
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
    let n = model.state_len();
    let mut store = StateStore::new(n);
    let mut transitions = 0u64;
    let mut deadlocks = 0u64;
    let mut errors = 0u64;
    let mut back_level = 0u64;
    let mut max_back = 0u64;
    // First id of every level.
    let mut level_starts: Vec<u32> = Vec::new();
    let mut levels: Vec<LevelStats> = Vec::new();
    let mut result = Outcome::Complete;

    let init = model.initial_vec();
    match visit(&mut store, &budget, 0, &init, model.fingerprint(&init)) {
        Ok(_) => {
            level_starts.push(0);
            levels.push(LevelStats {
                level: 0,
                states: 1,
                ..Default::default()
            });
        }
        Err(stop) => result = stop,
    }

    let mut fps: Vec<u64> = Vec::new();
    let mut next: usize = 0;
    let mut level_start: usize = 0;
    let mut level_end: usize = store.len();
    // States are expanded in batches of up to BATCH sources of one level:
    // all their successors are fingerprinted and their index slots
    // prefetched, then (the slots having arrived meanwhile) the stored
    // states those slots point to, before any is inserted: the cache misses
    // of a whole batch overlap, where one insert at a time would wait for
    // two misses in a row per successor. Insertion order, and so every id
    // and counter, is the same as one state at a time.
    const BATCH: usize = 16;
    let mut bufs: Vec<SuccBuf> = (0..BATCH).map(|_| SuccBuf::new(n)).collect();
    let mut batches = 0u64;
    'search: while result == Outcome::Complete && next < store.len() {
        if next == level_end {
            level_start = next;
            level_end = store.len();
            level_starts.push(next as u32);
            levels.push(LevelStats {
                level: levels.len() as u32,
                states: (level_end - level_start) as u64,
                ..Default::default()
            });
        }
        if batches & 63 == 0 && batches > 0 && budget.out_of_time() {
            result = Outcome::TimeLimit;
            break;
        }
        batches += 1;
        let end = level_end.min(next + BATCH);
        fps.clear();
        for (b, src) in (next..end).enumerate() {
            model.successors(store.get(src as u32), &mut bufs[b]);
            for i in 0..bufs[b].len() {
                let fp = model.fingerprint(bufs[b].state(i));
                store.prefetch(fp);
                fps.push(fp);
            }
        }
        for &fp in &fps {
            store.prefetch_state(fp);
        }
        let mut f = 0;
        let cur_level = levels.len() as u64 - 1;
        for (b, src) in (next..end).enumerate() {
            let buf = &bufs[b];
            let k = buf.len();
            let lvl = levels.last_mut().expect("level");
            lvl.edges += k as u64;
            transitions += k as u64;
            if k == 0 {
                deadlocks += 1;
            }
            for i in 0..k {
                if buf.entry(i).error {
                    errors += 1;
                }
                let fp = fps[f];
                f += 1;
                match visit(&mut store, &budget, 0, buf.state(i), fp) {
                    Ok(Insert::New(_)) => {}
                    Ok(Insert::Seen(id)) => {
                        let id = id as usize;
                        if id < level_end && id != src {
                            // Target on this level or an earlier one, not a self-loop.
                            back_level += 1;
                            lvl.back_level_edges += 1;
                            if id < level_start {
                                let target_level = level_starts.partition_point(|&s| s as usize <= id) - 1;
                                max_back = max_back.max(cur_level - target_level as u64);
                            }
                        }
                    }
                    Err(stop) => {
                        result = stop;
                        break 'search;
                    }
                }
            }
            next = src + 1;
        }
    }

    let mut report = finish_report(model, Strategy::Bfs, &store, start, result);
    report.transitions = transitions;
    report.deadlocks = deadlocks;
    report.error_transitions = errors;
    report.levels = Some(levels.len() as u64);
    report.back_level_edges = Some(back_level);
    report.max_back_level_edge = Some(max_back);
    report.max_level_states = Some(levels.iter().map(|l| l.states).max().unwrap_or(0));
    if level_table {
        report.level_table = Some(levels);
    }
    report
}

/// One state on the DFS stack: its id, how many successors it has and the
/// index of the next one to examine. The frames at the top of the stack
/// keep their successors and fingerprints on a stack beside them (from
/// index `kept` of the kept lists), up to a cap ([`KEEP_BYTES`]): when it
/// is reached the bottom half of the kept lists is dropped, and a frame
/// without its list (`kept == NOT_KEPT`) regenerates its successors when
/// the search backtracks to it (the successor function is deterministic,
/// so the order is the same). Either way the search is the same.
struct Frame {
    id: u32,
    next: u32,
    count: u32,
    kept: u32,
}

const NOT_KEPT: u32 = u32::MAX;

/// Bytes the kept successor lists may use (or an eighth of the memory
/// budget if smaller). Keeping them spares a second expansion of almost
/// every state (on backtracking, which happens near the top of the stack)
/// and lets the index slots of a state's successors be prefetched
/// together, as BFS does.
const KEEP_BYTES: usize = 64 << 20;

fn keep_cap(limits: &Limits) -> usize {
    match limits.memory_bytes {
        Some(m) => KEEP_BYTES.min((m / 8).min(usize::MAX as u64) as usize),
        None => KEEP_BYTES,
    }
}

/// Drops the bottom half (or so) of the kept lists: their frames will
/// regenerate their successors. The kept frames are always a suffix of the
/// stack. Returns false if nothing could be dropped (one frame's list).
fn drop_kept_bottom(frames: &mut [Frame], states: &mut Vec<u8>, fps: &mut Vec<u64>, n: usize) -> bool {
    let half = fps.len() / 2;
    // First kept frame, and the first one whose list starts at `half` or above.
    let mut first = frames.len();
    while first > 0 && frames[first - 1].kept != NOT_KEPT {
        first -= 1;
    }
    let Some(cut) = (first..frames.len()).find(|&i| frames[i].kept as usize >= half && frames[i].kept > 0)
    else {
        return false;
    };
    let base = frames[cut].kept as usize;
    for f in &mut frames[first..cut] {
        f.kept = NOT_KEPT;
    }
    for f in &mut frames[cut..] {
        f.kept -= base as u32;
    }
    states.drain(..base * n);
    fps.drain(..base);
    true
}

/// Fingerprints the successors in `buf` into `fps` and starts loading what
/// looking up those from `from` on will read.
fn fingerprint_buf(
    model: &dyn NextState,
    store: &StateStore,
    buf: &SuccBuf,
    fps: &mut Vec<u64>,
    from: usize,
) {
    fps.clear();
    fps.extend((0..buf.len()).map(|i| model.fingerprint(buf.state(i))));
    for &fp in &fps[from..] {
        store.prefetch(fp);
    }
    for &fp in &fps[from..] {
        store.prefetch_state(fp);
    }
}

/// Depth-first search; see the module documentation.
pub fn dfs(model: &dyn NextState, limits: &Limits) -> Report {
    dfs_keeping(model, limits, keep_cap(limits))
}

/// [`dfs`] with the kept successor lists capped at `cap` bytes.
fn dfs_keeping(model: &dyn NextState, limits: &Limits, cap: usize) -> Report {
    let start = Instant::now();
    let budget = Budget::new(limits, start);
    let n = model.state_len();
    let mut store = StateStore::new(n);
    let mut buf = SuccBuf::new(n);
    // Whose successors `buf` holds (frames that keep nothing).
    let mut buf_owner = u32::MAX;

    let mut frames: Vec<Frame> = Vec::new();
    let mut on_stack: Vec<u64> = Vec::new();
    // Kept successor lists of the frames at the bottom of the stack.
    let mut kept_states: Vec<u8> = Vec::new();
    let mut kept_fps: Vec<u64> = Vec::new();
    // Fingerprints of `buf`'s successors.
    let mut buf_fps: Vec<u64> = Vec::new();

    let mut transitions = 0u64;
    let mut deadlocks = 0u64;
    let mut errors = 0u64;
    let mut stats = DfsStats::default();
    let mut expansions = 0u64;
    let mut peak_frontier = 0usize;
    let mut result = Outcome::Complete;

    let frontier_bytes =
        |frames: &Vec<Frame>, on_stack: &Vec<u64>, buf: &SuccBuf, ks: &Vec<u8>, kf: &Vec<u64>| {
            frames.capacity() * std::mem::size_of::<Frame>()
                + on_stack.capacity() * 8
                + buf.len() * (n + 16)
                + ks.capacity()
                + kf.capacity() * 8
        };

    // Expands state `id` (counting its transitions) and pushes its frame;
    // false if the memory budget forbids growing the stack.
    macro_rules! push_frame {
        ($id:expr) => {{
            let id: u32 = $id;
            model.successors(store.get(id), &mut buf);
            buf_owner = id;
            let k = buf.len();
            let grows = frames.len() == frames.capacity() || (id as usize >> 6) >= on_stack.capacity();
            if (kept_fps.len() + k) * (n + 8) > cap {
                drop_kept_bottom(&mut frames, &mut kept_states, &mut kept_fps, n);
            }
            let keep = (kept_fps.len() + k) * (n + 8) <= cap;
            if !keep {
                // Kept frames must stay a suffix of the stack.
                for f in frames.iter_mut().rev().take_while(|f| f.kept != NOT_KEPT) {
                    f.kept = NOT_KEPT;
                }
                kept_states.clear();
                kept_fps.clear();
            }
            let cur = frontier_bytes(&frames, &on_stack, &buf, &kept_states, &kept_fps);
            if grows && budget.refuse_frontier(&store, cur, cur.max(64)) {
                false
            } else {
                expansions += 1;
                transitions += k as u64;
                if k == 0 {
                    deadlocks += 1;
                }
                errors += buf.entries().iter().filter(|e| e.error).count() as u64;
                let kept = if keep {
                    let at = kept_fps.len() as u32;
                    for i in 0..k {
                        let s = buf.state(i);
                        let fp = model.fingerprint(s);
                        kept_states.extend_from_slice(s);
                        kept_fps.push(fp);
                    }
                    // Start loading the index slots they will be looked up in.
                    for &fp in &kept_fps[at as usize..] {
                        store.prefetch(fp);
                    }
                    for &fp in &kept_fps[at as usize..] {
                        store.prefetch_state(fp);
                    }
                    at
                } else {
                    fingerprint_buf(model, &store, &buf, &mut buf_fps, 0);
                    NOT_KEPT
                };
                frames.push(Frame {
                    id,
                    next: 0,
                    count: k as u32,
                    kept,
                });
                let w = id as usize >> 6;
                if w >= on_stack.len() {
                    on_stack.resize(w + 1, 0);
                }
                on_stack[w] |= 1u64 << (id & 63);
                stats.max_stack = stats.max_stack.max(frames.len() as u64);
                peak_frontier =
                    peak_frontier.max(frontier_bytes(&frames, &on_stack, &buf, &kept_states, &kept_fps));
                true
            }
        }};
    }

    let init = model.initial_vec();
    match visit(&mut store, &budget, 0, &init, model.fingerprint(&init)) {
        Ok(ins) => {
            if !push_frame!(ins.id()) {
                result = Outcome::MemoryLimit;
            }
        }
        Err(stop) => result = stop,
    }

    let mut succ = vec![0u8; n];
    while result == Outcome::Complete {
        let Some(top) = frames.last_mut() else { break };
        if top.next == top.count {
            let id = top.id;
            if top.kept != NOT_KEPT {
                kept_states.truncate(top.kept as usize * n);
                kept_fps.truncate(top.kept as usize);
            }
            on_stack[id as usize >> 6] &= !(1u64 << (id & 63));
            frames.pop();
            continue;
        }
        let i = top.next as usize;
        top.next += 1;
        let fp = if top.kept != NOT_KEPT {
            let at = top.kept as usize + i;
            if i + 1 < top.count as usize {
                // The next sibling's stored state, while this one is looked up.
                store.prefetch_state(kept_fps[at + 1]);
            }
            succ.copy_from_slice(&kept_states[at * n..(at + 1) * n]);
            kept_fps[at]
        } else {
            if top.id != buf_owner {
                model.successors(store.get(top.id), &mut buf);
                fingerprint_buf(model, &store, &buf, &mut buf_fps, i);
                buf_owner = top.id;
            }
            succ.copy_from_slice(buf.state(i));
            buf_fps[i]
        };
        let frontier = frontier_bytes(&frames, &on_stack, &buf, &kept_states, &kept_fps);
        match visit(&mut store, &budget, frontier, &succ, fp) {
            Ok(Insert::New(id)) => {
                stats.front_edges += 1;
                if expansions & POLL_MASK == 0 && budget.out_of_time() {
                    result = Outcome::TimeLimit;
                    break;
                }
                if !push_frame!(id) {
                    result = Outcome::MemoryLimit;
                }
            }
            Ok(Insert::Seen(id)) => {
                if on_stack[id as usize >> 6] & (1u64 << (id & 63)) != 0 {
                    stats.back_edges += 1;
                } else {
                    stats.cross_edges += 1;
                }
            }
            Err(stop) => result = stop,
        }
    }

    let mut report = finish_report(model, Strategy::Dfs, &store, start, result);
    report.transitions = transitions;
    report.deadlocks = deadlocks;
    report.error_transitions = errors;
    report.dfs = Some(stats);
    report.frontier_bytes = peak_frontier as u64;
    report
}

/// Peak resident set size of this process in bytes (`VmHWM` of
/// `/proc/self/status`); 0 where unavailable.
pub fn peak_rss_bytes() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    for line in status.lines() {
        if let Some(rest) = line.strip_prefix("VmHWM:") {
            let kb = rest.trim().trim_end_matches("kB").trim();
            return kb.parse::<u64>().map(|k| k * 1024).unwrap_or(0);
        }
    }
    0
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
