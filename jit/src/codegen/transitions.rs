//! Questions about a model's transition lists that the generator asks in
//! several places: the distinct source states of some transitions, and the
//! receivers a rendezvous sender could pair with.

use dve_frontend::ir::{Model, SyncKind, Transition};

/// The distinct source states of some transitions, in first-seen order.
pub(super) fn distinct_froms(m: &Model, ts: impl Iterator<Item = usize>) -> Vec<u16> {
    let mut out: Vec<u16> = Vec::new();
    for t in ts {
        let f = m.transitions[t].from;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The receivers that could pair with the rendezvous send `t` (same
/// channel, another process), in model order.
pub(super) fn partners(m: &Model, t: usize) -> impl Iterator<Item = &Transition> {
    let send = &m.transitions[t];
    let channel = match send.sync {
        SyncKind::Send { channel, .. } => Some(channel),
        _ => None,
    };
    m.transitions.iter().filter(move |r| {
        r.process != send.process && matches!(r.sync, SyncKind::Recv { channel: c, .. } if Some(c) == channel)
    })
}
