//! Views of a model with a property process (an LTL formula's automaton,
//! or BEEM's property process): the system alone, and what the property
//! reads.

use dve_frontend::ir::{self, Expr};

/// `model` with its property process held in its initial state: its first
/// transition becomes a self-loop there with no guard and no effect, the
/// others are never enabled. The state vector is the product's, so that a
/// product state's system part is itself with the property's part reset.
pub fn system_view(model: &ir::Model) -> Option<ir::Model> {
    let p = model.property?;
    let mut out = model.clone();
    let init = out.processes[p].init;
    let mut first = true;
    for &t in &model.processes[p].all {
        let t = &mut out.transitions[t];
        if std::mem::take(&mut first) {
            t.from = init;
            t.to = init;
            t.guard = None;
            t.effects.clear();
        } else {
            t.guard = Some(Expr::Const(0));
        }
    }
    if first {
        None
    } else {
        Some(out)
    }
}

/// The guards of the property process of `model`: what makes a system
/// group visible.
pub fn property_guards(model: &ir::Model) -> Vec<Expr> {
    let Some(p) = model.property else {
        return Vec::new();
    };
    model.processes[p]
        .all
        .iter()
        .filter_map(|&t| model.transitions[t].guard.clone())
        .collect()
}
