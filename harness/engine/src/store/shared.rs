//! The exact store of the parallel search: one index shared by every
//! thread, written without locks, and one state arena per thread.
//!
//! **Index.** An open-addressing table of 64-bit entries `tag << 32 |
//! (id + 1)`, as [`StateStore`](crate::store::StateStore)'s, but atomic:
//! a thread claims an empty slot with a compare-and-swap, so that two
//! threads inserting the same state agree on one id (the find-or-put of
//! LTSmin's shared hash table: Laarman, van de Pol, Weber, *Boosting
//! Multi-Core Reachability Performance with Shared Hash Tables*, FMCAD
//! 2010). Unlike theirs, ours grows: threads work under a read lock
//! (taken once per block of work, so uncontended), and the index doubles
//! under the write lock, every thread waiting at the end of its block
//! (the entries are moved on as many threads as there are writers).
//!
//! **Room.** So that no insertion ever finds the index full, a thread
//! inserts only with an allowance: slots it was granted, in blocks of
//! [`GRANT`] (fewer for the shared tree store's tables), from the room the index has below three quarters full; when
//! the room is exhausted the index grows first. Three quarters at worst,
//! like the sequential store's 0.7.
//!
//! **Arenas.** Thread `q` appends the states it inserts to its own arena,
//! and a state's id says where it is (`local << q_bits | q`), so appending
//! needs no synchronisation. A thread writes a new state into its arena
//! *before* the compare-and-swap that publishes its id (which orders the
//! write before any reader's load of the slot), and counts it only when
//! the swap succeeds: a lost race leaves nothing behind. Arena chunks never
//! move, so readers need no lock.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

use crate::store::{advise_huge_pages, prefetch_line, prefetch_state_lines, Insert, MAX_STATES};

/// A visited set the threads of a parallel search share: this module's
/// exact store, or the tree store of [`crate::store::tree::shared`]. Each
/// thread `q` inserts through its own [`ConcurrentStore::writer`], which
/// appends the states it stores to arena `q`: a level of the parallel BFS
/// is a range of each arena, and an id says which arena holds its state.
pub trait ConcurrentStore: Sync {
    type Writer<'a>: StoreWriter
    where
        Self: 'a;
    /// Thread `q`'s handle (one at a time per `q`).
    fn writer(&self, q: usize) -> Self::Writer<'_>;
    /// States in arena `q`.
    fn arena_len(&self, q: usize) -> usize;
    /// Stored states (exact when no thread is inserting).
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The id of the `local`-th state of arena `q`.
    fn id(&self, q: usize, local: usize) -> u32;
    /// Arena and position of `id`.
    fn locate(&self, id: u32) -> (usize, usize);
    /// The bytes kept with stored state `id` (a parent link).
    fn extra(&self, id: u32) -> &[u8];
    /// Stored state `id`, copied out (counterexamples).
    fn read(&self, id: u32) -> Vec<u8>;
    /// Bytes allocated.
    fn bytes_used(&self) -> usize;
    /// Bytes the next insertions could allocate.
    fn next_growth_bytes(&self) -> usize;
}

/// One thread's lookups and insertions in a [`ConcurrentStore`]: under
/// read locks taken at the first use after a [`release`](Self::release),
/// which a thread calls between blocks of work (and before it waits), so
/// that a thread growing an index can take its write lock.
pub trait StoreWriter {
    fn release(&mut self);
    /// Makes sure the next insertion takes no lock (it may grow an index
    /// now): for a caller that must not wait once it holds a reservation.
    fn ensure_room(&mut self);
    /// Stored state `id`, read to be expanded as the `slot`-th source of
    /// a batch (the tree store remembers its tree: see `expanding`).
    fn load(&mut self, slot: usize, id: u32) -> &[u8];
    /// The next insertions are successors of the batch's `slot`-th source.
    fn expanding(&mut self, _slot: usize) {}
    /// Whether lookups read the fingerprints passed to them (the tree
    /// store's do not: its tables hash pairs), so that a search computes
    /// them only if so.
    const FINGERPRINTS: bool = true;
    /// Starts loading what a lookup of `fp` reads first.
    fn prefetch(&mut self, fp: u64);
    /// Then the stored state it compares first.
    fn prefetch_state(&mut self, fp: u64);
    /// The id of `state` if it is stored.
    fn find(&mut self, state: &[u8], fp: u64) -> Option<u32>;
    /// Inserts `state` unless stored (by any thread), keeping `extra` with
    /// it if new; its id and whether this call stored it.
    fn insert_with(&mut self, state: &[u8], extra: &[u8], fp: u64) -> Insert;
    /// The last extra byte of stored state `id`, as flags the threads
    /// share (CNDFS's colours): beside the state's bytes, so that a search
    /// that has just compared them finds its flags in the cache. A store
    /// whose extra bytes end in such flags reads them only through this
    /// (never as [`ConcurrentStore::extra`]).
    fn mark(&mut self, id: u32) -> &AtomicU8;
}

impl ConcurrentStore for SharedStore {
    type Writer<'a> = Writer<'a>;
    fn writer(&self, q: usize) -> Writer<'_> {
        SharedStore::writer(self, q)
    }
    fn arena_len(&self, q: usize) -> usize {
        SharedStore::arena_len(self, q)
    }
    fn len(&self) -> usize {
        SharedStore::len(self)
    }
    #[inline]
    fn id(&self, q: usize, local: usize) -> u32 {
        SharedStore::id(self, q, local)
    }
    #[inline]
    fn locate(&self, id: u32) -> (usize, usize) {
        SharedStore::locate(self, id)
    }
    fn extra(&self, id: u32) -> &[u8] {
        SharedStore::extra(self, id)
    }
    fn read(&self, id: u32) -> Vec<u8> {
        self.get(id).to_vec()
    }
    fn bytes_used(&self) -> usize {
        SharedStore::bytes_used(self)
    }
    fn next_growth_bytes(&self) -> usize {
        SharedStore::next_growth_bytes(self)
    }
}

impl StoreWriter for Writer<'_> {
    fn release(&mut self) {
        Writer::release(self)
    }
    fn ensure_room(&mut self) {
        Writer::ensure_room(self)
    }
    #[inline]
    fn load(&mut self, _slot: usize, id: u32) -> &[u8] {
        Writer::stored(&mut self.chunks, self.store, id)
    }
    #[inline]
    fn prefetch(&mut self, fp: u64) {
        Writer::prefetch(self, fp)
    }
    #[inline]
    fn prefetch_state(&mut self, fp: u64) {
        Writer::prefetch_state(self, fp)
    }
    fn find(&mut self, state: &[u8], fp: u64) -> Option<u32> {
        Writer::find(self, state, fp)
    }
    #[inline]
    fn insert_with(&mut self, state: &[u8], extra: &[u8], fp: u64) -> Insert {
        Writer::insert_with(self, state, extra, fp)
    }
    #[inline]
    fn mark(&mut self, id: u32) -> &AtomicU8 {
        Writer::mark(self, id)
    }
}

/// Slots granted to a thread at a time.
pub const GRANT: i64 = 1024;
/// Insertions a thread may make between two polls of the budget, for the
/// memory budget's lookahead (a claim of 256 sources with up to 256 new
/// successors each: the index's growth is foreseen this far ahead).
const POLL_INSERTIONS: i64 = 1 << 16;
/// Bytes of an arena chunk (rounded down to a power of two of states).
const CHUNK_BYTES: usize = 256 * 1024;
/// Index size (slots) from which its growth runs on several threads.
const PARALLEL_GROWTH: usize = 1 << 18;
/// Initial index size (slots).
const MIN_TABLE: usize = 1 << 12;

/// The index: atomic slots and log2 of their number.
struct Table {
    slots: Box<[AtomicU64]>,
    bits: u32,
}

impl Table {
    fn new(bits: u32) -> Table {
        // A home is the tag's top `bits` bits (`home`): past 32, every
        // home would be 0, and the plain stores of a growth would race.
        // (3 * 2^30 states; the sequential store stops there too.)
        assert!(bits <= 32, "the state index cannot grow past 2^32 slots");
        // Zeroed memory is a table of empty `AtomicU64`s (same layout as
        // `u64`); `vec![0; n]` gets it from the allocator without touching
        // it, so the pages come (huge where possible) at first write.
        let zeroed: Box<[u64]> = vec![0u64; 1 << bits].into_boxed_slice();
        advise_huge_pages(&zeroed);
        // SAFETY: `AtomicU64` has the size and alignment of `u64`.
        let slots = unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [AtomicU64]) };
        Table { slots, bits }
    }

    #[inline]
    fn home(&self, tag: u64) -> usize {
        (tag >> (32 - self.bits)) as usize
    }

    /// Moves every entry of `old` into this (empty, twice as large) table,
    /// on up to `threads` threads for a large one: the other workers wait
    /// for the growth (it holds the write lock), so their cores are free,
    /// and a growth is a tenth of a search's time (the new table's pages
    /// faulted in, the entries moved).
    ///
    /// Plain loads and stores, no compare-and-swap: a locked instruction
    /// waits for its cache line, so a move by compare-and-swap had one miss
    /// in flight at a time (fischer.6 spent 0.32 s of a 1.5 s search in
    /// growths), where plain stores let the misses of many entries overlap.
    /// The threads write disjoint slots: each moves whole clusters of `old`
    /// (its range starts at an empty slot and ends at the next thread's),
    /// and the entries of a cluster `[s, e)` of `old` land in `[2s, 2e)`
    /// of this table (their homes double; at most `e - floor(h / 2)` of them have a
    /// home at or after slot `h` here, which fits below `2e`), wrapping
    /// around with the last cluster.
    fn take_from(&self, old: &Table, threads: usize) {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = if old.slots.len() >= PARALLEL_GROWTH {
            threads.min(cores).max(1)
        } else {
            1
        };
        let ranges = Table::cluster_ranges(old, threads);
        if let [(lo, hi)] = ranges[..] {
            self.move_range(old, lo, hi);
            return;
        }
        std::thread::scope(|scope| {
            for &(lo, hi) in &ranges[1..] {
                scope.spawn(move || self.move_range(old, lo, hi));
            }
            self.move_range(old, ranges[0].0, ranges[0].1);
        });
    }

    /// `threads` ranges of slot positions of `old` (modulo its size) that
    /// cover it once, each starting at an empty slot: the first empty slot
    /// at or after each thread's share (a table at most 3/4 full has one),
    /// never before the previous start; the last wraps around to the first
    /// start.
    fn cluster_ranges(old: &Table, threads: usize) -> Vec<(usize, usize)> {
        let n = old.slots.len();
        let mut starts: Vec<usize> = Vec::with_capacity(threads + 1);
        for k in 0..threads {
            let mut i = (k * n / threads).max(starts.last().copied().unwrap_or(0));
            while old.slots[i % n].load(Ordering::Relaxed) != 0 {
                i += 1;
                assert!(i < 2 * n, "a growth found the index full");
            }
            starts.push(i);
        }
        starts.push(starts[0] + n);
        starts.windows(2).map(|w| (w[0], w[1])).collect()
    }

    /// Moves the entries at positions `lo..hi` of `old` (modulo its size)
    /// here, each to the first free slot from its home.
    fn move_range(&self, old: &Table, lo: usize, hi: usize) {
        debug_assert_eq!(self.bits, old.bits + 1);
        let (n, mask) = (old.slots.len(), self.slots.len() - 1);
        for i in lo..hi {
            let e = old.slots[i % n].load(Ordering::Relaxed);
            if e != 0 {
                let mut slot = self.home(e >> 32);
                while self.slots[slot].load(Ordering::Relaxed) != 0 {
                    slot = (slot + 1) & mask;
                }
                self.slots[slot].store(e, Ordering::Relaxed);
            }
        }
    }

    /// Three quarters of the slots: the most that may be granted.
    fn room(&self) -> i64 {
        (self.slots.len() / 4 * 3) as i64
    }
}

/// One thread's states: chunks of `1 << shift` states that never move,
/// the pointers to them in a directory of two levels: blocks of [`BLOCK`]
/// chunk pointers, allocated as the arena grows, and the pointers to the
/// blocks, as many as the most states a store may hold need (a directory
/// allocated whole for them would cost 8 MiB a thread, and 16 MiB for each
/// of the shared tree store's tables, whose chunks are small). Read by
/// every thread at every lookup, so nothing written often shares its cache
/// line.
#[repr(align(128))]
struct Arena {
    blocks: Box<[AtomicUsize]>,
    chunks: AtomicUsize,
}

/// Chunk pointers per directory block (4 KiB).
const BLOCK: usize = 512;

/// An arena's committed states (written by its owner at every insertion:
/// a cache line of its own).
#[repr(align(128))]
struct Len(AtomicUsize);

/// `n` zeroed atomics.
fn zeroed_atomics(n: usize) -> Box<[AtomicUsize]> {
    let zeroed: Box<[usize]> = vec![0usize; n].into_boxed_slice();
    // SAFETY: `AtomicUsize` has the layout of `usize`.
    unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [AtomicUsize]) }
}

/// A concurrent exact store for `writers` threads.
pub struct SharedStore {
    state_len: usize,
    /// Bytes kept with each state (a parent link; 0 for none) and the
    /// slot they make together.
    extra: usize,
    stride: usize,
    writers: usize,
    /// Bits of an id that name its arena.
    q_bits: u32,
    shift: u32,
    table: RwLock<Table>,
    /// Slots that may still be granted before the index must grow, and
    /// how many a thread takes at a time.
    room: AtomicI64,
    grant: i64,
    /// Bytes of the index (published for the memory budget).
    table_bytes: AtomicUsize,
    arenas: Vec<Arena>,
    lens: Vec<Len>,
    /// Per thread, the chunk addresses its writers have looked up (see
    /// [`Writer::state_ptr`]), kept from one writer to the next, and
    /// their bytes.
    chunk_caches: Vec<Mutex<Vec<usize>>>,
    chunk_cache_bytes: AtomicUsize,
}

impl SharedStore {
    pub fn new(state_len: usize, writers: usize) -> SharedStore {
        SharedStore::with_extra(state_len, 0, writers)
    }

    /// A store that keeps `extra` bytes with each state
    /// ([`Writer::insert_with`], [`SharedStore::extra`]).
    pub fn with_extra(state_len: usize, extra: usize, writers: usize) -> SharedStore {
        SharedStore::with_chunks(state_len, extra, writers, CHUNK_BYTES, GRANT)
    }

    /// [`with_extra`](Self::with_extra), with arena chunks of about
    /// `chunk_bytes` and grants of `grant` slots (the tree store's many
    /// small tables take small ones: a grant per thread in each table
    /// would otherwise grow the smallest before they fill).
    pub fn with_chunks(
        state_len: usize,
        extra: usize,
        writers: usize,
        chunk_bytes: usize,
        grant: i64,
    ) -> SharedStore {
        let writers = writers.max(1);
        let stride = state_len + extra;
        let per_chunk = (chunk_bytes / stride.max(1)).max(16);
        let shift = usize::BITS - 1 - per_chunk.leading_zeros();
        let q_bits = usize::BITS - (writers - 1).leading_zeros();
        let dir_len = (MAX_STATES >> q_bits >> shift) + 2;
        let blocks_len = dir_len.div_ceil(BLOCK);
        let table = Table::new(MIN_TABLE.trailing_zeros());
        SharedStore {
            state_len,
            extra,
            stride,
            writers,
            q_bits,
            shift,
            room: AtomicI64::new(table.room()),
            grant: grant.max(1),
            table_bytes: AtomicUsize::new(table.slots.len() * 8),
            table: RwLock::new(table),
            arenas: (0..writers)
                .map(|_| Arena {
                    blocks: zeroed_atomics(blocks_len),
                    chunks: AtomicUsize::new(0),
                })
                .collect(),
            lens: (0..writers).map(|_| Len(AtomicUsize::new(0))).collect(),
            chunk_caches: (0..writers).map(|_| Mutex::new(Vec::new())).collect(),
            chunk_cache_bytes: AtomicUsize::new(0),
        }
    }

    pub fn state_len(&self) -> usize {
        self.state_len
    }

    fn chunk_bytes(&self) -> usize {
        (1 << self.shift) * self.stride
    }

    /// States in arena `q`.
    pub fn arena_len(&self, q: usize) -> usize {
        self.lens[q].0.load(Ordering::Acquire)
    }

    /// Stored states (exact when no thread is inserting).
    pub fn len(&self) -> usize {
        (0..self.writers).map(|q| self.arena_len(q)).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of the `local`-th state of arena `q`.
    #[inline]
    pub fn id(&self, q: usize, local: usize) -> u32 {
        ((local << self.q_bits) | q) as u32
    }

    /// Arena and position of `id`.
    #[inline]
    pub fn locate(&self, id: u32) -> (usize, usize) {
        let id = id as usize;
        (id & ((1 << self.q_bits) - 1), id >> self.q_bits)
    }

    #[inline]
    fn slot_ptr(&self, q: usize, local: usize) -> *mut u8 {
        let c = local >> self.shift;
        let block = self.arenas[q].blocks[c / BLOCK].load(Ordering::Acquire) as *const AtomicUsize;
        debug_assert!(!block.is_null());
        // SAFETY: the block of a published chunk is allocated (`BLOCK`
        // pointers) and lives as long as `self`.
        let chunk = unsafe { (*block.add(c % BLOCK)).load(Ordering::Acquire) } as *mut u8;
        debug_assert!(!chunk.is_null());
        // SAFETY (for the caller's use): the chunk holds `1 << shift`
        // states; the offset is of one of them.
        unsafe { chunk.add((local & ((1 << self.shift) - 1)) * self.stride) }
    }

    /// The bytes of stored state `id` (an id the index gave).
    #[inline]
    pub(crate) fn get(&self, id: u32) -> &[u8] {
        let (q, local) = self.locate(id);
        // `<=`: the owner publishes an id just before it counts it.
        debug_assert!(local <= self.arena_len(q));
        // SAFETY: a stored id's bytes were written before the id was
        // published (release) and read after it was found (acquire), and
        // are never written again; the chunk lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.slot_ptr(q, local), self.state_len) }
    }

    /// The bytes kept with stored state `id` (an id the index gave).
    pub(crate) fn extra(&self, id: u32) -> &[u8] {
        let (q, local) = self.locate(id);
        // `<=`: the owner publishes an id just before it counts it.
        debug_assert!(local <= self.arena_len(q));
        // SAFETY: as in `get`: written before the id was published.
        unsafe { std::slice::from_raw_parts(self.slot_ptr(q, local).add(self.state_len), self.extra) }
    }

    /// Bytes allocated: the index, the arena chunks and their directories
    /// (the shared one and the threads' copies).
    pub fn bytes_used(&self) -> usize {
        let directory: usize = self
            .arenas
            .iter()
            .map(|a| a.blocks.len() * 8 + a.chunks.load(Ordering::Relaxed).div_ceil(BLOCK) * BLOCK * 8)
            .sum();
        let chunks: usize = self.arenas.iter().map(|a| a.chunks.load(Ordering::Relaxed)).sum();
        self.table_bytes.load(Ordering::Relaxed)
            + chunks * self.chunk_bytes()
            + directory
            + self.chunk_cache_bytes.load(Ordering::Relaxed)
    }

    /// Bytes the next insertions could allocate: a chunk (and a directory
    /// block) per thread, and the doubled index (old and new coexist) when
    /// its room runs low: below what the threads may insert before they
    /// poll the budget again (a block of work: 256 sources, each with at
    /// most `POLL_INSERTIONS` / 256 new successors), or their grants.
    pub fn next_growth_bytes(&self) -> usize {
        let mut bytes = self.writers * (self.chunk_bytes() + BLOCK * 8);
        let low = self.grant.max(POLL_INSERTIONS) * self.writers as i64;
        if self.room.load(Ordering::Relaxed) < low {
            bytes += 2 * self.table_bytes.load(Ordering::Relaxed);
        }
        bytes
    }

    /// A handle for thread `q`: at most one at a time per `q` (it alone
    /// appends to arena `q`; the caller, `engine::loops::parallel`, keeps to it).
    pub(crate) fn writer(&self, q: usize) -> Writer<'_> {
        assert!(q < self.writers);
        Writer {
            store: self,
            q,
            allowance: 0,
            guard: None,
            chunks: std::mem::take(&mut *self.chunk_caches[q].lock().unwrap_or_else(|e| e.into_inner())),
        }
    }
}

impl Drop for SharedStore {
    fn drop(&mut self) {
        let bytes = self.chunk_bytes();
        for a in &self.arenas {
            let chunks = a.chunks.load(Ordering::Relaxed);
            for b in 0..chunks.div_ceil(BLOCK) {
                let block = a.blocks[b].load(Ordering::Relaxed) as *mut AtomicUsize;
                // SAFETY: allocated in `Writer::reserve` as a boxed slice of
                // `BLOCK` pointers, freed once here.
                let block = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(block, BLOCK)) };
                for p in block.iter().take(chunks - b * BLOCK) {
                    let p = p.load(Ordering::Relaxed) as *mut u8;
                    // SAFETY: allocated in `Writer::reserve` as a boxed
                    // slice of `bytes` bytes, freed once here.
                    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, bytes)) });
                }
            }
        }
    }
}

/// Thread `q`'s access to a [`SharedStore`]: lookups and insertions under
/// the index's read lock (taken at the first use after a
/// [`release`](Self::release)).
pub struct Writer<'a> {
    store: &'a SharedStore,
    q: usize,
    /// Slots granted and not yet used.
    allowance: i64,
    guard: Option<RwLockReadGuard<'a, Table>>,
    /// The chunk addresses this thread has looked up, by
    /// `chunk << q_bits | arena` (0: not yet).
    chunks: Vec<usize>,
}

impl Drop for Writer<'_> {
    /// Gives the unused grant back (a writer lives for one level).
    fn drop(&mut self) {
        self.store.room.fetch_add(self.allowance, Ordering::AcqRel);
        *self.store.chunk_caches[self.q]
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = std::mem::take(&mut self.chunks);
    }
}

impl<'a> Writer<'a> {
    /// Where stored state `id` (an id the index gave) starts: as
    /// [`SharedStore::get`], through this thread's copy of the chunk
    /// directory (`chunks`), one flat array: two loads where the
    /// directory's two levels take four (the arena, its blocks, the block,
    /// the chunk), each waited for before the state's own miss can start.
    /// Chunks never move, so a copied address stays right; the
    /// copy is filled at first use of each chunk. (On the writer's fields,
    /// so that a caller may hold the index's guard meanwhile.)
    #[inline]
    fn locate_in(chunks: &mut Vec<usize>, s: &SharedStore, id: u32) -> *const u8 {
        let id = id as usize;
        let q = id & ((1 << s.q_bits) - 1);
        let local = id >> s.q_bits;
        // `<=`: the owner publishes an id just before it counts it.
        debug_assert!(local <= s.arena_len(q));
        let key = ((local >> s.shift) << s.q_bits) | q;
        let chunk = match chunks.get(key) {
            Some(&c) if c != 0 => c,
            _ => Self::chunk_miss(chunks, s, key, q, local),
        };
        (chunk + (local & ((1 << s.shift) - 1)) * s.stride) as *const u8
    }

    /// The bytes of stored state `id`, as [`SharedStore::get`] (through
    /// [`locate_in`](Self::locate_in)).
    #[inline]
    fn stored<'s>(chunks: &mut Vec<usize>, s: &'s SharedStore, id: u32) -> &'s [u8] {
        // SAFETY: as in `SharedStore::get`.
        unsafe { std::slice::from_raw_parts(Self::locate_in(chunks, s, id), s.state_len) }
    }

    #[cold]
    #[inline(never)]
    fn chunk_miss(chunks: &mut Vec<usize>, s: &SharedStore, key: usize, q: usize, local: usize) -> usize {
        if key >= chunks.len() {
            let len = (key + 1).next_power_of_two();
            s.chunk_cache_bytes
                .fetch_add((len - chunks.len()) * 8, Ordering::Relaxed);
            chunks.reserve_exact(len - chunks.len());
            chunks.resize(len, 0);
        }
        let c = s.slot_ptr(q, local >> s.shift << s.shift) as usize;
        chunks[key] = c;
        c
    }

    /// [`StoreWriter::mark`].
    #[inline]
    pub fn mark(&mut self, id: u32) -> &AtomicU8 {
        let s = self.store;
        assert!(s.extra > 0, "a store without extra bytes has no marks");
        let at = Self::locate_in(&mut self.chunks, s, id);
        // SAFETY: the byte is in the chunk (its state's last extra byte),
        // which lives as long as `s`; it was written before the id was
        // published and, by the caller's contract, is accessed only
        // atomically since (the states' bytes, read plainly, do not
        // include it).
        unsafe { AtomicU8::from_ptr(at.add(s.stride - 1) as *mut u8) }
    }

    /// Lets a thread that must grow the index in (call between blocks of
    /// work).
    pub fn release(&mut self) {
        self.guard = None;
    }

    #[inline]
    fn table(&mut self) -> &Table {
        if self.guard.is_none() {
            self.guard = Some(self.store.table.read().unwrap_or_else(|e| e.into_inner()));
        }
        self.guard.as_ref().expect("guard")
    }

    /// Starts loading the index slot a lookup of `fp` reads first.
    #[inline]
    pub fn prefetch(&mut self, fp: u64) {
        let t = self.table();
        prefetch_line(&t.slots[t.home(fp >> 32)]);
    }

    /// Starts loading the stored state a lookup of `fp` compares first.
    #[inline]
    pub fn prefetch_state(&mut self, fp: u64) {
        let tag = fp >> 32;
        let t = self.table();
        // Acquire: the id's chunk pointer must be seen (as for a lookup).
        let e = t.slots[t.home(tag)].load(Ordering::Acquire);
        if e != 0 && e >> 32 == tag {
            prefetch_state_lines(Self::stored(&mut self.chunks, self.store, (e as u32) - 1));
        }
    }

    /// The id of `state` if it is stored.
    pub fn find(&mut self, state: &[u8], fp: u64) -> Option<u32> {
        self.table();
        let t = self.guard.as_deref().expect("guard");
        let tag = fp >> 32;
        Self::probe(&mut self.chunks, self.store, t, state, tag, t.home(tag)).ok()
    }

    /// The id of `state` (whose tag is `tag`) if it is met from index slot
    /// `slot` on before an empty slot; else that empty slot.
    #[inline]
    fn probe(
        chunks: &mut Vec<usize>,
        store: &SharedStore,
        t: &Table,
        state: &[u8],
        tag: u64,
        mut slot: usize,
    ) -> Result<u32, usize> {
        let mask = t.slots.len() - 1;
        loop {
            let e = t.slots[slot].load(Ordering::Acquire);
            if e == 0 {
                return Err(slot);
            }
            if e >> 32 == tag && Self::stored(chunks, store, (e as u32) - 1) == state {
                return Ok((e as u32) - 1);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Inserts `state` unless stored (by any thread); its id and whether
    /// this call stored it.
    #[inline]
    pub fn insert(&mut self, state: &[u8], fp: u64) -> Insert {
        self.insert_with(state, &[], fp)
    }

    /// [`insert`](Self::insert), keeping `extra` (the store's extra bytes)
    /// with the state if it is new.
    pub fn insert_with(&mut self, state: &[u8], extra: &[u8], fp: u64) -> Insert {
        // Most successors are stored already: their lookup is the probe
        // alone, as short as the sequential store's (the insertion, with
        // its checks, copy and compare-and-swap, is out of line: inlined,
        // it made every lookup pay for its registers).
        let tag = fp >> 32;
        self.table();
        let t = self.guard.as_deref().expect("guard");
        match Self::probe(&mut self.chunks, self.store, t, state, tag, t.home(tag)) {
            Ok(id) => Insert::Seen(id),
            Err(slot) => self.insert_new(state, extra, tag, slot),
        }
    }

    /// The rest of [`insert_with`](Self::insert_with) for a state not found
    /// up to the empty index slot `slot`: written into this thread's arena,
    /// then published there by a compare-and-swap, or further on if another
    /// thread took the slot first (unless that thread stored this very
    /// state).
    #[inline(never)]
    fn insert_new(&mut self, state: &[u8], extra: &[u8], tag: u64, mut slot: usize) -> Insert {
        // Checked always: the copies below trust these lengths.
        assert_eq!(state.len(), self.store.state_len);
        assert_eq!(extra.len(), self.store.extra);
        if self.allowance == 0 {
            // The index may grow meanwhile: `slot` is then stale, and the
            // lookup starts again (from the tag: all it reads of `fp`).
            self.refill();
            return self.insert_with(state, extra, tag << 32);
        }
        let store = self.store;
        let q = self.q;
        let local = store.lens[q].0.load(Ordering::Relaxed);
        let id = store.id(q, local);
        // Before the swap: a reader that finds the id must find the bytes.
        assert!(local < MAX_STATES >> store.q_bits, "state store full");
        Self::reserve(store, q, local);
        // SAFETY: position `local` of arena `q` is past its committed
        // states: no other thread reads it, and only this one (the arena's
        // owner) writes.
        unsafe {
            let at = store.slot_ptr(q, local);
            std::ptr::copy_nonoverlapping(state.as_ptr(), at, state.len());
            std::ptr::copy_nonoverlapping(extra.as_ptr(), at.add(state.len()), extra.len());
        }
        let entry = (tag << 32) | (id as u64 + 1);
        let t = self.guard.as_deref().expect("guard");
        loop {
            if t.slots[slot]
                .compare_exchange(0, entry, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                store.lens[q].0.store(local + 1, Ordering::Release);
                self.allowance -= 1;
                return Insert::New(id);
            }
            // Another thread took the slot: its state, then those after
            // it, compared up to the next empty slot. Found, the bytes
            // written above are not counted (the next new state
            // overwrites them).
            match Self::probe(&mut self.chunks, store, t, state, tag, slot) {
                Ok(found) => return Insert::Seen(found),
                Err(empty) => slot = empty,
            }
        }
    }

    /// Makes sure arena `q` has a chunk for position `local` (the owner
    /// only).
    fn reserve(store: &SharedStore, q: usize, local: usize) {
        let a = &store.arenas[q];
        let c = local >> store.shift;
        if c < a.chunks.load(Ordering::Relaxed) {
            return;
        }
        if c.is_multiple_of(BLOCK) {
            let block = Box::into_raw(zeroed_atomics(BLOCK)) as *mut AtomicUsize;
            a.blocks[c / BLOCK].store(block as usize, Ordering::Release);
        }
        let block = a.blocks[c / BLOCK].load(Ordering::Relaxed) as *const AtomicUsize;
        let chunk: Box<[u8]> = vec![0u8; store.chunk_bytes()].into_boxed_slice();
        // SAFETY: the block was allocated above or for an earlier chunk.
        unsafe { (*block.add(c % BLOCK)).store(Box::into_raw(chunk) as *mut u8 as usize, Ordering::Release) };
        a.chunks.store(c + 1, Ordering::Relaxed);
    }

    /// Whether the next insertion needs no grant (and so takes no write
    /// lock).
    pub fn has_room(&self) -> bool {
        self.allowance > 0
    }

    /// Takes the index's read lock now if not held (a writer of several
    /// stores takes their locks in one order: `shared_tree_store`).
    pub fn hold(&mut self) {
        self.table();
    }

    /// Makes sure the next insertion takes no lock (it may grow the index
    /// now): for a caller that must not wait once it holds a reservation.
    pub fn ensure_room(&mut self) {
        if self.allowance == 0 {
            self.refill();
        }
    }

    /// Takes a grant of slots, growing the index first if it has no room.
    fn refill(&mut self) {
        let store = self.store;
        loop {
            let grant = store.grant;
            if store.room.fetch_sub(grant, Ordering::AcqRel) >= grant {
                self.allowance += grant;
                return;
            }
            store.room.fetch_add(grant, Ordering::AcqRel);
            // Grow: every other thread is outside its block of work (not
            // holding the read lock) while this holds the write lock.
            self.guard = None;
            let mut t = store.table.write().unwrap_or_else(|e| e.into_inner());
            if store.room.load(Ordering::Acquire) < grant {
                let old_room = t.room();
                let bigger = Table::new(t.bits + 1);
                bigger.take_from(&t, store.writers);
                store.room.fetch_add(bigger.room() - old_room, Ordering::AcqRel);
                store.table_bytes.store(bigger.slots.len() * 8, Ordering::Relaxed);
                let old = std::mem::replace(&mut *t, bigger);
                // The old index is freed after the lock is given back:
                // returning a large table's pages to the kernel is slow, and
                // every other thread would wait for it (results/engine/NOTES.md).
                drop(t);
                drop(old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of `bits` filled to `load` with entries of distinct
    /// pseudo-random tags, clustered where their homes meet, some of them
    /// around the end (as `insert_with` places them).
    fn filled(bits: u32, load: f64, seed: u64) -> (Table, Vec<u64>) {
        filled_with(bits, load, seed, |x| x >> 32)
    }

    /// As [`filled`], the tags made from the random numbers by `tag_of`.
    fn filled_with(bits: u32, load: f64, seed: u64, tag_of: impl Fn(u64) -> u64) -> (Table, Vec<u64>) {
        let t = Table::new(bits);
        let mask = t.slots.len() - 1;
        let mut x = seed;
        let mut entries = Vec::new();
        let mut tags = std::collections::HashSet::new();
        while (entries.len() as f64) < load * t.slots.len() as f64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let tag = tag_of(x);
            if tag == 0 || !tags.insert(tag) {
                continue;
            }
            let e = tag << 32 | (entries.len() as u64 + 1);
            let mut slot = t.home(tag);
            while t.slots[slot].load(Ordering::Relaxed) != 0 {
                slot = (slot + 1) & mask;
            }
            t.slots[slot].store(e, Ordering::Relaxed);
            entries.push(e);
        }
        (t, entries)
    }

    /// Every entry is found from its home by linear probing (no empty slot
    /// before it), and nothing else is in the table.
    fn check(t: &Table, entries: &[u64]) {
        let mask = t.slots.len() - 1;
        for &e in entries {
            let mut slot = t.home(e >> 32);
            loop {
                let got = t.slots[slot].load(Ordering::Relaxed);
                assert_ne!(got, 0, "entry {e:#x} lost (an empty slot on its probe path)");
                if got == e {
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        let stored = t.slots.iter().filter(|s| s.load(Ordering::Relaxed) != 0).count();
        assert_eq!(stored, entries.len());
    }

    #[test]
    fn a_growth_keeps_every_entry_reachable() {
        // 2^18 slots and more grow on several threads; 3/4 full is the
        // most the grants allow; the densest tables have long clusters.
        for (bits, load, seed) in [(18, 0.75, 1), (19, 0.75, 2), (18, 0.5, 3), (12, 0.75, 4)] {
            let (old, entries) = filled(bits, load, seed);
            let new = Table::new(bits + 1);
            new.take_from(&old, 2);
            check(&new, &entries);
        }
    }

    /// What makes the threads' plain stores safe, checked without relying
    /// on timing: the ranges of any number of threads write disjoint slots
    /// (each range moved into a table of its own), and together they give
    /// the table a single thread gives.
    #[test]
    fn growth_ranges_write_disjoint_slots() {
        // The last table: every home among the last 8 slots, so one
        // cluster of 3/4 of the table wraps around the end, longer than
        // any thread's share, and most of 64 threads' ranges are empty.
        let wrapping = |x: u64| ((1023 - (x >> 61)) << 22) | (x >> 40 & 0x3f_ffff);
        let tables = [
            filled(18, 0.75, 1),
            filled(14, 0.75, 5),
            filled(13, 0.5, 6),
            filled_with(10, 0.75, 7, wrapping),
        ];
        for (i, (old, entries)) in tables.iter().enumerate() {
            let (bits, seed) = (old.bits, i + 1);
            let wraps = old.slots[0].load(Ordering::Relaxed) != 0
                && old.slots[old.slots.len() - 1].load(Ordering::Relaxed) != 0;
            assert!(
                wraps || !matches!(seed, 1 | 4),
                "the test wants a cluster around the end"
            );
            let one = Table::new(bits + 1);
            one.move_range(
                old,
                Table::cluster_ranges(old, 1)[0].0,
                Table::cluster_ranges(old, 1)[0].1,
            );
            check(&one, entries);
            for threads in [2, 3, 8, 64] {
                let ranges = Table::cluster_ranges(old, threads);
                if seed == 4 && threads == 64 {
                    assert!(
                        ranges.iter().any(|(lo, hi)| lo == hi),
                        "the test wants empty ranges"
                    );
                }
                assert_eq!(
                    ranges.iter().map(|(lo, hi)| hi - lo).sum::<usize>(),
                    old.slots.len()
                );
                let mut owner = vec![usize::MAX; 1 << (bits + 1)];
                for (k, &(lo, hi)) in ranges.iter().enumerate() {
                    let part = Table::new(bits + 1);
                    part.move_range(old, lo, hi);
                    for (slot, s) in part.slots.iter().enumerate() {
                        let e = s.load(Ordering::Relaxed);
                        if e != 0 {
                            assert_eq!(
                                owner[slot],
                                usize::MAX,
                                "{threads} threads: slot {slot} written by two ranges"
                            );
                            owner[slot] = k;
                            // Within the range's positions doubled.
                            let size = 1usize << (bits + 1);
                            assert!(
                                (slot + size - (2 * lo) % size) % size < 2 * (hi - lo),
                                "{threads} threads: slot {slot} outside range {k}'s {lo}..{hi} doubled"
                            );
                            assert_eq!(
                                e,
                                one.slots[slot].load(Ordering::Relaxed),
                                "{threads} threads: slot {slot}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// A state of `len` bytes made from `i` (distinct for distinct `i`).
    fn state_of(i: u32, len: usize) -> Vec<u8> {
        (0..len)
            .map(|k| (i.wrapping_mul(2654435761) >> (k % 4 * 8)) as u8 ^ k as u8)
            .collect()
    }

    /// Every thread reads every state through its copy of the chunk
    /// directory: states in many small chunks of two arenas, written by
    /// one writer per thread, found back by every thread's writers (with
    /// the copies the inserting writers left, then those the first round
    /// filled), with the bytes the id stands for.
    #[test]
    fn writers_find_every_state_through_their_chunk_copies() {
        let len = 12;
        // 16 states per chunk.
        let store = SharedStore::with_chunks(len, 0, 2, 16 * len, 8);
        let fp = |st: &[u8]| {
            let h = st.iter().fold(0xcbf29ce484222325u64, |h, &b| {
                (h ^ b as u64).wrapping_mul(0x100000001b3)
            });
            h | 1
        };
        let n = 3000u32;
        std::thread::scope(|scope| {
            for q in 0..2 {
                let store = &store;
                scope.spawn(move || {
                    let mut w = store.writer(q);
                    for i in (0..n).filter(|i| i % 2 == q as u32) {
                        let st = state_of(i, len);
                        assert!(w.insert(&st, fp(&st)).is_new());
                        w.release();
                    }
                });
            }
        });
        assert_eq!(store.len(), n as usize);
        for round in 0..2 {
            for q in 0..2 {
                let mut w = store.writer(q);
                // Not in the order stored, so that a chunk is first
                // met at a state other than its first.
                for k in 0..n {
                    let i = (k * 7 + 5) % n;
                    let st = state_of(i, len);
                    let id = w
                        .find(&st, fp(&st))
                        .unwrap_or_else(|| panic!("round {round}, writer {q}: state {i} lost"));
                    assert_eq!(store.get(id), &st[..]);
                    assert_eq!(w.load(0, id), &st[..]);
                    assert!(!w.insert(&st, fp(&st)).is_new());
                }
            }
        }
        assert!(store.chunk_cache_bytes.load(Ordering::Relaxed) > 0);
    }

    /// A state's mark is the byte after its other extra bytes: stored as
    /// given, set by one writer and seen by another, and written without
    /// touching the state, which every writer still finds (lookups compare
    /// the state's bytes only).
    #[test]
    fn marks_are_shared_and_leave_lookups_alone() {
        let len = 5;
        let store = SharedStore::with_chunks(len, 2, 2, 64 * (len + 2), 1);
        let (mut a, mut b) = (store.writer(0), store.writer(1));
        let fp = |i: u32| ((i as u64) << 32) | 1;
        let ids: Vec<u32> = (0..300)
            .map(|i| a.insert_with(&state_of(i, len), &[7, i as u8 & 1], fp(i)).id())
            .collect();
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(b.mark(id).load(Ordering::Relaxed), i as u8 & 1, "state {i}");
            if i % 3 == 0 {
                a.mark(id).fetch_or(0x80, Ordering::Relaxed);
            }
        }
        for (i, &id) in ids.iter().enumerate() {
            let want = (i as u8 & 1) | if i % 3 == 0 { 0x80 } else { 0 };
            assert_eq!(b.mark(id).load(Ordering::Relaxed), want, "state {i}");
            assert_eq!(
                b.find(&state_of(i as u32, len), fp(i as u32)),
                Some(id),
                "state {i}"
            );
            assert_eq!(
                b.insert_with(&state_of(i as u32, len), &[0, 0], fp(i as u32)),
                Insert::Seen(id)
            );
            assert_eq!(store.extra(id)[0], 7, "state {i}");
        }
        assert_eq!(store.len(), ids.len());
    }

    /// Threads racing to insert the same states: three writers (an arena
    /// index of two bits, one of its values unused), released together
    /// for each state, grants of one slot (the index grows under them)
    /// and fingerprints of only 8 tags (long probes, many states compared
    /// on the way, compare-and-swaps lost to a thread storing another
    /// state). Each state is new to exactly one thread, every thread gets
    /// its id, the id is in the winner's arena with the winner's extra
    /// bytes, and every writer finds every state afterwards.
    #[test]
    fn racing_writers_agree_on_one_id_per_state() {
        // Several times: a race the checks would catch may not happen in
        // a given run.
        for _ in 0..20 {
            race_three_writers();
        }
    }

    // (State `i` is looked at across the threads' results.)
    #[allow(clippy::needless_range_loop)]
    fn race_three_writers() {
        let (len, n, threads) = (8, 6000u32, 3);
        let store = SharedStore::with_chunks(len, 1, threads, 64 * (len + 1), 1);
        let fp = |i: u32| ((i as u64 % 8) << 32) | 1;
        let barrier = std::sync::Barrier::new(threads);
        let results: Vec<Vec<Insert>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|q| {
                    let (store, barrier) = (&store, &barrier);
                    scope.spawn(move || {
                        let mut w = store.writer(q);
                        let mut out = Vec::with_capacity(n as usize);
                        for i in 0..n {
                            // (Released first: a thread that must grow
                            // the index waits for the others' guards.)
                            w.release();
                            barrier.wait();
                            out.push(w.insert_with(&state_of(i, len), &[q as u8], fp(i)));
                        }
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a writer panicked"))
                .collect()
        });
        assert_eq!(store.len(), n as usize);
        for i in 0..n as usize {
            let id = |r: &Insert| match *r {
                Insert::New(id) | Insert::Seen(id) => id,
            };
            let winners: Vec<usize> = (0..threads).filter(|&q| results[q][i].is_new()).collect();
            assert_eq!(winners.len(), 1, "state {i}: new to threads {winners:?}");
            let the = id(&results[0][i]);
            assert!(
                (0..threads).all(|q| id(&results[q][i]) == the),
                "state {i}: ids differ"
            );
            assert_eq!(
                store.locate(the).0,
                winners[0],
                "state {i}: not in its winner's arena"
            );
            assert_eq!(store.extra(the), &[winners[0] as u8], "state {i}");
            assert_eq!(store.get(the), &state_of(i as u32, len)[..], "state {i}");
        }
        for q in 0..threads {
            let mut w = store.writer(q);
            for i in 0..n {
                assert!(
                    w.find(&state_of(i, len), fp(i)).is_some(),
                    "writer {q}: state {i} lost"
                );
            }
        }
    }
}
