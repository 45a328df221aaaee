//! Accepting cycles on every core: CNDFS (Evangelista, Laarman, Petrucci,
//! van de Pol, *Improved Multi-Core Nested Depth-First Search*, ATVA 2012,
//! the algorithm `cndfs`), on the shared exact store.
//!
//! **The algorithm.** Every thread `i` runs a whole nested DFS from the
//! initial state, its successors in an order of its own (thread 0 the
//! model's, the others a seeded shuffle), over colours that the threads
//! share: a state is *blue* once some thread's blue (outer) search has
//! backtracked from it, *red* once a red (inner) search has shown that no
//! accepting cycle passes it. A thread's blue search enters neither a blue
//! state nor one on its own stack (*cyan*); when it backtracks from an
//! accepting state `s` it runs the red search from `s`: the states
//! reachable from `s` that are not red, each once (the set `R`); reaching a
//! state on its own blue stack closes an accepting cycle. Then it waits
//! until every other accepting state of `R` is red (another thread's red
//! search from it is under way) and colours `R` red. A blue successor on
//! the thread's own stack closes a cycle at once when either end accepts
//! (the paper's early detection). Any thread's cycle stops every thread.
//!
//! **Counterexample.** The thread's blue stack to the state the cycle
//! returns to (the stem), the rest of the blue stack to the seed, the red
//! stack and the closing transition (the cycle): the lasso of nested DFS.
//!
//! **Counters.** A state's transitions, deadlock and run-time errors are
//! counted (and checked) by the first thread to expand it in a blue
//! search; states are those stored. So a search that runs to its end
//! reports the sequential nested DFS's states, transitions, deadlocks and
//! error transitions, whatever the timing.
//!
//! **Budgets** as in the other parallel searches: time, interruption and
//! memory (the store, the threads' stacks and sets) polled every
//! [`POLL`] expansions, also while a thread waits; the state limit exact.

use std::sync::atomic::{AtomicUsize, Ordering};

use dve_frontend::model::{NextState, Succ, SuccBuf};

use crate::limits::Budget;
use crate::loops::parallel::{with_shared, Order, ParallelRun, Shared, Tally, Violation, Watch};
use crate::rng::Rng;
use crate::store::shared::{ConcurrentStore, StoreWriter};
use crate::store::{Insert, StoreKind};
use crate::trace::{Step, Trace};

/// Expansions between two polls of the budget.
const POLL: u32 = 256;

/// The shared colours, in the flags byte the store keeps with each state
/// ([`StoreWriter::mark`]), beside the bytes a lookup has just compared.
const BLUE: u8 = 1;
const RED: u8 = 2;
/// The state's transitions were counted (by the first blue expansion).
const COUNTED: u8 = 4;

/// Sets `bit` of state `id`'s colours unless set: a read first, so that
/// a colour already there costs no write (the line stays shared between
/// the cores). Whether this call set it.
#[inline]
fn paint<W: StoreWriter>(w: &mut W, id: u32, bit: u8) -> bool {
    let c = w.mark(id);
    c.load(Ordering::Acquire) & bit == 0 && c.fetch_or(bit, Ordering::AcqRel) & bit == 0
}

/// Whether state `id` has colour `bit`.
#[inline]
fn has<W: StoreWriter>(w: &mut W, id: u32, bit: u8) -> bool {
    w.mark(id).load(Ordering::Acquire) & bit != 0
}

/// A thread's own set of state ids: a bit per id (ids are dense), so
/// that a test is a load from a table far smaller than the store.
#[derive(Default)]
struct Bits(Vec<u64>);

impl Bits {
    #[inline]
    fn get(&self, id: u32) -> bool {
        self.0
            .get(id as usize >> 6)
            .is_some_and(|w| w & (1 << (id & 63)) != 0)
    }

    #[inline]
    fn set(&mut self, id: u32) {
        let w = id as usize >> 6;
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (id & 63);
    }

    #[inline]
    fn clear(&mut self, id: u32) {
        if let Some(w) = self.0.get_mut(id as usize >> 6) {
            *w &= !(1 << (id & 63));
        }
    }

    fn bytes(&self) -> usize {
        self.0.capacity() * 8
    }
}

/// A state on a stack: its id, the transition that led to it, and its
/// successors (`start..end` of the thread's `pending`), from `next` still
/// to try.
struct Frame {
    id: u32,
    via: Option<Succ>,
    accepting: bool,
    start: usize,
    next: usize,
    end: usize,
}

/// Accepting cycles on `threads` threads (CNDFS), checking what `watch`
/// looks for besides (an accepting cycle is `watch.accepting_cycle()`):
/// the search, the number of violations and the first one found.
pub fn cndfs_check<W: Watch>(
    model: &dyn NextState,
    threads: usize,
    budget: &Budget,
    watch: &W,
) -> (ParallelRun, u64, Option<Violation<W::Found>>) {
    with_shared(model, threads, budget, &NoParents(watch), StoreKind::Exact, Cndfs)
}

/// `W` without parent links: counterexamples come from the stacks.
struct NoParents<'a, W>(&'a W);

impl<W: Watch> Watch for NoParents<'_, W> {
    type Found = W::Found;
    const PARENTS: bool = false;
    fn state(&self, state: &[u8]) -> Option<W::Found> {
        self.0.state(state)
    }
    fn deadlock(&self) -> Option<W::Found> {
        self.0.deadlock()
    }
    fn system_deadlock(&self, state: &[u8]) -> bool {
        self.0.system_deadlock(state)
    }
    fn error(&self) -> Option<W::Found> {
        self.0.error()
    }
    fn accepting_cycle(&self) -> Option<W::Found> {
        self.0.accepting_cycle()
    }
    fn all(&self) -> bool {
        self.0.all()
    }
}

struct Cndfs;

impl Order for Cndfs {
    const MARKS: bool = true;

    fn search<W: Watch, S: ConcurrentStore>(self, sh: &Shared<'_, W, S>, t_n: usize, run: &mut ParallelRun) {
        let bytes: Vec<AtomicUsize> = (0..t_n).map(|_| AtomicUsize::new(0)).collect();
        let tallies: Vec<(Tally, usize)> = std::thread::scope(|scope| {
            let bytes = &bytes;
            let others: Vec<_> = (1..t_n)
                .map(|q| scope.spawn(move || Worker::new(sh, bytes, q).run()))
                .collect();
            let mut all = vec![Worker::new(sh, bytes, 0).run()];
            all.extend(
                others
                    .into_iter()
                    .map(|h| h.join().expect("a thread of CNDFS stopped")),
            );
            all
        });
        for (t, peak) in tallies {
            run.counters.transitions += t.transitions;
            run.counters.deadlocks += t.deadlocks;
            run.counters.error_transitions += t.errors;
            run.frontier_bytes += peak as u64;
        }
    }
}

/// One thread's nested DFS.
struct Worker<'s, 'a, W: Watch, S: ConcurrentStore> {
    sh: &'s Shared<'a, W, S>,
    /// Per thread, the bytes of its stacks and sets (memory budget).
    bytes: &'s [AtomicUsize],
    q: usize,
    w: S::Writer<'s>,
    rng: Option<Rng>,
    buf: SuccBuf,
    /// The fingerprints of `buf`'s successors.
    fps: Vec<u64>,
    tally: Tally,
    blue: Vec<Frame>,
    /// The blue stack's states (cyan), and those of them that accept.
    cyan: Bits,
    cyan_accepting: Bits,
    red: Vec<Frame>,
    /// The states of the current red search, as a set and in order.
    reds: Bits,
    reds_list: Vec<u32>,
    /// The accepting states of the current red search but its seed.
    reds_accepting: Vec<u32>,
    pending: Vec<(u32, Succ)>,
    expansions: u32,
    peak: usize,
    reported: u64,
}

impl<'s, 'a, W: Watch, S: ConcurrentStore> Worker<'s, 'a, W, S> {
    fn new(sh: &'s Shared<'a, W, S>, bytes: &'s [AtomicUsize], q: usize) -> Self {
        Worker {
            sh,
            bytes,
            q,
            w: sh.store.writer(q),
            rng: (q > 0).then(|| Rng::seeded(q as u64)),
            buf: SuccBuf::new(sh.model.state_len()),
            fps: Vec::new(),
            tally: Tally::default(),
            blue: Vec::new(),
            cyan: Bits::default(),
            cyan_accepting: Bits::default(),
            red: Vec::new(),
            reds: Bits::default(),
            reds_list: Vec::new(),
            reds_accepting: Vec::new(),
            pending: Vec::new(),
            expansions: 0,
            peak: 0,
            reported: 0,
        }
    }

    fn stopped(&self) -> bool {
        self.sh.stop.load(Ordering::Relaxed)
    }

    /// The counters, and the peak bytes of the stacks and sets.
    fn run(mut self) -> (Tally, usize) {
        self.blue_search();
        self.w.release();
        let t = std::mem::take(&mut self.tally);
        self.sh
            .transitions
            .fetch_add(t.transitions - self.reported, Ordering::Relaxed);
        (t, self.peak)
    }

    /// Every `POLL` expansions: the budget, with this thread's bytes
    /// published; false when the search must stop.
    fn poll(&mut self) -> bool {
        self.expansions += 1;
        if !self.expansions.is_multiple_of(POLL) {
            return !self.stopped();
        }
        self.w.release();
        self.sh
            .transitions
            .fetch_add(self.tally.transitions - self.reported, Ordering::Relaxed);
        self.reported = self.tally.transitions;
        let mine = self.pending.capacity() * 16
            + (self.blue.capacity() + self.red.capacity()) * std::mem::size_of::<Frame>()
            + self.cyan.bytes()
            + self.cyan_accepting.bytes()
            + self.reds.bytes()
            + (self.reds_list.capacity() + self.reds_accepting.capacity()) * 4
            + self.fps.capacity() * 8
            + self.buf.bytes();
        self.peak = self.peak.max(mine);
        self.bytes[self.q].store(mine, Ordering::Relaxed);
        let all: usize = self.bytes.iter().map(|b| b.load(Ordering::Relaxed)).sum();
        if let Some(o) = self.sh.poll(self.blue.len(), all) {
            self.sh.halt(o);
        }
        !self.stopped()
    }

    /// Expands `id` onto `pending` (in this thread's order); in a blue
    /// search, the first expansion of a state counts and checks its
    /// transitions. None when the search must stop (a violation, the state
    /// limit), else the end of its successors on `pending` and whether
    /// `id` accepts.
    fn expand(&mut self, id: u32, blue: bool) -> Option<(usize, bool)> {
        let model = self.sh.model;
        let src = self.w.load(0, id);
        model.successors(src, &mut self.buf);
        let accepting = model.info().is_accepting(src);
        let counts = blue && paint(&mut self.w, id, COUNTED);
        let k = self.buf.len();
        if counts {
            self.tally.transitions += k as u64;
            // A state where only the property process moves is a deadlock
            // of the system (the product stutters there).
            let stutter = k > 0 && self.buf.entry(0).label.trans == dve_frontend::model::NONE;
            if k == 0 {
                self.tally.deadlocks += 1;
            }
            if (k == 0 && self.sh.watch.system_deadlock(self.w.load(0, id))) || stutter {
                if let Some(v) = self.sh.watch.deadlock() {
                    let trace = self.path(None);
                    if !self.sh.violation(v, || trace) {
                        return None;
                    }
                }
            }
        }
        // The index slots the lookups below read first, loaded together.
        // (Not the stored states too, as the sequential DFS does: that
        // waits for each slot here, where the successors are looked up at
        // once rather than one by one between deeper searches.)
        self.fps.clear();
        self.fps
            .extend((0..k).map(|i| model.fingerprint(self.buf.state(i))));
        for &fp in &self.fps {
            self.w.prefetch(fp);
        }
        let start = self.pending.len();
        for i in 0..k {
            let e = self.buf.entry(i);
            let succ = self.buf.state(i);
            if counts && e.error {
                self.tally.errors += 1;
                if let Some(v) = self.sh.watch.error() {
                    let trace = self.path(Some((e, succ)));
                    if !self.sh.violation(v, || trace) {
                        return None;
                    }
                }
            }
            match self.sh.visit(&mut self.w, succ, &[0], self.fps[i]) {
                Some(Insert::New(t)) => {
                    if let Some(v) = self.sh.watch.state(succ) {
                        let trace = self.path(Some((e, succ)));
                        if !self.sh.violation(v, || trace) {
                            return None;
                        }
                    }
                    self.pending.push((t, e));
                }
                Some(Insert::Seen(t)) => self.pending.push((t, e)),
                None => {
                    if !self.stopped() {
                        self.sh.halt(crate::Outcome::StateLimit);
                    }
                    return None;
                }
            }
        }
        if let Some(rng) = &mut self.rng {
            let mine = &mut self.pending[start..];
            for i in (1..mine.len()).rev() {
                mine.swap(i, rng.below(i + 1));
            }
        }
        Some((self.pending.len(), accepting))
    }

    /// Pushes `id` on the blue stack (cyan) and expands it; false when the
    /// search must stop.
    fn push_blue(&mut self, id: u32, via: Option<Succ>) -> bool {
        self.cyan.set(id);
        let start = self.pending.len();
        self.blue.push(Frame {
            id,
            via,
            accepting: false,
            start,
            next: start,
            end: start,
        });
        // On the stack first: a violation's path ends at this state.
        let Some((end, accepting)) = self.expand(id, true) else {
            return false;
        };
        if accepting {
            self.cyan_accepting.set(id);
        }
        let top = self.blue.last_mut().expect("a frame");
        top.end = end;
        top.accepting = accepting;
        true
    }

    /// Pushes `id` on the red stack and expands it; false when the search
    /// must stop.
    fn push_red(&mut self, id: u32, via: Option<Succ>) -> bool {
        let start = self.pending.len();
        let Some((end, accepting)) = self.expand(id, false) else {
            return false;
        };
        self.red.push(Frame {
            id,
            via,
            accepting,
            start,
            next: start,
            end,
        });
        true
    }

    fn blue_search(&mut self) {
        if !self.push_blue(0, None) {
            return;
        }
        while let Some(top) = self.blue.last_mut() {
            if top.next < top.end {
                let (t, e) = self.pending[top.next];
                top.next += 1;
                let s_accepts = top.accepting;
                if self.cyan.get(t) {
                    // The paper's early detection: a cycle on the stack
                    // through an accepting state.
                    if s_accepts || self.cyan_accepting.get(t) {
                        self.cycle(e, t);
                        return;
                    }
                    continue;
                }
                if has(&mut self.w, t, BLUE) {
                    continue;
                }
                if !self.poll() || !self.push_blue(t, Some(e)) {
                    return;
                }
                continue;
            }
            let (s, s_accepts) = (top.id, top.accepting);
            paint(&mut self.w, s, BLUE);
            if s_accepts && !self.red_search(s) {
                return;
            }
            let f = self.blue.pop().expect("a frame");
            self.cyan.clear(f.id);
            self.cyan_accepting.clear(f.id);
            self.pending.truncate(f.start);
        }
    }

    /// The red search from accepting `seed` (on top of the blue stack),
    /// then the wait and the colouring; false when the search must stop
    /// (a cycle, a budget).
    fn red_search(&mut self, seed: u32) -> bool {
        for &r in &self.reds_list {
            self.reds.clear(r);
        }
        self.reds_list.clear();
        self.reds_accepting.clear();
        self.reds.set(seed);
        self.reds_list.push(seed);
        if !self.push_red(seed, None) {
            return false;
        }
        while let Some(top) = self.red.last_mut() {
            if top.next < top.end {
                let (t, e) = self.pending[top.next];
                top.next += 1;
                if self.cyan.get(t) {
                    self.cycle(e, t);
                    return false;
                }
                if self.reds.get(t) || has(&mut self.w, t, RED) {
                    continue;
                }
                self.reds.set(t);
                self.reds_list.push(t);
                if !self.poll() || !self.push_red(t, Some(e)) {
                    return false;
                }
                if self.red.last().is_some_and(|f| f.accepting) {
                    self.reds_accepting.push(t);
                }
                continue;
            }
            let f = self.red.pop().expect("a frame");
            self.pending.truncate(f.start);
        }
        // Another thread's red search from each of these is under way.
        while let Some(&a) = self.reds_accepting.last() {
            if has(&mut self.w, a, RED) {
                self.reds_accepting.pop();
                continue;
            }
            if !self.poll() {
                return false;
            }
            // Waiting without the index's read lock: a thread may grow it.
            self.w.release();
            std::thread::yield_now();
        }
        for &r in &self.reds_list {
            paint(&mut self.w, r, RED);
        }
        true
    }

    /// The blue stack as a path from the initial state, then `last`.
    fn path(&self, last: Option<(Succ, &[u8])>) -> Trace {
        let mut steps: Vec<Step> = self.blue[1..]
            .iter()
            .map(|f| Step::new(f.via.expect("a transition"), &self.sh.store.read(f.id)))
            .collect();
        steps.extend(last.map(|(e, s)| Step::new(e, s)));
        Trace::path(self.sh.store.read(0), steps)
    }

    /// Reports the accepting cycle that transition `e` closes back to
    /// state `t`, on the blue stack: the blue stack, the red one (if a
    /// red search runs), then `e`.
    fn cycle(&mut self, e: Succ, t: u32) {
        let Some(found) = self.sh.watch.accepting_cycle() else {
            return;
        };
        let at = self
            .blue
            .iter()
            .position(|f| f.id == t)
            .expect("a cyan state is on the blue stack");
        let mut trace = self.path(None);
        let red = self.red.get(1..).unwrap_or(&[]);
        trace.steps.extend(
            red.iter()
                .map(|f| Step::new(f.via.expect("a transition"), &self.sh.store.read(f.id))),
        );
        trace.steps.push(Step::new(e, &self.sh.store.read(t)));
        trace.cycle_start = Some(at);
        self.sh.violation(found, || trace);
        // A cycle ends the search, whatever else is counted.
        self.sh.stop.store(true, Ordering::Relaxed);
    }
}
