//! The parallel BFS (`--threads N`) against the sequential one: every
//! counter equal (states, transitions, deadlocks, levels and the BFS level
//! table, back-level edges), whatever the number of threads, more threads
//! than cores included, and again and again (races would show as a
//! difference some of the time).

use harness::backend::Backend;
use harness::manifest::Beem;
use harness::record::RunRecord;
use harness::run::{run, Request};
use harness::strategy::{Params, Strategy};

fn explore(beem: &Beem, inst: &str, threads: usize, backend: Backend) -> RunRecord {
    let req = Request {
        model: Some(beem.model_path(inst)),
        strategy: Some(Strategy::Bfs),
        params: Params {
            threads: Some(threads),
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
        r.states,
        r.transitions,
        r.deadlocks,
        r.levels,
        r.back_level_edges,
        r.max_back_level_edge,
        serde_json::to_string(&r.level_table).unwrap(),
    )
}

#[test]
fn every_counter_equals_the_sequential_search() {
    let beem = Beem::locate(None).unwrap_or_else(|e| panic!("the BEEM suite is needed for this test: {e}"));
    for inst in ["adding.4", "bakery.3", "leader_election.3", "brp.2", "peterson.3"] {
        let one = explore(&beem, inst, 1, Backend::Jit);
        assert!(one.result.is_complete(), "{inst}");
        for threads in [2, 3, 4] {
            let r = explore(&beem, inst, threads, Backend::Jit);
            assert_eq!(r.result, one.result, "{inst} {threads} threads");
            assert_eq!(counters(&r), counters(&one), "{inst} {threads} threads");
        }
    }
}

#[test]
fn eight_threads_again_and_again() {
    let beem = Beem::locate(None).unwrap_or_else(|e| panic!("the BEEM suite is needed for this test: {e}"));
    let inst = "bakery.4";
    let one = counters(&explore(&beem, inst, 1, Backend::Interp));
    assert!(one.0 > 100_000, "a mid-size instance: {} states", one.0);
    for round in 0..10 {
        let r = explore(&beem, inst, 8, Backend::Jit);
        assert_eq!(counters(&r), one, "round {round}");
    }
}
