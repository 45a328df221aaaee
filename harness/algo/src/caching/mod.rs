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
pub fn run(model: &dyn NextState, opts: &Options, observer: Option<&mut dyn FnMut(Step)>) -> CachingReport {
    let start = Instant::now();
    assert!(
        !matches!(opts.cache, Some(CacheSize::Percent(_))) || opts.state_space_size.is_some(),
        "a cache size in % of |S| needs state_space_size"
    );
    let mut s = Search::new(model, opts, observer, start);
    s.start();
    let result = loop {
        let Some(state) = s.open.peek() else {
            break Outcome::Complete;
        };
        if let Some(stop) = s.step(state) {
            break stop;
        }
    };
    if s.check && result == Outcome::Complete {
        if let Err(msg) = s.cache.check_i4(s.cands.is_some()) {
            panic!("at the end: {msg}");
        }
    }
    s.report(result, start.elapsed().as_secs_f64())
}

/// What the search counts.
#[derive(Default)]
struct Tallies {
    visits: u64,
    events: u64,
    pruned: u64,
    deleted: u64,
    /// States of the TD-tree now, and at most.
    td: u64,
    td_peak: u64,
    stored_peak: u64,
    iterations: u64,
}

/// One search with state caching under way: `C ∪ O` (the cache), `O`, the
/// replacement's candidates, the progress classes of the sweep-line, the
/// last two states' events, and the counts.
struct Search<'a, 'o> {
    model: &'a dyn NextState,
    opts: &'a Options<'a>,
    observer: Option<&'o mut dyn FnMut(Step)>,
    budget: Budget,
    max_states: u64,
    indep: Option<&'a Independence>,
    cache_limit: Option<u64>,
    max_visits: Option<u64>,
    /// Check the invariant I4 as the search goes.
    check: bool,
    next_check: u64,
    cache: Cache,
    cands: Option<Candidates>,
    classes: Option<Classes<'a>>,
    open: OpenSet,
    exp: [Expansion; 2],
    /// The entry of `exp` used last.
    last_used: usize,
    distinct: FpSet,
    t: Tallies,
    /// Sweep-line: `O` is ordered on (sweep number, progress value); the
    /// destinations of regress transitions are roots of the next sweep.
    sweep_no: i32,
    okey: Vec<i32>,
    swept_below: Option<Vec<i32>>,
}

impl<'a, 'o> Search<'a, 'o> {
    fn new(
        model: &'a dyn NextState,
        opts: &'a Options<'a>,
        observer: Option<&'o mut dyn FnMut(Step)>,
        start: Instant,
    ) -> Search<'a, 'o> {
        let n = model.state_len();
        let cache_limit = opts.cache_states();
        let open = match (opts.progress, opts.order) {
            (Some(_), o) => OpenSet::priority(o == Order::Dfs),
            (None, Order::Dfs) => OpenSet::Stack(Vec::new()),
            (None, Order::Bfs) => OpenSet::Queue(VecDeque::new()),
            (None, Order::Bbfs(w)) => OpenSet::Levels(LevelStack::new(Width::Fixed(w))),
            (None, Order::Alt(b, d)) => OpenSet::Levels(LevelStack::new(Width::Alt(b, d))),
        };
        Search {
            model,
            opts,
            observer,
            budget: Budget::new(&opts.limits, start).with_meter(opts.meter.clone()),
            max_states: opts.limits.max_states.unwrap_or(u64::MAX),
            indep: opts.edge_lean,
            cache_limit,
            max_visits: match (opts.max_visits_factor, opts.state_space_size) {
                (Some(f), Some(s)) => Some((f * s as f64).floor() as u64),
                _ => None,
            },
            check: cfg!(debug_assertions) || opts.check_invariants,
            next_check: 1,
            cache: Cache::new(n),
            cands: cache_limit.map(|_| Candidates::new(opts.replacement, opts.seed)),
            classes: opts.progress.map(Classes::new),
            open,
            exp: [0, 1].map(|_| Expansion {
                slot: NIL,
                gen: 0,
                buf: SuccBuf::new(n),
                events: Vec::new(),
            }),
            last_used: 1,
            distinct: FpSet::default(),
            t: Tallies::default(),
            sweep_no: 0,
            okey: Vec::new(),
            swept_below: None,
        }
    }

    fn observe(&mut self, src: u64, dst: u64, visit: bool) {
        if let Some(obs) = self.observer.as_mut() {
            obs(Step { src, dst, visit });
        }
    }

    /// s0: refs = 1, pred = nil.
    fn start(&mut self) {
        let init = self.model.initial_vec();
        let fp0 = self.model.fingerprint(&init);
        let s0 = self.cache.insert(&init, fp0);
        {
            let m = &mut self.cache.meta[s0 as usize];
            m.refs = 1;
            m.flags = OPEN;
            m.hits = 1;
        }
        self.t.td += 1;
        self.t.visits += 1;
        if self.opts.track_distinct {
            self.distinct.insert(fp0);
        }
        if let Some(c) = self.cands.as_mut() {
            c.visited(fp0);
        }
        if let Some(cl) = self.classes.as_mut() {
            let c = cl.classify(&init);
            self.cache.meta[s0 as usize].class = c;
            cl.stored(c, s0);
            self.okey.push(0);
            self.okey.extend_from_slice(cl.key(c));
        }
        self.open.push(s0, 0, &self.okey);
        self.observe(0, fp0, true);
        self.t.stored_peak = self.t.stored_peak.max(self.cache.len() as u64);
        self.t.td_peak = self.t.td_peak.max(self.t.td);
    }

    /// One iteration on the state `s` at the head of `O`: its next event;
    /// the outcome if the search stops.
    fn step(&mut self, s: u32) -> Option<Outcome> {
        self.t.iterations += 1;
        if self.t.iterations & 1023 == 0 {
            let states = if self.opts.track_distinct {
                self.distinct.len()
            } else {
                self.cache.len()
            };
            let depth = self.cache.meta[s as usize].depth as u64;
            if let Some(stop) = self.budget.poll_with(states as u64, self.t.events, depth) {
                return Some(stop);
            }
        }
        let e = self.events_of(s);
        let count = self.exp[e].events.len() as u32;
        let i = self.cache.meta[s as usize].next_evt;
        let exhausted = if i < count {
            self.cache.meta[s as usize].next_evt = i + 1;
            let exhausted = i + 1 == count;
            if exhausted {
                self.open.pop_current();
            }
            let j = self.exp[e].events[i as usize] as usize;
            if let Some(stop) = self.event(s, e, j) {
                return Some(stop);
            }
            exhausted
        } else {
            self.open.pop_current();
            true
        };
        if exhausted {
            // C := C ∪ {s}; O := O \ {s}; unref(s).
            self.cache.meta[s as usize].flags &= !OPEN;
            unref(&mut self.cache, &mut self.cands, &mut self.t.td, s);
        }
        if self.classes.is_some() {
            self.sweep();
        }
        if self.check && (self.cache.len() <= 64 || self.t.iterations >= self.next_check) {
            if self.t.iterations >= self.next_check {
                self.next_check *= 2;
            }
            if let Err(msg) = self.cache.check_i4(self.cands.is_some()) {
                panic!("after iteration {}: {msg}", self.t.iterations);
            }
        }
        None
    }

    /// The entry of `exp` that holds the events of `s`, recomputed into
    /// the entry not used last if neither does.
    fn events_of(&mut self, s: u32) -> usize {
        let gen_s = self.cache.meta[s as usize].gen;
        let e = if self.exp[0].slot == s && self.exp[0].gen == gen_s {
            0
        } else if self.exp[1].slot == s && self.exp[1].gen == gen_s {
            1
        } else {
            let e = 1 - self.last_used;
            self.expand_into(s, e);
            e
        };
        self.last_used = e;
        e
    }

    /// The events of `s` into `exp[e]`, counting those pruned; its
    /// out-degree.
    fn expand_into(&mut self, s: u32, e: usize) -> u32 {
        let x = &mut self.exp[e];
        expand(self.model, self.indep, &self.cache, s, x);
        self.t.pruned += (x.buf.len() - x.events.len()) as u64;
        let k = x.events.len() as u32;
        self.cache.meta[s as usize].outdeg = k;
        k
    }

    /// Executes the event `j` of `s` (whose events `exp[e]` holds).
    fn event(&mut self, s: u32, e: usize, j: usize) -> Option<Outcome> {
        let dst = self.exp[e].buf.state(j);
        let fp = self.model.fingerprint(dst);
        self.t.events += 1;
        let src_fp = self.cache.meta[s as usize].fp;
        match self.cache.find(dst, fp) {
            Some(t) => {
                self.found_again(s, t);
                self.observe(src_fp, fp, false);
                None
            }
            None => self.visit(s, e, j, (src_fp, fp)),
        }
    }

    /// s' ∈ C ∪ O: counted as a hit, made persistent if `s -> t` regresses.
    fn found_again(&mut self, s: u32, t: u32) {
        let m = &mut self.cache.meta[t as usize];
        m.hits = m.hits.saturating_add(1);
        if m.in_d() {
            let copy = *m;
            if let Some(c) = self.cands.as_mut() {
                c.touched(t, &copy);
            }
        }
        if let Some(cl) = self.classes.as_ref() {
            let (ct, cs) = (
                self.cache.meta[t as usize].class,
                self.cache.meta[s as usize].class,
            );
            if cl.less(ct, cs) && !self.cache.meta[t as usize].persistent() {
                // A regress transition: its destination persists.
                let m = &mut self.cache.meta[t as usize];
                m.flags |= PERSISTENT;
                if m.in_d() {
                    m.flags &= !IN_D;
                    if let Some(c) = self.cands.as_mut() {
                        c.remove(t);
                    }
                }
            }
        }
    }

    /// The budgets, before anything is stored: one more distinct state,
    /// and the memory the insertion of `fp` takes.
    fn refuse(&self, fp: u64) -> Option<Outcome> {
        let distinct = &self.distinct;
        if self.opts.track_distinct && distinct.len() as u64 >= self.max_states && !distinct.contains(fp) {
            return Some(Outcome::StateLimit);
        }
        let mem = self.budget.memory()?;
        let now = self.cache.bytes_used()
            + distinct.bytes()
            + self.open.len() * 16
            + self.cands.as_ref().map_or(0, Candidates::bytes);
        ((now + self.cache.next_growth_bytes() + distinct.next_growth_bytes()) as u64 > mem)
            .then_some(Outcome::MemoryLimit)
    }

    /// A new state, the event `j` of `s`: stored, put in `O`. `fps`: the
    /// fingerprints of `s` and of the new state.
    fn visit(&mut self, s: u32, e: usize, j: usize, fps: (u64, u64)) -> Option<Outcome> {
        let (src_fp, fp) = fps;
        if let Some(stop) = self.refuse(fp) {
            return Some(stop);
        }
        // O := O ∪ {s'}; s.refs += 1; s'.refs := 1; s'.pred := s.
        self.t.visits += 1;
        let gen_s = self.cache.meta[s as usize].gen;
        let (entry, dst) = (self.exp[e].buf.entry(j), self.exp[e].buf.state(j));
        let t = self.cache.insert(dst, fp);
        let (depth, born) = (self.cache.meta[s as usize].depth + 1, self.t.visits);
        {
            let m = &mut self.cache.meta[t as usize];
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
        self.cache.meta[s as usize].refs += 1;
        self.t.td += 1;
        if self.opts.track_distinct {
            self.distinct.insert(fp);
        }
        if let Some(c) = self.cands.as_mut() {
            c.visited(fp);
        }
        if let Some(cl) = self.classes.as_mut() {
            let c = cl.classify(self.cache.get(t));
            self.cache.meta[t as usize].class = c;
            cl.stored(c, t);
            self.okey.clear();
            if cl.less(c, self.cache.meta[s as usize].class) {
                // A regress transition to a new state: it is persistent
                // and a root of the next sweep.
                self.cache.meta[t as usize].flags |= PERSISTENT;
                self.okey.push(self.sweep_no + 1);
            } else {
                self.okey.push(self.sweep_no);
            }
            self.okey.extend_from_slice(cl.key(c));
        }
        if self.opts.chain_reduction {
            self.reduce_chain(s, gen_s, t, 1 - e);
        }
        self.open.push(t, depth, &self.okey);
        self.observe(src_fp, fp, true);
        self.t.td_peak = self.t.td_peak.max(self.t.td);
        if let Some(stop) = self.collect_garbage() {
            return Some(stop);
        }
        self.t.stored_peak = self.t.stored_peak.max(self.cache.len() as u64);
        if matches!(self.max_visits, Some(mv) if self.t.visits > mv) {
            return Some(Outcome::VisitLimit);
        }
        None
    }

    /// s'.ancestor, and the removal of a reduced chain: `t`, new, is
    /// expanded into `exp[o]` at once.
    fn reduce_chain(&mut self, s: u32, gen_s: u32, t: u32, o: usize) {
        let k = self.expand_into(t, o);
        let cache = &mut self.cache;
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
            unref(cache, &mut self.cands, &mut self.t.td, s);
        }
    }

    /// garbageCollection(): deletes states while the cache holds more than
    /// its size; `Some(CacheFull)` if none can be.
    fn collect_garbage(&mut self) -> Option<Outcome> {
        let limit = self.cache_limit?;
        while self.cache.len() as u64 > limit {
            let Some(v) = self.cands.as_mut().and_then(|c| c.pop(&self.cache.meta)) else {
                return Some(Outcome::CacheFull);
            };
            if let Some(cl) = self.classes.as_mut() {
                cl.list[self.cache.meta[v as usize].class as usize].stored -= 1;
            }
            self.cache.remove(v);
            self.t.deleted += 1;
        }
        None
    }

    /// Garbage collection of the sweep-line: deletes the closed,
    /// non-persistent states whose progress is below α_min, the least
    /// progress value of the current sweep in O (all of them when the
    /// sweep is over).
    fn sweep(&mut self) {
        let Some(cl) = self.classes.as_mut() else { return };
        let cache = &mut self.cache;
        let amin = self.open.min_key();
        if self.swept_below.as_ref() == amin {
            return;
        }
        let amin = amin.cloned();
        let bound: Option<&[i32]> = match &amin {
            Some(k) if k[0] == self.sweep_no => Some(&k[1..]),
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
                    if let Some(cd) = self.cands.as_mut() {
                        cd.remove(x);
                    }
                }
                cl.list[c as usize].stored -= 1;
                cache.remove(x);
                if m.refs > 0 {
                    // The TD-tree becomes a forest (Sect. 4.4).
                    self.t.td -= 1;
                    if m.pred != NIL && cache.is_live(m.pred, m.pred_gen) {
                        unref(cache, &mut self.cands, &mut self.t.td, m.pred);
                    }
                }
            }
        }
        if let Some(k) = &amin {
            self.sweep_no = k[0];
        }
        self.swept_below = amin;
    }

    /// The run's figures.
    fn report(self, result: Outcome, time_s: f64) -> CachingReport {
        let (opts, t) = (self.opts, &self.t);
        let size = opts.state_space_size;
        let pct = |x: u64| size.filter(|&s| s > 0).map(|s| 100.0 * x as f64 / s as f64);
        let states = if opts.track_distinct {
            self.distinct.len() as u64
        } else {
            0
        };
        let classes = self.classes.as_ref();
        let persistent = classes.map(|_| {
            self.cache
                .meta
                .iter()
                .filter(|m| m.alive && m.persistent())
                .count() as u64
        });
        CachingReport {
            model: self.model.info().name.clone(),
            strategy: opts.strategy_text(),
            result,
            states,
            state_space_size: size,
            visits: t.visits,
            revisits: t.visits.saturating_sub(states),
            stored_peak: t.stored_peak,
            cache_size: self.cache_limit,
            replacement: self.cache_limit.map(|_| opts.replacement.to_string()),
            chain_reduction: opts.chain_reduction,
            edge_lean: self.indep.is_some(),
            stored_pct: pct(t.stored_peak),
            visits_pct: pct(t.visits),
            cache_pct: self.cache_limit.and_then(pct),
            events: t.events,
            pruned_events: t.pruned,
            deleted: t.deleted,
            td_peak: t.td_peak,
            seed: opts.seed,
            progress: opts.progress.map(|p| p.names.clone()),
            persistent,
            persistent_pct: persistent.and_then(pct),
            largest_class: classes.map(|c| c.largest),
            largest_class_pct: classes.and_then(|c| pct(c.largest)),
            progress_classes: classes.map(|c| c.list.len() as u64),
            time_s,
            visits_per_s: if time_s > 0.0 {
                t.visits as f64 / time_s
            } else {
                0.0
            },
            cache_bytes: self.cache.bytes_used() as u64,
            peak_rss_bytes: dvemc_engine::peak_rss_bytes(),
        }
    }
}
