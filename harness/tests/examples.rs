//! Our example models (`beem/examples/`): their figures were computed
//! independently by `beem/examples/oracle/oracle.py`, a hand encoding of the
//! four systems that neither parses DVE nor uses our interpreter.

use dvemc_run::run::exhaustive::Traversal;
use dvemc_run::run::exhaustive::{explore, ExploreOptions};

mod common;
use common::example_model as example;

#[test]
fn example_models_match_the_independent_oracle() {
    // model, states, transitions, deadlocks, BFS levels, state bytes
    let expected = [
        ("phils2.dve", 10, 14, 1, 5, 6),
        ("bounded_buffer.dve", 17, 20, 0, 12, 6),
        ("readers_writers.dve", 31, 87, 0, 7, 14),
        ("sum_to_n.dve", 849, 2123, 0, 23, 9),
    ];
    for (name, states, transitions, deadlocks, levels, bytes) in expected {
        let m = example(name);
        for strategy in [Traversal::Bfs, Traversal::Dfs] {
            let r = explore(
                &m,
                &ExploreOptions {
                    traversal: strategy,
                    ..Default::default()
                },
            );
            assert!(r.core.result.is_complete(), "{name} {strategy}");
            assert_eq!(
                (r.core.states, r.core.transitions, r.core.deadlocks),
                (states, transitions, Some(deadlocks)),
                "{name} {strategy}"
            );
            assert_eq!(r.core.error_transitions, Some(0), "{name}");
            if strategy == Traversal::Bfs {
                assert_eq!(r.bfs.as_ref().and_then(|g| g.levels), Some(levels), "{name}");
            }
        }
        assert_eq!(m.model().state_len, bytes, "{name}");
    }
}
