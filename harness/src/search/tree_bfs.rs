//! Exhaustive breadth-first search with the tree store and its root kept
//! in a [`RootSet`] (`explore --store ctree`): the least memory per state
//! of the exact stores.
//!
//! A state is the pair of its root's children in the
//! [`TreeStore`]'s inner tables; the root set holds those pairs quotiented
//! (2.5-4.5 bytes each, instead of a root table's 9-13). Such a state has
//! no number, so this search does not go through the [`super::Store`]
//! trait, whose ids are dense: its queue holds the pairs (packed at the
//! bits their parts need, about 5 bytes per state of the level being
//! expanded and of the next one, counted in `frontier_bytes`), and
//! back-level edges, which need to know the level of a state found again,
//! are not counted. States, transitions,
//! deadlocks and the states and edges of every level are the other
//! stores' (the golden tests).
//!
//! Each state is decoded from the inner tables when expanded; its
//! successors, which differ from it in a few words, are encoded by
//! looking up only the subtrees those words changed
//! ([`TreeStore::insert_below_root`]).

use dve_frontend::model::{NextState, SuccBuf};

use super::bfs::LevelStats;
use super::limits::Budget;
use super::outcome::Outcome;
use super::root_set::RootSet;
use super::tree_store::TreeStore;
use super::Store;

/// Sources expanded between two polls of the time budget (a multiple of
/// [`BATCH`]).
const BLOCK: usize = 1024;
/// Sources expanded together (their successors' root lookups prefetched).
const BATCH: usize = 16;
/// Fewest new roots (and new pairs per table) that the memory check
/// before a batch allows for; it allows for twice the most successors a
/// batch has had, if more.
const GROWTH_MARGIN: usize = 1024;

/// What the search did.
#[derive(Clone, Debug, Default)]
pub struct TreeBfs {
    pub result: Outcome,
    pub states: u64,
    pub transitions: u64,
    pub deadlocks: u64,
    pub error_transitions: u64,
    /// States and edges per level (no back-level edges).
    pub levels: Vec<LevelStats>,
    /// The inner tables and the root set.
    pub store_bytes: u64,
    /// Peak bytes of the two levels' queues and the successor buffer.
    pub frontier_bytes: u64,
}

/// A level's queue of pairs, each packed at `wl + wr` bits (the left part
/// in the high bits), widened (and repacked) when a part needs more.
#[derive(Default)]
struct PairQueue {
    wl: u32,
    wr: u32,
    len: usize,
    /// The entries, then 16 bytes so that any entry reads as one `u128`.
    bytes: Vec<u8>,
}

/// Bits of `v` (0 for 0).
fn width(v: u32) -> u32 {
    32 - v.leading_zeros()
}

impl PairQueue {
    fn bits(&self) -> usize {
        (self.wl + self.wr) as usize
    }

    fn get(&self, i: usize) -> (u32, u32) {
        let bit = i * self.bits();
        let x = u128::from_le_bytes(self.bytes[bit / 8..bit / 8 + 16].try_into().expect("16 bytes"));
        // (Up to 64 bits an entry: masks in 128 bits.)
        let v = (x >> (bit % 8)) & ((1u128 << self.bits()) - 1);
        ((v >> self.wr) as u32, (v & ((1u128 << self.wr) - 1)) as u32)
    }

    fn set(&mut self, i: usize, left: u32, right: u32) {
        let bit = i * self.bits();
        let (at, sh) = (bit / 8, bit % 8);
        let v = ((left as u64) << self.wr | right as u64) as u128;
        let m = ((1u128 << self.bits()) - 1) << sh;
        let w = &mut self.bytes[at..at + 16];
        let x = u128::from_le_bytes((&*w).try_into().expect("16 bytes"));
        w.copy_from_slice(&((x & !m) | (v << sh)).to_le_bytes());
    }

    fn push(&mut self, left: u32, right: u32) {
        if width(left) > self.wl || width(right) > self.wr {
            // A bit to spare, so that widening is as rare as the tables'
            // doublings.
            let (wl, wr) = (
                self.wl.max((width(left) + 1).min(32)),
                self.wr.max((width(right) + 1).min(32)),
            );
            let old = std::mem::replace(
                self,
                PairQueue {
                    wl,
                    wr,
                    len: 0,
                    bytes: Vec::new(),
                },
            );
            for i in 0..old.len {
                let (l, r) = old.get(i);
                self.push(l, r);
            }
        }
        let need = ((self.len + 1) * self.bits()).div_ceil(8) + 16;
        if self.bytes.len() < need {
            self.bytes.resize(need.max(2 * self.bytes.len()), 0);
        }
        self.set(self.len, left, right);
        self.len += 1;
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn bytes(&self) -> usize {
        self.bytes.capacity()
    }
}

/// Breadth-first search of `model` under `budget`.
pub fn tree_bfs(model: &dyn NextState, budget: &Budget) -> TreeBfs {
    let mut run = TreeBfs::default();
    let max_states = budget.max_states();
    if max_states == 0 {
        run.result = Outcome::StateLimit;
        return run;
    }
    let mut tree = super::leaf_order::tree_store_for(model, budget);
    let mut roots = RootSet::new();
    let init = model.initial_vec();
    let (l, r) = tree.insert_below_root(&init);
    roots.insert(l, r);
    let mut level = PairQueue::default();
    level.push(l, r);
    let mut next = PairQueue::default();
    let mut buf = SuccBuf::new(model.state_len());
    let mut state = Vec::with_capacity(model.state_len());
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut margin = GROWTH_MARGIN;
    let bytes = |tree: &TreeStore, roots: &RootSet| (tree.bytes_used() + roots.bytes_used()) as u64;
    'levels: while level.len > 0 {
        let depth = run.levels.len();
        let mut stats = LevelStats {
            level: depth as u32,
            states: level.len as u64,
            ..Default::default()
        };
        let mut n = 0;
        while n < level.len {
            // Memory before every batch (its successors may grow each
            // table once); time and interruption every block.
            let queues = level.bytes() + next.bytes() + buf.bytes() + pairs.capacity() * 8;
            let growth =
                tree.next_growth_bytes() + roots.next_growth_bytes(margin, tree.root_child_bounds(margin));
            // The next level's queue may double too.
            let need = bytes(&tree, &roots) as usize + queues + growth + next.bytes();
            run.frontier_bytes = run.frontier_bytes.max(queues as u64);
            let stop = if budget.refuse_bytes(need) {
                Some(Outcome::MemoryLimit)
            } else if n % BLOCK == 0 {
                budget.poll_with(roots.len() as u64, run.transitions, depth as u64)
            } else {
                None
            };
            if let Some(o) = stop {
                run.result = o;
                run.levels.push(stats);
                break 'levels;
            }
            // A batch: the sources decoded and expanded, their successors
            // encoded below the root (each against its source's tree),
            // the root set's buckets for all of them prefetched, then the
            // successors looked up in order, so that the misses overlap
            // and the search is the one-by-one search.
            pairs.clear();
            for m in n..(n + BATCH).min(level.len) {
                let (l, r) = level.get(m);
                tree.decode_root(l, r, &mut state);
                model.successors(&state, &mut buf);
                let k = buf.len();
                run.transitions += k as u64;
                stats.edges += k as u64;
                if k == 0 {
                    run.deadlocks += 1;
                }
                for i in 0..k {
                    if buf.entry(i).error {
                        run.error_transitions += 1;
                    }
                    pairs.push(tree.insert_below_root(buf.state(i)));
                }
            }
            n = (n + BATCH).min(level.len);
            margin = margin.max(2 * pairs.len());
            for &(l, r) in &pairs {
                roots.prefetch(l, r);
            }
            for &(l, r) in &pairs {
                if roots.len() >= max_states && !roots.contains(l, r) {
                    run.result = Outcome::StateLimit;
                    run.levels.push(stats);
                    break 'levels;
                }
                if roots.insert(l, r) {
                    next.push(l, r);
                }
            }
        }
        run.levels.push(stats);
        level.clear();
        std::mem::swap(&mut level, &mut next);
    }
    run.states = roots.len() as u64;
    run.store_bytes = bytes(&tree, &roots);
    let queues = level.bytes() + next.bytes() + buf.bytes();
    run.frontier_bytes = run.frontier_bytes.max(queues as u64);
    run
}

#[cfg(test)]
mod tests {
    use super::PairQueue;
    use crate::explore::{explore, ExploreOptions};
    use crate::search::StoreKind;
    use crate::strategy::Strategy;

    #[test]
    fn the_queue_keeps_every_pair_through_widening() {
        let mut rng = crate::rng::Rng::seeded(1);
        let mut q = PairQueue::default();
        let mut want = Vec::new();
        for i in 0..20_000usize {
            let bound = 1 + (i as u64).pow(2);
            let mut part = || (rng.next_u64() % bound) as u32;
            let p = match i {
                7_000 => (u32::MAX, 0),
                7_001 => (0, u32::MAX),
                _ => (part(), part()),
            };
            q.push(p.0, p.1);
            want.push(p);
        }
        for (i, &p) in want.iter().enumerate() {
            assert_eq!(q.get(i), p, "{i}");
        }
        q.clear();
        q.push(3, 4);
        assert_eq!((q.len, q.get(0)), (1, (3, 4)));
    }

    /// Every counter but back-level edges, and every level's states and
    /// edges, as with the exact store; and the bytes of a state stay few.
    #[test]
    fn counts_as_the_exact_store() {
        let beem = crate::manifest::Beem::locate(None).expect("the BEEM suite");
        for inst in [
            "adding.4",
            "bakery.4",
            "leader_election.3",
            "brp.2",
            "firewire_tree.2",
            "public_subscribe.1",
        ] {
            let model = dve_frontend::interp::Interpreter::new(
                dve_frontend::load_file(&beem.model_path(inst)).unwrap(),
            );
            let run = |store| {
                explore(
                    &model,
                    &ExploreOptions {
                        strategy: Some(Strategy::Bfs),
                        level_table: true,
                        store,
                        threads: 1,
                        ..Default::default()
                    },
                )
            };
            let (exact, ctree) = (run(StoreKind::Exact), run(StoreKind::CTree));
            assert!(ctree.result.is_complete(), "{inst}");
            let counters = |r: &crate::record::RunRecord| {
                let levels: Vec<(u64, u64)> = r
                    .level_table
                    .as_ref()
                    .unwrap()
                    .iter()
                    .map(|l| (l.states, l.edges))
                    .collect();
                (
                    r.states,
                    r.transitions,
                    r.deadlocks,
                    r.error_transitions,
                    r.levels,
                    levels,
                )
            };
            assert_eq!(counters(&ctree), counters(&exact), "{inst}");
            assert_eq!(ctree.back_level_edges, None, "{inst}: not counted");
            assert!(ctree.bytes_per_state < exact.bytes_per_state, "{inst}");
        }
    }
}
