//! The checks run before any code is generated: every static offset lies
//! inside the state vector and the IR has the shape the generator relies
//! on (generated code does no check of its own on them).

use dve_frontend::ir::{Expr, Model, Place, SyncKind};

use crate::JitError;

/// Whether every static offset `e` reads lies inside a state of `len` bytes.
pub(super) fn expr_ok(e: &Expr, len: usize) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Load { ty, offset } => offset + ty.width() <= len,
        Expr::LoadIndex {
            ty,
            offset,
            len: n,
            index,
        } => offset + ty.width() * *n as usize <= len && expr_ok(index, len),
        Expr::ConstIndex { index, .. } => expr_ok(index, len),
        Expr::InState { offset, .. } => offset + 2 <= len,
        Expr::Unary(_, a) => expr_ok(a, len),
        Expr::Binary(_, a, b) => expr_ok(a, len) && expr_ok(b, len),
    }
}

/// Checks that every static offset the code will use lies inside the state
/// vector, and declines what the interpreter itself cannot run.
pub(super) fn validate(m: &Model) -> Result<(), JitError> {
    let len = m.state_len;
    let bad = |what: &str| {
        Err(JitError::InvalidModel(format!(
            "{what} lies outside the state vector"
        )))
    };
    let place_ok = |p: &Place| match &p.index {
        None => p.offset + p.ty.width() <= len,
        Some((n, idx)) => p.offset + p.ty.width() * *n as usize <= len && expr_ok(idx, len),
    };
    if m.processes.is_empty() {
        return Err(JitError::InvalidModel("no process".into()));
    }
    if m.initial.len() != len {
        return bad("the initial state");
    }
    for p in &m.processes {
        if p.state_offset + 2 > len {
            return bad("a control state");
        }
    }
    if let Some(pp) = m.property {
        if pp >= m.processes.len() {
            return Err(JitError::InvalidModel("property process index".into()));
        }
    }
    for ch in &m.channels {
        if let Some(b) = &ch.buffer {
            let Some(types) = &ch.item_types else {
                return Err(JitError::Unsupported {
                    feature: "untyped buffered channels".into(),
                });
            };
            if types.len() != b.item_offsets.len()
                || b.item_offsets
                    .iter()
                    .zip(types)
                    .any(|(o, t)| o + t.width() > b.item_size)
            {
                return Err(JitError::InvalidModel(format!(
                    "layout of buffered channel {}",
                    ch.name
                )));
            }
            if b.offset + 2 + b.capacity as usize * b.item_size > len {
                return bad("a channel buffer");
            }
        }
    }
    // Every transition list holds transitions of its process and kind (the
    // code generator relies on it).
    for (pi, p) in m.processes.iter().enumerate() {
        type KindCheck = fn(&SyncKind) -> bool;
        let lists: [(&[usize], KindCheck); 5] = [
            (&p.local, |k| matches!(k, SyncKind::None)),
            (&p.recv, |k| matches!(k, SyncKind::Recv { .. })),
            (&p.send, |k| matches!(k, SyncKind::Send { .. })),
            (&p.buf_recv, |k| matches!(k, SyncKind::BufRecv { .. })),
            (&p.buf_send, |k| matches!(k, SyncKind::BufSend { .. })),
        ];
        for (list, kind_ok) in lists {
            for &t in list {
                match m.transitions.get(t) {
                    Some(tr) if tr.process == pi && kind_ok(&tr.sync) => {}
                    _ => {
                        return Err(JitError::InvalidModel(format!(
                            "transition lists of process {}",
                            p.name
                        )))
                    }
                }
            }
        }
    }
    for (i, t) in m.transitions.iter().enumerate() {
        if t.id != i {
            return Err(JitError::InvalidModel(format!("transition {i} has id {}", t.id)));
        }
        if t.control_offset + 2 > len || t.process >= m.processes.len() {
            return bad("a control state");
        }
        if let Some(g) = &t.guard {
            if !expr_ok(g, len) {
                return bad("a guard variable");
            }
        }
        for a in &t.effects {
            if !expr_ok(&a.value, len) || !place_ok(&a.place) {
                return bad("an effect variable");
            }
        }
        match &t.sync {
            SyncKind::None => {}
            SyncKind::Send { channel, values } | SyncKind::BufSend { channel, values } => {
                if *channel >= m.channels.len() || values.iter().any(|v| !expr_ok(v, len)) {
                    return bad("a sent value");
                }
            }
            SyncKind::Recv { channel, targets } | SyncKind::BufRecv { channel, targets } => {
                if *channel >= m.channels.len() || targets.iter().any(|p| !place_ok(p)) {
                    return bad("a receive target");
                }
            }
        }
        match &t.sync {
            SyncKind::BufSend {
                channel,
                values: items,
            } => check_buf(m, *channel, items.len())?,
            SyncKind::BufRecv { channel, targets } => check_buf(m, *channel, targets.len())?,
            _ => {}
        }
    }
    Ok(())
}

fn check_buf(m: &Model, channel: usize, n: usize) -> Result<(), JitError> {
    match &m.channels[channel].buffer {
        Some(b) if n <= b.item_offsets.len() => Ok(()),
        Some(_) => Err(JitError::InvalidModel(format!(
            "item count on channel {}",
            m.channels[channel].name
        ))),
        // The interpreter turns this into a run-time error; keep it simple.
        None => Err(JitError::Unsupported {
            feature: "buffered operation on an unbuffered channel".into(),
        }),
    }
}
