//! What the store remembers between insertions: the trees of the states it
//! last gave back, and root pairs encoded ahead by `prefetch`.

/// Trees remembered for incremental insertion (a BFS batch).
pub const RECENT: usize = 16;

/// A stored state's words and the index of each of its tree's nodes.
#[derive(Debug, Default)]
pub(crate) struct Last {
    pub(crate) valid: bool,
    pub(crate) id: u32,
    pub(crate) words: Vec<u32>,
    pub(crate) idx: Vec<u32>,
}

#[derive(Debug, Default)]
pub(crate) struct Recent {
    pub(crate) trees: Vec<Last>,
    /// The tree insertions compare with.
    pub(crate) cur: usize,
    /// The slot the next decoded tree goes to.
    pub(crate) next: usize,
}

impl Recent {
    /// The slot for the next decoded tree, made the one insertions compare
    /// with. It starts as a copy of the tree they compared with until now:
    /// the states a search expands one after the other (a breadth-first
    /// level's, successors of the same few states) share most subtrees, and
    /// a decoding reads only the nodes whose indices differ from it.
    pub(crate) fn take(&mut self) -> usize {
        let (slot, from) = (self.next, self.cur);
        self.next = (slot + 1) % RECENT;
        self.cur = slot;
        if from != slot {
            let (from, to) = if from < slot {
                let (a, b) = self.trees.split_at_mut(slot);
                (&a[from], &mut b[0])
            } else {
                let (a, b) = self.trees.split_at_mut(from);
                (&b[0], &mut a[slot])
            };
            to.words.copy_from_slice(&from.words);
            to.idx.copy_from_slice(&from.idx);
            to.valid = from.valid;
        }
        slot
    }
}

/// Memo slots (direct-mapped by fingerprint): a breadth-first batch's
/// successors, a hundred or so, fit with few evictions.
pub(crate) const MEMO: usize = 512;

/// The root pairs of states `prefetch` encoded (see the module comment).
/// An entry is used only for a state whose words equal its own, and its
/// pair stays right forever (pair indices are stable), so the memo is exact
/// in any order of calls; an entry that is overwritten or was not complete
/// (`pair: None`: a pair below the root was new) only costs the full
/// insertion.
#[derive(Debug)]
pub(crate) struct Memo {
    pub(crate) fps: Vec<u64>,
    /// The root pair (and its hash) of each slot's state, if complete.
    pub(crate) pairs: Vec<Option<(u64, u64)>>,
    /// `MEMO` states' words, one slot after another.
    pub(crate) words: Vec<u32>,
    pub(crate) width: usize,
}

impl Memo {
    /// A memo for states of `width` words (allocated at the first
    /// `prefetch`: a store only inserted into has none).
    pub(crate) fn new(width: usize) -> Memo {
        let slots = if width == 0 { 0 } else { MEMO };
        Memo {
            // No fingerprint matches a slot not filled yet: 0 is taken by
            // slot 0 only if written (`pairs` is `None` until then).
            fps: vec![0; slots],
            pairs: vec![None; slots],
            words: vec![0; slots * width],
            width,
        }
    }

    pub(crate) fn slot(fp: u64) -> usize {
        fp as usize % MEMO
    }

    pub(crate) fn words(&self, slot: usize) -> &[u32] {
        &self.words[slot * self.width..][..self.width]
    }

    /// The root pair and hash remembered for `words` (fingerprint `fp`).
    pub(crate) fn get(&self, fp: u64, words: &[u32]) -> Option<(u64, u64)> {
        if self.fps.is_empty() {
            return None;
        }
        let slot = Memo::slot(fp);
        (self.fps[slot] == fp)
            .then_some(self.pairs[slot])
            .flatten()
            .filter(|_| self.words(slot) == words)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.fps.len() * 8 + self.pairs.len() * 24 + self.words.len() * 4
    }
}
