//! LTL to Büchi automata, the LTL2BA construction of Gastin and Oddoux
//! ("Fast LTL to Büchi Automata Translation", CAV 2001): formula in
//! negation normal form -> very weak alternating automaton
//! ([`alternating`]) -> generalised Büchi automaton with acceptance on
//! transitions ([`generalised`]) -> Büchi automaton (degeneralised with a
//! counter, here). Each stage drops transitions another one makes useless,
//! and the generalised and final automata merge states with the same
//! outgoing transitions (the paper's simplifications).
//!
//! Transitions read the letter of the state they leave: a run over the
//! word `s0 s1 ...` takes from its initial state a transition whose label
//! holds in `s0`, and so on, which is how a property process reads the
//! model's state.

mod alternating;
mod generalised;
mod hoa;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::Ltl;

/// A conjunction of literals over atoms `0..64`: `pos` must hold, `neg`
/// must not. [`Label::TRUE`] is the empty conjunction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label {
    pub pos: u64,
    pub neg: u64,
}

impl Label {
    pub const TRUE: Label = Label { pos: 0, neg: 0 };

    pub fn literal(atom: usize, positive: bool) -> Label {
        if positive {
            Label {
                pos: 1 << atom,
                neg: 0,
            }
        } else {
            Label {
                pos: 0,
                neg: 1 << atom,
            }
        }
    }

    /// The conjunction, `None` when it is contradictory.
    pub fn and(self, o: Label) -> Option<Label> {
        let l = Label {
            pos: self.pos | o.pos,
            neg: self.neg | o.neg,
        };
        (l.pos & l.neg == 0).then_some(l)
    }

    /// Whether every letter satisfying `self` satisfies `o`.
    pub fn implies(self, o: Label) -> bool {
        o.pos & !self.pos == 0 && o.neg & !self.neg == 0
    }

    /// Whether the letter `atoms` (bit `n` = atom `n` holds) satisfies it.
    pub fn holds(self, atoms: u64) -> bool {
        atoms & self.pos == self.pos && atoms & self.neg == 0
    }

    /// The literals, atom by atom: `(atom, positive)`.
    pub fn literals(self) -> Vec<(usize, bool)> {
        (0..64)
            .filter(|&a| (self.pos | self.neg) >> a & 1 == 1)
            .map(|a| (a, self.pos >> a & 1 == 1))
            .collect()
    }
}

/// The condition of one transition: a disjunction of [`Label`]s, none
/// implying another (one edge per target, as SPIN's claims and HOA write
/// them, so a letter that satisfies two disjuncts takes the edge once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard(pub Vec<Label>);

impl Guard {
    /// Whether the letter `atoms` satisfies some disjunct.
    pub fn holds(&self, atoms: u64) -> bool {
        self.0.iter().any(|l| l.holds(atoms))
    }

    /// Whether every letter satisfies it.
    pub fn is_true(&self) -> bool {
        self.0.contains(&Label::TRUE)
    }
}

/// A Büchi automaton with accepting states. State 0 is initial; every
/// state is reachable and can reach an accepting cycle, except a lone
/// initial state when the language is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buchi {
    /// Number of atomic propositions the labels range over.
    pub atoms: usize,
    pub states: Vec<State>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub accepting: bool,
    /// Transitions, one per target: the guard (read in the state left) and
    /// the target.
    pub edges: Vec<(Guard, usize)>,
}

impl Buchi {
    pub fn transitions(&self) -> usize {
        self.states.iter().map(|s| s.edges.len()).sum()
    }
}

/// The most operators and atoms a formula may have in negation normal form.
const MAX_NNF_SIZE: u64 = 4096;

/// An upper bound of the formula's size in negation normal form.
fn nnf_size(f: &Ltl) -> u64 {
    match f {
        Ltl::True | Ltl::False | Ltl::Atom(_) => 1,
        Ltl::Not(a) | Ltl::Next(a) | Ltl::Finally(a) | Ltl::Globally(a) => 1 + nnf_size(a),
        Ltl::And(a, b) | Ltl::Or(a, b) | Ltl::Implies(a, b) | Ltl::Until(a, b) | Ltl::Release(a, b) => {
            1u64.saturating_add(nnf_size(a)).saturating_add(nnf_size(b))
        }
        Ltl::Equiv(a, b) | Ltl::WeakUntil(a, b) => {
            3u64.saturating_add(nnf_size(a).saturating_add(nnf_size(b)).saturating_mul(2))
        }
    }
}

/// The automaton of `f` (of `!f` when `negate`), over `atoms` propositions.
pub fn translate(f: &Ltl, atoms: usize, negate: bool) -> Result<Buchi, String> {
    if atoms > 64 {
        return Err(format!(
            "the formula has {atoms} atomic propositions; at most 64 are supported"
        ));
    }
    // `<->` copies both sides into negation normal form: a chain of them
    // doubles the formula at each link.
    let size = nnf_size(f);
    if size > MAX_NNF_SIZE {
        return Err(format!(
            "the formula is too large once `<->` and `W` are expanded ({size} operators and atoms; at most {MAX_NNF_SIZE})"
        ));
    }
    let nnf = alternating::nnf(f, negate);
    let mut vwaa = alternating::Vwaa::new(&nnf);
    let (g, sets) = generalised::gba(&mut vwaa)?;
    let g = merge_equivalent(prune_dominated(g));
    // The counter may start at either end, and an accepting state may count
    // or ignore the sets of the transition leaving it; all four give the
    // same language, and the smallest automaton is kept.
    let best = [
        (0, Reset::Count),
        (sets, Reset::Count),
        (0, Reset::Ignore),
        (sets, Reset::Ignore),
    ]
    .into_iter()
    .map(|(start, reset)| {
        let b = merge_equivalent(transient_not_accepting(prune_dominated(degeneralise(
            &g, sets, start, reset,
        ))));
        let live = live_states(&b);
        renumber(&b, |s| live[s]).into_buchi(atoms)
    })
    .min_by_key(|b| (b.states.len(), b.transitions()));
    Ok(best.expect("two candidates"))
}

/// The automaton the stages share: `edges[s]`, an acceptance mask per
/// edge (generalised) or accepting states (plain).
#[derive(Clone, Debug)]
struct Automaton {
    init: usize,
    edges: Vec<Vec<Edge>>,
    accepting: Vec<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Edge {
    label: Label,
    to: usize,
    acc: u64,
}

/// What the transition leaving an accepting state does to the counter.
#[derive(Clone, Copy, Debug)]
enum Reset {
    /// Its acceptance sets count towards the next accepting visit (the paper).
    Count,
    /// The count starts after it. On an accepting run every set recurs, so
    /// it is seen again after the restart and no word changes its
    /// acceptance; and with every target `(q, 0)`, edges to one target
    /// merge (SPIN's claim for `G F a` has its accepting state's one `true`
    /// edge so).
    Ignore,
}

/// Counter degeneralisation (section 5 of the paper): state `(q, i)` has
/// seen the acceptance sets before `i` since the last accepting visit;
/// `(q, sets)` is accepting and starts counting again. The run starts at
/// `(init, start)`: 0 as in the paper, or `sets` as LTL2BA does (one
/// accepting visit more or less at the start changes no word's acceptance).
fn degeneralise(g: &Automaton, sets: usize, start: usize, reset: Reset) -> Automaton {
    if sets == 0 {
        return Automaton {
            init: g.init,
            edges: g.edges.clone(),
            accepting: vec![true; g.edges.len()],
        };
    }
    let next = |i: usize, acc: u64| {
        if i == sets && matches!(reset, Reset::Ignore) {
            return 0;
        }
        let mut k = if i == sets { 0 } else { i };
        while k < sets && acc >> k & 1 == 1 {
            k += 1;
        }
        k
    };
    let mut index: HashMap<(usize, usize), usize> = HashMap::from([((g.init, start), 0)]);
    let mut todo = vec![(g.init, start)];
    let mut edges = vec![Vec::new()];
    let mut accepting = vec![start == sets];
    while let Some((q, i)) = todo.pop() {
        let s = index[&(q, i)];
        for e in &g.edges[q] {
            let key = (e.to, next(i, e.acc));
            let t = *index.entry(key).or_insert_with(|| {
                edges.push(Vec::new());
                accepting.push(key.1 == sets);
                todo.push(key);
                edges.len() - 1
            });
            edges[s].push(Edge {
                label: e.label,
                to: t,
                acc: 0,
            });
        }
    }
    Automaton {
        init: 0,
        edges,
        accepting,
    }
}

/// Drops an edge when another from the same state to the same target has a
/// weaker label and every acceptance set it has.
fn prune_dominated(mut a: Automaton) -> Automaton {
    for es in &mut a.edges {
        es.sort();
        es.dedup();
        let keep: Vec<bool> = (0..es.len())
            .map(|i| {
                !(0..es.len()).any(|j| {
                    j != i
                        && es[i].to == es[j].to
                        && es[i].label.implies(es[j].label)
                        && es[i].acc & !es[j].acc == 0
                })
            })
            .collect();
        let mut k = keep.iter();
        es.retain(|_| *k.next().unwrap_or(&true));
    }
    a
}

/// Merges bisimilar states: the coarsest partition, refined from the
/// accepting flag, in which two states of a class have the same labels and
/// acceptance sets to the same classes. The quotient accepts the same words.
fn merge_equivalent(a: Automaton) -> Automaton {
    let n = a.edges.len();
    let mut class: Vec<usize> = a.accepting.iter().map(|&x| usize::from(x)).collect();
    let mut count = 0;
    loop {
        let mut ids: HashMap<(usize, Vec<Edge>), usize> = HashMap::new();
        let next: Vec<usize> = (0..n)
            .map(|s| {
                let mut sig: Vec<Edge> = a.edges[s]
                    .iter()
                    .map(|e| Edge {
                        to: class[e.to],
                        ..*e
                    })
                    .collect();
                sig.sort();
                sig.dedup();
                let k = ids.len();
                *ids.entry((class[s], sig)).or_insert(k)
            })
            .collect();
        let stable = ids.len() == count;
        count = ids.len();
        class = next;
        if stable {
            break;
        }
    }
    // The quotient: each class keeps its first state's edges, renamed.
    let mut first = vec![usize::MAX; count];
    for s in 0..n {
        if first[class[s]] == usize::MAX {
            first[class[s]] = s;
        }
    }
    let quotient = Automaton {
        init: class[a.init],
        edges: first
            .iter()
            .map(|&s| {
                a.edges[s]
                    .iter()
                    .map(|e| Edge {
                        to: class[e.to],
                        ..*e
                    })
                    .collect()
            })
            .collect(),
        accepting: first.iter().map(|&s| a.accepting[s]).collect(),
    };
    prune_dominated(renumber(&quotient, |_| true))
}

/// A state on no cycle is visited at most once by a run, so whether it
/// accepts does not matter: it is made non-accepting, which lets it merge
/// with its non-accepting twin.
fn transient_not_accepting(mut a: Automaton) -> Automaton {
    for s in 0..a.edges.len() {
        if a.accepting[s] && !reachable(&a, s)[s] {
            a.accepting[s] = false;
        }
    }
    a
}

/// The states reachable from `from` in one step or more.
fn reachable(a: &Automaton, from: usize) -> Vec<bool> {
    let mut seen = vec![false; a.edges.len()];
    let mut todo: Vec<usize> = a.edges[from].iter().map(|e| e.to).collect();
    while let Some(s) = todo.pop() {
        if !std::mem::replace(&mut seen[s], true) {
            todo.extend(a.edges[s].iter().map(|e| e.to));
        }
    }
    seen
}

/// States that can reach an accepting state lying on a cycle.
fn live_states(a: &Automaton) -> Vec<bool> {
    let n = a.edges.len();
    let reach = |from: usize| reachable(a, from);
    let cyclic: Vec<usize> = (0..n).filter(|&s| a.accepting[s] && reach(s)[s]).collect();
    (0..n)
        .map(|s| {
            let r = reach(s);
            cyclic.iter().any(|&c| c == s || r[c])
        })
        .collect()
}

/// The states `keep` selects that are reachable from the initial state
/// through kept states, in breadth-first order (the initial one is always
/// kept, as state 0).
fn renumber(a: &Automaton, keep: impl Fn(usize) -> bool) -> Automaton {
    let mut order = vec![a.init];
    let mut new: HashMap<usize, usize> = HashMap::from([(a.init, 0)]);
    let mut i = 0;
    while i < order.len() {
        for e in &a.edges[order[i]] {
            if keep(e.to) && !new.contains_key(&e.to) {
                new.insert(e.to, order.len());
                order.push(e.to);
            }
        }
        i += 1;
    }
    let edges = order
        .iter()
        .map(|&s| {
            a.edges[s]
                .iter()
                .filter_map(|e| new.get(&e.to).map(|&to| Edge { to, ..*e }))
                .collect()
        })
        .collect();
    Automaton {
        init: 0,
        edges,
        accepting: order.iter().map(|&s| a.accepting[s]).collect(),
    }
}

impl Automaton {
    fn into_buchi(self, atoms: usize) -> Buchi {
        let states = self
            .edges
            .into_iter()
            .zip(self.accepting)
            .map(|(es, accepting)| {
                // `prune_dominated` left no label implied by another to the
                // same target: the labels to a target are the disjuncts.
                let mut by_target: BTreeMap<usize, BTreeSet<Label>> = BTreeMap::new();
                for e in es {
                    by_target.entry(e.to).or_default().insert(e.label);
                }
                let edges = by_target
                    .into_iter()
                    .map(|(to, labels)| (Guard(labels.into_iter().collect()), to))
                    .collect();
                State { accepting, edges }
            })
            .collect();
        Buchi { atoms, states }
    }
}
