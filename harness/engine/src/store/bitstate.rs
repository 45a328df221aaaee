//! Bitstate hashing (`--store bitstate[:LOG2M[,K]]`): a probabilistic
//! visited set of `2^LOG2M` bits, a state setting `K` of them (Holzmann's
//! supertrace; SPIN's `-DBITSTATE`, `-w`, `-k`). A state whose `K` bits
//! are all set already counts as visited, so a search may omit states.
//!
//! **Estimate.** A state new to the search when `s` bits are set is taken
//! for a visited one with probability about `p = (s / 2^LOG2M)^K`; for each
//! state it stores, the store adds the new states expected to have been
//! taken before one got through, `p / (1 - p)`
//! ([`BitstateStore::expected_omissions`]).
//!
//! **Ids.** A bit array cannot tell which state a set of bits belongs to:
//! a state taken for a visited one gets no id ([`NO_ID`]), so the search's
//! back-level edges are not counted (the record leaves them out). States
//! are kept only until expanded, as in hash compaction.

use std::cell::RefCell;

use crate::store::compact::Window;
use crate::store::{prefetch_line, Insert, Store};

/// The id of a state seen before (unknown to a bit array).
pub const NO_ID: u32 = u32::MAX;

/// A bitstate store (see the module documentation).
#[derive(Debug)]
pub struct BitstateStore {
    state_len: usize,
    log2m: u32,
    k: u32,
    words: Vec<u64>,
    /// Bits set.
    set: u64,
    len: usize,
    omissions: f64,
    window: RefCell<Window>,
}

/// A 64-bit mixer (splitmix64's finaliser): two independent-looking
/// hashes of one fingerprint.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl BitstateStore {
    /// `2^log2m` bits (6 to 40), `k` (1 to 16) bits per state.
    pub fn new(state_len: usize, log2m: u32, k: u32) -> BitstateStore {
        assert!((6..=40).contains(&log2m) && (1..=16).contains(&k));
        BitstateStore {
            state_len,
            log2m,
            k,
            words: vec![0; 1 << (log2m - 6)],
            set: 0,
            len: 0,
            omissions: 0.0,
            window: RefCell::new(Window::default()),
        }
    }

    /// New states expected to have been taken for visited ones.
    pub fn expected_omissions(&self) -> f64 {
        self.omissions
    }

    /// Bit `i` of the state with fingerprint `fp` (double hashing:
    /// `h1 + i h2`, Kirsch and Mitzenmacher).
    #[inline]
    fn bit(&self, fp: u64, i: u32) -> u64 {
        let h1 = mix(fp);
        let h2 = mix(fp ^ 0x9E37_79B9_7F4A_7C15) | 1;
        h1.wrapping_add((i as u64).wrapping_mul(h2)) & ((1u64 << self.log2m) - 1)
    }

    #[inline]
    fn test(&self, b: u64) -> bool {
        self.words[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }

    fn all_set(&self, fp: u64) -> bool {
        (0..self.k).all(|i| self.test(self.bit(fp, i)))
    }
}

impl Store for BitstateStore {
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
        self.all_set(fp).then_some(NO_ID)
    }

    fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        debug_assert_eq!(state.len(), self.state_len);
        if self.all_set(fp) {
            return Insert::Seen(NO_ID);
        }
        // The chance that this state, new, had been taken for a visited
        // one: its K bits all set already.
        let p = (self.set as f64 / (1u64 << self.log2m) as f64).powi(self.k as i32);
        self.omissions += p / (1.0 - p);
        for i in 0..self.k {
            let b = self.bit(fp, i);
            let w = &mut self.words[(b >> 6) as usize];
            let m = 1 << (b & 63);
            if *w & m == 0 {
                *w |= m;
                self.set += 1;
            }
        }
        let id = self.len as u32;
        assert!(id < NO_ID, "more states than ids");
        self.len += 1;
        self.window.get_mut().push(state);
        Insert::New(id)
    }

    fn bytes_used(&self) -> usize {
        self.words.len() * 8 + self.window.borrow().bytes()
    }

    fn next_growth_bytes(&self) -> usize {
        self.window.borrow().growth_bytes(self.state_len)
    }

    fn expanding(&self, id: u32) {
        self.window.borrow_mut().expanding(id, self.state_len);
    }

    fn prefetch(&self, _state: &[u8], fp: u64) {
        let b = self.bit(fp, 0);
        prefetch_line(&self.words[(b >> 6) as usize]);
    }

    fn expected_omissions(&self) -> Option<f64> {
        Some(self.omissions)
    }

    fn gives_ids(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_sets_k_bits_and_is_seen_after() {
        let mut b = BitstateStore::new(1, 20, 3);
        assert_eq!(b.insert(&[7], 42), Insert::New(0));
        assert_eq!(b.set, 3);
        assert_eq!(b.insert(&[7], 42), Insert::Seen(NO_ID));
        assert_eq!(b.insert(&[8], 43), Insert::New(1));
        assert!(b.expected_omissions() > 0.0 && b.expected_omissions() < 1e-15);
    }
}
