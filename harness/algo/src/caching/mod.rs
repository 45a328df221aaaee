//! Search-order independent state caching (Evangelista and Kristensen,
//! ToPNoC IV, LNCS 6550, 2010; `shared/papers/search-order-independent-
//! state-caching-evangelista-kristensen.md`).
//!
//! [`run`] is the general state exploring algorithm of Fig. 1 extended with
//! state caching as in Fig. 3: each iteration chooses an open state from the
//! open set `O` (`engine::frontier`: the only thing a search order changes),
//! executes **one** of its remaining events (open states are partially
//! expanded), puts the successor in `O` if it is neither in `C` nor in `O`,
//! and closes the state when it has no event left. The termination
//! detection tree ([`tdtree`]: `pred`, `refs`, `unref`) covers all open
//! states; closed states that leave it become candidates for replacement
//! (`D`), and `garbageCollection` deletes one of them ([`replacement`])
//! whenever `|O| + |C|` exceeds the cache size. Options add the chain
//! reduction of Sect. 4.1 and the edge-lean reduction ([`reductions`]), and
//! the sweep-line method of Sect. 4.4 ([`sweep`]) with or without caching.
//!
//! Results: `complete` (the paper's success: every state visited),
//! `out_of_memory` (`D` is empty when a state must be deleted: the TD-tree
//! does not fit), `out_of_time` (more visits than the factor times `|S|`, or
//! the wall-time limit). A *visit* is an insertion of a state in `O` (new or
//! deleted before); `visits − states` are the revisits.

mod quad_heap;
pub mod reductions;
pub mod replacement;
pub mod sweep;
pub mod tdtree;

use std::collections::VecDeque;
use std::fmt;
use std::time::Instant;

use dve_frontend::model::{NextState, SuccBuf};
use serde::Serialize;

use dvemc_engine::progress::Meter;
use dvemc_engine::{Budget, Limits, Outcome};

pub use dvemc_engine::frontier::{Bound, OpenSet, Width};
pub use reductions::Independence;
pub use replacement::Replacement;
pub use sweep::{Derivation, Progress};

use dvemc_engine::frontier::LevelStack;
use replacement::Candidates;
use sweep::Classes;
use tdtree::{Cache, IN_D, NIL, OPEN, PERSISTENT};

/// The search order, i.e. the open-set structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Dfs,
    Bfs,
    /// BBFS(w): `None` = ∞.
    Bbfs(Bound),
    /// Alt(b, d).
    Alt(Bound, Bound),
}

fn bound_text(b: Bound) -> String {
    b.map_or_else(|| "inf".to_string(), |v| v.to_string())
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Dfs => f.write_str("dfs"),
            Order::Bfs => f.write_str("bfs"),
            Order::Bbfs(w) => write!(f, "bbfs:{}", bound_text(*w)),
            Order::Alt(b, d) => write!(f, "alt:{},{}", bound_text(*b), bound_text(*d)),
        }
    }
}

/// Cache size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CacheSize {
    States(u64),
    /// Percentage of the state-space size.
    Percent(f64),
}

impl fmt::Display for CacheSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheSize::States(n) => write!(f, "{n}"),
            CacheSize::Percent(p) => write!(f, "{p}%"),
        }
    }
}

impl std::str::FromStr for CacheSize {
    type Err = String;
    fn from_str(s: &str) -> Result<CacheSize, String> {
        let t = s.trim();
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p
                .trim()
                .parse()
                .map_err(|_| format!("bad cache size `{s}` (a state count, or a percentage such as 20%)"))?;
            if !(v > 0.0 && v <= 100.0) {
                return Err(format!(
                    "cache size `{s}` is out of range: a percentage of |S| must be above 0 and at most 100"
                ));
            }
            Ok(CacheSize::Percent(v))
        } else {
            let v: u64 = t
                .parse()
                .map_err(|_| format!("bad cache size `{s}` (a state count, or a percentage such as 20%)"))?;
            if v == 0 {
                return Err("the cache size must be at least 1 state".into());
            }
            Ok(CacheSize::States(v))
        }
    }
}

/// Options of a run.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    pub order: Order,
    /// `None`: no limit (nothing is ever deleted by the cache).
    pub cache: Option<CacheSize>,
    pub replacement: Replacement,
    /// Single-successor chain reduction (Sect. 4.1).
    pub chain_reduction: bool,
    /// Edge-lean reduction with this independence relation.
    pub edge_lean: Option<&'a Independence>,
    /// Sweep-line with this progress measure (`O` becomes a priority queue;
    /// `order` Dfs gives LIFO among equal progress values, else FIFO).
    pub progress: Option<&'a Progress>,
    /// `out_of_time` when visits exceed this factor times `|S|` (needs
    /// `state_space_size`).
    pub max_visits_factor: Option<f64>,
    /// `|S|`, when known (percentages, the visit bound).
    pub state_space_size: Option<u64>,
    /// Budgets: distinct states (`state_limit`), the bytes of the cache,
    /// the distinct-state set, the open set and the candidate set
    /// (`memory_limit`), wall time (`time_limit`); interruption.
    pub limits: Limits,
    /// Where the progress line reads the counters.
    pub meter: Option<Meter>,
    pub seed: u64,
    /// Count distinct states (a set of fingerprints beside the cache).
    pub track_distinct: bool,
    /// Check invariant I4 during the run (always done in debug builds).
    pub check_invariants: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            order: Order::Dfs,
            cache: None,
            replacement: Replacement::Random,
            chain_reduction: false,
            edge_lean: None,
            progress: None,
            max_visits_factor: Some(5.0),
            state_space_size: None,
            limits: Limits::default(),
            meter: None,
            seed: 0,
            track_distinct: true,
            check_invariants: false,
        }
    }
}

impl Options<'_> {
    /// The normalised strategy text written into reports.
    pub fn strategy_text(&self) -> String {
        match self.progress {
            Some(_) => {
                let base = if self.cache.is_some() { "sl+sc" } else { "sl" };
                if self.order == Order::Dfs {
                    format!("{base}:dfs")
                } else {
                    base.to_string()
                }
            }
            None => self.order.to_string(),
        }
    }

    /// The cache size in states, if any.
    pub fn cache_states(&self) -> Option<u64> {
        match self.cache? {
            CacheSize::States(n) => Some(n),
            CacheSize::Percent(p) => {
                let s = self.state_space_size? as f64;
                Some(((p / 100.0 * s).ceil() as u64).max(1))
            }
        }
    }
}

/// One executed event, for observers (`src` is 0 for the initial visit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub src: u64,
    pub dst: u64,
    /// The successor was put in `O` (a visit).
    pub visit: bool,
}

/// The figures of a run (JSON keys as named here).
#[derive(Clone, Debug, Serialize)]
pub struct CachingReport {
    pub model: String,
    pub strategy: String,
    pub result: Outcome,
    /// Distinct states reached (0 when not tracked).
    pub states: u64,
    /// `|S|` when known.
    pub state_space_size: Option<u64>,
    /// Insertions in `O` (initial state included).
    pub visits: u64,
    pub revisits: u64,
    /// Largest `|O| + |C|`.
    pub stored_peak: u64,
    /// Cache size in states (`None` = unlimited).
    pub cache_size: Option<u64>,
    pub replacement: Option<String>,
    pub chain_reduction: bool,
    pub edge_lean: bool,
    /// `stored_peak` and `visits` as percentages of `|S|` (the paper's S, V).
    pub stored_pct: Option<f64>,
    pub visits_pct: Option<f64>,
    pub cache_pct: Option<f64>,
    /// Events executed, and events skipped by the edge-lean reduction
    /// (counted at every computation of a state's events).
    pub events: u64,
    pub pruned_events: u64,
    /// States deleted by the replacement strategy.
    pub deleted: u64,
    /// Largest TD-tree (states with `refs > 0`).
    pub td_peak: u64,
    pub seed: u64,
    /// Sweep-line: progress components, persistent states at the end (P),
    /// largest class in memory at once (L), classes seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub largest_class: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub largest_class_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress_classes: Option<u64>,
    pub time_s: f64,
    pub visits_per_s: f64,
    /// Bytes allocated by the cache at the end.
    pub cache_bytes: u64,
    pub peak_rss_bytes: u64,
}

/// A set of 64-bit fingerprints (never 0), for counting distinct states.
#[derive(Default)]
pub struct FpSet {
    table: Vec<u64>,
    len: usize,
}

impl FpSet {
    pub fn insert(&mut self, fp: u64) -> bool {
        if (self.len + 1) * 10 > self.table.len() * 7 {
            let cap = (self.table.len() * 2).max(1024);
            let old = std::mem::replace(&mut self.table, vec![0; cap]);
            self.len = 0;
            for f in old.into_iter().filter(|&f| f != 0) {
                self.insert(f);
            }
        }
        let mask = self.table.len() - 1;
        let mut i = (fp.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & mask;
        loop {
            match self.table[i] {
                0 => {
                    self.table[i] = fp;
                    self.len += 1;
                    return true;
                }
                f if f == fp => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }
    pub fn contains(&self, fp: u64) -> bool {
        if self.table.is_empty() {
            return false;
        }
        let mask = self.table.len() - 1;
        let mut i = (fp.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & mask;
        loop {
            match self.table[i] {
                0 => return false,
                f if f == fp => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn bytes(&self) -> usize {
        self.table.len() * 8
    }
    /// Bytes the next insertion of a new fingerprint would allocate.
    pub fn next_growth_bytes(&self) -> usize {
        if (self.len + 1) * 10 > self.table.len() * 7 {
            (self.table.len() * 2).max(1024) * 8
        } else {
            0
        }
    }
}

/// The events of one expanded state: its successors and the indices of the
/// ones left after reductions.
struct Expansion {
    slot: u32,
    gen: u32,
    buf: SuccBuf,
    events: Vec<u32>,
}

fn expand(model: &dyn NextState, indep: Option<&Independence>, cache: &Cache, s: u32, x: &mut Expansion) {
    let m = &cache.meta[s as usize];
    model.successors(cache.get(s), &mut x.buf);
    x.events.clear();
    let inl = (m.in_trans, m.in_partner);
    for (j, e) in x.buf.entries().iter().enumerate() {
        if let Some(ind) = indep {
            if ind.prunes(inl, &e.label) {
                continue;
            }
        }
        x.events.push(j as u32);
    }
    x.slot = s;
    x.gen = m.gen;
}

/// `unref(s)` of Fig. 3 (iterative).
fn unref(cache: &mut Cache, cands: &mut Option<Candidates>, td: &mut u64, mut s: u32) {
    loop {
        let m = &mut cache.meta[s as usize];
        debug_assert!(m.refs > 0, "unref of an unreferenced state");
        m.refs -= 1;
        if m.refs > 0 {
            return;
        }
        *td -= 1;
        if !m.persistent() {
            if let Some(c) = cands.as_mut() {
                m.flags |= IN_D;
                let copy = *m;
                c.insert(s, &copy);
            }
        }
        let (p, g) = (m.pred, m.pred_gen);
        if p == NIL || !cache.is_live(p, g) {
            return;
        }
        s = p;
    }
}

/// Runs the general state exploring algorithm with state caching on `model`.
pub fn run(
    model: &dyn NextState,
    opts: &Options,
    mut observer: Option<&mut dyn FnMut(Step)>,
) -> CachingReport {
    let start = Instant::now();
    let budget = Budget::new(&opts.limits, start).with_meter(opts.meter.clone());
    let max_states = opts.limits.max_states.unwrap_or(u64::MAX);
    let n = model.state_len();
    let indep = opts.edge_lean;
    assert!(
        !matches!(opts.cache, Some(CacheSize::Percent(_))) || opts.state_space_size.is_some(),
        "a cache size in % of |S| needs state_space_size"
    );
    let cache_limit = opts.cache_states();
    let max_visits = match (opts.max_visits_factor, opts.state_space_size) {
        (Some(f), Some(s)) => Some((f * s as f64).floor() as u64),
        _ => None,
    };
    let check = cfg!(debug_assertions) || opts.check_invariants;

    let mut cache = Cache::new(n);
    let mut cands = cache_limit.map(|_| Candidates::new(opts.replacement, opts.seed));
    let mut classes = opts.progress.map(Classes::new);
    let mut open = match (opts.progress, opts.order) {
        (Some(_), o) => OpenSet::priority(o == Order::Dfs),
        (None, Order::Dfs) => OpenSet::Stack(Vec::new()),
        (None, Order::Bfs) => OpenSet::Queue(VecDeque::new()),
        (None, Order::Bbfs(w)) => OpenSet::Levels(LevelStack::new(Width::Fixed(w))),
        (None, Order::Alt(b, d)) => OpenSet::Levels(LevelStack::new(Width::Alt(b, d))),
    };
    let mut exp = [0, 1].map(|_| Expansion {
        slot: NIL,
        gen: 0,
        buf: SuccBuf::new(n),
        events: Vec::new(),
    });
    let mut distinct = FpSet::default();

    let mut visits = 0u64;
    let mut events = 0u64;
    let mut pruned = 0u64;
    let mut deleted = 0u64;
    let mut td = 0u64;
    let mut td_peak = 0u64;
    let mut stored_peak = 0u64;
    let mut iterations = 0u64;
    let mut next_check = 1u64;
    let mut last_used = 1usize;

    // s0: refs = 1, pred = nil.
    let init = model.initial_vec();
    let fp0 = model.fingerprint(&init);
    let s0 = cache.insert(&init, fp0);
    {
        let m = &mut cache.meta[s0 as usize];
        m.refs = 1;
        m.flags = OPEN;
        m.hits = 1;
    }
    td += 1;
    visits += 1;
    if opts.track_distinct {
        distinct.insert(fp0);
    }
    if let Some(c) = cands.as_mut() {
        c.visited(fp0);
    }
    // Sweep-line: `O` is ordered on (sweep number, progress value); the
    // destinations of regress transitions are roots of the next sweep.
    let mut sweep_no: i32 = 0;
    let mut okey: Vec<i32> = Vec::new();
    if let Some(cl) = classes.as_mut() {
        let c = cl.classify(&init);
        cache.meta[s0 as usize].class = c;
        cl.stored(c, s0);
        okey.push(0);
        okey.extend_from_slice(cl.key(c));
    }
    open.push(s0, 0, &okey);
    if let Some(obs) = observer.as_mut() {
        obs(Step {
            src: 0,
            dst: fp0,
            visit: true,
        });
    }
    stored_peak = stored_peak.max(cache.len() as u64);
    td_peak = td_peak.max(td);
    let mut swept_below: Option<Vec<i32>> = None;

    let result = 'search: loop {
        let Some(s) = open.peek() else {
            break Outcome::Complete;
        };
        iterations += 1;
        if iterations & 1023 == 0 {
            let states = if opts.track_distinct {
                distinct.len()
            } else {
                cache.len()
            };
            if let Some(stop) = budget.poll_with(states as u64, events, cache.meta[s as usize].depth as u64) {
                break stop;
            }
        }
        let gen_s = cache.meta[s as usize].gen;
        let e = if exp[0].slot == s && exp[0].gen == gen_s {
            0
        } else if exp[1].slot == s && exp[1].gen == gen_s {
            1
        } else {
            // Recompute the events of s into the entry not used last.
            let e = 1 - last_used;
            expand(model, indep, &cache, s, &mut exp[e]);
            let k = exp[e].events.len() as u32;
            pruned += (exp[e].buf.len() - exp[e].events.len()) as u64;
            cache.meta[s as usize].outdeg = k;
            e
        };
        last_used = e;
        let count = exp[e].events.len() as u32;
        let i = cache.meta[s as usize].next_evt;
        let exhausted;
        if i < count {
            cache.meta[s as usize].next_evt = i + 1;
            exhausted = i + 1 == count;
            if exhausted {
                open.pop_current();
            }
            let j = exp[e].events[i as usize] as usize;
            let entry = exp[e].buf.entry(j);
            let dst = exp[e].buf.state(j);
            let fp = model.fingerprint(dst);
            events += 1;
            let src_fp = cache.meta[s as usize].fp;
            match cache.find(dst, fp) {
                Some(t) => {
                    // s' ∈ C ∪ O.
                    let m = &mut cache.meta[t as usize];
                    m.hits = m.hits.saturating_add(1);
                    if m.in_d() {
                        let copy = *m;
                        if let Some(c) = cands.as_mut() {
                            c.touched(t, &copy);
                        }
                    }
                    if let Some(cl) = classes.as_ref() {
                        let (ct, cs) = (cache.meta[t as usize].class, cache.meta[s as usize].class);
                        if cl.less(ct, cs) && !cache.meta[t as usize].persistent() {
                            // A regress transition: its destination persists.
                            let m = &mut cache.meta[t as usize];
                            m.flags |= PERSISTENT;
                            if m.in_d() {
                                m.flags &= !IN_D;
                                if let Some(c) = cands.as_mut() {
                                    c.remove(t);
                                }
                            }
                        }
                    }
                    if let Some(obs) = observer.as_mut() {
                        obs(Step {
                            src: src_fp,
                            dst: fp,
                            visit: false,
                        });
                    }
                }
                None => {
                    // The budgets, before anything is stored: one more
                    // distinct state, and the memory the insertion takes.
                    if opts.track_distinct && distinct.len() as u64 >= max_states && !distinct.contains(fp) {
                        break 'search Outcome::StateLimit;
                    }
                    if let Some(mem) = budget.memory() {
                        let now = cache.bytes_used()
                            + distinct.bytes()
                            + open.len() * 16
                            + cands.as_ref().map_or(0, Candidates::bytes);
                        if (now + cache.next_growth_bytes() + distinct.next_growth_bytes()) as u64 > mem {
                            break 'search Outcome::MemoryLimit;
                        }
                    }
                    // O := O ∪ {s'}; s.refs += 1; s'.refs := 1; s'.pred := s.
                    visits += 1;
                    let t = cache.insert(dst, fp);
                    let (depth, born) = (cache.meta[s as usize].depth + 1, visits);
                    {
                        let m = &mut cache.meta[t as usize];
                        m.refs = 1;
                        m.flags = OPEN;
                        m.pred = s;
                        m.pred_gen = gen_s;
                        m.depth = depth;
                        m.born = born;
                        m.hits = 1;
                        if !entry.error {
                            m.in_trans = entry.label.trans;
                            m.in_partner = entry.label.partner;
                        }
                    }
                    cache.meta[s as usize].refs += 1;
                    td += 1;
                    if opts.track_distinct {
                        distinct.insert(fp);
                    }
                    if let Some(c) = cands.as_mut() {
                        c.visited(fp);
                    }
                    if let Some(cl) = classes.as_mut() {
                        let c = cl.classify(cache.get(t));
                        cache.meta[t as usize].class = c;
                        cl.stored(c, t);
                        okey.clear();
                        if cl.less(c, cache.meta[s as usize].class) {
                            // A regress transition to a new state: it is
                            // persistent and a root of the next sweep.
                            cache.meta[t as usize].flags |= PERSISTENT;
                            okey.push(sweep_no + 1);
                        } else {
                            okey.push(sweep_no);
                        }
                        okey.extend_from_slice(cl.key(c));
                    }
                    if opts.chain_reduction {
                        // s'.ancestor, and the removal of a reduced chain.
                        let o = 1 - e;
                        expand(model, indep, &cache, t, &mut exp[o]);
                        pruned += (exp[o].buf.len() - exp[o].events.len()) as u64;
                        let k = exp[o].events.len() as u32;
                        cache.meta[t as usize].outdeg = k;
                        let ms = cache.meta[s as usize];
                        let s_anc = if ms.ancestor != NIL && cache.is_live(ms.ancestor, ms.ancestor_gen) {
                            Some((ms.ancestor, ms.ancestor_gen))
                        } else {
                            None
                        };
                        let t_anc = if k == 1 {
                            Some(s_anc.unwrap_or((s, gen_s)))
                        } else {
                            None
                        };
                        if let Some((a, g)) = t_anc {
                            let m = &mut cache.meta[t as usize];
                            m.ancestor = a;
                            m.ancestor_gen = g;
                        }
                        if let (None, Some((a, g))) = (t_anc, s_anc) {
                            let m = &mut cache.meta[t as usize];
                            m.pred = a;
                            m.pred_gen = g;
                            cache.meta[a as usize].refs += 1;
                            unref(&mut cache, &mut cands, &mut td, s);
                        }
                    }
                    open.push(t, depth, &okey);
                    if let Some(obs) = observer.as_mut() {
                        obs(Step {
                            src: src_fp,
                            dst: fp,
                            visit: true,
                        });
                    }
                    td_peak = td_peak.max(td);
                    // garbageCollection().
                    if let Some(limit) = cache_limit {
                        while cache.len() as u64 > limit {
                            let Some(v) = cands.as_mut().and_then(|c| c.pop(&cache.meta)) else {
                                break 'search Outcome::CacheFull;
                            };
                            if let Some(cl) = classes.as_mut() {
                                cl.list[cache.meta[v as usize].class as usize].stored -= 1;
                            }
                            cache.remove(v);
                            deleted += 1;
                        }
                    }
                    stored_peak = stored_peak.max(cache.len() as u64);
                    if matches!(max_visits, Some(mv) if visits > mv) {
                        break 'search Outcome::VisitLimit;
                    }
                }
            }
        } else {
            exhausted = true;
            open.pop_current();
        }
        if exhausted {
            // C := C ∪ {s}; O := O \ {s}; unref(s).
            cache.meta[s as usize].flags &= !OPEN;
            unref(&mut cache, &mut cands, &mut td, s);
        }
        if let Some(cl) = classes.as_mut() {
            // Garbage collection of the sweep-line: delete the closed,
            // non-persistent states whose progress is below α_min, the least
            // progress value of the current sweep in O (all of them when the
            // sweep is over).
            let amin = open.min_key();
            if swept_below.as_ref() != amin {
                let amin = amin.cloned();
                let bound: Option<&[i32]> = match &amin {
                    Some(k) if k[0] == sweep_no => Some(&k[1..]),
                    _ => None,
                };
                while let Some((k, &c)) = cl.pending.first_key_value() {
                    if matches!(bound, Some(b) if k.as_slice() >= b) {
                        break;
                    }
                    cl.pending.pop_first();
                    let members = std::mem::take(&mut cl.list[c as usize].members);
                    cl.list[c as usize].pending = false;
                    for x in members {
                        let m = cache.meta[x as usize];
                        if !m.alive || m.class != c || m.is_open() || m.persistent() {
                            continue;
                        }
                        if m.in_d() {
                            if let Some(cd) = cands.as_mut() {
                                cd.remove(x);
                            }
                        }
                        cl.list[c as usize].stored -= 1;
                        cache.remove(x);
                        if m.refs > 0 {
                            // The TD-tree becomes a forest (Sect. 4.4).
                            td -= 1;
                            if m.pred != NIL && cache.is_live(m.pred, m.pred_gen) {
                                unref(&mut cache, &mut cands, &mut td, m.pred);
                            }
                        }
                    }
                }
                if let Some(k) = &amin {
                    sweep_no = k[0];
                }
                swept_below = amin;
            }
        }
        if check && (cache.len() <= 64 || iterations >= next_check) {
            if iterations >= next_check {
                next_check *= 2;
            }
            if let Err(msg) = cache.check_i4(cands.is_some()) {
                panic!("after iteration {iterations}: {msg}");
            }
        }
    };
    if check && result == Outcome::Complete {
        if let Err(msg) = cache.check_i4(cands.is_some()) {
            panic!("at the end: {msg}");
        }
    }

    let time_s = start.elapsed().as_secs_f64();
    let size = opts.state_space_size;
    let pct = |x: u64| size.filter(|&s| s > 0).map(|s| 100.0 * x as f64 / s as f64);
    let states = if opts.track_distinct {
        distinct.len() as u64
    } else {
        0
    };
    let persistent = classes
        .as_ref()
        .map(|_| cache.meta.iter().filter(|m| m.alive && m.persistent()).count() as u64);
    CachingReport {
        model: model.info().name.clone(),
        strategy: opts.strategy_text(),
        result,
        states,
        state_space_size: size,
        visits,
        revisits: visits.saturating_sub(states),
        stored_peak,
        cache_size: cache_limit,
        replacement: cache_limit.map(|_| opts.replacement.to_string()),
        chain_reduction: opts.chain_reduction,
        edge_lean: indep.is_some(),
        stored_pct: pct(stored_peak),
        visits_pct: pct(visits),
        cache_pct: cache_limit.and_then(pct),
        events,
        pruned_events: pruned,
        deleted,
        td_peak,
        seed: opts.seed,
        progress: opts.progress.map(|p| p.names.clone()),
        persistent,
        persistent_pct: persistent.and_then(pct),
        largest_class: classes.as_ref().map(|c| c.largest),
        largest_class_pct: classes.as_ref().and_then(|c| pct(c.largest)),
        progress_classes: classes.as_ref().map(|c| c.list.len() as u64),
        time_s,
        visits_per_s: if time_s > 0.0 { visits as f64 / time_s } else { 0.0 },
        cache_bytes: cache.bytes_used() as u64,
        peak_rss_bytes: dvemc_engine::peak_rss_bytes(),
    }
}
