//! Cache replacement strategies: which candidate of `D` (closed states that
//! left the TD-tree) `garbageCollection` deletes when the cache is full.
//!
//! | name | deletes first |
//! | --- | --- |
//! | `random` | a uniformly random candidate (seeded) |
//! | `depth-min` | the smallest depth (distance from `s0` when generated) |
//! | `depth-max` | the largest depth |
//! | `indegree` | the fewest transitions seen leading to it while stored |
//! | `outdegree` | the fewest successors (`|en(s)|` after reductions) |
//! | `visits` | the fewest visits of the state so far, counted across deletions in a fixed-size table of 8-bit counters indexed by fingerprint (2^18 entries, so an estimate) |
//! | `stratified[:K]` | stratified caching (Geldenhuys, SPIN 2004): a state of depth `d` is in stratum `d mod K` (default K = 4); strata 1, …, K−1 are emptied before stratum 0, random inside a stratum, so one level in K tends to stay cached |
//! | `age` | the oldest (earliest inserted) |
//!
//! Ties are broken oldest first. Every strategy is deterministic for a seed.
//!
//! **The family of 60** (`Replacement::family`). The paper took the best run
//! over "60 caching strategies selected after experimentation with a small
//! sample of 10 instances", built from in- and out-degree, distance, visit
//! frequency, entry time, random choice and stratified caching (Sect. 5.1,
//! Table 1), without listing them. Ours, built from the same criteria (our
//! choice, not the paper's list):
//! - the 8 above;
//! - 4 more single criteria, largest first: `indegree-max`, `outdegree-max`,
//!   `visits-max`, and `newest` (the latest inserted);
//! - 40 two-level orders `FIRST+THEN`: FIRST one of `depth-min`,
//!   `depth-max`, `indegree`, `indegree-max`, `outdegree`, `outdegree-max`,
//!   `visits`, `visits-max`; ties broken by THEN, one of `random`, `newest`,
//!   or another criterion's smallest first (`depth`, `indegree`,
//!   `outdegree`, `visits`, three per FIRST); remaining ties oldest first;
//! - 8 more stratified caches, K in {2, 3, 5, 6, 8, 12, 16, 32}.

use std::fmt;
use std::str::FromStr;

use super::quad_heap::QuadHeap;
use super::tdtree::{Meta, NIL};
use dvemc_engine::names::either;
use dvemc_engine::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replacement {
    Random,
    DepthMin,
    DepthMax,
    InDegree,
    OutDegree,
    Visits,
    Stratified(u32),
    Age,
    /// A criterion other than the eight above, or a two-level order.
    Order(Key, Tie),
}

/// A state's measure that a replacement order sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Criterion {
    Depth,
    InDegree,
    OutDegree,
    Visits,
    Age,
}

impl Criterion {
    const ALL: [Criterion; 4] = [
        Criterion::Depth,
        Criterion::InDegree,
        Criterion::OutDegree,
        Criterion::Visits,
    ];

    fn name(self) -> &'static str {
        self.into()
    }

    fn parse(s: &str) -> Option<Criterion> {
        s.parse().ok()
    }
}

/// A criterion and its direction: the smallest (or largest) deleted first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub criterion: Criterion,
    pub largest: bool,
}

/// How a two-level order breaks the ties of its first key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    Oldest,
    Newest,
    Random,
    /// Another criterion, smallest first.
    By(Criterion),
}

impl Replacement {
    pub const NAMES: &'static str =
        "random, depth-min, depth-max, indegree, outdegree, visits, stratified[:K], age, \
         indegree-max, outdegree-max, visits-max, newest, FIRST+THEN (e.g. depth-max+random; see the module comment)";

    /// All strategies (stratified with its default K).
    pub const ALL: [Replacement; 8] = [
        Replacement::Random,
        Replacement::DepthMin,
        Replacement::DepthMax,
        Replacement::InDegree,
        Replacement::OutDegree,
        Replacement::Visits,
        Replacement::Stratified(4),
        Replacement::Age,
    ];

    /// The 60 strategies of the module comment, the 8 of `ALL` first.
    pub fn family() -> Vec<Replacement> {
        use Criterion::*;
        let key = |criterion, largest| Key { criterion, largest };
        let mut f = Replacement::ALL.to_vec();
        for c in [InDegree, OutDegree, Visits, Age] {
            f.push(Replacement::Order(key(c, true), Tie::Oldest));
        }
        for c in Criterion::ALL {
            for largest in [false, true] {
                let mut ties = vec![Tie::Random, Tie::Newest];
                ties.extend(Criterion::ALL.into_iter().filter(|o| *o != c).map(Tie::By));
                for t in ties {
                    f.push(Replacement::Order(key(c, largest), t));
                }
            }
        }
        for k in [2, 3, 5, 6, 8, 12, 16, 32] {
            f.push(Replacement::Stratified(k));
        }
        f
    }

    /// The criteria this strategy reads (for the visit counters and for
    /// re-keying on new transitions).
    fn uses(&self, c: Criterion) -> bool {
        match self {
            Replacement::DepthMin | Replacement::DepthMax => c == Criterion::Depth,
            Replacement::InDegree => c == Criterion::InDegree,
            Replacement::OutDegree => c == Criterion::OutDegree,
            Replacement::Visits => c == Criterion::Visits,
            Replacement::Order(k, t) => k.criterion == c || *t == Tie::By(c),
            _ => false,
        }
    }
}

/// The canonical name of an order's first key.
fn key_name(k: Key) -> String {
    match (k.criterion, k.largest) {
        (Criterion::Depth, false) => "depth-min".into(),
        (Criterion::Age, false) => "age".into(),
        (Criterion::Age, true) => "newest".into(),
        (c, false) => c.name().into(),
        (c, true) => format!("{}-max", c.name()),
    }
}

impl fmt::Display for Replacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Replacement::Random => f.write_str("random"),
            Replacement::DepthMin => f.write_str("depth-min"),
            Replacement::DepthMax => f.write_str("depth-max"),
            Replacement::InDegree => f.write_str("indegree"),
            Replacement::OutDegree => f.write_str("outdegree"),
            Replacement::Visits => f.write_str("visits"),
            Replacement::Stratified(4) => f.write_str("stratified"),
            Replacement::Stratified(k) => write!(f, "stratified:{k}"),
            Replacement::Age => f.write_str("age"),
            Replacement::Order(k, Tie::Oldest) => f.write_str(&key_name(*k)),
            Replacement::Order(k, t) => {
                let then = match t {
                    Tie::Oldest => "age".to_string(),
                    Tie::Newest => "newest".into(),
                    Tie::Random => "random".into(),
                    Tie::By(c) => c.name().into(),
                };
                write!(f, "{}+{then}", key_name(*k))
            }
        }
    }
}

impl FromStr for Replacement {
    type Err = String;
    fn from_str(s: &str) -> Result<Replacement, String> {
        if let Some((first, then)) = s.split_once('+') {
            let key = parse_key(first).ok_or_else(|| {
                format!(
                    "unknown first criterion `{first}` in `{s}` (expected one of: {})",
                    Replacement::KEYS
                )
            })?;
            let tie = match then {
                "random" => Tie::Random,
                "newest" => Tie::Newest,
                "age" | "oldest" => Tie::Oldest,
                c => Tie::By(
                    Criterion::parse(c)
                        .filter(|c| *c != Criterion::Age)
                        .ok_or_else(|| {
                            let mut ties = vec!["random", "newest"];
                            ties.extend(Criterion::ALL.map(Criterion::name));
                            format!(
                                "unknown tie-breaker `{then}` in `{s}` (expected {})",
                                either(&ties)
                            )
                        })?,
                ),
            };
            if tie == Tie::By(key.criterion) {
                return Err(format!("`{s}` breaks ties by its own criterion"));
            }
            return Ok(Replacement::Order(key, tie).canonical());
        }
        match s {
            "indegree-max" | "outdegree-max" | "visits-max" | "newest" | "age-max" => {
                return Ok(Replacement::Order(parse_key(s).expect("a key"), Tie::Oldest))
            }
            _ => {}
        }
        let (name, param) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        let r = match name {
            "random" => Replacement::Random,
            "depth-min" | "smallest-depth" => Replacement::DepthMin,
            "depth-max" | "largest-depth" => Replacement::DepthMax,
            "indegree" | "in-degree" => Replacement::InDegree,
            "outdegree" | "out-degree" => Replacement::OutDegree,
            "visits" | "fewest-visits" => Replacement::Visits,
            "stratified" => {
                let k = match param {
                    None => 4,
                    Some(p) => p
                        .parse::<u32>()
                        .ok()
                        .filter(|&k| k >= 1)
                        .ok_or_else(|| format!("bad number of strata `{p}` in `{s}`"))?,
                };
                return Ok(Replacement::Stratified(k));
            }
            "age" => Replacement::Age,
            _ => {
                return Err(format!(
                    "unknown replacement strategy `{s}` (expected one of: {})",
                    Replacement::NAMES
                ))
            }
        };
        match param {
            None => Ok(r),
            Some(_) => Err(format!("replacement strategy `{name}` takes no parameter")),
        }
    }
}

/// `depth-min`, `indegree-max`, `newest`, ... as a first key.
fn parse_key(s: &str) -> Option<Key> {
    let (c, largest) = match s {
        "newest" => ("age", true),
        "depth-min" => ("depth", false),
        _ => match s.strip_suffix("-max") {
            Some(c) => (c, true),
            None => (s.strip_suffix("-min").unwrap_or(s), false),
        },
    };
    Some(Key {
        criterion: Criterion::parse(c)?,
        largest,
    })
}

impl Replacement {
    const KEYS: &'static str =
        "depth-min, depth-max, indegree, indegree-max, outdegree, outdegree-max, visits, visits-max, age, newest";

    /// The eight named strategies for the orders they are (so that
    /// `depth-max+age` is `depth-max`).
    fn canonical(self) -> Replacement {
        use Criterion::*;
        match self {
            Replacement::Order(Key { criterion, largest }, Tie::Oldest) => match (criterion, largest) {
                (Depth, false) => Replacement::DepthMin,
                (Depth, true) => Replacement::DepthMax,
                (InDegree, false) => Replacement::InDegree,
                (OutDegree, false) => Replacement::OutDegree,
                (Visits, false) => Replacement::Visits,
                (Age, false) => Replacement::Age,
                _ => self,
            },
            r => r,
        }
    }
}

const SKETCH_BITS: u32 = 18;

/// A heap entry: (first key, tie key, insertion time or 0, slot,
/// generation), smallest deleted first.
type Entry = (u64, u64, u64, u32, u32);

/// The candidate set `D` with its replacement strategy.
pub struct Candidates {
    kind: Replacement,
    rng: Rng,
    /// Random: the members, and each slot's index in it (`NIL` if absent).
    members: Vec<u32>,
    pos: Vec<u32>,
    /// Other strategies: (key, tie, slot, generation), smallest first; stale
    /// entries are skipped when popped.
    heap: QuadHeap<Entry>,
    seq: u64,
    len: usize,
    /// Visit counters by fingerprint (`visits`).
    sketch: Vec<u8>,
}

impl Candidates {
    pub fn new(kind: Replacement, seed: u64) -> Candidates {
        Candidates {
            kind,
            rng: Rng::seeded(seed),
            members: Vec::new(),
            pos: Vec::new(),
            heap: QuadHeap::default(),
            seq: 0,
            len: 0,
            sketch: if kind.uses(Criterion::Visits) {
                vec![0; 1 << SKETCH_BITS]
            } else {
                Vec::new()
            },
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.members.capacity() * 4
            + self.pos.capacity() * 4
            + self.heap.capacity() * std::mem::size_of::<Entry>()
            + self.sketch.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn sketch_index(fp: u64) -> usize {
        (fp.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SKETCH_BITS)) as usize
    }

    /// Records a visit of the state with fingerprint `fp`.
    #[inline]
    pub fn visited(&mut self, fp: u64) {
        if !self.sketch.is_empty() {
            let c = &mut self.sketch[Self::sketch_index(fp)];
            *c = c.saturating_add(1);
        }
    }

    fn value(&self, c: Criterion, m: &Meta) -> u64 {
        match c {
            Criterion::Depth => m.depth as u64,
            Criterion::InDegree => m.hits as u64,
            Criterion::OutDegree => m.outdeg as u64,
            Criterion::Visits => self.sketch[Self::sketch_index(m.fp)] as u64,
            Criterion::Age => m.born,
        }
    }

    /// The heap entry of member `m` in `slot`.
    fn entry(&mut self, slot: u32, m: &Meta) -> Entry {
        if let Replacement::Order(k, t) = self.kind {
            let first = self.value(k.criterion, m);
            let first = if k.largest { u64::MAX - first } else { first };
            let then = match t {
                Tie::Oldest => m.born,
                Tie::Newest => u64::MAX - m.born,
                Tie::Random => self.rng.next_u64(),
                Tie::By(c) => self.value(c, m),
            };
            return (first, then, m.born, slot, m.gen);
        }
        let key = self.key(m);
        let tie = if self.kind == Replacement::Age { 0 } else { m.born };
        (key, tie, 0, slot, m.gen)
    }

    fn key(&mut self, m: &Meta) -> u64 {
        match self.kind {
            Replacement::Random => 0,
            Replacement::DepthMin => m.depth as u64,
            Replacement::DepthMax => u32::MAX as u64 - m.depth as u64,
            Replacement::InDegree => m.hits as u64,
            Replacement::OutDegree => m.outdeg as u64,
            Replacement::Visits => self.sketch[Self::sketch_index(m.fp)] as u64,
            Replacement::Stratified(k) => {
                let r = m.depth % k;
                let rank = if r == 0 { k } else { r };
                ((rank as u64) << 32) | (self.rng.next_u64() >> 32)
            }
            Replacement::Age => m.born,
            Replacement::Order(..) => unreachable!("orders are keyed by `entry`"),
        }
    }

    /// `D := D ∪ {s}`.
    pub fn insert(&mut self, slot: u32, m: &Meta) {
        self.len += 1;
        if self.kind == Replacement::Random {
            let i = slot as usize;
            if self.pos.len() <= i {
                self.pos.resize(i + 1, NIL);
            }
            self.pos[i] = self.members.len() as u32;
            self.members.push(slot);
        } else {
            self.seq += 1;
            let e = self.entry(slot, m);
            self.heap.push(e);
        }
    }

    /// The key of a member changed (a new transition into it).
    pub fn touched(&mut self, slot: u32, m: &Meta) {
        if self.kind.uses(Criterion::InDegree) {
            let e = self.entry(slot, m);
            self.heap.push(e);
        }
    }

    /// `D := D \ {s}` for a member leaving `D` other than through `pop`.
    pub fn remove(&mut self, slot: u32) {
        self.len -= 1;
        if self.kind == Replacement::Random {
            let i = self.pos[slot as usize] as usize;
            self.pos[slot as usize] = NIL;
            self.members.swap_remove(i);
            if i < self.members.len() {
                let moved = self.members[i];
                self.pos[moved as usize] = i as u32;
            }
        }
        // Heap entries go stale and are skipped by `pop`.
    }

    /// Chooses and removes a member (`s := choose from D`); `None` if `D = ∅`.
    /// `meta` tells which heap entries are still members.
    pub fn pop(&mut self, meta: &[Meta]) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        if self.kind == Replacement::Random {
            let i = self.rng.below(self.members.len());
            let slot = self.members[i];
            self.remove(slot);
            return Some(slot);
        }
        while let Some((first, then, _, slot, gen)) = self.heap.pop() {
            let m = &meta[slot as usize];
            if !(m.alive && m.gen == gen && m.in_d()) {
                continue;
            }
            // An entry keyed by an in-degree that has grown since is stale
            // (`touched` pushed the current one).
            let hits = m.hits as u64;
            let stale = match self.kind {
                Replacement::InDegree => first != hits,
                Replacement::Order(k, t) => {
                    (k.criterion == Criterion::InDegree
                        && first != if k.largest { u64::MAX - hits } else { hits })
                        || (t == Tie::By(Criterion::InDegree) && then != hits)
                }
                _ => false,
            };
            if stale {
                continue;
            }
            self.len -= 1;
            return Some(slot);
        }
        unreachable!("candidate count and heap disagree")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(depth: u32, hits: u32, born: u64) -> Meta {
        Meta {
            fp: born,
            born,
            gen: 0,
            pred: NIL,
            pred_gen: 0,
            refs: 0,
            depth,
            next_evt: 0,
            in_trans: 0,
            in_partner: 0,
            ancestor: NIL,
            ancestor_gen: 0,
            hits,
            outdeg: 0,
            class: 0,
            flags: super::super::tdtree::IN_D,
            alive: true,
        }
    }

    /// Deletion order of `metas` under `r` (all inserted, then popped).
    fn order(r: &str, metas: &mut [Meta]) -> Vec<u32> {
        let mut c = Candidates::new(r.parse().unwrap(), 1);
        for (i, m) in metas.iter().enumerate() {
            c.insert(i as u32, m);
        }
        let mut out = Vec::new();
        while let Some(s) = c.pop(metas) {
            metas[s as usize].flags = 0;
            out.push(s);
        }
        out
    }

    #[test]
    fn two_level_orders_sort_by_the_first_key_then_the_second() {
        // (depth, in-degree, born)
        let ms = || {
            vec![
                meta(1, 5, 0),
                meta(3, 1, 1),
                meta(3, 4, 2),
                meta(2, 1, 3),
                meta(1, 0, 4),
            ]
        };
        assert_eq!(order("depth-max+indegree", &mut ms()), [1, 2, 3, 4, 0]);
        assert_eq!(order("depth-max+newest", &mut ms()), [2, 1, 3, 4, 0]);
        assert_eq!(order("indegree-max+depth", &mut ms()), [0, 2, 3, 1, 4]);
        assert_eq!(order("indegree+depth", &mut ms()), [4, 3, 1, 2, 0]);
        assert_eq!(order("newest", &mut ms()), [4, 3, 2, 1, 0]);
        // Random ties: the two depth-3 states first, in either order.
        let r = order("depth-max+random", &mut ms());
        assert_eq!(r[2..], [3, 4, 0]);
        let mut first: Vec<u32> = r[..2].to_vec();
        first.sort();
        assert_eq!(first, [1, 2]);
    }

    #[test]
    fn a_new_transition_rekeys_an_in_degree_order() {
        let mut ms = vec![meta(1, 0, 0), meta(1, 1, 1)];
        let mut c = Candidates::new("depth-min+indegree".parse().unwrap(), 1);
        c.insert(0, &ms[0]);
        c.insert(1, &ms[1]);
        ms[0].hits = 2;
        c.touched(0, &ms[0]);
        assert_eq!(c.pop(&ms), Some(1), "state 0 now has the larger in-degree");
    }

    #[test]
    fn names_round_trip() {
        for r in Replacement::ALL {
            assert_eq!(r.to_string().parse::<Replacement>().unwrap(), r);
        }
        assert_eq!(
            "stratified:3".parse::<Replacement>().unwrap(),
            Replacement::Stratified(3)
        );
        assert!("lru".parse::<Replacement>().is_err());
        let family = Replacement::family();
        assert_eq!(family.len(), 60);
        let names: std::collections::BTreeSet<String> = family.iter().map(|r| r.to_string()).collect();
        assert_eq!(names.len(), 60, "60 distinct strategies: {names:?}");
        for r in &family {
            assert_eq!(r.to_string().parse::<Replacement>().as_ref(), Ok(r), "{r}");
        }
        assert_eq!("depth-max+age".parse::<Replacement>(), Ok(Replacement::DepthMax));
        assert!("depth-max+depth".parse::<Replacement>().is_err());
        assert!("depth-max+age-max".parse::<Replacement>().is_err());
        assert!("random:2".parse::<Replacement>().is_err());
    }
}
