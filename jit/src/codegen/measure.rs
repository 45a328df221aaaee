//! Static facts about IR expressions, computed without generating code:
//! their size in nodes, whether their evaluation can fail, and an interval
//! holding their values (which lets stores skip range checks).

use dve_frontend::ir::{BinOp, Expr, Ty, UnOp};

/// Size of an expression in nodes, or `None` when its evaluation can raise
/// an error (division, remainder, indexing).
pub(super) fn safe_size(e: &Expr) -> Option<usize> {
    Some(match e {
        Expr::Const(_) | Expr::Load { .. } | Expr::InState { .. } => 1,
        Expr::LoadIndex { .. } | Expr::ConstIndex { .. } => return None,
        Expr::Unary(_, a) => 1 + safe_size(a)?,
        Expr::Binary(BinOp::Div | BinOp::Rem, ..) => return None,
        Expr::Binary(_, a, c) => 1 + safe_size(a)? + safe_size(c)?,
    })
}

/// Whether a short-circuit right operand may be evaluated unconditionally.
pub(super) fn eager_ok(r: &Expr) -> bool {
    safe_size(r).is_some_and(|n| n <= EAGER_LIMIT)
}

/// Number of nodes of an expression.
pub(super) fn expr_size(e: &Expr) -> usize {
    match e {
        Expr::Const(_) | Expr::Load { .. } | Expr::InState { .. } => 1,
        Expr::LoadIndex { index, .. } | Expr::ConstIndex { index, .. } => 1 + expr_size(index),
        Expr::Unary(_, a) => 1 + expr_size(a),
        Expr::Binary(_, a, c) => 1 + expr_size(a) + expr_size(c),
    }
}

/// Largest right operand of `and` / `or` / `imply` evaluated without a branch.
const EAGER_LIMIT: usize = 16;

/// Values of a variable of type `ty`.
pub(super) fn ty_range(ty: Ty) -> (i64, i64) {
    match ty {
        Ty::Byte => (0, 255),
        Ty::Int => (-32768, 32767),
    }
}

pub(super) fn fits(r: (i64, i64), within: (i64, i64)) -> bool {
    within.0 <= r.0 && r.1 <= within.1
}

/// An interval holding every value `e` can take (evaluation is in wrapping
/// 32-bit arithmetic: an operation whose exact result could leave the i32
/// range gets the whole range).
pub(super) fn value_range(e: &Expr) -> (i64, i64) {
    const ALL: (i64, i64) = (i32::MIN as i64, i32::MAX as i64);
    let exact = |lo: i64, hi: i64| if fits((lo, hi), ALL) { (lo, hi) } else { ALL };
    match e {
        Expr::Const(c) => (*c as i64, *c as i64),
        Expr::Load { ty, .. } | Expr::LoadIndex { ty, .. } => ty_range(*ty),
        Expr::ConstIndex { values, .. } => (
            values.iter().copied().min().unwrap_or(0) as i64,
            values.iter().copied().max().unwrap_or(0) as i64,
        ),
        Expr::InState { .. } | Expr::Unary(UnOp::Not, _) => (0, 1),
        Expr::Unary(UnOp::Neg, a) => {
            let (lo, hi) = value_range(a);
            exact(-hi, -lo)
        }
        Expr::Unary(UnOp::BitNot, a) => {
            let (lo, hi) = value_range(a);
            (-hi - 1, -lo - 1)
        }
        Expr::Binary(op, a, c) => {
            let ((al, ah), (cl, ch)) = (value_range(a), value_range(c));
            match op {
                BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::And
                | BinOp::Or
                | BinOp::Imply => (0, 1),
                BinOp::Add => exact(al + cl, ah + ch),
                BinOp::Sub => exact(al - ch, ah - cl),
                BinOp::Mul => {
                    let p = [al * cl, al * ch, ah * cl, ah * ch];
                    exact(*p.iter().min().expect("4"), *p.iter().max().expect("4"))
                }
                BinOp::BitAnd if cl >= 0 => (0, ch),
                BinOp::BitAnd if al >= 0 => (0, ah),
                _ => ALL,
            }
        }
    }
}
