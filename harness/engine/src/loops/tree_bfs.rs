//! Exhaustive breadth-first search with the tree store and its root kept
//! in a [`RootSet`](crate::store::tree::root_set::RootSet) (`explore --store ctree`):
//! the least memory per state of the exact stores.
//!
//! A state is the pair of its root's children in the
//! [`TreeStore`]'s inner tables; the root set holds those pairs quotiented
//! (2.5-4.5 bytes each, instead of a root table's 9-13). Where its next
//! doubling does not fit in the memory budget, its table is sealed and
//! another opened beside it ([`RootTiers`]). Such a state has
//! no number, so this search does not go through the [`crate::Store`]
//! trait, whose ids are dense: its queue holds the pairs (packed at the
//! bits their parts need, about 5 bytes per state of the level being
//! expanded and of the next one, counted in `frontier_bytes`; a large
//! level gives back what it expanded as it goes: `PairQueue`), and
//! back-level edges, which need to know the level of a state found again,
//! are not counted. States, transitions,
//! deadlocks and the states and edges of every level are the other
//! stores' (the golden tests).
//!
//! Each state is decoded from the inner tables when expanded; its
//! successors, which differ from it in a few words, are encoded by
//! looking up only the subtrees those words changed
//! ([`TreeStore::insert_below_root`]). A successor that is one of the
//! states met a moment before ([`RecentStates`], 1 MiB at most) is
//! stored, and is neither encoded nor looked up in the root set.

use dve_frontend::model::{NextState, SuccBuf};

use crate::checkpoint::{self, CheckpointInfo, CheckpointSpec, Loader, Saver};
use crate::counters::Counters;
use crate::limits::Budget;
use crate::loops::bfs::LevelStats;
use crate::outcome::Outcome;
use crate::store::recent_states::RecentStates;
use crate::store::tree::root_tiers::RootTiers;
use crate::store::tree::TreeStore;
use crate::Store;

/// Sources expanded between two polls of the time budget (a multiple of
/// [`BATCH`]).
const BLOCK: usize = 1024;
/// Sources expanded together (their successors' root lookups prefetched).
const BATCH: usize = 16;
/// Fewest new roots (and new pairs per table) that the memory check
/// before a batch allows for; it allows for twice the most successors a
/// batch has had, if more.
const GROWTH_MARGIN: usize = 1024;

/// What the search did.
#[derive(Clone, Debug, Default)]
pub struct TreeBfs {
    pub counters: Counters,
    /// States and edges per level (no back-level edges).
    pub levels: Vec<LevelStats>,
    /// The inner tables and the root set.
    pub store_bytes: u64,
    /// Peak bytes of the two levels' queues and the successor buffer.
    pub frontier_bytes: u64,
    /// Tables of the root set ([`RootTiers`]).
    pub root_tables: usize,
    /// Stopped for memory: what the next batch could have needed.
    pub memory_need: Option<MemoryNeed>,
}

/// The bytes a search stopped for memory had and could have needed next,
/// by part, so that a user sees what did not fit (in the record as
/// `memory_need`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MemoryNeed {
    /// The budget.
    pub budget: u64,
    /// Allocated: the inner tables, the root set and the recent states;
    /// the two levels' queues and the batch's buffers.
    pub store: u64,
    pub queues: u64,
    /// What the next batch could add: the root set's growth (a doubling
    /// or a widening), the inner tables' (their indices' doublings, new
    /// chunks), the next level's queue's growth.
    pub root_set_growth: u64,
    pub tables_growth: u64,
    pub queue_growth: u64,
}

/// A level's queue of pairs, each packed at `wl + wr` bits (the left part
/// in the high bits), widened (and repacked) when a part needs more.
///
/// The level being expanded gives its expanded entries' bytes back as it
/// goes ([`release_before`](Self::release_before)), and a growing queue
/// grows by an eighth once large, so that the two levels' queues take
/// about the larger level's bytes, not both levels' and their doublings'
/// slack (peg_solitaire.6, levels of 381 M states: 5.3 GB of queues).
#[derive(Default)]
struct PairQueue {
    wl: u32,
    wr: u32,
    len: usize,
    /// Entries before this one (a multiple of 8, so that they end on a
    /// byte) were expanded and their bytes given back.
    base: usize,
    /// Entries `base..len`, then 16 bytes so that any entry reads as one
    /// `u128`.
    bytes: Vec<u8>,
}

/// Bits of `v` (0 for 0).
fn width(v: u32) -> u32 {
    32 - v.leading_zeros()
}

/// A queue's bytes from which it grows by an eighth instead of doubling
/// (the C library maps an allocation this large on its own pages, and
/// grows it by remapping them rather than copying).
const LARGE_QUEUE: usize = 32 << 20;
/// Bytes of a level's queue from which it gives back what it expanded
/// (a smaller one keeps them: it becomes the next level's queue, which
/// would otherwise grow again by doublings). Tests give back from a few
/// kilobytes, so that their small models do it ([`release_queues_from`]).
static RELEASE_FROM: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(LARGE_QUEUE);

/// Levels' queues of at least `bytes` give back what was expanded (tests
/// lower it from its default, so that small models do it).
pub fn release_queues_from(bytes: usize) {
    RELEASE_FROM.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

fn release_from() -> usize {
    RELEASE_FROM.load(std::sync::atomic::Ordering::Relaxed)
}

impl PairQueue {
    fn bits(&self) -> usize {
        (self.wl + self.wr) as usize
    }

    fn get(&self, i: usize) -> (u32, u32) {
        let v = crate::store::read_bits(&self.bytes, (i - self.base) * self.bits(), self.bits() as u32);
        ((v >> self.wr) as u32, (v & ((1u64 << self.wr) - 1)) as u32)
    }

    fn set(&mut self, i: usize, left: u32, right: u32) {
        let bit = (i - self.base) * self.bits();
        let (at, sh) = (bit / 8, bit % 8);
        let v = ((left as u64) << self.wr | right as u64) as u128;
        let m = ((1u128 << self.bits()) - 1) << sh;
        let w = &mut self.bytes[at..at + 16];
        let x = u128::from_le_bytes((&*w).try_into().expect("16 bytes"));
        w.copy_from_slice(&((x & !m) | (v << sh)).to_le_bytes());
    }

    /// Bytes the entries `base..len` and the slack take.
    fn used(&self) -> usize {
        if self.len == self.base {
            0
        } else {
            ((self.len - self.base) * self.bits()).div_ceil(8) + 16
        }
    }

    /// The allocation's size after growing from `now` bytes.
    fn grown(now: usize) -> usize {
        if now < LARGE_QUEUE {
            2 * now
        } else {
            now + now / 8
        }
    }

    fn push(&mut self, left: u32, right: u32) {
        if width(left) > self.wl || width(right) > self.wr {
            // A bit to spare, so that widening is as rare as the tables'
            // doublings.
            let (wl, wr) = (
                self.wl.max((width(left) + 1).min(32)),
                self.wr.max((width(right) + 1).min(32)),
            );
            let old = std::mem::replace(
                self,
                PairQueue {
                    wl,
                    wr,
                    len: self.base,
                    base: self.base,
                    bytes: Vec::new(),
                },
            );
            for i in old.base..old.len {
                let (l, r) = old.get(i);
                self.push(l, r);
            }
        }
        let need = ((self.len - self.base + 1) * self.bits()).div_ceil(8) + 16;
        if self.bytes.len() < need {
            // Exactly (a vector's own growth would double it).
            let to = need.max(Self::grown(self.bytes.len()));
            self.bytes.reserve_exact(to - self.bytes.len());
            self.bytes.resize(to, 0);
        }
        self.set(self.len, left, right);
        self.len += 1;
    }

    /// Gives back the bytes of the entries before `i` (expanded), once
    /// they are a quarter of those after them (each entry is moved down
    /// about four times: a level of 90 MB, 0.4 GB copied) and the queue
    /// is large.
    fn release_before(&mut self, i: usize) {
        let done = (i - self.base) / 8 * 8;
        if self.bytes.len() < release_from() || 4 * done < self.len - self.base - done {
            return;
        }
        let (from, used) = (done * self.bits() / 8, self.used());
        self.bytes.copy_within(from..used, 0);
        self.base += done;
        self.bytes.truncate(used - from);
        self.bytes.shrink_to_fit();
    }

    fn clear(&mut self) {
        self.len = 0;
        self.base = 0;
    }

    fn bytes(&self) -> usize {
        self.bytes.capacity()
    }

    /// Bytes the next entry may allocate.
    fn growth_bytes(&self) -> usize {
        Self::grown(self.bytes.len()) - self.bytes.len()
    }

    /// Its widths, length and the bytes its entries use (and the slack
    /// any entry is read with); entries given back are not written (the
    /// caller counts from `base`).
    fn save(&self, w: &mut Saver) -> crate::checkpoint::Result<()> {
        w.u64(self.wl as u64)?;
        w.u64(self.wr as u64)?;
        w.u64((self.len - self.base) as u64)?;
        w.bytes(&self.bytes[..self.used()])
    }

    fn load(r: &mut Loader) -> crate::checkpoint::Result<PairQueue> {
        let wl = r.below(33, "a queue's width")? as u32;
        let wr = r.below(33, "a queue's width")? as u32;
        let len = r.u64()? as usize;
        let bytes = r.bytes()?;
        let q = PairQueue {
            wl,
            wr,
            len,
            base: 0,
            bytes,
        };
        let used = q.len.saturating_mul(q.bits()).div_ceil(8).saturating_add(16);
        if q.len > 0 && q.bytes.len() < used {
            return Err(crate::checkpoint::CheckpointError::damaged("a queue"));
        }
        Ok(q)
    }
}

/// Breadth-first search of `model` under `budget`.
pub fn tree_bfs(model: &dyn NextState, budget: &Budget) -> TreeBfs {
    let mut s = TreeSearch::start(model, budget);
    s.run(model, budget);
    s.finish()
}

/// [`tree_bfs`] that goes on from the checkpoint `spec` names, if there
/// is one, and writes one there if it stops for time, memory or an
/// interruption (a search that ends removes it, one stopped by its state
/// limit leaves it as it was: see
/// [`crate::checkpoint`]). `elapsed` gives this part's processor and
/// wall-clock seconds when the checkpoint is written.
pub fn tree_bfs_checkpointed(
    model: &dyn NextState,
    budget: &Budget,
    spec: &CheckpointSpec,
    elapsed: &dyn Fn() -> (f64, f64),
) -> crate::checkpoint::Result<(TreeBfs, CheckpointInfo)> {
    let mut info = CheckpointInfo {
        file: spec.path.display().to_string(),
        ..Default::default()
    };
    // A checkpoint that could not be written is found out now, not after
    // the search's hours.
    let dir = match spec.path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(crate::checkpoint::CheckpointError::NoDirectory {
            dir: dir.to_path_buf(),
        });
    }
    let mut s = match Loader::open(spec)? {
        Some(mut l) => {
            let s = TreeSearch::load(&mut l, model.state_len())?;
            (info.prior_cpu_s, info.prior_wall_s, info.resumed_parts) = (l.cpu_s, l.wall_s, l.parts);
            l.finish()?;
            s
        }
        None => TreeSearch::start(model, budget),
    };
    s.run(model, budget);
    if matches!(
        s.stopped,
        Some(Outcome::TimeLimit | Outcome::MemoryLimit | Outcome::Interrupted)
    ) {
        let (cpu, wall) = elapsed();
        let mut w = Saver::create(
            spec,
            info.prior_cpu_s + cpu,
            info.prior_wall_s + wall,
            info.resumed_parts + 1,
        )?;
        match s.save(&mut w) {
            Ok(()) => {
                w.finish()?;
            }
            Err(e) => {
                w.abandon();
                return Err(e);
            }
        }
        info.saved = true;
    } else if s.stopped.is_none() {
        checkpoint::remove(&spec.path)?;
    }
    // (A search stopped by its state limit, mid-batch, writes none: a
    // checkpoint it went on from stays as it was.)
    Ok((s.finish(), info))
}

impl LevelStats {
    /// The figures of level `level` of `states` states before any is
    /// expanded.
    fn first(level: usize, states: usize) -> LevelStats {
        LevelStats {
            level: level as u32,
            states: states as u64,
            ..Default::default()
        }
    }
}

/// What the budget says before a batch.
enum Gate {
    Go,
    /// The root set opened a new table: weigh the batch again.
    Again,
    Stop(Outcome),
}

/// A search under way: everything a checkpoint holds.
struct TreeSearch {
    run: TreeBfs,
    tree: TreeStore,
    roots: RootTiers,
    /// The level being expanded, and how many of its sources are.
    level: PairQueue,
    n: usize,
    /// That level's figures so far.
    stats: LevelStats,
    next: PairQueue,
    margin: usize,
    /// Successors met a moment before, whole: one found there is stored
    /// and costs no lookup (not in a checkpoint: exact whatever it holds).
    recent: RecentStates,
    /// Why the search stopped before its end (`None`: it did not).
    stopped: Option<Outcome>,
}

impl TreeSearch {
    fn start(model: &dyn NextState, budget: &Budget) -> TreeSearch {
        let mut tree = crate::store::tree::leaf_order::tree_store_for(model, budget);
        let mut roots = RootTiers::new();
        let mut level = PairQueue::default();
        let mut run = TreeBfs::default();
        let mut stopped = None;
        if budget.max_states() == 0 {
            stopped = Some(Outcome::StateLimit);
        } else {
            let (l, r) = tree.insert_below_root(&model.initial_vec());
            roots.insert(l, r);
            level.push(l, r);
        }
        run.counters.result = stopped.unwrap_or_default();
        let stats = LevelStats::first(0, level.len);
        TreeSearch {
            run,
            tree,
            roots,
            level,
            n: 0,
            stats,
            next: PairQueue::default(),
            margin: GROWTH_MARGIN,
            recent: RecentStates::new(model.state_len()),
            stopped,
        }
    }

    fn bytes(&self) -> u64 {
        (self.tree.bytes_used() + self.roots.bytes_used() + self.recent.bytes()) as u64
    }

    /// Before a batch: whether the memory budget leaves room for it (its
    /// successors may grow each table once; the root set may open a new
    /// table instead, then the batch is weighed again), and every block
    /// time and interruption. `queues`: the bytes of the queues and
    /// buffers now.
    fn gate(&mut self, budget: &Budget, depth: usize, queues: usize) -> Gate {
        self.recent.fit(self.roots.len());
        self.tree.fit_recent(self.roots.len());
        let bounds = self.tree.root_child_bounds(self.margin);
        let roots_growth = self.roots.next_growth_bytes(self.margin, bounds);
        // The next level's queue may grow too.
        let need = MemoryNeed {
            budget: budget.memory().unwrap_or(u64::MAX),
            store: self.bytes(),
            queues: queues as u64,
            root_set_growth: roots_growth as u64,
            tables_growth: (self.tree.next_growth_bytes() + self.recent.growth_bytes()) as u64,
            queue_growth: self.next.growth_bytes() as u64,
        };
        let rest = (need.store + need.queues + need.tables_growth + need.queue_growth) as usize;
        self.run.frontier_bytes = self.run.frontier_bytes.max(queues as u64);
        if budget.refuse_bytes(rest + roots_growth) {
            // If the root set's growth is what does not fit, its table is
            // sealed and a new one opened beside it, if one worth it fits
            // in what the budget leaves.
            let room = budget.memory().map_or(0, |m| (m as usize).saturating_sub(rest));
            let other = (rest - self.roots.bytes_used()) as f64 / self.roots.len().max(1) as f64;
            if roots_growth > 0 && !budget.refuse_bytes(rest) && self.roots.seal(room, other, bounds) {
                return Gate::Again;
            }
            self.run.memory_need = Some(need);
            return Gate::Stop(Outcome::MemoryLimit);
        }
        if self.n.is_multiple_of(BLOCK) {
            let transitions = self.run.counters.transitions;
            if let Some(o) = budget.poll_with(self.roots.len() as u64, transitions, depth as u64) {
                return Gate::Stop(o);
            }
        }
        Gate::Go
    }

    /// Expands levels until the search ends or a budget stops it.
    fn run(&mut self, model: &dyn NextState, budget: &Budget) {
        if self.stopped == Some(Outcome::StateLimit) {
            return;
        }
        self.stopped = None;
        let max_states = budget.max_states();
        let mut buf = SuccBuf::new(model.state_len());
        let mut state = Vec::with_capacity(model.state_len());
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut fps: Vec<u64> = Vec::new();
        let mut pipe = crate::store::tree::pipeline::Pipeline::default();
        while self.level.len > 0 {
            let depth = self.run.levels.len();
            while self.n < self.level.len {
                let queues = self.level.bytes()
                    + self.next.bytes()
                    + buf.bytes()
                    + pairs.capacity() * 8
                    + pipe.bytes();
                match self.gate(budget, depth, queues) {
                    Gate::Go => {}
                    Gate::Again => continue,
                    Gate::Stop(o) => {
                        self.stopped = Some(o);
                        return;
                    }
                }
                // A batch: the sources decoded and expanded, their
                // successors encoded below the root (each against its
                // source's tree) and the root set's bucket of each
                // prefetched once it is encoded (the longer before its
                // lookup the better), then the successors looked up in order, so that
                // the misses overlap and the search is the one-by-one
                // search. Where a table is large, the successors' lookups
                // there wait in a pipeline (`tree_store::Pipeline`), so
                // that their misses overlap too.
                pairs.clear();
                let piped = self.tree.pipeline_pays();
                let (run, stats, tree, recent, roots) = (
                    &mut self.run,
                    &mut self.stats,
                    &mut self.tree,
                    &mut self.recent,
                    &self.roots,
                );
                for m in self.n..(self.n + BATCH).min(self.level.len) {
                    let (l, r) = self.level.get(m);
                    tree.decode_root(l, r, &mut state);
                    model.successors(&state, &mut buf);
                    let k = buf.len();
                    run.counters.transitions += k as u64;
                    stats.edges += k as u64;
                    if k == 0 {
                        run.counters.deadlocks += 1;
                    }
                    // The successors' fingerprints first, and the slots
                    // where they would be among the states met lately
                    // prefetched.
                    fps.clear();
                    for i in 0..k {
                        let fp = model.fingerprint(buf.state(i));
                        recent.prefetch(fp);
                        fps.push(fp);
                    }
                    for (i, &fp) in fps.iter().enumerate() {
                        if buf.entry(i).error {
                            run.counters.error_transitions += 1;
                        }
                        // A successor met a moment before is stored (or
                        // is this batch's, stored below): no lookup.
                        let succ = buf.state(i);
                        if recent.get(fp, succ).is_some() {
                            continue;
                        }
                        recent.put(fp, succ, 0);
                        if piped {
                            // (Its root's bucket prefetched once encoded,
                            // its children put in its place.)
                            tree.pipeline_begin(&mut pipe, succ, pairs.len());
                            pairs.push((0, 0));
                            for (at, l, r) in pipe.done.drain(..) {
                                roots.prefetch(l, r);
                                pairs[at] = (l, r);
                            }
                            continue;
                        }
                        let (l, r) = tree.insert_below_root(succ);
                        roots.prefetch(l, r);
                        pairs.push((l, r));
                    }
                }
                if piped {
                    while tree.pipeline_step(&mut pipe) {}
                    for (at, l, r) in pipe.done.drain(..) {
                        roots.prefetch(l, r);
                        pairs[at] = (l, r);
                    }
                }
                self.n = (self.n + BATCH).min(self.level.len);
                self.level.release_before(self.n);
                self.margin = self.margin.max(2 * pairs.len());
                for &(l, r) in &pairs {
                    if self.roots.len() >= max_states && !self.roots.contains(l, r) {
                        // (Mid-batch: no checkpoint is written for it.)
                        self.stopped = Some(Outcome::StateLimit);
                        return;
                    }
                    if self.roots.insert(l, r) {
                        self.next.push(l, r);
                    }
                }
            }
            self.run.levels.push(self.stats);
            self.level.clear();
            self.n = 0;
            std::mem::swap(&mut self.level, &mut self.next);
            self.stats = LevelStats::first(self.run.levels.len(), self.level.len);
        }
        let queues = self.level.bytes() + self.next.bytes() + buf.bytes();
        self.run.frontier_bytes = self.run.frontier_bytes.max(queues as u64);
    }

    /// What the search did (a level cut short counts as far as it went).
    fn finish(mut self) -> TreeBfs {
        if let Some(o) = self.stopped {
            self.run.counters.result = o;
            if self.level.len > 0 {
                self.run.levels.push(self.stats);
            }
        }
        self.run.counters.states = self.roots.len() as u64;
        self.run.root_tables = self.roots.tables();
        self.run.store_bytes = self.bytes();
        self.run
    }

    fn save(&self, w: &mut Saver) -> crate::checkpoint::Result<()> {
        let r = &self.run;
        for v in [
            r.counters.transitions,
            r.counters.deadlocks,
            r.counters.error_transitions,
            r.frontier_bytes,
        ] {
            w.u64(v)?;
        }
        let levels: Vec<u64> = r
            .levels
            .iter()
            .chain([&self.stats])
            .flat_map(|l| [l.states, l.edges])
            .collect();
        w.u64s(&levels)?;
        w.u64(self.margin as u64)?;
        self.tree.save(w)?;
        self.roots.save(w)?;
        // Both levels' queues, and how far the first is expanded.
        self.level.save(w)?;
        self.next.save(w)?;
        if self.level.base > 0 {
            REBASED_SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        w.u64((self.n - self.level.base) as u64)
    }

    fn load(r: &mut Loader, state_len: usize) -> crate::checkpoint::Result<TreeSearch> {
        let damaged = |what: &str| crate::checkpoint::CheckpointError::damaged(what);
        let mut run = TreeBfs::default();
        run.counters.transitions = r.u64()?;
        run.counters.deadlocks = r.u64()?;
        run.counters.error_transitions = r.u64()?;
        run.frontier_bytes = r.u64()?;
        let levels = r.u64s()?;
        if levels.len() < 2 || levels.len() % 2 != 0 {
            return Err(damaged("the levels"));
        }
        run.levels = levels
            .chunks_exact(2)
            .enumerate()
            .map(|(i, c)| LevelStats {
                level: i as u32,
                states: c[0],
                edges: c[1],
                back_level_edges: 0,
            })
            .collect();
        let stats = run.levels.pop().expect("a level");
        let margin = r.below(1 << 40, "the growth margin")? as usize;
        let tree = TreeStore::load(r, state_len)?;
        let roots = RootTiers::load(r)?;
        let level = PairQueue::load(r)?;
        let next = PairQueue::load(r)?;
        let n = r.u64()? as usize;
        // (A level saved part way has given back the entries expanded
        // first: its queue holds the rest, `n` counts from there.)
        if n >= level.len || stats.states < level.len as u64 {
            return Err(damaged("the level under way"));
        }
        Ok(TreeSearch {
            run,
            tree,
            roots,
            level,
            n,
            stats,
            next,
            margin,
            recent: RecentStates::new(state_len),
            stopped: None,
        })
    }
}

/// Saves after a level gave back the bytes of the entries it expanded (its
/// queue then holds the rest): the checkpoint tests check that one happened
/// (kept in every build: a save is rare).
pub static REBASED_SAVES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[cfg(test)]
mod tests {
    use super::{release_from, release_queues_from, PairQueue, LARGE_QUEUE};

    #[test]
    fn the_queue_keeps_every_pair_through_widening() {
        let mut rng = crate::rng::Rng::seeded(1);
        let mut q = PairQueue::default();
        let mut want = Vec::new();
        for i in 0..20_000usize {
            let bound = 1 + (i as u64).pow(2);
            let mut part = || (rng.next_u64() % bound) as u32;
            let p = match i {
                7_000 => (u32::MAX, 0),
                7_001 => (0, u32::MAX),
                _ => (part(), part()),
            };
            q.push(p.0, p.1);
            want.push(p);
        }
        for (i, &p) in want.iter().enumerate() {
            assert_eq!(q.get(i), p, "{i}");
        }
        q.clear();
        q.push(3, 4);
        assert_eq!((q.len, q.get(0)), (1, (3, 4)));
    }

    #[test]
    fn a_level_gives_back_what_it_expanded_and_keeps_the_rest() {
        let mut rng = crate::rng::Rng::seeded(2);
        let mut q = PairQueue::default();
        release_queues_from(4 << 10);
        let n = 4 * release_from();
        let want: Vec<(u32, u32)> = (0..n)
            .map(|_| (rng.below(1 << 20) as u32, rng.below(1 << 9) as u32))
            .collect();
        for &(l, r) in &want {
            q.push(l, r);
        }
        let full = q.bytes();
        // Read in order, giving back as it goes (as a level expanded).
        let mut released = 0;
        for (i, &p) in want.iter().enumerate() {
            assert_eq!(q.get(i), p, "{i}");
            let before = q.base;
            q.release_before(i + 1);
            if q.base != before {
                released += 1;
                assert_eq!(q.base % 8, 0);
                assert!(q.base <= i + 1);
                // What is left, and no more.
                let left = ((q.len - q.base) * q.bits()).div_ceil(8) + 16;
                assert!(q.bytes() <= left + 64, "{} for {left}", q.bytes());
            }
        }
        assert!((4..=64).contains(&released), "{released} releases");
        assert!(q.bytes() < full / 4);
        // Cleared, it is the next level's queue, from its first entry.
        q.clear();
        for &(l, r) in &want[..1000] {
            q.push(l, r);
        }
        assert!((0..1000).all(|i| q.get(i) == want[i]));
        // A large queue grows by an eighth, a small one doubles.
        assert_eq!(PairQueue::grown(LARGE_QUEUE), LARGE_QUEUE + LARGE_QUEUE / 8);
        assert_eq!(PairQueue::grown(1000), 2000);
    }
}
