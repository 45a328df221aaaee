//! The rest of the state vector's layout (§4): channel buffers after the
//! global variables, then per process its control state and locals, with
//! states, `init`, `commit` and `accept` resolved; and the `system` line.

use std::collections::HashMap;

use crate::ast::{self, Ident};
use crate::ir;

use super::Ctx;

impl Ctx<'_> {
    /// Buffered channels follow all global variables, in declaration order.
    pub(super) fn place_buffers(&mut self) {
        for ch in &mut self.channels {
            if let Some(b) = &mut ch.buffer {
                b.offset = self.offset;
                self.offset += 2 + b.capacity as usize * b.item_size;
            }
        }
        self.initial.resize(self.offset, 0);
    }

    /// Per process: its control state, then its locals (§4); states, init,
    /// commit and accept resolved.
    pub(super) fn layout_processes(&mut self) {
        for (p, ap) in self.ast.processes.iter().enumerate() {
            let state_offset = self.offset;
            self.offset += 2;
            self.initial.resize(self.offset, 0);
            let mut states = Vec::new();
            let mut index = HashMap::new();
            for s in &ap.states {
                if index.contains_key(&s.name) {
                    self.error(
                        s.span,
                        format!(
                            "state `{}` is declared twice in process `{}`",
                            s.name, ap.name.name
                        ),
                    );
                    continue;
                }
                index.insert(s.name.clone(), states.len() as u16);
                states.push(s.name.clone());
            }
            if states.len() > u16::MAX as usize {
                self.error(ap.name.span, "too many states in one process (at most 65535)");
            }
            for v in &ap.vars {
                self.declare_vars(v, Some(p));
            }
            for s in &ap.states {
                if self.locals[p].contains_key(&s.name) {
                    self.error(
                        s.span,
                        format!(
                            "`{}` is declared twice in process `{}` (a state and a variable)",
                            s.name, ap.name.name
                        ),
                    );
                }
            }
            let lookup = |cx: &mut Ctx, id: &Ident| -> Option<u16> {
                let r = index.get(&id.name).copied();
                if r.is_none() {
                    cx.error(
                        id.span,
                        format!("process `{}` has no state `{}`", ap.name.name, id.name),
                    );
                }
                r
            };
            let init = lookup(self, &ap.init).unwrap_or(0);
            self.initial[state_offset..state_offset + 2].copy_from_slice(&init.to_le_bytes());
            let mut committed = vec![false; states.len()];
            for c in &ap.commit {
                if let Some(s) = lookup(self, c) {
                    committed[s as usize] = true;
                }
            }
            let mut accepting = vec![false; states.len()];
            let accept_ids: Vec<&Ident> = match &ap.accept {
                ast::Accept::None => Vec::new(),
                ast::Accept::Buchi(ids) => ids.iter().collect(),
                ast::Accept::Sets { sets, .. } => sets.iter().flatten().collect(),
                ast::Accept::Pairs { pairs, .. } => {
                    pairs.iter().flat_map(|(a, b)| a.iter().chain(b)).collect()
                }
            };
            for a in accept_ids {
                if let Some(s) = lookup(self, a) {
                    // Only plain Büchi acceptance is used; for the generalised
                    // forms the names are checked but mark nothing.
                    if matches!(ap.accept, ast::Accept::Buchi(_)) {
                        accepting[s as usize] = true;
                    }
                }
            }
            self.processes.push(ir::Process {
                name: ap.name.name.clone(),
                states,
                init,
                committed,
                accepting,
                state_offset,
                range: (state_offset, self.offset - state_offset),
                local: Vec::new(),
                recv: Vec::new(),
                send: Vec::new(),
                buf_recv: Vec::new(),
                buf_send: Vec::new(),
                all: Vec::new(),
                asserts: Vec::new(),
            });
        }
    }

    pub(super) fn resolve_system(&mut self) {
        let sys = &self.ast.system;
        if let Some(pid) = &sys.property {
            match self.process_index.get(&pid.name) {
                Some(&p) => self.property = Some(p),
                None => self.error(
                    pid.span,
                    format!("property process `{}` is not declared", pid.name),
                ),
            }
        }
        let system_processes = self.ast.processes.len() - self.property.is_some() as usize;
        if system_processes == 0 {
            self.error(
                sys.span,
                "the model needs at least one process besides the property process",
            );
        }
    }
}
