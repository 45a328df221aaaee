//! `system sync` (§7.9), shared by the interpreter and the JIT: every
//! process takes one enabled transition (sync parts ignored, buffered
//! transitions not considered), and the successors are the combinations,
//! enumerated with process 0 changing fastest. The two back ends differ only
//! in how they test a transition and apply its effects, which they pass in;
//! the enumeration, the composition and the error rules are this one
//! function, so that they cannot drift apart.

use crate::ir::Model;
use crate::model::{Label, SuccBuf, NONE};

/// Pushes the successors of `src` in a `system sync` model onto `out`.
///
/// `enabled(p, t)`: whether transition `t` of process `p` is enabled in
/// `src`, `None` if not, else whether taking it is an error (a run-time
/// error in its guard). `apply(t, part)`: applies `t`'s effects to `part`
/// (a copy of `src`), false on a run-time error.
///
/// A combination whose transitions write a global another one of them
/// writes, or that meets an error, gives the error state. The label names
/// the transitions of the first two processes.
pub fn successors(
    m: &Model,
    src: &[u8],
    out: &mut SuccBuf,
    mut enabled: impl FnMut(usize, usize) -> Option<bool>,
    mut apply: impl FnMut(usize, &mut [u8]) -> bool,
) {
    let n = m.processes.len();
    let mut choices: Vec<Vec<(usize, bool)>> = Vec::with_capacity(n);
    for (p, proc_) in m.processes.iter().enumerate() {
        let mine: Vec<(usize, bool)> = proc_
            .local
            .iter()
            .chain(&proc_.send)
            .chain(&proc_.recv)
            .filter_map(|&t| enabled(p, t).map(|err| (t, err)))
            .collect();
        if mine.is_empty() {
            return;
        }
        choices.push(mine);
    }
    let mut current = vec![0usize; n];
    let mut part = vec![0u8; src.len()];
    let mut written: Vec<usize> = Vec::new();
    loop {
        let label = Label {
            trans: choices[0][current[0]].0 as u32,
            partner: if n > 1 {
                choices[1][current[1]].0 as u32
            } else {
                NONE
            },
            prop: NONE,
        };
        let mut err = false;
        written.clear();
        let dst = out.push_copy(src, label, false);
        for p in 0..n {
            let (t, e) = choices[p][current[p]];
            let tr = &m.transitions[t];
            err |= e;
            if tr.global_writes.iter().any(|g| written.contains(g)) {
                err = true;
            }
            written.extend(&tr.global_writes);
            part.copy_from_slice(src);
            if err || !apply(t, &mut part) {
                err = true;
                break;
            }
            m.compose_sync_part(p, tr, &part, dst);
        }
        if err {
            let last = out.len() - 1;
            m.write_error_state(out.state_mut(last));
            out.raw_parts_mut().1[last].error = true;
        }
        // Odometer, process 0 fastest.
        let mut i = 0;
        loop {
            current[i] += 1;
            if current[i] < choices[i].len() {
                break;
            }
            current[i] = 0;
            i += 1;
            if i == n {
                return;
            }
        }
    }
}
