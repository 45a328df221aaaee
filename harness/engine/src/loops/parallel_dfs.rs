//! Multi-core exhaustive search in a depth-first-like order (`explore
//! --strategy dfs --threads N`): a stack per thread over one shared store,
//! as LTSmin's multi-core DFS-like exploration (Laarman, van de Pol, Weber,
//! *Boosting Multi-Core Reachability Performance with Shared Hash Tables*,
//! FMCAD 2010: per-thread stacks, the visited set shared).
//!
//! **Order.** A thread takes the top [`BATCH`] states of its own stack,
//! expands them (their successors' lookups prefetched together, as in the
//! parallel BFS), and pushes the successors it stored: the newest states
//! are expanded first, so the search runs deep before it runs wide. The
//! thread that stores a state expands it, once; so the states,
//! transitions and deadlocks of a search that runs to its end are the
//! sequential search's whatever the timing (the order, the ids and the
//! stack depths are not: a DFS's edge classes and depth, which depend on
//! one order, are not reported).
//!
//! **Sharing work.** A thread whose stack is empty becomes idle; a working
//! thread that sees an idle one (one relaxed load per batch) hands over
//! the bottom half of its stack, the states nearest the root, whose
//! subtrees are the largest still ahead. The search ends when every thread
//! is idle and nothing handed over is waiting, decided under the lock of
//! the handed-over parts.
//!
//! **Checks and budgets** as in the parallel BFS ([`crate::loops::parallel`]): a
//! violation stops every thread at its next batch, with the path of parent
//! links to it (a path of the search, not a shortest one); time,
//! interruption and memory (store, stacks and buffers) are polled at every
//! block of [`BLOCK`] batches, the state limit is exact.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use dve_frontend::model::NextState;

use crate::limits::Budget;
use crate::loops::bfs::BATCH;
use crate::loops::parallel::{
    prefetch_successors, with_shared, Order, ParallelRun, Scratch, Shared, Tally, Violation, Watch,
};
use crate::store::shared::{ConcurrentStore, StoreWriter};
use crate::store::StoreKind;

/// Batches a thread expands between two polls of the budget (and two
/// chances for a thread growing the index to take its write lock).
const BLOCK: usize = 16;

/// The parts of stacks handed over to idle threads.
#[derive(Default)]
struct Parts {
    waiting: Vec<Vec<u32>>,
    /// Threads with an empty stack.
    idle: usize,
    /// Every thread idle and nothing waiting: the search is over.
    over: bool,
}

/// What the threads share besides [`Shared`]: the parts handed over, and
/// each thread's bytes of stack and buffers (for the memory budget).
struct Crew<'a, W: Watch, S: ConcurrentStore> {
    sh: &'a Shared<'a, W, S>,
    threads: usize,
    parts: Mutex<Parts>,
    /// Signalled when a part is handed over, and when the search ends.
    ready: Condvar,
    /// Idle threads without a part waiting for them (read without the
    /// lock: a hint that a working thread should share).
    wanted: AtomicUsize,
    bytes: Vec<AtomicUsize>,
}

impl<W: Watch, S: ConcurrentStore> Crew<'_, W, S> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Parts> {
        self.parts.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_wanted(&self, p: &Parts) {
        self.wanted
            .store(p.idle.saturating_sub(p.waiting.len()), Ordering::Relaxed);
    }

    /// Thread `q`'s search from `stack`: its counters and the peak bytes
    /// of its stack and buffers.
    fn work(&self, q: usize, mut stack: Vec<u32>) -> (Tally, usize) {
        let sh = self.sh;
        let mut w = sh.store.writer(q);
        let mut t = Tally::default();
        let mut s = Scratch::new(sh.model.state_len());
        let mut peak = 0;
        let _wake = WakeOnExit(self);
        loop {
            if stack.is_empty() {
                // Waiting without the index's read lock, so that a thread
                // growing it can go on.
                w.release();
                match self.idle() {
                    Some(part) => stack = part,
                    None => break,
                }
            }
            w.release();
            let mine = stack.capacity() * 4 + s.bytes();
            peak = peak.max(mine);
            self.bytes[q].store(mine, Ordering::Relaxed);
            if sh.stop.load(Ordering::Relaxed) {
                break;
            }
            let others: usize = self.bytes.iter().map(|b| b.load(Ordering::Relaxed)).sum();
            if let Some(o) = sh.poll(0, others) {
                sh.halt(o);
                break;
            }
            let before = t.transitions;
            for _ in 0..BLOCK {
                if stack.is_empty() {
                    break;
                }
                let Scratch { bufs, fps, sources } = &mut s;
                sources.clear();
                // The top of the stack, the newest state first.
                let from = stack.len().saturating_sub(BATCH);
                sources.extend(stack.drain(from..).rev());
                prefetch_successors(sh.model, sh.watch.reducer(), &mut w, sources, bufs, fps);
                let mut f = 0;
                let mut go_on = true;
                for (b, &src) in sources.iter().enumerate() {
                    let buf = &bufs[b];
                    let k = buf.len();
                    w.expanding(b);
                    go_on = sh.take(
                        &mut w,
                        src,
                        buf,
                        &fps[f..f + k],
                        &mut t,
                        |_, _| (),
                        |id| stack.push(id),
                    );
                    if !go_on {
                        break;
                    }
                    f += k;
                }
                if !go_on {
                    break;
                }
                if self.wanted.load(Ordering::Relaxed) > 0 && stack.len() >= 2 {
                    self.share(&mut stack);
                }
            }
            sh.transitions
                .fetch_add(t.transitions - before, Ordering::Relaxed);
        }
        (t, peak)
    }

    /// Waits for a part to expand; `None` when the search is over or
    /// stopped.
    fn idle(&self) -> Option<Vec<u32>> {
        let mut p = self.lock();
        p.idle += 1;
        loop {
            if p.over || self.sh.stop.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(part) = p.waiting.pop() {
                p.idle -= 1;
                self.set_wanted(&p);
                return Some(part);
            }
            if p.idle == self.threads {
                p.over = true;
                self.ready.notify_all();
                return None;
            }
            self.set_wanted(&p);
            p = self.ready.wait(p).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Hands the bottom half of `stack` to an idle thread (if one still
    /// needs a part).
    fn share(&self, stack: &mut Vec<u32>) {
        let mut p = self.lock();
        if p.waiting.len() >= p.idle {
            return;
        }
        let part: Vec<u32> = stack.drain(..stack.len() / 2).collect();
        p.waiting.push(part);
        self.set_wanted(&p);
        self.ready.notify_one();
    }
}

/// Wakes the idle threads when a thread's search ends: at a stop (a
/// violation, a budget), so that they see it, and if it panics (it stops
/// the others first), so that the scope's join does not wait forever.
struct WakeOnExit<'c, 'a, W: Watch, S: ConcurrentStore>(&'c Crew<'a, W, S>);

impl<W: Watch, S: ConcurrentStore> Drop for WakeOnExit<'_, '_, W, S> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.sh.stop.store(true, Ordering::Relaxed);
        }
        let _parts = self.0.lock();
        self.0.ready.notify_all();
    }
}

/// Exhaustive search of `model` in a depth-first-like order on `threads`
/// threads, checking what `watch` looks for: the search, the number of
/// violations and the first one found.
pub fn parallel_dfs_check<W: Watch>(
    model: &dyn NextState,
    threads: usize,
    budget: &Budget,
    watch: &W,
    store: StoreKind,
) -> (ParallelRun, u64, Option<Violation<W::Found>>) {
    with_shared(model, threads, budget, watch, store, Stacks)
}

/// The depth-first-like order: a stack per thread.
struct Stacks;

impl Order for Stacks {
    fn search<W: Watch, S: ConcurrentStore>(self, sh: &Shared<'_, W, S>, t_n: usize, run: &mut ParallelRun) {
        let (tallies, peaks) = crew_search(sh, t_n);
        for (t, peak) in tallies.iter().zip(peaks) {
            run.counters.transitions += t.transitions;
            run.counters.deadlocks += t.deadlocks;
            run.counters.error_transitions += t.errors;
            run.frontier_bytes += peak as u64;
        }
    }
}

/// The threads' search: each one's counters and its stack's peak bytes.
fn crew_search<W: Watch, S: ConcurrentStore>(sh: &Shared<'_, W, S>, t_n: usize) -> (Vec<Tally>, Vec<usize>) {
    let crew = Crew {
        sh,
        threads: t_n,
        parts: Mutex::new(Parts::default()),
        ready: Condvar::new(),
        wanted: AtomicUsize::new(0),
        bytes: (0..t_n).map(|_| AtomicUsize::new(0)).collect(),
    };
    let results: Vec<(Tally, usize)> = std::thread::scope(|scope| {
        let crew = &crew;
        let others: Vec<_> = (1..t_n)
            .map(|q| scope.spawn(move || crew.work(q, Vec::new())))
            .collect();
        // The calling thread starts with the initial state (id 0).
        let mut all = vec![crew.work(0, vec![0])];
        all.extend(
            others
                .into_iter()
                .map(|h| h.join().expect("a thread of the parallel search stopped")),
        );
        all
    });
    results.into_iter().unzip()
}

/// [`parallel_dfs_check`] checking nothing.
pub fn parallel_dfs(model: &dyn NextState, threads: usize, budget: &Budget, store: StoreKind) -> ParallelRun {
    parallel_dfs_check(model, threads, budget, &crate::loops::parallel::NoWatch, store).0
}
