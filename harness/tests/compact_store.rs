//! Hash compaction (`--store compact[:BITS]`) against an exact oracle: a
//! breadth-first search over the compact store, where every state the
//! store takes for a stored one is checked against an exact store. The
//! states so taken (the direct omissions) must be as many as the store's
//! estimate says, within the spread of chance; with 64-bit fingerprints,
//! BEEM's counts exactly.

use dve_frontend::interp::Interpreter;
use dve_frontend::model::NextState;
use harness::manifest::Beem;
use harness::search::{bfs, BfsOptions, Budget, CompactStore, Insert, Limits, Nothing, StateStore, Store};
use std::collections::HashSet;
use std::time::Instant;

/// The compact store, and beside it the states it has really seen.
struct Oracle {
    compact: CompactStore,
    exact: StateStore,
    /// States the compact store took for stored ones.
    omitted: HashSet<Vec<u8>>,
}

impl Store for Oracle {
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

fn explore(m: &dyn NextState, bits: u32) -> (Oracle, u64) {
    let mut store = Oracle {
        compact: CompactStore::new(m.state_len(), bits),
        exact: StateStore::new(m.state_len()),
        omitted: HashSet::new(),
    };
    let budget = Budget::new(&Limits::default(), Instant::now());
    let r = bfs(m, &mut store, &budget, BfsOptions::default(), &mut Nothing);
    assert!(r.result.is_complete());
    (store, r.transitions)
}

#[test]
fn direct_omissions_are_as_many_as_estimated() {
    let beem = Beem::locate(None).unwrap_or_else(|e| panic!("the BEEM suite is needed for this test: {e}"));
    let model = dve_frontend::load_file(&beem.model_path("bakery.4")).expect("loads");
    let m = Interpreter::new(model);
    let (full, transitions) = explore(&m, 64);
    assert_eq!(full.compact.len(), 157_003, "64 bits: BEEM's count");
    assert!(full.omitted.is_empty());
    assert!(full.compact.expected_omissions() < 1e-8);
    let mut checked = 0;
    for bits in [26, 27, 28, 29] {
        let (o, t) = explore(&m, bits);
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
