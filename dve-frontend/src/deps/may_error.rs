//! Which transition groups can raise a run-time error (§8.1), by interval
//! analysis: every variable holds a value of its type (stores are range
//! checked), the guards' comparisons with constants narrow that, and each
//! effect is followed in order. `false` is a proof that the group never
//! errs; `true` only means the analysis could not show it.

use crate::ir::{Assign, BinOp, Expr, Model, Place, SyncKind, Transition, Ty, UnOp};

/// A closed interval of values (in i64, so that i32 arithmetic cannot
/// overflow it).
type Iv = (i64, i64);

const I32: Iv = (i32::MIN as i64, i32::MAX as i64);

fn ty_range(ty: Ty) -> Iv {
    (ty.min() as i64, ty.max() as i64)
}

/// What is known about the current values of scalar slots (by offset);
/// anything absent holds a value of its type.
#[derive(Clone, Default)]
struct Env(Vec<(usize, Iv)>);

impl Env {
    fn get(&self, offset: usize, ty: Ty) -> Iv {
        self.0
            .iter()
            .find(|(o, _)| *o == offset)
            .map_or(ty_range(ty), |&(_, iv)| iv)
    }
    fn set(&mut self, offset: usize, iv: Iv) {
        self.0.retain(|(o, _)| *o != offset);
        self.0.push((offset, iv));
    }
    /// Forgets what is known about the bytes `from..to` (an array written at
    /// an index not known statically).
    fn forget(&mut self, from: usize, to: usize) {
        self.0.retain(|(o, _)| *o < from || *o >= to);
    }
}

/// Wraps a result that left the i32 range (evaluation wraps, §8.1).
fn wrap(lo: i64, hi: i64) -> Iv {
    if lo < I32.0 || hi > I32.1 {
        I32
    } else {
        (lo, hi)
    }
}

/// The values `e` can take, or `None` when its evaluation may err.
fn eval(e: &Expr, env: &Env) -> Option<Iv> {
    Some(match e {
        Expr::Const(c) => (*c as i64, *c as i64),
        Expr::Load { ty, offset } => env.get(*offset, *ty),
        Expr::LoadIndex {
            ty,
            offset,
            len,
            index,
        } => {
            let i = in_bounds(eval(index, env)?, *len)?;
            if i.0 == i.1 {
                env.get(offset + i.0 as usize * ty.width(), *ty)
            } else {
                ty_range(*ty)
            }
        }
        Expr::ConstIndex { values, index } => {
            let i = in_bounds(eval(index, env)?, values.len() as u32)?;
            let vals = &values[i.0 as usize..=i.1 as usize];
            let lo = *vals.iter().min()? as i64;
            let hi = *vals.iter().max()? as i64;
            (lo, hi)
        }
        Expr::InState { .. } => (0, 1),
        Expr::Unary(op, a) => {
            let a = eval(a, env)?;
            match op {
                UnOp::Neg => wrap(-a.1, -a.0),
                UnOp::BitNot => (!a.1, !a.0),
                UnOp::Not => (0, 1),
            }
        }
        Expr::Binary(op, a, b) => {
            let x = eval(a, env)?;
            // The right operand of a short-circuit operator is evaluated only
            // when the left one lets it.
            let rhs_env = |truth: bool| refine(env, a, truth);
            match op {
                BinOp::And | BinOp::Imply => {
                    if let Some(env2) = rhs_env(true) {
                        eval(b, &env2)?;
                    }
                    return Some((0, 1));
                }
                BinOp::Or => {
                    if let Some(env2) = rhs_env(false) {
                        eval(b, &env2)?;
                    }
                    return Some((0, 1));
                }
                _ => {}
            }
            let y = eval(b, env)?;
            binary(*op, x, y)?
        }
    })
}

fn in_bounds(i: Iv, len: u32) -> Option<Iv> {
    (i.0 >= 0 && i.1 < len as i64).then_some(i)
}

fn binary(op: BinOp, x: Iv, y: Iv) -> Option<Iv> {
    let corners = |f: fn(i64, i64) -> i64| {
        let c = [f(x.0, y.0), f(x.0, y.1), f(x.1, y.0), f(x.1, y.1)];
        wrap(*c.iter().min().unwrap(), *c.iter().max().unwrap())
    };
    Some(match op {
        BinOp::Add => wrap(x.0 + y.0, x.1 + y.1),
        BinOp::Sub => wrap(x.0 - y.1, x.1 - y.0),
        BinOp::Mul => corners(|a, b| a * b),
        BinOp::Div | BinOp::Rem => {
            // Division by zero, and i32::MIN / -1, are errors.
            if y.0 <= 0 && y.1 >= 0 || (y.0 <= -1 && y.1 >= -1 && x.0 == I32.0) {
                return None;
            }
            if op == BinOp::Div {
                corners(|a, b| a / b)
            } else {
                let m = y.0.abs().max(y.1.abs()) - 1;
                (if x.0 >= 0 { 0 } else { -m }, if x.1 <= 0 { 0 } else { m })
            }
        }
        BinOp::BitAnd if x.0 >= 0 || y.0 >= 0 => (
            0,
            if x.0 >= 0 && y.0 >= 0 {
                x.1.min(y.1)
            } else {
                x.1.max(y.1)
            },
        ),
        BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => I32,
        _ => (0, 1),
    })
}

/// `env` narrowed by `cond` being true (`truth`) or false; `None` when that
/// cannot happen.
fn refine(env: &Env, cond: &Expr, truth: bool) -> Option<Env> {
    let mut out = env.clone();
    match cond {
        Expr::Unary(UnOp::Not, a) => return refine(env, a, !truth),
        Expr::Binary(BinOp::And, a, b) if truth => {
            let e = refine(env, a, true)?;
            return refine(&e, b, true);
        }
        Expr::Binary(BinOp::Or, a, b) if !truth => {
            let e = refine(env, a, false)?;
            return refine(&e, b, false);
        }
        Expr::Binary(op, a, b) => {
            let (op, ty, offset, c) = match (&**a, &**b) {
                (Expr::Load { ty, offset }, Expr::Const(c)) => (*op, *ty, *offset, *c as i64),
                (Expr::Const(c), Expr::Load { ty, offset }) => (mirror(*op), *ty, *offset, *c as i64),
                _ => return Some(out),
            };
            let op = if truth { op } else { negate(op) };
            let (lo, hi) = env.get(offset, ty);
            let (lo, hi) = match op {
                BinOp::Eq => (lo.max(c), hi.min(c)),
                BinOp::Lt => (lo, hi.min(c - 1)),
                BinOp::Le => (lo, hi.min(c)),
                BinOp::Gt => (lo.max(c + 1), hi),
                BinOp::Ge => (lo.max(c), hi),
                BinOp::Ne if lo == c => (lo + 1, hi),
                BinOp::Ne if hi == c => (lo, hi - 1),
                _ => (lo, hi),
            };
            if lo > hi {
                return None;
            }
            out.set(offset, (lo, hi));
        }
        _ => {}
    }
    Some(out)
}

/// `c op x` as `x op' c`.
fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        op => op,
    }
}

/// `not (x op c)` as `x op' c` (comparisons only; others stay as they are
/// and narrow nothing).
fn negate(op: BinOp) -> BinOp {
    match op {
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        _ => BinOp::Add,
    }
}

/// Whether evaluating `guard` may err (§8.2).
pub fn guard_may_err(guard: &Option<Expr>) -> bool {
    guard.as_ref().is_some_and(|g| eval(g, &Env::default()).is_none())
}

/// Stores a value in `v` into `place`, the index evaluated in `index_env`;
/// `None` when that may err.
fn store(place: &Place, v: Iv, index_env: &Env, env: &mut Env) -> Option<()> {
    if v.0 < place.ty.min() as i64 || v.1 > place.ty.max() as i64 {
        return None;
    }
    match &place.index {
        None => env.set(place.offset, v),
        Some((len, idx)) => {
            let i = in_bounds(eval(idx, index_env)?, *len)?;
            let w = place.ty.width();
            if i.0 == i.1 {
                env.set(place.offset + i.0 as usize * w, v);
            } else {
                env.forget(place.offset, place.offset + *len as usize * w);
            }
        }
    }
    Some(())
}

fn effects(t: &Transition, env: &mut Env) -> Option<()> {
    for Assign { place, value } in &t.effects {
        let v = eval(value, env)?;
        let e = env.clone();
        store(place, v, &e, env)?;
    }
    Some(())
}

/// The environment in which the group's effects start: every guard true.
/// `None` when the guards cannot all hold (the group never fires).
fn guarded(ts: &[&Transition]) -> Option<Env> {
    let mut env = Env::default();
    for t in ts {
        if let Some(g) = &t.guard {
            env = refine(&env, g, true)?;
        }
    }
    Some(env)
}

/// Whether the group made of `ts` (one local or buffered transition, or a
/// rendezvous sender then receiver) may err once its guards hold (guard
/// errors are [`guard_may_err`]'s). `conflict`: both sides of the
/// rendezvous assign a global (always an error).
pub fn effects_may_err(m: &Model, ts: &[&Transition]) -> bool {
    let Some(env0) = guarded(ts) else {
        return false;
    };
    let mut env = env0.clone();
    let ok = (|| -> Option<()> {
        match (&ts[0].sync, ts.get(1)) {
            (SyncKind::Send { channel, values }, Some(r)) => {
                let SyncKind::Recv { targets, .. } = &r.sync else {
                    return None;
                };
                let types = m.channels[*channel].item_types.as_deref();
                for (i, (v, target)) in values.iter().zip(targets).enumerate() {
                    let mut val = eval(v, &env)?;
                    if let Some(ty) = types.and_then(|ts| ts.get(i)) {
                        if val.0 < ty.min() as i64 || val.1 > ty.max() as i64 {
                            val = ty_range(*ty);
                        }
                    }
                    store(target, val, &env0, &mut env)?;
                }
                if values.len() != targets.len() {
                    return None;
                }
                effects(r, &mut env)?;
                effects(ts[0], &mut env)
            }
            (SyncKind::BufSend { values, .. }, _) => {
                effects(ts[0], &mut env)?;
                values.iter().try_for_each(|v| eval(v, &env).map(|_| ()))
            }
            (SyncKind::BufRecv { channel, targets }, _) => {
                effects(ts[0], &mut env)?;
                let types = m.channels[*channel].item_types.as_deref().unwrap_or(&[]);
                for (i, target) in targets.iter().enumerate() {
                    let ty = types.get(i)?;
                    store(target, ty_range(*ty), &env0, &mut env)?;
                }
                Some(())
            }
            (SyncKind::None, None) => effects(ts[0], &mut env),
            _ => None,
        }
    })();
    ok.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_group_may_err(src: &str) -> bool {
        let m = crate::load_str("t.dve", src).unwrap();
        let t = &m.transitions[0];
        guard_may_err(&t.guard) || effects_may_err(&m, &[t])
    }

    fn with_trans(decls: &str, body: &str) -> String {
        format!("{decls} process P {{ state a; init a; trans a -> a {{ {body} }}; }} system async;")
    }

    #[test]
    fn increments_are_safe_only_under_a_bounding_guard() {
        assert!(first_group_may_err(&with_trans("byte x;", "effect x = x + 1;")));
        assert!(!first_group_may_err(&with_trans(
            "byte x;",
            "guard x < 255; effect x = x + 1;"
        )));
        assert!(!first_group_may_err(&with_trans(
            "byte x;",
            "guard not (x >= 255); effect x = x + 1;"
        )));
        assert!(first_group_may_err(&with_trans(
            "byte x;",
            "guard x < 255; effect x = x + 1, x = x + 1;"
        )));
        assert!(!first_group_may_err(&with_trans(
            "byte x;",
            "effect x = (x + 1) % 256;"
        )));
        assert!(!first_group_may_err(&with_trans(
            "byte x; int y;",
            "effect y = x * 100;"
        )));
        assert!(first_group_may_err(&with_trans(
            "byte x; int y;",
            "effect y = x * 200;"
        )));
    }

    #[test]
    fn indices_divisions_and_guards() {
        assert!(first_group_may_err(&with_trans(
            "byte a[3]; byte i;",
            "effect a[i] = 1;"
        )));
        assert!(!first_group_may_err(&with_trans(
            "byte a[3]; byte i;",
            "guard i < 3; effect a[i] = 1;"
        )));
        assert!(first_group_may_err(&with_trans(
            "byte a[3]; byte i;",
            "guard a[i] == 0;"
        )));
        assert!(!first_group_may_err(&with_trans(
            "byte a[3]; byte i;",
            "guard i < 3 && a[i] == 0;"
        )));
        assert!(first_group_may_err(&with_trans(
            "byte x, y;",
            "effect x = 10 / y;"
        )));
        assert!(!first_group_may_err(&with_trans(
            "byte x, y;",
            "guard y > 0; effect x = 10 / y;"
        )));
        // Constant-index knowledge is forgotten once the array is written at an
        // unknown index.
        assert!(first_group_may_err(&with_trans(
            "byte a[3]; byte i, x;",
            "guard a[0] == 0 && i < 3; effect a[i] = 255, x = a[0] + 1;"
        )));
    }
}
