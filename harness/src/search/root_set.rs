//! [`RootSet`]: a compact hash set of tree roots (pairs of child indices),
//! the root table of the tree store without its index (Laarman, *Optimal
//! compression of combinatorial state spaces*, 2019, stores roots in a
//! Cleary table for about 4 bytes per state).
//!
//! **Quotienting.** A key of `W` bits (the pair `left << wr | right`, its
//! two parts as wide as their tables need) is first permuted by a
//! bijection of the `W`-bit numbers (odd multiplications and xor-shifts,
//! so that consecutive pairs spread); the top `b` bits of the result pick
//! one of `2^b` buckets, and only the other `R = W - b` bits are stored:
//! the bucket says the rest. A bucket holds [`SLOTS`] slots; a key whose
//! home bucket is full goes to the next bucket with room (linear probing
//! over buckets, at most [`MAX_DISP`] away), and its slot records how far
//! it went, so that its home, and with it the whole key, can be recovered.
//! A slot is `R + 4` bits: 0 when empty, else `1 + (displacement << R |
//! remainder)`. With no deletions, a lookup scans from the home bucket to
//! the first bucket that has an empty slot. A key whose `MAX_DISP + 1`
//! buckets are all full goes, whole, to a small overflow set (measured
//! with random keys at 90 % load: 0.36 % of them; with 3 bits of
//! displacement 1.2 %, with 5 bits 0.07 %: 4 bits cost least in all).
//!
//! **Growth.** At a load of 9/10 the buckets double; when a part of a key
//! needs more bits than the set gives it, the parts widen. Either way
//! every key is recovered (the permutation inverted) and put in a new
//! table.
//! Exact: two keys are equal exactly when their stored bits and buckets
//! are, so no key is ever taken for another.
//!
//! With `b` near `log2(n)`, a key costs `W - log2(n) + 4` bits at a load of
//! 45 to 90 %: for 6.5 million pairs of 35 bits, 16 bits, about 2.5 to 4.5
//! bytes, against the 4-5 bytes of a packed root pair plus 5-7.5 bytes of
//! its index in [`super::tree_store::TreeStore`]'s root table. The price:
//! a key is not a dense number, so a search keeps the pairs themselves in
//! its queue (`search::tree_bfs`).

/// Slots per bucket.
pub const SLOTS: usize = 8;
/// Bits of a slot that say how far its key is from its home bucket.
const DISP_BITS: u32 = 4;
/// Furthest a key goes from its home bucket.
pub const MAX_DISP: u64 = (1 << DISP_BITS) - 2;
/// Most keys per slot before the buckets double.
const MAX_LOAD: (usize, usize) = (9, 10);
/// Bytes read past the last slot (a slot is read as one `u128`).
const SLACK: usize = 16;

#[inline]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Bits of `v` (0 for 0).
#[inline]
fn width(v: u64) -> u32 {
    64 - v.leading_zeros()
}

const M1: u64 = 0xBF58_476D_1CE4_E5B9;
const M2: u64 = 0x94D0_49BB_1331_11EB;

/// The inverse of odd `a` modulo 2^64 (Newton's iteration).
const fn inverse(a: u64) -> u64 {
    let mut x = a;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
        i += 1;
    }
    x
}

const M1_INV: u64 = inverse(M1);
const M2_INV: u64 = inverse(M2);

/// The shift of the xor-shifts for `w`-bit numbers.
#[inline]
fn shift(w: u32) -> u32 {
    w.div_ceil(2).max(1)
}

/// A bijection of the `w`-bit numbers that spreads them.
#[inline]
fn permute(x: u64, w: u32) -> u64 {
    let (m, s) = (mask(w), shift(w));
    let mut x = x.wrapping_mul(M1) & m;
    x ^= x >> s;
    x = x.wrapping_mul(M2) & m;
    x ^ (x >> s)
}

/// Undoes `x ^= x >> s` on `w`-bit numbers.
#[inline]
fn unshift(y: u64, s: u32, w: u32) -> u64 {
    let mut x = y;
    let mut done = s;
    while done < w {
        x = y ^ (x >> s);
        done += s;
    }
    x
}

/// The inverse of [`permute`].
fn unpermute(y: u64, w: u32) -> u64 {
    let (m, s) = (mask(w), shift(w));
    let x = unshift(y, s, w);
    let x = x.wrapping_mul(M2_INV) & m;
    let x = unshift(x, s, w);
    x.wrapping_mul(M1_INV) & m
}

/// The compact set of pairs (see the module comment).
#[derive(Debug)]
pub struct RootSet {
    /// Bits of the left and right parts of a key.
    wl: u32,
    wr: u32,
    /// Bits of a key (`wl + wr`, or more so that `R >= 1`).
    w: u32,
    /// log2 of the number of buckets.
    b: u32,
    /// Stored bits of a key (`w - b`) and of a slot (`r + 4`).
    r: u32,
    sb: u32,
    len: usize,
    bytes: Vec<u8>,
    /// Keys (`left << 32 | right`) whose buckets were full.
    overflow: std::collections::HashSet<u64>,
}

impl Default for RootSet {
    fn default() -> Self {
        RootSet::new()
    }
}

impl RootSet {
    pub fn new() -> RootSet {
        RootSet::with(1, 1, 4)
    }

    fn with(wl: u32, wr: u32, b: u32) -> RootSet {
        let w = (wl + wr).max(b + 1);
        let r = w - b;
        let sb = r + DISP_BITS;
        let bits = (1usize << b) * SLOTS * sb as usize;
        let bytes = vec![0; bits.div_ceil(8) + SLACK];
        // Every lookup lands on a random bucket: with 4 KiB pages, a TLB
        // miss each (and a prefetch that may be dropped for it).
        super::store::advise_huge_pages(&bytes);
        RootSet {
            wl,
            wr,
            w,
            b,
            r,
            sb,
            len: 0,
            bytes,
            overflow: Default::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes allocated.
    pub fn bytes_used(&self) -> usize {
        // A hash set's entry and its control byte.
        self.bytes.len() + self.overflow.capacity() * 9
    }

    /// Bytes the next insertion may allocate: a table twice as large,
    /// its slots a few bits wider, built beside the one in use.
    pub fn next_growth_bytes(&self) -> usize {
        2 * self.bytes.len() + self.bytes.len() / 4 + self.overflow.capacity() * 9
    }

    #[inline]
    fn slot(&self, i: usize) -> u64 {
        let bit = i * self.sb as usize;
        let at = bit / 8;
        let x = u128::from_le_bytes(self.bytes[at..at + 16].try_into().expect("16 bytes"));
        (x >> (bit % 8)) as u64 & mask(self.sb)
    }

    #[inline]
    fn set_slot(&mut self, i: usize, v: u64) {
        let bit = i * self.sb as usize;
        let (at, sh) = (bit / 8, bit % 8);
        let m = (mask(self.sb) as u128) << sh;
        let w = &mut self.bytes[at..at + 16];
        let x = u128::from_le_bytes((&*w).try_into().expect("16 bytes"));
        w.copy_from_slice(&((x & !m) | ((v as u128) << sh)).to_le_bytes());
    }

    /// Whether the key is in the table, or the empty slot (and its
    /// displacement) where it would go; `Err(None)` if the buckets it may
    /// go to are full (it is then in the overflow set, if anywhere).
    #[inline]
    fn probe(&self, home: usize, rem: u64) -> Result<(), Option<(usize, u64)>> {
        let nb = 1usize << self.b;
        for d in 0..=MAX_DISP {
            let bucket = (home + d as usize) & (nb - 1);
            let want = 1 + (d << self.r | rem);
            for j in 0..SLOTS {
                let i = bucket * SLOTS + j;
                match self.slot(i) {
                    0 => return Err(Some((i, d))),
                    v if v == want => return Ok(()),
                    _ => {}
                }
            }
        }
        Err(None)
    }

    #[inline]
    fn split(&self, key: u64) -> (usize, u64) {
        let x = permute(key, self.w);
        ((x >> self.r) as usize, x & mask(self.r))
    }

    /// Starts loading the home bucket of the pair `(left, right)`, which
    /// a lookup reads first.
    #[inline]
    pub fn prefetch(&self, left: u32, right: u32) {
        if width(left as u64) <= self.wl && width(right as u64) <= self.wr {
            let (home, _) = self.split((left as u64) << self.wr | right as u64);
            super::store::prefetch_line(&self.bytes[home * SLOTS * self.sb as usize / 8]);
        }
    }

    /// Whether the pair `(left, right)` is in the set.
    pub fn contains(&self, left: u32, right: u32) -> bool {
        if width(left as u64) > self.wl || width(right as u64) > self.wr {
            return false;
        }
        let (home, rem) = self.split((left as u64) << self.wr | right as u64);
        match self.probe(home, rem) {
            Ok(()) => true,
            Err(Some(_)) => false,
            Err(None) => self.overflow.contains(&((left as u64) << 32 | right as u64)),
        }
    }

    /// Adds the pair `(left, right)`; whether it was new.
    pub fn insert(&mut self, left: u32, right: u32) -> bool {
        let (nl, nr) = (width(left as u64), width(right as u64));
        let (mut wl, mut wr, mut b) = (self.wl, self.wr, self.b);
        if nl > wl || nr > wr {
            // One bit more than needed, so that widening is as rare as
            // the tables' doublings.
            (wl, wr) = (wl.max((nl + 1).min(32)), wr.max((nr + 1).min(32)));
        }
        if (self.len + 1) * MAX_LOAD.1 > (SLOTS << b) * MAX_LOAD.0 {
            b += 1;
        }
        if (wl, wr, b) != (self.wl, self.wr, self.b) {
            // Widened and doubled at once if need be: one new table.
            self.rebuild(wl, wr, b);
        }
        let (home, rem) = self.split((left as u64) << self.wr | right as u64);
        match self.probe(home, rem) {
            Ok(()) => false,
            Err(Some((i, d))) => {
                self.set_slot(i, 1 + (d << self.r | rem));
                self.len += 1;
                true
            }
            Err(None) => {
                let new = self.overflow.insert((left as u64) << 32 | right as u64);
                self.len += usize::from(new);
                new
            }
        }
    }

    /// Every pair in the set, in no particular order.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let nb = 1usize << self.b;
        let over = self.overflow.iter().map(|&k| ((k >> 32) as u32, k as u32));
        (0..nb * SLOTS)
            .filter_map(move |i| {
                let v = self.slot(i);
                (v != 0).then(|| {
                    let v = v - 1;
                    let (d, rem) = (v >> self.r, v & mask(self.r));
                    let home = ((i / SLOTS) + nb - d as usize) & (nb - 1);
                    let key = unpermute((home as u64) << self.r | rem, self.w);
                    ((key >> self.wr) as u32, (key & mask(self.wr)) as u32)
                })
            })
            .chain(over)
    }

    /// Puts every pair into a set of `2^b` buckets with parts of `wl` and
    /// `wr` bits.
    fn rebuild(&mut self, wl: u32, wr: u32, b: u32) {
        let mut to = RootSet::with(wl, wr, b);
        for (l, r) in self.pairs() {
            let (home, rem) = to.split((l as u64) << to.wr | r as u64);
            match to.probe(home, rem) {
                Err(Some((i, d))) => to.set_slot(i, 1 + (d << to.r | rem)),
                Ok(()) => unreachable!("a pair twice in a set"),
                Err(None) => {
                    to.overflow.insert((l as u64) << 32 | r as u64);
                }
            }
        }
        to.len = self.len;
        *self = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_is_a_bijection_that_can_be_undone() {
        for w in [2u32, 3, 7, 16, 31, 35, 48, 63, 64] {
            let mut rng = crate::rng::Rng::seeded(w as u64);
            for _ in 0..2000 {
                let x = rng.next_u64() & mask(w);
                let y = permute(x, w);
                assert!(y <= mask(w), "w = {w}");
                assert_eq!(unpermute(y, w), x, "w = {w}");
            }
        }
        // All of a small space, each image once.
        let mut seen = vec![false; 1 << 10];
        for x in 0..1u64 << 10 {
            let y = permute(x, 10) as usize;
            assert!(!seen[y]);
            seen[y] = true;
        }
    }

    #[test]
    fn agrees_with_a_hash_set_through_growth_and_widening() {
        let mut rng = crate::rng::Rng::seeded(3);
        let mut set = RootSet::new();
        let mut truth = std::collections::HashSet::new();
        for i in 0..200_000usize {
            // Parts that widen as the run goes on, with many repeats.
            let bound = 2 + i / 8;
            let (l, r) = (rng.below(bound) as u32, rng.below(bound / 3 + 2) as u32);
            assert_eq!(set.insert(l, r), truth.insert((l, r)), "{i}: ({l}, {r})");
            assert_eq!(set.len(), truth.len());
        }
        for &(l, r) in truth.iter().take(5000) {
            assert!(set.contains(l, r));
        }
        assert!(!set.contains(u32::MAX, 0));
        let mut all: Vec<(u32, u32)> = set.pairs().collect();
        all.sort_unstable();
        let mut want: Vec<(u32, u32)> = truth.into_iter().collect();
        want.sort_unstable();
        assert_eq!(all, want);
    }

    #[test]
    fn extreme_pairs_are_kept() {
        let mut set = RootSet::new();
        let pairs = [(0, 0), (u32::MAX, u32::MAX), (0, u32::MAX), (u32::MAX, 0), (1, 1)];
        for &(l, r) in &pairs {
            assert!(set.insert(l, r));
        }
        for &(l, r) in &pairs {
            assert!(!set.insert(l, r));
            assert!(set.contains(l, r));
        }
        assert_eq!(set.len(), pairs.len());
    }

    #[test]
    fn a_pair_costs_a_few_bytes() {
        // 1.8 million distinct pairs of 14 + 14 bits (parts given 15 bits
        // each): 30-bit keys in 2^18 buckets of 8 (86 % full), 16 bits a
        // slot, about 2.3 bytes a pair (a packed pair alone takes 3.5).
        let mut set = RootSet::new();
        let mut rng = crate::rng::Rng::seeded(5);
        while set.len() < 1_800_000 {
            set.insert(rng.below(1 << 14) as u32, rng.below(1 << 14) as u32);
        }
        let per = set.bytes_used() as f64 / set.len() as f64;
        assert!(per < 2.5, "{per} bytes per pair");
        assert!(
            set.overflow.len() < set.len() / 100,
            "{} overflow",
            set.overflow.len()
        );
    }
}
