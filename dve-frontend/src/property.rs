//! Views of a model with a property process (an LTL formula's automaton,
//! or BEEM's property process): the system alone, and what the property
//! reads.

use crate::ir::{Expr, Model, SyncKind};

/// `model` with its property process held in its initial state: its first
/// transition becomes a local self-loop there with no guard, no sync and
/// no effect, the others are never enabled. The state vector is the
/// product's, so that a product state's system part is itself with the
/// property's part reset; a state whose property is elsewhere has no
/// successor. `None` without a property process or with one that has no
/// transition.
///
/// The JIT gives the same successors from the product's code
/// (`jit::JitModel::property_held`), so that the system is not compiled
/// a second time.
pub fn system_view(model: &Model) -> Option<Model> {
    let p = model.property?;
    let &held = model.processes[p].all.first()?;
    let mut out = model.clone();
    let init = out.processes[p].init;
    for &t in &model.processes[p].all {
        let t = &mut out.transitions[t];
        if t.id == held {
            t.from = init;
            t.to = init;
            t.guard = None;
            t.sync = SyncKind::None;
            t.effects.clear();
            t.global_writes.clear();
        } else {
            t.guard = Some(Expr::Const(0));
        }
    }
    // A local loop belongs in no list of receives or sends, whatever its sync.
    let pr = &mut out.processes[p];
    for list in [&mut pr.recv, &mut pr.send, &mut pr.buf_recv, &mut pr.buf_send] {
        list.retain(|&t| t != held);
    }
    if !pr.local.contains(&held) {
        pr.local.insert(0, held);
    }
    Some(out)
}

/// The guards of the property process of `model`: what makes a system
/// group visible.
pub fn property_guards(model: &Model) -> Vec<Expr> {
    let Some(p) = model.property else {
        return Vec::new();
    };
    model.processes[p]
        .all
        .iter()
        .filter_map(|&t| model.transitions[t].guard.clone())
        .collect()
}
