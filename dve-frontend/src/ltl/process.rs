//! A Büchi automaton as a DVE property process, as BEEM's `.propN.dve`
//! files hold one: a state per automaton state, `accept` on the accepting
//! ones, a transition per edge guarded by its label (the atoms' own
//! expressions, so the product machinery of the JIT and the interpreter
//! runs it unchanged).

use super::{Buchi, Guard, Label, Property};
use crate::ast::{self, Accept, BinOp, Expr, ExprKind, Ident, Span, UnOp};

fn ident(name: String) -> Ident {
    Ident {
        name,
        span: Span::default(),
    }
}

/// The guard of `label`: its literals' atoms joined with `and`; `None` for
/// `true`. An atom holds when its value is not 0; DVE's `and` tests its
/// right operand with `> 0`, so a positive literal is written `(e) != 0`
/// for a negative value to count as true wherever the literal stands.
fn guard(label: Label, prop: &Property) -> Option<Expr> {
    label
        .literals()
        .into_iter()
        .map(|(a, positive)| {
            let e = prop.atoms[a].clone();
            let span = e.span;
            if positive {
                let zero = Expr {
                    kind: ExprKind::Num(0),
                    span,
                };
                Expr {
                    kind: ExprKind::Binary(BinOp::Ne, Box::new(e), Box::new(zero)),
                    span,
                }
            } else {
                Expr {
                    kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
                    span,
                }
            }
        })
        .reduce(|a, b| {
            let span = a.span.to(b.span);
            Expr {
                kind: ExprKind::Binary(BinOp::And, Box::new(a), Box::new(b)),
                span,
            }
        })
}

/// The guard of a transition: its disjuncts joined with `or`; `None` for
/// `true`.
fn guard_of(g: &Guard, prop: &Property) -> Option<Expr> {
    if g.is_true() {
        return None;
    }
    g.0.iter()
        .map(|&l| guard(l, prop).expect("a true disjunct makes the guard true"))
        .reduce(|a, b| {
            let span = a.span.to(b.span);
            Expr {
                kind: ExprKind::Binary(BinOp::Or, Box::new(a), Box::new(b)),
                span,
            }
        })
}

/// Adds `automaton` to `model` as its property process (`system async
/// property NAME;`), named `LTL_property` unless the model has a process
/// of that name. Returns each guarded transition's guard as traces show it
/// (see [`GuardTexts`]).
pub fn attach(model: &mut ast::Model, prop: &Property, automaton: &Buchi) -> GuardTexts {
    let mut name = "LTL_property".to_string();
    while model.processes.iter().any(|p| p.name.name == name) {
        name.push('_');
    }
    let state = |i: usize| ident(format!("q{i}"));
    let transitions = automaton
        .states
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.edges.iter().map(move |(g, to)| ast::Transition {
                from: Some(state(i)),
                to: state(*to),
                guard: guard_of(g, prop),
                sync: None,
                effects: Vec::new(),
                span: Span::default(),
            })
        })
        .collect();
    let accepting: Vec<Ident> = (0..automaton.states.len())
        .filter(|&i| automaton.states[i].accepting)
        .map(state)
        .collect();
    model.processes.push(ast::Process {
        name: ident(name.clone()),
        vars: Vec::new(),
        states: (0..automaton.states.len()).map(state).collect(),
        init: state(0),
        commit: Vec::new(),
        accept: if accepting.is_empty() {
            Accept::None
        } else {
            Accept::Buchi(accepting)
        },
        asserts: Vec::new(),
        transitions,
        span: Span::default(),
    });
    model.system.property = Some(ident(name));
    let names: Vec<String> = (0..prop.atoms.len()).map(|a| prop.atom_source(a)).collect();
    GuardTexts(
        automaton
            .states
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.edges
                    .iter()
                    .filter(|(g, _)| !g.is_true())
                    .map(|(g, to)| ((i, *to), g.text(&names)))
                    .collect::<Vec<_>>()
            })
            .collect(),
    )
}

/// The guards of an attached property process in the formula's terms
/// (`P.one && !P.two`, its atoms as the user wrote them) rather than
/// as the DVE the product runs (`(P.one != 0) and not P.two`), by source
/// and target state: the automaton has one transition per pair.
#[derive(Clone, Debug, Default)]
pub struct GuardTexts(Vec<((usize, usize), String)>);

impl GuardTexts {
    /// Sets the trace text (`body`) of `model`'s property transitions.
    pub fn apply(&self, model: &mut crate::ir::Model) {
        let Some(p) = model.property else { return };
        for t in model.transitions.iter_mut().filter(|t| t.process == p) {
            let key = (t.from as usize, t.to as usize);
            if let Some((_, text)) = self.0.iter().find(|(k, _)| *k == key) {
                t.body = format!("guard {text}");
            }
        }
    }
}
