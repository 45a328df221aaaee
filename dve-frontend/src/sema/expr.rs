//! Names resolved in a scope (variables, constants, process states), and
//! the lowering of expressions and assignment targets to the IR, with the
//! checks that apply to them.

use crate::ast::{self, ExprKind, Ident, Span};
use crate::ir::{BinOp, Expr, Place, UnOp};

use super::fold::fold;
use super::{Ctx, Scope, Sym};

impl Ctx<'_> {
    pub(super) fn state_of(&self, p: usize, name: &str) -> Option<u16> {
        self.ast.processes[p]
            .states
            .iter()
            .position(|s| s.name == name)
            .map(|i| i as u16)
    }

    pub(super) fn lookup(&self, name: &str, process: Option<usize>) -> Option<&Sym> {
        process
            .and_then(|p| self.locals[p].get(name))
            .or_else(|| self.globals.get(name))
    }

    pub(super) fn lower_place(
        &mut self,
        id: &Ident,
        index: Option<&ast::Expr>,
        span: Span,
        scope: Scope,
    ) -> Option<Place> {
        let sym = self.lookup(&id.name, scope.process).cloned();
        let var = match sym {
            Some(Sym::Var(v)) => v,
            Some(Sym::Const(_)) | Some(Sym::ConstArray(_)) => {
                self.error(id.span, format!("cannot assign to constant `{}`", id.name));
                return None;
            }
            Some(_) => {
                self.error(id.span, format!("`{}` is not a variable", id.name));
                return None;
            }
            None => {
                self.error(id.span, format!("unknown variable `{}`", id.name));
                return None;
            }
        };
        let v = self.vars[var].clone();
        let index = match (index, v.array_len) {
            (None, None) => None,
            (Some(i), Some(len)) => Some((len, Box::new(self.lower_expr(i, scope)?))),
            // An array named without an index means its element 0, as in
            // DiVinE's evaluator (BEEM's `train-gate` relies on it).
            (None, Some(_)) => None,
            (Some(_), None) => {
                self.error(span, format!("`{}` is not an array", id.name));
                return None;
            }
        };
        Some(Place {
            var,
            ty: v.ty,
            offset: v.offset,
            index,
        })
    }

    /// Reads variable `var`; in an initialiser it must be initialised.
    fn read_var(&mut self, var: usize, span: Span, scope: Scope) -> Option<()> {
        if scope.initialiser && !self.initialised[var] {
            self.error(
                span,
                format!(
                    "initialiser reads `{}`, which has no initial value",
                    self.vars[var].name
                ),
            );
            return None;
        }
        Some(())
    }

    pub(super) fn lower_expr(&mut self, e: &ast::Expr, scope: Scope) -> Option<Expr> {
        let x = match &e.kind {
            ExprKind::Num(n) => Expr::Const(*n),
            ExprKind::Var(id) => self.lower_var(id, scope)?,
            ExprKind::Index(id, i) => self.lower_index(id, i, scope)?,
            ExprKind::InState(pid, sid) => self.lower_in_state(e, pid, sid, scope)?,
            ExprKind::Remote(pid, vid) | ExprKind::RemoteIndex(pid, vid, _) => {
                self.lower_remote(e, pid, vid, scope)?
            }
            ExprKind::Unary(op, a) => {
                let a = self.lower_expr(a, scope)?;
                fold(Expr::Unary(un_op(*op), Box::new(a)))
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.lower_expr(a, scope);
                let b = self.lower_expr(b, scope);
                fold(Expr::Binary(bin_op(*op), Box::new(a?), Box::new(b?)))
            }
        };
        Some(x)
    }

    /// A variable or constant by name.
    fn lower_var(&mut self, id: &Ident, scope: Scope) -> Option<Expr> {
        let x = match self.lookup(&id.name, scope.process).cloned() {
            Some(Sym::Var(v)) => {
                // An array without an index reads element 0 (see `lower_place`).
                self.read_var(v, id.span, scope)?;
                Expr::Load {
                    ty: self.vars[v].ty,
                    offset: self.vars[v].offset,
                }
            }
            Some(Sym::Const(c)) => Expr::Const(c),
            Some(Sym::ConstArray(_)) => {
                self.error(id.span, format!("array `{}` used without an index", id.name));
                return None;
            }
            Some(Sym::Channel(_)) | Some(Sym::Process) => {
                self.error(id.span, format!("`{}` is not a variable", id.name));
                return None;
            }
            None => {
                self.error(id.span, format!("unknown variable `{}`", id.name));
                return None;
            }
        };
        Some(x)
    }

    /// `id[i]`: an element of an array variable or constant array (the
    /// index is lowered first, so that its errors are reported too).
    fn lower_index(&mut self, id: &Ident, i: &ast::Expr, scope: Scope) -> Option<Expr> {
        let x = {
            let index = self.lower_expr(i, scope);
            match self.lookup(&id.name, scope.process).cloned() {
                Some(Sym::Var(v)) => {
                    let var = &self.vars[v];
                    let (ty, offset) = (var.ty, var.offset);
                    let Some(len) = var.array_len else {
                        self.error(id.span, format!("`{}` is not an array", id.name));
                        return None;
                    };
                    self.read_var(v, id.span, scope)?;
                    Expr::LoadIndex {
                        ty,
                        offset,
                        len,
                        index: Box::new(index?),
                    }
                }
                Some(Sym::ConstArray(values)) => Expr::ConstIndex {
                    values,
                    index: Box::new(index?),
                },
                Some(Sym::Const(_)) => {
                    self.error(id.span, format!("`{}` is not an array", id.name));
                    return None;
                }
                Some(_) => {
                    self.error(id.span, format!("`{}` is not a variable", id.name));
                    return None;
                }
                None => {
                    self.error(id.span, format!("unknown variable `{}`", id.name));
                    return None;
                }
            }
        };
        Some(x)
    }

    /// `P.s`: whether process `P` is in state `s`.
    fn lower_in_state(&mut self, e: &ast::Expr, pid: &Ident, sid: &Ident, scope: Scope) -> Option<Expr> {
        let x = {
            let Some(&p) = self.process_index.get(&pid.name) else {
                self.error(pid.span, format!("unknown process `{}`", pid.name));
                return None;
            };
            let Some(s) = self.state_of(p, &sid.name) else {
                self.error(
                    sid.span,
                    format!("process `{}` has no state `{}`", pid.name, sid.name),
                );
                return None;
            };
            if scope.initialiser {
                self.error(e.span, "an initialiser cannot test process states");
                return None;
            }
            // Forward references are fine: offsets of all processes are known.
            Expr::InState {
                offset: self.processes.get(p).map(|x| x.state_offset)?,
                state: s,
            }
        };
        Some(x)
    }

    /// `P->v` and `P->v[i]`: a variable of a process declared before this one.
    fn lower_remote(&mut self, e: &ast::Expr, pid: &Ident, vid: &Ident, scope: Scope) -> Option<Expr> {
        let x = {
            let Some(&p) = self.process_index.get(&pid.name) else {
                self.error(pid.span, format!("unknown process `{}`", pid.name));
                return None;
            };
            if let Some(cur) = scope.process {
                if p >= cur {
                    self.error(
                        pid.span,
                        format!(
                            "`{}->{}` reads a process that is not declared before this one",
                            pid.name, vid.name
                        ),
                    );
                    return None;
                }
            }
            let sym = self.locals[p].get(&vid.name).cloned();
            let index = match &e.kind {
                ExprKind::RemoteIndex(_, _, i) => Some(self.lower_expr(i, scope)?),
                _ => None,
            };
            match (sym, index) {
                (Some(Sym::Var(v)), idx) => {
                    let var = self.vars[v].clone();
                    self.read_var(v, vid.span, scope)?;
                    match (var.array_len, idx) {
                        (None, None) => Expr::Load {
                            ty: var.ty,
                            offset: var.offset,
                        },
                        (Some(len), Some(i)) => Expr::LoadIndex {
                            ty: var.ty,
                            offset: var.offset,
                            len,
                            index: Box::new(i),
                        },
                        (Some(_), None) => Expr::Load {
                            ty: var.ty,
                            offset: var.offset,
                        },
                        (None, Some(_)) => {
                            self.error(vid.span, format!("`{}` is not an array", vid.name));
                            return None;
                        }
                    }
                }
                (Some(Sym::Const(c)), None) => Expr::Const(c),
                (Some(Sym::ConstArray(values)), Some(i)) => Expr::ConstIndex {
                    values,
                    index: Box::new(i),
                },
                _ => {
                    self.error(
                        vid.span,
                        format!("process `{}` has no variable `{}`", pid.name, vid.name),
                    );
                    return None;
                }
            }
        };
        Some(x)
    }
}

fn un_op(op: ast::UnOp) -> UnOp {
    match op {
        ast::UnOp::Neg => UnOp::Neg,
        ast::UnOp::BitNot => UnOp::BitNot,
        ast::UnOp::Not => UnOp::Not,
    }
}

fn bin_op(op: ast::BinOp) -> BinOp {
    match op {
        ast::BinOp::Imply => BinOp::Imply,
        ast::BinOp::And => BinOp::And,
        ast::BinOp::Or => BinOp::Or,
        ast::BinOp::BitAnd => BinOp::BitAnd,
        ast::BinOp::BitOr => BinOp::BitOr,
        ast::BinOp::BitXor => BinOp::BitXor,
        ast::BinOp::Eq => BinOp::Eq,
        ast::BinOp::Ne => BinOp::Ne,
        ast::BinOp::Lt => BinOp::Lt,
        ast::BinOp::Le => BinOp::Le,
        ast::BinOp::Gt => BinOp::Gt,
        ast::BinOp::Ge => BinOp::Ge,
        ast::BinOp::Shl => BinOp::Shl,
        ast::BinOp::Shr => BinOp::Shr,
        ast::BinOp::Add => BinOp::Add,
        ast::BinOp::Sub => BinOp::Sub,
        ast::BinOp::Mul => BinOp::Mul,
        ast::BinOp::Div => BinOp::Div,
        ast::BinOp::Rem => BinOp::Rem,
    }
}
