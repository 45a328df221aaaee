//! [`SharedTreeStore`]: the tree-compressed visited set of the parallel
//! searches (`explore --threads N --store tree`), every thread on one
//! state space, exact.
//!
//! **Shape.** The tree of the sequential [`TreeStore`](crate::store::tree::TreeStore) (the same leaf
//! order, [`crate::store::tree::leaf_order`]): a state's words are folded by a fixed
//! binary tree, each inner node a pair of its children (words, or indices
//! of pairs in the child nodes' tables), the state identified by its root
//! pair (Laarman, van de Pol, Weber, *Parallel Recursive State Compression
//! for Free*, SPIN 2011, whose tables are shared by every thread as here).
//!
//! **Tables.** Each node's table is a [`SharedStore`] of 8-byte pairs: the
//! lock-free find-or-put of the exact parallel search, which gives two
//! threads inserting the same pair one index, and grows. So a pair's index
//! is its id there (`local << q_bits | q`, stable: arenas never move), and
//! the root table's ids are the states' ids, with the parent links of
//! counterexamples kept beside the root pairs. A level of the parallel BFS
//! is, as with the exact store, a range of each thread's root arena.
//!
//! **Incremental insertion.** A thread decodes each source it expands
//! (`load`: its tree read down from the root, the subtrees whose index
//! the slot's previous tree shares skipped) and inserts its successors
//! against that tree: a subtree whose words are unchanged keeps its index
//! without a lookup, so a transition that changes one word costs about
//! log2(k) lookups of k words.
//!
//! **Locks.** A thread inserts under the read locks of every table
//! (uncontended: taken once per block of work) and a table grows under
//! its write lock. With several locks, a thread that waited for one while
//! holding others could close a cycle (read locks wait for a waiting
//! writer); so a thread takes all of them together, in one order, and
//! first makes sure that every table has room for its next insertion (it
//! inserts at most one pair per table), growing them while it holds none.
//!
//! **Memory.** A pair costs its 8 bytes in an arena and an index slot of
//! 8 bytes at most three quarters full: 19-21 bytes, against the
//! sequential store's packed pairs and 32-bit slots (about 11); a state
//! costs its root pair and whatever inner pairs are new (most parts are
//! shared after the first levels). Worth it for long states: the exact
//! shared store costs the state's length and its slot.

use std::sync::atomic::AtomicU8;

use crate::store::shared::{ConcurrentStore, SharedStore, StoreWriter, Writer};
use crate::store::tree::pair_table::pair_hash;
use crate::store::tree::shape::{mark_changed, read_words, shape, Child, Node};
use crate::store::Insert;

/// Bytes of an arena chunk of an inner node's table (a table per node:
/// small chunks, so that a model of long states does not start with
/// megabytes of them).
const INNER_CHUNK: usize = 16 * 1024;

/// Index slots a thread takes at a time in an inner node's table (a
/// thread takes room in every table before it inserts).
const INNER_GRANT: i64 = 64;

/// A concurrent exact tree store for `writers` threads.
pub struct SharedTreeStore {
    state_len: usize,
    words: usize,
    /// Inner nodes, children before parents; the root is the last.
    nodes: Vec<Node>,
    /// The tables of the nodes below the root (`tables[i]`: node `i`).
    tables: Vec<SharedStore>,
    /// The root pairs: the states (with their extra bytes).
    root: SharedStore,
}

/// A decoded state: its words and each node's index in its table (the
/// root's: the state's id).
struct Tree {
    valid: bool,
    words: Vec<u32>,
    idx: Vec<u32>,
    bytes: Vec<u8>,
}

impl SharedTreeStore {
    /// A store for states of `state_len` bytes read in the leaf order
    /// `leaves` (a permutation of `0..TreeStore::words_for(state_len)`),
    /// keeping `extra` bytes with each state.
    pub fn new(state_len: usize, leaves: &[usize], extra: usize, writers: usize) -> SharedTreeStore {
        let (words, nodes) = shape(state_len, leaves);
        let tables = (0..nodes.len() - 1)
            .map(|_| SharedStore::with_chunks(8, 0, writers, INNER_CHUNK, INNER_GRANT))
            .collect();
        SharedTreeStore {
            state_len,
            words,
            nodes,
            tables,
            root: SharedStore::with_extra(8, extra, writers),
        }
    }

    fn root_node(&self) -> usize {
        self.nodes.len() - 1
    }

    fn table(&self, node: usize) -> &SharedStore {
        if node == self.root_node() {
            &self.root
        } else {
            &self.tables[node]
        }
    }

    fn new_tree(&self) -> Tree {
        Tree {
            valid: false,
            words: vec![0; self.words],
            idx: vec![0; self.nodes.len()],
            bytes: Vec::with_capacity(self.words * 4),
        }
    }

    /// Decodes node `node`, whose index is `index`, into `t` (a subtree
    /// whose index `t` holds already is there: equal indices, equal
    /// subtrees).
    fn decode(&self, node: usize, index: u32, t: &mut Tree) {
        if t.valid && t.idx[node] == index {
            return;
        }
        t.idx[node] = index;
        let pair = u64::from_le_bytes(self.table(node).get(index).try_into().expect("8 bytes"));
        let n = self.nodes[node];
        for (child, v) in [(n.left, (pair >> 32) as u32), (n.right, pair as u32)] {
            match child {
                Child::Word(w) => t.words[w] = v,
                Child::Node(c) => self.decode(c, v, t),
            }
        }
    }

    /// Decodes state `id` into `t` (words, indices and bytes).
    fn decode_state(&self, id: u32, t: &mut Tree) {
        self.decode(self.root_node(), id, t);
        t.valid = true;
        t.bytes.clear();
        for w in &t.words {
            t.bytes.extend_from_slice(&w.to_le_bytes());
        }
        t.bytes.truncate(self.state_len);
    }

    pub(crate) fn writer(&self, q: usize) -> TreeWriter<'_> {
        TreeWriter {
            store: self,
            root: self.root.writer(q),
            tables: self.tables.iter().map(|t| t.writer(q)).collect(),
            held: false,
            trees: vec![self.new_tree()],
            cur: 0,
            words: vec![0; self.words],
            idx: vec![0; self.nodes.len()],
            changed: vec![true; self.nodes.len()],
        }
    }
}

impl ConcurrentStore for SharedTreeStore {
    type Writer<'a> = TreeWriter<'a>;
    fn writer(&self, q: usize) -> TreeWriter<'_> {
        SharedTreeStore::writer(self, q)
    }
    fn arena_len(&self, q: usize) -> usize {
        self.root.arena_len(q)
    }
    fn len(&self) -> usize {
        self.root.len()
    }
    #[inline]
    fn id(&self, q: usize, local: usize) -> u32 {
        self.root.id(q, local)
    }
    #[inline]
    fn locate(&self, id: u32) -> (usize, usize) {
        self.root.locate(id)
    }
    fn extra(&self, id: u32) -> &[u8] {
        self.root.extra(id)
    }
    fn read(&self, id: u32) -> Vec<u8> {
        let mut t = self.new_tree();
        self.decode_state(id, &mut t);
        t.bytes
    }
    fn bytes_used(&self) -> usize {
        self.root.bytes_used() + self.tables.iter().map(SharedStore::bytes_used).sum::<usize>()
    }
    fn next_growth_bytes(&self) -> usize {
        self.root.next_growth_bytes()
            + self
                .tables
                .iter()
                .map(SharedStore::next_growth_bytes)
                .sum::<usize>()
    }
}

/// Thread `q`'s access to a [`SharedTreeStore`]: a [`Writer`] per table,
/// the trees of the batch's sources, and buffers for one insertion.
pub struct TreeWriter<'a> {
    store: &'a SharedTreeStore,
    root: Writer<'a>,
    tables: Vec<Writer<'a>>,
    /// Every table's read lock is held (all or none: see the module
    /// documentation).
    held: bool,
    /// Per source of the batch, its tree.
    trees: Vec<Tree>,
    /// The tree insertions compare with.
    cur: usize,
    words: Vec<u32>,
    idx: Vec<u32>,
    changed: Vec<bool>,
}

impl TreeWriter<'_> {
    /// Takes every table's read lock, each table having room for one
    /// insertion (grown first, holding none, if need be).
    fn ready(&mut self) {
        let room = || self.root.has_room() && self.tables.iter().all(Writer::has_room);
        if self.held && room() {
            return;
        }
        self.release();
        for w in self.tables.iter_mut().chain(std::iter::once(&mut self.root)) {
            w.ensure_room();
        }
        for w in self.tables.iter_mut().chain(std::iter::once(&mut self.root)) {
            w.hold();
        }
        self.held = true;
    }

    /// Reads `state` into `words` and marks in `changed` the nodes over
    /// words that differ from the tree insertions compare with, copying
    /// the others' indices from it into `idx`. False if no node changed
    /// (`state` is that tree's).
    fn reuse_unchanged(&mut self, state: &[u8]) -> bool {
        read_words(state, &mut self.words);
        let last = &self.trees[self.cur];
        let known = last.valid.then_some((&last.words[..], &last.idx[..]));
        mark_changed(
            &self.store.nodes,
            &self.words,
            known,
            &mut self.idx,
            &mut self.changed,
        );
        self.changed[self.store.root_node()]
    }

    /// Node `i`'s pair for the words and indices found so far.
    #[inline]
    fn pair(&self, i: usize) -> u64 {
        let node = self.store.nodes[i];
        let v = |c: Child| match c {
            Child::Word(w) => self.words[w],
            Child::Node(n) => self.idx[n],
        };
        (v(node.left) as u64) << 32 | v(node.right) as u64
    }
}

impl StoreWriter for TreeWriter<'_> {
    fn release(&mut self) {
        self.root.release();
        for w in &mut self.tables {
            w.release();
        }
        self.held = false;
    }

    fn ensure_room(&mut self) {
        self.ready();
    }

    fn load(&mut self, slot: usize, id: u32) -> &[u8] {
        while self.trees.len() <= slot {
            self.trees.push(self.store.new_tree());
        }
        self.store.decode_state(id, &mut self.trees[slot]);
        &self.trees[slot].bytes
    }

    fn expanding(&mut self, slot: usize) {
        self.cur = slot;
    }

    const FINGERPRINTS: bool = false;

    // The lookups are a chain (each pair holds its children's indices):
    // nothing to start ahead from the state's fingerprint.
    fn prefetch(&mut self, _fp: u64) {}

    fn prefetch_state(&mut self, _fp: u64) {}

    fn find(&mut self, state: &[u8], _fp: u64) -> Option<u32> {
        self.ready();
        let root = self.store.root_node();
        if !self.reuse_unchanged(state) {
            return Some(self.idx[root]);
        }
        for i in 0..root {
            if self.changed[i] {
                let pair = self.pair(i);
                self.idx[i] = self.tables[i].find(&pair.to_le_bytes(), pair_hash(pair))?;
            }
        }
        let pair = self.pair(root);
        self.root.find(&pair.to_le_bytes(), pair_hash(pair))
    }

    fn insert_with(&mut self, state: &[u8], extra: &[u8], _fp: u64) -> Insert {
        self.ready();
        let root = self.store.root_node();
        if !self.reuse_unchanged(state) {
            // A self-loop: the source itself.
            return Insert::Seen(self.idx[root]);
        }
        for i in 0..root {
            if self.changed[i] {
                let pair = self.pair(i);
                self.idx[i] = self.tables[i]
                    .insert_with(&pair.to_le_bytes(), &[], pair_hash(pair))
                    .id();
            }
        }
        let pair = self.pair(root);
        self.root.insert_with(&pair.to_le_bytes(), extra, pair_hash(pair))
    }

    fn mark(&mut self, id: u32) -> &AtomicU8 {
        // A state's id is its root pair's, whose extra bytes are the state's.
        self.root.mark(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::shared::ConcurrentStore;
    use crate::store::tree::TreeStore;

    /// States of `n` bytes over a small alphabet (so that they share
    /// parts), from a seeded generator.
    fn states(n: usize, count: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut x = seed;
        (0..count)
            .map(|_| {
                (0..n)
                    .map(|_| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        ((x >> 61) as u8) & 3
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn threads_inserting_the_same_states_agree_and_read_them_back() {
        let n = 23;
        let words = TreeStore::words_for(n);
        let leaves: Vec<usize> = (0..words).rev().collect();
        let threads = 4;
        let store = SharedTreeStore::new(n, &leaves, 2, threads);
        // A prime number of states: each thread's stride below visits all.
        let all = states(n, 3001, 7);
        // Every thread inserts every state (in its own order, each
        // expanding a different earlier state): each state is new to
        // exactly one thread, and every thread gets its id.
        let ids: Vec<Vec<(u32, bool)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|q| {
                    let (store, all) = (&store, &all);
                    s.spawn(move || {
                        let mut w = store.writer(q);
                        let mut out = vec![(0, false); all.len()];
                        let order: Vec<usize> = (0..all.len())
                            .map(|i| (i * (2 * q + 1) + q) % all.len())
                            .collect();
                        for (k, &i) in order.iter().enumerate() {
                            if k % 64 == 0 {
                                w.release();
                            }
                            if k > 0 && k % 7 == 0 {
                                // Compare with an earlier state's tree.
                                let (id, _) = out[order[k / 2]];
                                w.load(k % 3, id);
                                w.expanding(k % 3);
                            }
                            let extra = [i as u8, (i >> 8) as u8];
                            out[i] = w.insert_with(&all[i], &extra, 0).split();
                        }
                        out
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("thread")).collect()
        });
        let mut distinct = all.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(store.len(), distinct.len());
        for (i, s) in all.iter().enumerate() {
            let id = ids[0][i].0;
            assert!(ids.iter().all(|t| t[i].0 == id), "one id per state");
            let first = all.iter().position(|x| x == s).expect("there");
            if first == i {
                assert_eq!(ids.iter().filter(|t| t[i].1).count(), 1, "new to one thread");
            }
            assert_eq!(&store.read(id), s);
            let e = store.extra(id);
            let inserted_as = e[0] as usize | (e[1] as usize) << 8;
            assert_eq!(&all[inserted_as], s, "the extra bytes of its first insertion");
        }
        let mut w = store.writer(0);
        for s in &all {
            assert!(w.find(s, 0).is_some());
        }
        let absent = vec![9u8; n];
        assert_eq!(w.find(&absent, 0), None);
    }
}
