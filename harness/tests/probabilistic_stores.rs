//! The probabilistic stores (hash compaction, `--store compact[:BITS]`;
//! bitstate, `--store bitstate[:LOG2M[,K]]`) against an exact oracle: a
//! breadth-first search over the store, where every state it takes for a
//! stored one is checked against an exact store. The states so taken (the
//! direct omissions) must be as many as the store's estimate says, within
//! the spread of chance; with 64-bit fingerprints, BEEM's counts exactly.

mod common;
use common::beem;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::NextState;
use dvemc_run::engine::{
    bfs, BfsOptions, BitstateStore, Budget, CompactStore, Insert, Limits, Nothing, StateStore, Store,
};
use std::collections::HashSet;
use std::time::Instant;

/// A probabilistic store, and beside it the states it has really seen.
struct Oracle<P> {
    compact: P,
    exact: StateStore,
    /// States the compact store took for stored ones.
    omitted: HashSet<Vec<u8>>,
}

impl<P: Store> Store for Oracle<P> {
    fn state_len(&self) -> usize {
        self.compact.state_len()
    }
    fn len(&self) -> usize {
        self.compact.len()
    }
    fn state<'a>(&'a self, id: u32, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        self.compact.state(id, scratch)
    }
    fn find(&self, state: &[u8], fp: u64) -> Option<u32> {
        self.compact.find(state, fp)
    }
    fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        let r = self.compact.insert(state, fp);
        match r {
            Insert::New(_) => {
                assert!(self.exact.insert(state, fp).is_new(), "a state stored twice");
            }
            Insert::Seen(_) => {
                if self.exact.find(state, fp).is_none() {
                    self.omitted.insert(state.to_vec());
                }
            }
        }
        r
    }
    fn bytes_used(&self) -> usize {
        self.compact.bytes_used()
    }
    fn next_growth_bytes(&self) -> usize {
        0
    }
    fn expanding(&self, id: u32) {
        self.compact.expanding(id)
    }
}

fn explore<P: Store>(m: &dyn NextState, store: P) -> (Oracle<P>, u64) {
    let mut store = Oracle {
        compact: store,
        exact: StateStore::new(m.state_len()),
        omitted: HashSet::new(),
    };
    let budget = Budget::new(&Limits::default(), Instant::now());
    let r = bfs(m, &mut store, &budget, BfsOptions::default(), &mut Nothing);
    assert!(r.counters.result.is_complete());
    (store, r.counters.transitions)
}

#[test]
fn direct_omissions_are_as_many_as_estimated() {
    let beem = beem();
    let model = dve_frontend::load_file(&beem.model_path("bakery.4")).expect("loads");
    let m = Interpreter::new(model);
    let (full, transitions) = explore(&m, CompactStore::new(m.state_len(), 64));
    assert_eq!(full.compact.len(), 157_003, "64 bits: BEEM's count");
    assert!(full.omitted.is_empty());
    assert!(full.compact.expected_omissions() < 1e-8);
    let mut checked = 0;
    for bits in [26, 27, 28, 29] {
        let (o, t) = explore(&m, CompactStore::new(m.state_len(), bits));
        let e = o.compact.expected_omissions();
        let seen = o.omitted.len() as f64;
        // A count of rare events: Poisson, standard deviation sqrt(e).
        let spread = 4.0 * e.sqrt() + 2.0;
        eprintln!(
            "{bits} bits: {seen} omitted directly, {e:.1} expected, {} stored",
            o.compact.len()
        );
        assert!(
            (seen - e).abs() <= spread,
            "{bits} bits: {seen} states taken for stored ones, {e:.1} expected"
        );
        assert!(
            o.compact.len() < 157_003 && t < transitions,
            "{bits} bits omit states"
        );
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn bitstate_omissions_are_as_many_as_estimated() {
    let beem = beem();
    let model = dve_frontend::load_file(&beem.model_path("bakery.4")).expect("loads");
    let m = Interpreter::new(model);
    let (big, _) = explore(&m, BitstateStore::new(m.state_len(), 34, 3));
    assert_eq!(big.compact.len(), 157_003, "2^34 bits: BEEM's count");
    assert!(big.omitted.is_empty());
    for (log2m, k) in [(20, 3), (21, 2), (22, 4), (20, 1)] {
        let (o, _) = explore(&m, BitstateStore::new(m.state_len(), log2m, k));
        let e = o.compact.expected_omissions();
        let seen = o.omitted.len() as f64;
        eprintln!(
            "2^{log2m} bits, {k} per state: {seen} omitted directly, {e:.1} expected, {} stored",
            o.compact.len()
        );
        let spread = 4.0 * e.sqrt() + 2.0;
        assert!(
            (seen - e).abs() <= spread,
            "2^{log2m} bits, k = {k}: {seen} states taken for visited ones, {e:.1} expected"
        );
        assert!(o.compact.len() < 157_003, "2^{log2m} bits omit states");
    }
}
