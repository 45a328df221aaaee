//! Which of a state's words go to which half of the tree store's tree
//! ([`TreeStore::with_leaves`]).
//!
//! **Why.** A table of the tree holds the distinct contents of its node's
//! subtree. With the words in their order in the state vector, the halves
//! of a model can be unequal: on leader_election.4 the root's left child
//! has 683,696 distinct subtrees for 746,240 states (its words are the
//! ones that vary) and the right one 913, so the left table costs 8 bytes
//! a state on top of the root's. The root set ([`crate::store::tree::root_set`]) stores
//! a state's root pair in 3-4 bytes whatever its children are; the tables
//! below are cheap only if each half of the state varies less than the
//! whole, i.e. if what varies is shared out between the halves (Laarman,
//! *Optimal compression of combinatorial state spaces*, 2019: a tree
//! stores a combinatorial state space in about the root table's cost when
//! its halves are balanced).
//!
//! **How.** The words are weighed by how much they vary in a sample of
//! [`SAMPLE`] states (fewer if longer than 256 bytes; an exact store,
//! thrown away after): the first half of a breadth-first search, the rest
//! the states of a random walk from the initial state (seeded, restarted
//! at a deadlock), which reaches the words that vary only deep in the
//! state space (hanoi.4, whose BFS has 131,072 levels: the first states
//! of the BFS move the small disks only). A word's weight is the log of the number of its
//! distinct values there. Then, from the root down, the words of a node are
//! dealt to its two halves (of fixed sizes: the left one takes the odd
//! word), heaviest first, each to the half whose weight is lower: a
//! greedy balance of the halves, then of their halves. Words of equal
//! weight keep their order in the state, so that a process's words stay
//! together where nothing tells them apart. The order is a function of
//! the model only (the sample is deterministic): a search is as
//! reproducible as with the identity order, and exact whatever the order.
//!
//! Weights add up as if words varied independently; they do not (a
//! process's control state and its variables move together). So the
//! root's split, the one that matters most (its children's tables are the
//! largest), is then improved on the sample itself: words are swapped
//! between the halves while the number of distinct projections of the
//! sample on the left half plus that on the right (the sizes the
//! children's tables would have, were the sample the state space) falls,
//! up to [`MAX_SWAP_WORK`] (and the run's time budget), and each half
//! is dealt again: smaller children's tables, so fewer bytes per state
//! and faster lookups (results/store/NOTES.md).
//!
//! A sample can still miss words that vary only deeper than the walk
//! goes (they weigh nothing and fill the lighter half): the order is a
//! heuristic for memory, never a question of exactness.

use std::collections::HashSet;

use dve_frontend::model::{NextState, SuccBuf};

use crate::limits::Budget;
use crate::store::tree::pair_table::pair_hash;
use crate::store::tree::TreeStore;
use crate::store::{Insert, StateStore};

/// States sampled (the first ones of a breadth-first search and those of
/// a random walk)...
pub const SAMPLE: usize = 1 << 15;
/// ... of which one in this many from the walk (half: the walk reaches
/// the words that vary only deep down, which a breadth-first sample alone
/// misses; results/store/NOTES.md gives the bytes per state of each share)...
const WALK_SHARE: usize = 2;
/// ... of at most this many steps per state wanted (a walk that keeps
/// returning to states it saw stops).
const WALK_STEPS: usize = 4;
/// ... fewer for long states: the sample's store is outside the memory
/// budget, so it is kept small beside any budget (8 MiB of states).
const SAMPLE_BYTES: usize = 8 << 20;

/// The first `n` states of `model`'s breadth-first search (fewer if it
/// has fewer).
pub fn sample(model: &dyn NextState, n: usize) -> Vec<Vec<u8>> {
    sample_until(model, n, &|| false)
}

/// [`sample`], ending early when `stop` says so (polled every 1,024
/// states expanded).
fn sample_until(model: &dyn NextState, n: usize, stop: &dyn Fn() -> bool) -> Vec<Vec<u8>> {
    let mut store = StateStore::new(model.state_len());
    let init = model.initial_vec();
    store.insert(&init, model.fingerprint(&init));
    let mut buf = SuccBuf::new(model.state_len());
    let bfs_n = n - n / WALK_SHARE;
    let mut next = 0u32;
    while (next as usize) < store.len() && store.len() < bfs_n {
        if next.is_multiple_of(1024) && stop() {
            break;
        }
        model.successors(store.get(next), &mut buf);
        for i in 0..buf.len() {
            let s = buf.state(i);
            if let Insert::New(_) = store.insert(s, model.fingerprint(s)) {
                if store.len() == n {
                    break;
                }
            }
        }
        next += 1;
    }
    // The rest from a random walk (seeded: the order stays a function of
    // the model), unless the search above saw every state.
    let mut rng = crate::rng::Rng::seeded(1);
    let mut cur = init.clone();
    let exhausted = next as usize == store.len();
    let mut steps = 0;
    while !exhausted && store.len() < n && steps < WALK_STEPS * n {
        if steps % 1024 == 0 && stop() {
            break;
        }
        steps += 1;
        model.successors(&cur, &mut buf);
        if buf.is_empty() {
            cur = init.clone();
            continue;
        }
        cur = buf.state(rng.below(buf.len())).to_vec();
        store.insert(&cur, model.fingerprint(&cur));
    }
    store.iter().map(<[u8]>::to_vec).collect()
}

/// The leaves of the tree for states of `state_len` bytes, balanced on
/// `samples` (see the module documentation).
pub fn leaf_order(state_len: usize, samples: &[Vec<u8>]) -> Vec<usize> {
    leaf_order_until(state_len, samples, &|| false)
}

/// [`leaf_order`], its swaps ended early when `stop` says so.
fn leaf_order_until(state_len: usize, samples: &[Vec<u8>], stop: &dyn Fn() -> bool) -> Vec<usize> {
    let words = TreeStore::words_for(state_len);
    let samples: Vec<Vec<u32>> = samples
        .iter()
        .map(|s| TreeStore::words_of_state(s, words))
        .collect();
    let mut distinct: Vec<HashSet<u32>> = vec![HashSet::new(); words];
    for s in &samples {
        for (set, &v) in distinct.iter_mut().zip(s) {
            set.insert(v);
        }
    }
    let weight: Vec<f64> = distinct.iter().map(|d| (d.len().max(1) as f64).log2()).collect();
    let mut leaves: Vec<usize> = (0..words).collect();
    deal(&mut leaves, &weight);
    refine_root(&mut leaves, &weight, &samples, stop);
    leaves
}

/// Work of the swaps at most: tries times sampled states (a try is a pass
/// over the sample and two sorts of it, about 1.5 ms for 32,768 states:
/// 1,024 tries, some 1.5 s at most, on the longest states).
const MAX_SWAP_WORK: usize = 1 << 25;

/// A state's projection on a set of words is the sum of the hashes of
/// its words there (each hashed with its place): a swap of two words
/// between the halves updates both sums in place.
#[inline]
fn mix(w: usize, v: u32) -> u64 {
    pair_hash(v as u64 | (w as u64) << 32)
}

/// Distinct values in `hs` (sorted in `scratch`).
fn distinct(hs: &[u64], scratch: &mut Vec<u64>) -> usize {
    scratch.clear();
    scratch.extend_from_slice(hs);
    scratch.sort_unstable();
    scratch.dedup();
    scratch.len()
}

/// A half's projections that are distinct on at least this share of the
/// sample's states are taken as telling nothing of the half's size.
const SATURATED: f64 = 0.9;

/// The size of a half's table as far as the sample (of `n` states) tells:
/// its `d` distinct projections there; but where they are (nearly) as many
/// as the states, the sample only says that the half varies as much as it
/// can show, and the bound of its words' distinct values multiplied
/// (`2^weight`) stands instead. Without it, a half that holds everything
/// that varies looked as large as one that holds part of it (both
/// injective on the sample), and the swaps emptied the other half: loyd.3
/// (a 12-tile puzzle, whose sample of 32,768 states is distinct on any 8
/// tiles) got its whole board on one side, 17.6 bytes per state.
fn size(d: usize, weight: f64, n: usize) -> f64 {
    let d = d as f64;
    if d < SATURATED * n as f64 {
        d
    } else {
        d.max(weight.exp2())
    }
}

/// Swaps words between the root's halves while the numbers of distinct
/// projections of the sample on the two halves (the sizes of the root's
/// children's tables, as far as the sample tells: [`size`]) fall in sum;
/// then deals each half again.
fn refine_root(leaves: &mut [usize], weight: &[f64], samples: &[Vec<u32>], stop: &dyn Fn() -> bool) {
    let half = leaves.len().div_ceil(2);
    let (mut l, mut r) = (leaves[..half].to_vec(), leaves[half..].to_vec());
    // Each word's hashes over the sample, once (a try reads two words').
    let mixed: Vec<Vec<u64>> = (0..leaves.len())
        .map(|w| samples.iter().map(|s| mix(w, s[w])).collect())
        .collect();
    let sum = |ws: &[usize], k: usize| ws.iter().fold(0u64, |h, &w| h.wrapping_add(mixed[w][k]));
    let mut hl: Vec<u64> = (0..samples.len()).map(|k| sum(&l, k)).collect();
    let mut hr: Vec<u64> = (0..samples.len()).map(|k| sum(&r, k)).collect();
    let mut scratch = Vec::with_capacity(samples.len());
    // A half's table size as far as the sample tells (see `size`), the
    // weight of its words kept for it.
    let weigh = |ws: &[usize]| ws.iter().map(|&w| weight[w]).sum::<f64>();
    let (mut wl, mut wr) = (weigh(&l), weigh(&r));
    let n = samples.len();
    let mut best = size(distinct(&hl, &mut scratch), wl, n) + size(distinct(&hr, &mut scratch), wr, n);
    let (mut nl, mut nr) = (hl.clone(), hr.clone());
    let mut tries = 0;
    'passes: for _ in 0..2 {
        let mut better = false;
        for x in l.iter_mut() {
            for y in r.iter_mut() {
                let (a, b) = (*x, *y);
                if weight[a] == 0.0 && weight[b] == 0.0 {
                    continue;
                }
                tries += 1;
                if tries * samples.len() > MAX_SWAP_WORK || stop() {
                    break 'passes;
                }
                for k in 0..samples.len() {
                    let (ma, mb) = (mixed[a][k], mixed[b][k]);
                    nl[k] = hl[k].wrapping_sub(ma).wrapping_add(mb);
                    nr[k] = hr[k].wrapping_sub(mb).wrapping_add(ma);
                }
                let (wl2, wr2) = (wl - weight[a] + weight[b], wr - weight[b] + weight[a]);
                let c = size(distinct(&nl, &mut scratch), wl2, n) + size(distinct(&nr, &mut scratch), wr2, n);
                if c < best {
                    best = c;
                    better = true;
                    (wl, wr) = (wl2, wr2);
                    std::mem::swap(x, y);
                    std::mem::swap(&mut hl, &mut nl);
                    std::mem::swap(&mut hr, &mut nr);
                }
            }
        }
        if !better {
            break;
        }
    }
    l.sort_unstable();
    r.sort_unstable();
    deal(&mut l, weight);
    deal(&mut r, weight);
    leaves[..half].copy_from_slice(&l);
    leaves[half..].copy_from_slice(&r);
}

/// The tree store for `model`, its leaves ordered by [`leaf_order`] on a
/// sample of its states.
/// Time and interruption in `budget` end the sampling and the swaps early
/// (the search then stops at its first poll); the sample's memory (a few
/// times [`SAMPLE_BYTES`] at most) is outside the budget.
pub fn tree_store_for(model: &dyn NextState, budget: &Budget) -> TreeStore {
    TreeStore::with_leaves(model.state_len(), &leaves_for(model, budget))
}

/// The leaf order of [`tree_store_for`] (the shared tree store's too).
pub fn leaves_for(model: &dyn NextState, budget: &Budget) -> Vec<usize> {
    let n = model.state_len();
    let count = SAMPLE.min(SAMPLE_BYTES / n.max(1)).max(1);
    let stop = || budget.poll().is_some();
    leaf_order_until(n, &sample_until(model, count, &stop), &stop)
}

/// Halves whose weights differ by at most this share of their sum are
/// left as they are.
const BALANCED: f64 = 0.2;

/// Orders `words` so that the tree over them (left half: the first
/// `ceil(n / 2)`) has halves of about equal weight, recursively.
fn deal(words: &mut [usize], weight: &[f64]) {
    let n = words.len();
    if n <= 2 {
        return;
    }
    let cap = [n.div_ceil(2), n / 2];
    let sum = |h: &[usize]| h.iter().map(|&w| weight[w]).sum::<f64>();
    let (l, r) = words.split_at(cap[0]);
    let (sl, sr) = (sum(l), sum(r));
    if (sl - sr).abs() <= BALANCED * (sl + sr) {
        // Balanced as they are: the words stay where they are (a
        // process's words together, so that a transition changes fewer
        // subtrees).
        let (l, r) = words.split_at_mut(cap[0]);
        deal(l, weight);
        deal(r, weight);
        return;
    }
    let mut by_weight = words.to_vec();
    // Heaviest first; equal weights in state order (a stable sort).
    by_weight.sort_by(|&a, &b| weight[b].total_cmp(&weight[a]));
    let mut halves: [Vec<usize>; 2] = [Vec::with_capacity(cap[0]), Vec::with_capacity(cap[1])];
    let mut sums = [0.0f64; 2];
    for w in by_weight {
        let side = if halves[0].len() == cap[0] {
            1
        } else if halves[1].len() == cap[1] {
            0
        } else if sums[1] < sums[0] {
            1
        } else {
            0
        };
        halves[side].push(w);
        sums[side] += weight[w];
    }
    for h in &mut halves {
        h.sort_unstable();
    }
    let (l, r) = words.split_at_mut(cap[0]);
    l.copy_from_slice(&halves[0]);
    r.copy_from_slice(&halves[1]);
    deal(l, weight);
    deal(r, weight);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_share_the_weight_and_keep_every_word() {
        // Words 0-3 vary, 4-7 are constant: each half gets two of each.
        let weight = [3.0, 3.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0];
        let mut words: Vec<usize> = (0..8).collect();
        deal(&mut words, &weight);
        let mut sorted = words.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..8).collect::<Vec<_>>());
        let sum = |h: &[usize]| h.iter().map(|&w| weight[w]).sum::<f64>();
        assert_eq!(sum(&words[..4]), sum(&words[4..]));
        // And below them, one varying word to each quarter.
        for q in words.chunks(2) {
            assert_eq!(q.iter().filter(|&&w| w < 4).count(), 1, "{words:?}");
        }
    }

    #[test]
    fn odd_sizes_and_ties_keep_state_order() {
        let weight = [0.0; 5];
        let mut words: Vec<usize> = (0..5).collect();
        deal(&mut words, &weight);
        assert_eq!(words, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn swaps_do_not_gather_what_varies_where_the_sample_cannot_tell() {
        // Words 0-2 vary independently over 4,096 values each (a board),
        // 3 and 4 not at all. On 4,096 sampled states any two board words
        // are distinct, so {0, 1, 2} against {3, 4} (4,096 + 1 projections)
        // looked smaller than {0, 1, 3} against {2, 4} (4,096 + about
        // 2,600); at full scale the first half would be 2^36 values, the
        // split's 2^24 and 2^12.
        let mut x = 12345u64;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u32 % 4096
        };
        let samples: Vec<Vec<u32>> = (0..4096).map(|_| vec![next(), next(), next(), 0, 0]).collect();
        let weight = [12.0, 12.0, 12.0, 0.0, 0.0];
        for start in [vec![0, 1, 3, 2, 4], vec![0, 1, 2, 3, 4]] {
            let mut leaves = start.clone();
            refine_root(&mut leaves, &weight, &samples, &|| false);
            // Shared out: 1 or 2 board words on the left, not all 3.
            let board_left = leaves[..3].iter().filter(|&&w| w < 3).count();
            assert!(board_left < 3, "from {start:?}: {leaves:?}");
        }
    }

    #[test]
    fn swaps_put_words_that_move_together_on_one_side() {
        // Words 0 and 1 always equal (x), 2 and 3 too (y): halves {0, 1}
        // and {2, 3} have 16 distinct projections each, {0, 2} and {1, 3}
        // 256 each.
        let samples: Vec<Vec<u32>> = (0..256u32)
            .map(|k| {
                let (x, y) = (k % 16, k / 16);
                vec![x, x, y, y]
            })
            .collect();
        let weight = [4.0; 4];
        let mut leaves = vec![0, 2, 1, 3];
        refine_root(&mut leaves, &weight, &samples, &|| false);
        let mut l = leaves[..2].to_vec();
        l.sort_unstable();
        assert!(l == [0, 1] || l == [2, 3], "{leaves:?}");
        // From the state's order, already best, nothing moves.
        let mut leaves = vec![0, 1, 2, 3];
        refine_root(&mut leaves, &weight, &samples, &|| false);
        assert_eq!(leaves, vec![0, 1, 2, 3]);
    }

    #[test]
    fn words_read_the_padded_tail() {
        let s = [1u8, 0, 0, 0, 7, 8, 9];
        assert_eq!(TreeStore::words_of_state(&s, 3), [1, 0x09_0807, 0]);
    }
}
