//! [`RecentSubtrees`]: the contents of one child of the tree store's root
//! met lately, with their indices, so that a successor whose half is one
//! of them takes that index without a lookup below it.
//!
//! Why: a transition that changes a few words of a half costs a lookup at
//! every node over them, up to the half's table, and the half's table (the
//! largest but the root's) misses the cache. But a breadth-first level's
//! successors repeat their halves: most lookups in the root's children's
//! tables find a pair looked up a moment before. A half met lately is found here by its words alone, and the
//! whole subtree under it is skipped.
//!
//! Exact: an entry is the half's words, compared whole, with the index the
//! half's table gave them, and a table maps equal contents to one index
//! for ever (indices are stable), so whatever the table holds or forgets,
//! an index found here is the one a lookup would give.

use crate::store::tree::pair_table::pair_hash;
use crate::store::tree::shape::{leaves_under, Child, Node};

/// The most bytes a table takes (two of them stay in the core's level-2
/// cache beside the rest of the search).
const MAX_BYTES: usize = 256 << 10;
/// Fewest entries.
const MIN_ENTRIES: usize = 64;
/// Most entries.
const MAX_ENTRIES: usize = 1 << 16;

/// Halves met lately of one child of the root (see the module comment).
#[derive(Debug)]
pub(crate) struct RecentSubtrees {
    /// The child's node.
    pub node: usize,
    /// The first node of its subtree, whose nodes are `first..=node`
    /// (children come before their parents, a subtree's nodes together).
    pub first: usize,
    /// The words under it, in its order.
    leaves: Vec<usize>,
    /// Entries of `1 + leaves.len()` words, direct-mapped by hash: the
    /// half's index + 1 (0: empty), then its words.
    slots: Vec<u32>,
    bits: u32,
}

impl RecentSubtrees {
    pub fn new(nodes: &[Node], node: usize) -> RecentSubtrees {
        let leaves = leaves_under(nodes, Child::Node(node));
        // A subtree of k words has k - 1 inner nodes, the last of them
        // `node`.
        let first = node + 2 - leaves.len();
        let bits = MIN_ENTRIES.ilog2();
        RecentSubtrees {
            node,
            first,
            slots: vec![0; (1 << bits) * (1 + leaves.len())],
            leaves,
            bits,
        }
    }

    fn entry(&self) -> usize {
        1 + self.leaves.len()
    }

    /// The index of the half whose words (in the state's `words`) are
    /// those of a half met lately; else the slot to [`put`](Self::put) it
    /// in once its index is known.
    #[inline]
    pub fn find(&self, words: &[u32]) -> Result<u32, usize> {
        let mut h = 0u64;
        for &l in &self.leaves {
            h = (h.rotate_left(5) ^ words[l] as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        let slot = (pair_hash(h) >> (64 - self.bits)) as usize * self.entry();
        let e = &self.slots[slot..slot + self.entry()];
        match e[0] {
            i if i != 0 && self.leaves.iter().zip(&e[1..]).all(|(&l, &w)| words[l] == w) => Ok(i - 1),
            _ => Err(slot),
        }
    }

    /// Puts the half whose words are in `words` in `slot` with `index`.
    #[inline]
    pub fn put(&mut self, slot: usize, words: &[u32], index: u32) {
        let entry = self.entry();
        let e = &mut self.slots[slot..slot + entry];
        e[0] = index + 1;
        for (&l, w) in self.leaves.iter().zip(e[1..].iter_mut()) {
            *w = words[l];
        }
    }

    /// Entries for a search that has stored `stored` states: as many as
    /// cost half a byte per state (the two halves' tables a byte), up to
    /// [`MAX_BYTES`] (at least [`MIN_ENTRIES`], whatever a half's length).
    fn entries_for(&self, stored: usize) -> usize {
        let bytes = 4 * self.entry();
        let most = (MAX_BYTES / bytes).clamp(MIN_ENTRIES, MAX_ENTRIES);
        let want = (stored / (2 * bytes)).clamp(MIN_ENTRIES, most);
        1 << want.ilog2()
    }

    /// Doubles the table (emptied: it is exact whatever it holds) with the
    /// states stored so far, up to [`MAX_BYTES`].
    pub fn fit(&mut self, stored: usize) {
        let entries = self.entries_for(stored);
        if entries > 1 << self.bits {
            self.bits = entries.ilog2();
            self.slots = vec![0; entries * self.entry()];
        }
    }

    pub fn bytes(&self) -> usize {
        self.slots.len() * 4
    }

    /// Bytes the next `fit` allocates at most.
    pub fn growth_bytes(&self) -> usize {
        let most = self.entries_for(usize::MAX);
        if 1 << self.bits < most {
            most * self.entry() * 4
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tree::shape;

    #[test]
    fn a_half_is_found_by_all_its_words_and_only_by_them() {
        // 8 words, the identity order: the root's left child is over
        // words 0-3 (nodes 0-2), its right one over words 4-7.
        let (_, nodes) = shape(32, &(0..8).collect::<Vec<_>>());
        let root = nodes[nodes.len() - 1];
        let Child::Node(left) = root.left else {
            panic!("a node")
        };
        let mut r = RecentSubtrees::new(&nodes, left);
        assert_eq!((r.first, r.leaves.clone()), (0, vec![0, 1, 2, 3]));
        let a = [1, 2, 3, 4, 5, 6, 7, 8];
        let slot = r.find(&a).expect_err("empty");
        r.put(slot, &a, 41);
        assert_eq!(r.find(&a), Ok(41));
        // The other half's words do not matter...
        assert_eq!(r.find(&[1, 2, 3, 4, 0, 0, 0, 0]), Ok(41));
        // ... every word of this one does.
        for w in 0..4 {
            let mut b = a;
            b[w] ^= 1 << 31;
            assert!(r.find(&b).is_err(), "word {w}");
        }
        // Growing empties the table: exact whatever it holds.
        let before = r.bytes();
        r.fit(usize::MAX);
        assert!(r.bytes() > before && r.bytes() <= MAX_BYTES);
        assert_eq!(r.growth_bytes(), 0);
        assert!(r.find(&a).is_err());
    }

    #[test]
    fn its_bytes_stay_within_a_byte_per_state_of_both_halves() {
        let (_, nodes) = shape(400, &(0..100).collect::<Vec<_>>());
        let mut r = RecentSubtrees::new(&nodes, nodes.len() - 2);
        for stored in [0, 1000, 100_000, 10_000_000] {
            r.fit(stored);
            assert!(
                2 * r.bytes() <= stored.max(2 * MIN_ENTRIES * 4 * r.entry()),
                "{stored}"
            );
        }
    }
}
