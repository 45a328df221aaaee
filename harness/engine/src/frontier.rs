//! Frontiers: the open set `O` of the general state exploring algorithm
//! (`crate::algo::caching`), the only thing a search order changes (Sect. 5.1, "All these algorithms are
//! implemented using the generic template of Fig. 3 and parametrized by the
//! type of the O data structure").
//!
//! - DFS: a stack; BFS: a queue.
//! - BBFS(w) and Alt(b, d): a [`LevelStack`], a stack of arrays, one per
//!   search level, each holding at most `width(level)` states. BBFS(w) has
//!   width `w` at every level; Alt(b, d) has width ∞ for the children of
//!   states at levels `0..b` ("breadth-first on the b first levels"), width
//!   1 for the children of states at levels `b..b+d` (depth-first until depth
//!   `b + d`), and so on periodically. Width 1 gives a stack of single
//!   states (DFS), width ∞ a queue (BFS): hence DFS ≡ BBFS(1) ≡ Alt(0, ∞)
//!   and BFS ≡ BBFS(∞) ≡ Alt(∞, 0).
//! - Sweep-line: a priority queue on the progress value (lowest first),
//!   FIFO or LIFO among equal values.
//!
//! Protocol per iteration: `peek` gives the state `s` to expand; when `s`
//! has no event left after this iteration, `pop_current` removes it (before
//! a state it generated is `push`ed: for every structure here the result is
//! the same as pushing first, as in Fig. 3, and removing `s` afterwards).

use std::collections::{BTreeMap, VecDeque};

/// `None` = ∞.
pub type Bound = Option<u64>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    Fixed(Bound),
    /// Alt(b, d).
    Alt(Bound, Bound),
}

impl Width {
    /// Capacity of the array holding the states of `level` (≥ 1).
    pub fn at(self, level: u32) -> u64 {
        match self {
            Width::Fixed(None) => u64::MAX,
            Width::Fixed(Some(w)) => w.max(1),
            Width::Alt(b, d) => {
                // States of `level` are children of states of `level - 1`.
                let parent = level.saturating_sub(1) as u64;
                let breadth = match (b, d) {
                    (None, _) => true,
                    (Some(b), None) => parent < b,
                    (Some(b), Some(d)) => b + d == 0 || parent % (b + d) < b,
                };
                if breadth {
                    u64::MAX
                } else {
                    1
                }
            }
        }
    }
}

#[derive(Debug)]
struct Level {
    depth: u32,
    items: VecDeque<u32>,
}

/// A stack of per-level arrays (BBFS, Alt). When non-empty, the last array
/// collects the states generated at the next level and the one below it is
/// the current level, expanded front to back. A full next array is
/// descended into at once; an exhausted current array gives way to the next
/// one, or, if nothing was generated, to the partially expanded array of an
/// earlier level kept on the stack.
#[derive(Debug)]
pub struct LevelStack {
    width: Width,
    arrays: Vec<Level>,
    len: usize,
}

impl LevelStack {
    pub fn new(width: Width) -> LevelStack {
        LevelStack {
            width,
            arrays: Vec::new(),
            len: 0,
        }
    }

    fn normalize(&mut self) -> Option<u32> {
        loop {
            let n = self.arrays.len();
            if n < 2 {
                return None;
            }
            if let Some(&s) = self.arrays[n - 2].items.front() {
                return Some(s);
            }
            if !self.arrays[n - 1].items.is_empty() {
                // The current level is done: move to the next one.
                self.arrays.remove(n - 2);
                let d = self.arrays[n - 2].depth + 1;
                self.arrays.push(Level {
                    depth: d,
                    items: VecDeque::new(),
                });
            } else {
                // Nothing below: back to an earlier, partially expanded level.
                self.arrays.pop();
                self.arrays.pop();
                let d = self.arrays.last()?.depth + 1;
                self.arrays.push(Level {
                    depth: d,
                    items: VecDeque::new(),
                });
            }
        }
    }

    fn push(&mut self, slot: u32, depth: u32) {
        self.len += 1;
        if self.arrays.is_empty() {
            // The initial state.
            self.arrays.push(Level {
                depth,
                items: VecDeque::from([slot]),
            });
            self.arrays.push(Level {
                depth: depth + 1,
                items: VecDeque::new(),
            });
            return;
        }
        let next = self.arrays.last_mut().expect("next level");
        debug_assert_eq!(next.depth, depth, "generated state not on the next level");
        next.items.push_back(slot);
        if next.items.len() as u64 >= self.width.at(next.depth) {
            let d = next.depth + 1;
            self.arrays.push(Level {
                depth: d,
                items: VecDeque::new(),
            });
        }
    }

    fn pop_current(&mut self) {
        let n = self.arrays.len();
        self.arrays[n - 2].items.pop_front().expect("peeked state");
        self.len -= 1;
    }
}

/// Priority queue of the sweep-line method: lowest progress value first.
#[derive(Debug, Default)]
pub struct PriorityOpen {
    map: BTreeMap<Vec<i32>, VecDeque<u32>>,
    lifo: bool,
    len: usize,
}

/// The open set.
#[derive(Debug)]
pub enum OpenSet {
    Stack(Vec<u32>),
    Queue(VecDeque<u32>),
    Levels(LevelStack),
    Priority(PriorityOpen),
}

impl OpenSet {
    pub fn priority(lifo: bool) -> OpenSet {
        OpenSet::Priority(PriorityOpen {
            lifo,
            ..Default::default()
        })
    }

    /// The state to expand next (`choose from O`); `None` when `O = ∅`.
    #[inline]
    pub fn peek(&mut self) -> Option<u32> {
        match self {
            OpenSet::Stack(v) => v.last().copied(),
            OpenSet::Queue(q) => q.front().copied(),
            OpenSet::Levels(l) => l.normalize(),
            OpenSet::Priority(p) => {
                let (_, q) = p.map.first_key_value()?;
                if p.lifo {
                    q.back().copied()
                } else {
                    q.front().copied()
                }
            }
        }
    }

    /// Removes the state last returned by `peek`.
    #[inline]
    pub fn pop_current(&mut self) {
        match self {
            OpenSet::Stack(v) => {
                v.pop();
            }
            OpenSet::Queue(q) => {
                q.pop_front();
            }
            OpenSet::Levels(l) => l.pop_current(),
            OpenSet::Priority(p) => {
                let mut e = p.map.first_entry().expect("peeked state");
                if p.lifo {
                    e.get_mut().pop_back();
                } else {
                    e.get_mut().pop_front();
                }
                if e.get().is_empty() {
                    e.remove();
                }
                p.len -= 1;
            }
        }
    }

    /// Adds a state generated at search depth `depth` with progress `key`
    /// (only the sweep-line's priority queue looks at the key).
    #[inline]
    pub fn push(&mut self, slot: u32, depth: u32, key: &[i32]) {
        match self {
            OpenSet::Stack(v) => v.push(slot),
            OpenSet::Queue(q) => q.push_back(slot),
            OpenSet::Levels(l) => l.push(slot, depth),
            OpenSet::Priority(p) => {
                p.len += 1;
                match p.map.get_mut(key) {
                    Some(q) => q.push_back(slot),
                    None => {
                        p.map.insert(key.to_vec(), VecDeque::from([slot]));
                    }
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            OpenSet::Stack(v) => v.len(),
            OpenSet::Queue(q) => q.len(),
            OpenSet::Levels(l) => l.len,
            OpenSet::Priority(p) => p.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Smallest progress value in the priority queue (`α_min`).
    pub fn min_key(&self) -> Option<&Vec<i32>> {
        match self {
            OpenSet::Priority(p) => p.map.first_key_value().map(|(k, _)| k),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alt_widths() {
        let w = Width::Alt(Some(2), Some(1));
        // Children of levels 0, 1 breadth-first, of level 2 depth-first, ...
        let got: Vec<u64> = (1..=7).map(|l| w.at(l)).collect();
        let inf = u64::MAX;
        assert_eq!(got, [inf, inf, 1, inf, inf, 1, inf]);
        assert!((1..50).all(|l| Width::Alt(Some(0), None).at(l) == 1));
        assert!((1..50).all(|l| Width::Alt(None, Some(0)).at(l) == inf));
        assert!((1..50).all(|l| Width::Fixed(None).at(l) == inf));
    }

    /// Drives an open set over an explicit tree (children lists), one
    /// event per iteration, and returns the order states are generated in.
    fn drive(mut o: OpenSet, children: &[Vec<u32>]) -> Vec<u32> {
        let mut next = vec![0usize; children.len()];
        let mut depth = vec![0u32; children.len()];
        let mut order = vec![0];
        o.push(0, 0, &[]);
        while let Some(s) = o.peek() {
            let s = s as usize;
            let i = next[s];
            let exhausted = i + 1 >= children[s].len();
            if exhausted {
                o.pop_current();
            }
            if i < children[s].len() {
                next[s] += 1;
                let t = children[s][i];
                depth[t as usize] = depth[s] + 1;
                order.push(t);
                o.push(t, depth[t as usize], &[]);
            }
        }
        order
    }

    #[test]
    fn bbfs_and_alt_extremes() {
        // A complete ternary tree of depth 4.
        let mut children = vec![];
        let mut n = 1u32;
        let mut frontier = vec![0u32];
        for _ in 0..4 {
            let mut nf = vec![];
            for &s in &frontier {
                while children.len() <= s as usize {
                    children.push(vec![]);
                }
                children[s as usize] = (n..n + 3).collect();
                nf.extend(n..n + 3);
                n += 3;
            }
            frontier = nf;
        }
        children.resize(n as usize, vec![]);
        let dfs = drive(OpenSet::Stack(vec![]), &children);
        let bfs = drive(OpenSet::Queue(VecDeque::new()), &children);
        assert_ne!(dfs, bfs);
        let lv = |w| OpenSet::Levels(LevelStack::new(w));
        assert_eq!(drive(lv(Width::Fixed(Some(1))), &children), dfs);
        assert_eq!(drive(lv(Width::Alt(Some(0), None)), &children), dfs);
        assert_eq!(drive(lv(Width::Fixed(None)), &children), bfs);
        assert_eq!(drive(lv(Width::Alt(None, Some(0))), &children), bfs);
        // In a tree, every search order generates every node once.
        for w in [2, 3, 4, 7] {
            let mut o = drive(lv(Width::Fixed(Some(w))), &children);
            o.sort();
            assert_eq!(o, (0..n).collect::<Vec<_>>());
        }
    }
}
