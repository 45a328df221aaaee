//! [`QuadHeap`]: a min-heap with four children per node, for the
//! replacement orders' candidate entries.
//!
//! Why not `std`'s binary heap: the candidate heap of an in-degree order
//! holds every key a member had (stale ones are skipped when popped), many
//! times the cache, and a pop walks its twenty-odd levels with a cache
//! miss each, a large share of a caching run. Four children
//! per node halve the levels, and the four sit in one or two cache lines.
//! The order of pops is the same as any min-heap's: the least entry first
//! (equal entries are equal, whichever comes first).

/// Children per node.
const D: usize = 4;

#[derive(Debug)]
pub struct QuadHeap<T> {
    items: Vec<T>,
}

impl<T> Default for QuadHeap<T> {
    fn default() -> Self {
        QuadHeap { items: Vec::new() }
    }
}

impl<T: Ord + Copy> QuadHeap<T> {
    pub fn capacity(&self) -> usize {
        self.items.capacity()
    }

    pub fn push(&mut self, x: T) {
        let mut i = self.items.len();
        self.items.push(x);
        while i > 0 {
            let parent = (i - 1) / D;
            if self.items[parent] <= x {
                break;
            }
            self.items[i] = self.items[parent];
            i = parent;
        }
        self.items[i] = x;
    }

    /// Removes and returns the least entry.
    pub fn pop(&mut self) -> Option<T> {
        let last = self.items.pop()?;
        let n = self.items.len();
        if n == 0 {
            return Some(last);
        }
        let top = self.items[0];
        // The last entry sinks from the root into the hole the least
        // child leaves.
        let mut i = 0;
        loop {
            let first = i * D + 1;
            if first >= n {
                break;
            }
            let end = (first + D).min(n);
            let mut least = first;
            for c in first + 1..end {
                if self.items[c] < self.items[least] {
                    least = c;
                }
            }
            if last <= self.items[least] {
                break;
            }
            self.items[i] = self.items[least];
            i = least;
        }
        self.items[i] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dvemc_engine::rng::Rng;

    /// Pops in the order `std`'s heap does, through pushes and pops mixed,
    /// with many equal keys.
    #[test]
    fn pops_what_the_std_heap_pops() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut rng = Rng::seeded(7);
        let mut ours = QuadHeap::default();
        let mut std = BinaryHeap::new();
        for step in 0..20_000u64 {
            if rng.below(3) < 2 || step < 100 {
                let x = (rng.below(50) as u64, rng.below(4) as u32);
                ours.push(x);
                std.push(Reverse(x));
            } else {
                assert_eq!(ours.pop(), std.pop().map(|r| r.0));
            }
        }
        while let Some(Reverse(x)) = std.pop() {
            assert_eq!(ours.pop(), Some(x));
        }
        assert_eq!(ours.pop(), None);
    }
}
