//! The order DiVinE numbers processes in, which fixes the layout and the
//! successor order.

use std::collections::HashMap;

use crate::ast::{self, ExprKind};

/// DiVinE numbers processes in the order they are first mentioned: a
/// process header, or a `P.s` test naming a process declared later (its
/// parser creates a placeholder). That numbering, not the declaration order,
/// decides the layout and the successor order; BEEM's DFS figures for
/// `brp2` are reproduced only with it.
pub(super) fn in_divine_order(m: &ast::Model) -> ast::Model {
    let mut order: Vec<usize> = Vec::with_capacity(m.processes.len());
    let index: HashMap<&str, usize> = m
        .processes
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.name.as_str(), i))
        .collect();
    for (i, p) in m.processes.iter().enumerate() {
        if !order.contains(&i) {
            order.push(i);
        }
        let mut mentions: Vec<(usize, usize)> = Vec::new();
        let mut visit = |e: &ast::Expr| collect_state_tests(e, &index, &mut mentions);
        for v in &p.vars {
            for d in &v.declarators {
                match &d.init {
                    Some(ast::Initializer::Scalar(e)) => visit(e),
                    Some(ast::Initializer::List(es, _)) => es.iter().for_each(&mut visit),
                    None => {}
                }
            }
        }
        for (_, e) in &p.asserts {
            visit(e);
        }
        for t in &p.transitions {
            if let Some(g) = &t.guard {
                visit(g);
            }
            if let Some(sy) = &t.sync {
                sy.values.iter().for_each(&mut visit);
            }
            for a in &t.effects {
                if let Some(i) = &a.target.index {
                    visit(i);
                }
                visit(&a.value);
            }
        }
        mentions.sort();
        for (_, q) in mentions {
            if !order.contains(&q) {
                order.push(q);
            }
        }
    }
    let mut out = m.clone();
    out.processes = order.iter().map(|&i| m.processes[i].clone()).collect();
    out
}

fn collect_state_tests(e: &ast::Expr, index: &HashMap<&str, usize>, out: &mut Vec<(usize, usize)>) {
    match &e.kind {
        ExprKind::InState(p, _) => {
            if let Some(&q) = index.get(p.name.as_str()) {
                out.push((p.span.start, q));
            }
        }
        ExprKind::Index(_, a) | ExprKind::RemoteIndex(_, _, a) | ExprKind::Unary(_, a) => {
            collect_state_tests(a, index, out)
        }
        ExprKind::Binary(_, a, b) => {
            collect_state_tests(a, index, out);
            collect_state_tests(b, index, out);
        }
        ExprKind::Num(_) | ExprKind::Var(_) | ExprKind::Remote(..) => {}
    }
}
