//! [`RecentStates`]: the last states a tree-compressed search found or
//! stored, kept whole in a small direct-mapped table, so that a successor
//! that is one of them is known to be stored without a lookup in the
//! tree's tables.
//!
//! Why: with the tree store a successor costs a lookup per node its
//! transition changed (log2 of the state's words for a word), and the
//! lookups in the large tables miss the cache; most successors are states already stored, and many of them
//! were met a moment before: the diamonds of interleaving (`s -> a -> ab`
//! and `s -> b -> ba` with `ab = ba`, a and b expanded one after the other
//! in a breadth-first level), moves undone: with a few thousand slots,
//! close to half the successors of the bench-spin instances are found here.
//!
//! Exact: an entry is a state's bytes, compared whole, and only states the
//! search has stored go in, so a state found here is stored, whatever
//! the table holds or forgets (an entry is overwritten by the next state
//! of its slot). The table grows with the search, to at most [`MAX_BYTES`]
//! (it should stay in the core's level-2 cache), and its bytes are the
//! store's. The exact store does not use it: its one lookup a successor
//! already overlaps its misses across a batch.

/// The most bytes the table takes.
pub const MAX_BYTES: usize = 1 << 20;
/// A slot's bytes before its state: fingerprint and value.
const HEAD: usize = 12;
/// Fewest slots.
const MIN_SLOTS: usize = 64;
/// Stored states per slot before the table doubles (so that it costs at
/// most `(HEAD + state length) / 256` bytes per state).
const STATES_PER_SLOT: usize = 256;

/// States whole, each in the slot its fingerprint picks (see the module
/// documentation).
#[derive(Debug)]
pub struct RecentStates {
    state_len: usize,
    /// Bytes per slot: the fingerprint (0: empty), a value the store
    /// keeps with the state (its id), then the state.
    stride: usize,
    mask: usize,
    slots: Vec<u8>,
}

impl RecentStates {
    pub fn new(state_len: usize) -> RecentStates {
        RecentStates::with_slots(state_len, MIN_SLOTS)
    }

    fn with_slots(state_len: usize, slots: usize) -> RecentStates {
        let stride = HEAD + state_len;
        RecentStates {
            state_len,
            stride,
            mask: slots - 1,
            slots: vec![0; slots * stride],
        }
    }

    /// Where the slot of fingerprint `fp` starts.
    #[inline]
    fn at(&self, fp: u64) -> usize {
        (fp as usize & self.mask) * self.stride
    }

    /// The value kept with `state` (fingerprint `fp`) if it is in the
    /// table. A fingerprint of 0 (no model gives it; a caller may have
    /// none) is never found: an empty slot holds it.
    #[inline]
    pub fn get(&self, fp: u64, state: &[u8]) -> Option<u32> {
        if fp == 0 {
            return None;
        }
        let (head, stored) = self.slots[self.at(fp)..][..self.stride].split_at(HEAD);
        (u64::from_le_bytes(head[..8].try_into().expect("8 bytes")) == fp && stored == state)
            .then(|| u32::from_le_bytes(head[8..].try_into().expect("4 bytes")))
    }

    /// Starts loading the slot of fingerprint `fp` (its head, where a
    /// lookup starts).
    #[inline]
    pub fn prefetch(&self, fp: u64) {
        crate::store::prefetch_line(&self.slots[self.at(fp)]);
    }

    /// Puts `state` (fingerprint `fp`), a stored state, in its slot with
    /// `value` (nothing if `fp` is 0).
    #[inline]
    pub fn put(&mut self, fp: u64, state: &[u8], value: u32) {
        debug_assert_eq!(state.len(), self.state_len);
        if fp == 0 {
            return;
        }
        let at = self.at(fp);
        let slot = &mut self.slots[at..][..self.stride];
        slot[..8].copy_from_slice(&fp.to_le_bytes());
        slot[8..HEAD].copy_from_slice(&value.to_le_bytes());
        slot[HEAD..].copy_from_slice(state);
    }

    /// Doubles the table (emptied: it is exact whatever it holds) while it
    /// has fewer than one slot per [`STATES_PER_SLOT`] of the `stored`
    /// states and stays within [`MAX_BYTES`].
    pub fn fit(&mut self, stored: usize) {
        let mut slots = self.mask + 1;
        while slots.saturating_mul(STATES_PER_SLOT) < stored && 2 * slots * self.stride <= MAX_BYTES {
            slots *= 2;
        }
        if slots != self.mask + 1 {
            *self = RecentStates::with_slots(self.state_len, slots);
        }
    }

    /// Bytes the next `fit` allocates at most.
    pub fn growth_bytes(&self) -> usize {
        let doubled = 2 * self.bytes();
        if doubled <= MAX_BYTES {
            doubled
        } else {
            0
        }
    }

    pub fn bytes(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_put_and_nothing_else() {
        let mut r = RecentStates::new(5);
        assert_eq!(r.get(7, &[1, 2, 3, 4, 5]), None);
        r.put(7, &[1, 2, 3, 4, 5], 41);
        assert_eq!(r.get(7, &[1, 2, 3, 4, 5]), Some(41));
        // Same fingerprint, other bytes: compared whole.
        assert_eq!(r.get(7, &[1, 2, 3, 4, 6]), None);
        // Same slot, other fingerprint.
        assert_eq!(r.get(7 + 64, &[1, 2, 3, 4, 5]), None);
        // Overwritten by the next state of its slot.
        r.put(7 + 64, &[9, 9, 9, 9, 9], 3);
        assert_eq!(r.get(7, &[1, 2, 3, 4, 5]), None);
        assert_eq!(r.get(7 + 64, &[9, 9, 9, 9, 9]), Some(3));
    }

    #[test]
    fn grows_with_the_states_and_stays_within_its_bytes() {
        let mut r = RecentStates::new(40);
        let first = r.bytes();
        assert_eq!(first, 64 * (HEAD + 40));
        r.fit(64 * STATES_PER_SLOT);
        assert_eq!(r.bytes(), first);
        r.fit(64 * STATES_PER_SLOT + 1);
        assert_eq!(r.bytes(), 2 * first);
        r.fit(usize::MAX);
        assert!(
            r.bytes() <= MAX_BYTES && 2 * r.bytes() > MAX_BYTES,
            "{}",
            r.bytes()
        );
        assert_eq!(r.growth_bytes(), 0);
        // A state longer than the largest table: one slot, never more.
        let mut long = RecentStates::with_slots(1 << 20, 1);
        long.fit(usize::MAX);
        assert_eq!(long.mask, 0);
    }
}
