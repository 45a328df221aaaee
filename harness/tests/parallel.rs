//! The parallel BFS (`--threads N`) against the sequential one: every
//! counter equal (states, transitions, deadlocks, levels and the BFS level
//! table, back-level edges), whatever the number of threads, more threads
//! than cores included, and again and again (races would show as a
//! difference some of the time). The parallel depth-first-like order
//! (`--strategy dfs --threads N`): states, transitions and deadlocks equal
//! the sequential DFS's, the same way. Property checks on threads give the
//! sequential check's answer and a counterexample that replays (as short
//! as one thread's for BFS).

mod common;

use common::{beem, replay};
use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf};
use dvemc_run::algo::check::{check, check_threads, CheckOptions, Checks, Search, Verdict};
use dvemc_run::engine::StoreKind;
use dvemc_run::model::backend::Backend;
use dvemc_run::model::beem::Beem;
use dvemc_run::output::record::RunRecord;
use dvemc_run::run::strategy::{Params, Strategy};
use dvemc_run::run::{run, Request};

fn explore(beem: &Beem, inst: &str, threads: usize, backend: Backend) -> RunRecord {
    explore_with(beem, inst, Strategy::Bfs, threads, backend)
}

fn explore_with(beem: &Beem, inst: &str, strategy: Strategy, threads: usize, backend: Backend) -> RunRecord {
    explore_in(beem, inst, strategy, threads, backend, StoreKind::Exact)
}

fn explore_in(
    beem: &Beem,
    inst: &str,
    strategy: Strategy,
    threads: usize,
    backend: Backend,
    store: StoreKind,
) -> RunRecord {
    let req = Request {
        model: Some(beem.model_path(inst)),
        strategy: Some(strategy),
        params: Params {
            threads: Some(threads),
            store: Some(store),
            ..Params::default()
        },
        backend,
        ..Request::default()
    };
    run(&req).unwrap_or_else(|e| panic!("{inst}: {e}")).record
}

type Counters = (
    u64,
    u64,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    String,
);

fn counters(r: &RunRecord) -> Counters {
    (
        r.core.states,
        r.core.transitions,
        r.core.deadlocks,
        r.bfs.as_ref().and_then(|g| g.levels),
        r.bfs.as_ref().and_then(|g| g.back_level_edges),
        r.bfs.as_ref().and_then(|g| g.max_back_level_edge),
        serde_json::to_string(&r.details.level_table).unwrap(),
    )
}

#[test]
fn every_counter_equals_the_sequential_search() {
    let beem = beem();
    for inst in ["adding.4", "bakery.3", "leader_election.3", "brp.2", "peterson.3"] {
        let one = explore(&beem, inst, 1, Backend::Jit);
        assert!(one.core.result.is_complete(), "{inst}");
        for threads in [2, 3, 4] {
            let r = explore(&beem, inst, threads, Backend::Jit);
            assert_eq!(r.core.result, one.core.result, "{inst} {threads} threads");
            assert_eq!(counters(&r), counters(&one), "{inst} {threads} threads");
        }
    }
}

/// The shared tree store: the same counters as the sequential search in
/// the exact store, both orders, and again and again on 8 threads.
#[test]
fn the_shared_tree_store_counts_as_the_exact_one() {
    let beem = beem();
    for inst in ["adding.4", "bakery.3", "leader_election.3", "brp.2", "peterson.3"] {
        let one = explore(&beem, inst, 1, Backend::Jit);
        let one_dfs = explore_with(&beem, inst, Strategy::Dfs, 1, Backend::Jit);
        for threads in [2, 4] {
            let r = explore_in(&beem, inst, Strategy::Bfs, threads, Backend::Jit, StoreKind::Tree);
            assert_eq!(r.core.store, "tree");
            assert_eq!(r.core.config, format!("bfs --store tree --threads {threads}"));
            assert_eq!(counters(&r), counters(&one), "{inst} {threads} threads");
            let r = explore_in(&beem, inst, Strategy::Dfs, threads, Backend::Jit, StoreKind::Tree);
            assert_eq!(
                dfs_counters(&r),
                dfs_counters(&one_dfs),
                "{inst} dfs {threads} threads"
            );
        }
    }
    let inst = "bakery.4";
    let one = counters(&explore(&beem, inst, 1, Backend::Interp));
    for round in 0..5 {
        let r = explore_in(&beem, inst, Strategy::Bfs, 8, Backend::Jit, StoreKind::Tree);
        assert_eq!(counters(&r), one, "round {round}");
    }
}

#[test]
fn eight_threads_again_and_again() {
    let beem = beem();
    let inst = "bakery.4";
    let one = counters(&explore(&beem, inst, 1, Backend::Interp));
    assert!(one.0 > 100_000, "a mid-size instance: {} states", one.0);
    for round in 0..10 {
        let r = explore(&beem, inst, 8, Backend::Jit);
        assert_eq!(counters(&r), one, "round {round}");
    }
}

/// The counters the depth-first-like order shares with the sequential DFS.
fn dfs_counters(r: &RunRecord) -> (u64, u64, Option<u64>, Option<u64>) {
    (
        r.core.states,
        r.core.transitions,
        r.core.deadlocks,
        r.core.error_transitions,
    )
}

#[test]
fn the_depth_first_like_order_counts_as_the_sequential_dfs() {
    let beem = beem();
    for inst in ["adding.4", "bakery.3", "leader_election.3", "brp.2", "peterson.3"] {
        let one = explore_with(&beem, inst, Strategy::Dfs, 1, Backend::Jit);
        assert!(one.core.result.is_complete(), "{inst}");
        for threads in [2, 3, 4] {
            let r = explore_with(&beem, inst, Strategy::Dfs, threads, Backend::Jit);
            assert_eq!(r.core.result, one.core.result, "{inst} {threads} threads");
            assert_eq!(r.core.config, format!("dfs --threads {threads}"));
            assert_eq!(dfs_counters(&r), dfs_counters(&one), "{inst} {threads} threads");
            assert_eq!(
                r.bfs.as_ref().and_then(|g| g.levels),
                None,
                "{inst}: no levels in a depth-first-like order"
            );
        }
    }
    let inst = "bakery.4";
    let one = dfs_counters(&explore_with(&beem, inst, Strategy::Dfs, 1, Backend::Interp));
    for round in 0..10 {
        let r = explore_with(&beem, inst, Strategy::Dfs, 8, Backend::Jit);
        assert_eq!(dfs_counters(&r), one, "round {round}");
    }
}

#[test]
fn deadlocks_found_in_parallel_have_replayable_counterexamples() {
    let beem = beem();
    for inst in ["bakery.4", "adding.4", "peterson.3", "leader_election.3"] {
        let model = dve_frontend::load_file(&beem.model_path(inst)).expect("loads");
        let m = Interpreter::new(model.clone());
        for (all, search) in [false, true]
            .into_iter()
            .flat_map(|a| [(a, Search::Bfs), (a, Search::Dfs)])
        {
            let opts = CheckOptions {
                search,
                checks: Checks {
                    deadlock: true,
                    ..Checks::default()
                },
                goals: vec![],
                all_violations: all,
                limits: Default::default(),
                meter: None,
            };
            let one = check(&m, &model, &opts);
            for threads in [2, 3] {
                let r = check_threads(&m, &model, &opts, threads);
                let what = format!("{inst}, {search:?}, {threads} threads, all violations {all}");
                assert_eq!(r.verdict, one.verdict, "{what}");
                assert_eq!(r.violation_kind, one.violation_kind, "{what}");
                if search == Search::Bfs {
                    assert_eq!(r.cex_length, one.cex_length, "{what}: shortest, as one thread's");
                }
                if all || one.verdict == Verdict::Holds {
                    // The whole space: the same counts.
                    assert_eq!(
                        (
                            r.violations,
                            r.counters.states,
                            r.counters.transitions,
                            r.counters.deadlocks
                        ),
                        (
                            one.violations,
                            one.counters.states,
                            one.counters.transitions,
                            one.counters.deadlocks
                        ),
                        "{what}"
                    );
                }
                if let Some(v) = &r.first {
                    replay(&m, &v.trace).unwrap_or_else(|e| panic!("{what}: {e}"));
                    let mut buf = SuccBuf::new(m.state_len());
                    m.successors(v.trace.state(v.trace.steps.len()), &mut buf);
                    assert_eq!(buf.len(), 0, "{what}: the last state is a deadlock");
                }
            }
        }
    }
}
