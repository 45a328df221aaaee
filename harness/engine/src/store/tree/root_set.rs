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
//! buckets are all full goes, whole, to a small overflow set (4 bits of
//! displacement cost least in all, overflow included: results/store/NOTES.md).
//!
//! **Growth.** At a load of 9/10 the buckets double; when a part of a key
//! needs more bits than the set gives it, the parts widen. A widening
//! changes the permutation, so every key is recovered (the permutation
//! inverted) and put in a new table, the old one held meanwhile. A
//! doubling moves no key far: a key's new home is its old home times two,
//! plus its remainder's top bit, and its slot loses that bit. So the table
//! doubles in place (`double_in_place`): the allocation grows (a
//! reallocation, which the C library does by remapping pages, without a
//! copy), the keys of the lowest [`LOW`] buckets are put aside, and the
//! other buckets are moved from the top down, each key to its new place,
//! which lies above every bucket not yet moved; then the keys put aside
//! and those of the overflow set are placed. A doubling then needs the
//! doubled table only, not the old one beside it (three times the old
//! table's size at the peak), so a search under a memory budget can grow
//! its set until the doubled table fills what the budget leaves.
//! Exact: two keys are equal exactly when their stored bits and buckets
//! are, so no key is ever taken for another.
//!
//! With `b` near `log2(n)`, a key costs `W - log2(n) + 4` bits at a load of
//! 45 to 90 %: for 6.5 million pairs of 35 bits, 16 bits, about 2.5 to 4.5
//! bytes, against the 4-5 bytes of a packed root pair plus 5-7.5 bytes of
//! its index in [`crate::store::tree::TreeStore`]'s root table. The price:
//! a key is not a dense number, so a search keeps the pairs themselves in
//! its queue (`engine::loops::tree_bfs`).

use crate::store::low_bits;

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
/// Buckets whose keys a doubling in place puts aside first. A key of
/// bucket `h` has its home at `h - MAX_DISP` at least and its new place
/// at bucket `2 (h - MAX_DISP)` at least, whose slots are one bit
/// narrower: with slots of 6 bits or more that lies above all of bucket
/// `h` once `h >= 35`, so moving the buckets from the top down never
/// writes over (or probes into) a bucket not yet moved, and the moves
/// that wrap around land in the lowest buckets, which were emptied.
const LOW: usize = 64;
/// Fewest buckets for a doubling in place (below, a copy costs little).
const IN_PLACE_MIN: usize = 4 * LOW;

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
    let (m, s) = (low_bits(w), shift(w));
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
    let (m, s) = (low_bits(w), shift(w));
    let x = unshift(y, s, w);
    let x = x.wrapping_mul(M2_INV) & m;
    let x = unshift(x, s, w);
    x.wrapping_mul(M1_INV) & m
}

/// Slot `i` of slots of `sb` bits packed in `bytes`.
#[inline]
fn read_slot(bytes: &[u8], i: usize, sb: u32) -> u64 {
    crate::store::read_bits(bytes, i * sb as usize, sb)
}

/// Sets slot `i` of slots of `sb` bits packed in `bytes` to `v`.
#[inline]
fn write_slot(bytes: &mut [u8], i: usize, sb: u32, v: u64) {
    let bit = i * sb as usize;
    let (at, sh) = (bit / 8, bit % 8);
    let m = (low_bits(sb) as u128) << sh;
    let w = &mut bytes[at..at + 16];
    let x = u128::from_le_bytes((&*w).try_into().expect("16 bytes"));
    w.copy_from_slice(&((x & !m) | ((v as u128) << sh)).to_le_bytes());
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
        let bytes = vec![0; Self::table_bytes(wl, wr, b)];
        // Every lookup lands on a random bucket: with 4 KiB pages, a TLB
        // miss each (and a prefetch that may be dropped for it).
        crate::store::advise_huge_pages(&bytes);
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

    /// Bytes of the slots of a table of `2^b` buckets for parts of `wl`
    /// and `wr` bits (as [`RootSet::with`] allocates them).
    fn table_bytes(wl: u32, wr: u32, b: u32) -> usize {
        let sb = (wl + wr).max(b + 1) - b + DISP_BITS;
        ((1usize << b) * SLOTS * sb as usize).div_ceil(8) + SLACK
    }

    /// Bytes that inserting up to `more` keys may allocate, when their
    /// left parts are below `bounds.0` and their right parts below
    /// `bounds.1`: the growth of a doubling in place, and if a part may
    /// need more bits, a whole widened table beside the one in use. A part
    /// with no bound (a word of the state) may always widen: by the least
    /// step, one bit past its width (a word that jumps further is not
    /// foreseen).
    pub fn next_growth_bytes(&self, more: usize, bounds: (Option<u64>, Option<u64>)) -> usize {
        let doubles = (self.len + more) * MAX_LOAD.1 > (SLOTS << self.b) * MAX_LOAD.0;
        let b = self.b + u32::from(doubles);
        let (wl, wr) = self.widths_within(bounds);
        let now = self.bytes.len();
        let doubled = if !doubles {
            0
        } else if self.in_place(b) {
            Self::table_bytes(self.wl, self.wr, b) - now
        } else {
            Self::table_bytes(self.wl, self.wr, b)
        };
        let widened = if (wl, wr) == (self.wl, self.wr) {
            0
        } else {
            Self::table_bytes(wl, wr, b)
        };
        // The overflow set is copied too, and may double. (A table below
        // the C library's threshold for mapping its own pages, 32 MiB at
        // most, may be copied by its reallocation: not counted.)
        doubled + widened + self.overflow.capacity() * 9 * 2
    }

    /// log2 of the number of buckets.
    pub(crate) fn buckets_log2(&self) -> u32 {
        self.b
    }

    /// Keys the buckets hold before they double.
    pub(crate) fn capacity(&self) -> usize {
        Self::keys_at(self.b)
    }

    /// Keys `2^b` buckets hold before they double.
    pub(crate) fn keys_at(b: u32) -> usize {
        (SLOTS << b) * MAX_LOAD.0 / MAX_LOAD.1
    }

    /// Bytes of an empty set of `2^b` buckets whose parts are as wide as
    /// this set's would be for parts below `bounds`, so that their next
    /// growth is no widening (see [`empty_for`](Self::empty_for)).
    pub(crate) fn bytes_for(&self, b: u32, bounds: (Option<u64>, Option<u64>)) -> usize {
        let (wl, wr) = self.widths_within(bounds);
        Self::table_bytes(wl, wr, b)
    }

    /// That empty set.
    pub(crate) fn empty_for(&self, b: u32, bounds: (Option<u64>, Option<u64>)) -> RootSet {
        let (wl, wr) = self.widths_within(bounds);
        RootSet::with(wl, wr, b)
    }

    /// The parts' widths once parts below `bounds` are in (see
    /// [`next_growth_bytes`](Self::next_growth_bytes)).
    fn widths_within(&self, bounds: (Option<u64>, Option<u64>)) -> (u32, u32) {
        let need = |bound: Option<u64>, w: u32| bound.map_or(w + 1, |n| width(n.saturating_sub(1)));
        self.widths_for(need(bounds.0, self.wl), need(bounds.1, self.wr))
    }

    /// The parts' widths once parts of `nl` and `nr` bits are in.
    fn widths_for(&self, nl: u32, nr: u32) -> (u32, u32) {
        if nl > self.wl || nr > self.wr {
            // One bit more than needed, so that widening is as rare as
            // the tables' doublings.
            (self.wl.max((nl + 1).min(32)), self.wr.max((nr + 1).min(32)))
        } else {
            (self.wl, self.wr)
        }
    }

    /// Whether the buckets can double to `2^b` in place: the key keeps
    /// its width (so its permutation), a slot keeps a bit of remainder
    /// (`w > b`: slots of 6 bits or more before, as [`LOW`] assumes) and
    /// the table is large enough.
    fn in_place(&self, b: u32) -> bool {
        b == self.b + 1 && self.w == self.wl + self.wr && self.w > b && (1usize << self.b) >= IN_PLACE_MIN
    }

    #[inline]
    fn slot(&self, i: usize) -> u64 {
        read_slot(&self.bytes, i, self.sb)
    }

    #[inline]
    fn set_slot(&mut self, i: usize, v: u64) {
        write_slot(&mut self.bytes, i, self.sb, v);
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
        ((x >> self.r) as usize, x & low_bits(self.r))
    }

    /// Starts loading the home bucket of the pair `(left, right)`, which
    /// a lookup reads first, and the cache line after it: a lookup scans
    /// on to the first bucket with an empty slot, at a high load often in
    /// the next line.
    #[inline]
    pub fn prefetch(&self, left: u32, right: u32) {
        if width(left as u64) <= self.wl && width(right as u64) <= self.wr {
            let (home, _) = self.split((left as u64) << self.wr | right as u64);
            self.prefetch_home(home);
        }
    }

    /// Starts loading bucket `home` and the cache line after it.
    #[inline]
    fn prefetch_home(&self, home: usize) {
        let at = home * SLOTS * self.sb as usize / 8;
        crate::store::prefetch_line(&self.bytes[at]);
        if let Some(next) = self.bytes.get(at + 64) {
            crate::store::prefetch_line(next);
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
        let (wl, wr) = self.widths_for(width(left as u64), width(right as u64));
        let mut b = self.b;
        if (self.len + 1) * MAX_LOAD.1 > (SLOTS << b) * MAX_LOAD.0 {
            b += 1;
        }
        if (wl, wr) == (self.wl, self.wr) && self.in_place(b) {
            self.double_in_place();
        } else if (wl, wr, b) != (self.wl, self.wr, self.b) {
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
                    let (d, rem) = (v >> self.r, v & low_bits(self.r));
                    let home = ((i / SLOTS) + nb - d as usize) & (nb - 1);
                    let key = unpermute((home as u64) << self.r | rem, self.w);
                    ((key >> self.wr) as u32, (key & low_bits(self.wr)) as u32)
                })
            })
            .chain(over)
    }

    /// Puts every pair into a set of `2^b` buckets with parts of `wl` and
    /// `wr` bits.
    ///
    /// Every key lands on a random bucket of the new table: each one's
    /// home is prefetched before it is placed, in the same order (so the
    /// table is the same), so that the misses overlap instead of each key
    /// waiting for its own.
    fn rebuild(&mut self, wl: u32, wr: u32, b: u32) {
        let mut to = RootSet::with(wl, wr, b);
        let mut ring = crate::store::PrefetchRing::new();
        for (l, r) in self.pairs() {
            let x = permute((l as u64) << to.wr | r as u64, to.w);
            to.prefetch_home((x >> to.r) as usize);
            if let Some(held) = ring.push(x) {
                to.place(held);
            }
        }
        for held in ring.rest() {
            to.place(held);
        }
        to.len = self.len;
        *self = to;
    }

    /// Puts the key whose permutation is `x`, not in the set, in its
    /// place: the first empty slot from its home, or the overflow set.
    fn place(&mut self, x: u64) {
        let (home, rem) = ((x >> self.r) as usize, x & low_bits(self.r));
        match self.probe(home, rem) {
            Err(Some((i, d))) => self.set_slot(i, 1 + (d << self.r | rem)),
            Ok(()) => unreachable!("a pair twice in a set"),
            Err(None) => {
                let key = unpermute(x, self.w);
                self.overflow
                    .insert((key >> self.wr) << 32 | (key & low_bits(self.wr)));
            }
        }
    }

    /// Doubles the buckets without a second table (see the module
    /// comment).
    fn double_in_place(&mut self) {
        let (nb, r, sb) = (1usize << self.b, self.r, self.sb);
        // Empties bucket `h` (old geometry): its keys, permuted, and how
        // many there were.
        let take = |bytes: &mut [u8], h: usize| -> ([u64; SLOTS], usize) {
            let (mut keys, mut n) = ([0u64; SLOTS], 0);
            for i in h * SLOTS..(h + 1) * SLOTS {
                let v = read_slot(bytes, i, sb);
                if v != 0 {
                    let (d, rem) = ((v - 1) >> r, (v - 1) & low_bits(r));
                    let home = (h + nb - d as usize) & (nb - 1);
                    keys[n] = (home as u64) << r | rem;
                    n += 1;
                    write_slot(bytes, i, sb, 0);
                }
            }
            (keys, n)
        };
        let mut aside = Vec::new();
        for h in 0..LOW {
            let (keys, n) = take(&mut self.bytes, h);
            aside.extend_from_slice(&keys[..n]);
        }
        self.b += 1;
        self.r -= 1;
        self.sb -= 1;
        let len = Self::table_bytes(self.wl, self.wr, self.b);
        self.bytes.reserve_exact(len - self.bytes.len());
        // Before `resize` writes the new half.
        crate::store::advise_huge_capacity(&mut self.bytes);
        self.bytes.resize(len, 0);
        for h in (LOW..nb).rev() {
            let (keys, n) = take(&mut self.bytes, h);
            // The permuted key is the same; the geometry splits it anew.
            for &x in &keys[..n] {
                self.place(x);
            }
        }
        for x in aside {
            self.place(x);
        }
        let over = std::mem::take(&mut self.overflow);
        for k in over {
            self.place(permute((k >> 32) << self.wr | (k & low_bits(32)), self.w));
        }
    }
}

/// Checkpoints ([`crate::checkpoint`]): the geometry, the slots and the
/// overflow set.
impl RootSet {
    pub(crate) fn save(&self, w: &mut crate::checkpoint::Saver) -> crate::checkpoint::Result<()> {
        for v in [self.wl, self.wr, self.w, self.b] {
            w.u64(v as u64)?;
        }
        w.u64(self.len as u64)?;
        w.bytes(&self.bytes)?;
        w.u64(self.overflow.capacity() as u64)?;
        w.u64s(&self.overflow.iter().copied().collect::<Vec<_>>())
    }

    pub(crate) fn load(r: &mut crate::checkpoint::Loader) -> crate::checkpoint::Result<RootSet> {
        let damaged = |what: &str| crate::checkpoint::CheckpointError::damaged(what);
        let wl = r.below(33, "a root width")? as u32;
        let wr = r.below(33, "a root width")? as u32;
        let w = r.below(65, "a root width")? as u32;
        // (2^40 buckets of 8 slots: more than any memory holds.)
        let b = r.below(41, "the root buckets")? as u32;
        if w != (wl + wr).max(b + 1) {
            return Err(damaged("the root geometry"));
        }
        let len = r.u64()? as usize;
        let bytes = r.bytes()?;
        let cap = r.u64()? as usize;
        let over = r.u64s()?;
        let (rb, sb) = (w - b, w - b + DISP_BITS);
        if bytes.len() != ((1usize << b) * SLOTS * sb as usize).div_ceil(8) + SLACK || cap < over.len() {
            return Err(damaged("the root slots"));
        }
        let mut overflow = std::collections::HashSet::with_capacity(cap);
        overflow.extend(over);
        Ok(RootSet {
            wl,
            wr,
            w,
            b,
            r: rb,
            sb,
            len,
            bytes,
            overflow,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set of `n` distinct random pairs of parts below `2^bits`.
    fn filled(n: usize, bits: u32, seed: u64) -> RootSet {
        let mut set = RootSet::new();
        let mut rng = crate::rng::Rng::seeded(seed);
        while set.len() < n {
            set.insert(rng.below(1 << bits) as u32, rng.below(1 << bits) as u32);
        }
        set
    }

    #[test]
    fn the_permutation_is_a_bijection_that_can_be_undone() {
        for w in [2u32, 3, 7, 16, 31, 35, 48, 63, 64] {
            let mut rng = crate::rng::Rng::seeded(w as u64);
            for _ in 0..2000 {
                let x = rng.next_u64() & low_bits(w);
                let y = permute(x, w);
                assert!(y <= low_bits(w), "w = {w}");
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
    fn doubling_in_place_keeps_every_key_and_none_other() {
        // Parts of fixed width, so that every doubling past the smallest
        // tables is in place; some keys inserted twice; a few keys whose
        // buckets are full stay findable through the doublings.
        let mut rng = crate::rng::Rng::seeded(11);
        let mut set = RootSet::new();
        let mut truth = std::collections::HashSet::new();
        let mut doublings = 0;
        for i in 0..400_000usize {
            let (l, r) = (rng.below(1 << 11) as u32, rng.below(1 << 13) as u32);
            let b = set.b;
            assert_eq!(set.insert(l, r), truth.insert((l, r)), "{i}: ({l}, {r})");
            if set.b > b && (1usize << b) >= IN_PLACE_MIN {
                doublings += 1;
                // Right after a doubling, every key is found again.
                for &(l, r) in &truth {
                    assert!(set.contains(l, r), "({l}, {r}) lost at 2^{} buckets", set.b);
                }
                assert_eq!(set.bytes.len(), RootSet::table_bytes(set.wl, set.wr, set.b));
            }
        }
        assert!(doublings >= 4, "{doublings} doublings in place");
        assert_eq!(set.len(), truth.len());
        let mut all: Vec<(u32, u32)> = set.pairs().collect();
        all.sort_unstable();
        let mut want: Vec<(u32, u32)> = truth.iter().copied().collect();
        want.sort_unstable();
        assert_eq!(all, want);
        // Keys never inserted are not found.
        for _ in 0..20_000 {
            let (l, r) = (rng.below(1 << 11) as u32, rng.below(1 << 13) as u32);
            assert_eq!(set.contains(l, r), truth.contains(&(l, r)));
        }
    }

    #[test]
    fn a_doubling_in_place_places_every_key_as_a_copy_would() {
        // Keys clustered in the lowest and highest buckets (moves that wrap
        // around, and long displacements): the table doubled in place is
        // a valid table, and its keys are those of a rebuilt one.
        let mut set = RootSet::with(12, 12, 9);
        let mut rng = crate::rng::Rng::seeded(7);
        let mut keys = Vec::new();
        while set.len() * MAX_LOAD.1 < (SLOTS << set.b) * MAX_LOAD.0 - 20 {
            let x = rng.next_u64() & low_bits(set.w);
            // Homes crowded at both ends of the table.
            let x = if x & 1 == 0 {
                x >> 3
            } else {
                low_bits(set.w) - (x >> 3)
            };
            let key = unpermute(x, set.w);
            let (l, r) = ((key >> set.wr) as u32, (key & low_bits(set.wr)) as u32);
            if set.insert(l, r) {
                keys.push((l, r));
            }
        }
        assert!(!set.overflow.is_empty(), "crowded homes overflow");
        let b = set.b;
        set.double_in_place();
        assert_eq!(set.b, b + 1);
        for &(l, r) in &keys {
            assert!(set.contains(l, r), "({l}, {r})");
            assert!(!set.insert(l, r));
        }
        let mut all: Vec<(u32, u32)> = set.pairs().collect();
        all.sort_unstable();
        keys.sort_unstable();
        assert_eq!(all, keys);
    }

    #[test]
    fn the_growth_foreseen_is_what_the_next_keys_can_allocate() {
        let set = filled(100_000, 12, 13);
        let (wl, wr, b, now) = (set.wl, set.wr, set.b, set.bytes.len());
        let room = (SLOTS << b) * MAX_LOAD.0 / MAX_LOAD.1 - set.len();
        let inside = (Some(1u64 << (wl - 1)), Some(1u64 << (wr - 1)));
        // The overflow set's copy, always counted.
        let over = set.overflow.capacity() * 18;
        // Neither a doubling nor a widening within reach: nothing more.
        assert_eq!(set.next_growth_bytes(room / 2, inside), over);
        // A doubling, in place: the grown part only.
        let doubled = RootSet::table_bytes(wl, wr, b + 1) - now;
        assert_eq!(set.next_growth_bytes(room + 1, inside), doubled + over);
        assert!(doubled < now, "{doubled} against {now}");
        // A part that may pass its width: a whole wider table besides.
        let wider = set.next_growth_bytes(room / 2, (Some(1u64 << (wl + 3)), inside.1));
        assert_eq!(wider, RootSet::table_bytes(wl + 4, wr, b) + over);
        // Words (no bound) widen by the least step, not to 32 bits.
        let words = set.next_growth_bytes(room / 2, (None, None));
        assert_eq!(words, RootSet::table_bytes(wl + 2, wr + 2, b) + over);
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
        let set = filled(1_800_000, 14, 5);
        let per = set.bytes_used() as f64 / set.len() as f64;
        assert!(per < 2.5, "{per} bytes per pair");
        assert!(
            set.overflow.len() < set.len() / 100,
            "{} overflow",
            set.overflow.len()
        );
    }
}
