//! Hash compaction (`--store compact[:BITS]`): a probabilistic visited set
//! that keeps, for each state, only a fingerprint of `BITS` bits (64 by
//! default) and its id: two states with the same fingerprint count as one,
//! so a search may omit states (Wolper and Leroy, *Reliable Hashing without
//! Collision Detection*, CAV 1993; SPIN's `-DHC`).
//!
//! **Estimate.** A new state is taken for a stored one with probability
//! about `p = i / 2^BITS` when `i` are stored; for each state it stores, the
//! store adds the new states expected to have been taken before one got
//! through, `p / (1 - p)`: about `n (n - 1) / 2^(BITS + 1)` for `n` stored
//! while `p` is small ([`CompactStore::expected_omissions`], reported with
//! every run, whose result then is `probabilistic`).
//!
//! **States.** Only the states a breadth-first search has still to expand
//! are kept whole (ids from the oldest one not yet expanded on, told by
//! [`Store::expanding`]): so the store serves BFS, not DFS (its stack
//! goes back to old ids), nor counterexamples.

use std::cell::RefCell;

use crate::store::{prefetch_line, Insert, Store};

/// Initial table size (slots).
const MIN_TABLE: usize = 1 << 10;
/// Expanded states are dropped from the window once they are at least
/// this many and half of it.
const DROP_AT: usize = 4096;

/// The states not yet expanded: those of ids `lo..` (a probabilistic
/// store keeps no others).
#[derive(Debug, Default)]
pub(crate) struct Window {
    lo: usize,
    bytes: Vec<u8>,
}

impl Window {
    /// Copies state `id` into `scratch`.
    pub(crate) fn state<'a>(&self, id: u32, n: usize, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        let id = id as usize;
        assert!(
            id >= self.lo,
            "a probabilistic store keeps only the states still to expand (state {id} is gone)"
        );
        let at = (id - self.lo) * n;
        scratch.clear();
        scratch.extend_from_slice(&self.bytes[at..at + n]);
        scratch
    }

    pub(crate) fn push(&mut self, state: &[u8]) {
        self.bytes.extend_from_slice(state);
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes.capacity()
    }

    /// What the next push may allocate.
    pub(crate) fn growth_bytes(&self, n: usize) -> usize {
        if self.bytes.len() + n > self.bytes.capacity() {
            self.bytes.capacity().max(n * 8)
        } else {
            0
        }
    }

    /// Drops the states before `id` (BFS expands in id order) once they
    /// are many.
    pub(crate) fn expanding(&mut self, id: u32, n: usize) {
        let dead = (id as usize).saturating_sub(self.lo);
        let kept = self.bytes.len() / n.max(1);
        if dead >= DROP_AT && dead * 2 >= kept {
            self.bytes.drain(..dead * n);
            let keep = self.bytes.len() * 2;
            self.bytes.shrink_to(keep);
            self.lo += dead;
        }
    }
}

/// A hash-compaction store (see the module documentation).
#[derive(Debug)]
pub struct CompactStore {
    state_len: usize,
    bits: u32,
    /// Slots: a fingerprint's kept bits and, beside, its id + 1 (0:
    /// empty).
    fps: Vec<u64>,
    ids: Vec<u32>,
    table_bits: u32,
    len: usize,
    omissions: f64,
    window: RefCell<Window>,
}

impl CompactStore {
    /// A store keeping `bits` (1 to 64) bits of each fingerprint.
    pub fn new(state_len: usize, bits: u32) -> CompactStore {
        assert!((1..=64).contains(&bits), "fingerprint bits: 1 to 64");
        CompactStore {
            state_len,
            bits,
            fps: vec![0; MIN_TABLE],
            ids: vec![0; MIN_TABLE],
            table_bits: MIN_TABLE.trailing_zeros(),
            len: 0,
            omissions: 0.0,
            window: RefCell::new(Window::default()),
        }
    }

    /// New states expected to have been taken for stored ones.
    pub fn expected_omissions(&self) -> f64 {
        self.omissions
    }

    /// The kept bits of `fp`: its top `bits` (those the model's
    /// fingerprint mixes best, as the exact store's tag).
    #[inline]
    fn key(&self, fp: u64) -> u64 {
        fp >> (64 - self.bits)
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.table_bits)) as usize
    }

    /// The slot of `key`: its id, or the empty slot where it would go.
    #[inline]
    fn probe(&self, key: u64) -> Result<u32, usize> {
        let mask = self.fps.len() - 1;
        let mut slot = self.home(key);
        loop {
            match self.ids[slot] {
                0 => return Err(slot),
                id if self.fps[slot] == key => return Ok(id - 1),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    fn needs_growth(&self) -> bool {
        (self.len + 1) * 4 > self.fps.len() * 3
    }

    fn grow(&mut self) {
        let cap = self.fps.len() * 2;
        let fps = std::mem::replace(&mut self.fps, vec![0; cap]);
        let ids = std::mem::replace(&mut self.ids, vec![0; cap]);
        self.table_bits = cap.trailing_zeros();
        let mask = cap - 1;
        for (key, id) in fps.into_iter().zip(ids) {
            if id != 0 {
                let mut slot = self.home(key);
                while self.ids[slot] != 0 {
                    slot = (slot + 1) & mask;
                }
                self.fps[slot] = key;
                self.ids[slot] = id;
            }
        }
    }
}

impl Store for CompactStore {
    fn state_len(&self) -> usize {
        self.state_len
    }

    fn len(&self) -> usize {
        self.len
    }

    fn state<'a>(&'a self, id: u32, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        self.window.borrow().state(id, self.state_len, scratch)
    }

    fn find(&self, _state: &[u8], fp: u64) -> Option<u32> {
        self.probe(self.key(fp)).ok()
    }

    fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        debug_assert_eq!(state.len(), self.state_len);
        let key = self.key(fp);
        let slot = match self.probe(key) {
            Ok(id) => return Insert::Seen(id),
            Err(slot) => slot,
        };
        let slot = if self.needs_growth() {
            self.grow();
            self.probe(key).expect_err("a new key")
        } else {
            slot
        };
        let p = self.len as f64 / 2f64.powi(self.bits as i32);
        self.omissions += p / (1.0 - p).max(f64::MIN_POSITIVE);
        let id = self.len as u32;
        self.fps[slot] = key;
        self.ids[slot] = id + 1;
        self.len += 1;
        self.window.get_mut().push(state);
        Insert::New(id)
    }

    fn bytes_used(&self) -> usize {
        self.fps.len() * 12 + self.window.borrow().bytes()
    }

    fn next_growth_bytes(&self) -> usize {
        let mut b = self.window.borrow().growth_bytes(self.state_len);
        if self.needs_growth() {
            b += self.fps.len() * 2 * 12;
        }
        b
    }

    fn expanding(&self, id: u32) {
        self.window.borrow_mut().expanding(id, self.state_len);
    }

    fn prefetch(&self, _state: &[u8], fp: u64) {
        let slot = self.home(self.key(fp));
        prefetch_line(&self.ids[slot]);
        prefetch_line(&self.fps[slot]);
    }

    fn expected_omissions(&self) -> Option<f64> {
        Some(CompactStore::expected_omissions(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_novelty_as_an_exact_store_when_fingerprints_differ() {
        let mut c = CompactStore::new(2, 64);
        let mut scratch = Vec::new();
        for i in 0..10_000u64 {
            let fp = i.wrapping_mul(0xD6E8_FEB8_6659_FD93);
            assert_eq!(c.insert(&(i as u16).to_le_bytes(), fp), Insert::New(i as u32));
            assert_eq!(c.insert(&(i as u16).to_le_bytes(), fp), Insert::Seen(i as u32));
        }
        assert_eq!(c.len(), 10_000);
        // Expanded in id order, the window drops what is behind.
        for id in 0..10_000u32 {
            c.expanding(id);
            assert_eq!(c.state(id, &mut scratch), (id as u16).to_le_bytes());
        }
        assert!(c.window.borrow().lo > 0, "expanded states were dropped");
    }

    #[test]
    fn equal_fingerprints_are_one_state() {
        let mut c = CompactStore::new(1, 8);
        // Top 8 bits equal: one state.
        assert_eq!(c.insert(&[1], 0xAB00_0000_0000_0001), Insert::New(0));
        assert_eq!(c.insert(&[2], 0xAB00_0000_0000_0002), Insert::Seen(0));
        assert_eq!(c.insert(&[3], 0xAC00_0000_0000_0002), Insert::New(1));
        // The second stored state came when 1 of 2^8 fingerprints was taken.
        assert!((c.expected_omissions() - 1.0 / 255.0).abs() < 1e-12);
    }
}
