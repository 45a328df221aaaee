//! Depth-first search: the engine's fast path for every search that goes
//! depth first over a store.
//!
//! The recursive depth-first order, run iteratively on a stack of frames
//! (state id, next successor index): a new successor is entered before the
//! next sibling is looked at. Every edge is classified when it is examined:
//! *front* (tree) edge when its target is new, *back* edge when the target
//! is on the stack, *cross* edge otherwise. `max_stack` is the largest
//! number of frames, the root's included (BEEM's `<dfs-info>`).
//!
//! Each frame's successors are kept, with their fingerprints (and, for
//! observers that want labels, their entries), on a stack beside the frames,
//! up to a cap ([`keep_cap`]): when it is reached the bottom half of the
//! kept lists is dropped, and a frame without its list regenerates its
//! successors when the search backtracks to it (the successor function is
//! deterministic, so the order is the same). Either way the search is the
//! same. Keeping them spares a second expansion of almost every state (on
//! backtracking, which happens near the top of the stack) and lets the
//! index slots of a state's successors be prefetched together.
//!
//! The search starts from the model's initial state, or from a state
//! already in the store ([`Root::Stored`]: the inner search of nested DFS).
//!
//! **Memory**: the store plus 16 bytes per frame (32 with labels), one bit
//! per state for the stack, and the kept lists (at most [`KEEP_BYTES`]); no
//! allocation per state in the loop (buffers are reused and grow
//! geometrically). The memory budget is checked before the stack grows.

use dve_frontend::model::{NextState, Succ, SuccBuf};
use serde::Serialize;

use crate::counters::Counters;
use crate::limits::{visit, Budget, POLL_MASK};
use crate::observer::{Cx, Frame, Observer, PathSource, NO_SUCC};
use crate::outcome::Outcome;
use crate::reduce::Proviso;
use crate::store::{Insert, Store};

/// BEEM's `<dfs-info>` counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DfsStats {
    pub max_stack: u64,
    pub front_edges: u64,
    pub back_edges: u64,
    pub cross_edges: u64,
}

const NOT_KEPT: u32 = u32::MAX;
const SUCC_BYTES: usize = std::mem::size_of::<Succ>();

/// Bytes the kept successor lists may use by default.
pub const KEEP_BYTES: usize = 64 << 20;

/// The cap of the kept lists under a memory budget: [`KEEP_BYTES`], or an
/// eighth of the budget if smaller.
pub fn keep_cap(memory: Option<u64>) -> usize {
    match memory {
        Some(m) => KEEP_BYTES.min((m / 8).min(usize::MAX as u64) as usize),
        None => KEEP_BYTES,
    }
}

/// Where the search starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// The model's initial state, inserted first.
    Initial,
    /// A state already stored (not inserted again, not reported new).
    Stored(u32),
}

#[derive(Clone, Copy, Debug)]
pub struct DfsOptions {
    /// Cap of the kept successor lists in bytes.
    pub keep_bytes: usize,
    pub root: Root,
}

impl DfsOptions {
    pub fn new(budget: &Budget) -> DfsOptions {
        DfsOptions {
            keep_bytes: keep_cap(budget.memory()),
            root: Root::Initial,
        }
    }
}

/// What a depth-first search did.
#[derive(Clone, Debug)]
pub struct Dfs {
    pub counters: Counters,
    /// An observer stopped the search (`result` is then `complete`).
    pub stopped: bool,
    pub expansions: u64,
    pub stats: DfsStats,
    /// Largest allocation of the stack and kept lists.
    pub frontier_bytes: u64,
}

/// Drops the bottom half (or so) of the kept lists: their frames will
/// regenerate their successors. The kept frames are always a suffix of the
/// stack. Returns false if nothing could be dropped (one frame's list).
fn drop_kept_bottom(
    frames: &mut [Frame],
    states: &mut Vec<u8>,
    fps: &mut Vec<u64>,
    entries: &mut Vec<Succ>,
    n: usize,
) -> bool {
    let half = fps.len() / 2;
    // First kept frame, and the first one whose list starts at `half` or above.
    let mut first = frames.len();
    while first > 0 && frames[first - 1].kept != NOT_KEPT {
        first -= 1;
    }
    let Some(cut) = (first..frames.len()).find(|&i| frames[i].kept as usize >= half && frames[i].kept > 0)
    else {
        return false;
    };
    let base = frames[cut].kept as usize;
    for f in &mut frames[first..cut] {
        f.kept = NOT_KEPT;
    }
    for f in &mut frames[cut..] {
        f.kept -= base as u32;
    }
    states.drain(..base * n);
    fps.drain(..base);
    if !entries.is_empty() {
        entries.drain(..base);
    }
    true
}

/// Fingerprints the successors in `buf` into `fps` and starts loading what
/// looking up those from `from` on will read.
fn fingerprint_buf<S: Store>(
    model: &dyn NextState,
    store: &S,
    buf: &SuccBuf,
    fps: &mut Vec<u64>,
    from: usize,
) {
    fps.clear();
    fps.extend((0..buf.len()).map(|i| model.fingerprint(buf.state(i))));
    for (i, &fp) in fps.iter().enumerate().skip(from) {
        store.prefetch(buf.state(i), fp);
    }
    for &fp in &fps[from..] {
        store.prefetch_state(fp);
    }
}

#[inline]
fn bit(bits: &[u64], id: u32) -> bool {
    bits.get(id as usize >> 6)
        .is_some_and(|w| w & (1u64 << (id & 63)) != 0)
}

/// Depth-first search into `store`; see the module documentation.
pub fn dfs<S: Store, O: Observer<S>>(
    model: &dyn NextState,
    store: &mut S,
    budget: &Budget,
    opts: DfsOptions,
    obs: &mut O,
) -> Dfs {
    let n = model.state_len();
    let mut s = DfsSearch {
        model,
        store,
        budget,
        obs,
        n,
        per_succ: n + 8 + if O::LABELS { SUCC_BYTES } else { 0 },
        cap: opts.keep_bytes,
        track_memory: budget.memory().is_some(),
        buf: SuccBuf::new(n),
        buf_owner: u32::MAX,
        buf_fps: Vec::new(),
        scratch: Vec::new(),
        frames: Vec::new(),
        vias: Vec::new(),
        on_stack: Vec::new(),
        kept_states: Vec::new(),
        kept_fps: Vec::new(),
        kept_entries: Vec::new(),
        run: Dfs {
            counters: Counters::default(),
            stopped: false,
            expansions: 0,
            stats: DfsStats::default(),
            frontier_bytes: 0,
        },
        peak_frontier: 0,
    };
    s.start(opts.root);
    s.run();
    s.run.frontier_bytes = s.peak_frontier as u64;
    s.run.counters.states = s.store.len() as u64;
    s.run
}

/// An observer's view of the search: the store and the stack.
macro_rules! cx {
    ($s:expr) => {
        Cx {
            store: &*$s.store,
            path: PathSource::Stack {
                frames: &$s.frames,
                vias: &$s.vias,
                on_stack: &$s.on_stack,
            },
        }
    };
}

/// One depth-first search under way: the stack, the kept successor lists,
/// the successor buffer, and what the search reports.
struct DfsSearch<'a, S, O> {
    model: &'a dyn NextState,
    store: &'a mut S,
    budget: &'a Budget,
    obs: &'a mut O,
    n: usize,
    /// Bytes a kept successor takes.
    per_succ: usize,
    /// Cap of the kept lists in bytes.
    cap: usize,
    track_memory: bool,
    buf: SuccBuf,
    /// Whose successors `buf` holds (frames that keep nothing).
    buf_owner: u32,
    /// Fingerprints of `buf`'s successors.
    buf_fps: Vec<u64>,
    scratch: Vec<u8>,
    frames: Vec<Frame>,
    /// Entry of every frame (with labels).
    vias: Vec<Succ>,
    on_stack: Vec<u64>,
    /// Kept successor lists of the frames at the top of the stack.
    kept_states: Vec<u8>,
    kept_fps: Vec<u64>,
    kept_entries: Vec<Succ>,
    run: Dfs,
    peak_frontier: usize,
}

impl<S: Store, O: Observer<S>> DfsSearch<'_, S, O> {
    /// The bytes of the stack and the kept lists now.
    #[inline]
    fn frontier(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.vias.capacity() * SUCC_BYTES
            + self.on_stack.capacity() * 8
            + self.buf.len() * (self.n + 16)
            + self.kept_states.capacity()
            + self.kept_fps.capacity() * 8
            + self.kept_entries.capacity() * SUCC_BYTES
    }

    /// Cuts `buf`, the successors of `id`, with the observer's reducer
    /// under the stack proviso; `again`: the same cut when a frame
    /// regenerates its successors (the stack below it is the same).
    #[inline]
    fn reduce(&mut self, id: u32, again: bool) {
        let Some(r) = self.obs.reducer() else { return };
        let (model, st, on_stack) = (self.model, &*self.store, &self.on_stack);
        let mut on = |s: &[u8]| {
            st.find(s, model.fingerprint(s))
                .is_some_and(|d| d == id || bit(on_stack, d))
        };
        let state = st.state(id, &mut self.scratch);
        let proviso = Proviso::NoneOnStack(&mut on);
        if again {
            r.reduce_again(state, &mut self.buf, proviso);
        } else {
            r.reduce(state, &mut self.buf, proviso);
        }
    }

    /// Makes room for `k` kept successors, or stops keeping: returns
    /// whether the next frame's list is kept.
    #[inline]
    fn make_room(&mut self, k: usize) -> bool {
        if (self.kept_fps.len() + k) * self.per_succ > self.cap {
            drop_kept_bottom(
                &mut self.frames,
                &mut self.kept_states,
                &mut self.kept_fps,
                &mut self.kept_entries,
                self.n,
            );
        }
        let keep = (self.kept_fps.len() + k) * self.per_succ <= self.cap;
        if !keep {
            // Kept frames must stay a suffix of the stack.
            for f in self.frames.iter_mut().rev().take_while(|f| f.kept != NOT_KEPT) {
                f.kept = NOT_KEPT;
            }
            self.kept_states.clear();
            self.kept_fps.clear();
            self.kept_entries.clear();
        }
        keep
    }

    /// Keeps `buf`'s successors (and starts loading the index slots they
    /// will be looked up in): where the list starts.
    #[inline]
    fn keep_buf(&mut self) -> u32 {
        let at = self.kept_fps.len() as u32;
        for i in 0..self.buf.len() {
            let s = self.buf.state(i);
            self.kept_states.extend_from_slice(s);
            self.kept_fps.push(self.model.fingerprint(s));
        }
        if O::LABELS {
            self.kept_entries.extend_from_slice(self.buf.entries());
        }
        for (i, &fp) in self.kept_fps[at as usize..].iter().enumerate() {
            self.store.prefetch(self.buf.state(i), fp);
        }
        for &fp in &self.kept_fps[at as usize..] {
            self.store.prefetch_state(fp);
        }
        at
    }

    /// Expands state `id` (reached through `via`; counting its
    /// transitions) and pushes its frame; false if the memory budget
    /// forbids growing the stack.
    #[inline]
    fn push_frame(&mut self, id: u32, via: Succ) -> bool {
        self.model
            .successors(self.store.state(id, &mut self.scratch), &mut self.buf);
        self.reduce(id, false);
        self.buf_owner = id;
        let k = self.buf.len();
        let grows =
            self.frames.len() == self.frames.capacity() || (id as usize >> 6) >= self.on_stack.capacity();
        let keep = self.make_room(k);
        let cur = self.frontier();
        if grows && self.budget.refuse_frontier(&*self.store, cur, cur.max(64)) {
            return false;
        }
        let run = &mut self.run;
        run.expansions += 1;
        run.counters.transitions += k as u64;
        if k == 0 {
            run.counters.deadlocks += 1;
        }
        run.counters.error_transitions += self.buf.entries().iter().filter(|e| e.error).count() as u64;
        let kept = if keep {
            self.keep_buf()
        } else {
            fingerprint_buf(self.model, &*self.store, &self.buf, &mut self.buf_fps, 0);
            NOT_KEPT
        };
        self.frames.push(Frame {
            id,
            next: 0,
            count: k as u32,
            kept,
        });
        if O::LABELS {
            self.vias.push(via);
        }
        let w = id as usize >> 6;
        if w >= self.on_stack.len() {
            self.on_stack.resize(w + 1, 0);
        }
        self.on_stack[w] |= 1u64 << (id & 63);
        self.run.stats.max_stack = self.run.stats.max_stack.max(self.frames.len() as u64);
        self.peak_frontier = self.peak_frontier.max(self.frontier());
        true
    }

    /// Pushes state `id`, and tells the observer.
    #[inline]
    fn enter(&mut self, id: u32, via: Succ) {
        if !self.push_frame(id, via) {
            self.run.counters.result = Outcome::MemoryLimit;
            return;
        }
        let count = self.frames.last().map_or(0, |f| f.count as usize);
        if self.obs.expanded(&cx!(self), id, count).stop()
            || (count == 0 && self.obs.deadlock(&cx!(self), id).stop())
        {
            self.run.stopped = true;
        }
    }

    /// Enters the root.
    fn start(&mut self, root: Root) {
        match root {
            Root::Initial => {
                let init = self.model.initial_vec();
                match visit(self.store, self.budget, 0, &init, self.model.fingerprint(&init)) {
                    Ok(ins) => {
                        if self.obs.new_state(&cx!(self), ins.id(), &init, None).stop() {
                            self.run.stopped = true;
                        } else {
                            self.enter(ins.id(), NO_SUCC);
                        }
                    }
                    Err(stop) => self.run.counters.result = stop,
                }
            }
            Root::Stored(id) => self.enter(id, NO_SUCC),
        }
    }

    /// Closes the top frame: false if the observer stops the search.
    #[inline]
    fn pop_frame(&mut self) -> bool {
        let top = *self.frames.last().expect("frame");
        if self.obs.closed(&cx!(self), top.id).stop() {
            self.run.stopped = true;
            return false;
        }
        if top.kept != NOT_KEPT {
            self.kept_states.truncate(top.kept as usize * self.n);
            self.kept_fps.truncate(top.kept as usize);
            if O::LABELS {
                self.kept_entries.truncate(top.kept as usize);
            }
        }
        self.on_stack[top.id as usize >> 6] &= !(1u64 << (top.id & 63));
        self.frames.pop();
        if O::LABELS {
            self.vias.pop();
        }
        true
    }

    /// The top frame's next successor into `succ`: its source, fingerprint
    /// and entry (from the kept list, or regenerated).
    #[inline]
    fn next_successor(&mut self, succ: &mut [u8]) -> (u32, u64, Succ) {
        let n = self.n;
        let top = self.frames.last_mut().expect("frame");
        let i = top.next as usize;
        top.next += 1;
        let top = *top;
        if top.kept != NOT_KEPT {
            let at = top.kept as usize + i;
            if i + 1 < top.count as usize {
                // The next sibling's stored state, while this one is looked up.
                self.store.prefetch_state(self.kept_fps[at + 1]);
            }
            succ.copy_from_slice(&self.kept_states[at * n..(at + 1) * n]);
            let e = if O::LABELS { self.kept_entries[at] } else { NO_SUCC };
            return (top.id, self.kept_fps[at], e);
        }
        if top.id != self.buf_owner {
            self.model
                .successors(self.store.state(top.id, &mut self.scratch), &mut self.buf);
            // Cut the first time if fewer than all were kept then.
            if self.buf.len() != top.count as usize {
                self.reduce(top.id, true);
            }
            fingerprint_buf(self.model, &*self.store, &self.buf, &mut self.buf_fps, i);
            self.buf_owner = top.id;
        }
        succ.copy_from_slice(self.buf.state(i));
        (top.id, self.buf_fps[i], self.buf.entry(i))
    }

    /// Looks up the successor `succ` of `src` and enters it if new: false
    /// if the search ends.
    #[inline]
    fn follow(&mut self, src: u32, e: Succ, succ: &[u8], fp: u64) -> bool {
        if self.obs.successor(&cx!(self), src, e, succ).stop() {
            self.run.stopped = true;
            return false;
        }
        // Only a memory budget needs the stack's size.
        let frontier = if self.track_memory { self.frontier() } else { 0 };
        match visit(self.store, self.budget, frontier, succ, fp) {
            Ok(Insert::New(id)) => {
                self.run.stats.front_edges += 1;
                if self.obs.new_state(&cx!(self), id, succ, Some((src, e))).stop()
                    || self.obs.edge(&cx!(self), src, e, id, true).stop()
                {
                    self.run.stopped = true;
                    return false;
                }
                if self.run.expansions & POLL_MASK == 0 {
                    let depth = self.frames.len() as u64;
                    let (states, transitions) = (self.store.len() as u64, self.run.counters.transitions);
                    if let Some(stop) = self.budget.poll_with(states, transitions, depth) {
                        self.run.counters.result = stop;
                        return false;
                    }
                }
                self.enter(id, e);
            }
            Ok(Insert::Seen(id)) => {
                if bit(&self.on_stack, id) {
                    self.run.stats.back_edges += 1;
                } else {
                    self.run.stats.cross_edges += 1;
                }
                if self.obs.edge(&cx!(self), src, e, id, false).stop() {
                    self.run.stopped = true;
                    return false;
                }
            }
            Err(stop) => self.run.counters.result = stop,
        }
        true
    }

    /// Searches until the stack is empty or the search ends.
    fn run(&mut self) {
        let mut succ = vec![0u8; self.n];
        while self.run.counters.result == Outcome::Complete && !self.run.stopped {
            let Some(top) = self.frames.last() else { break };
            if top.next == top.count {
                if !self.pop_frame() {
                    break;
                }
                continue;
            }
            let (src, fp, e) = self.next_successor(&mut succ);
            if !self.follow(src, e, &succ, fp) {
                break;
            }
        }
    }
}
