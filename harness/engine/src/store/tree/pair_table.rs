//! One table of the tree: the distinct pairs of one node, bit-packed in
//! chunks, found through an open-addressing index of tagged slots.

use crate::store::{advise_huge_pages, low_bits, prefetch_line, read_bits, PrefetchRing};

/// Index bytes from which a table's lookups miss the processor's caches
/// (see [`Pipeline`]); in the library's tests every table's, so that
/// their small models go through it.
pub(crate) const LARGE_INDEX: usize = if cfg!(test) { 4 } else { 1 << 20 };
/// Pairs per arena chunk.
pub(crate) const CHUNK: usize = 1 << 16;
/// Smallest index (slots).
pub(crate) const MIN_INDEX: usize = 16;

/// Most entries per index slot before it grows (linear probing stays short
/// with the tags: a probe passes other pairs' slots without reading them).
pub(crate) const MAX_LOAD: (usize, usize) = (4, 5);

/// The index's next size: half as large again (not doubled: the index
/// then sits between 53 % and 80 % full, about 6 bytes per pair instead
/// of 4 / 0.56 = 7.1 with doubling at 3/4).
pub(crate) fn grown(cap: usize) -> usize {
    cap + cap / 2
}

/// The bits an entry needs for `pair index + 1` in an index of `cap`
/// slots (the pairs number fewer than the slots).
pub(crate) fn index_bits(cap: usize) -> u32 {
    cap.next_power_of_two().trailing_zeros()
}

/// One chunk of a table's pairs, packed at `wl + wr` bits each (the left
/// value in the high `wl` bits): a pair holds two indices into smaller
/// tables, or two words of the state, and most of their 32 bits are zero.
/// A pair that needs more bits widens the chunk (its pairs are repacked).
#[derive(Debug, Default)]
pub(crate) struct Packed {
    pub(crate) wl: u32,
    pub(crate) wr: u32,
    pub(crate) len: usize,
    /// Pairs the allocation holds.
    pub(crate) cap: usize,
    /// `cap * (wl + wr)` bits, then [`SLACK`] bytes so that any pair can be
    /// read as one `u128`.
    pub(crate) bytes: Vec<u8>,
}

pub(crate) const SLACK: usize = 16;

/// Bits of `v` (0 for 0).
#[inline]
pub(crate) fn width(v: u32) -> u32 {
    32 - v.leading_zeros()
}

impl Packed {
    pub(crate) fn new(cap: usize, wl: u32, wr: u32) -> Packed {
        Packed {
            wl,
            wr,
            len: 0,
            cap,
            bytes: vec![0; Packed::size(cap, wl + wr)],
        }
    }

    /// Bytes of a chunk of `cap` pairs of `w` bits.
    pub(crate) fn size(cap: usize, w: u32) -> usize {
        (cap * w as usize).div_ceil(8) + SLACK
    }

    #[inline]
    pub(crate) fn window(&self, i: usize) -> (usize, u32) {
        let bit = i * (self.wl + self.wr) as usize;
        (bit / 8, (bit % 8) as u32)
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> u64 {
        let v = read_bits(&self.bytes, i * (self.wl + self.wr) as usize, self.wl + self.wr);
        (v >> self.wr) << 32 | (v & low_bits(self.wr))
    }

    pub(crate) fn set(&mut self, i: usize, pair: u64) {
        let (at, shift) = self.window(i);
        let v = (pair >> 32) << self.wr | (pair & 0xFFFF_FFFF);
        let m = (low_bits(self.wl + self.wr) as u128) << shift;
        let w = &mut self.bytes[at..at + 16];
        let x = u128::from_le_bytes((&*w).try_into().expect("16 bytes"));
        w.copy_from_slice(&((x & !m) | ((v as u128) << shift)).to_le_bytes());
    }

    /// Appends `pair`, widening or enlarging the chunk if needed (up to
    /// `most` pairs).
    pub(crate) fn push(&mut self, pair: u64, most: usize) {
        let (wl, wr) = (
            width((pair >> 32) as u32).max(self.wl),
            width(pair as u32).max(self.wr),
        );
        if (wl, wr) != (self.wl, self.wr) || self.len == self.cap {
            let cap = if self.len == self.cap {
                (self.cap * 2).min(most)
            } else {
                self.cap
            };
            let mut to = Packed::new(cap, wl, wr);
            for i in 0..self.len {
                to.set(i, self.get(i));
            }
            to.len = self.len;
            *self = to;
        }
        self.set(self.len, pair);
        self.len += 1;
    }

    /// Bytes the next `push` allocates at most (a widening is bounded by
    /// 32 bits a side).
    pub(crate) fn growth_bytes(&self, most: usize) -> usize {
        let cap = if self.len == self.cap {
            (self.cap * 2).min(most)
        } else {
            self.cap
        };
        Packed::size(cap, 64)
    }
}

/// A table of distinct pairs with stable indices (see the module comment).
#[derive(Debug, Default)]
pub(crate) struct PairTable {
    pub(crate) chunks: Vec<Packed>,
    pub(crate) len: usize,
    pub(crate) index: Vec<u32>,
    /// Bits of a pair index + 1 (`2^bits >= index.len()`); the entry bits
    /// above them hold the tag.
    pub(crate) bits: u32,
    /// Bytes allocated (kept, so that reading it is O(1)).
    pub(crate) alloc: usize,
    /// What `growth_bytes` says (kept, as `alloc`).
    pub(crate) growth: usize,
}

/// The hash of a pair (and of a word with its place in the leaf order's
/// sampling, `crate::store::tree::leaf_order`).
#[inline]
pub(crate) fn pair_hash(pair: u64) -> u64 {
    // A 64-bit finalizer (splitmix64): every input bit moves the top bits,
    // which pick the home slot.
    let mut z = pair.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl PairTable {
    pub(crate) fn new() -> PairTable {
        let mut t = PairTable {
            chunks: Vec::new(),
            len: 0,
            index: vec![0; MIN_INDEX],
            bits: index_bits(MIN_INDEX),
            alloc: MIN_INDEX * 4,
            growth: 0,
        };
        t.growth = t.next_growth();
        t
    }

    #[inline]
    pub(crate) fn get(&self, i: u32) -> u64 {
        let i = i as usize;
        self.chunks[i / CHUNK].get(i % CHUNK)
    }

    /// Whether one more pair would pass the index's load.
    #[inline]
    pub(crate) fn full(&self) -> bool {
        (self.len + 1) * MAX_LOAD.1 > self.index.len() * MAX_LOAD.0
    }

    #[inline]
    pub(crate) fn home(&self, h: u64) -> usize {
        // The top 32 bits of the hash scaled to the index's size (which
        // need not be a power of two).
        (((h >> 32) * self.index.len() as u64) >> 32) as usize
    }

    /// The index entry of pair `i` whose hash is `h`: `i + 1` in the low
    /// `bits` bits (`i < len < 2^bits`), and in the bits above them as many
    /// bits of the hash as fit (none once the index has 2^32 slots). A
    /// probe compares these first, so a slot holding another pair costs a
    /// read of the arena only when its tag matches too: without them a
    /// lookup read the arena at every occupied slot of its probe sequence
    /// (several cache misses at a high load).
    #[inline]
    pub(crate) fn entry(&self, i: usize, h: u64) -> u32 {
        let id = i as u32 + 1;
        match 1u32.checked_shl(self.bits) {
            Some(m) => id | (h as u32) & !(m - 1),
            None => id,
        }
    }

    /// The bits of an entry that hold its tag.
    #[inline]
    pub(crate) fn tags(&self) -> u32 {
        match 1u32.checked_shl(self.bits) {
            Some(m) => !(m - 1),
            None => 0,
        }
    }

    /// The pair index an entry holds.
    #[inline]
    pub(crate) fn pair_of(&self, e: u32) -> u32 {
        match 1u32.checked_shl(self.bits) {
            Some(m) => (e & (m - 1)) - 1,
            None => e - 1,
        }
    }

    /// The index of `pair` (hash `h`), or the empty slot where it would go
    /// (inlined into each caller: it is on every lookup's path).
    #[inline(always)]
    pub(crate) fn probe(&self, pair: u64, h: u64) -> Result<u32, usize> {
        let cap = self.index.len();
        let tags = self.tags();
        let want = h as u32 & tags;
        let mut slot = self.home(h);
        loop {
            match self.index[slot] {
                0 => return Err(slot),
                e if e & tags == want && self.get(self.pair_of(e)) == pair => return Ok(self.pair_of(e)),
                _ => slot = if slot + 1 == cap { 0 } else { slot + 1 },
            }
        }
    }

    pub(crate) fn find(&self, pair: u64) -> Option<u32> {
        self.probe(pair, pair_hash(pair)).ok()
    }

    /// Starts loading the index slot a lookup of a pair hashed `h` reads
    /// first.
    #[inline]
    pub(crate) fn prefetch_slot(&self, h: u64) {
        prefetch_line(&self.index[self.home(h)]);
    }

    /// Starts loading the pair the home slot of hash `h` points to, if its
    /// tag matches (the slot best already in the cache).
    #[inline]
    pub(crate) fn prefetch_pair(&self, h: u64) {
        let e = self.index[self.home(h)];
        let tags = self.tags();
        if e != 0 && e & tags == h as u32 & tags {
            let i = self.pair_of(e) as usize;
            let c = &self.chunks[i / CHUNK];
            prefetch_line(&c.bytes[c.window(i % CHUNK).0]);
        }
    }

    /// The index of `pair` (hash `h`), inserted if new, and whether it is.
    /// A pair already there is only looked up (nothing grows), so only an
    /// insertion changes the table's bytes.
    pub(crate) fn insert(&mut self, pair: u64, h: u64) -> (u32, bool) {
        let mut probe = self.probe(pair, h);
        if probe.is_err() && self.full() {
            self.grow();
            probe = self.probe(pair, h);
        }
        match probe {
            Ok(i) => (i, false),
            Err(slot) => {
                let i = self.len;
                if i.is_multiple_of(CHUNK) {
                    // A new chunk starts as wide as the last one.
                    let (wl, wr) = self.chunks.last().map_or((0, 0), |c| (c.wl, c.wr));
                    let c = Packed::new(if i == 0 { 16 } else { CHUNK }, wl, wr);
                    self.alloc += c.bytes.len();
                    self.chunks.push(c);
                }
                let chunk = self.chunks.last_mut().expect("a chunk");
                let before = chunk.bytes.len();
                chunk.push(pair, CHUNK);
                self.alloc = self.alloc + chunk.bytes.len() - before;
                self.len += 1;
                self.index[slot] = self.entry(i, h);
                self.growth = self.next_growth();
                (i as u32, true)
            }
        }
    }

    pub(crate) fn grow(&mut self) {
        let old = self.index.len();
        let cap = grown(old);
        assert!(cap <= 1 << 32, "a pair table cannot grow past 2^32 slots");
        self.alloc += (cap - old) * 4;
        self.index = vec![0; cap];
        advise_huge_pages(&self.index);
        self.bits = index_bits(cap);
        // Each pair's home slot is prefetched before the pair is put (in
        // their order: the index is the same), so that the misses of a
        // large index overlap.
        let put = |t: &mut PairTable, (i, h): (usize, u64)| {
            let mut slot = t.home(h);
            while t.index[slot] != 0 {
                slot = if slot + 1 == cap { 0 } else { slot + 1 };
            }
            t.index[slot] = t.entry(i, h);
        };
        let mut ring = PrefetchRing::new();
        for i in 0..self.len {
            let h = pair_hash(self.get(i as u32));
            self.prefetch_slot(h);
            if let Some(held) = ring.push((i, h)) {
                put(self, held);
            }
        }
        for held in ring.rest() {
            put(self, held);
        }
    }

    /// Whether its lookups miss the cache (see [`Pipeline`]).
    #[inline]
    pub(crate) fn large(&self) -> bool {
        self.index.len() * 4 >= LARGE_INDEX
    }

    pub(crate) fn bytes(&self) -> usize {
        debug_assert_eq!(
            self.alloc,
            self.chunks.iter().map(|c| c.bytes.len()).sum::<usize>() + self.index.len() * 4
        );
        self.alloc
    }

    /// Bytes the insertion of one new pair would allocate.
    pub(crate) fn growth_bytes(&self) -> usize {
        debug_assert_eq!(self.growth, self.next_growth());
        self.growth
    }

    pub(crate) fn next_growth(&self) -> usize {
        let mut b = 0;
        if self.full() {
            b += grown(self.index.len()) * 4;
        }
        // A new chunk, or the repacking of the last one (the old pairs
        // and the new allocation coexist while it is copied).
        b + match self.chunks.last() {
            None => Packed::size(16, 64),
            Some(_) if self.len.is_multiple_of(CHUNK) => Packed::size(CHUNK, 64),
            Some(c) => c.growth_bytes(CHUNK),
        }
    }
}
