//! Visited sets: the [`Store`] trait every search keeps its states in, and
//! [`StateStore`], the exact store.
//!
//! **The trait.** A store maps a state (its bytes and fingerprint) to a dense
//! id, `0, 1, 2, ...` in insertion order, and gives the state back by id.
//! Searches are generic over it (monomorphised: no call through a pointer per
//! successor), so an exact, a compressed or a probabilistic store plugs in
//! without touching a search loop. Reading a state takes a scratch buffer: an
//! exact store returns its own bytes and ignores it, a compressed store
//! decodes into it.
//!
//! **The exact store.** Every stored state kept in full, with dense ids.
//!
//! States are packed back to back in an arena of fixed-size chunks of about
//! 64 KiB (`state_len` bytes per state, no per-state allocation; a full chunk
//! never moves; only the first chunk starts small and doubles up to the
//! chunk size, so tiny models stay tiny), and found through an open-addressing index with
//! linear probing. Ids are dense `u32`s in insertion order, so a breadth-first
//! search can use the arena itself as its queue.
//!
//! Index entries are one `u64` each: the upper 32 bits are the upper 32 bits
//! of the state's fingerprint (the *tag*), the lower 32 bits hold `id + 1`
//! (so 0 marks an empty slot). The home slot of a state is the top
//! `log2(capacity)` bits of its tag, which lets the table double without
//! looking at states or recomputing fingerprints. A tag match is confirmed by
//! comparing the stored bytes, so the set is exact whatever the fingerprints.
//! The load factor stays at most 0.7.
//!
//! Memory: `bytes_used` is what is allocated (arena chunks plus the index);
//! `next_growth_bytes` tells how much the next insertion of a new state would
//! allocate, so a memory limit can stop a search before it grows.

pub mod bitstate;
pub mod compact;
pub mod recent_states;
pub mod saved;
pub mod shared;
pub mod tree;

/// Which visited set a search keeps (`--store`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StoreKind {
    /// [`StateStore`]: every state kept whole.
    #[default]
    Exact,
    /// [`TreeStore`](crate::TreeStore): exact, tree-compressed.
    Tree,
    /// The tree store with its roots in a [`crate::store::tree::root_set::RootSet`]
    /// (exact; breadth-first search only, `crate::loops::tree_bfs`).
    CTree,
    /// [`CompactStore`](crate::CompactStore): hash compaction, fingerprints
    /// of this many bits (probabilistic).
    Compact(u32),
    /// [`BitstateStore`](crate::BitstateStore): `2^log2m` bits, `k` per
    /// state (probabilistic).
    Bitstate { log2m: u32, k: u32 },
}

impl StoreKind {
    pub const NAMES: &'static str = "exact, tree, ctree, compact[:BITS], bitstate[:LOG2M[,K]]";
    /// `--store bitstate`: 2^30 bits (128 MiB), 3 per state.
    pub const BITSTATE: StoreKind = StoreKind::Bitstate { log2m: 30, k: 3 };

    /// A store that may omit states.
    pub fn is_probabilistic(self) -> bool {
        matches!(self, StoreKind::Compact(_) | StoreKind::Bitstate { .. })
    }

    /// A store only breadth-first search can use (it keeps only the states
    /// still to expand, or gives them no number).
    pub fn bfs_only(self) -> bool {
        self.is_probabilistic() || self == StoreKind::CTree
    }
}

impl std::fmt::Display for StoreKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StoreKind::Exact => "exact",
            StoreKind::Tree => "tree",
            StoreKind::CTree => "ctree",
            StoreKind::Compact(64) => "compact",
            StoreKind::Compact(b) => return write!(f, "compact:{b}"),
            s if *s == StoreKind::BITSTATE => "bitstate",
            StoreKind::Bitstate { log2m, k } => return write!(f, "bitstate:{log2m},{k}"),
        })
    }
}

impl std::str::FromStr for StoreKind {
    type Err = String;
    fn from_str(s: &str) -> Result<StoreKind, String> {
        match s {
            "exact" => Ok(StoreKind::Exact),
            "tree" => Ok(StoreKind::Tree),
            "ctree" => Ok(StoreKind::CTree),
            "compact" => Ok(StoreKind::Compact(64)),
            _ if s.starts_with("compact:") => match s["compact:".len()..].parse::<u32>() {
                Ok(b) if (1..=64).contains(&b) => Ok(StoreKind::Compact(b)),
                _ => Err(format!(
                    "--store {s}: compact:BITS keeps 1 to 64 bits of each fingerprint"
                )),
            },
            "bitstate" => Ok(StoreKind::BITSTATE),
            _ if s.starts_with("bitstate:") => {
                let spec = &s["bitstate:".len()..];
                let (m, k) = spec.split_once(',').unwrap_or((spec, "3"));
                match (m.parse::<u32>(), k.parse::<u32>()) {
                    (Ok(log2m), Ok(k)) if (6..=40).contains(&log2m) && (1..=16).contains(&k) => {
                        Ok(StoreKind::Bitstate { log2m, k })
                    }
                    _ => Err(format!(
                        "--store {s}: bitstate:LOG2M[,K] has 2^LOG2M bits (LOG2M 6 to 40) and K (1 to 16) per state"
                    )),
                }
            }
            _ => Err(format!(
                "unknown store `{s}` (expected one of: {})",
                StoreKind::NAMES
            )),
        }
    }
}

/// Smallest index capacity (slots).
const MIN_TABLE: usize = 16;
/// Target size of one arena chunk in bytes.
const CHUNK_BYTES: usize = 64 * 1024;
/// Most states the store can hold (ids are `u32`, `id + 1` must fit too).
pub const MAX_STATES: usize = u32::MAX as usize - 1;

/// A visited set with dense ids (see the module documentation).
pub trait Store {
    /// Bytes per state.
    fn state_len(&self) -> usize;
    /// Number of stored states; ids are `0..len()`.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bytes of state `id` (in `scratch` if the store must decode them).
    fn state<'a>(&'a self, id: u32, scratch: &'a mut Vec<u8>) -> &'a [u8];
    /// The id of `state` (fingerprint `fp`) if it is stored.
    fn find(&self, state: &[u8], fp: u64) -> Option<u32>;
    /// Stores `state` unless present; its id and whether it is new.
    fn insert(&mut self, state: &[u8], fp: u64) -> Insert;
    /// Bytes allocated.
    fn bytes_used(&self) -> usize;
    /// Bytes the next insertion of a new state would allocate (0 if none),
    /// so that a memory budget can refuse it before it happens.
    fn next_growth_bytes(&self) -> usize;
    /// Bytes the next growth of the store's index would allocate if fewer
    /// than `soon` more new states bring it on (0 if not, or if the store
    /// grows in steps too small to matter).
    fn growth_within(&self, _soon: usize) -> usize {
        0
    }
    /// Makes that growth now, ahead of time: the ranks of a distributed
    /// search grow together, so that one rank's pause is not the others'
    /// wait.
    fn grow_now(&mut self) {}
    /// The successors inserted next are those of stored state `id` (a hint:
    /// a compressed store encodes them relative to it).
    #[inline]
    fn expanding(&self, _id: u32) {}
    /// Starts loading what a lookup of `state` (fingerprint `fp`) reads
    /// first (a hint; a compressed store may also start encoding it).
    #[inline]
    fn prefetch(&self, _state: &[u8], _fp: u64) {}
    /// Starts loading the stored state a lookup of `fp` compares first.
    #[inline]
    fn prefetch_state(&self, _fp: u64) {}
    /// A probabilistic store: the states its collisions are expected to
    /// have omitted (`None`: an exact store).
    fn expected_omissions(&self) -> Option<f64> {
        None
    }
    /// A state found again gets its id (a bit array cannot tell it).
    fn gives_ids(&self) -> bool {
        true
    }
}

#[derive(Debug)]
pub struct StateStore {
    state_len: usize,
    /// log2 of states per chunk.
    chunk_shift: u32,
    /// All chunks but the last are full (`chunk_bytes` long).
    chunks: Vec<Vec<u8>>,
    /// Index entries: `tag << 32 | (id + 1)`, 0 = empty.
    table: Vec<u64>,
    /// log2(table.len()).
    table_bits: u32,
    len: usize,
}

/// Outcome of [`StateStore::insert`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    New(u32),
    Seen(u32),
}

impl Insert {
    pub fn id(self) -> u32 {
        match self {
            Insert::New(id) | Insert::Seen(id) => id,
        }
    }
    pub fn is_new(self) -> bool {
        matches!(self, Insert::New(_))
    }
    /// The id and whether it is new.
    pub fn split(self) -> (u32, bool) {
        (self.id(), self.is_new())
    }
}

impl StateStore {
    pub fn new(state_len: usize) -> StateStore {
        let per_chunk = (CHUNK_BYTES / state_len.max(1)).max(16);
        // Round down to a power of two.
        let chunk_shift = usize::BITS - 1 - per_chunk.leading_zeros();
        StateStore {
            state_len,
            chunk_shift,
            chunks: Vec::new(),
            table: vec![0; MIN_TABLE],
            table_bits: MIN_TABLE.trailing_zeros(),
            len: 0,
        }
    }

    pub fn state_len(&self) -> usize {
        self.state_len
    }

    /// Number of stored states.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn states_per_chunk(&self) -> usize {
        1 << self.chunk_shift
    }

    fn chunk_bytes(&self) -> usize {
        self.states_per_chunk() * self.state_len
    }

    /// Bytes allocated: arena chunks plus the index.
    pub fn bytes_used(&self) -> usize {
        self.arena_bytes() + self.table.len() * 8
    }

    fn arena_bytes(&self) -> usize {
        match self.chunks.last() {
            None => 0,
            Some(last) => (self.chunks.len() - 1) * self.chunk_bytes() + last.capacity(),
        }
    }

    /// Capacity in bytes the arena's last chunk grows to when it is full:
    /// `None` if it has room, `Some(0)` for a new chunk.
    fn arena_growth(&self) -> Option<usize> {
        let full = self.chunk_bytes();
        match self.chunks.last() {
            Some(last) if last.len() + self.state_len <= last.capacity().min(full) => None,
            Some(last) if last.len() < full => Some((last.capacity() * 2).min(full)),
            _ => Some(0),
        }
    }

    /// Initial capacity of a new chunk: the first starts at 16 states.
    fn new_chunk_bytes(&self) -> usize {
        if self.chunks.is_empty() {
            (16 * self.state_len).min(self.chunk_bytes())
        } else {
            self.chunk_bytes()
        }
    }

    /// Bytes the next insertion of a new state would allocate (0 if it fits
    /// in what is allocated). While the index doubles, old and new tables
    /// coexist, so the figure is the full new table.
    pub fn next_growth_bytes(&self) -> usize {
        let mut bytes = match self.arena_growth() {
            None => 0,
            Some(0) => self.new_chunk_bytes(),
            Some(cap) => cap - self.chunks.last().map_or(0, |c| c.capacity()),
        };
        if self.needs_table_growth() {
            bytes += self.grown_table_bytes();
        }
        bytes
    }

    #[inline]
    fn needs_table_growth(&self) -> bool {
        self.table_grows_within(1)
    }

    /// Whether `more` new states would bring the index past its load
    /// factor (keep (len + more) / capacity <= 0.7).
    #[inline]
    fn table_grows_within(&self, more: usize) -> bool {
        (self.len + more) * 10 > self.table.len() * 7
    }

    fn grown_table_bytes(&self) -> usize {
        self.table.len() * 2 * 8
    }

    /// The bytes of state `id`. Panics if `id` is not a stored id.
    #[inline]
    pub fn get(&self, id: u32) -> &[u8] {
        let id = id as usize;
        debug_assert!(id < self.len);
        let chunk = &self.chunks[id >> self.chunk_shift];
        let off = (id & (self.states_per_chunk() - 1)) * self.state_len;
        &chunk[off..off + self.state_len]
    }

    #[inline]
    fn home(&self, tag: u64) -> usize {
        // Top `table_bits` bits of the 32-bit tag.
        (tag >> (32 - self.table_bits)) as usize
    }

    /// Looks `state` up; returns its id if stored, else the empty slot where
    /// it would go.
    #[inline]
    fn probe(&self, state: &[u8], fp: u64) -> Result<u32, usize> {
        let tag = fp >> 32;
        let mask = self.table.len() - 1;
        let mut slot = self.home(tag);
        loop {
            let e = self.table[slot];
            if e == 0 {
                return Err(slot);
            }
            if e >> 32 == tag {
                let id = (e as u32) - 1;
                if self.get(id) == state {
                    return Ok(id);
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Starts loading, without waiting, the index slot a lookup of `fp`
    /// reads first.
    #[inline]
    pub fn prefetch(&self, fp: u64) {
        prefetch_line(&self.table[self.home(fp >> 32)]);
    }

    /// Starts loading, without waiting, the stored state a lookup of `fp`
    /// compares first (if its index slot, best already in the cache, has a
    /// matching tag).
    #[inline]
    pub fn prefetch_state(&self, fp: u64) {
        let tag = fp >> 32;
        let e = self.table[self.home(tag)];
        if e != 0 && e >> 32 == tag {
            prefetch_state_lines(self.get((e as u32) - 1));
        }
    }

    /// The id of `state` if it is stored.
    pub fn find(&self, state: &[u8], fp: u64) -> Option<u32> {
        debug_assert_eq!(state.len(), self.state_len);
        self.probe(state, fp).ok()
    }

    /// Inserts `state` (with fingerprint `fp`) unless already present;
    /// returns its id and whether it is new.
    ///
    /// Panics when the store already holds [`MAX_STATES`] states.
    #[inline]
    pub fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        debug_assert_eq!(state.len(), self.state_len);
        let slot = match self.probe(state, fp) {
            Ok(id) => return Insert::Seen(id),
            Err(slot) => slot,
        };
        assert!(self.len < MAX_STATES, "state store full ({MAX_STATES} states)");
        let slot = if self.needs_table_growth() {
            self.grow_table();
            match self.probe(state, fp) {
                Err(slot) => slot,
                Ok(_) => unreachable!("state appeared during growth"),
            }
        } else {
            slot
        };
        let id = self.len as u32;
        self.push_state(state);
        self.table[slot] = ((fp >> 32) << 32) | (id as u64 + 1);
        Insert::New(id)
    }

    fn push_state(&mut self, state: &[u8]) {
        match self.arena_growth() {
            None => {}
            Some(0) => {
                let cap = self.new_chunk_bytes();
                self.chunks.push(Vec::with_capacity(cap));
            }
            Some(cap) => {
                let last = self.chunks.last_mut().expect("chunk");
                last.reserve_exact(cap - last.len());
            }
        }
        let chunk = self.chunks.last_mut().expect("chunk");
        chunk.extend_from_slice(state);
        self.len += 1;
    }

    fn grow_table(&mut self) {
        let new_bits = self.table_bits + 1;
        assert!(new_bits <= 32, "state index cannot grow past 2^32 slots");
        let old = std::mem::replace(&mut self.table, vec![0; 1 << new_bits]);
        advise_huge_pages(&self.table);
        self.table_bits = new_bits;
        let mask = self.table.len() - 1;
        for e in old {
            if e != 0 {
                let mut slot = self.home(e >> 32);
                while self.table[slot] != 0 {
                    slot = (slot + 1) & mask;
                }
                self.table[slot] = e;
            }
        }
    }

    /// Iterates over stored states in id order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len as u32).map(move |id| self.get(id))
    }
}

/// Asks the kernel to back `data` with huge pages where it can (Linux
/// with transparent huge pages set to `madvise`): an index or arena of
/// hundreds of MiB read at random costs a TLB miss per access with 4 KiB
/// pages. Called before the memory is first written, so that its pages are
/// faulted in huge. A hint: nothing changes if the kernel declines.
pub(crate) fn advise_huge_pages<T>(data: &[T]) {
    advise_huge_range(data.as_ptr() as usize, std::mem::size_of_val(data));
}

/// [`advise_huge_pages`] over the whole of `v`'s allocation, its spare
/// capacity included: for a vector reserved and then written (a table
/// read from a checkpoint, a root set doubled in place), so that the
/// advice comes before the first write. Advice given after it only lets
/// the kernel's background thread collapse the pages, slowly: a census
/// run resumed from a checkpoint had 1.3 of its 16.9 GB in huge pages
/// (12.6 of 13.3 with this). Its speed hardly moved: its root set's
/// random reads still cost a miss each, and on a virtual machine a walk
/// of the host's page tables.
pub(crate) fn advise_huge_capacity<T>(v: &mut Vec<T>) {
    advise_huge_range(v.as_ptr() as usize, v.capacity() * std::mem::size_of::<T>());
}

fn advise_huge_range(start: usize, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < 2 * HUGE {
        return;
    }
    let first = start.next_multiple_of(HUGE);
    let end = (start + bytes) / HUGE * HUGE;
    if end > first {
        // SAFETY: the range lies inside `data`'s allocation; MADV_HUGEPAGE
        // changes no content, only how pages are backed.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

impl Store for StateStore {
    #[inline]
    fn state_len(&self) -> usize {
        self.state_len
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn state<'a>(&'a self, id: u32, _scratch: &'a mut Vec<u8>) -> &'a [u8] {
        self.get(id)
    }
    #[inline]
    fn find(&self, state: &[u8], fp: u64) -> Option<u32> {
        StateStore::find(self, state, fp)
    }
    #[inline]
    fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        StateStore::insert(self, state, fp)
    }
    fn bytes_used(&self) -> usize {
        StateStore::bytes_used(self)
    }
    fn next_growth_bytes(&self) -> usize {
        StateStore::next_growth_bytes(self)
    }
    fn growth_within(&self, soon: usize) -> usize {
        if self.table_grows_within(soon) {
            self.grown_table_bytes()
        } else {
            0
        }
    }
    fn grow_now(&mut self) {
        self.grow_table();
    }
    #[inline]
    fn prefetch(&self, _state: &[u8], fp: u64) {
        StateStore::prefetch(self, fp)
    }
    #[inline]
    fn prefetch_state(&self, fp: u64) {
        StateStore::prefetch_state(self, fp)
    }
}

/// Prefetches the cache lines of a stored state a lookup is about to
/// compare: its first and, where it crosses into the next, its last (a
/// 45-byte state crosses a line boundary seven times in ten, and the
/// comparison then waited on the second line).
#[inline(always)]
pub(crate) fn prefetch_state_lines(state: &[u8]) {
    if let (Some(first), Some(last)) = (state.first(), state.last()) {
        prefetch_line(first);
        if (first as *const u8 as usize) >> 6 != (last as *const u8 as usize) >> 6 {
            prefetch_line(last);
        }
    }
}

/// A mask of the low `w` bits (all 64 for `w >= 64`, where a shift by 64
/// would overflow): the bit-packed tables, queues and the root set share it.
#[inline]
pub(crate) fn low_bits(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// The `w` bits (at most 64) from bit `bit` of `bytes`, little-endian, as
/// the bit-packed tables and queues store their entries (each keeps 16
/// bytes past its last entry, so that any entry reads whole). An entry of
/// up to 56 bits is read with one 64-bit load (cheaper than a 128-bit
/// one, and nearly every entry is that narrow).
#[inline]
pub(crate) fn read_bits(bytes: &[u8], bit: usize, w: u32) -> u64 {
    let (at, shift) = (bit / 8, bit % 8);
    let mask = low_bits(w);
    if w <= 56 {
        let x = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        (x >> shift) & mask
    } else {
        let x = u128::from_le_bytes(bytes[at..at + 16].try_into().expect("16 bytes"));
        (x >> shift) as u64 & mask
    }
}

/// A non-blocking prefetch of the cache line holding `*p` (nothing on
/// targets without one).
#[inline(always)]
pub(crate) fn prefetch_line<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and has no effect
    // on the program's state (`p` is a valid reference anyway).
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((p as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Keys a table's rebuild keeps in flight: each key's home is prefetched
/// this many keys before the key is placed.
const AHEAD: usize = 16;

/// The keys of a table being rebuilt, held back [`AHEAD`] at a time so
/// that their homes' cache misses overlap.
///
/// The caller prefetches a key's home, then [`push`](Self::push)es the key
/// and places the key it gets back; at the end it places what
/// [`rest`](Self::rest) gives. Keys come back in the order they went in,
/// so the table is the one placing them one by one would build.
pub(crate) struct PrefetchRing<K> {
    ring: [K; AHEAD],
    n: usize,
}

impl<K: Copy + Default> PrefetchRing<K> {
    pub(crate) fn new() -> Self {
        PrefetchRing {
            ring: [K::default(); AHEAD],
            n: 0,
        }
    }

    /// Holds `key` (its home just prefetched); gives back the key pushed
    /// [`AHEAD`] keys before it, now to be placed.
    #[inline(always)]
    pub(crate) fn push(&mut self, key: K) -> Option<K> {
        let slot = &mut self.ring[self.n % AHEAD];
        let out = (self.n >= AHEAD).then_some(*slot);
        *slot = key;
        self.n += 1;
        out
    }

    /// The keys still held, in the order they were pushed.
    pub(crate) fn rest(&self) -> impl Iterator<Item = K> + '_ {
        (self.n.saturating_sub(AHEAD)..self.n).map(|i| self.ring[i % AHEAD])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefetch_ring_gives_keys_back_in_order() {
        for n in [0, 1, AHEAD - 1, AHEAD, AHEAD + 1, 3 * AHEAD + 5] {
            let mut ring = PrefetchRing::new();
            let mut out: Vec<usize> = (0..n).filter_map(|k| ring.push(k)).collect();
            assert_eq!(out.len(), n.saturating_sub(AHEAD));
            out.extend(ring.rest());
            assert_eq!(out, (0..n).collect::<Vec<_>>());
        }
    }

    fn fp_of(state: &[u8]) -> u64 {
        dve_frontend::model::fingerprint::reference(state)
    }

    #[test]
    fn insert_and_get() {
        let mut s = StateStore::new(3);
        assert!(s.is_empty());
        assert_eq!(s.insert(&[1, 2, 3], fp_of(&[1, 2, 3])), Insert::New(0));
        assert_eq!(s.insert(&[4, 5, 6], fp_of(&[4, 5, 6])), Insert::New(1));
        assert_eq!(s.insert(&[1, 2, 3], fp_of(&[1, 2, 3])), Insert::Seen(0));
        assert_eq!(s.get(0), &[1, 2, 3]);
        assert_eq!(s.get(1), &[4, 5, 6]);
        assert_eq!(s.len(), 2);
        assert_eq!(s.find(&[4, 5, 6], fp_of(&[4, 5, 6])), Some(1));
        assert_eq!(s.find(&[7, 7, 7], fp_of(&[7, 7, 7])), None);
    }

    #[test]
    fn many_inserts_grow_and_stay_exact() {
        let n = 200_000u32;
        let mut s = StateStore::new(4);
        for i in 0..n {
            let b = i.to_le_bytes();
            assert_eq!(s.insert(&b, fp_of(&b)), Insert::New(i));
        }
        for i in 0..n {
            let b = i.to_le_bytes();
            assert_eq!(s.insert(&b, fp_of(&b)), Insert::Seen(i));
            assert_eq!(s.get(i), &b);
        }
        assert_eq!(s.len(), n as usize);
        assert!(s.table.len() * 7 >= s.len() * 10);
        assert!(s.bytes_used() >= n as usize * 4);
    }

    #[test]
    fn colliding_tags_and_fingerprints() {
        // All states share one tag (and so one home slot); some share the
        // whole fingerprint. Exactness must come from the byte comparison.
        let mut s = StateStore::new(2);
        for i in 0..3000u16 {
            let b = i.to_le_bytes();
            let fp = 0xDEAD_BEEF_0000_0000 | ((i as u64 % 7) + 1);
            assert_eq!(s.insert(&b, fp), Insert::New(i as u32));
        }
        for i in 0..3000u16 {
            let b = i.to_le_bytes();
            let fp = 0xDEAD_BEEF_0000_0000 | ((i as u64 % 7) + 1);
            assert_eq!(s.insert(&b, fp), Insert::Seen(i as u32));
        }
        // Neighbouring tags spill into each other's probe runs.
        let mut t = StateStore::new(2);
        for i in 0..5000u16 {
            let b = i.to_le_bytes();
            let fp = ((i as u64 % 3) << 62) | 1;
            assert!(t.insert(&b, fp).is_new());
        }
        for i in (0..5000u16).rev() {
            let b = i.to_le_bytes();
            let fp = ((i as u64 % 3) << 62) | 1;
            assert_eq!(t.find(&b, fp), Some(i as u32));
        }
    }

    #[test]
    fn growth_prediction() {
        let mut s = StateStore::new(8);
        let mut last = s.bytes_used();
        for i in 0..100_000u64 {
            let b = i.to_le_bytes();
            let predicted = s.next_growth_bytes();
            s.insert(&b, fp_of(&b));
            let now = s.bytes_used();
            if predicted == 0 {
                assert_eq!(now, last, "grew without warning at {i}");
            } else {
                assert!(now > last);
            }
            // Old table freed after doubling: growth beyond bytes-before is
            // at most the predicted figure.
            assert!(now <= last + predicted, "at {i}: {now} > {last} + {predicted}");
            last = now;
        }
    }

    #[test]
    fn growing_ahead_keeps_every_state_and_skips_the_growth_it_made() {
        let mut s = StateStore::new(8);
        let keys: Vec<[u8; 8]> = (0..1000u64).map(|i| i.to_le_bytes()).collect();
        for k in &keys {
            s.insert(k, fp_of(k));
        }
        // 1000 states in 2048 slots: the next growth comes at 1433.
        assert_eq!(s.growth_within(400), 0);
        assert_eq!(s.growth_within(500), 2048 * 2 * 8);
        s.grow_now();
        assert_eq!(s.growth_within(500), 0);
        assert_eq!(s.bytes_used() - s.arena_bytes(), 4096 * 8);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(s.insert(k, fp_of(k)), Insert::Seen(i as u32));
        }
        let b = 1000u64.to_be_bytes();
        assert_eq!(s.insert(&b, fp_of(&b)), Insert::New(1000));
    }

    #[test]
    fn zero_length_states() {
        let mut s = StateStore::new(0);
        assert_eq!(s.insert(&[], 42), Insert::New(0));
        assert_eq!(s.insert(&[], 42), Insert::Seen(0));
        assert_eq!(s.get(0), &[] as &[u8]);
    }
}
