//! Exhaustive breadth-first search over several ranks (processes of an MPI
//! job, `explore --distributed`), each with its own store.
//!
//! **Ownership.** Every state belongs to one rank, chosen by a hash of the
//! state ([`Partition`]: of the whole state, Stern and Dill's partition,
//! or of the bytes most transitions leave alone). A rank expands the
//! states it owns; a successor it owns is looked up and stored at once, any
//! other is appended to the batch of its owner.
//!
//! **Rounds and levels.** A rank expands the states of the current level
//! until its batches hold [`ROUND_BYTES`] (less under a small memory
//! budget) or its part of the level is done; then it sends its batches
//! (one message per destination per round, its header in front: whether it
//! has states of the level left, its budget, its counters) and expands the
//! next round's states while they travel,
//! then receives the others' batches of the round it sent and stores their
//! states. The level ends after the round in which no rank had states of
//! it left. So the search is level-synchronous: every state stored during
//! level `l` is of level `l + 1`, each rank's store is its own queue (ids
//! in BFS order, as in [`crate::bfs`]), and states, transitions,
//! deadlocks, levels and back-level edges are the sequential search's,
//! whatever the number of ranks. (A successor stored already when its
//! source's level began is a back-level edge unless a self-loop; a
//! self-loop never leaves its rank.)
//!
//! **Budgets.** The state limit is global, checked after every exchange: a
//! stopped run holds at most two rounds' states past it. Memory is per
//! rank: its store, parent links and batches, each growth refused before it
//! happens if it would pass the budget, with room kept for two rounds of
//! the others' batches (a round is smaller under a small budget, see
//! [`round_bytes`]); a rank that receives more stops once it has. Time and
//! interruption are polled on every rank every round, and the first stop
//! of any rank stops them all at the same round, each with its counters. A
//! run in which any rank stopped for memory ends so (it dropped states).
//!
//! **Checks.** A [`Watch`] sees each rank's new states, deadlocks and
//! erroneous transitions. Each state then keeps the rank and id of its
//! parent, and the counterexample is rebuilt across ranks after the search:
//! the rank holding a state broadcasts it with its parent's rank and id,
//! from the violation back to the initial state. Of the violations found
//! in the round that stops the search, the one at the lowest level wins
//! (then the lowest rank).

pub mod checkpoint;
mod counterexample;
mod heads;
pub mod partition;

use std::time::Instant;

use dve_frontend::model::{NextState, Succ, SuccBuf};
use serde::{Deserialize, Serialize};

use crate::comm::{Comm, Reduce};
use crate::counters::Counters;
use crate::limits::{visit, Budget};
use crate::loops::bfs::{LevelStats, BATCH};
use crate::loops::parallel::{ParallelRun, Watch};
use crate::loops::parent_links::{parent_link, PARENT_BYTES};
use crate::outcome::Outcome;
use crate::store::{Insert, Store};
use crate::trace::Trace;

use heads::{outcome_of, stop_code, Heads, HEAD, HEAD_BYTES};

pub use partition::Partition;

/// Bytes of successors a rank collects for the others before an exchange.
pub const ROUND_BYTES: usize = 4 << 20;

/// A round's bytes under a memory budget: at most a sixteenth of it (so
/// that a small budget still holds a search), at least 64 KiB.
fn round_bytes(memory: Option<u64>) -> usize {
    memory.map_or(ROUND_BYTES, |m| ((m / 16) as usize).clamp(64 << 10, ROUND_BYTES))
}

/// Sets of batches a rank fills and sends in turn: one being filled while
/// the others travel, so that a rank a round ahead of another does not
/// wait for its batches to arrive before it fills the next set.
const SETS: usize = 3;

/// What one rank did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RankFigures {
    pub rank: u64,
    /// States this rank owns (and stored).
    pub states: u64,
    pub store_bytes: u64,
    /// Parent links and batches (sent and received), at their largest.
    pub frontier_bytes: u64,
    /// Peak resident set of the rank's process.
    pub peak_rss_bytes: u64,
    /// Batches sent to other ranks (one per destination per round at most).
    pub messages_sent: u64,
    pub bytes_sent: u64,
    /// Seconds spent waiting for the others' batches (and for this rank's
    /// to arrive, to fill their buffers again).
    pub wait_s: f64,
}

/// What a distributed search did, as every rank knows it: the counters
/// any parallel search reports (store and frontier bytes summed over the
/// ranks), and the ranks' own.
#[derive(Clone, Debug)]
pub struct Distributed<F> {
    pub run: ParallelRun,
    /// Exchanges (all levels).
    pub rounds: u64,
    /// Every rank's figures, in rank order.
    pub ranks: Vec<RankFigures>,
    pub violations: u64,
    /// The violation reported and its counterexample.
    pub first: Option<(F, Trace)>,
}

const STATE: u8 = 0;
const DEADLOCK: u8 = 1;
const ERROR: u8 = 2;
/// No parent: the initial state.
const ROOT: u32 = u32::MAX;

/// A violation this rank found: `key` orders violations by level, then
/// rank; `last` is the erroneous step for an error.
struct Found {
    key: u64,
    kind: u8,
    id: u32,
    last: Option<(Succ, Vec<u8>)>,
}

/// How far ahead of its lookup a received state's slot is prefetched (a
/// power of two).
const AHEAD: usize = 32;

/// A rank's buffers, kept from round to round.
struct Work {
    bufs: Vec<SuccBuf>,
    fps: Vec<u64>,
    /// The owner of each successor of the batch.
    owners: Vec<u32>,
    scratch: Vec<u8>,
}

/// Where a rank's search is, besides its store: everything a checkpoint
/// holds of it ([`checkpoint`]).
#[derive(Clone, Debug, Default, PartialEq)]
struct Position {
    depth: u64,
    level_starts: Vec<u32>,
    next: usize,
    level_end: usize,
    level_edges: u64,
    level_back: u64,
    /// Edges and back-level edges of the level before this one.
    prev_edges: u64,
    prev_back: u64,
    transitions: u64,
    deadlocks: u64,
    errors: u64,
    max_back: u64,
    figures: RankFigures,
    frontier_peak: usize,
    /// Exchanges so far (all levels).
    rounds: u64,
    /// The next round is the first of level `depth`.
    level_begins: bool,
    /// The levels every rank knows of.
    levels: Vec<LevelStats>,
}

/// One rank's side of the search.
struct Rank<'a, S: Store, W: Watch> {
    model: &'a dyn NextState,
    comm: &'a dyn Comm,
    store: &'a mut S,
    budget: &'a Budget,
    watch: &'a W,
    me: usize,
    n: usize,
    /// Which bytes of a state decide its owner.
    partition: Partition,
    pos: Position,
    /// Per stored state: the parent's rank and the link to it.
    parents: Vec<(u32, [u8; PARENT_BYTES])>,
    /// The batches being filled, one per destination, each after room for
    /// the header.
    out: Vec<Vec<u8>>,
    /// Sets of batches sent and given back, to fill again.
    spare: Vec<Vec<Vec<u8>>>,
    /// Sets of batches made so far (at most [`SETS`]), and the bytes of
    /// those not being filled (travelling or spare).
    sets: usize,
    away_bytes: usize,
    inbox: Vec<Vec<u8>>,
    /// The inbox's bytes (kept apart: the inbox is taken out while its
    /// states are stored).
    inbox_bytes: usize,
    /// This rank's header of the round under way (sent, not received).
    sent: Option<[u64; HEAD]>,
    /// States this rank stored in the last round, and its store's size
    /// after it.
    round_states: usize,
    stored: usize,
    stop: Option<Outcome>,
    found: Option<Found>,
    violations: u64,
    /// Bytes of successors collected for the others before an exchange.
    round_bytes: usize,
    /// [`Self::counted_bytes`], taken when a round begins, when batches
    /// arrive and at every growth (the sum runs over every destination's
    /// batch, too dear for each state).
    held: usize,
}

impl<S: Store, W: Watch> Rank<'_, S, W> {
    /// What this rank holds besides the store: parent links, the batches
    /// being filled, sent and received.
    fn frontier_bytes(&self) -> usize {
        self.parents.capacity() * std::mem::size_of::<(u32, [u8; PARENT_BYTES])>()
            + self.out.iter().map(Vec::capacity).sum::<usize>()
            + self.away_bytes
            + self.inbox_bytes
    }

    /// [`Self::frontier_bytes`] as the budget counts it: with room for the
    /// batches a round brings in (two rounds' worth), which arrive unasked,
    /// so that the budget keeps room for them before they come.
    fn counted_bytes(&self) -> usize {
        let room = if self.n > 1 { 2 * self.round_bytes } else { 0 };
        self.frontier_bytes() - self.inbox_bytes + self.inbox_bytes.max(room)
    }

    fn violation(&mut self, kind: u8, id: u32, level: u64, last: Option<(Succ, &[u8])>) {
        self.violations += 1;
        let key = level * self.n as u64 + self.me as u64;
        if self.found.as_ref().is_none_or(|f| key < f.key) {
            self.found = Some(Found {
                key,
                kind,
                id,
                last: last.map(|(e, s)| (e, s.to_vec())),
            });
        }
    }

    /// Whether this rank stops expanding (a budget, or a violation that
    /// ends the search).
    fn halted(&self) -> bool {
        self.stop.is_some() || (self.found.is_some() && !self.watch.all())
    }

    /// Stores `s` if new (its parent `from`: rank and link); `src` is the
    /// source's id when it is this rank's (self-loops are not back-level
    /// edges). The parent links grow only as the budget allows, as the
    /// store does ([`visit`]). A rank stopped by its clock or Ctrl-C still
    /// stores what the others sent in the round that tells them (so that
    /// the ranks stop where no state is lost: a checkpoint goes on from
    /// there); one stopped for memory stores nothing more.
    #[inline]
    fn store(&mut self, s: &[u8], fp: u64, from: (u32, [u8; PARENT_BYTES]), src: Option<u32>) {
        if self.stop == Some(Outcome::MemoryLimit) {
            return;
        }
        let links = W::PARENTS && self.parents.len() == self.parents.capacity();
        let inserted = if links && !self.grow_links() {
            match self.store.find(s, fp) {
                Some(id) => Ok(Insert::Seen(id)),
                None => Err(Outcome::MemoryLimit),
            }
        } else {
            visit(self.store, self.budget, self.held, s, fp)
        };
        match inserted {
            Ok(Insert::New(id)) => {
                if W::PARENTS {
                    self.parents.push(from);
                }
                if self.watch.state(s).is_some() {
                    self.violation(STATE, id, self.pos.depth + 1, None);
                }
            }
            Ok(Insert::Seen(id)) => {
                if (id as usize) < self.pos.level_end && Some(id) != src {
                    self.pos.level_back += 1;
                    let level_start = *self.pos.level_starts.last().expect("a level");
                    if id < level_start {
                        let target = self.pos.level_starts.partition_point(|&s| s <= id) - 1;
                        self.pos.max_back = self.pos.max_back.max(self.pos.depth - target as u64);
                    }
                }
            }
            Err(o) => self.stop = Some(o),
        }
    }

    /// Doubles the room for parent links if the budget allows, else adds
    /// what it allows of 1,024 more.
    #[cold]
    fn grow_links(&mut self) -> bool {
        let size = std::mem::size_of::<(u32, [u8; PARENT_BYTES])>();
        let more = [self.parents.capacity().max(1024), 1024]
            .into_iter()
            .find(|&m| !self.budget.refuse_frontier(self.store, self.held, m * size));
        let Some(more) = more else { return false };
        self.parents.reserve_exact(more);
        self.held = self.counted_bytes();
        true
    }

    /// Grows the batch for rank `o` by at least `need` bytes if the budget
    /// allows: doubling it, but not much past a round's bytes, which a
    /// batch passes by one expansion at most (each set of batches keeps
    /// its room from round to round); near the budget, by `need`.
    #[cold]
    fn grow_batch(&mut self, o: usize, need: usize) -> bool {
        let (len, cap) = (self.out[o].len(), self.out[o].capacity());
        let target = (2 * cap)
            .min(self.round_bytes + self.round_bytes / 8)
            .max(cap + cap / 8)
            .max(len + need);
        // Short of that, what the record needs.
        let Some(target) = [target, len + need]
            .into_iter()
            .find(|&t| !self.budget.refuse_frontier(self.store, self.held, t - cap))
        else {
            return false;
        };
        self.out[o].reserve_exact(target - len);
        self.held = self.counted_bytes();
        true
    }

    /// Expands stored states `lo..hi` (at most [`BATCH`]): their successors
    /// first, fingerprinted, the index slots of those this rank owns
    /// prefetched (as [`crate::bfs`] does), then each looked up or
    /// sent.
    fn expand(&mut self, lo: usize, hi: usize, w: &mut Work) {
        w.fps.clear();
        w.owners.clear();
        for (b, src) in (lo..hi).enumerate() {
            self.model
                .successors(self.store.state(src as u32, &mut w.scratch), &mut w.bufs[b]);
            for i in 0..w.bufs[b].len() {
                let s = w.bufs[b].state(i);
                let fp = self.model.fingerprint(s);
                let o = self.partition.owner(fp, s, self.n);
                if o == self.me {
                    self.store.prefetch(s, fp);
                }
                w.fps.push(fp);
                w.owners.push(o as u32);
            }
        }
        for (&fp, &o) in w.fps.iter().zip(&w.owners) {
            if o as usize == self.me {
                self.store.prefetch_state(fp);
            }
        }
        let rec = self.model.state_len() + if W::PARENTS { PARENT_BYTES } else { 0 };
        let mut f = 0;
        for (b, src) in (lo..hi).enumerate() {
            let (buf, src) = (&w.bufs[b], src as u32);
            let k = buf.len();
            self.pos.transitions += k as u64;
            self.pos.level_edges += k as u64;
            if k == 0 {
                self.pos.deadlocks += 1;
                if self.watch.deadlock().is_some() {
                    self.violation(DEADLOCK, src, self.pos.depth, None);
                }
            }
            for i in 0..k {
                let (e, s) = (buf.entry(i), buf.state(i));
                let (fp, o) = (w.fps[f], w.owners[f] as usize);
                f += 1;
                if e.error {
                    self.pos.errors += 1;
                    if self.watch.error().is_some() {
                        self.violation(ERROR, src, self.pos.depth + 1, Some((e, s)));
                    }
                }
                let link = parent_link(src, e);
                if o == self.me {
                    self.store(s, fp, (o as u32, link), Some(src));
                } else if self.stop == Some(Outcome::MemoryLimit) {
                    // Stopped for memory: nothing more is kept.
                } else if self.out[o].capacity() - self.out[o].len() < rec && !self.grow_batch(o, rec) {
                    self.stop = Some(Outcome::MemoryLimit);
                } else {
                    self.out[o].extend_from_slice(s);
                    if W::PARENTS {
                        self.out[o].extend_from_slice(&link);
                    }
                }
            }
        }
    }

    /// Stores the states rank `from` sent (`data`: records of a state and,
    /// with parents, its link). A record's index slot is prefetched
    /// [`AHEAD`] records before it is looked up, and the stored state that
    /// slot points to half as far ahead, so that the lookups do not wait
    /// for memory.
    fn receive(&mut self, from: usize, data: &[u8], w: &mut Work) {
        let len = self.model.state_len();
        let rec = len + if W::PARENTS { PARENT_BYTES } else { 0 };
        let n = data.len() / rec;
        let (half, mask) = (AHEAD / 2, AHEAD - 1);
        w.fps.clear();
        w.fps.resize(AHEAD, 0);
        for i in 0..n + AHEAD {
            // Record `i - AHEAD` is stored before record `i` takes its
            // place in the ring of fingerprints.
            if i >= AHEAD {
                let at = (i - AHEAD) * rec;
                let mut link = [0u8; PARENT_BYTES];
                if W::PARENTS {
                    link.copy_from_slice(&data[at + len..at + rec]);
                }
                let fp = w.fps[i & mask];
                self.store(&data[at..at + len], fp, (from as u32, link), None);
            }
            if i >= half && i - half < n {
                self.store.prefetch_state(w.fps[(i - half) & mask]);
            }
            if i < n {
                let s = &data[i * rec..i * rec + len];
                let fp = self.model.fingerprint(s);
                self.store.prefetch(s, fp);
                w.fps[i & mask] = fp;
            }
        }
    }

    /// This rank's header for the round (see [`Heads`]).
    fn header(&self) -> [u64; HEAD] {
        let level_start = *self.pos.level_starts.last().expect("a level") as usize;
        [
            (self.pos.next < self.pos.level_end && !self.halted()) as u64,
            stop_code(self.stop),
            self.found.as_ref().map_or(0, |f| u64::MAX - f.key),
            self.store.len() as u64,
            self.pos.transitions,
            (self.pos.level_end - level_start) as u64,
            self.pos.prev_edges,
            self.pos.prev_back,
            (self.store.growth_within(self.store.len() / 6) > 0) as u64,
        ]
    }

    /// Expands states of the level until the batches hold a round's bytes
    /// ([`round_bytes`]), the rank's part of the level is done or it halts.
    fn expand_round(&mut self, w: &mut Work) {
        // The sets of batches changed hands in the last exchange.
        self.held = self.counted_bytes();
        let mut bytes = 0;
        while self.pos.next < self.pos.level_end && !self.halted() && bytes < self.round_bytes {
            let before: usize = self.out.iter().map(Vec::len).sum();
            let hi = self.pos.level_end.min(self.pos.next + BATCH);
            self.expand(self.pos.next, hi, w);
            bytes += self.out.iter().map(Vec::len).sum::<usize>() - before;
            self.pos.next = hi;
        }
        self.pos.frontier_peak = self.pos.frontier_peak.max(self.frontier_bytes());
    }

    /// Sends the batches, each headed by this rank's
    /// [`header`](Self::header), and takes a set of empty ones to fill
    /// next: a spare one, one whose send is over, a new one while there
    /// are fewer than [`SETS`], else the oldest once it has arrived.
    fn post(&mut self) {
        let head = self.header();
        for (d, v) in self.out.iter_mut().enumerate() {
            if d != self.me {
                for (i, x) in head.iter().enumerate() {
                    v[i * 8..i * 8 + 8].copy_from_slice(&x.to_le_bytes());
                }
                self.pos.figures.messages_sent += 1;
                self.pos.figures.bytes_sent += v.len() as u64;
            }
        }
        self.sent = Some(head);
        self.away_bytes += self.out.iter().map(Vec::capacity).sum::<usize>();
        self.comm.send(std::mem::take(&mut self.out));
        let mut next = match self.spare.pop().or_else(|| self.comm.reclaim(false)) {
            Some(set) => set,
            None if self.sets < SETS => {
                self.sets += 1;
                vec![Vec::new(); self.n]
            }
            None => {
                let t = Instant::now();
                let set = self.comm.reclaim(true).expect("a set under way");
                self.pos.figures.wait_s += t.elapsed().as_secs_f64();
                set
            }
        };
        let back: usize = next.iter().map(Vec::capacity).sum();
        debug_assert!(back <= self.away_bytes, "a set comes back larger than it went");
        self.away_bytes -= back;
        for v in &mut next {
            v.clear();
            v.resize(HEAD_BYTES, 0);
        }
        self.out = next;
    }

    /// Receives the round sent last and stores its states; every rank's
    /// headers of it combined.
    fn collect(&mut self, w: &mut Work) -> Heads {
        let head = self.sent.take().expect("a round under way");
        let mut heads = Heads::of(&head);
        let t = Instant::now();
        self.comm.receive(&mut self.inbox);
        self.pos.figures.wait_s += t.elapsed().as_secs_f64();
        self.inbox_bytes = self.inbox.iter().map(Vec::capacity).sum();
        self.held = self.counted_bytes();
        // More than the room kept for them arrived: nothing more is stored.
        if self.budget.refuse_frontier(self.store, self.held, 0) {
            self.stop = Some(Outcome::MemoryLimit);
        }
        let inbox = std::mem::take(&mut self.inbox);
        for (from, data) in inbox.iter().enumerate() {
            if from != self.me {
                let mut theirs = [0u64; HEAD];
                for (i, x) in theirs.iter_mut().enumerate() {
                    *x = u64::from_le_bytes(data[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
                }
                heads.add(&Heads::of(&theirs));
                self.receive(from, &data[HEAD_BYTES..], w);
            }
        }
        self.inbox = inbox;
        self.pos.frontier_peak = self.pos.frontier_peak.max(self.frontier_bytes());
        self.round_states = self.store.len().saturating_sub(self.stored);
        self.stored = self.store.len();
        self.pos.rounds += 1;
        if self.stop.is_none() {
            self.stop = self.budget.poll();
        }
        heads
    }

    /// Grows the store's index now if it would grow within a third more
    /// states, or eight rounds at the last round's pace if that is sooner,
    /// and the budget allows: done by every rank in the round after one said
    /// in its header that its index grows within a sixth. A rank that grows
    /// its index stops for as long as that takes (on a virtual machine,
    /// faulting the new table in can take a second), and the others wait
    /// for its batches; grown in the same round, the ranks' pauses overlap
    /// instead of adding up. The pace keeps a rank from growing an index
    /// near the search's end, where levels are small, that it would not fill.
    fn grow_ahead(&mut self) {
        let soon = (self.store.len() / 3).min(8 * self.round_states);
        let bytes = self.store.growth_within(soon);
        let total = self.store.bytes_used() + self.counted_bytes() + bytes;
        if bytes > 0 && self.stop.is_none() && !self.budget.refuse_bytes(total) {
            self.store.grow_now();
        }
    }

    /// Gives every set of batches back to this rank (the last rounds'
    /// sends having arrived), before the collectives that end the search.
    fn settle(&mut self) {
        while let Some(set) = self.comm.reclaim(true) {
            self.spare.push(set);
        }
    }
}

impl Work {
    fn new(model: &dyn NextState) -> Work {
        Work {
            bufs: (0..BATCH).map(|_| SuccBuf::new(model.state_len())).collect(),
            fps: Vec::new(),
            owners: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

impl<'a, S: Store, W: Watch> Rank<'a, S, W> {
    /// This rank, its states in `store` and owned by `partition`, before the
    /// search ([`Self::start`]) or a checkpoint gives it its position.
    fn new(
        model: &'a dyn NextState,
        comm: &'a dyn Comm,
        store: &'a mut S,
        budget: &'a Budget,
        watch: &'a W,
        partition: Partition,
    ) -> Self {
        let n = comm.size();
        Rank {
            model,
            comm,
            store,
            budget,
            watch,
            me: comm.rank(),
            n,
            partition,
            pos: Position::default(),
            parents: Vec::new(),
            out: vec![vec![0; HEAD_BYTES]; n],
            spare: Vec::new(),
            sets: 1,
            away_bytes: 0,
            inbox: vec![Vec::new(); n],
            inbox_bytes: 0,
            sent: None,
            round_states: 0,
            stored: 0,
            stop: None,
            found: None,
            violations: 0,
            round_bytes: round_bytes(budget.memory()),
            held: 0,
        }
    }

    /// The search's start: the initial state stored by its owner, the
    /// first level about to begin.
    fn start(&mut self, max_states: u64) {
        self.pos = Position {
            level_starts: vec![0],
            figures: RankFigures {
                rank: self.me as u64,
                ..RankFigures::default()
            },
            level_begins: true,
            ..Position::default()
        };
        let init = self.model.initial_vec();
        let fp = self.model.fingerprint(&init);
        self.held = self.counted_bytes();
        if max_states == 0 {
            self.stop = Some(Outcome::StateLimit);
        } else if self.partition.owner(fp, &init, self.n) == self.me {
            let root = parent_link(
                0,
                Succ {
                    label: dve_frontend::model::Label::local(ROOT),
                    error: false,
                },
            );
            self.store(&init, fp, (ROOT, root), None);
            if let Some(f) = &mut self.found {
                // The initial state itself violates: level 0.
                f.key = self.me as u64;
            }
        }
        self.pos.level_end = self.store.len();
    }

    /// Rounds until the search ends, a budget stops it (its outcome) or a
    /// violation does (`true`). A rank expands the next round's states
    /// while the round it sent travels, then receives that one; what the
    /// ranks decide from a round's headers they so decide a round late:
    /// the round expanded meanwhile is then sent and received too (so that
    /// no state is lost), except at a level's end, where it is empty.
    fn search(&mut self, max_states: u64) -> (Outcome, bool) {
        let mut work = Work::new(self.model);
        let result = loop {
            self.expand_round(&mut work);
            if self.sent.is_none() {
                self.post();
                continue;
            }
            let h = self.collect(&mut work);
            if h.grow {
                self.grow_ahead();
            }
            // Only rank 0's budget publishes to the progress line.
            let _ = self.budget.poll_with(h.states, h.transitions, self.pos.depth);
            let p = &mut self.pos;
            if p.level_begins {
                // The level before is done everywhere: its edges are known,
                // and this level's states.
                p.level_begins = false;
                if let Some(l) = p.levels.last_mut() {
                    l.edges = h.prev_edges;
                    l.back_level_edges = h.prev_back;
                }
                if h.level_states > 0 {
                    p.levels.push(LevelStats {
                        level: p.depth as u32,
                        states: h.level_states,
                        ..LevelStats::default()
                    });
                } else if max_states > 0 {
                    // No state left: the search is complete, whatever a
                    // rank's clock said meanwhile.
                    break (Outcome::Complete, false);
                }
            }
            if let Some(end) = self.ends(&h, max_states) {
                // The round expanded meanwhile goes out and in too.
                self.post();
                let h = self.collect(&mut work);
                break self.ends(&h, max_states).unwrap_or(end);
            }
            if h.left {
                self.post();
                continue;
            }
            // Every rank sent its last batch of the level in that round (and
            // expanded nothing since).
            let p = &mut self.pos;
            p.prev_edges = std::mem::take(&mut p.level_edges);
            p.prev_back = std::mem::take(&mut p.level_back);
            p.depth += 1;
            p.level_starts.push(p.level_end as u32);
            p.level_end = self.store.len();
            p.level_begins = true;
        };
        self.settle();
        // A rank that stopped for memory in the last rounds (after its
        // header went out) dropped states: the run is not complete, and no
        // checkpoint may go on from it.
        let worst = self.comm.reduce(&[stop_code(self.stop)], Reduce::Max)[0];
        match result {
            (_, violated) if worst == stop_code(Some(Outcome::MemoryLimit)) => {
                (Outcome::MemoryLimit, violated)
            }
            r => r,
        }
    }

    /// Whether the round of headers `h` ends the search, and how: a budget
    /// (any rank's), a violation, or the global state limit.
    fn ends(&self, h: &Heads, max_states: u64) -> Option<(Outcome, bool)> {
        if h.stop > 0 {
            Some((outcome_of(h.stop), false))
        } else if h.key > 0 && !self.watch.all() {
            Some((Outcome::Complete, true))
        } else if h.states > max_states {
            Some((Outcome::StateLimit, false))
        } else {
            None
        }
    }

    /// Every rank's figures of the search that ended with `result`
    /// (`violated`: by a violation).
    fn finish(mut self, result: Outcome, violated: bool) -> Distributed<W::Found> {
        let (comm, watch) = (self.comm, self.watch);
        let mut levels = std::mem::take(&mut self.pos.levels);
        if result != Outcome::Complete || violated {
            // The level was cut short: its edges so far.
            let sums = comm.reduce(&[self.pos.level_edges, self.pos.level_back], Reduce::Sum);
            if let Some(level) = levels.last_mut().filter(|l| l.level as u64 == self.pos.depth) {
                level.edges = sums[0];
                level.back_level_edges = sums[1];
            }
        }
        let p = &self.pos;
        let sums = comm.reduce(
            &[
                p.transitions,
                p.deadlocks,
                p.errors,
                self.violations,
                self.store.len() as u64,
            ],
            Reduce::Sum,
        );
        let key = comm.reduce(
            &[self.found.as_ref().map_or(0, |f| u64::MAX - f.key)],
            Reduce::Max,
        )[0];
        let max_back = comm.reduce(&[p.max_back], Reduce::Max)[0];
        let first = (W::PARENTS && key > 0).then(|| {
            let (kind, trace) = self.trace(u64::MAX - key);
            let last = trace.state(trace.steps.len()).to_vec();
            let found = match kind {
                STATE => watch.state(&last),
                DEADLOCK => watch.deadlock(),
                _ => watch.error(),
            };
            (found.expect("the watch finds the violation again"), trace)
        });
        let mut f = self.pos.figures;
        f.states = self.store.len() as u64;
        f.store_bytes = self.store.bytes_used() as u64;
        f.frontier_bytes = self.pos.frontier_peak as u64;
        f.peak_rss_bytes = crate::peak_rss_bytes();
        let mine = [
            f.rank,
            f.states,
            f.store_bytes,
            f.frontier_bytes,
            f.peak_rss_bytes,
            f.messages_sent,
            f.bytes_sent,
            (f.wait_s * 1e9) as u64,
        ];
        let ranks: Vec<RankFigures> = comm
            .gather(&mine)
            .chunks_exact(mine.len())
            .map(|f| RankFigures {
                rank: f[0],
                states: f[1],
                store_bytes: f[2],
                frontier_bytes: f[3],
                peak_rss_bytes: f[4],
                messages_sent: f[5],
                bytes_sent: f[6],
                wait_s: f[7] as f64 / 1e9,
            })
            .collect();
        let run = ParallelRun {
            counters: Counters {
                result,
                states: sums[4],
                transitions: sums[0],
                deadlocks: sums[1],
                error_transitions: sums[2],
            },
            back_level_edges: levels.iter().map(|l| l.back_level_edges).sum(),
            max_back_level_edge: max_back,
            levels,
            store_bytes: ranks.iter().map(|r| r.store_bytes).sum(),
            frontier_bytes: ranks.iter().map(|r| r.frontier_bytes).sum(),
        };
        Distributed {
            run,
            rounds: self.pos.rounds,
            ranks,
            violations: sums[3],
            first,
        }
    }
}

/// Breadth-first search of `model` over the ranks of `comm`, this rank's
/// states in the empty `store`; see the module documentation. `budget`
/// must have no state limit (it would be per rank): `max_states` is the
/// global one. Every rank returns the same figures.
pub fn distributed_bfs<S: Store, W: Watch>(
    model: &dyn NextState,
    comm: &dyn Comm,
    store: &mut S,
    budget: &Budget,
    max_states: u64,
    watch: &W,
    partition: Partition,
) -> Distributed<W::Found> {
    assert!(
        store.is_empty(),
        "the distributed BFS needs an empty store (ids are its queue)"
    );
    let mut r = Rank::new(model, comm, store, budget, watch, partition);
    r.start(max_states);
    let (result, violated) = r.search(max_states);
    r.finish(result, violated)
}
