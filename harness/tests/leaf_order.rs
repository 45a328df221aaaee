//! The tree store's leaf order (`engine/store/tree/leaf_order.rs`) on a model whose
//! state vector puts what varies in one half: the same states, fewer
//! bytes than with the state's own order.

mod common;
use common::beem;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::NextState;
use dvemc_run::engine::store::tree::leaf_order::{leaf_order, sample, tree_store_for, SAMPLE};
use dvemc_run::engine::{bfs, BfsOptions, Budget, Limits, Nothing, Store, TreeStore};
use std::time::Instant;

/// States and bytes of a breadth-first search into `store`.
fn explore(m: &dyn NextState, mut store: impl Store) -> (usize, usize) {
    let budget = Budget::new(&Limits::default(), Instant::now());
    bfs(m, &mut store, &budget, BfsOptions::default(), &mut Nothing);
    (store.len(), store.bytes_used())
}

#[test]
fn balanced_leaves_store_leader_election_in_fewer_bytes() {
    let beem = beem();
    let model = dve_frontend::load_file(&beem.model_path("leader_election.4")).expect("loads");
    let m = Interpreter::new(model);
    let n = m.state_len();
    let words = TreeStore::words_for(n);
    let order = leaf_order(n, &sample(&m, SAMPLE));
    assert_ne!(order, (0..words).collect::<Vec<_>>(), "an order of its own");
    let (own, own_bytes) = explore(&m, TreeStore::new(n));
    let budget = Budget::new(&Limits::default(), Instant::now());
    let (balanced, balanced_bytes) = explore(&m, tree_store_for(&m, &budget));
    assert_eq!((own, balanced), (746_240, 746_240), "BEEM's count either way");
    eprintln!("leader_election.4: {own_bytes} bytes in the state's order, {balanced_bytes} balanced");
    assert!(
        balanced_bytes * 10 < own_bytes * 7,
        "{balanced_bytes} bytes balanced against {own_bytes}"
    );
}

#[test]
fn a_spent_time_budget_ends_the_sampling_at_once() {
    let beem = beem();
    let model = dve_frontend::load_file(&beem.model_path("leader_election.4")).expect("loads");
    let m = Interpreter::new(model);
    let spent = Limits {
        time: Some(std::time::Duration::ZERO),
        ..Default::default()
    };
    // The sample ends at its first poll (the initial state alone), so
    // every word weighs nothing and the order is the state's own.
    let t = tree_store_for(&m, &Budget::new(&spent, Instant::now()));
    let own = TreeStore::new(m.state_len());
    let (a, b) = (explore(&m, t), explore(&m, own));
    assert_eq!(a, b, "the state's order: the same states in the same bytes");
}
