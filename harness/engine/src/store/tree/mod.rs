//! [`TreeStore`]: an exact visited set with tree compression (Laarman, van
//! de Pol, Weber, *Parallel Recursive State Compression for Free*, SPIN
//! 2011), for models whose states are long and share most of their parts.
//!
//! **Shape.** A state of `n` bytes is read as `k = ceil(n / 4)` 32-bit
//! words (the last padded with zeros) and folded by a fixed binary tree:
//! the words are the leaves, in an order fixed when the store is made (the
//! state's own, or one that shares what varies out between the halves:
//! [`crate::store::tree::leaf_order`]); a node over leaves `[lo, hi)` splits them into
//! `[lo, mid)` and `[mid, hi)` with `mid = lo + ceil((hi - lo) / 2)`. Each
//! inner node of the tree has its own table of distinct pairs `(left,
//! right)`, where a child is its word when it is a leaf and else its index
//! in the child node's table. A state is its root pair, and the index of
//! that pair in the root table is the state's id.
//!
//! **Tables.** A table is an append-only arena of pairs, in chunks of 64 Ki
//! pairs that never move (so indices are stable), each chunk packed at the
//! bits its pairs need (a pair of indices into tables of 200,000 and 7,000
//! pairs takes 31 bits, not 64; a chunk starts as wide as the last one and
//! widens, repacking its pairs, when a pair needs more), and an
//! open-addressing index of `u32` (`pair index + 1` in the low bits, hash
//! bits as a tag in the bits the table's size leaves free, 0 = empty;
//! linear probing from the hash scaled to the size, load at most 4/5;
//! asked for huge pages) that grows by half by rehashing the arena. Pairs
//! are compared whole: the store is exact whatever the hashes. Root pairs
//! are appended only for new states, so ids are dense and in insertion
//! order, as the [`Store`] trait requires.
//!
//! **Memory.** A new state costs its root pair (the bits of its two child
//! indices, about 4 bytes) and its index slot (4 bytes / load, 5 to 7.5)
//! and whatever inner pairs are new; the parts of a state that it shares
//! with stored states (most of them, after the first levels of a search)
//! cost nothing more (the guide's page on stores gives the bytes per
//! state). `bytes_used` counts every chunk and index slot. Dense ids
//! keep the root's index: a table whose slot is the id (LTSmin's) would
//! save it, at the price of ids that change when the table grows.
//!
//! **Incremental insertion.** The store remembers the trees of the last
//! [`RECENT`] states it gave back (`state`: in a search, the states being
//! expanded; breadth-first search reads a batch of them, then inserts their
//! successors, telling the store whose through `Store::expanding`). A
//! successor is compared with its parent's tree word by word, and a subtree whose words
//! are all unchanged takes the remembered index without a lookup: a
//! transition that changes one word costs about log2(k) table lookups, not
//! k - 1. (Reusing an index is exact whatever state is remembered: a pair
//! table maps equal contents to one index.)
//!
//! **Encoding ahead.** The root table holds a pair per state and is the
//! one whose index slot misses the cache. `Store::prefetch`, which a
//! breadth-first batch calls for each successor before inserting any,
//! encodes the successor up to its root pair (lookups only, in the small
//! tables below the root), keeps it in a [`Memo`] and starts loading the
//! root's index slot; `prefetch_state` loads the pair that slot points to;
//! `insert` then looks only the root pair up, the misses of a whole batch
//! having overlapped.
//!
//! **Recent states.** Most successors are states already stored, and many
//! were met a moment before (the diamonds of interleaving, moves undone):
//! the store keeps the last states it found or stored whole, with their
//! ids, in a direct-mapped table of at most 1 MiB ([`RecentStates`]), and
//! a state found there costs no lookup at all (nor, in the ctree search,
//! a root lookup).
//!
//! **Halves met lately.** A successor whose half (the words under one of
//! the root's children) changed but is one met a moment before takes that
//! half's index from a small table of the halves last encoded, with their
//! words ([`RecentSubtrees`]), and nothing below it is looked up.
//!
//! A successor is encoded whole before the next one (not the batch node by
//! node): the extra passes cost more than the overlap saves
//! (results/store/NOTES.md).
//!
//! Not yet here (issue 14): a compact (Cleary) root table.

mod checkpoint;
pub mod leaf_order;
mod memo;
mod pair_table;
pub mod pipeline;
mod recent_subtrees;
pub mod root_set;
pub mod root_tiers;
mod shape;
pub mod shared;

use memo::*;
use pair_table::*;
use shape::*;
use std::cell::RefCell;

use crate::store::recent_states::RecentStates;
use crate::store::tree::recent_subtrees::RecentSubtrees;
use crate::store::{Insert, Store, MAX_STATES};

/// The exact tree-compressed store (see the module documentation).
#[derive(Debug)]
pub struct TreeStore {
    state_len: usize,
    words: usize,
    /// Inner nodes, children before parents; the root is the last.
    nodes: Vec<Node>,
    tables: Vec<PairTable>,
    /// The trees of the states `state` last gave back (see the module
    /// comment).
    recent: RefCell<Recent>,
    /// Root pairs of states encoded ahead by `prefetch` (see [`Memo`]).
    memo: RefCell<Memo>,
    /// The states last found or stored, whole, with their ids: one found
    /// again is known without a lookup ([`RecentStates`]).
    recent_states: RecentStates,
    /// The halves (the root's children) met lately: one found there is
    /// not looked up, nor is anything below it ([`RecentSubtrees`]).
    subtrees: Vec<RecentSubtrees>,
    /// For each node, the words under it as bits (empty if the state has
    /// more than 64 words): which nodes a successor changed is then a few
    /// masks, not a walk of the tree.
    word_masks: Vec<u64>,
    /// Sums over the tables of `bytes` and `growth_bytes`, kept as tables
    /// change (a memory budget reads them for every new state).
    bytes: usize,
    growth: usize,
}

impl TreeStore {
    pub fn new(state_len: usize) -> TreeStore {
        let words = TreeStore::words_for(state_len);
        TreeStore::with_leaves(state_len, &(0..words).collect::<Vec<_>>())
    }

    /// The words a state of `state_len` bytes is read as: at least two,
    /// so that there is a root pair.
    pub fn words_for(state_len: usize) -> usize {
        shape::words_for(state_len)
    }

    /// A store whose tree has the state's words as leaves in the order
    /// `leaves` (a permutation of `0..words_for(state_len)`): what the
    /// tree's halves hold decides the tables' sizes
    /// ([`crate::store::tree::leaf_order`]), and any order is exact.
    pub fn with_leaves(state_len: usize, leaves: &[usize]) -> TreeStore {
        let (words, nodes) = shape(state_len, leaves);
        let word_masks = word_masks(&nodes, words);
        let tables: Vec<PairTable> = nodes.iter().map(|_| PairTable::new()).collect();
        let recent = RefCell::new(Recent {
            trees: (0..RECENT)
                .map(|_| Last {
                    valid: false,
                    id: 0,
                    words: vec![0; words],
                    idx: vec![0; nodes.len()],
                })
                .collect(),
            cur: 0,
            next: 0,
        });
        let bytes = tables.iter().map(PairTable::bytes).sum();
        let growth = tables.iter().map(PairTable::growth_bytes).sum();
        let root = nodes[nodes.len() - 1];
        let subtrees = [root.left, root.right]
            .into_iter()
            .filter_map(|c| match c {
                Child::Node(n) => Some(RecentSubtrees::new(&nodes, n)),
                Child::Word(_) => None,
            })
            .collect();
        TreeStore {
            state_len,
            words,
            nodes,
            tables,
            recent,
            memo: RefCell::new(Memo::new(0)),
            recent_states: RecentStates::new(state_len),
            subtrees,
            word_masks,
            bytes,
            growth,
        }
    }

    /// The `words` words a state is read as (see [`words_for`]
    /// (Self::words_for)).
    pub(crate) fn words_of_state(state: &[u8], words: usize) -> Vec<u32> {
        let mut out = vec![0; words];
        read_words(state, &mut out);
        out
    }

    fn words_of(&self, state: &[u8], out: &mut [u32]) {
        read_words(state, out)
    }
}

impl TreeStore {
    /// Marks in `changed` the nodes over words that differ from the tree
    /// insertions compare with (every node if there is none), and copies
    /// the others' indices from it into `idx`.
    fn reuse_unchanged(&self, words: &[u32], idx: &mut [u32], changed: &mut [bool]) {
        let recent = self.recent.borrow();
        let last = &recent.trees[recent.cur];
        let known = last.valid.then_some((&last.words[..], &last.idx[..]));
        mark_changed(&self.nodes, words, known, idx, changed);
    }

    /// The indices of the inner nodes below the root for the state whose
    /// words are `words` (found in their tables, or taken from the tree
    /// insertions compare with, as `insert` does); `None` if a pair is not
    /// stored yet (the state is new).
    fn find_below_root(&self, words: &[u32], idx: &mut [u32]) -> Option<()> {
        let mut changed = Scratch::new(self.nodes.len(), true);
        let changed = changed.slice();
        self.reuse_unchanged(words, idx, changed);
        for i in (0..self.nodes.len() - 1).filter(|&i| changed[i]) {
            idx[i] = self.tables[i].find(self.pair(&self.nodes[i], words, idx))?;
        }
        Some(())
    }

    #[inline]
    fn pair(&self, node: &Node, words: &[u32], idx: &[u32]) -> u64 {
        let v = |c: Child| match c {
            Child::Word(w) => words[w],
            Child::Node(n) => idx[n],
        };
        (v(node.left) as u64) << 32 | v(node.right) as u64
    }

    /// Decodes node `node`, whose index is `index`, into tree `t`'s words,
    /// noting every node's index in its `idx`. A node whose index `t`
    /// already holds (when valid) is decoded there: equal indices, equal
    /// subtrees.
    fn decode(&self, node: usize, index: u32, t: &mut Last) {
        if t.valid && t.idx[node] == index {
            return;
        }
        t.idx[node] = index;
        let pair = self.tables[node].get(index);
        let n = self.nodes[node];
        for (child, v) in [(n.left, (pair >> 32) as u32), (n.right, pair as u32)] {
            match child {
                Child::Word(w) => t.words[w] = v,
                Child::Node(c) => self.decode(c, v, t),
            }
        }
    }
}

impl TreeStore {
    /// Inserts `pair` (hash `h`) into node `i`'s table, keeping the sums of
    /// bytes; its index and whether it is new.
    fn insert_pair(&mut self, i: usize, pair: u64, h: u64) -> (u32, bool) {
        let t = &mut self.tables[i];
        let (b0, g0) = (t.bytes(), t.growth_bytes());
        let r = t.insert(pair, h);
        // (Most lookups find their pair, and then nothing changed.)
        if r.1 {
            self.bytes = self.bytes + t.bytes() - b0;
            self.growth = self.growth + t.growth_bytes() - g0;
        }
        r
    }

    /// Inserts the pairs of the nodes before `end` (children first) whose
    /// words differ from the tree insertions compare with, their indices
    /// into `idx` with the others' (taken from that tree); whether the
    /// last pair inserted was new (false if none was inserted).
    fn insert_changed(&mut self, words: &[u32], idx: &mut [u32], end: usize) -> bool {
        if !self.word_masks.is_empty() {
            return self.insert_changed_masked(words, idx, end);
        }
        let mut changed = Scratch::new(self.nodes.len(), true);
        let changed = changed.slice();
        self.reuse_unchanged(words, idx, changed);
        // A changed half met lately: its index, and nothing below it
        // looked up (the indices below it are then not set).
        let mut misses = [None; 2];
        for (s, miss) in self.subtrees.iter_mut().zip(&mut misses) {
            if changed[s.node] {
                match s.find(words) {
                    Ok(i) => {
                        idx[s.node] = i;
                        changed[s.first..=s.node].fill(false);
                    }
                    Err(slot) => *miss = Some(slot),
                }
            }
        }
        let mut new = false;
        for i in (0..end).filter(|&i| changed[i]) {
            let pair = self.pair(&self.nodes[i], words, idx);
            (idx[i], new) = self.insert_pair(i, pair, pair_hash(pair));
        }
        for (s, miss) in self.subtrees.iter_mut().zip(misses) {
            if let Some(slot) = miss {
                s.put(slot, words, idx[s.node]);
            }
        }
        new
    }

    /// [`insert_changed`](Self::insert_changed) for a tree of at most 64
    /// words, with the changed nodes as bits.
    fn insert_changed_masked(&mut self, words: &[u32], idx: &mut [u32], end: usize) -> bool {
        let nn = self.nodes.len();
        let mut changed = {
            let recent = self.recent.borrow();
            let last = &recent.trees[recent.cur];
            if last.valid {
                let diff = words
                    .iter()
                    .zip(&last.words)
                    .enumerate()
                    .fold(0u64, |d, (i, (a, b))| d | ((a != b) as u64) << i);
                idx[..nn].copy_from_slice(&last.idx);
                self.word_masks
                    .iter()
                    .enumerate()
                    .fold(0u64, |c, (i, &m)| c | ((diff & m != 0) as u64) << i)
            } else {
                u64::MAX >> (64 - nn)
            }
        };
        // A changed half met lately: its index, and nothing below it
        // looked up (the indices below it are then not set).
        let mut misses = [None; 2];
        for (s, miss) in self.subtrees.iter_mut().zip(&mut misses) {
            if changed >> s.node & 1 != 0 {
                match s.find(words) {
                    Ok(i) => {
                        idx[s.node] = i;
                        changed &= !((u64::MAX >> (63 - s.node)) & (u64::MAX << s.first));
                    }
                    Err(slot) => *miss = Some(slot),
                }
            }
        }
        if end < 64 {
            changed &= (1u64 << end) - 1;
        }
        let mut new = false;
        while changed != 0 {
            let i = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            let pair = self.pair(&self.nodes[i], words, idx);
            (idx[i], new) = self.insert_pair(i, pair, pair_hash(pair));
        }
        for (s, miss) in self.subtrees.iter_mut().zip(misses) {
            if let Some(slot) = miss {
                s.put(slot, words, idx[s.node]);
            }
        }
        new
    }

    /// Grows the tables of halves met lately with the `stored` states
    /// (their bytes are foreseen by `next_growth_bytes`).
    pub fn fit_recent(&mut self, stored: usize) {
        for s in &mut self.subtrees {
            s.fit(stored);
        }
    }

    /// Decodes state `id` into the next slot of the remembered trees and
    /// makes it the one insertions compare with; the slot.
    fn remember(&self, id: u32) -> usize {
        let root = self.nodes.len() - 1;
        let mut recent = self.recent.borrow_mut();
        let slot = recent.take();
        let t = &mut recent.trees[slot];
        self.decode(root, id, t);
        t.valid = true;
        t.id = id;
        slot
    }
}

/// The tree store with its root kept elsewhere ([`crate::store::tree::root_set`], by
/// `engine::loops::tree_bfs`): a state is the pair of its root's children, stored
/// in the tables below the root, and has no number.
impl TreeStore {
    /// Stores the parts of `state` below the root (new pairs in the inner
    /// tables; a subtree unchanged from the tree last decoded by
    /// [`decode_root`](Self::decode_root) is not looked up); the root's two
    /// children.
    pub fn insert_below_root(&mut self, state: &[u8]) -> (u32, u32) {
        let mut words = Scratch::new(self.words, 0u32);
        let words = words.slice();
        self.words_of(state, words);
        let root = self.nodes.len() - 1;
        let mut idx = Scratch::new(self.nodes.len(), 0u32);
        let idx = idx.slice();
        self.insert_changed(words, idx, root);
        let pair = self.pair(&self.nodes[root], words, idx);
        ((pair >> 32) as u32, pair as u32)
    }

    /// Bounds (exclusive) of the root's children's values after up to
    /// `more` further insertions: a node's table gains at most one pair
    /// per insertion; a word (a state of three words or fewer) has none.
    pub fn root_child_bounds(&self, more: usize) -> (Option<u64>, Option<u64>) {
        let bound = |c: Child| match c {
            Child::Word(_) => None,
            Child::Node(n) => Some(((self.tables[n].len + more) as u64).min(1 << 32)),
        };
        let root = &self.nodes[self.nodes.len() - 1];
        (bound(root.left), bound(root.right))
    }

    /// The state whose root's children are `(left, right)`, into `out`; its
    /// tree is remembered for the next insertions (its successors').
    pub fn decode_root(&self, left: u32, right: u32, out: &mut Vec<u8>) {
        let root = self.nodes.len() - 1;
        let mut recent = self.recent.borrow_mut();
        let slot = recent.take();
        let t = &mut recent.trees[slot];
        let n = self.nodes[root];
        for (child, v) in [(n.left, left), (n.right, right)] {
            match child {
                Child::Word(w) => t.words[w] = v,
                Child::Node(c) => self.decode(c, v, t),
            }
        }
        // Never compared: the root's pair is not in its table.
        t.idx[root] = u32::MAX;
        t.valid = true;
        t.id = u32::MAX;
        out.clear();
        for w in t.words.iter() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.truncate(self.state_len);
    }
}

/// Words of a state on the stack up to this many (longer states allocate).
const STACK_WORDS: usize = 64;

/// `len` values on the stack when they fit in [`STACK_WORDS`], else on the
/// heap: per-insertion buffers without an allocation for most models.
struct Scratch<T: Copy> {
    stack: [T; STACK_WORDS],
    heap: Vec<T>,
    len: usize,
}

impl<T: Copy> Scratch<T> {
    fn new(len: usize, fill: T) -> Scratch<T> {
        Scratch {
            stack: [fill; STACK_WORDS],
            heap: if len > STACK_WORDS {
                vec![fill; len]
            } else {
                Vec::new()
            },
            len,
        }
    }

    fn slice(&mut self) -> &mut [T] {
        if self.len <= STACK_WORDS {
            &mut self.stack[..self.len]
        } else {
            &mut self.heap
        }
    }
}

impl Store for TreeStore {
    fn state_len(&self) -> usize {
        self.state_len
    }

    fn len(&self) -> usize {
        self.tables.last().map_or(0, |t| t.len)
    }

    fn state<'a>(&'a self, id: u32, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        let slot = self.remember(id);
        let recent = self.recent.borrow();
        scratch.clear();
        for w in recent.trees[slot].words.iter() {
            scratch.extend_from_slice(&w.to_le_bytes());
        }
        scratch.truncate(self.state_len);
        &scratch[..]
    }

    fn expanding(&self, id: u32) {
        let found = {
            let r = self.recent.borrow();
            r.trees.iter().position(|t| t.valid && t.id == id)
        };
        match found {
            Some(slot) => self.recent.borrow_mut().cur = slot,
            None => {
                self.remember(id);
            }
        }
    }

    fn find(&self, state: &[u8], fp: u64) -> Option<u32> {
        if let Some(id) = self.recent_states.get(fp, state) {
            return Some(id);
        }
        let mut words = Scratch::new(self.words, 0u32);
        let words = words.slice();
        self.words_of(state, words);
        let mut idx = vec![0u32; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            idx[i] = self.tables[i].find(self.pair(node, words, &idx))?;
        }
        idx.last().copied()
    }

    fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        if let Some(id) = self.recent_states.get(fp, state) {
            return Insert::Seen(id);
        }
        let mut words = Scratch::new(self.words, 0u32);
        let words = words.slice();
        self.words_of(state, words);
        let root = self.nodes.len() - 1;
        let remembered = self.memo.borrow().get(fp, words);
        let (id, new) = match remembered {
            Some((pair, h)) => self.insert_pair(root, pair, h),
            None => {
                let mut idx = Scratch::new(self.nodes.len(), 0u32);
                let idx = idx.slice();
                // (The root comes last: the novelty is its, false if the
                // state is the remembered one.)
                let new = self.insert_changed(words, idx, self.nodes.len());
                (idx[root], new)
            }
        };
        assert!((id as usize) < MAX_STATES, "more states than ids");
        self.recent_states.fit(self.len());
        self.fit_recent(self.len());
        self.recent_states.put(fp, state, id);
        if new {
            Insert::New(id)
        } else {
            Insert::Seen(id)
        }
    }

    /// Encodes `state` as far as the root pair (its words kept in the
    /// memo, for `insert`) and starts loading the root's index slot.
    fn prefetch(&self, state: &[u8], fp: u64) {
        if self.recent_states.get(fp, state).is_some() {
            return;
        }
        let mut memo = self.memo.borrow_mut();
        if memo.fps.is_empty() {
            *memo = Memo::new(self.words);
        }
        let slot = Memo::slot(fp);
        let Memo {
            fps,
            pairs,
            words,
            width,
        } = &mut *memo;
        let words = &mut words[slot * *width..][..*width];
        self.words_of(state, words);
        fps[slot] = fp;
        let mut idx = Scratch::new(self.nodes.len(), 0u32);
        let idx = idx.slice();
        let root = self.nodes.len() - 1;
        pairs[slot] = self.find_below_root(words, idx).map(|()| {
            let pair = self.pair(&self.nodes[root], words, idx);
            (pair, pair_hash(pair))
        });
        if let Some((_, h)) = pairs[slot] {
            self.tables[root].prefetch_slot(h);
        }
    }

    /// Starts loading the root pair the lookup of a prefetched state
    /// compares first.
    fn prefetch_state(&self, fp: u64) {
        let memo = self.memo.borrow();
        if memo.fps.get(Memo::slot(fp)) == Some(&fp) {
            if let Some((_, h)) = memo.pairs[Memo::slot(fp)] {
                self.tables[self.nodes.len() - 1].prefetch_pair(h);
            }
        }
    }

    fn bytes_used(&self) -> usize {
        self.bytes
            + self.memo.borrow().bytes()
            + self.recent_states.bytes()
            + self.subtrees.iter().map(RecentSubtrees::bytes).sum::<usize>()
    }

    fn next_growth_bytes(&self) -> usize {
        // At worst every table gets a new pair.
        self.growth
            + self.recent_states.growth_bytes()
            + self
                .subtrees
                .iter()
                .map(RecentSubtrees::growth_bytes)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::pipeline::Pipeline;
    use super::*;
    use crate::store::{low_bits, StateStore};

    /// Random states of `n` bytes drawn from few values per position (so
    /// that they share parts, as a model's states do).
    fn states(n: usize, count: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut rng = crate::rng::Rng::seeded(seed);
        (0..count)
            .map(|_| (0..n).map(|_| rng.below(3) as u8).collect())
            .collect()
    }

    /// The words of states of `n` bytes in a scrambled order (odd ones
    /// first, backwards).
    fn scrambled(n: usize) -> Vec<usize> {
        let w = TreeStore::words_for(n);
        (0..w)
            .rev()
            .filter(|i| i % 2 == 1)
            .chain((0..w).filter(|i| i % 2 == 0))
            .collect()
    }

    #[test]
    fn agrees_with_the_exact_store_and_gives_states_back() {
        // (Up to 64 words, 256 bytes, the changed nodes are found with
        // masks; past them by a walk of the tree.)
        for (n, scramble) in [0, 1, 3, 4, 5, 8, 13, 64, 256, 257, 301]
            .into_iter()
            .flat_map(|n| [(n, false), (n, true)])
        {
            // Whatever the order of the leaves.
            let mut t = if scramble {
                TreeStore::with_leaves(n, &scrambled(n))
            } else {
                TreeStore::new(n)
            };
            let mut e = StateStore::new(n);
            let mut scratch = Vec::new();
            for s in states(n, 3000, n as u64) {
                // With the state's fingerprint, so that states found again
                // (most, for the short ones) come from the recent states.
                let fp = dve_frontend::model::fingerprint::reference(&s);
                let a = t.insert(&s, fp);
                let b = e.insert(&s, 0);
                assert_eq!(a, b, "n = {n}: same ids, same novelty");
                assert_eq!(t.find(&s, fp), Some(a.id()));
                assert_eq!(t.find(&s, 0), Some(a.id()));
                assert_eq!(t.state(a.id(), &mut scratch), &s[..]);
            }
            assert_eq!(t.len(), e.len());
            for id in 0..t.len() as u32 {
                let mut s2 = Vec::new();
                assert_eq!(t.state(id, &mut scratch), e.state(id, &mut s2));
            }
            let absent = vec![7u8; n];
            if n > 0 {
                assert_eq!(t.find(&absent, 0), None);
            }
        }
    }

    /// States that differ from one another in a byte or two, read back in
    /// a random order (each decoding starts from the last tree and reads
    /// only the nodes that differ), through `state` and `decode_root`.
    #[test]
    fn decoding_from_the_last_tree_gives_every_state_back() {
        let n = 45;
        let mut rng = crate::rng::Rng::seeded(7);
        let mut walk = vec![0u8; n];
        let mut states = Vec::new();
        for _ in 0..5000 {
            for _ in 0..1 + rng.below(2) {
                walk[rng.below(n)] = rng.below(4) as u8;
            }
            states.push(walk.clone());
        }
        let mut t = TreeStore::with_leaves(n, &scrambled(n));
        let mut e = StateStore::new(n);
        for s in &states {
            assert_eq!(t.insert(s, 0), e.insert(s, 0));
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..20_000 {
            let id = rng.below(t.len()) as u32;
            assert_eq!(t.state(id, &mut a), e.state(id, &mut b), "{id}");
        }
        let mut below = TreeStore::with_leaves(n, &scrambled(n));
        let roots: Vec<(u32, u32)> = states.iter().map(|s| below.insert_below_root(s)).collect();
        for _ in 0..20_000 {
            let i = rng.below(states.len());
            below.decode_root(roots[i].0, roots[i].1, &mut a);
            assert_eq!(a, states[i], "{i}");
        }
    }

    /// States encoded in a pipeline (every table large in the tests) are
    /// the states: decoded back whole, equal states with equal pairs,
    /// different ones with different pairs; each begun right after its
    /// "parent" was decoded, so that the masks are used.
    #[test]
    fn states_encoded_in_a_pipeline_are_exact() {
        for n in [12, 45, 256] {
            let mut rng = crate::rng::Rng::seeded(n as u64);
            let mut walk = vec![0u8; n];
            let mut states = Vec::new();
            for _ in 0..3000 {
                for _ in 0..1 + rng.below(2) {
                    walk[rng.below(n)] = rng.below(3) as u8;
                }
                states.push(walk.clone());
            }
            let mut t = TreeStore::with_leaves(n, &scrambled(n));
            assert!(t.pipeline_pays());
            let mut p = Pipeline::default();
            let mut roots = vec![None; states.len()];
            let mut scratch = Vec::new();
            for (at, s) in states.iter().enumerate() {
                // Decode a state already encoded (the parent), now and then.
                if at > 0 && rng.below(3) == 0 {
                    if let Some((l, r)) = roots[rng.below(at)] {
                        t.decode_root(l, r, &mut scratch);
                    }
                }
                t.pipeline_begin(&mut p, s, at);
                for (at, l, r) in p.done.drain(..) {
                    roots[at] = Some((l, r));
                }
            }
            while t.pipeline_step(&mut p) {}
            for (at, l, r) in p.done.drain(..) {
                roots[at] = Some((l, r));
            }
            let roots: Vec<(u32, u32)> = roots.into_iter().map(|r| r.expect("every state done")).collect();
            let mut seen = std::collections::HashMap::new();
            for (s, &pair) in states.iter().zip(&roots) {
                t.decode_root(pair.0, pair.1, &mut scratch);
                assert_eq!(&scratch, s, "n = {n}");
                assert_eq!(
                    *seen.entry(s.clone()).or_insert(pair),
                    pair,
                    "n = {n}: one state, one pair"
                );
            }
            let distinct: std::collections::HashSet<_> = roots.iter().collect();
            assert_eq!(distinct.len(), seen.len(), "n = {n}: one pair, one state");
        }
    }

    #[test]
    #[should_panic(expected = "a permutation")]
    fn leaves_must_be_a_permutation() {
        TreeStore::with_leaves(12, &[0, 1, 1]);
    }

    #[test]
    fn states_encoded_ahead_are_inserted_exactly() {
        // Batches prefetched as a breadth-first search does (the source
        // read, its successors prefetched, then inserted), with
        // fingerprints that collide on purpose (three values: the memo
        // holds one state per value, the others must be told apart by
        // their words) and some inserted in another order or twice.
        for n in [3, 13, 64] {
            let mut t = TreeStore::with_leaves(n, &scrambled(n));
            let mut e = StateStore::new(n);
            let mut scratch = Vec::new();
            let all = states(n, 4000, 11 + n as u64);
            let first = all[0].clone();
            t.insert(&first, 0);
            e.insert(&first, 0);
            for (b, batch) in all[1..].chunks(40).enumerate() {
                let src = (b % t.len()) as u32;
                t.state(src, &mut scratch);
                for (i, s) in batch.iter().enumerate() {
                    t.prefetch(s, i as u64 % 3);
                    t.prefetch_state(i as u64 % 3);
                }
                t.expanding(src);
                for (i, s) in batch.iter().enumerate().rev().chain(batch.iter().enumerate()) {
                    let a = t.insert(s, i as u64 % 3);
                    assert_eq!(a, e.insert(s, 0), "n = {n}: same ids, same novelty");
                }
            }
            for id in 0..t.len() as u32 {
                let mut s2 = Vec::new();
                assert_eq!(t.state(id, &mut scratch), e.state(id, &mut s2));
            }
        }
    }

    #[test]
    fn packed_chunks_widen_and_keep_every_pair() {
        let mut rng = crate::rng::Rng::seeded(7);
        let mut c = Packed::new(16, 0, 0);
        let mut pairs = Vec::new();
        for i in 0..5000u64 {
            // Widths growing from 0 to 32 bits a side, and the extremes.
            let side = |rng: &mut crate::rng::Rng| -> u64 {
                let w = (i / 150).min(32) as u32;
                rng.next_u64() & low_bits(w)
            };
            let pair = match i {
                4000 => u64::MAX,
                4001 => 0,
                4002 => 0xFFFF_FFFF,
                4003 => 0xFFFF_FFFF_0000_0000,
                _ => side(&mut rng) << 32 | side(&mut rng),
            };
            c.push(pair, CHUNK);
            pairs.push(pair);
        }
        assert_eq!((c.wl, c.wr), (32, 32));
        for (i, &p) in pairs.iter().enumerate() {
            assert_eq!(c.get(i), p, "pair {i}");
        }
        assert!(c.bytes.len() < Packed::size(c.cap, 64) + 1);
    }

    #[test]
    fn shared_parts_are_stored_once() {
        // 12^4 states of 400 bytes that differ in four words, one in each
        // quarter (as a model's processes change their own variables): the
        // subtrees below the root are shared, a state costs about its root.
        let n = 400;
        let mut t = TreeStore::new(n);
        for i in 0..12u32.pow(4) {
            let mut s = vec![1u8; n];
            for q in 0..4 {
                let v = (i / 12u32.pow(q)) % 12;
                s[100 * q as usize..][..4].copy_from_slice(&v.to_le_bytes());
            }
            assert!(t.insert(&s, 0).is_new());
        }
        let per_state = t.bytes_used() as f64 / t.len() as f64;
        assert!(per_state < 24.0, "{per_state} bytes per state (exact: 400+)");
    }

    #[test]
    fn growth_prediction_covers_the_next_insertion() {
        let mut t = TreeStore::new(24);
        for s in states(24, 5000, 9) {
            let before = t.bytes_used();
            let predicted = t.next_growth_bytes();
            t.insert(&s, 0);
            assert!(t.bytes_used() - before <= predicted);
        }
    }
}
