//! Declarations: global and process-local names, variables and constants
//! with their initial values (evaluated at load time, in order), and
//! channels.

use crate::ast::{self, Ident, TypeName};
use crate::interp;
use crate::ir::{Buffer, Channel, Ty, Var};

use super::{Ctx, Scope, Sym};

fn ty_of(t: TypeName) -> Ty {
    match t {
        TypeName::Byte => Ty::Byte,
        TypeName::Int => Ty::Int,
    }
}

impl Ctx<'_> {
    fn declare_global(&mut self, id: &Ident, sym: Sym) {
        if self.globals.contains_key(&id.name) {
            self.error(id.span, format!("`{}` is declared twice", id.name));
        } else {
            self.globals.insert(id.name.clone(), sym);
        }
    }

    pub(super) fn declare_processes(&mut self) {
        for (i, p) in self.ast.processes.iter().enumerate() {
            if self.globals.contains_key(&p.name.name) {
                self.error(p.name.span, format!("`{}` is declared twice", p.name.name));
                continue;
            }
            self.globals.insert(p.name.name.clone(), Sym::Process);
            self.process_index.insert(p.name.name.clone(), i);
        }
    }

    /// Declares variables or constants, global (`process == None`) or local,
    /// allocating state space and evaluating initialisers in order.
    pub(super) fn declare_vars(&mut self, d: &ast::VarDecl, process: Option<usize>) {
        let ty = ty_of(d.ty);
        for decl in &d.declarators {
            let len = match decl.array_size {
                None => None,
                Some((n, span)) => {
                    // After an error the array is declared with one element,
                    // so that its uses raise no errors of their own.
                    if !(1..i32::MAX as i64).contains(&n) {
                        self.error(span, format!("array size {n} is out of range (1 to 2147483646)"));
                        Some(1)
                    } else if d.is_const && n as u64 * 4 > super::MAX_STATE_BYTES as u64 {
                        // Kept as 32-bit values beside the states.
                        self.error(
                            span,
                            format!(
                                "constant array size {n} is too large (at most {} elements)",
                                super::MAX_STATE_BYTES / 4
                            ),
                        );
                        Some(1)
                    } else if !d.is_const && !self.state_room(ty.width() as u64 * n as u64) {
                        self.error(
                            span,
                            format!(
                                "array size {n} is too large for the state vector: it would take {} bytes, more than the {} a state may have",
                                self.offset as u64 + ty.width() as u64 * n as u64,
                                super::MAX_STATE_BYTES
                            ),
                        );
                        Some(1)
                    } else {
                        Some(n as u32)
                    }
                }
            };
            let scope = Scope {
                process,
                initialiser: true,
            };
            // Evaluate the initial values (32-bit) before declaring the name,
            // so `byte a = a;` does not see itself.
            let values: Option<Vec<i32>> = match (&decl.init, len) {
                (None, None) => Some(vec![0]),
                (None, Some(n)) => Some(vec![0; n as usize]),
                (Some(ast::Initializer::Scalar(e)), None) => self.eval_init(e, scope, ty).map(|v| vec![v]),
                (Some(ast::Initializer::List(_, span)), None) => {
                    self.error(
                        *span,
                        format!(
                            "`{}` is not an array; it needs a single initial value",
                            decl.name.name
                        ),
                    );
                    None
                }
                (Some(ast::Initializer::Scalar(e)), Some(_)) => {
                    self.error(
                        e.span,
                        format!("array `{}` needs a list initialiser `{{...}}`", decl.name.name),
                    );
                    None
                }
                (Some(ast::Initializer::List(items, _)), Some(n)) => {
                    // Shorter lists are zero-filled, longer ones truncated (§3.2).
                    let mut vals = Vec::with_capacity(n as usize);
                    let mut ok = true;
                    for e in items.iter().take(n as usize) {
                        match self.eval_init(e, scope, ty) {
                            Some(v) => vals.push(v),
                            None => ok = false,
                        }
                    }
                    vals.resize(n as usize, 0);
                    ok.then_some(vals)
                }
            };
            let values = values.unwrap_or_else(|| vec![0; len.unwrap_or(1) as usize]);
            if d.is_const {
                let sym = match len {
                    None => Sym::Const(values[0]),
                    Some(_) => Sym::ConstArray(values),
                };
                self.bind(&decl.name, sym, process);
                continue;
            }
            let idx = self.vars.len();
            let name = match process {
                None => decl.name.name.clone(),
                Some(p) => format!("{}.{}", self.ast.processes[p].name.name, decl.name.name),
            };
            let global_index = if process.is_none() {
                Some(self.global_vars.len())
            } else {
                None
            };
            self.vars.push(Var {
                name,
                ty,
                offset: self.offset,
                array_len: len,
                process,
                global_index,
            });
            self.initialised.push(decl.init.is_some());
            if process.is_none() {
                self.global_vars.push(idx);
            }
            self.initial
                .resize(self.offset + ty.width() * len.unwrap_or(1) as usize, 0);
            for (i, v) in values.iter().enumerate() {
                let off = self.offset + i * ty.width();
                match ty {
                    Ty::Byte => self.initial[off] = *v as u8,
                    Ty::Int => self.initial[off..off + 2].copy_from_slice(&(*v as i16).to_le_bytes()),
                }
            }
            self.offset += ty.width() * len.unwrap_or(1) as usize;
            self.bind(&decl.name, Sym::Var(idx), process);
        }
    }

    fn bind(&mut self, id: &Ident, sym: Sym, process: Option<usize>) {
        match process {
            None => self.declare_global(id, sym),
            Some(p) => {
                if self.locals[p].contains_key(&id.name) {
                    self.error(
                        id.span,
                        format!(
                            "`{}` is declared twice in process `{}`",
                            id.name, self.ast.processes[p].name.name
                        ),
                    );
                } else {
                    self.locals[p].insert(id.name.clone(), sym);
                }
            }
        }
    }

    /// Evaluates an initialiser at load time; out-of-range values are errors.
    fn eval_init(&mut self, e: &ast::Expr, scope: Scope, ty: Ty) -> Option<i32> {
        let lowered = self.lower_expr(e, scope)?;
        match interp::eval(&lowered, &self.initial) {
            Ok(v) if ty.contains(v) => Some(v),
            Ok(v) => {
                self.error(
                    e.span,
                    format!(
                        "initial value {v} is out of range for {} ({} to {})",
                        ty.name(),
                        ty.min(),
                        ty.max()
                    ),
                );
                None
            }
            Err(_) => {
                self.error(
                    e.span,
                    "evaluating this initial value fails (division by zero or index out of range)",
                );
                None
            }
        }
    }

    pub(super) fn declare_channels(&mut self, c: &ast::ChannelDecl) {
        for (id, size) in &c.channels {
            let idx = self.channels.len();
            let (item_types, capacity) = match &c.types {
                None => (None, 0),
                Some(types) => {
                    let cap = match size {
                        Some((n, span)) if !(0..=u16::MAX as i64).contains(n) => {
                            self.error(
                                *span,
                                format!("channel buffer size {n} is out of range (0 to 65535)"),
                            );
                            0
                        }
                        Some((n, _)) => *n as u32,
                        None => 0,
                    };
                    (Some(types.iter().map(|t| ty_of(*t)).collect::<Vec<_>>()), cap)
                }
            };
            let arity = item_types.as_ref().map(|t| t.len());
            let buffer = if capacity > 0 {
                let types = item_types.as_ref().expect("buffered channels are typed");
                let mut item_offsets = Vec::new();
                let mut size = 0;
                for t in types {
                    item_offsets.push(size);
                    size += t.width();
                }
                // The offset is assigned after all global variables (§4).
                Some(Buffer {
                    capacity,
                    offset: 0,
                    item_size: size,
                    item_offsets,
                })
            } else {
                None
            };
            self.channels.push(Channel {
                name: id.name.clone(),
                arity: arity.unwrap_or(0),
                item_types,
                buffer,
            });
            self.channel_spans.push(id.span);
            self.channel_arity.push(arity);
            self.declare_global(id, Sym::Channel(idx));
        }
    }
}
