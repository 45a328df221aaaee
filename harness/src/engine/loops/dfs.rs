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

use crate::engine::counters::Counters;
use crate::engine::limits::{visit, Budget, POLL_MASK};
use crate::engine::observer::{Cx, Frame, Observer, PathSource, NO_SUCC};
use crate::engine::outcome::Outcome;
use crate::engine::reduce::Proviso;
use crate::engine::store::{Insert, Store};

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
    let labels = O::LABELS;
    let per_succ = n + 8 + if labels { SUCC_BYTES } else { 0 };
    let cap = opts.keep_bytes;
    let mut buf = SuccBuf::new(n);
    // Whose successors `buf` holds (frames that keep nothing).
    let mut buf_owner = u32::MAX;
    let mut scratch = Vec::new();

    let mut frames: Vec<Frame> = Vec::new();
    // Entry of every frame (with labels).
    let mut vias: Vec<Succ> = Vec::new();
    let mut on_stack: Vec<u64> = Vec::new();
    // Kept successor lists of the frames at the top of the stack.
    let mut kept_states: Vec<u8> = Vec::new();
    let mut kept_fps: Vec<u64> = Vec::new();
    let mut kept_entries: Vec<Succ> = Vec::new();
    // Fingerprints of `buf`'s successors.
    let mut buf_fps: Vec<u64> = Vec::new();

    let mut run = Dfs {
        counters: Counters::default(),
        stopped: false,
        expansions: 0,
        stats: DfsStats::default(),
        frontier_bytes: 0,
    };
    let mut peak_frontier = 0usize;
    let track_memory = budget.memory().is_some();

    let frontier_bytes = |frames: &Vec<Frame>,
                          vias: &Vec<Succ>,
                          on_stack: &Vec<u64>,
                          buf: &SuccBuf,
                          ks: &Vec<u8>,
                          kf: &Vec<u64>,
                          ke: &Vec<Succ>| {
        frames.capacity() * std::mem::size_of::<Frame>()
            + vias.capacity() * SUCC_BYTES
            + on_stack.capacity() * 8
            + buf.len() * (n + 16)
            + ks.capacity()
            + kf.capacity() * 8
            + ke.capacity() * SUCC_BYTES
    };
    // The bytes of the stack and the kept lists now.
    macro_rules! frontier {
        () => {
            frontier_bytes(
                &frames,
                &vias,
                &on_stack,
                &buf,
                &kept_states,
                &kept_fps,
                &kept_entries,
            )
        };
    }
    macro_rules! cx {
        () => {
            Cx {
                store: &*store,
                path: PathSource::Stack {
                    frames: &frames,
                    vias: &vias,
                    on_stack: &on_stack,
                },
            }
        };
    }

    // Cuts `buf`, the successors of `id`, with the observer's reducer under
    // the stack proviso; the same cut when a frame regenerates its
    // successors (the stack below it is the same).
    macro_rules! reduce {
        ($id:expr) => {
            reduce!($id, reduce)
        };
        ($id:expr, $how:ident) => {
            if let Some(r) = obs.reducer() {
                let id: u32 = $id;
                let st = &*store;
                let mut on = |s: &[u8]| {
                    st.find(s, model.fingerprint(s))
                        .is_some_and(|d| d == id || bit(&on_stack, d))
                };
                r.$how(
                    st.state(id, &mut scratch),
                    &mut buf,
                    Proviso::NoneOnStack(&mut on),
                );
            }
        };
    }
    // Expands state `id` (reached through `via`; counting its transitions)
    // and pushes its frame; false if the memory budget forbids growing the
    // stack.
    macro_rules! push_frame {
        ($id:expr, $via:expr) => {{
            let id: u32 = $id;
            model.successors(store.state(id, &mut scratch), &mut buf);
            reduce!(id);
            buf_owner = id;
            let k = buf.len();
            let grows = frames.len() == frames.capacity() || (id as usize >> 6) >= on_stack.capacity();
            if (kept_fps.len() + k) * per_succ > cap {
                drop_kept_bottom(&mut frames, &mut kept_states, &mut kept_fps, &mut kept_entries, n);
            }
            let keep = (kept_fps.len() + k) * per_succ <= cap;
            if !keep {
                // Kept frames must stay a suffix of the stack.
                for f in frames.iter_mut().rev().take_while(|f| f.kept != NOT_KEPT) {
                    f.kept = NOT_KEPT;
                }
                kept_states.clear();
                kept_fps.clear();
                kept_entries.clear();
            }
            let cur = frontier!();
            if grows && budget.refuse_frontier(&*store, cur, cur.max(64)) {
                false
            } else {
                run.expansions += 1;
                run.counters.transitions += k as u64;
                if k == 0 {
                    run.counters.deadlocks += 1;
                }
                run.counters.error_transitions += buf.entries().iter().filter(|e| e.error).count() as u64;
                let kept = if keep {
                    let at = kept_fps.len() as u32;
                    for i in 0..k {
                        let s = buf.state(i);
                        let fp = model.fingerprint(s);
                        kept_states.extend_from_slice(s);
                        kept_fps.push(fp);
                    }
                    if labels {
                        kept_entries.extend_from_slice(buf.entries());
                    }
                    // Start loading the index slots they will be looked up in.
                    for (i, &fp) in kept_fps[at as usize..].iter().enumerate() {
                        store.prefetch(buf.state(i), fp);
                    }
                    for &fp in &kept_fps[at as usize..] {
                        store.prefetch_state(fp);
                    }
                    at
                } else {
                    fingerprint_buf(model, &*store, &buf, &mut buf_fps, 0);
                    NOT_KEPT
                };
                frames.push(Frame {
                    id,
                    next: 0,
                    count: k as u32,
                    kept,
                });
                if labels {
                    vias.push($via);
                }
                let w = id as usize >> 6;
                if w >= on_stack.len() {
                    on_stack.resize(w + 1, 0);
                }
                on_stack[w] |= 1u64 << (id & 63);
                run.stats.max_stack = run.stats.max_stack.max(frames.len() as u64);
                peak_frontier = peak_frontier.max(frontier!());
                true
            }
        }};
    }
    // Pushes state `id`; the outcome if the search must end.
    macro_rules! enter {
        ($id:expr, $via:expr) => {{
            let id: u32 = $id;
            if !push_frame!(id, $via) {
                run.counters.result = Outcome::MemoryLimit;
            } else {
                let count = frames.last().map_or(0, |f| f.count as usize);
                if obs.expanded(&cx!(), id, count).stop() || (count == 0 && obs.deadlock(&cx!(), id).stop()) {
                    run.stopped = true;
                }
            }
        }};
    }

    match opts.root {
        Root::Initial => {
            let init = model.initial_vec();
            match visit(store, budget, 0, &init, model.fingerprint(&init)) {
                Ok(ins) => {
                    if obs.new_state(&cx!(), ins.id(), &init, None).stop() {
                        run.stopped = true;
                    } else {
                        enter!(ins.id(), NO_SUCC);
                    }
                }
                Err(stop) => run.counters.result = stop,
            }
        }
        Root::Stored(id) => enter!(id, NO_SUCC),
    }

    let mut succ = vec![0u8; n];
    while run.counters.result == Outcome::Complete && !run.stopped {
        let Some(top) = frames.last_mut() else { break };
        if top.next == top.count {
            let id = top.id;
            if obs.closed(&cx!(), id).stop() {
                run.stopped = true;
                break;
            }
            let top = frames.last().expect("frame");
            if top.kept != NOT_KEPT {
                kept_states.truncate(top.kept as usize * n);
                kept_fps.truncate(top.kept as usize);
                if labels {
                    kept_entries.truncate(top.kept as usize);
                }
            }
            on_stack[id as usize >> 6] &= !(1u64 << (id & 63));
            frames.pop();
            if labels {
                vias.pop();
            }
            continue;
        }
        let i = top.next as usize;
        top.next += 1;
        let src = top.id;
        let (fp, e) = if top.kept != NOT_KEPT {
            let at = top.kept as usize + i;
            if i + 1 < top.count as usize {
                // The next sibling's stored state, while this one is looked up.
                store.prefetch_state(kept_fps[at + 1]);
            }
            succ.copy_from_slice(&kept_states[at * n..(at + 1) * n]);
            let e = if labels { kept_entries[at] } else { NO_SUCC };
            (kept_fps[at], e)
        } else {
            if src != buf_owner {
                model.successors(store.state(src, &mut scratch), &mut buf);
                // Cut the first time if fewer than all were kept then.
                if buf.len() != top.count as usize {
                    reduce!(src, reduce_again);
                }
                fingerprint_buf(model, &*store, &buf, &mut buf_fps, i);
                buf_owner = src;
            }
            succ.copy_from_slice(buf.state(i));
            (buf_fps[i], buf.entry(i))
        };
        if obs.successor(&cx!(), src, e, &succ).stop() {
            run.stopped = true;
            break;
        }
        // Only a memory budget needs the stack's size.
        let frontier = if track_memory { frontier!() } else { 0 };
        match visit(store, budget, frontier, &succ, fp) {
            Ok(Insert::New(id)) => {
                run.stats.front_edges += 1;
                if obs.new_state(&cx!(), id, &succ, Some((src, e))).stop()
                    || obs.edge(&cx!(), src, e, id, true).stop()
                {
                    run.stopped = true;
                    break;
                }
                if run.expansions & POLL_MASK == 0 {
                    let depth = frames.len() as u64;
                    if let Some(stop) = budget.poll_with(store.len() as u64, run.counters.transitions, depth)
                    {
                        run.counters.result = stop;
                        break;
                    }
                }
                enter!(id, e);
            }
            Ok(Insert::Seen(id)) => {
                if bit(&on_stack, id) {
                    run.stats.back_edges += 1;
                } else {
                    run.stats.cross_edges += 1;
                }
                if obs.edge(&cx!(), src, e, id, false).stop() {
                    run.stopped = true;
                    break;
                }
            }
            Err(stop) => run.counters.result = stop,
        }
    }
    run.frontier_bytes = peak_frontier as u64;
    run.counters.states = store.len() as u64;
    run
}
