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

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::str::FromStr;

use super::tdtree::{Meta, NIL};
use crate::rng::Rng;

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
}

impl Replacement {
    pub const NAMES: &'static str =
        "random, depth-min, depth-max, indegree, outdegree, visits, stratified[:K], age";

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
        }
    }
}

impl FromStr for Replacement {
    type Err = String;
    fn from_str(s: &str) -> Result<Replacement, String> {
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

const SKETCH_BITS: u32 = 18;

/// The candidate set `D` with its replacement strategy.
pub struct Candidates {
    kind: Replacement,
    rng: Rng,
    /// Random: the members, and each slot's index in it (`NIL` if absent).
    members: Vec<u32>,
    pos: Vec<u32>,
    /// Other strategies: (key, tie, slot, generation), smallest first; stale
    /// entries are skipped when popped.
    heap: BinaryHeap<Reverse<(u64, u64, u32, u32)>>,
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
            heap: BinaryHeap::new(),
            seq: 0,
            len: 0,
            sketch: if kind == Replacement::Visits {
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
            + self.heap.capacity() * std::mem::size_of::<Reverse<(u64, u64, u32, u32)>>()
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
            let key = self.key(m);
            self.seq += 1;
            let tie = if self.kind == Replacement::Age { 0 } else { m.born };
            self.heap.push(Reverse((key, tie, slot, m.gen)));
        }
    }

    /// The key of a member changed (a new transition into it).
    pub fn touched(&mut self, slot: u32, m: &Meta) {
        if self.kind == Replacement::InDegree {
            let key = self.key(m);
            self.heap.push(Reverse((key, m.born, slot, m.gen)));
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
        while let Some(Reverse((key, _, slot, gen))) = self.heap.pop() {
            let m = &meta[slot as usize];
            if !(m.alive && m.gen == gen && m.in_d()) {
                continue;
            }
            if self.kind == Replacement::InDegree && key != m.hits as u64 {
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
        assert!("random:2".parse::<Replacement>().is_err());
    }
}
