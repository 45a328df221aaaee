//! Negation normal form and the very weak alternating automaton (VWAA) of a
//! formula (Gastin and Oddoux, CAV 2001, section 3).
//!
//! The states are the temporal subformulas (and literals under `X`); a
//! transition is a conjunction of literals (the letter it reads) and a set
//! of states that must all accept the rest of the word. `U` states are the
//! ones a run must leave (their acceptance sets in the generalised
//! automaton).

use std::collections::{BTreeSet, HashMap};

use super::Label;
use crate::ltl::Ltl;

/// A formula in negation normal form; `F`, `G` and `W` are rewritten with
/// `U` and `R`, constants folded.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Nnf {
    True,
    False,
    Lit(usize, bool),
    And(Box<Nnf>, Box<Nnf>),
    Or(Box<Nnf>, Box<Nnf>),
    Next(Box<Nnf>),
    Until(Box<Nnf>, Box<Nnf>),
    Release(Box<Nnf>, Box<Nnf>),
}

// `and` and `or` fold constants and apply LTL2BA's rewritings that share
// an operand: (a R b) && (a R c) = a R (b && c), (a U c) && (b U c) =
// (a && b) U c, and dually for `or`.
fn and(a: Nnf, b: Nnf) -> Nnf {
    match (a, b) {
        (Nnf::False, _) | (_, Nnf::False) => Nnf::False,
        (Nnf::True, x) | (x, Nnf::True) => x,
        (a, b) if a == b => a,
        (Nnf::Release(a, b), Nnf::Release(c, d)) if a == c => release(*a, and(*b, *d)),
        (Nnf::Until(a, b), Nnf::Until(c, d)) if b == d => until(and(*a, *c), *b),
        (a, b) => Nnf::And(Box::new(a), Box::new(b)),
    }
}

fn or(a: Nnf, b: Nnf) -> Nnf {
    match (a, b) {
        (Nnf::True, _) | (_, Nnf::True) => Nnf::True,
        (Nnf::False, x) | (x, Nnf::False) => x,
        (a, b) if a == b => a,
        (Nnf::Until(a, b), Nnf::Until(c, d)) if a == c => until(*a, or(*b, *d)),
        (Nnf::Release(a, b), Nnf::Release(c, d)) if b == d => release(or(*a, *c), *b),
        (a, b) => Nnf::Or(Box::new(a), Box::new(b)),
    }
}

fn until(a: Nnf, b: Nnf) -> Nnf {
    match (a, b) {
        (_, Nnf::True) => Nnf::True,
        (_, Nnf::False) => Nnf::False,
        (Nnf::False, b) => b,
        (a, b) => Nnf::Until(Box::new(a), Box::new(b)),
    }
}

fn release(a: Nnf, b: Nnf) -> Nnf {
    match (a, b) {
        (_, Nnf::True) => Nnf::True,
        (_, Nnf::False) => Nnf::False,
        (Nnf::True, b) => b,
        (a, b) => Nnf::Release(Box::new(a), Box::new(b)),
    }
}

fn next(a: Nnf) -> Nnf {
    match a {
        Nnf::True | Nnf::False => a,
        a => Nnf::Next(Box::new(a)),
    }
}

/// `f` (or `!f` when `negate`) in negation normal form.
pub(super) fn nnf(f: &Ltl, negate: bool) -> Nnf {
    let n = |g: &Ltl| nnf(g, negate);
    let neg = |g: &Ltl| nnf(g, !negate);
    let pos = |g: &Ltl| nnf(g, false);
    let ngt = |g: &Ltl| nnf(g, true);
    match f {
        Ltl::True if negate => Nnf::False,
        Ltl::True => Nnf::True,
        Ltl::False if negate => Nnf::True,
        Ltl::False => Nnf::False,
        Ltl::Atom(a) => Nnf::Lit(*a, !negate),
        Ltl::Not(a) => neg(a),
        Ltl::And(a, b) if negate => or(n(a), n(b)),
        Ltl::And(a, b) => and(n(a), n(b)),
        Ltl::Or(a, b) if negate => and(n(a), n(b)),
        Ltl::Or(a, b) => or(n(a), n(b)),
        Ltl::Implies(a, b) if negate => and(pos(a), ngt(b)),
        Ltl::Implies(a, b) => or(ngt(a), pos(b)),
        Ltl::Equiv(a, b) if negate => or(and(pos(a), ngt(b)), and(ngt(a), pos(b))),
        Ltl::Equiv(a, b) => or(and(pos(a), pos(b)), and(ngt(a), ngt(b))),
        Ltl::Next(a) => next(n(a)),
        Ltl::Finally(a) if negate => release(Nnf::False, n(a)),
        Ltl::Finally(a) => until(Nnf::True, n(a)),
        Ltl::Globally(a) if negate => until(Nnf::True, n(a)),
        Ltl::Globally(a) => release(Nnf::False, n(a)),
        Ltl::Until(a, b) if negate => release(n(a), n(b)),
        Ltl::Until(a, b) => until(n(a), n(b)),
        Ltl::Release(a, b) if negate => until(n(a), n(b)),
        Ltl::Release(a, b) => release(n(a), n(b)),
        // a W b = b R (a || b)
        Ltl::WeakUntil(a, b) if negate => until(ngt(b), and(ngt(a), ngt(b))),
        Ltl::WeakUntil(a, b) => release(pos(b), or(pos(a), pos(b))),
    }
}

/// A set of VWAA states (a conjunction), sorted.
pub(super) type Conj = BTreeSet<usize>;

/// A transition: the letter's conjunction of literals and the states to go to.
pub(super) type Move = (Label, Conj);

pub(super) struct Vwaa {
    pub formulas: Vec<Nnf>,
    pub index: HashMap<Nnf, usize>,
    /// `delta[q]`, once computed.
    pub delta: Vec<Option<Vec<Move>>>,
    /// The initial conjunctions (the formula's disjunctive form over states).
    pub initial: Vec<Conj>,
}

impl Vwaa {
    pub fn new(f: &Nnf) -> Vwaa {
        let mut a = Vwaa {
            formulas: Vec::new(),
            index: HashMap::new(),
            delta: Vec::new(),
            initial: Vec::new(),
        };
        a.initial = a.bar(f);
        a
    }

    /// Whether state `q` is an `U` state (a run must not stay in it forever).
    pub fn is_until(&self, q: usize) -> bool {
        matches!(self.formulas[q], Nnf::Until(..))
    }

    fn state(&mut self, f: &Nnf) -> usize {
        if let Some(&q) = self.index.get(f) {
            return q;
        }
        self.formulas.push(f.clone());
        self.delta.push(None);
        self.index.insert(f.clone(), self.formulas.len() - 1);
        self.formulas.len() - 1
    }

    /// The formula as a disjunction of conjunctions of states.
    fn bar(&mut self, f: &Nnf) -> Vec<Conj> {
        match f {
            Nnf::True => vec![Conj::new()],
            Nnf::False => Vec::new(),
            Nnf::And(a, b) => {
                let (a, b) = (self.bar(a), self.bar(b));
                let mut out = Vec::new();
                for x in &a {
                    for y in &b {
                        out.push(x.union(y).copied().collect());
                    }
                }
                minimal_sets(out)
            }
            Nnf::Or(a, b) => {
                let mut out = self.bar(a);
                out.extend(self.bar(b));
                minimal_sets(out)
            }
            _ => vec![Conj::from([self.state(f)])],
        }
    }

    /// The transitions of state `q`.
    pub fn delta(&mut self, q: usize) -> Vec<Move> {
        if let Some(d) = &self.delta[q] {
            return d.clone();
        }
        let f = self.formulas[q].clone();
        let d = self.moves(&f);
        self.delta[q] = Some(d.clone());
        d
    }

    /// Δ of a formula (the transitions of a state, extended to `&&`, `||`).
    fn moves(&mut self, f: &Nnf) -> Vec<Move> {
        let d = match f {
            Nnf::True => vec![(Label::TRUE, Conj::new())],
            Nnf::False => Vec::new(),
            Nnf::Lit(a, positive) => vec![(Label::literal(*a, *positive), Conj::new())],
            Nnf::And(a, b) => {
                let a = self.moves(a);
                let b = self.moves(b);
                product(&a, &b)
            }
            Nnf::Or(a, b) => {
                let mut d = self.moves(a);
                d.extend(self.moves(b));
                d
            }
            Nnf::Next(a) => self.bar(a).into_iter().map(|e| (Label::TRUE, e)).collect(),
            Nnf::Until(a, b) => {
                let me = vec![(Label::TRUE, Conj::from([self.state(f)]))];
                let mut d = self.moves(b);
                let a = self.moves(a);
                d.extend(product(&a, &me));
                d
            }
            Nnf::Release(a, b) => {
                let me = vec![(Label::TRUE, Conj::from([self.state(f)]))];
                let (a, b) = (self.moves(a), self.moves(b));
                let mut d = product(&a, &b);
                d.extend(product(&b, &me));
                d
            }
        };
        simplify(d)
    }
}

/// Pairwise conjunction of two sets of moves (contradictory letters dropped).
pub(super) fn product(a: &[Move], b: &[Move]) -> Vec<Move> {
    let mut out = Vec::new();
    for (la, ea) in a {
        for (lb, eb) in b {
            if let Some(l) = la.and(*lb) {
                out.push((l, ea.union(eb).copied().collect()));
            }
        }
    }
    out
}

/// Drops duplicate moves and moves implied by another: `(l, e)` goes when
/// some `(l2, e2)` has `l => l2` and `e2 ⊆ e`.
pub(super) fn simplify(mut d: Vec<Move>) -> Vec<Move> {
    d.sort();
    d.dedup();
    let keep: Vec<bool> = (0..d.len())
        .map(|i| {
            !(0..d.len())
                .any(|j| j != i && d[i].0.implies(d[j].0) && d[j].1.is_subset(&d[i].1) && (d[i] != d[j]))
        })
        .collect();
    d.into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(m, _)| m)
        .collect()
}

fn minimal_sets(mut v: Vec<Conj>) -> Vec<Conj> {
    v.sort();
    v.dedup();
    let keep: Vec<bool> = (0..v.len())
        .map(|i| !(0..v.len()).any(|j| j != i && v[j].is_subset(&v[i])))
        .collect();
    v.into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(c, _)| c)
        .collect()
}
