//! Successors encoded below the root in flight together, each waiting for
//! a prefetched index slot of a large table while the others go on.

use super::pair_table::*;
use super::shape::*;
use super::TreeStore;

/// Successors a [`Pipeline`] keeps in flight: enough for their misses to
/// overlap.
pub(crate) const IN_FLIGHT: usize = 8;

/// Successors being encoded below the root, each waiting for the index
/// slot of its next lookup in a large table (prefetched) while the others
/// go on: the misses of several successors overlap instead of each
/// lookup waiting for the last. For trees of at most 64 words.
///
/// Why: a move that changes words under both halves (hanoi.3's) looks up
/// tables of millions of pairs, whose lookups miss every cache and were
/// most of the search's time; in flight with others they overlap. (A
/// batch encoded node by node instead lost the halves met lately within
/// the batch: results/store/NOTES.md.) Here a successor's halves are put
/// as soon as it is done, its root's bucket prefetched then, and its
/// pairs are the same; only new pairs' indices come in another order.
///
/// Exact: each successor's nodes are looked up in the order
/// `insert_below_root` would, children first, each lookup exact.
#[derive(Debug, Default)]
pub struct Pipeline {
    pub(crate) words: Vec<u32>,
    pub(crate) idx: Vec<u32>,
    /// Per slot: nodes still to look up (bits), the node waiting and its
    /// pair's hash, the halves met lately it missed, where its root's
    /// children go.
    pub(crate) changed: [u64; IN_FLIGHT],
    pub(crate) waiting: [(usize, u64); IN_FLIGHT],
    pub(crate) misses: [[Option<usize>; 2]; IN_FLIGHT],
    pub(crate) out: [usize; IN_FLIGHT],
    /// Slots in flight, oldest first, and free ones.
    pub(crate) queue: std::collections::VecDeque<usize>,
    pub(crate) free: Vec<usize>,
    /// Successors encoded: where they go, and their roots' children.
    pub done: Vec<(usize, u32, u32)>,
}

impl Pipeline {
    /// Bytes of its buffers.
    pub fn bytes(&self) -> usize {
        (self.words.capacity() + self.idx.capacity()) * 4
            + self.queue.capacity() * 8
            + self.free.capacity() * 8
            + self.done.capacity() * 16
    }
}

impl TreeStore {
    /// Whether [`pipeline_begin`](Self::pipeline_begin) pays: a table
    /// below the root is large, and the tree has masks.
    pub fn pipeline_pays(&self) -> bool {
        let root = self.nodes.len() - 1;
        !self.word_masks.is_empty() && self.tables[..root].iter().any(PairTable::large)
    }

    /// Starts encoding `state`, a successor of the state last decoded by
    /// [`decode_root`](Self::decode_root), below the root, as
    /// [`insert_below_root`](Self::insert_below_root) does; its root's
    /// children go to `p.done` with `at` once known.
    pub fn pipeline_begin(&mut self, p: &mut Pipeline, state: &[u8], at: usize) {
        let (w, nn) = (self.words, self.nodes.len());
        if p.words.len() != IN_FLIGHT * w || p.idx.len() != IN_FLIGHT * nn {
            *p = Pipeline {
                words: vec![0; IN_FLIGHT * w],
                idx: vec![0; IN_FLIGHT * nn],
                free: (0..IN_FLIGHT).collect(),
                ..Default::default()
            };
        }
        while p.free.is_empty() {
            self.pipeline_step(p);
        }
        let k = p.free.pop().expect("a free slot");
        let words = &mut p.words[k * w..][..w];
        let idx = &mut p.idx[k * nn..][..nn];
        read_words(state, words);
        // (As in `insert_changed_masked`: the same steps in one shared
        // helper were slower on every instance.)
        let mut changed = {
            let recent = self.recent.borrow();
            let last = &recent.trees[recent.cur];
            if last.valid {
                let diff = words
                    .iter()
                    .zip(&last.words)
                    .enumerate()
                    .fold(0u64, |d, (i, (a, b))| d | ((a != b) as u64) << i);
                idx.copy_from_slice(&last.idx);
                self.word_masks
                    .iter()
                    .enumerate()
                    .fold(0u64, |c, (i, &m)| c | ((diff & m != 0) as u64) << i)
            } else {
                u64::MAX >> (64 - nn)
            }
        };
        let mut misses = [None; 2];
        for (s, miss) in self.subtrees.iter().zip(&mut misses) {
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
        // (Not the root: its pair goes to the root set.)
        changed &= (1u64 << (nn - 1)) - 1;
        p.changed[k] = changed;
        p.misses[k] = misses;
        p.out[k] = at;
        self.pipeline_advance(p, k);
    }

    /// Looks up the waiting pair of the oldest successor in flight and
    /// goes on with it.
    pub fn pipeline_step(&mut self, p: &mut Pipeline) -> bool {
        let Some(k) = p.queue.pop_front() else {
            return false;
        };
        let (w, nn) = (self.words, self.nodes.len());
        let (i, h) = p.waiting[k];
        let pair = self.pair(&self.nodes[i], &p.words[k * w..][..w], &p.idx[k * nn..][..nn]);
        p.idx[k * nn + i] = self.insert_pair(i, pair, h).0;
        p.changed[k] &= !(1u64 << i);
        self.pipeline_advance(p, k);
        true
    }

    /// Looks up slot `k`'s nodes in order up to one in a large table,
    /// whose slot it prefetches and waits at; or, none left, gives its
    /// root's children.
    pub(crate) fn pipeline_advance(&mut self, p: &mut Pipeline, k: usize) {
        let (w, nn) = (self.words, self.nodes.len());
        let words = &p.words[k * w..][..w];
        let idx = &mut p.idx[k * nn..][..nn];
        while p.changed[k] != 0 {
            let i = p.changed[k].trailing_zeros() as usize;
            let pair = self.pair(&self.nodes[i], words, idx);
            let h = pair_hash(pair);
            if self.tables[i].large() {
                self.tables[i].prefetch_slot(h);
                p.waiting[k] = (i, h);
                p.queue.push_back(k);
                return;
            }
            idx[i] = self.insert_pair(i, pair, h).0;
            p.changed[k] &= !(1u64 << i);
        }
        for (s, miss) in self.subtrees.iter_mut().zip(p.misses[k]) {
            if let Some(slot) = miss {
                s.put(slot, words, idx[s.node]);
            }
        }
        let pair = self.pair(&self.nodes[nn - 1], words, idx);
        p.done.push((p.out[k], (pair >> 32) as u32, pair as u32));
        p.free.push(k);
    }
}
