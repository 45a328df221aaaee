//! The choice of a stubborn set in one state, after LTSmin's guard-based
//! heuristic (`src/pins-lib/por/`): from each enabled group in turn as the
//! key (with the groups that may err and may be co-enabled with it), close
//! the set greedily, for a disabled group taking the false conjunct whose
//! necessary enabling set adds the fewest new groups (an enabled one counts
//! as a thousand); keep the closure with the fewest enabled groups.
//!
//! A model of many rendezvous has thousands of groups over a few dozen
//! conjuncts, so the work per state is kept to what a closure touches:
//! marks are stamped (never cleared), and a conjunct whose enabling set is
//! already in the closure answers a disabled group at once. And the choice
//! is a function of the enabled groups and of the truths of the conjuncts
//! it asks for, in the order it asks: it is cached in a tree per list of
//! enabled groups, whose nodes ask one conjunct each and branch on its
//! truth, so that a state answered before costs the conjuncts on its path.
//!
//! Where the choice is allowed to adapt ([`select`]'s `adapt`), a list of
//! enabled groups whose first [`HOPELESS`] choices all kept everything is
//! let through untried, but for one state in [`RETRY`]: on many models
//! most states cannot be cut (every closure takes in every enabled group),
//! and such states are told apart by their enabled groups. Letting a state
//! through keeps every successor, which every condition of the reduction
//! allows, so this changes only which states are cut, never soundness.

use std::cell::RefCell;

use dve_frontend::deps::Deps;
use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

use super::conjuncts::{GroupConjuncts, Quick};

/// What a new enabled group costs against a disabled one when choosing a
/// necessary enabling set: an enabled group brings its dependent groups and
/// cannot be cut, so a set that adds fewer enabled groups wins unless the
/// other adds a thousand fewer disabled ones.
const ENABLED_COST: usize = 1000;

/// Nodes of the cache per thread and reducer before it starts over (a
/// few MiB with its leaves, outside the search's memory accounting).
const CACHED: usize = 1 << 16;

/// A cache that answered fewer than one choice in this many since it
/// started over is not filled for [`REST`] times as many fresh choices:
/// where states rarely repeat their enabled groups and conjuncts' truths,
/// remembering a choice costs more than the cache gives back. It is a
/// memo: a state it would have answered gets the same set afresh. But the
/// rule that lets a list of enabled groups through untried ([`Tries`])
/// counts fresh choices only, so where the cache rests it may let other
/// states through (each a full expansion, which is always sound).
const USEFUL: u64 = 64;
const REST: u64 = 8;

/// A node of the cache: it asks conjunct `ask` and goes on to `next[truth
/// - 1]` (0: not seen yet); a leaf's `next[0]` is its choice in
/// `Scratch::choices`.
#[derive(Clone, Copy)]
struct Node {
    ask: u32,
    next: [u32; 3],
}

const LEAF: u32 = u32::MAX;
const NEW: u32 = u32::MAX - 1;

/// Choices made afresh under one list of enabled groups: how many, how many
/// of them cut, and how many states were let through untried since.
#[derive(Clone, Copy, Default)]
struct Tries {
    /// Bits of the list's hash (odd; 0: an empty entry).
    tag: u32,
    made: u16,
    cut: u16,
    passed: u16,
}

/// Choices under one list of enabled groups that keep everything before
/// its states are let through untried.
const HOPELESS: u16 = 2;

/// Entries of the table of lists' tries (160 KiB per thread).
const TRIED: usize = 1 << 14;

/// One state in this many of a hopeless list is tried again.
const RETRY: u16 = 16;

impl Tries {
    /// Whether to let the next state of this list through untried.
    fn pass(&mut self) -> bool {
        if self.cut > 0 || self.made < HOPELESS {
            return false;
        }
        self.passed = self.passed.wrapping_add(1);
        !self.passed.is_multiple_of(RETRY)
    }
}

/// Per-thread marks, valid where they equal the current stamp, and the
/// choices made so far for the reducer `owner`.
#[derive(Default)]
struct Scratch {
    owner: u64,
    /// Choices the cache answered and choices made afresh since it started
    /// over, and fresh choices left before it is filled again ([`USEFUL`]).
    hits: u64,
    misses: u64,
    resting: u64,
    /// The cache: the tree of each list of enabled groups, its nodes, and
    /// the choices at its leaves (the enabled groups the closure chosen
    /// keeps, sorted, or `None` for "keep everything").
    roots: FxHashMap<Box<[u32]>, u32>,
    /// Per list of enabled groups, how its choices went ([`Tries`]).
    /// A table of [`TRIED`] entries, each for the list whose hash it
    /// holds (another list of the same slot takes it over).
    tries: Vec<Tries>,
    nodes: Vec<Node>,
    choices: Vec<Option<Box<[u32]>>>,
    /// Per conjunct: the stamp of the state where the closure asked for it;
    /// and the conjuncts in the order asked.
    asked_at: Vec<u32>,
    asked: Vec<u32>,
    enabled_list: Vec<u32>,
    /// The back-off of [`skip`]: failed tries in a row, the current gap
    /// and what is left of it.
    failed: u32,
    skip: u32,
    skip_left: u32,
    stamp: u32,
    enabled: Vec<u32>,
    in_set: Vec<u32>,
    /// Per conjunct: the stamp of the state it was evaluated in, and what
    /// it gave (1 true, 2 false, 3 an error).
    truth_at: Vec<u32>,
    truth: Vec<u8>,
    /// Per conjunct: the closure that took in its enabling set; and the
    /// conjuncts the current closure took in, in order.
    added: Vec<u32>,
    added_list: Vec<u32>,

    members: Vec<u32>,
    best: Vec<u32>,
    /// Groups taken in and not yet closed: enabled ones are closed first,
    /// so that a closure bound to be too large is dropped early.
    stack: Vec<u32>,
    enabled_stack: Vec<u32>,
    /// Enabled groups closed but for the disabled groups they bring.
    pending: Vec<u32>,
    /// The enabled groups and the closure's groups as bits, for the cost
    /// of a long enabling set ([`Rows`]).
    enabled_bits: Vec<u64>,
    set_bits: Vec<u64>,
    /// The enabled groups, once each.
    distinct: Vec<u32>,
    /// The closure every key starts from ([`base`]).
    base: Base,
}

impl Scratch {
    fn next(&mut self) -> u32 {
        if self.stamp == u32::MAX {
            self.stamp = 0;
            for v in [
                &mut self.enabled,
                &mut self.in_set,
                &mut self.truth_at,
                &mut self.asked_at,
                &mut self.added,
            ] {
                v.fill(0);
            }
        }
        self.stamp += 1;
        self.stamp
    }

    fn forget(&mut self) {
        self.hits = 0;
        self.misses = 0;
        self.roots.clear();
        self.nodes.clear();
        self.choices.clear();
    }

    /// The truth of conjunct `c` in the state stamped `state`, evaluated
    /// once.
    fn truth(&mut self, state: u32, rel: &Relations, c: usize, src: &[u8]) -> u8 {
        if self.truth_at[c] != state {
            self.truth_at[c] = state;
            self.truth[c] = match rel.quick.holds(rel.deps, c, src) {
                Some(true) => 1,
                Some(false) => 2,
                None => 3,
            };
        }
        self.truth[c]
    }

    /// The index in `choices` of the cached choice for the enabled groups
    /// `enabled` in the state stamped `state`, if this state's path was
    /// seen.
    fn cached(&mut self, state: u32, rel: &Relations, src: &[u8], enabled: &[u32]) -> Option<usize> {
        let mut n = *self.roots.get(enabled)? as usize;
        loop {
            let node = self.nodes[n];
            match node.ask {
                LEAF => return Some(node.next[0] as usize),
                NEW => return None,
                c => {
                    let t = self.truth(state, rel, c as usize, src);
                    n = node.next[t as usize - 1] as usize;
                    if n == 0 {
                        return None;
                    }
                }
            }
        }
    }

    /// Caches `choice` under `enabled` and the conjuncts asked, with their
    /// truths.
    fn remember(&mut self, enabled: &[u32], choice: Option<Box<[u32]>>) {
        if self.nodes.len() >= CACHED {
            if self.hits * USEFUL < self.misses {
                self.resting = REST * self.misses;
            }
            self.forget();
        }
        if self.nodes.is_empty() {
            // Node 0 is never a child: `next` uses 0 for "none".
            self.nodes.push(Node {
                ask: NEW,
                next: [0; 3],
            });
        }
        let fresh = |nodes: &mut Vec<Node>| {
            nodes.push(Node {
                ask: NEW,
                next: [0; 3],
            });
            (nodes.len() - 1) as u32
        };
        let mut n = match self.roots.get(enabled) {
            Some(&n) => n,
            None => {
                let n = fresh(&mut self.nodes);
                self.roots.insert(enabled.into(), n);
                n
            }
        } as usize;
        for &c in &self.asked {
            if self.nodes[n].ask == NEW {
                self.nodes[n].ask = c;
            }
            debug_assert_eq!(self.nodes[n].ask, c);
            let t = self.truth[c as usize] as usize - 1;
            if self.nodes[n].next[t] == 0 {
                let m = fresh(&mut self.nodes);
                self.nodes[n].next[t] = m;
            }
            n = self.nodes[n].next[t] as usize;
        }
        self.nodes[n] = Node {
            ask: LEAF,
            next: [self.choices.len() as u32, 0, 0],
        };
        self.choices.push(choice);
    }

    fn fit(&mut self, groups: usize, conjuncts: usize) {
        self.enabled.resize(groups, 0);
        self.in_set.resize(groups, 0);
        self.truth_at.resize(conjuncts, 0);
        self.asked_at.resize(conjuncts, 0);
        self.truth.resize(conjuncts, 0);
        self.added.resize(conjuncts, 0);
        self.enabled_bits.resize(groups.div_ceil(64), 0);
        self.set_bits.resize(groups.div_ceil(64), 0);
    }
}

/// What the choice reads of the model and the checks.
pub struct Relations<'a> {
    pub deps: &'a Deps,
    /// Per group, the groups dependent with it that may be co-enabled.
    pub dna: &'a Relation,
    /// Per group, the groups that may err and may be co-enabled with it.
    pub err_partners: &'a [Vec<u32>],
    /// Per group, whether it may change what a check reads.
    pub visible: &'a [bool],
    /// The conjuncts' long necessary enabling sets as bits.
    pub enabling: &'a Rows,
    pub conjuncts: &'a GroupConjuncts,
    pub quick: &'a Quick,
}

/// The necessary enabling set of each conjunct as a row of bits over the
/// groups, kept for the sets longer than a row's words: the cost of such a
/// set against a closure is then a few masked popcounts instead of a walk
/// over hundreds of groups (a model of many rendezvous spends most of its
/// choice there).
pub struct Rows {
    words: usize,
    /// Per conjunct, the start of its row in `bits`, if it has one.
    start: Vec<Option<u32>>,
    bits: Vec<u64>,
}

impl Rows {
    /// No more than this many words in all (32 MiB).
    const MAX_WORDS: usize = 4 << 20;

    pub fn new(deps: &Deps) -> Rows {
        let words = deps.groups.len().div_ceil(64);
        let mut rows = Rows {
            words,
            start: vec![None; deps.conjuncts.len()],
            bits: Vec::new(),
        };
        for (c, conjunct) in deps.conjuncts.iter().enumerate() {
            if conjunct.enabling.len() <= words || rows.bits.len() + words > Self::MAX_WORDS {
                continue;
            }
            let at = rows.bits.len();
            rows.start[c] = Some(at as u32);
            rows.bits.resize(at + words, 0);
            let row = &mut rows.bits[at..];
            for &h in &conjunct.enabling {
                row[h / 64] |= 1 << (h % 64);
            }
        }
        rows
    }

    fn row(&self, c: usize) -> Option<&[u64]> {
        let at = self.start[c]? as usize;
        Some(&self.bits[at..at + self.words])
    }
}

/// A relation between groups: the related groups of each, and the same as a
/// bit matrix where that is small enough to keep.
pub struct Relation {
    pub lists: Vec<Vec<u32>>,
    words: usize,
    bits: Vec<u64>,
}

impl Relation {
    /// Above this many groups only the lists are kept (a matrix of 8 MiB).
    const MATRIX: usize = 8192;

    pub fn new(lists: Vec<Vec<u32>>) -> Relation {
        let n = lists.len();
        let (words, mut bits) = if n <= Self::MATRIX {
            (n.div_ceil(64), vec![0; n * n.div_ceil(64)])
        } else {
            (0, Vec::new())
        };
        if words > 0 {
            for (g, row) in lists.iter().enumerate() {
                for &h in row {
                    bits[g * words + h as usize / 64] |= 1 << (h % 64);
                }
            }
        }
        Relation { lists, words, bits }
    }

    /// The groups related to `g` as bits, where the matrix is kept.
    fn row(&self, g: usize) -> Option<&[u64]> {
        (self.words > 0).then(|| &self.bits[g * self.words..(g + 1) * self.words])
    }

    fn contains(&self, g: usize, h: usize) -> bool {
        if self.words > 0 {
            self.bits[g * self.words + h / 64] >> (h % 64) & 1 == 1
        } else {
            self.lists[g].binary_search(&(h as u32)).is_ok()
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Failed choices in a row before states are let through untried.
const PATIENCE: u32 = 8;

/// The most states let through untried between two tries.
const MAX_SKIP: u32 = 64;

fn with_scratch<T>(owner: u64, f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        if s.owner != owner {
            s.owner = owner;
            s.forget();
            s.resting = 0;
            s.tries.clear();
            s.tries.resize(TRIED, Tries::default());
            s.failed = 0;
            s.skip = 0;
            s.skip_left = 0;
        }
        f(s)
    })
}

/// Whether to let the next state through untried (every successor kept,
/// which is always sound): after [`PATIENCE`] states in a row where no set
/// cut anything, tries become rarer (every 2nd, 4th, ... up to
/// [`MAX_SKIP`]th state) until one cuts again. On a model the reduction
/// cannot cut, that makes the reduction cost next to nothing.
pub fn skip(owner: u64) -> bool {
    with_scratch(owner, |s| {
        if s.skip_left > 0 {
            s.skip_left -= 1;
            true
        } else {
            false
        }
    })
}

fn tried(s: &mut Scratch, cut: bool) {
    if cut {
        s.failed = 0;
        s.skip = 0;
    } else {
        s.failed += 1;
        if s.failed >= PATIENCE {
            s.skip = (s.skip * 2).clamp(1, MAX_SKIP);
            s.skip_left = s.skip;
        }
    }
}

/// Whether each successor of `src` is kept by a stubborn set, given the
/// group of each (`enabled`); `None` when every successor must be kept. A
/// closure that takes in an enabled `visible` group is dropped (so the set
/// chosen has none). With `adapt`, the outcome counts for the back-off of
/// [`skip`], and a state whose enabled groups never gave a cut may be let
/// through untried (the module documentation); without it the answer is a
/// function of the state.
pub fn select(owner: u64, adapt: bool, rel: &Relations, src: &[u8], enabled: &[usize]) -> Option<Vec<bool>> {
    with_scratch(owner, |s| {
        let keep = choose(s, adapt, rel, src, enabled);
        if adapt {
            tried(s, keep.as_ref().is_some_and(|k| k.contains(&false)));
        }
        keep
    })
}

fn choose(s: &mut Scratch, adapt: bool, rel: &Relations, src: &[u8], enabled: &[usize]) -> Option<Vec<bool>> {
    let deps = rel.deps;
    s.fit(deps.groups.len(), deps.conjuncts.len());
    let state = s.next();
    let mut key = std::mem::take(&mut s.enabled_list);
    key.clear();
    key.extend(enabled.iter().map(|&g| g as u32));
    let keep = match s.cached(state, rel, src, &key) {
        Some(leaf) => {
            s.hits += 1;
            s.choices[leaf].as_deref().map(|choice| {
                enabled
                    .iter()
                    .map(|&g| choice.binary_search(&(g as u32)).is_ok())
                    .collect()
            })
        }
        None => {
            let slot = adapt.then(|| slot_of(s, &key));
            if slot.is_some_and(|i| s.tries[i].pass()) {
                s.enabled_list = key;
                return None;
            }
            let keep = fresh(s, state, rel, src, enabled);
            if let Some(i) = slot {
                let (tries, cut) = (&mut s.tries[i], keep.as_ref().is_some_and(|k| k.contains(&false)));
                tries.made = tries.made.saturating_add(1);
                tries.cut = tries.cut.saturating_add(u16::from(cut));
            }
            s.misses += 1;
            if s.resting > 0 {
                s.resting -= 1;
            } else {
                // Only its enabled groups are ever looked up.
                let choice = keep.as_ref().map(|keep| {
                    let mut groups: Vec<u32> = enabled
                        .iter()
                        .zip(keep)
                        .filter(|&(_, &k)| k)
                        .map(|(&g, _)| g as u32)
                        .collect();
                    groups.sort_unstable();
                    groups.into_boxed_slice()
                });
                s.remember(&key, choice);
            }
            keep
        }
    };
    s.enabled_list = key;
    keep
}

/// The entry of the enabled groups `key` in the table of [`Tries`], fresh
/// if the list has none; a list whose slot another took starts over, which
/// may only make it tried more often.
fn slot_of(s: &mut Scratch, key: &[u32]) -> usize {
    let mut h = FxHasher::default();
    key.hash(&mut h);
    let hash = h.finish();
    let (slot, tag) = (hash as usize % TRIED, (hash >> 32) as u32 | 1);
    if s.tries[slot].tag != tag {
        s.tries[slot] = Tries {
            tag,
            ..Tries::default()
        };
    }
    slot
}

/// The choice in a state not in the cache; the conjuncts it asked for are
/// left in `s.asked`.
fn fresh(s: &mut Scratch, state: u32, rel: &Relations, src: &[u8], enabled: &[usize]) -> Option<Vec<bool>> {
    s.asked.clear();
    s.distinct.clear();
    s.enabled_bits.fill(0);
    for &g in enabled {
        if s.enabled[g] != state {
            s.enabled[g] = state;
            s.distinct.push(g as u32);
            s.enabled_bits[g / 64] |= 1 << (g % 64);
        }
    }
    let order = seeds(s, rel);
    if order.first().is_none_or(|&(_, least)| least >= s.distinct.len()) {
        return None;
    }
    closure(s, state, &order, rel, src, enabled)
}

/// How a closure ended.
enum Closed {
    /// Closed, with this many enabled groups.
    Complete(usize),
    /// It took in an enabled visible group, or as many enabled groups as the
    /// bound: another key may do better.
    Dropped,
    /// A disabled group has no conjunct known false: keep everything.
    Everything,
}

/// Takes group `h` into the closure stamped `set`.
#[inline(always)]
fn take(s: &mut Scratch, state: u32, set: u32, h: usize) {
    if s.in_set[h] != set {
        s.in_set[h] = set;
        s.set_bits[h / 64] |= 1 << (h % 64);
        s.members.push(h as u32);
        if s.enabled[h] == state {
            s.enabled_stack.push(h as u32);
        } else {
            s.stack.push(h as u32);
        }
    }
}

/// Takes the groups of `row` (bits over the groups) into the closure, in
/// increasing order as their lists have them: only the words' bits not in
/// the closure yet are visited.
fn take_row(s: &mut Scratch, state: u32, set: u32, row: &[u64]) {
    for (w, &word) in row.iter().enumerate() {
        let mut new = word & !s.set_bits[w];
        while new != 0 {
            take(s, state, set, w * 64 + new.trailing_zeros() as usize);
            new &= new - 1;
        }
    }
}

/// What every closure in a state starts from: the closure of the groups
/// that may err and may be co-enabled with some enabled group (buffers
/// kept in [`Scratch`] from state to state).
#[derive(Default)]
struct Base {
    members: Vec<u32>,
    bits: Vec<u64>,
    /// Conjuncts whose enabling sets it took in.
    added: Vec<u32>,
}

/// The closure from each seed of `order` in the state stamped `state`, whose
/// enabled groups and conjuncts' truths are in `s`; the best is left in
/// `s.best`.
///
/// Every key brings the groups that may err and may be co-enabled with it;
/// here each brings those of every enabled group instead, closed once as the
/// [`Base`] of all: a closure of a superset of what a key brings is still
/// stubborn, each key no longer closes them again, and the keys' own
/// enabling sets are then chosen against them, which on most models cuts
/// more than closing the key first.
fn closure(
    s: &mut Scratch,
    state: u32,
    order: &[(usize, usize)],
    rel: &Relations,
    src: &[u8],
    enabled: &[usize],
) -> Option<Vec<bool>> {
    let n_enabled = s.distinct.len();
    // The base's enabled groups, if there is a base.
    let base = base(s, state, rel, src)?;
    let mut best: Option<usize> = None;
    // A base with an enabled group is a stubborn set itself, with that group
    // as its key, and every closure holds it.
    if let Some(enabled) = base.filter(|&e| e > 0) {
        s.best.clone_from(&s.base.members);
        best = Some(enabled);
    }
    for &(seed, least) in order {
        let bound = best.unwrap_or(n_enabled);
        if least.max(base.unwrap_or(0)) >= bound {
            break;
        }
        let seed = s.distinct[seed] as usize;
        let set = s.next();
        s.members.clear();
        s.stack.clear();
        s.enabled_stack.clear();
        s.pending.clear();
        s.added_list.clear();
        let mut count = 0;
        match base {
            Some(enabled) => {
                for &h in &s.base.members {
                    s.in_set[h as usize] = set;
                }
                for &c in &s.base.added {
                    s.added[c as usize] = set;
                }
                s.members.extend_from_slice(&s.base.members);
                s.set_bits.copy_from_slice(&s.base.bits);
                count = enabled;
            }
            None => s.set_bits.fill(0),
        }
        take(s, state, set, seed);
        match close(s, state, set, count, bound, rel, src) {
            Closed::Complete(count) => {
                best = Some(count);
                std::mem::swap(&mut s.best, &mut s.members);
            }
            Closed::Dropped => {}
            Closed::Everything => return None,
        }
    }
    best?;
    // Mark the best closure's groups afresh: later seeds reused the marks.
    let kept = s.next();
    for &g in &s.best {
        s.in_set[g as usize] = kept;
    }
    Some(enabled.iter().map(|&g| s.in_set[g] == kept).collect())
}

/// The closure of the groups that may err and may be co-enabled with an
/// enabled group, left in `s.base`, and how many enabled groups it holds,
/// if there are such groups; `None` (outer) when it leaves no set that
/// could cut anything.
fn base(s: &mut Scratch, state: u32, rel: &Relations, src: &[u8]) -> Option<Option<usize>> {
    let set = s.next();
    s.members.clear();
    s.stack.clear();
    s.enabled_stack.clear();
    s.pending.clear();
    s.added_list.clear();
    s.set_bits.fill(0);
    for i in 0..s.distinct.len() {
        for &h in &rel.err_partners[s.distinct[i] as usize] {
            take(s, state, set, h as usize);
        }
    }
    if s.members.is_empty() {
        return Some(None);
    }
    match close(s, state, set, 0, s.distinct.len(), rel, src) {
        Closed::Complete(enabled) => {
            s.base.members.clone_from(&s.members);
            s.base.bits.clone_from(&s.set_bits);
            s.base.added.clone_from(&s.added_list);
            Some(Some(enabled))
        }
        Closed::Dropped | Closed::Everything => None,
    }
}

/// Closes the set stamped `set` from the groups on its stacks, `count`
/// enabled groups already closed, giving up at `bound` of them.
fn close(
    s: &mut Scratch,
    state: u32,
    set: u32,
    mut count: usize,
    bound: usize,
    rel: &Relations,
    src: &[u8],
) -> Closed {
    let Relations {
        deps,
        dna,
        visible,
        enabling,
        conjuncts,
        ..
    } = rel;
    let n_enabled = s.distinct.len();
    loop {
        if let Some(g) = s.enabled_stack.pop() {
            let g = g as usize;
            count += 1;
            if visible[g] || count >= bound {
                return Closed::Dropped;
            }
            // The enabled groups it brings now, the disabled ones once
            // no enabled group is left to close.
            for i in 0..n_enabled {
                let h = s.distinct[i];
                if s.in_set[h as usize] != set && dna.contains(g, h as usize) {
                    take(s, state, set, h as usize);
                }
            }
            s.pending.push(g as u32);
            continue;
        }
        if let Some(g) = s.pending.pop() {
            match dna.row(g as usize) {
                Some(row) => take_row(s, state, set, row),
                None => {
                    for &h in &dna.lists[g as usize] {
                        take(s, state, set, h as usize);
                    }
                }
            }
            continue;
        }
        let Some(g) = s.stack.pop() else {
            return Closed::Complete(count);
        };
        let g = g as usize;
        let mut choice: Option<(usize, usize)> = None;
        let mut answered = false;
        for &c in conjuncts.of(g) {
            let c = c as usize;
            if s.asked_at[c] != state {
                s.asked_at[c] = state;
                s.asked.push(c as u32);
                s.truth(state, rel, c, src);
            }
            if s.truth[c] != 2 {
                continue;
            }
            if s.added[c] == set {
                answered = true;
                break;
            }
            // A list is summed only while it may beat the best so far
            // (the first of the cheapest is kept either way).
            let bound = choice.map_or(usize::MAX, |(_, best)| best);
            let mut cost = 0;
            if let Some(row) = enabling.row(c) {
                let (mut new_enabled, mut new_disabled) = (0, 0);
                for ((&nes, &taken), &on) in row.iter().zip(&s.set_bits).zip(&s.enabled_bits) {
                    let new = nes & !taken;
                    new_enabled += (new & on).count_ones() as usize;
                    new_disabled += (new & !on).count_ones() as usize;
                }
                cost = new_enabled * ENABLED_COST + new_disabled;
            } else {
                for &h in &deps.conjuncts[c].enabling {
                    if s.in_set[h] != set {
                        cost += if s.enabled[h] == state { ENABLED_COST } else { 1 };
                        if cost >= bound {
                            break;
                        }
                    }
                }
            }
            if cost < bound {
                choice = Some((c, cost));
                if cost == 0 {
                    break;
                }
            }
        }
        match choice.filter(|_| !answered) {
            Some((c, _)) => {
                s.added[c] = set;
                s.added_list.push(c as u32);
                match enabling.row(c) {
                    Some(row) => take_row(s, state, set, row),
                    None => {
                        for &h in &deps.conjuncts[c].enabling {
                            take(s, state, set, h);
                        }
                    }
                }
            }
            // A false conjunct already answered for.
            None if answered => {}
            // A disabled group with no conjunct known false: keep
            // everything.
            None => return Closed::Everything,
        }
    }
}

/// The enabled groups worth a closure (indices into `s.distinct`), each with
/// the fewest enabled groups its closure can have, fewest first. A closure
/// holds every enabled group the seed reaches through dependent enabled
/// groups, so a seed that reaches a visible group is left out, and one that
/// reaches all of them cannot cut anything.
fn seeds(s: &Scratch, rel: &Relations) -> Vec<(usize, usize)> {
    let Relations { dna, visible, .. } = rel;
    let e = &s.distinct;
    let m = e.len();
    if m > 64 {
        return (0..m).map(|i| (i, 1)).collect();
    }
    let mut reach: Vec<u64> = (0..m)
        .map(|i| {
            (0..m).fold(1 << i, |r, j| {
                if dna.contains(e[i] as usize, e[j] as usize) {
                    r | 1 << j
                } else {
                    r
                }
            })
        })
        .collect();
    for k in 0..m {
        for i in 0..m {
            if reach[i] >> k & 1 == 1 {
                reach[i] |= reach[k];
            }
        }
    }
    let visible = (0..m).fold(0u64, |v, j| if visible[e[j] as usize] { v | 1 << j } else { v });
    let mut order: Vec<(usize, usize)> = (0..m)
        .filter(|&i| reach[i] & visible == 0)
        .map(|i| (i, reach[i].count_ones() as usize))
        .collect();
    order.sort_by_key(|&(_, least)| least);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_whose_choices_never_cut_is_tried_once_in_retry_states() {
        let mut t = Tries::default();
        // Too few choices to judge.
        assert!(!t.pass());
        t.made = HOPELESS;
        let passed = (0..4 * RETRY).filter(|_| t.pass()).count() as u16;
        assert_eq!(passed, 4 * (RETRY - 1));
    }

    #[test]
    fn a_list_that_cut_once_is_always_tried() {
        let mut t = Tries {
            made: 10 * HOPELESS,
            cut: 1,
            ..Tries::default()
        };
        assert!((0..2 * RETRY).all(|_| !t.pass()));
    }
}
