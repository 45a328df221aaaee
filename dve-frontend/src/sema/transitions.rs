//! The lowering of each process's assertions and transitions: guards,
//! effects and synchronisations, with the property process's restrictions.

use crate::ast::{self, ExprKind, Ident, SyncDir};
use crate::ir::{self, Expr, SyncKind};

use super::{Ctx, Scope, Sym};

impl Ctx<'_> {
    pub(super) fn lower_transitions(&mut self) -> Vec<ir::Transition> {
        let mut out = Vec::new();
        for (p, ap) in self.ast.processes.iter().enumerate() {
            let scope = Scope {
                process: Some(p),
                initialiser: false,
            };
            let is_property = self.property == Some(p);
            for (sid, e) in &ap.asserts {
                let Some(s) = self.state_of(p, &sid.name) else {
                    self.error(
                        sid.span,
                        format!("process `{}` has no state `{}`", ap.name.name, sid.name),
                    );
                    continue;
                };
                if let Some(x) = self.lower_expr(e, scope) {
                    let text = format!("{}: assert in {}: {e}", ap.name.name, sid.name);
                    self.processes[p].asserts.push((s, x, text));
                }
            }
            let mut prev_from: Option<&Ident> = None;
            for t in &ap.transitions {
                let from_id = match &t.from {
                    Some(f) => f,
                    None => match prev_from {
                        Some(f) => f,
                        None => {
                            self.error(t.span, "a short transition `-> s` needs a previous transition");
                            continue;
                        }
                    },
                };
                prev_from = Some(from_id);
                let from = self.state_of(p, &from_id.name);
                let to = self.state_of(p, &t.to.name);
                for (id, r) in [(from_id, from), (&t.to, to)] {
                    if r.is_none() {
                        self.error(
                            id.span,
                            format!("process `{}` has no state `{}`", ap.name.name, id.name),
                        );
                    }
                }
                let guard = t.guard.as_ref().map(|g| self.lower_expr(g, scope));
                let mut effects = Vec::new();
                let mut global_writes = Vec::new();
                let mut ok = true;
                for a in &t.effects {
                    let place =
                        self.lower_place(&a.target.name, a.target.index.as_deref(), a.target.span, scope);
                    let value = self.lower_expr(&a.value, scope);
                    match (place, value) {
                        (Some(place), Some(value)) => {
                            if let Some(g) = self.vars[place.var].global_index {
                                if is_property {
                                    self.error(a.span, "the property process cannot assign global variables");
                                }
                                if !global_writes.contains(&g) {
                                    global_writes.push(g);
                                }
                            }
                            effects.push(ir::Assign { place, value });
                        }
                        _ => ok = false,
                    }
                }
                let sync = match &t.sync {
                    None => Some(SyncKind::None),
                    Some(s) => self.lower_sync(s, scope, is_property),
                };
                let (Some(from), Some(to), Some(sync), true) = (from, to, sync, ok) else {
                    continue;
                };
                let guard = match guard {
                    None => None,
                    Some(Some(g)) => Some(g),
                    Some(None) => continue,
                };
                let id = out.len();
                let suffix = match &t.sync {
                    None => String::new(),
                    Some(s) => format!(
                        " {}{}",
                        s.channel.name,
                        if s.dir == SyncDir::Send { "!" } else { "?" }
                    ),
                };
                let proc_ = &mut self.processes[p];
                let text = format!(
                    "{}: {} -> {}{}",
                    ap.name.name, proc_.states[from as usize], proc_.states[to as usize], suffix
                );
                match &sync {
                    SyncKind::None => proc_.local.push(id),
                    SyncKind::Send { .. } => proc_.send.push(id),
                    SyncKind::Recv { .. } => proc_.recv.push(id),
                    SyncKind::BufSend { .. } => proc_.buf_send.push(id),
                    SyncKind::BufRecv { .. } => proc_.buf_recv.push(id),
                }
                proc_.all.push(id);
                out.push(ir::Transition {
                    id,
                    process: p,
                    control_offset: proc_.state_offset,
                    from,
                    to,
                    guard,
                    sync,
                    effects,
                    global_writes,
                    text,
                    body: t.body_text(),
                });
            }
        }
        out
    }

    fn lower_sync(&mut self, s: &ast::Sync, scope: Scope, is_property: bool) -> Option<SyncKind> {
        let ch = match self.globals.get(&s.channel.name) {
            Some(Sym::Channel(c)) => *c,
            Some(_) => {
                self.error(s.channel.span, format!("`{}` is not a channel", s.channel.name));
                return None;
            }
            None => {
                self.error(s.channel.span, format!("unknown channel `{}`", s.channel.name));
                return None;
            }
        };
        let n = s.values.len();
        match self.channel_arity[ch] {
            None => {
                self.channel_arity[ch] = Some(n);
                self.channels[ch].arity = n;
            }
            Some(a) if a != n => {
                self.error(
                    s.span,
                    format!(
                        "channel `{}` carries {} value(s) but this sync passes {}",
                        s.channel.name, a, n
                    ),
                );
                return None;
            }
            Some(_) => {}
        }
        let buffered = self.channels[ch].buffer.is_some();
        if is_property {
            if s.dir == SyncDir::Send {
                self.error(s.span, "the property process cannot send (`!`) on a channel");
                return None;
            }
            if n > 0 || self.channels[ch].item_types.is_some() {
                self.error(
                    s.span,
                    "the property process may only receive without values on an untyped channel",
                );
                return None;
            }
        }
        match s.dir {
            SyncDir::Send => {
                let values: Option<Vec<Expr>> = s.values.iter().map(|e| self.lower_expr(e, scope)).collect();
                let values = values?;
                Some(if buffered {
                    SyncKind::BufSend { channel: ch, values }
                } else {
                    SyncKind::Send { channel: ch, values }
                })
            }
            SyncDir::Recv => {
                let mut targets = Vec::new();
                for e in &s.values {
                    let place = match &e.kind {
                        ExprKind::Var(id) => self.lower_place(id, None, e.span, scope),
                        ExprKind::Index(id, i) => self.lower_place(id, Some(i), e.span, scope),
                        _ => {
                            self.error(e.span, "a receive target must be a variable or an array element");
                            None
                        }
                    };
                    targets.push(place?);
                }
                Some(if buffered {
                    SyncKind::BufRecv { channel: ch, targets }
                } else {
                    SyncKind::Recv { channel: ch, targets }
                })
            }
        }
    }
}
