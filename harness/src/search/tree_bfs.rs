//! Exhaustive breadth-first search with the tree store and its root kept
//! in a [`RootSet`] (`explore --store ctree`): the least memory per state
//! of the exact stores.
//!
//! A state is the pair of its root's children in the
//! [`TreeStore`]'s inner tables; the root set holds those pairs quotiented
//! (2.5-4.5 bytes each, instead of a root table's 9-13). Such a state has
//! no number, so this search does not go through the [`super::Store`]
//! trait, whose ids are dense: its queue holds the pairs (8 bytes per
//! state of the level being expanded and of the next one, counted in
//! `frontier_bytes`), and back-level edges, which need to know the level
//! of a state found again, are not counted. States, transitions,
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

/// Sources expanded between two polls of the budget.
const BLOCK: usize = 1024;

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

/// A pair as the queue keeps it.
fn key(left: u32, right: u32) -> u64 {
    (left as u64) << 32 | right as u64
}

/// Breadth-first search of `model` under `budget`.
pub fn tree_bfs(model: &dyn NextState, budget: &Budget) -> TreeBfs {
    let mut run = TreeBfs::default();
    let max_states = budget.max_states();
    if max_states == 0 {
        run.result = Outcome::StateLimit;
        return run;
    }
    let mut tree = TreeStore::new(model.state_len());
    let mut roots = RootSet::new();
    let init = model.initial_vec();
    let (l, r) = tree.insert_below_root(&init);
    roots.insert(l, r);
    let mut level = vec![key(l, r)];
    let mut next: Vec<u64> = Vec::new();
    let mut buf = SuccBuf::new(model.state_len());
    let mut state = Vec::with_capacity(model.state_len());
    let bytes = |tree: &TreeStore, roots: &RootSet| (tree.bytes_used() + roots.bytes_used()) as u64;
    'levels: while !level.is_empty() {
        let depth = run.levels.len();
        let mut stats = LevelStats {
            level: depth as u32,
            states: level.len() as u64,
            ..Default::default()
        };
        for (n, &src) in level.iter().enumerate() {
            if n % BLOCK == 0 {
                let queues = (level.capacity() + next.capacity()) * 8 + buf.bytes();
                run.frontier_bytes = run.frontier_bytes.max(queues as u64);
                let stop = budget
                    .poll_with(roots.len() as u64, run.transitions, depth as u64)
                    .or_else(|| {
                        let growth = tree.next_growth_bytes() + roots.next_growth_bytes();
                        // The next level's queue may double too.
                        let need = bytes(&tree, &roots) as usize + queues + growth + next.capacity() * 8;
                        budget.refuse_bytes(need).then_some(Outcome::MemoryLimit)
                    });
                if let Some(o) = stop {
                    run.result = o;
                    break 'levels;
                }
            }
            tree.decode_root((src >> 32) as u32, src as u32, &mut state);
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
                let (l, r) = tree.insert_below_root(buf.state(i));
                if roots.len() >= max_states && !roots.contains(l, r) {
                    run.result = Outcome::StateLimit;
                    run.levels.push(stats);
                    break 'levels;
                }
                if roots.insert(l, r) {
                    next.push(key(l, r));
                }
            }
        }
        run.levels.push(stats);
        level.clear();
        std::mem::swap(&mut level, &mut next);
    }
    run.states = roots.len() as u64;
    run.store_bytes = bytes(&tree, &roots);
    let queues = (level.capacity() + next.capacity()) * 8 + buf.bytes();
    run.frontier_bytes = run.frontier_bytes.max(queues as u64);
    run
}

#[cfg(test)]
mod tests {
    use crate::explore::{explore, ExploreOptions};
    use crate::search::StoreKind;
    use crate::strategy::Strategy;

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
