//! The generalised Büchi automaton (GBA) of a VWAA (Gastin and Oddoux,
//! section 4): its states are sets of VWAA states, a transition takes one
//! move of each, and there is one acceptance set of transitions per `U`
//! state: those that leave it or take its exit.

use std::collections::HashMap;

use super::alternating::{product, Conj, Move, Vwaa};
use super::{Automaton, Edge, Label};

/// Builds the GBA of `vwaa` from its initial conjunctions. Acceptance sets
/// are the bits of `Edge::acc`, numbered as `until` lists them.
pub(super) fn gba(vwaa: &mut Vwaa) -> Result<(Automaton, usize), String> {
    // Every state's moves first, so the `U` states are all known.
    let mut q = 0;
    while q < vwaa.formulas.len() {
        vwaa.delta(q);
        q += 1;
    }
    let until: Vec<usize> = (0..vwaa.formulas.len()).filter(|&q| vwaa.is_until(q)).collect();
    if until.len() > 64 {
        return Err("the formula has more than 64 until subformulas".into());
    }
    let mut index: HashMap<Conj, usize> = HashMap::new();
    let mut edges: Vec<Vec<Edge>> = vec![Vec::new()];
    let initial = vwaa.initial.clone();
    let init_moves = if let [only] = &initial[..] {
        index.insert(only.clone(), 0);
        moves_of(vwaa, only)
    } else {
        // A fresh initial state taking the moves of each initial
        // conjunction (the formula is a disjunction of several).
        let mut m: Vec<Move> = Vec::new();
        for c in &initial {
            m.extend(moves_of(vwaa, c));
        }
        m
    };
    let mut todo = vec![(0usize, init_moves)];
    while let Some((s, moves)) = todo.pop() {
        let moves: Vec<(Label, Conj, u64)> = moves
            .into_iter()
            .map(|(l, e)| {
                let acc = acceptance(vwaa, &until, l, &e);
                (l, e, acc)
            })
            .collect();
        for (label, target, acc) in undominated(moves) {
            let t = match index.get(&target) {
                Some(&t) => t,
                None => {
                    edges.push(Vec::new());
                    let t = edges.len() - 1;
                    index.insert(target.clone(), t);
                    todo.push((t, moves_of(vwaa, &target)));
                    t
                }
            };
            edges[s].push(Edge { label, to: t, acc });
        }
    }
    let auto = Automaton {
        init: 0,
        accepting: vec![false; edges.len()],
        edges,
    };
    Ok((auto, until.len()))
}

/// The moves of a conjunction of VWAA states: one move of each.
fn moves_of(vwaa: &mut Vwaa, c: &Conj) -> Vec<Move> {
    let mut acc: Vec<Move> = vec![(Label::TRUE, Conj::new())];
    for &q in c {
        let d = vwaa.delta(q);
        acc = product(&acc, &d);
        acc.sort();
        acc.dedup();
    }
    acc
}

/// Drops the transitions another one makes useless (section 4 of the
/// paper): `(l, e, a)` goes when some other `(l2, e2, a2)` has `l => l2`,
/// `e2 ⊆ e` and `a ⊆ a2`.
fn undominated(mut d: Vec<(Label, Conj, u64)>) -> Vec<(Label, Conj, u64)> {
    d.sort();
    d.dedup();
    let dominated = |i: usize| {
        (0..d.len())
            .any(|j| j != i && d[i].0.implies(d[j].0) && d[j].1.is_subset(&d[i].1) && d[i].2 & !d[j].2 == 0)
    };
    let keep: Vec<bool> = (0..d.len()).map(|i| !dominated(i)).collect();
    d.into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(m, _)| m)
        .collect()
}

/// Bit `k` is set when the transition is in the acceptance set of the `k`th
/// `U` state `u`: `u` is not in the target, or the transition follows one
/// of `u`'s moves that does not stay in `u`.
fn acceptance(vwaa: &mut Vwaa, until: &[usize], label: Label, target: &Conj) -> u64 {
    let mut acc = 0u64;
    for (k, &u) in until.iter().enumerate() {
        let ok = !target.contains(&u)
            || vwaa
                .delta(u)
                .iter()
                .any(|(l, e)| label.implies(*l) && !e.contains(&u) && e.is_subset(target));
        if ok {
            acc |= 1 << k;
        }
    }
    acc
}
