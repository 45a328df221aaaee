//! Multi-core exhaustive breadth-first search (`explore --threads N`):
//! level-synchronous, the state space partitioned between the threads.
//!
//! **Ownership.** Each of the N threads owns an exact store
//! ([`StateStore`]) holding the states whose fingerprint is `p mod N`, and
//! it alone reads or writes it: no lock, no shared cache line per
//! successor. A level is two phases. *Expand*: each thread expands the
//! states of the level it owns and sends each successor (its bytes and
//! fingerprint) to the owner's inbox. *Insert*: each thread inserts the
//! successors sent to it into its store (prefetching index slots a batch
//! at a time, as the sequential search does), and the new ones form its
//! part of the next level.
//!
//! So the set of states of each level, and every counter (states,
//! transitions, deadlocks, levels, back-level edges), is the sequential
//! search's, whatever the timing; only which id a state gets differs.
//! Within a store, ids are given level by level, which tells a stored
//! state's level (back-level edges).
//!
//! **Budgets.** The state limit is exact (a new state reserves its place
//! in an atomic count first, only when there is a limit); time and
//! interruption are polled between blocks of work, and memory too while
//! inserting (every store as its thread last published it, the level lists
//! and the inboxes counted).
//!
//! **Memory**: the stores, plus the inboxes of one level (a state's bytes
//! and fingerprint per transition of the level).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use dve_frontend::model::{NextState, SuccBuf};

use super::bfs::LevelStats;
use super::limits::Budget;
use super::outcome::Outcome;
use super::store::{Insert, StateStore, Store};

/// Work between two polls of the budget.
const BLOCK: usize = 1024;
/// Levels with fewer states are expanded on the calling thread (starting
/// threads would cost more than they bring: hanoi.3 has 32,768 levels).
const SMALL_LEVEL: u64 = 4096;
/// Successors whose index slots are prefetched together.
const BATCH: usize = 32;

/// What a parallel breadth-first search did (the fields of
/// [`super::Bfs`] that plain exploration reports).
#[derive(Clone, Debug, Default)]
pub struct ParallelBfs {
    pub result: Outcome,
    pub states: u64,
    pub transitions: u64,
    pub deadlocks: u64,
    pub error_transitions: u64,
    pub levels: Vec<LevelStats>,
    pub back_level_edges: u64,
    pub max_back_level_edge: u64,
    pub store_bytes: u64,
    /// Peak bytes of the level lists and inboxes.
    pub frontier_bytes: u64,
}

/// Successors sent to one owner: bytes back to back, fingerprints, and
/// whether each is its source (a self-loop is no back-level edge).
#[derive(Default)]
struct Inbox {
    states: Vec<u8>,
    fps: Vec<u64>,
    self_loop: Vec<bool>,
}

impl Inbox {
    fn bytes(&self) -> usize {
        self.states.capacity() + self.fps.capacity() * 8 + self.self_loop.capacity()
    }
}

/// One thread's part: its store, its states of the current level, the
/// first id of every level in its store.
struct Part {
    store: StateStore,
    level: Vec<u32>,
    starts: Vec<u32>,
}

/// Counters of one thread in one level.
#[derive(Default)]
struct Tally {
    transitions: u64,
    deadlocks: u64,
    errors: u64,
    back: u64,
    max_back: u64,
}

/// Breadth-first search of `model` with `threads` threads.
pub fn parallel_bfs(model: &dyn NextState, threads: usize, budget: &Budget) -> ParallelBfs {
    let t_n = threads.max(1);
    let n = model.state_len();
    let mut run = ParallelBfs::default();
    let max_states = budget.max_states() as u64;
    let limited = budget.max_states() != usize::MAX;
    let count = AtomicU64::new(0);
    let transitions = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let outcome = Mutex::new(Outcome::Complete);
    let halt = |o: Outcome| {
        *outcome.lock().expect("outcome") = o;
        stop.store(true, Ordering::Relaxed);
    };
    let owner = |fp: u64| (fp % t_n as u64) as usize;

    let mut parts: Vec<Part> = (0..t_n)
        .map(|_| Part {
            store: StateStore::new(n),
            level: Vec::new(),
            starts: vec![0],
        })
        .collect();
    if max_states == 0 {
        run.result = Outcome::StateLimit;
        return run;
    }
    let init = model.initial_vec();
    let fp = model.fingerprint(&init);
    let p0 = &mut parts[owner(fp)];
    let id = p0.store.insert(&init, fp).id();
    p0.level.push(id);
    count.store(1, Ordering::Relaxed);

    // inboxes[from][to]
    let mut inboxes: Vec<Vec<Inbox>> = (0..t_n)
        .map(|_| (0..t_n).map(|_| Inbox::default()).collect())
        .collect();
    loop {
        let depth = run.levels.len() as u32;
        let level_states: u64 = parts.iter().map(|p| p.level.len() as u64).sum();
        if level_states == 0 {
            break;
        }
        for p in parts.iter_mut() {
            // The next level's states get ids from the store's length on.
            p.starts.push(p.store.len() as u32);
        }
        let stored: u64 = parts.iter().map(|p| p.store.len() as u64).sum();
        let store_bytes_before: usize = parts.iter().map(|p| p.store.bytes_used()).sum();
        if let Some(o) = budget.poll_with(stored, run.transitions, depth as u64) {
            halt(o);
            break;
        }

        // Expand.
        // A small level is not worth the threads' start.
        let small = level_states < SMALL_LEVEL;
        let expand = |part: &Part, out: &mut Vec<Inbox>| -> Tally {
            let mut t = Tally::default();
            let mut buf = SuccBuf::new(n);
            for ib in out.iter_mut() {
                ib.states.clear();
                ib.fps.clear();
                ib.self_loop.clear();
            }
            for (b, block) in part.level.chunks(BLOCK).enumerate() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if b > 0 {
                    let polled = budget.poll_with(stored, transitions.load(Ordering::Relaxed), depth as u64);
                    if let Some(o) = polled {
                        halt(o);
                        break;
                    }
                    // Memory: the stores, and the inboxes as if every
                    // thread had filled as many as this one.
                    let inboxes: usize = out.iter().map(Inbox::bytes).sum();
                    if budget.refuse_frontier(&SizedStore(store_bytes_before), inboxes * t_n, 0) {
                        halt(Outcome::MemoryLimit);
                        break;
                    }
                }
                let before = t.transitions;
                for &id in block {
                    let src = part.store.get(id);
                    model.successors(src, &mut buf);
                    let k = buf.len();
                    t.transitions += k as u64;
                    if k == 0 {
                        t.deadlocks += 1;
                    }
                    for i in 0..k {
                        if buf.entry(i).error {
                            t.errors += 1;
                        }
                        let succ = buf.state(i);
                        let fp = model.fingerprint(succ);
                        let ib = &mut out[owner(fp)];
                        ib.states.extend_from_slice(succ);
                        ib.fps.push(fp);
                        ib.self_loop.push(succ == src);
                    }
                }
                transitions.fetch_add(t.transitions - before, Ordering::Relaxed);
            }
            t
        };
        let tallies: Vec<Tally> = if small {
            parts
                .iter()
                .zip(inboxes.iter_mut())
                .map(|(part, out)| expand(part, out))
                .collect()
        } else {
            std::thread::scope(|scope| {
                let expand = &expand;
                let handles: Vec<_> = parts
                    .iter()
                    .zip(inboxes.iter_mut())
                    .map(|(part, out)| scope.spawn(move || expand(part, out)))
                    .collect();
                handles.into_iter().map(|h| h.join().expect("a worker")).collect()
            })
        };
        let inbox_bytes: usize = inboxes.iter().flatten().map(Inbox::bytes).sum();

        // Insert.
        let published: Vec<AtomicU64> = parts
            .iter()
            .map(|p| AtomicU64::new(p.store.bytes_used() as u64))
            .collect();
        let inboxes = &inboxes;
        let insert = |q: usize, part: &mut Part| -> Tally {
            let mut t = Tally::default();
            part.level.clear();
            let lens = *part.starts.last().expect("a start");
            let mut seen = 0usize;
            'all: for from in inboxes.iter() {
                let ib = &from[q];
                for lo in (0..ib.fps.len()).step_by(BATCH) {
                    if stop.load(Ordering::Relaxed) {
                        break 'all;
                    }
                    let hi = (lo + BATCH).min(ib.fps.len());
                    for &fp in &ib.fps[lo..hi] {
                        part.store.prefetch(fp);
                    }
                    for &fp in &ib.fps[lo..hi] {
                        part.store.prefetch_state(fp);
                    }
                    for i in lo..hi {
                        let succ = &ib.states[i * n..(i + 1) * n];
                        let fp = ib.fps[i];
                        let room = !limited || count.fetch_add(1, Ordering::Relaxed) < max_states;
                        let ins = if room {
                            Some(part.store.insert(succ, fp))
                        } else {
                            part.store.find(succ, fp).map(Insert::Seen)
                        };
                        match ins {
                            Some(Insert::New(id)) => part.level.push(id),
                            Some(Insert::Seen(id)) => {
                                if limited {
                                    count.fetch_sub(1, Ordering::Relaxed);
                                }
                                // A back-level edge: to a state of
                                // this or an earlier level, not a
                                // self-loop.
                                if id < lens && !ib.self_loop[i] {
                                    t.back += 1;
                                    let st = &part.starts[..=depth as usize];
                                    let lv = st.partition_point(|&x| x <= id) as u32 - 1;
                                    t.max_back = t.max_back.max((depth - lv) as u64);
                                }
                            }
                            None => {
                                if limited {
                                    count.fetch_sub(1, Ordering::Relaxed);
                                }
                                halt(Outcome::StateLimit);
                                break 'all;
                            }
                        }
                    }
                    seen += hi - lo;
                    if seen >= BLOCK {
                        seen = 0;
                        if let Some(o) = budget.poll() {
                            halt(o);
                            break 'all;
                        }
                        // Memory: every store as last published,
                        // this one's next growth, the inboxes.
                        published[q].store(part.store.bytes_used() as u64, Ordering::Relaxed);
                        let total: u64 = published.iter().map(|b| b.load(Ordering::Relaxed)).sum();
                        let grow = part.store.next_growth_bytes();
                        if budget.refuse_frontier(&SizedStore(total as usize), inbox_bytes, grow) {
                            halt(Outcome::MemoryLimit);
                            break 'all;
                        }
                    }
                }
            }
            t
        };
        let inserted: Vec<Tally> = if small {
            parts
                .iter_mut()
                .enumerate()
                .map(|(q, part)| insert(q, part))
                .collect()
        } else {
            std::thread::scope(|scope| {
                let insert = &insert;
                let handles: Vec<_> = parts
                    .iter_mut()
                    .enumerate()
                    .map(|(q, part)| scope.spawn(move || insert(q, part)))
                    .collect();
                handles.into_iter().map(|h| h.join().expect("a worker")).collect()
            })
        };

        let mut stats = LevelStats {
            level: depth,
            states: level_states,
            ..Default::default()
        };
        for t in tallies.iter().chain(&inserted) {
            stats.edges += t.transitions;
            stats.back_level_edges += t.back;
            run.transitions += t.transitions;
            run.deadlocks += t.deadlocks;
            run.error_transitions += t.errors;
            run.back_level_edges += t.back;
            run.max_back_level_edge = run.max_back_level_edge.max(t.max_back);
        }
        run.levels.push(stats);
        let lists: usize = parts.iter().map(|p| p.level.capacity() * 4).sum();
        run.frontier_bytes = run.frontier_bytes.max((lists + inbox_bytes) as u64);
        let store_bytes: usize = parts.iter().map(|p| p.store.bytes_used()).sum();
        if budget.refuse_frontier(&SizedStore(store_bytes), lists + inbox_bytes, 0) {
            halt(Outcome::MemoryLimit);
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    run.result = *outcome.lock().expect("outcome");
    run.states = parts.iter().map(|p| p.store.len() as u64).sum();
    run.store_bytes = parts.iter().map(|p| p.store.bytes_used() as u64).sum();
    run
}

/// A store seen only through its size (for the budget's memory check).
struct SizedStore(usize);

impl Store for SizedStore {
    fn state_len(&self) -> usize {
        0
    }
    fn len(&self) -> usize {
        0
    }
    fn state<'a>(&'a self, _id: u32, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        scratch
    }
    fn find(&self, _state: &[u8], _fp: u64) -> Option<u32> {
        None
    }
    fn insert(&mut self, _state: &[u8], _fp: u64) -> Insert {
        unreachable!("a size only")
    }
    fn bytes_used(&self) -> usize {
        self.0
    }
    fn next_growth_bytes(&self) -> usize {
        0
    }
}
