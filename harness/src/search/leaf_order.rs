//! Which of a state's words go to which half of the tree store's tree
//! ([`TreeStore::with_leaves`]).
//!
//! **Why.** A table of the tree holds the distinct contents of its node's
//! subtree. With the words in their order in the state vector, the halves
//! of a model can be unequal: on leader_election.4 the root's left child
//! has 683,696 distinct subtrees for 746,240 states (its words are the
//! ones that vary) and the right one 913, so the left table costs 8 bytes
//! a state on top of the root's. The root set ([`super::root_set`]) stores
//! a state's root pair in 3-4 bytes whatever its children are; the tables
//! below are cheap only if each half of the state varies less than the
//! whole, i.e. if what varies is shared out between the halves (Laarman,
//! *Optimal compression of combinatorial state spaces*, 2019: a tree
//! stores a combinatorial state space in about the root table's cost when
//! its halves are balanced).
//!
//! **How.** The words are weighed by how much they vary in a sample: the
//! first [`SAMPLE`] states of a breadth-first search (fewer if longer than
//! 256 bytes; an exact store, thrown away after), a word's weight the log of the number of its
//! distinct values there. Then, from the root down, the words of a node are
//! dealt to its two halves (of fixed sizes: the left one takes the odd
//! word), heaviest first, each to the half whose weight is lower: a
//! greedy balance of the halves, then of their halves. Words of equal
//! weight keep their order in the state, so that a process's words stay
//! together where nothing tells them apart. The order is a function of
//! the model only (the sample is deterministic): a search is as
//! reproducible as with the identity order, and exact whatever the order.
//!
//! A sample of the first levels can miss words that vary only deeper
//! (they weigh nothing and fill the lighter half): the order is a
//! heuristic for memory, never a question of exactness.

use std::collections::HashSet;

use dve_frontend::model::{NextState, SuccBuf};

use super::store::{Insert, StateStore};
use super::tree_store::TreeStore;

/// States sampled (the first ones of a breadth-first search)...
pub const SAMPLE: usize = 1 << 15;
/// ... fewer for long states: the sample's store is outside the memory
/// budget, so it is kept small beside any budget (8 MiB of states).
const SAMPLE_BYTES: usize = 8 << 20;

/// The first `n` states of `model`'s breadth-first search (fewer if it
/// has fewer).
pub fn sample(model: &dyn NextState, n: usize) -> Vec<Vec<u8>> {
    let mut store = StateStore::new(model.state_len());
    let init = model.initial_vec();
    store.insert(&init, model.fingerprint(&init));
    let mut buf = SuccBuf::new(model.state_len());
    let mut next = 0u32;
    while (next as usize) < store.len() && store.len() < n {
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
    store.iter().map(<[u8]>::to_vec).collect()
}

/// The leaves of the tree for states of `state_len` bytes, balanced on
/// `samples` (see the module documentation).
pub fn leaf_order(state_len: usize, samples: &[Vec<u8>]) -> Vec<usize> {
    let words = TreeStore::words_for(state_len);
    let mut distinct: Vec<HashSet<u32>> = vec![HashSet::new(); words];
    for s in samples {
        for (w, set) in distinct.iter_mut().enumerate() {
            set.insert(word(s, w));
        }
    }
    let weight: Vec<f64> = distinct.iter().map(|d| (d.len().max(1) as f64).log2()).collect();
    let mut leaves: Vec<usize> = (0..words).collect();
    deal(&mut leaves, &weight);
    leaves
}

/// The tree store for `model`, its leaves ordered by [`leaf_order`] on a
/// sample of its states.
pub fn tree_store_for(model: &dyn NextState) -> TreeStore {
    let n = model.state_len();
    let count = SAMPLE.min(SAMPLE_BYTES / n.max(1)).max(1);
    TreeStore::with_leaves(n, &leaf_order(n, &sample(model, count)))
}

/// Word `w` of `state` as the tree store reads it (little-endian, the
/// last one padded with zeros).
fn word(state: &[u8], w: usize) -> u32 {
    let mut b = [0u8; 4];
    let lo = (4 * w).min(state.len());
    let hi = (4 * w + 4).min(state.len());
    b[..hi - lo].copy_from_slice(&state[lo..hi]);
    u32::from_le_bytes(b)
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
    fn word_reads_the_padded_tail() {
        let s = [1u8, 0, 0, 0, 7, 8];
        assert_eq!(word(&s, 0), 1);
        assert_eq!(word(&s, 1), 0x0807);
    }
}
