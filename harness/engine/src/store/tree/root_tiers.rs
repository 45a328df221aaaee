//! [`RootTiers`]: the ctree search's root set, grown past the last
//! doubling that fits in its memory budget.
//!
//! Why: a [`RootSet`] doubles its buckets at 9/10 load, in place, so that
//! its peak is the doubled table; near the end of a budget that peak is
//! what stops a search, with much of the budget unused (the census's
//! largest runs stopped so: results/store/NOTES.md).
//!
//! So when the open table's next growth does not fit, the table is sealed
//! (kept as it is, only read from then on) and a new one is opened beside
//! it, half as large as what the budget still leaves (the other half is
//! for everything else that grows, its own doubling in place included).
//! A key is looked up in every table and stored in the open one only: a
//! probe more per sealed table for every lookup after the first seal (the
//! tables' homes are prefetched together), and nothing before it, when
//! the one table is the set as it always was.
//!
//! Exact: a key goes into the open table only when no table has it, so
//! the tables hold disjoint keys, the set is their union and its length
//! the sum of theirs.

use crate::checkpoint::{Loader, Saver};
use crate::store::tree::root_set::RootSet;

/// A table is sealed only if the one opened beside it has at least a
/// quarter of its buckets (else many small tables would slow every
/// lookup for little room).
const MAX_SHRINK: u32 = 2;
/// Fewest buckets (log2) of a table worth sealing: below, a budget that
/// small stops the search.
const MIN_SEALED: u32 = 12;

/// Tables of roots, every one but the last sealed (see the module
/// comment).
#[derive(Debug, Default)]
pub struct RootTiers {
    sealed: Vec<RootSet>,
    sealed_len: usize,
    open: RootSet,
}

impl RootTiers {
    pub fn new() -> RootTiers {
        RootTiers::default()
    }

    pub fn len(&self) -> usize {
        self.sealed_len + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tables in use (1 until a table is sealed).
    pub fn tables(&self) -> usize {
        self.sealed.len() + 1
    }

    /// Bytes allocated.
    pub fn bytes_used(&self) -> usize {
        self.sealed.iter().map(RootSet::bytes_used).sum::<usize>() + self.open.bytes_used()
    }

    /// The open table's [`RootSet::next_growth_bytes`] (sealed ones never
    /// grow).
    pub fn next_growth_bytes(&self, more: usize, bounds: (Option<u64>, Option<u64>)) -> usize {
        self.open.next_growth_bytes(more, bounds)
    }

    /// Starts loading every table's home bucket of `(left, right)`.
    #[inline]
    pub fn prefetch(&self, left: u32, right: u32) {
        self.open.prefetch(left, right);
        for t in &self.sealed {
            t.prefetch(left, right);
        }
    }

    pub fn contains(&self, left: u32, right: u32) -> bool {
        self.open.contains(left, right) || self.sealed.iter().any(|t| t.contains(left, right))
    }

    /// Adds `(left, right)` unless a table has it; whether it was new.
    #[inline]
    pub fn insert(&mut self, left: u32, right: u32) -> bool {
        if self.sealed.iter().any(|t| t.contains(left, right)) {
            return false;
        }
        self.open.insert(left, right)
    }

    /// Seals the open table and opens a new one, if `room` (the bytes the
    /// budget leaves beyond what is allocated and what else may grow next)
    /// holds a new table worth it, of at least a quarter of the open
    /// table's buckets, and what the states it takes cost besides at
    /// `other` bytes each (the inner tables' and queues' share, which
    /// grow with them). The new table's parts are as wide as parts below
    /// `bounds` need (as [`RootSet::next_growth_bytes`] foresees), so
    /// that it does not widen at once. The open table must be half full
    /// at least, so that a table just opened is never sealed again.
    /// Whether it did.
    pub fn seal(&mut self, room: usize, other: f64, bounds: (Option<u64>, Option<u64>)) -> bool {
        let b = self.open.buckets_log2();
        if b < MIN_SEALED || self.open.len() < self.open.capacity() / 2 {
            return false;
        }
        let cost = |nb: u32| self.open.bytes_for(nb, bounds) as f64 + RootSet::keys_at(nb) as f64 * other;
        let Some(nb) = (b.saturating_sub(MAX_SHRINK)..=b)
            .rev()
            .find(|&nb| cost(nb) <= room as f64)
        else {
            return false;
        };
        let new = self.open.empty_for(nb, bounds);
        let full = std::mem::replace(&mut self.open, new);
        self.sealed_len += full.len();
        self.sealed.push(full);
        true
    }

    /// Checkpoints: the number of tables, then each, the open one last.
    pub(crate) fn save(&self, w: &mut Saver) -> crate::checkpoint::Result<()> {
        w.u64(self.tables() as u64)?;
        for t in self.sealed.iter().chain([&self.open]) {
            t.save(w)?;
        }
        Ok(())
    }

    /// The tables `save` wrote; a checkpoint of format 1 has one table and
    /// no count.
    pub(crate) fn load(r: &mut Loader) -> crate::checkpoint::Result<RootTiers> {
        let n = if r.version() == 1 {
            1
        } else {
            r.below(65, "the number of root tables")? as usize
        };
        let mut tiers = RootTiers::new();
        for i in 0..n {
            let t = RootSet::load(r)?;
            if i + 1 == n {
                tiers.open = t;
            } else {
                tiers.sealed_len += t.len();
                tiers.sealed.push(t);
            }
        }
        Ok(tiers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts of any width.
    const ANY: (Option<u64>, Option<u64>) = (None, None);

    #[test]
    fn sealed_tables_and_the_open_one_are_one_exact_set() {
        let mut rng = crate::rng::Rng::seeded(17);
        let mut set = RootTiers::new();
        let mut truth = std::collections::HashSet::new();
        let mut seals = 0;
        for i in 0..400_000usize {
            // Repeats, and parts that widen as the run goes on.
            let (l, r) = (rng.below(2 + i / 2) as u32, rng.below(5000) as u32);
            assert_eq!(set.insert(l, r), truth.insert((l, r)), "{i}: ({l}, {r})");
            assert_eq!(set.len(), truth.len());
            // Now and then, a budget that leaves room for a table of the
            // open one's size (or none).
            if i % 20_000 == 0 {
                let room = set.open.bytes_for(set.open.buckets_log2(), ANY);
                let before = set.tables();
                if set.seal(room, 0.0, ANY) {
                    seals += 1;
                    assert_eq!(set.tables(), before + 1);
                    assert!(set.open.is_empty());
                    // Just opened: not sealed again, whatever the room.
                    assert!(!set.seal(usize::MAX, 0.0, ANY));
                }
                assert!(!set.seal(0, 0.0, ANY) || set.tables() == before + 1);
            }
        }
        assert!(seals >= 3, "{seals} seals");
        for &(l, r) in &truth {
            assert!(set.contains(l, r), "({l}, {r})");
            assert!(!set.insert(l, r));
        }
        assert!(!set.contains(u32::MAX, 7));
        assert_eq!(set.len(), truth.len());
    }

    #[test]
    fn checkpoints_keep_every_table_and_read_the_one_table_format() {
        use crate::checkpoint::{CheckpointSpec, Saver};
        let dir = std::env::temp_dir().join(format!("dvemc-tiers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let spec = CheckpointSpec {
            path: dir.join("t.ckpt"),
            digest: 3,
        };
        let mut rng = crate::rng::Rng::seeded(9);
        let mut set = RootTiers::new();
        let mut keys = Vec::new();
        for i in 0..120_000u32 {
            let (l, r) = (rng.below(1 << 16) as u32, i);
            set.insert(l, r);
            keys.push((l, r));
            if i % 40_000 == 39_999 {
                assert!(set.seal(usize::MAX, 0.0, ANY));
            }
        }
        assert_eq!(set.tables(), 4);
        let load = |spec: &CheckpointSpec| {
            let mut r = Loader::open(spec).unwrap().unwrap();
            let t = RootTiers::load(&mut r).unwrap();
            r.finish().unwrap();
            t
        };
        let mut w = Saver::create(&spec, 0.0, 0.0, 0).unwrap();
        set.save(&mut w).unwrap();
        w.finish().unwrap();
        let back = load(&spec);
        assert_eq!((back.tables(), back.len()), (4, set.len()));
        assert!(keys.iter().all(|&(l, r)| back.contains(l, r)));
        assert!(!back.contains(1 << 16, 0));

        // Format 1: the one table alone.
        let mut one = RootTiers::new();
        for &(l, r) in &keys[..5000] {
            one.insert(l, r);
        }
        let mut w = Saver::create_as(&spec, 1, 0.0, 0.0, 0).unwrap();
        one.open.save(&mut w).unwrap();
        w.finish().unwrap();
        let back = load(&spec);
        assert_eq!((back.tables(), back.len()), (1, 5000));
        assert!(keys[..5000].iter().all(|&(l, r)| back.contains(l, r)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_table_is_sealed_only_for_a_new_one_worth_it() {
        let mut set = RootTiers::new();
        let mut rng = crate::rng::Rng::seeded(5);
        while set.open.buckets_log2() < MIN_SEALED + 2 || set.open.len() < set.open.capacity() / 2 {
            set.insert(rng.below(1 << 14) as u32, rng.below(1 << 14) as u32);
        }
        let b = set.open.buckets_log2();
        // Room for a table of an eighth of its buckets only: no.
        assert!(!set.seal(set.open.bytes_for(b - 3, ANY), 0.0, ANY));
        // A quarter, but not the states' other bytes: no.
        let quarter = set.open.bytes_for(b - 2, ANY);
        let keys = RootSet::keys_at(b - 2);
        assert!(!set.seal(quarter + keys, 2.0, ANY));
        assert_eq!(set.tables(), 1);
        // A quarter with them: yes, of that size.
        assert!(set.seal(quarter + 2 * keys, 2.0, ANY));
        assert_eq!(set.tables(), 2);
        assert_eq!(set.open.buckets_log2(), b - 2);
    }
}
