//! Constant folding of lowered expressions, exact to the run-time semantics
//! (an operation that would fail stays in place).

use crate::interp;
use crate::ir::{BinOp, Expr, UnOp};

/// Folds an operator whose operands are constants. An operation that would
/// raise a run-time error (division by zero) is left in place: it is an
/// error only if it is evaluated.
pub(super) fn fold(e: Expr) -> Expr {
    match &e {
        Expr::Unary(_, a) if matches!(**a, Expr::Const(_)) => match interp::eval(&e, &[]) {
            Ok(v) => Expr::Const(v),
            Err(_) => e,
        },
        Expr::Binary(_, a, b) if matches!(**a, Expr::Const(_)) && matches!(**b, Expr::Const(_)) => {
            match interp::eval(&e, &[]) {
                Ok(v) => Expr::Const(v),
                Err(_) => e,
            }
        }
        Expr::Binary(BinOp::And | BinOp::Or | BinOp::Imply, ..) => fold_logic(e),
        _ => e,
    }
}

/// Simplifies `and` / `or` / `imply` with one constant operand, following
/// their short-circuit semantics exactly (the left operand is tested with
/// `!= 0`, the right one with `> 0`; an operand that is evaluated keeps its
/// run-time errors). Generated BEEM models (plc) have guards of tens of
/// thousands of nodes that mostly fold away like this, e.g.
/// `(10==8) && (px[6]==0) && ...`.
fn fold_logic(e: Expr) -> Expr {
    let Expr::Binary(op, a, b) = e else { return e };
    match (op, &*a, &*b) {
        // Constant left operand: decides alone or hands over to the right.
        (BinOp::And, Expr::Const(0), _) => Expr::Const(0),
        (BinOp::Or, Expr::Const(x), _) if *x != 0 => Expr::Const(1),
        (BinOp::Imply, Expr::Const(0), _) => Expr::Const(1),
        (_, Expr::Const(_), _) => positive(*b),
        // Constant right operand: the left one is still evaluated.
        (BinOp::And, _, Expr::Const(y)) if *y > 0 => nonzero(*a),
        (BinOp::Or, _, Expr::Const(y)) if *y <= 0 => nonzero(*a),
        (BinOp::Imply, _, Expr::Const(y)) if *y <= 0 => Expr::Binary(BinOp::Eq, a, Box::new(Expr::Const(0))),
        (BinOp::And, _, Expr::Const(_)) if cannot_fail(&a) => Expr::Const(0),
        (BinOp::Or | BinOp::Imply, _, Expr::Const(_)) if cannot_fail(&a) => Expr::Const(1),
        _ => Expr::Binary(op, a, b),
    }
}

/// Whether `e`'s value is always 0 or 1 (comparisons and logical operators).
fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Const(c) => *c == 0 || *c == 1,
        Expr::InState { .. } | Expr::Unary(UnOp::Not, _) => true,
        Expr::Binary(op, ..) => matches!(
            op,
            BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::And
                | BinOp::Or
                | BinOp::Imply
        ),
        _ => false,
    }
}

/// `e > 0` as 0/1.
fn positive(e: Expr) -> Expr {
    match e {
        Expr::Const(c) => Expr::Const((c > 0) as i32),
        e if is_boolean(&e) => e,
        e => Expr::Binary(BinOp::Gt, Box::new(e), Box::new(Expr::Const(0))),
    }
}

/// `e != 0` as 0/1.
fn nonzero(e: Expr) -> Expr {
    match e {
        Expr::Const(c) => Expr::Const((c != 0) as i32),
        e if is_boolean(&e) => e,
        e => Expr::Binary(BinOp::Ne, Box::new(e), Box::new(Expr::Const(0))),
    }
}

/// Whether evaluating `e` can never raise a run-time error (no division,
/// remainder or dynamic indexing).
fn cannot_fail(e: &Expr) -> bool {
    match e {
        Expr::Const(_) | Expr::Load { .. } | Expr::InState { .. } => true,
        Expr::LoadIndex { .. } | Expr::ConstIndex { .. } => false,
        Expr::Unary(_, a) => cannot_fail(a),
        Expr::Binary(BinOp::Div | BinOp::Rem, ..) => false,
        Expr::Binary(_, a, b) => cannot_fail(a) && cannot_fail(b),
    }
}
