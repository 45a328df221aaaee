//! Multi-core exhaustive breadth-first search (`explore --threads N`):
//! level-synchronous, every thread on one shared store.
//!
//! **Levels.** The states of a level are shared out in claims of
//! [`CLAIM`] sources, fewer in a small level (an atomic cursor per arena,
//! so a thread that is done early takes more). A thread takes the states
//! of its own arena first, which its core wrote, then helps with the
//! others' (its own core's cache may still hold them). Each thread
//! expands its claims and looks every successor
//! up in the [`SharedStore`], inserting it if new (one lookup per
//! transition, as the sequential search). A thread's new states go to its
//! own arena, so the next level is, per thread, the states its arena
//! gained during this one. The level ends when every thread is done. The
//! threads live as long as the search ([`Pool`]): between levels they
//! wait, spinning briefly and then parked, so that a level costs a wake-up
//! rather than a thread's start (hanoi.3 has 32,768 levels, most of a few
//! hundred states); a level smaller than [`SMALL_LEVEL`] is run on the
//! calling thread alone.
//!
//! So the set of states of each level, and every counter (states,
//! transitions, deadlocks, levels, back-level edges) of a search that
//! runs to its end, is the sequential search's, whatever the timing (a
//! search stopped early stops where its threads were): a successor
//! already stored when its
//! source's level began is of this or an earlier level (a back-level edge
//! unless a self-loop), any other of the next. Only the ids differ.
//!
//! **Checks.** A [`Watch`] sees every new state (the initial one too),
//! deadlock and erroneous transition; the first violation a thread finds
//! stops every thread at its next block (unless all are counted). Each
//! state then keeps its parent and the transition to it, so that the
//! counterexample is a path of the BFS tree: a shortest one.
//!
//! **Budgets.** The state limit is exact (a new state first reserves its
//! place in an atomic count, only when there is a limit); time,
//! interruption and memory (the store's index and arenas, and what they
//! may allocate next) are polled at every claim.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

use dve_frontend::model::{Label, NextState, Succ, SuccBuf};

use crate::counters::Counters;
use crate::limits::Budget;
use crate::loops::bfs::{LevelStats, BATCH};
use crate::loops::parent_links::{parent_link, trace_to, PARENT_BYTES};
use crate::loops::pool::{Close, Pool};
use crate::outcome::Outcome;
use crate::reduce::{Proviso, Reduce};
use crate::store::shared::{ConcurrentStore, SharedStore, StoreWriter};
use crate::store::tree::shared::SharedTreeStore;
use crate::store::Insert;
use crate::store::StoreKind;
use crate::trace::Trace;

/// Sources a thread takes at a time (then polls the budget and lets a
/// thread growing the index in).
const CLAIM: usize = 256;
/// Levels with fewer states are expanded on the calling thread (waking the
/// others would cost more than they bring). Small: the threads spin between
/// levels before they park, so a level's wake-up is cheap while levels
/// follow each other quickly (hanoi.3 has thousands of levels of a few
/// hundred states; results/parallel/NOTES.md).
const SMALL_LEVEL: usize = 48;

/// What a parallel search did (the fields of [`crate::Bfs`] that plain
/// exploration reports; no levels for the depth-first-like order).
#[derive(Clone, Debug, Default)]
pub struct ParallelRun {
    pub counters: Counters,
    pub levels: Vec<LevelStats>,
    pub back_level_edges: u64,
    pub max_back_level_edge: u64,
    pub store_bytes: u64,
    /// Peak bytes of the threads' successor buffers (and stacks).
    pub frontier_bytes: u64,
}

/// What a parallel search checks as it goes (a property check).
pub trait Watch: Sync {
    /// What a violation says.
    type Found: Send;
    /// States keep their parent (for counterexamples).
    const PARENTS: bool = true;
    /// A violation in a new state (the initial one included).
    fn state(&self, state: &[u8]) -> Option<Self::Found>;
    /// A violation in a deadlock.
    fn deadlock(&self) -> Option<Self::Found>;
    /// Whether a state without successors is a deadlock of the system
    /// (under a property process, it may be the automaton that is stuck).
    fn system_deadlock(&self, _state: &[u8]) -> bool {
        true
    }
    /// A violation in a transition raising a run-time error.
    fn error(&self) -> Option<Self::Found>;
    /// The violation an accepting cycle is (a search for them: CNDFS).
    fn accepting_cycle(&self) -> Option<Self::Found> {
        None
    }
    /// Count every violation instead of stopping at the first.
    fn all(&self) -> bool {
        false
    }
    /// Whether [`Watch::edge`] is called (a search that does not ask pays
    /// nothing for it).
    const EDGES: bool = false;
    /// Transition `e` from `src` to `dst` (store ids) was taken; `new` is
    /// `dst`'s state when this transition stored it.
    #[inline]
    fn edge(&self, _src: u32, _e: Succ, _dst: u32, _new: Option<&[u8]>) {}
    /// A reduction of every state's successors, as
    /// [`Observer::reducer`](crate::Observer::reducer); the
    /// proviso here: some kept successor is not stored yet.
    #[inline]
    fn reducer(&self) -> Option<&dyn Reduce> {
        None
    }
}

/// Plain exploration: nothing to check, no parents kept.
pub struct NoWatch;

impl Watch for NoWatch {
    type Found = ();
    const PARENTS: bool = false;
    fn state(&self, _: &[u8]) -> Option<()> {
        None
    }
    fn deadlock(&self) -> Option<()> {
        None
    }
    fn error(&self) -> Option<()> {
        None
    }
}

/// The first violation found and its counterexample.
pub type Violation<F> = (F, Trace);

/// Counters of one thread in one level (in the whole search: the
/// depth-first-like order).
#[derive(Default)]
pub(crate) struct Tally {
    pub transitions: u64,
    pub deadlocks: u64,
    pub errors: u64,
    pub back: u64,
    pub max_back: u64,
}

/// Where each arena's levels start: level `l` of arena `q` is
/// `start(l, q)..start(l + 1, q)` (the arena's length when level `l - 1`
/// began to be expanded, and when level `l` did). Flat, `writers` numbers
/// per level: hanoi.3 has 32,768 levels, searched at every back-level edge.
struct Levels {
    writers: usize,
    starts: Vec<usize>,
}

impl Levels {
    fn count(&self) -> usize {
        self.starts.len() / self.writers
    }

    fn start(&self, level: usize, q: usize) -> usize {
        self.starts[level * self.writers + q]
    }

    fn push(&mut self, lens: &[usize]) {
        self.starts.extend_from_slice(lens);
    }

    /// The level of stored state `local` of arena `q`, at most `depth`:
    /// the last level starting at or before it.
    fn level_of(&self, q: usize, local: usize, depth: usize) -> usize {
        let (mut lo, mut hi) = (0, depth + 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.start(mid, q) <= local {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// A thread's buffers, kept from level to level.
pub(crate) struct Scratch {
    pub bufs: Vec<SuccBuf>,
    pub fps: Vec<u64>,
    pub sources: Vec<u32>,
}

impl Scratch {
    pub fn new(state_len: usize) -> Scratch {
        Scratch {
            bufs: (0..BATCH).map(|_| SuccBuf::new(state_len)).collect(),
            fps: Vec::new(),
            sources: Vec::with_capacity(BATCH),
        }
    }

    pub fn bytes(&self) -> usize {
        self.bufs.iter().map(SuccBuf::bytes).sum::<usize>()
            + self.fps.capacity() * 8
            + self.sources.capacity() * 4
    }
}

/// Where the claims of one arena's states are (a cache line of its own).
#[repr(align(128))]
struct Cursor(AtomicUsize);

/// The level being expanded.
#[derive(Clone, Default)]
struct Spec {
    depth: usize,
    /// Per arena, its states of this level (`lo..hi`).
    segments: Vec<(usize, usize)>,
    /// Sources per claim: [`CLAIM`], less in a small level (eight claims
    /// per thread at least, so that a thread done early takes more).
    claim: usize,
}

/// What the threads of any parallel search share: the model, the store,
/// the budget and what stops them, the checks and their findings.
pub(crate) struct Shared<'a, W: Watch, S: ConcurrentStore> {
    pub model: &'a dyn NextState,
    pub store: S,
    pub budget: &'a Budget,
    /// Exact state limit (`u64::MAX`: none).
    max_states: u64,
    /// States stored and reserved (with a state limit).
    count: AtomicU64,
    pub transitions: AtomicU64,
    pub stop: AtomicBool,
    outcome: Mutex<Outcome>,
    pub watch: &'a W,
    violations: AtomicU64,
    first: Mutex<Option<Violation<W::Found>>>,
}

impl<'a, W: Watch, S: ConcurrentStore> Shared<'a, W, S> {
    /// A search of `model` in the store `make(extra)` (keeping `extra`
    /// bytes with each state: the parent link if `W` keeps parents, then
    /// a byte of flags if `marks`), its initial state stored (and
    /// checked); `None` if the state limit is 0.
    pub fn start(
        model: &'a dyn NextState,
        make: impl FnOnce(usize) -> S,
        budget: &'a Budget,
        watch: &'a W,
        marks: bool,
    ) -> Option<Self> {
        let max_states = match budget.max_states() {
            0 => return None,
            usize::MAX => u64::MAX,
            m => m as u64,
        };
        let extra = (if W::PARENTS { PARENT_BYTES } else { 0 }) + usize::from(marks);
        let sh = Shared {
            model,
            store: make(extra),
            budget,
            max_states,
            count: AtomicU64::new(1),
            transitions: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            outcome: Mutex::new(Outcome::Complete),
            watch,
            violations: AtomicU64::new(0),
            first: Mutex::new(None),
        };
        let init = model.initial_vec();
        let none = Succ {
            label: Label::local(u32::MAX),
            error: false,
        };
        let mut root = if W::PARENTS {
            parent_link(u32::MAX, none).to_vec()
        } else {
            Vec::new()
        };
        root.resize(extra, 0);
        sh.store
            .writer(0)
            .insert_with(&init, &root, model.fingerprint(&init));
        if let Some(v) = watch.state(&init) {
            sh.violation(v, || trace_to(&sh.store, 0, None));
        }
        Some(sh)
    }

    /// The outcome, the violations counted and the first one.
    pub fn finish(self) -> (Outcome, u64, Option<Violation<W::Found>>) {
        (
            *self.outcome.lock().unwrap_or_else(|e| e.into_inner()),
            self.violations.into_inner(),
            self.first.into_inner().unwrap_or_else(|e| e.into_inner()),
        )
    }

    /// Sets the outcome (a budget's, found while no thread works).
    pub fn set_outcome(&self, o: Outcome) {
        *self.outcome.lock().unwrap_or_else(|e| e.into_inner()) = o;
    }

    /// Records a violation (its trace built only for the first); false
    /// if the search stops at it.
    #[cold]
    pub(crate) fn violation(&self, found: W::Found, trace: impl FnOnce() -> Trace) -> bool {
        if !self.watch.all() && self.stop.swap(true, Ordering::Relaxed) {
            // Another thread's violation (or a budget) stopped the search
            // first: one violation is reported, as by one thread.
            return false;
        }
        self.violations.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            *first = Some((found, trace()));
        }
        self.watch.all()
    }

    pub fn halt(&self, o: Outcome) {
        let mut slot = self.outcome.lock().unwrap_or_else(|e| e.into_inner());
        if *slot == Outcome::Complete {
            *slot = o;
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Budget check at a block of work: interruption and time, then memory
    /// (the store's, what it may allocate next, and `other` bytes).
    pub fn poll(&self, depth: usize, other: usize) -> Option<Outcome> {
        let stored = self.store.len() as u64;
        let done = self.transitions.load(Ordering::Relaxed);
        if let Some(o) = self.budget.poll_with(stored, done, depth as u64) {
            return Some(o);
        }
        if self
            .budget
            .refuse_bytes(self.store.bytes_used() + self.store.next_growth_bytes() + other)
        {
            return Some(Outcome::MemoryLimit);
        }
        None
    }

    /// Counts and checks the transitions of `src` (its successors in
    /// `buf`, their fingerprints `fps`) and looks each successor up,
    /// inserting it if new: `seen(id)` for each one stored already,
    /// `new(id)` for each one this thread stored. False if the search
    /// must stop.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn take(
        &self,
        w: &mut S::Writer<'_>,
        src: u32,
        buf: &SuccBuf,
        fps: &[u64],
        t: &mut Tally,
        mut seen: impl FnMut(u32, &mut Tally),
        mut new: impl FnMut(u32),
    ) -> bool {
        let store = &self.store;
        let k = buf.len();
        t.transitions += k as u64;
        if k == 0 {
            t.deadlocks += 1;
            if let Some(v) = self.watch.deadlock() {
                if !self.violation(v, || trace_to(store, src, None)) {
                    return false;
                }
            }
        }
        for (i, &fp) in fps.iter().enumerate().take(k) {
            let e = buf.entry(i);
            let succ = buf.state(i);
            if e.error {
                t.errors += 1;
                if let Some(v) = self.watch.error() {
                    if !self.violation(v, || trace_to(store, src, Some((e, succ)))) {
                        return false;
                    }
                }
            }
            let link = if W::PARENTS {
                parent_link(src, e)
            } else {
                [0; PARENT_BYTES]
            };
            let extra: &[u8] = if W::PARENTS { &link } else { &[] };
            match self.visit(w, succ, extra, fp) {
                Some(Insert::New(id)) => {
                    if W::EDGES {
                        self.watch.edge(src, e, id, Some(succ));
                    }
                    if let Some(v) = self.watch.state(succ) {
                        if !self.violation(v, || trace_to(store, src, Some((e, succ)))) {
                            return false;
                        }
                    }
                    new(id);
                }
                Some(Insert::Seen(id)) => {
                    if W::EDGES {
                        self.watch.edge(src, e, id, None);
                    }
                    seen(id, t)
                }
                None => {
                    // Unless something else stopped the search first.
                    if !self.stop.load(Ordering::Relaxed) {
                        self.halt(Outcome::StateLimit);
                    }
                    return false;
                }
            }
        }
        true
    }

    /// Finds or inserts `succ`; `None` if it is new and the state limit
    /// leaves no room, or if the search stopped while it waited for room
    /// (a thread holding a reservation may have stopped for good: a
    /// panic).
    #[inline]
    pub(crate) fn visit(&self, w: &mut S::Writer<'_>, succ: &[u8], extra: &[u8], fp: u64) -> Option<Insert> {
        if self.max_states == u64::MAX {
            return Some(w.insert_with(succ, extra, fp));
        }
        // Room first, so that a thread holding a reservation never waits
        // (for the index's write lock): a thread that finds no place left
        // waits below until every reservation is settled.
        w.ensure_room();
        loop {
            if self.count.fetch_add(1, Ordering::Relaxed) < self.max_states {
                let ins = w.insert_with(succ, extra, fp);
                if !ins.is_new() {
                    self.count.fetch_sub(1, Ordering::Relaxed);
                }
                return Some(ins);
            }
            self.count.fetch_sub(1, Ordering::Relaxed);
            if let Some(id) = w.find(succ, fp) {
                return Some(Insert::Seen(id));
            }
            // New, and no place: final once the places taken are states
            // stored, not reservations another thread may give back.
            if self.store.len() as u64 >= self.max_states || self.stop.load(Ordering::Relaxed) {
                return None;
            }
            // Waiting without the index's read lock, so that a thread
            // growing it (and then the reservation's holder) can go on.
            w.release();
            std::thread::yield_now();
        }
    }
}

/// What the threads of the parallel BFS share besides [`Shared`]: `levels`
/// and `spec` are written by the calling thread between levels only (the
/// others wait).
struct Round<'a, W: Watch, S: ConcurrentStore> {
    sh: &'a Shared<'a, W, S>,
    levels: &'a RwLock<Levels>,
    spec: RwLock<Spec>,
    /// Per arena, the claims taken of its states this level.
    cursors: Vec<Cursor>,
}

impl<W: Watch, S: ConcurrentStore> Round<'_, W, S> {
    /// Thread `q`'s work in this level.
    fn work(&self, q: usize, scratch: &mut Scratch) -> Tally {
        let spec = self.spec.read().unwrap_or_else(|e| e.into_inner()).clone();
        let levels = self.levels.read().unwrap_or_else(|e| e.into_inner());
        let mut w = self.sh.store.writer(q);
        let mut t = Tally::default();
        let Scratch { bufs, fps, sources } = scratch;
        let n = spec.segments.len();
        'segments: for k in 0..n {
            // Its own arena's states first (they were written by this
            // core), then the others'.
            let a = (q + k) % n;
            let (lo, hi) = spec.segments[a];
            let cursor = &self.cursors[a].0;
            loop {
                w.release();
                let claim = spec.claim;
                let c = lo + cursor.fetch_add(claim, Ordering::Relaxed);
                if c >= hi {
                    break;
                }
                if self.sh.stop.load(Ordering::Relaxed) {
                    break 'segments;
                }
                if let Some(o) = self.sh.poll(spec.depth, 0) {
                    self.sh.halt(o);
                    break 'segments;
                }
                let before = t.transitions;
                let mut ids = (c..(c + claim).min(hi)).map(|local| self.sh.store.id(a, local));
                loop {
                    sources.clear();
                    sources.extend(ids.by_ref().take(BATCH));
                    if sources.is_empty() {
                        break;
                    }
                    if !self.expand(&mut w, &levels, spec.depth, sources, bufs, fps, &mut t) {
                        break;
                    }
                }
                self.sh
                    .transitions
                    .fetch_add(t.transitions - before, Ordering::Relaxed);
            }
        }
        t
    }

    /// Expands `sources` (their successors' index slots prefetched
    /// together, as in the sequential search); false if the search must
    /// stop.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &self,
        w: &mut S::Writer<'_>,
        levels: &Levels,
        depth: usize,
        sources: &[u32],
        bufs: &mut [SuccBuf],
        fps: &mut Vec<u64>,
        t: &mut Tally,
    ) -> bool {
        let store = &self.sh.store;
        prefetch_successors(self.sh.model, self.sh.watch.reducer(), w, sources, bufs, fps);
        let mut f = 0;
        for (b, &src) in sources.iter().enumerate() {
            let buf = &bufs[b];
            let k = buf.len();
            // Stored before this level began: a back-level edge, unless a
            // self-loop; how far back is searched only for an earlier
            // level.
            let seen = |found: u32, t: &mut Tally| {
                let (q, local) = store.locate(found);
                if local < levels.start(depth + 1, q) && found != src {
                    t.back += 1;
                    if local < levels.start(depth, q) {
                        let lv = levels.level_of(q, local, depth);
                        t.max_back = t.max_back.max((depth - lv) as u64);
                    }
                }
            };
            w.expanding(b);
            if !self.sh.take(w, src, buf, &fps[f..f + k], t, seen, |_| ()) {
                return false;
            }
            f += k;
        }
        true
    }
}

/// Generates the successors of `sources` into `bufs` and their
/// fingerprints into `fps` (zeros for a store that reads none), and
/// starts loading the index slots and then the stored states their
/// lookups will read, so that the misses of a batch overlap.
pub(crate) fn prefetch_successors<W: StoreWriter>(
    model: &dyn NextState,
    reducer: Option<&dyn Reduce>,
    w: &mut W,
    sources: &[u32],
    bufs: &mut [SuccBuf],
    fps: &mut Vec<u64>,
) {
    fps.clear();
    let mut src = Vec::new();
    for (b, &id) in sources.iter().enumerate() {
        let buf = &mut bufs[b];
        model.successors(w.load(b, id), buf);
        if let Some(r) = reducer {
            // Some kept successor must be stored after this state began
            // to be expanded, so expanded after it (module doc of
            // `algo::por`).
            src.clear();
            src.extend_from_slice(w.load(b, id));
            let fp = |s: &[u8]| if W::FINGERPRINTS { model.fingerprint(s) } else { 0 };
            r.reduce(&src, buf, Proviso::SomeOpen(&mut |s| w.find(s, fp(s)).is_none()));
        }
        for i in 0..buf.len() {
            let fp = if W::FINGERPRINTS {
                model.fingerprint(buf.state(i))
            } else {
                0
            };
            w.prefetch(fp);
            fps.push(fp);
        }
    }
    for &fp in fps.iter() {
        w.prefetch_state(fp);
    }
}

/// Breadth-first search of `model` with `threads` threads, in the shared
/// `store` (exact or tree).
pub fn parallel_bfs(model: &dyn NextState, threads: usize, budget: &Budget, store: StoreKind) -> ParallelRun {
    parallel_check(model, threads, budget, &NoWatch, store).0
}

/// [`parallel_bfs`] checking what `watch` looks for: the search, the
/// number of violations and the first one found.
pub fn parallel_check<W: Watch>(
    model: &dyn NextState,
    threads: usize,
    budget: &Budget,
    watch: &W,
    store: StoreKind,
) -> (ParallelRun, u64, Option<Violation<W::Found>>) {
    with_shared(model, threads, budget, watch, store, Levelled)
}

/// A parallel search order, run on the threads' [`Shared`] state whatever
/// its store.
pub(crate) trait Order {
    /// Whether each state keeps a byte of flags after its parent link
    /// ([`StoreWriter::mark`]: CNDFS's colours), zero when stored.
    const MARKS: bool = false;
    fn search<W: Watch, S: ConcurrentStore>(
        self,
        sh: &Shared<'_, W, S>,
        threads: usize,
        run: &mut ParallelRun,
    );
}

/// The level-synchronous BFS.
struct Levelled;

impl Order for Levelled {
    fn search<W: Watch, S: ConcurrentStore>(
        self,
        sh: &Shared<'_, W, S>,
        threads: usize,
        run: &mut ParallelRun,
    ) {
        bfs_levels(sh, threads, run)
    }
}

/// Runs `order` on `threads` threads' [`Shared`] state in a store of kind
/// `store` (exact, or tree: [`SharedTreeStore`], its leaves ordered as
/// the sequential tree store's), its initial state stored, then fills in
/// what every parallel search reports: states, store bytes, outcome; with
/// the number of violations and the first one.
pub(crate) fn with_shared<W: Watch>(
    model: &dyn NextState,
    threads: usize,
    budget: &Budget,
    watch: &W,
    store: StoreKind,
    order: impl Order,
) -> (ParallelRun, u64, Option<Violation<W::Found>>) {
    let t_n = threads.max(1);
    match store {
        StoreKind::Exact => run_in(model, t_n, budget, watch, order, |extra| {
            SharedStore::with_extra(model.state_len(), extra, t_n)
        }),
        StoreKind::Tree => run_in(model, t_n, budget, watch, order, |extra| {
            let leaves = crate::store::tree::leaf_order::leaves_for(model, budget);
            SharedTreeStore::new(model.state_len(), &leaves, extra, t_n)
        }),
        other => panic!("--store {other} is not shared between threads (refused by the options' check)"),
    }
}

fn run_in<'a, W: Watch, S: ConcurrentStore, O: Order>(
    model: &'a dyn NextState,
    t_n: usize,
    budget: &'a Budget,
    watch: &'a W,
    order: O,
    make: impl FnOnce(usize) -> S,
) -> (ParallelRun, u64, Option<Violation<W::Found>>) {
    let mut run = ParallelRun::default();
    let Some(sh) = Shared::start(model, make, budget, watch, O::MARKS) else {
        run.counters.result = Outcome::StateLimit;
        return (run, 0, None);
    };
    order.search(&sh, t_n, &mut run);
    run.counters.states = sh.store.len() as u64;
    run.store_bytes = sh.store.bytes_used() as u64;
    let (result, violations, first) = sh.finish();
    run.counters.result = result;
    (run, violations, first)
}

/// The level-synchronous search of [`parallel_check`].
fn bfs_levels<W: Watch, S: ConcurrentStore>(sh: &Shared<'_, W, S>, t_n: usize, run: &mut ParallelRun) {
    let (model, budget) = (sh.model, sh.budget);
    let (store, stop) = (&sh.store, &sh.stop);
    let levels = RwLock::new(Levels {
        writers: t_n,
        starts: vec![0; t_n],
    });
    let mut scratch: Vec<Scratch> = (0..t_n).map(|_| Scratch::new(model.state_len())).collect();
    let round = Round {
        sh,
        levels: &levels,
        spec: RwLock::new(Spec::default()),
        cursors: (0..t_n).map(|_| Cursor(AtomicUsize::new(0))).collect(),
    };
    let pool = Pool::new(t_n);
    for (q, s) in scratch.iter().enumerate().skip(1) {
        // Counted from the start, as the calling thread's are.
        pool.bytes[q].store(s.bytes(), Ordering::Relaxed);
    }
    let (mine, others) = scratch.split_at_mut(1);
    let mine = &mut mine[0];
    std::thread::scope(|scope| {
        let (round, pool) = (&round, &pool);
        let workers: Vec<_> = others
            .iter_mut()
            .enumerate()
            .map(|(i, s)| {
                scope.spawn(move || {
                    pool.serve(i + 1, || {
                        let t = round.work(i + 1, s);
                        (t, s.bytes())
                    })
                })
            })
            .collect();
        // The threads end with this closure, even if it panics (the scope
        // would otherwise wait for them forever).
        let _close = Close(pool, workers.iter().map(|h| h.thread().clone()).collect());
        while !stop.load(Ordering::Relaxed) {
            let (depth, total) = {
                let mut lv = levels.write().unwrap_or_else(|e| e.into_inner());
                let depth = lv.count() - 1;
                let lens: Vec<usize> = (0..t_n).map(|q| store.arena_len(q)).collect();
                let segments: Vec<(usize, usize)> = (0..t_n).map(|q| (lv.start(depth, q), lens[q])).collect();
                let total: usize = segments.iter().map(|&(lo, hi)| hi - lo).sum();
                if total == 0 {
                    break;
                }
                // The next level's states come after these.
                lv.push(&lens);
                *round.spec.write().unwrap_or_else(|e| e.into_inner()) = Spec {
                    depth,
                    segments,
                    claim: (total / (8 * t_n)).clamp(BATCH, CLAIM),
                };
                (depth, total)
            };
            if let Some(o) = budget.poll_with(store.len() as u64, run.counters.transitions, depth as u64) {
                sh.set_outcome(o);
                break;
            }
            for c in &round.cursors {
                c.0.store(0, Ordering::Relaxed);
            }
            let tallies: Vec<Tally> = if total < SMALL_LEVEL || t_n == 1 {
                vec![round.work(0, mine)]
            } else {
                pool.level(&workers, || round.work(0, mine))
            };
            let mut stats = LevelStats {
                level: depth as u32,
                states: total as u64,
                ..Default::default()
            };
            for t in &tallies {
                stats.edges += t.transitions;
                stats.back_level_edges += t.back;
                run.counters.transitions += t.transitions;
                run.counters.deadlocks += t.deadlocks;
                run.counters.error_transitions += t.errors;
                run.back_level_edges += t.back;
                run.max_back_level_edge = run.max_back_level_edge.max(t.max_back);
            }
            run.levels.push(stats);
            let buffers = mine.bytes() + pool.buffer_bytes();
            let starts = levels.read().unwrap_or_else(|e| e.into_inner()).starts.capacity();
            run.frontier_bytes = run.frontier_bytes.max((buffers + starts * 8) as u64);
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
    });
}
