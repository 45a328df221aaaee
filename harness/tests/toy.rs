//! BFS/DFS counters and limits on small hand-written `NextState` graphs,
//! and on hand-coded copies of two BEEM models checked against BEEM's
//! stat files (when the BEEM directory is present).

use std::time::Duration;

use dve_frontend::model::{Label, ModelInfo, NextState, SuccBuf};
use dvemc_run::engine::StoreKind;
use dvemc_run::run::exhaustive::Traversal;
use dvemc_run::run::exhaustive::{bfs, dfs, explore, DfsStats, ExploreOptions, Limits, Outcome};

mod common;
use common::{beem, Graph};

fn info(name: &str, state_len: usize) -> ModelInfo {
    ModelInfo {
        name: name.to_string(),
        state_len,
        ..Default::default()
    }
}

fn ring(n: u32) -> Graph {
    Graph::new("ring", (0..n).map(|i| vec![(i + 1) % n]).collect())
}

fn binary_tree(depth: u32) -> Graph {
    let n = (1u32 << (depth + 1)) - 1;
    Graph::new(
        "tree",
        (0..n)
            .map(|i| [2 * i + 1, 2 * i + 2].into_iter().filter(|&c| c < n).collect())
            .collect(),
    )
}

/// 0 -> 1, 2; 1 -> 2, 3; 2 -> 0, 2; 3 -> 1.
fn classified() -> Graph {
    Graph::new("classified", vec![vec![1, 2], vec![2, 3], vec![0, 2], vec![1]])
}

/// An unbounded counter: i -> i + 1 (4-byte states), for the limits.
struct Counter {
    info: ModelInfo,
}

impl NextState for Counter {
    fn info(&self) -> &ModelInfo {
        &self.info
    }
    fn initial_state(&self, out: &mut [u8]) {
        out.fill(0);
    }
    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        out.clear();
        let v = u32::from_le_bytes(src.try_into().unwrap());
        out.push_zeroed(Label::local(0), false)
            .copy_from_slice(&v.wrapping_add(1).to_le_bytes());
    }
}

fn counter() -> Counter {
    Counter {
        info: info("counter", 4),
    }
}

#[test]
fn ring_bfs() {
    let r = bfs(&ring(10), &Limits::default(), true);
    assert_eq!(r.core.result, Outcome::Complete);
    assert_eq!(
        (
            r.core.states,
            r.core.transitions,
            r.core.deadlocks,
            r.core.error_transitions
        ),
        (10, 10, Some(0), Some(0))
    );
    assert_eq!(r.bfs.as_ref().and_then(|g| g.levels), Some(10));
    assert_eq!(r.bfs.as_ref().and_then(|g| g.back_level_edges), Some(1));
    assert_eq!(r.bfs.as_ref().and_then(|g| g.max_back_level_edge), Some(9));
    let t = r.details.level_table.unwrap();
    assert_eq!(t.len(), 10);
    assert!(t.iter().all(|l| l.states == 1 && l.edges == 1));
    assert_eq!(t[9].back_level_edges, 1);
}

#[test]
fn ring_dfs() {
    let r = dfs(&ring(10), &Limits::default());
    assert_eq!(
        (r.core.states, r.core.transitions, r.core.deadlocks),
        (10, 10, Some(0))
    );
    assert_eq!(
        r.dfs_stats(),
        Some(DfsStats {
            max_stack: 10,
            front_edges: 9,
            back_edges: 1,
            cross_edges: 0
        })
    );
    assert_eq!(r.bfs.as_ref().and_then(|g| g.levels), None);
}

#[test]
fn self_loop() {
    let g = Graph::new("loop", vec![vec![0, 0]]);
    let b = bfs(&g, &Limits::default(), false);
    // Self-loops are not back-level edges (BEEM's definition).
    assert_eq!(
        (
            b.core.states,
            b.core.transitions,
            b.bfs.as_ref().and_then(|g| g.levels),
            b.bfs.as_ref().and_then(|g| g.back_level_edges)
        ),
        (1, 2, Some(1), Some(0))
    );
    let d = dfs(&g, &Limits::default());
    assert_eq!(
        d.dfs_stats(),
        Some(DfsStats {
            max_stack: 1,
            front_edges: 0,
            back_edges: 2,
            cross_edges: 0
        })
    );
}

#[test]
fn tree_bfs_and_dfs() {
    let g = binary_tree(6);
    let n = 127;
    let b = bfs(&g, &Limits::default(), true);
    assert_eq!(
        (b.core.states, b.core.transitions, b.core.deadlocks),
        (n, n - 1, Some(64))
    );
    assert_eq!(b.bfs.as_ref().and_then(|g| g.levels), Some(7));
    assert_eq!(b.bfs.as_ref().and_then(|g| g.back_level_edges), Some(0));
    assert_eq!(b.bfs.as_ref().and_then(|g| g.max_level_states), Some(64));
    let t = b.details.level_table.unwrap();
    for (k, l) in t.iter().enumerate() {
        assert_eq!(l.states, 1 << k);
        assert_eq!(l.edges, if k == 6 { 0 } else { 2 << k });
    }
    let d = dfs(&g, &Limits::default());
    assert_eq!(
        (d.core.states, d.core.transitions, d.core.deadlocks),
        (n, n - 1, Some(64))
    );
    assert_eq!(
        d.dfs_stats(),
        Some(DfsStats {
            max_stack: 7,
            front_edges: n - 1,
            back_edges: 0,
            cross_edges: 0
        })
    );
}

#[test]
fn known_edge_classification() {
    let g = classified();
    let d = dfs(&g, &Limits::default());
    assert_eq!((d.core.states, d.core.transitions), (4, 7));
    // 0->1 F, 1->2 F, 2->0 B, 2->2 B, 1->3 F, 3->1 B, 0->2 C.
    assert_eq!(
        d.dfs_stats(),
        Some(DfsStats {
            max_stack: 3,
            front_edges: 3,
            back_edges: 3,
            cross_edges: 1
        })
    );
    let b = bfs(&g, &Limits::default(), true);
    assert_eq!(b.bfs.as_ref().and_then(|g| g.levels), Some(3));
    // Levels {0}, {1, 2}, {3}: back-level edges 1->2, 2->0, 3->1 (not the
    // self-loop 2->2).
    assert_eq!(b.bfs.as_ref().and_then(|g| g.back_level_edges), Some(3));
    assert_eq!(b.bfs.as_ref().and_then(|g| g.max_back_level_edge), Some(1));
    let t = b.details.level_table.unwrap();
    assert_eq!(
        t.iter()
            .map(|l| (l.states, l.edges, l.back_level_edges))
            .collect::<Vec<_>>(),
        vec![(1, 2, 0), (2, 4, 2), (1, 1, 1)]
    );
}

#[test]
fn error_transitions_are_edges_into_a_state() {
    // 0 -> 1, E(2); 1 -> E(2); 2 is the "error state" (no successors).
    let g = Graph::new("errors", vec![vec![1, 2], vec![2], vec![]]).with_errors(&[(0, 1), (1, 0)]);
    for s in [Traversal::Bfs, Traversal::Dfs] {
        let r = explore(
            &g,
            &ExploreOptions {
                traversal: s,
                ..Default::default()
            },
        );
        assert_eq!(
            (
                r.core.states,
                r.core.transitions,
                r.core.error_transitions,
                r.core.deadlocks
            ),
            (3, 3, Some(2), Some(1)),
            "{s}"
        );
    }
}

/// BFS and DFS, each with the exact and the tree-compressed store, and
/// BFS with the tree store's roots in a compact set: the budgets hold
/// whatever the store.
fn both_stores() -> Vec<(Traversal, StoreKind)> {
    [Traversal::Bfs, Traversal::Dfs]
        .into_iter()
        .flat_map(|s| [(s, StoreKind::Exact), (s, StoreKind::Tree)])
        .chain([(Traversal::Bfs, StoreKind::CTree)])
        .collect()
}

#[test]
fn state_limit() {
    for (s, store) in both_stores() {
        let opts = ExploreOptions {
            traversal: s,
            limits: Limits {
                max_states: Some(5),
                ..Default::default()
            },
            level_table: false,
            meter: None,
            store,
            threads: 1,
        };
        let r = explore(&ring(100), &opts);
        assert_eq!(r.core.result, Outcome::StateLimit, "{s} {store}");
        assert_eq!(r.core.states, 5, "{s} {store}");
        // A limit the model stays within is no limit.
        let opts = ExploreOptions {
            limits: Limits {
                max_states: Some(10),
                ..Default::default()
            },
            ..opts
        };
        let r = explore(&ring(10), &opts);
        assert_eq!(
            (r.core.result, r.core.states),
            (Outcome::Complete, 10),
            "{s} {store}"
        );
        let opts = ExploreOptions {
            limits: Limits {
                max_states: Some(0),
                ..Default::default()
            },
            ..opts
        };
        let r = explore(&ring(10), &opts);
        assert_eq!(
            (r.core.result, r.core.states),
            (Outcome::StateLimit, 0),
            "{s} {store}"
        );
    }
}

/// The parallel BFS stops exactly at a state limit (a new state reserves
/// its place first), and within time and memory budgets, on any number of
/// threads.
#[test]
fn parallel_budgets() {
    for threads in [2, 3, 8] {
        for (model, n) in [(ring(100), 5u64), (ring(100), 1), (ring(10), 10)] {
            let opts = ExploreOptions {
                traversal: Traversal::Bfs,
                limits: Limits {
                    max_states: Some(n),
                    ..Default::default()
                },
                threads,
                ..Default::default()
            };
            let r = explore(&model, &opts);
            assert_eq!(r.core.states, n, "{threads} threads, limit {n}");
        }
        let opts = ExploreOptions {
            traversal: Traversal::Bfs,
            limits: Limits {
                time: Some(Duration::from_millis(200)),
                memory_bytes: Some(1 << 30),
                ..Default::default()
            },
            threads,
            ..Default::default()
        };
        let t0 = std::time::Instant::now();
        let r = explore(&counter(), &opts);
        assert_eq!(r.core.result, Outcome::TimeLimit, "{threads} threads");
        assert!(t0.elapsed() < Duration::from_secs(5));
        let limit = 8u64 << 20;
        let opts = ExploreOptions {
            traversal: Traversal::Bfs,
            limits: Limits {
                memory_bytes: Some(limit),
                ..Default::default()
            },
            threads,
            ..Default::default()
        };
        let r = explore(&binary_tree(20), &opts);
        assert_eq!(r.core.result, Outcome::MemoryLimit, "{threads} threads");
        assert!(r.core.states > 10_000, "{threads} threads: {}", r.core.states);
        let store = r.cost.store_bytes.expect("measured");
        assert!(store <= limit, "{threads} threads: {store} bytes");
    }
}

#[test]
fn time_limit() {
    for (s, store) in both_stores() {
        let opts = ExploreOptions {
            traversal: s,
            limits: Limits {
                time: Some(Duration::from_millis(200)),
                memory_bytes: Some(1 << 30),
                ..Default::default()
            },
            level_table: false,
            meter: None,
            store,
            threads: 1,
        };
        let t0 = std::time::Instant::now();
        let r = explore(&counter(), &opts);
        assert_eq!(r.core.result, Outcome::TimeLimit, "{s} {store}");
        assert!(t0.elapsed() < Duration::from_secs(5), "{s} {store}");
        assert!(r.core.states > 1000, "{s} {store}");
    }
}

#[test]
fn memory_limit() {
    for (s, store) in both_stores() {
        let limit = 4u64 << 20;
        let opts = ExploreOptions {
            traversal: s,
            limits: Limits {
                memory_bytes: Some(limit),
                ..Default::default()
            },
            level_table: false,
            meter: None,
            store,
            threads: 1,
        };
        let r = explore(&counter(), &opts);
        assert_eq!(r.core.result, Outcome::MemoryLimit, "{s} {store}");
        let (kept, frontier) = (r.cost.store_bytes.unwrap(), r.cost.frontier_bytes.unwrap());
        assert!(kept + frontier <= limit, "{s} {store}: {kept} + {frontier}");
        assert!(r.core.states > 10_000, "{s} {store}: {}", r.core.states);
        // Counted (the root set keeps a state in fewer than 4 bytes).
        let least = if store == StoreKind::CTree { 1.0 } else { 4.0 };
        let per_state = r.cost.bytes_per_state.expect("measured");
        assert!(per_state > least, "{s} {store}: {per_state}");
    }
}

#[test]
fn report_serialises() {
    let r = bfs(&ring(3), &Limits::default(), false);
    let v = serde_json::to_value(&r).unwrap();
    for key in [
        "states",
        "transitions",
        "deadlocks",
        "levels",
        "time_s",
        "states_per_s",
        "bytes_per_state",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["result"], "complete");
    assert_eq!(v["strategy"], "bfs");
    assert!(v.get("level_table").is_none());
}

// --- hand-coded BEEM models -------------------------------------------------

/// `adding.1`: `int c=1, x1, x2;` and two processes
/// `Q -> R { guard c<20; effect x = c; }, R -> S { effect x = x + c; }, S -> Q { effect c = x; }`.
/// State: c, x1, x2 (i16), pc1, pc2.
struct Adding {
    info: ModelInfo,
}

impl NextState for Adding {
    fn info(&self) -> &ModelInfo {
        &self.info
    }
    fn initial_state(&self, out: &mut [u8]) {
        out.fill(0);
        out[0..2].copy_from_slice(&1i16.to_le_bytes());
    }
    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        out.clear();
        let rd = |s: &[u8], i: usize| i16::from_le_bytes([s[2 * i], s[2 * i + 1]]);
        let wr = |s: &mut [u8], i: usize, v: i16| s[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
        for p in 0..2 {
            let c = rd(src, 0);
            let x = rd(src, 1 + p);
            let pc = src[6 + p];
            match pc {
                0 if c < 20 => {
                    let s = out.push_copy(src, Label::local(3 * p as u32), false);
                    s[6 + p] = 1;
                    wr(s, 1 + p, c);
                }
                1 => {
                    let s = out.push_copy(src, Label::local(3 * p as u32 + 1), false);
                    s[6 + p] = 2;
                    wr(s, 1 + p, x + c);
                }
                2 => {
                    let s = out.push_copy(src, Label::local(3 * p as u32 + 2), false);
                    s[6 + p] = 0;
                    wr(s, 0, x);
                }
                _ => {}
            }
        }
    }
}

/// BEEM `phils` with `n` philosophers: `byte fork[n]`; philosopher i takes
/// fork i, then fork i+1, puts back fork i, then fork i+1.
struct Phils {
    n: usize,
    info: ModelInfo,
}

impl NextState for Phils {
    fn info(&self) -> &ModelInfo {
        &self.info
    }
    fn initial_state(&self, out: &mut [u8]) {
        out.fill(0);
    }
    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        out.clear();
        let n = self.n;
        for i in 0..n {
            let (a, b) = (i, (i + 1) % n);
            let t = 4 * i as u32;
            match src[n + i] {
                0 if src[a] == 0 => {
                    let s = out.push_copy(src, Label::local(t), false);
                    s[a] = 1;
                    s[n + i] = 1;
                }
                1 if src[b] == 0 => {
                    let s = out.push_copy(src, Label::local(t + 1), false);
                    s[b] = 1;
                    s[n + i] = 2;
                }
                2 => {
                    let s = out.push_copy(src, Label::local(t + 2), false);
                    s[a] = 0;
                    s[n + i] = 3;
                }
                3 => {
                    let s = out.push_copy(src, Label::local(t + 3), false);
                    s[b] = 0;
                    s[n + i] = 0;
                }
                _ => {}
            }
        }
    }
}

/// Checks a model against `stats/<instance>.stat.xml`: every BFS and DFS
/// counter BEEM lists.
fn check_against_beem(model: &dyn NextState, instance: &str) {
    let beem = beem();
    let Some(st) = beem.stats(instance).unwrap() else {
        eprintln!("no stat file for {instance}; skipping");
        return;
    };
    let b = bfs(model, &Limits::default(), true);
    assert_eq!(b.core.states, st.states, "{instance} states");
    assert_eq!(b.core.transitions, st.edges, "{instance} edges");
    assert_eq!(
        b.bfs.as_ref().and_then(|g| g.levels),
        Some(st.levels),
        "{instance} levels"
    );
    assert_eq!(
        b.bfs.as_ref().and_then(|g| g.max_level_states),
        st.max_level,
        "{instance} max-level"
    );
    let table = b.details.level_table.as_ref().unwrap();
    let ours: Vec<(u64, u64)> = table.iter().map(|l| (l.states, l.edges)).collect();
    let theirs: Vec<(u64, u64)> = st.bfs_levels.iter().map(|l| (l.states, l.edges)).collect();
    assert_eq!(ours, theirs, "{instance} bfs-levels");
    assert_eq!(
        b.bfs.as_ref().and_then(|g| g.back_level_edges),
        Some(st.back_level_edges),
        "{instance} back-level-edges"
    );
    assert_eq!(
        b.bfs.as_ref().and_then(|g| g.max_back_level_edge),
        st.max_back_level_edge,
        "{instance} max-back-level-edge"
    );
    let d = dfs(model, &Limits::default());
    assert_eq!(d.core.states, st.states, "{instance} dfs states");
    assert_eq!(d.core.transitions, st.edges, "{instance} dfs edges");
    assert_eq!(d.dfs_stats(), st.dfs, "{instance} dfs-info");
    eprintln!(
        "{instance}: {} states, {} edges, {} levels, {} back-level edges (max {:?}), dfs {:?}: as BEEM",
        b.core.states, b.core.transitions, st.levels, st.back_level_edges, st.max_back_level_edge, st.dfs
    );
}

#[test]
fn adding_1_matches_beem() {
    check_against_beem(
        &Adding {
            info: info("adding.1", 8),
        },
        "adding.1",
    );
}

#[test]
fn phils_1_matches_beem() {
    check_against_beem(
        &Phils {
            n: 4,
            info: info("phils.1", 8),
        },
        "phils.1",
    );
}
