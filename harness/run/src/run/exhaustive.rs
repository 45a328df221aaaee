//! Exhaustive breadth-first and depth-first exploration of a whole state
//! space: the engine's two loops with nothing observed, reported as a
//! [`RunRecord`] (what `dvemc explore --strategy bfs|dfs` runs).
//!
//! **What it explores**: every state reachable from the initial state of any
//! [`NextState`] model, visiting successors in the model's order (DiVinE's
//! order for DVE models, so the counters reproduce BEEM's `stat.xml` files).
//!
//! **What it guarantees**: a run that ends `complete` has stored
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

use std::time::Instant;

use dve_frontend::model::NextState;

use crate::algo::export::{LoggedObserver, LoggedWatch};
use crate::algo::lts::EdgeLog;
use crate::engine::loops::dfs::keep_cap;
use crate::engine::loops::parallel::NoWatch;
use crate::engine::progress::Meter;
use crate::engine::{
    self, BfsOptions, BitstateStore, Budget, CompactStore, DfsOptions, Nothing, Root, StateStore, Store,
    StoreKind,
};
pub use crate::engine::{peak_rss_bytes, DfsStats, LevelStats, Limits, Outcome};
use crate::output::record::{BfsMetrics, Core, Cost, Details, DfsMetrics, RunRecord};

/// The order of an exhaustive search (the general algorithm of
/// `algo::caching` has more: its `Order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Traversal {
    #[default]
    Bfs,
    Dfs,
}

impl std::fmt::Display for Traversal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Traversal::Bfs => "bfs",
            Traversal::Dfs => "dfs",
        })
    }
}

#[derive(Clone, Debug, Default)]
pub struct ExploreOptions {
    pub traversal: Traversal,
    pub limits: Limits,
    /// Include the per-level table (BFS) in the record.
    pub level_table: bool,
    /// Where the progress line reads the counters (and, sampling, the
    /// record's `samples` come from).
    pub meter: Option<Meter>,
    /// The visited set.
    pub store: StoreKind,
    /// Threads (more than 1: the parallel BFS, `engine::loops::parallel`, or the
    /// depth-first-like order, `engine::loops::parallel_dfs`).
    pub threads: usize,
}

/// Explores `model` with the options' strategy (BFS by default).
pub fn explore(model: &dyn NextState, opts: &ExploreOptions) -> RunRecord {
    explore_with(model, opts, None)
}

/// [`explore`] recording every transition in `log` (`--export`; the
/// exact store).
pub fn explore_logged(model: &dyn NextState, opts: &ExploreOptions, log: &EdgeLog) -> RunRecord {
    assert_eq!(
        opts.store,
        StoreKind::Exact,
        "the export numbers states by the exact store's ids"
    );
    explore_with(model, opts, Some(log))
}

fn explore_with(model: &dyn NextState, opts: &ExploreOptions, log: Option<&EdgeLog>) -> RunRecord {
    if opts.threads > 1 {
        return explore_parallel(model, opts, log);
    }
    match opts.store {
        StoreKind::Exact => explore_into(model, opts, |_| StateStore::new(model.state_len()), log),
        StoreKind::Tree => explore_into(
            model,
            opts,
            |b| engine::store::tree::leaf_order::tree_store_for(model, b),
            None,
        ),
        StoreKind::CTree => explore_ctree(model, opts),
        StoreKind::Compact(bits) => {
            explore_into(model, opts, |_| CompactStore::new(model.state_len(), bits), None)
        }
        StoreKind::Bitstate { log2m, k } => explore_into(
            model,
            opts,
            |_| BitstateStore::new(model.state_len(), log2m, k),
            None,
        ),
    }
}

/// [`explore`] on `opts.threads` threads (exact or tree store): BFS, or the
/// depth-first-like order for DFS.
fn explore_parallel(model: &dyn NextState, opts: &ExploreOptions, log: Option<&EdgeLog>) -> RunRecord {
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let strategy = opts.traversal;
    let bfs = strategy == Traversal::Bfs;
    let (threads, store) = (opts.threads, opts.store);
    let r = match (bfs, log) {
        (true, None) => engine::loops::parallel::parallel_bfs(model, threads, &budget, store),
        (false, None) => engine::loops::parallel_dfs::parallel_dfs(model, threads, &budget, store),
        (true, Some(log)) => {
            let watch = LoggedWatch { inner: &NoWatch, log };
            engine::loops::parallel::parallel_check(model, threads, &budget, &watch, store).0
        }
        (false, Some(log)) => {
            let watch = LoggedWatch { inner: &NoWatch, log };
            engine::loops::parallel_dfs::parallel_dfs_check(model, threads, &budget, &watch, store).0
        }
    };
    let time_s = start.elapsed().as_secs_f64();
    let mut rec = RunRecord {
        core: Core {
            model: model.info().name.clone(),
            strategy: strategy.to_string(),
            config: match opts.store {
                StoreKind::Exact => format!("{strategy} --threads {}", opts.threads),
                kind => format!("{strategy} --store {kind} --threads {}", opts.threads),
            },
            store: opts.store.to_string(),
            state_len: model.state_len() as u64,
            ..Core::from(&r.counters)
        },
        bfs: bfs.then(|| BfsMetrics {
            levels: Some(r.levels.len() as u64),
            back_level_edges: Some(r.back_level_edges),
            max_back_level_edge: Some(r.max_back_level_edge),
            max_level_states: Some(r.levels.iter().map(|l| l.states).max().unwrap_or(0)),
        }),
        cost: Cost {
            store_bytes: Some(r.store_bytes),
            frontier_bytes: Some(r.frontier_bytes),
            ..Cost::default()
        },
        details: Details {
            threads: Some(opts.threads as u64),
            ..Details::default()
        },
        ..RunRecord::default()
    };
    if opts.level_table && bfs {
        rec.details.level_table = Some(r.levels);
    }
    finish(rec, time_s)
}

/// The rates, peak memory and bytes per state of a record whose frontier
/// (queues, stacks, buffers) counts as the store does.
fn finish(mut rec: RunRecord, time_s: f64) -> RunRecord {
    rec.cost.peak_rss_bytes = peak_rss_bytes();
    rec.finish_rates(time_s);
    rec
}

/// [`explore`] with the tree store and its roots in a root set (BFS).
fn explore_ctree(model: &dyn NextState, opts: &ExploreOptions) -> RunRecord {
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let r = engine::loops::tree_bfs::tree_bfs(model, &budget);
    ctree_record(model, opts, r, None, start.elapsed().as_secs_f64())
}

/// [`explore`] with `--store ctree` and a checkpoint: the search goes on
/// from `spec` if it exists and writes it if it stops before its end
/// (`engine::checkpoint`); the rates count every part of the search.
pub fn explore_checkpointed(
    model: &dyn NextState,
    opts: &ExploreOptions,
    spec: &engine::checkpoint::CheckpointSpec,
) -> anyhow::Result<RunRecord> {
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    // The process's processor time (its setup too, as a results row's
    // `cpu_s` counts it), the search's wall clock.
    let elapsed = || (engine::process_cpu_seconds(), start.elapsed().as_secs_f64());
    let (r, info) = engine::loops::tree_bfs::tree_bfs_checkpointed(model, &budget, spec, &elapsed)?;
    let time_s = start.elapsed().as_secs_f64() + info.prior_wall_s;
    Ok(ctree_record(model, opts, r, Some(info), time_s))
}

/// The record of a ctree search.
fn ctree_record(
    model: &dyn NextState,
    opts: &ExploreOptions,
    r: engine::loops::tree_bfs::TreeBfs,
    checkpoint: Option<engine::checkpoint::CheckpointInfo>,
    time_s: f64,
) -> RunRecord {
    let mut rec = RunRecord {
        core: Core {
            model: model.info().name.clone(),
            strategy: Traversal::Bfs.to_string(),
            config: format!("bfs --store {}", StoreKind::CTree),
            store: StoreKind::CTree.to_string(),
            state_len: model.state_len() as u64,
            ..Core::from(&r.counters)
        },
        bfs: Some(BfsMetrics {
            levels: Some(r.levels.len() as u64),
            max_level_states: Some(r.levels.iter().map(|l| l.states).max().unwrap_or(0)),
            ..BfsMetrics::default()
        }),
        cost: Cost {
            store_bytes: Some(r.store_bytes),
            frontier_bytes: Some(r.frontier_bytes),
            ..Cost::default()
        },
        details: Details {
            threads: Some(1),
            root_tables: Some(r.root_tables as u64),
            memory_need: r.memory_need,
            checkpoint,
            ..Details::default()
        },
        ..RunRecord::default()
    };
    if opts.level_table {
        rec.details.level_table = Some(r.levels);
    }
    // The queue holds the states themselves: bytes per state count it.
    finish(rec, time_s)
}

/// [`explore`] with the visited set `make` builds (in the run's time: the
/// tree store samples the model first).
fn explore_into<S: Store>(
    model: &dyn NextState,
    opts: &ExploreOptions,
    make: impl FnOnce(&Budget) -> S,
    log: Option<&EdgeLog>,
) -> RunRecord {
    let strategy = opts.traversal;
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let mut store = make(&budget);
    let mut rec = RunRecord {
        core: Core {
            model: model.info().name.clone(),
            strategy: strategy.to_string(),
            config: strategy.to_string(),
            store: opts.store.to_string(),
            state_len: model.state_len() as u64,
            ..Core::default()
        },
        // The BFS queue is the store's order: no bytes of its own.
        cost: Cost {
            frontier_bytes: Some(0),
            ..Cost::default()
        },
        details: Details {
            threads: Some(1),
            ..Details::default()
        },
        ..RunRecord::default()
    };
    match strategy {
        Traversal::Dfs => {
            let opts = DfsOptions {
                keep_bytes: keep_cap(opts.limits.memory_bytes),
                root: Root::Initial,
            };
            let r = match log {
                None => engine::dfs(model, &mut store, &budget, opts, &mut Nothing),
                Some(log) => {
                    let mut obs = LoggedObserver {
                        inner: &mut Nothing,
                        log,
                    };
                    engine::dfs(model, &mut store, &budget, opts, &mut obs)
                }
            };
            rec.core.set_counters(&r.counters);
            rec.dfs = Some(DfsMetrics::of(&r.stats));
            rec.cost.frontier_bytes = Some(r.frontier_bytes);
        }
        Traversal::Bfs => {
            let r = match log {
                None => engine::bfs(model, &mut store, &budget, BfsOptions::default(), &mut Nothing),
                Some(log) => {
                    let mut obs = LoggedObserver {
                        inner: &mut Nothing,
                        log,
                    };
                    engine::bfs(model, &mut store, &budget, BfsOptions::default(), &mut obs)
                }
            };
            rec.core.set_counters(&r.counters);
            rec.bfs = Some(BfsMetrics {
                levels: Some(r.levels.len() as u64),
                back_level_edges: Some(r.back_level_edges),
                max_back_level_edge: Some(r.max_back_level_edge),
                max_level_states: Some(r.levels.iter().map(|l| l.states).max().unwrap_or(0)),
            });
            if opts.level_table {
                rec.details.level_table = Some(r.levels);
            }
        }
    }
    let time_s = start.elapsed().as_secs_f64();
    rec.core.states = store.len() as u64;
    rec.cost.store_bytes = Some(store.bytes_used() as u64);
    if !store.gives_ids() {
        // Back-level edges need the id of the state found again.
        if let Some(b) = rec.bfs.as_mut() {
            b.back_level_edges = None;
            b.max_back_level_edge = None;
        }
        if let Some(t) = rec.details.level_table.as_mut() {
            t.iter_mut().for_each(|l| l.back_level_edges = 0);
        }
    }
    if let Some(e) = store.expected_omissions() {
        rec.details.expected_omissions = Some(e);
        if rec.core.result.is_complete() {
            rec.core.result = Outcome::Probabilistic;
        }
    }
    rec.cost.peak_rss_bytes = peak_rss_bytes();
    rec.finish_rates(time_s);
    // The DFS stack is not kept per state: bytes per state count the store.
    let states = rec.core.states.max(1) as f64;
    rec.cost.bytes_per_state = rec.cost.store_bytes.map(|b| b as f64 / states);
    rec
}

/// Breadth-first search; see the module documentation.
pub fn bfs(model: &dyn NextState, limits: &Limits, level_table: bool) -> RunRecord {
    explore(
        model,
        &ExploreOptions {
            traversal: Traversal::Bfs,
            limits: *limits,
            level_table,
            meter: None,
            store: StoreKind::Exact,
            threads: 1,
        },
    )
}

/// Depth-first search; see the module documentation.
pub fn dfs(model: &dyn NextState, limits: &Limits) -> RunRecord {
    explore(
        model,
        &ExploreOptions {
            traversal: Traversal::Dfs,
            limits: *limits,
            level_table: false,
            meter: None,
            store: StoreKind::Exact,
            threads: 1,
        },
    )
}

/// [`dfs`] with the kept successor lists capped at `cap` bytes.
#[cfg(test)]
fn dfs_keeping(model: &dyn NextState, limits: &Limits, cap: usize) -> RunRecord {
    let budget = Budget::new(limits, Instant::now());
    let mut store = StateStore::new(model.state_len());
    let opts = DfsOptions {
        keep_bytes: cap,
        root: Root::Initial,
    };
    let r = engine::dfs(model, &mut store, &budget, opts, &mut Nothing);
    RunRecord {
        core: Core {
            ..Core::from(&r.counters)
        },
        dfs: Some(DfsMetrics::of(&r.stats)),
        ..RunRecord::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeping successor lists or regenerating them (always, or beyond a
    /// cap reached mid-search) gives the same search.
    #[test]
    fn dfs_is_the_same_whatever_is_kept() {
        let beem = crate::model::beem::Beem::locate(None).expect("the BEEM suite");
        let path = beem.model_path("brp.1");
        let model = dve_frontend::interp::Interpreter::new(dve_frontend::load_file(&path).unwrap());
        let limits = Limits::default();
        let all = dfs_keeping(&model, &limits, usize::MAX);
        assert!(all.core.states > 1000, "a model big enough to matter");
        let stats = |r: &RunRecord| (r.core.states, r.core.transitions, r.core.deadlocks, r.dfs_stats());
        for cap in [0, 64, 4096, 65536] {
            assert_eq!(
                stats(&dfs_keeping(&model, &limits, cap)),
                stats(&all),
                "cap {cap}"
            );
        }
    }
}

/// The ctree search and its checkpoints, through [`explore`] and [`explore_checkpointed`].
#[cfg(test)]
mod ctree_tests {
    use super::*;
    use crate::engine::checkpoint::CheckpointSpec;

    /// A BEEM model, interpreted.
    fn beem_model(inst: &str) -> dve_frontend::interp::Interpreter {
        let beem = crate::model::beem::Beem::locate(None).expect("the BEEM suite");
        dve_frontend::interp::Interpreter::new(dve_frontend::load_file(&beem.model_path(inst)).unwrap())
    }

    /// A breadth-first ctree search with its level table, under `memory`
    /// bytes.
    fn ctree_options(memory: Option<u64>) -> ExploreOptions {
        ExploreOptions {
            traversal: Traversal::Bfs,
            level_table: true,
            store: StoreKind::CTree,
            threads: 1,
            limits: crate::engine::Limits {
                memory_bytes: memory,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// A search stopped by its memory budget again and again, each time
    /// going on from its checkpoint, ends with the counters and levels of
    /// the search run at once, and removes its checkpoint; another
    /// model's checkpoint is refused.
    #[test]
    fn a_search_in_parts_is_the_search_at_once() {
        let (model, spec) = in_parts("bakery.4", 200_000, 80_000);
        let opts = ctree_options;

        // Stopped once more, the checkpoint is another model's for
        // another digest.
        let r = crate::run::exhaustive::explore_checkpointed(&model, &opts(Some(200_000)), &spec).unwrap();
        assert!(r.details.checkpoint.unwrap().saved);
        let other = CheckpointSpec {
            digest: 2,
            ..spec.clone()
        };
        let e = crate::run::exhaustive::explore_checkpointed(&model, &opts(None), &other).unwrap_err();
        assert!(e.to_string().contains("another model"), "{e}");
        let _ = std::fs::remove_dir_all(spec.path.parent().unwrap());
    }

    /// A level saved part way, after it gave back what it expanded, goes
    /// on from the right entry.
    #[test]
    fn a_level_saved_after_giving_back_goes_on_where_it_was() {
        let (_, spec) = in_parts("fischer.4", 1_000_000, 400_000);
        assert!(crate::engine::loops::tree_bfs::REBASED_SAVES.load(std::sync::atomic::Ordering::Relaxed) > 0);
        let _ = std::fs::remove_dir_all(spec.path.parent().unwrap());
    }

    /// `inst` explored in parts, the first under `first` bytes, each next
    /// one under `step` more, six of them, then to its end: the counters
    /// and levels of the search run at once; the model and the (removed)
    /// checkpoint.
    fn in_parts(inst: &str, first: u64, step: u64) -> (dve_frontend::interp::Interpreter, CheckpointSpec) {
        // Levels give back what they expanded from a few kilobytes on, so
        // that checkpoints of these small models are written after it.
        crate::engine::loops::tree_bfs::release_queues_from(4 << 10);
        let model = beem_model(inst);
        let opts = ctree_options;
        let once = explore(&model, &opts(None));
        let dir = std::env::temp_dir().join(format!("dvemc-parts-{inst}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let spec = CheckpointSpec {
            path: dir.join("parts.ckpt"),
            digest: 1,
        };
        let _ = std::fs::remove_file(&spec.path);
        let mut parts = 0;
        let last = loop {
            // Each part may hold a little more than the last.
            let memory = (parts < 6).then(|| first + parts * step);
            let r = crate::run::exhaustive::explore_checkpointed(&model, &opts(memory), &spec).unwrap();
            let info = r.details.checkpoint.clone().unwrap();
            assert_eq!(info.resumed_parts, parts);
            assert_eq!(info.saved, r.core.result == crate::engine::Outcome::MemoryLimit);
            assert_eq!(spec.path.exists(), info.saved);
            parts += 1;
            if !info.saved {
                break r;
            }
        };
        assert!(parts > 2, "the budgets stop it: {parts} parts");
        assert!(last.core.result.is_complete());
        let counters = |r: &crate::output::record::RunRecord| {
            (
                r.core.states,
                r.core.transitions,
                r.core.deadlocks,
                r.bfs.as_ref().and_then(|g| g.levels),
                r.bfs.as_ref().and_then(|g| g.max_level_states),
                r.details.level_table.clone(),
            )
        };
        assert_eq!(counters(&last), counters(&once), "{inst}");
        assert!(!spec.path.exists());
        (model, spec)
    }

    /// A budget that the root set's last doubling would pass: its table
    /// is sealed and another opened, and the search, complete where the
    /// budget holds its states, counts as the search without a budget.
    #[test]
    fn a_root_set_sealed_for_memory_keeps_every_count() {
        let model = beem_model("anderson.1");
        let run = |memory: Option<u64>| explore(&model, &ctree_options(memory));
        let once = run(None);
        assert_eq!(once.details.root_tables, Some(1));
        let counters = |r: &crate::output::record::RunRecord| {
            (
                r.core.states,
                r.core.transitions,
                r.core.deadlocks,
                r.details.level_table.clone(),
            )
        };
        let mut sealed = 0;
        // Budgets from below what the search allocates to twice that (its
        // last doublings need more than they end with).
        let bytes = |r: &RunRecord| r.cost.store_bytes.unwrap() + r.cost.frontier_bytes.unwrap();
        let peak = bytes(&once);
        for k in (6..=20).step_by(2) {
            let r = run(Some(peak * k / 10));
            assert!(r.core.result.is_complete() || r.core.result == crate::engine::Outcome::MemoryLimit);
            assert!(bytes(&r) <= peak * k / 10);
            if r.core.result.is_complete() {
                assert_eq!(counters(&r), counters(&once), "{k}/10 of {peak} bytes");
                sealed += usize::from(r.details.root_tables > Some(1));
                assert_eq!(r.details.memory_need, None);
            } else {
                // What did not fit, by part: more than the budget.
                let n = r.details.memory_need.clone().expect("what it needed");
                assert_eq!(n.budget, peak * k / 10);
                let sum = n.store + n.queues + n.root_set_growth + n.tables_growth + n.queue_growth;
                assert!(sum > n.budget, "{n:?}");
            }
        }
        assert!(sealed > 0, "no complete search sealed a table");
    }

    /// Every counter but back-level edges, and every level's states and
    /// edges, as with the exact store; and the bytes of a state stay few.
    #[test]
    fn counts_as_the_exact_store() {
        for inst in [
            "adding.4",
            "bakery.4",
            "leader_election.3",
            "brp.2",
            "firewire_tree.2",
            "public_subscribe.1",
        ] {
            let model = beem_model(inst);
            let run = |store| {
                explore(
                    &model,
                    &ExploreOptions {
                        store,
                        ..ctree_options(None)
                    },
                )
            };
            let (exact, ctree) = (run(StoreKind::Exact), run(StoreKind::CTree));
            assert!(ctree.core.result.is_complete(), "{inst}");
            let counters = |r: &crate::output::record::RunRecord| {
                let levels: Vec<(u64, u64)> = r
                    .details
                    .level_table
                    .as_ref()
                    .unwrap()
                    .iter()
                    .map(|l| (l.states, l.edges))
                    .collect();
                (
                    r.core.states,
                    r.core.transitions,
                    r.core.deadlocks,
                    r.core.error_transitions,
                    r.bfs.as_ref().and_then(|g| g.levels),
                    levels,
                )
            };
            assert_eq!(counters(&ctree), counters(&exact), "{inst}");
            assert_eq!(
                ctree.bfs.as_ref().and_then(|g| g.back_level_edges),
                None,
                "{inst}: not counted"
            );
            assert!(ctree.cost.bytes_per_state < exact.cost.bytes_per_state, "{inst}");
        }
    }
}
