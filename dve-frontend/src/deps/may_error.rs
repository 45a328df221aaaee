//! Which transition groups can raise a run-time error (§8.1), by interval
//! analysis. First the bounds of every variable over all reachable states
//! (and the error state, all zero), as the least fixpoint of "the initial
//! value, or a value some step stores" (widened to the type's range for a
//! variable still growing after [`ROUNDS`] rounds). Then, for the variables
//! only one process writes, their bounds in each control state of that
//! process, by the same fixpoint over its control flow (a loop counter is
//! bounded where it is used, not only over the whole run). Then each group
//! is followed from its guards (comparisons with constants narrow the
//! bounds) through its effects in order. "Cannot err" is a proof; "may err"
//! only means the analysis could not show otherwise.

use std::sync::Arc;

use super::counters::{counters, Counter};
use super::EffectErr;
use crate::ir::{Assign, BinOp, Expr, Model, Place, SyncKind, SystemKind, Transition, Ty, UnOp};

/// A closed interval of values (in i64, so that i32 arithmetic cannot
/// overflow it).
type Iv = (i64, i64);

const I32: Iv = (i32::MIN as i64, i32::MAX as i64);

/// Rounds of the fixpoint before a growing bound is widened to its type.
const ROUNDS: usize = 300;

fn ty_range(ty: Ty) -> Iv {
    (ty.min() as i64, ty.max() as i64)
}

fn hull(a: Iv, b: Iv) -> Iv {
    (a.0.min(b.0), a.1.max(b.1))
}

fn meet(a: Iv, b: Iv) -> Iv {
    (a.0.max(b.0), a.1.min(b.1))
}

/// Per process and control state, the bounds of the variables only that
/// process writes (in [`Local::owned`] order) whenever it is in that state;
/// `None` for a control state no reachable state has.
#[derive(Clone, Debug, Default)]
struct Local {
    owned: Vec<Vec<usize>>,
    at: Vec<Vec<Option<Vec<Iv>>>>,
}

/// Bounds of the variables in every reachable state: per variable (an
/// array's elements share one), and which variable holds each byte.
#[derive(Clone, Debug)]
pub struct Bounds {
    var_of_byte: Arc<[usize]>,
    bound: Vec<Iv>,
    local: Arc<Local>,
    /// Widened to hold after errors where some step may err ([`counters`]).
    counters: Arc<[Counter]>,
}

impl Bounds {
    /// The bounds of `m`'s variables, by fixpoint over every transition and
    /// rendezvous pair.
    pub fn of(m: &Model) -> Bounds {
        let mut var_of_byte = vec![usize::MAX; m.state_len];
        let mut bound = Vec::with_capacity(m.vars.len());
        for (i, v) in m.vars.iter().enumerate() {
            let w = v.ty.width();
            let n = v.array_len.unwrap_or(1) as usize;
            var_of_byte[v.offset..v.offset + w * n].fill(i);
            bound.push(hull((0, 0), initial(m, i)));
        }
        let mut bounds = Bounds {
            var_of_byte: var_of_byte.into(),
            bound,
            local: Arc::default(),
            counters: counters(m).into(),
        };
        let steps = all_steps(m);
        let mut changes = vec![0usize; m.vars.len()];
        loop {
            let mut stores = Vec::new();
            for ts in &steps {
                let mut run = Run::new(&bounds);
                run.stores = Some(Vec::new());
                let _ = run.step(m, ts);
                stores.extend(run.stores.unwrap_or_default());
            }
            let mut changed = false;
            for (offset, iv) in stores {
                let v = bounds.var_of_byte[offset];
                let old = bounds.bound[v];
                let mut new = hull(old, iv);
                if new != old {
                    changes[v] += 1;
                    if changes[v] > ROUNDS {
                        let ty = ty_range(m.vars[v].ty);
                        new = (
                            if new.0 < old.0 { ty.0 } else { new.0 },
                            if new.1 > old.1 { ty.1 } else { new.1 },
                        );
                    }
                    bounds.bound[v] = new;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // The error state is expanded like any other (§8.3): every process
        // but the first then starts from its first control state with every
        // variable zero. That matters only where some step may err, and
        // then the counters' bounds are widened to hold after errors too.
        let mut local = bounds.local_fixpoint(m, &steps, false);
        if may_reach_error(m, &bounds, &local, &steps) && !bounds.counters.is_empty() {
            bounds.counters = bounds.counters.iter().map(Counter::with_restarts).collect();
            local = bounds.local_fixpoint(m, &steps, false);
        }
        if may_reach_error(m, &bounds, &local, &steps) {
            local = bounds.local_fixpoint(m, &steps, true);
        }
        bounds.local = Arc::new(local);
        bounds
    }

    /// The bounds in the states where each `(process, control state)` of
    /// `at` holds; `None` when no reachable state has them all.
    pub fn at(&self, at: &[(usize, u16)]) -> Option<Bounds> {
        narrow(self, &self.local, at)
    }

    /// The per-control-state fixpoint of [`Local`], starting from the
    /// initial state, and from the error state's successors if
    /// `from_error`.
    fn local_fixpoint(&self, m: &Model, steps: &[Vec<&Transition>], from_error: bool) -> Local {
        let mut writers: Vec<Vec<usize>> = vec![Vec::new(); m.vars.len()];
        for t in &m.transitions {
            let targets = match &t.sync {
                SyncKind::Recv { targets, .. } | SyncKind::BufRecv { targets, .. } => &targets[..],
                _ => &[],
            };
            for p in t.effects.iter().map(|a| &a.place).chain(targets) {
                if !writers[p.var].contains(&t.process) {
                    writers[p.var].push(t.process);
                }
            }
        }
        let mut owned = vec![Vec::new(); m.processes.len()];
        for (v, w) in writers.iter().enumerate() {
            if let [p] = w[..] {
                owned[p].push(v);
            }
        }
        let mut at: Vec<Vec<Option<Vec<Iv>>>> =
            m.processes.iter().map(|p| vec![None; p.states.len()]).collect();
        for (p, proc) in m.processes.iter().enumerate() {
            at[p][proc.init as usize] = Some(owned[p].iter().map(|&v| initial(m, v)).collect());
            if from_error && p != 0 && !proc.states.is_empty() {
                let zeros = owned[p].iter().map(|_| (0, 0));
                at[p][0] = Some(match at[p][0].take() {
                    Some(ivs) => ivs.into_iter().zip(zeros).map(|(a, b)| hull(a, b)).collect(),
                    None => zeros.collect(),
                });
            }
        }
        let mut local = Local { owned, at };
        // Per process, control state and owned variable: how often its
        // bounds grew.
        let mut changes: Vec<Vec<Vec<usize>>> = m
            .processes
            .iter()
            .enumerate()
            .map(|(p, proc)| vec![vec![0; local.owned[p].len()]; proc.states.len()])
            .collect();
        loop {
            let mut changed = false;
            for ts in steps {
                let Some(view) = narrow(self, &local, &from_states(ts)) else {
                    continue;
                };
                let mut run = Run::new(&view);
                run.stores = Some(Vec::new());
                let Some(env) = run.step(m, ts) else {
                    continue;
                };
                let stores = run.stores.unwrap_or_default();
                for t in ts {
                    let (p, to) = (t.process, t.to as usize);
                    let after = local.owned[p]
                        .iter()
                        .map(|&v| meet(self.bound[v], value_after(m, v, &env, &stores, &view)));
                    let Some(old) = &mut local.at[p][to] else {
                        local.at[p][to] = Some(after.collect());
                        changed = true;
                        continue;
                    };
                    for (i, a) in after.enumerate() {
                        let (o, v) = (old[i], local.owned[p][i]);
                        let mut new = hull(o, a);
                        if new != o {
                            changes[p][to][i] += 1;
                            if changes[p][to][i] > ROUNDS {
                                // Still growing: widened to its bounds over the whole run.
                                let all = self.bound[v];
                                new = (
                                    if new.0 < o.0 { all.0 } else { new.0 },
                                    if new.1 > o.1 { all.1 } else { new.1 },
                                );
                            }
                            old[i] = new;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                return local;
            }
        }
    }

    fn get(&self, offset: usize, ty: Ty) -> Iv {
        match self.var_of_byte.get(offset) {
            Some(&v) if v != usize::MAX => self.bound[v],
            _ => ty_range(ty),
        }
    }
}

/// The hull of variable `v`'s initial values.
fn initial(m: &Model, v: usize) -> Iv {
    let var = &m.vars[v];
    let w = var.ty.width();
    (0..var.array_len.unwrap_or(1) as usize)
        .map(|k| crate::model::read_slot(&m.initial, var.offset + k * w, w, var.ty.signed()) as i64)
        .fold(None, |acc: Option<Iv>, x| {
            Some(acc.map_or((x, x), |a| hull(a, (x, x))))
        })
        .unwrap_or((0, 0))
}

fn from_states(ts: &[&Transition]) -> Vec<(usize, u16)> {
    ts.iter().map(|t| (t.process, t.from)).collect()
}

/// `bounds` narrowed to the states where each `(process, control state)` of
/// `at` holds, by `local`.
fn narrow(bounds: &Bounds, local: &Local, at: &[(usize, u16)]) -> Option<Bounds> {
    let mut out = bounds.clone();
    for c in bounds.counters.iter() {
        if let Some((lo, hi)) = c.at(at) {
            let iv = (lo.unwrap_or(i64::MIN), hi.unwrap_or(i64::MAX));
            out.bound[c.var] = meet(out.bound[c.var], iv);
        }
    }
    for &(p, s) in at {
        let (Some(owned), Some(states)) = (local.owned.get(p), local.at.get(p)) else {
            continue;
        };
        let ivs = states.get(s as usize)?.as_ref()?;
        for (&v, &iv) in owned.iter().zip(ivs) {
            out.bound[v] = meet(out.bound[v], iv);
        }
    }
    Some(out)
}

/// What variable `v` may hold after a step that left `env` and stored
/// `stores`: its elements as `env` knows them, and for an array every value
/// stored into it (an element written at an index not known is forgotten).
fn value_after(m: &Model, v: usize, env: &Env, stores: &[(usize, Iv)], view: &Bounds) -> Iv {
    let var = &m.vars[v];
    let w = var.ty.width();
    let mut iv = (0..var.array_len.unwrap_or(1) as usize)
        .map(|k| env.get(var.offset + k * w, var.ty))
        .reduce(hull)
        .unwrap_or(view.bound[v]);
    if var.array_len.is_some() {
        for &(o, s) in stores {
            if view.var_of_byte.get(o) == Some(&v) {
                iv = hull(iv, s);
            }
        }
    }
    iv
}

/// Whether some step from a state the per-control-state bounds allow may
/// err: a guard, the step itself, or a rendezvous whose two sides assign
/// one global.
fn may_reach_error(m: &Model, bounds: &Bounds, local: &Local, steps: &[Vec<&Transition>]) -> bool {
    let guard_errs = m
        .transitions
        .iter()
        .any(|t| narrow(bounds, local, &[(t.process, t.from)]).is_some_and(|b| guard_may_err(&b, &t.guard)));
    guard_errs
        || steps.iter().any(|ts| {
            let Some(b) = narrow(bounds, local, &from_states(ts)) else {
                return false;
            };
            effects_may_err(m, &b, ts)
                || (ts.len() == 2
                    && ts[0]
                        .global_writes
                        .iter()
                        .any(|g| ts[1].global_writes.contains(g)))
        })
}

/// Every step a state can take: each transition alone, each rendezvous
/// pair (sender first); in a `system sync` model every transition alone
/// (its sync part ignored, §7.9).
fn all_steps(m: &Model) -> Vec<Vec<&Transition>> {
    let mut out = Vec::new();
    for t in &m.transitions {
        if m.system == SystemKind::Sync {
            out.push(vec![t]);
            continue;
        }
        match &t.sync {
            SyncKind::Recv { .. } => {}
            SyncKind::Send { channel, .. } => {
                for r in &m.transitions {
                    if r.process != t.process
                        && matches!(r.sync, SyncKind::Recv { channel: c, .. } if c == *channel)
                    {
                        out.push(vec![t, r]);
                    }
                }
            }
            _ => out.push(vec![t]),
        }
    }
    out
}

/// What is known about the current values of scalar slots (by offset)
/// beyond the bounds.
#[derive(Clone)]
struct Env<'a> {
    bounds: &'a Bounds,
    known: Vec<(usize, Iv)>,
}

impl Env<'_> {
    fn get(&self, offset: usize, ty: Ty) -> Iv {
        self.known
            .iter()
            .find(|(o, _)| *o == offset)
            .map_or_else(|| self.bounds.get(offset, ty), |&(_, iv)| iv)
    }
    fn set(&mut self, offset: usize, iv: Iv) {
        self.known.retain(|(o, _)| *o != offset);
        self.known.push((offset, iv));
    }
    /// Forgets what is known about the bytes `from..to` (an array written at
    /// an index not known statically).
    fn forget(&mut self, from: usize, to: usize) {
        self.known.retain(|(o, _)| *o < from || *o >= to);
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

/// The values `e` takes when its evaluation does not err; sets `err` when
/// it may.
fn eval(e: &Expr, env: &Env, err: &mut bool) -> Iv {
    match e {
        Expr::Const(c) => (*c as i64, *c as i64),
        Expr::Load { ty, offset } => env.get(*offset, *ty),
        Expr::LoadIndex {
            ty,
            offset,
            len,
            index,
        } => {
            let i = in_bounds(eval(index, env, err), *len, err);
            match i {
                Some(i) if i.0 == i.1 => env.get(offset + i.0 as usize * ty.width(), *ty),
                _ => env.bounds.get(*offset, *ty),
            }
        }
        Expr::ConstIndex { values, index } => {
            match in_bounds(eval(index, env, err), values.len() as u32, err) {
                Some(i) => {
                    let vals = &values[i.0 as usize..=i.1 as usize];
                    let lo = vals.iter().min().map_or(0, |&v| v as i64);
                    let hi = vals.iter().max().map_or(0, |&v| v as i64);
                    (lo, hi)
                }
                None => I32,
            }
        }
        Expr::InState { .. } => (0, 1),
        Expr::Unary(op, a) => {
            let a = eval(a, env, err);
            match op {
                UnOp::Neg => wrap(-a.1, -a.0),
                UnOp::BitNot => (!a.1, !a.0),
                UnOp::Not if a == (0, 0) => (1, 1),
                UnOp::Not if a.0 > 0 || a.1 < 0 => (0, 0),
                UnOp::Not => (0, 1),
            }
        }
        Expr::Binary(op, a, b) => {
            let x = eval(a, env, err);
            // The right operand of a short-circuit operator is evaluated only
            // when the left one lets it.
            let rhs = |truth: bool, err: &mut bool| {
                if let Some(env2) = refine(env, a, truth) {
                    eval(b, &env2, err);
                }
                (0, 1)
            };
            match op {
                BinOp::And | BinOp::Imply => rhs(true, err),
                BinOp::Or => rhs(false, err),
                _ => binary(*op, x, eval(b, env, err), err),
            }
        }
    }
}

/// The part of `i` inside `0..len` (`None` if none); sets `err` if some is
/// outside.
fn in_bounds(i: Iv, len: u32, err: &mut bool) -> Option<Iv> {
    if i.0 < 0 || i.1 >= len as i64 {
        *err = true;
    }
    let (lo, hi) = (i.0.max(0), i.1.min(len as i64 - 1));
    (lo <= hi).then_some((lo, hi))
}

fn binary(op: BinOp, x: Iv, y: Iv, err: &mut bool) -> Iv {
    let corners = |f: fn(i64, i64) -> i64| {
        let c = [f(x.0, y.0), f(x.0, y.1), f(x.1, y.0), f(x.1, y.1)];
        wrap(*c.iter().min().unwrap(), *c.iter().max().unwrap())
    };
    match op {
        BinOp::Add => wrap(x.0 + y.0, x.1 + y.1),
        BinOp::Sub => wrap(x.0 - y.1, x.1 - y.0),
        BinOp::Mul => corners(|a, b| a * b),
        BinOp::Div | BinOp::Rem => {
            // Division by zero, and i32::MIN / -1, are errors.
            let zero = y.0 <= 0 && y.1 >= 0;
            if zero || (y.0 <= -1 && y.1 >= -1 && x.0 == I32.0) {
                *err = true;
            }
            let mx = x.0.abs().max(x.1.abs());
            if op == BinOp::Div {
                if zero {
                    wrap(-mx, mx)
                } else {
                    corners(|a, b| a / b)
                }
            } else {
                let m = (y.0.abs().max(y.1.abs()) - 1).min(mx).max(0);
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
        // Of two non-negative values, no bit above the larger's highest.
        BinOp::BitOr | BinOp::BitXor if x.0 >= 0 && y.0 >= 0 => {
            let top = (x.1.max(y.1) as u64 + 1).next_power_of_two() as i64 - 1;
            (if op == BinOp::BitOr { x.0.max(y.0) } else { 0 }, top)
        }
        BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => I32,
        // Comparisons: decided when the intervals decide them.
        BinOp::Eq if x.0 == x.1 && x == y => (1, 1),
        BinOp::Ne if x.1 < y.0 || y.1 < x.0 => (1, 1),
        BinOp::Eq if x.1 < y.0 || y.1 < x.0 => (0, 0),
        BinOp::Ne if x.0 == x.1 && x == y => (0, 0),
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => {
            // As `l < r` or `l <= r`.
            let (l, r) = if matches!(op, BinOp::Lt | BinOp::Le) {
                (x, y)
            } else {
                (y, x)
            };
            let strict = matches!(op, BinOp::Lt | BinOp::Gt);
            let (always, never) = if strict {
                (l.1 < r.0, l.0 >= r.1)
            } else {
                (l.1 <= r.0, l.0 > r.1)
            };
            (if always { 1 } else { 0 }, if never { 0 } else { 1 })
        }
        _ => (0, 1),
    }
}

/// `env` narrowed by `cond` being true (`truth`) or false; `None` when that
/// cannot happen.
fn refine<'a>(env: &Env<'a>, cond: &Expr, truth: bool) -> Option<Env<'a>> {
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
        Expr::Binary(op, a, b) if is_comparison(*op) => {
            let op = if truth { *op } else { negate(*op) };
            let mut err = false;
            let (x, y) = (eval(a, env, &mut err), eval(b, env, &mut err));
            // A comparison the intervals decide against cannot hold.
            if binary(op, x, y, &mut err) == (0, 0) {
                return None;
            }
            // Each side that is a variable, or a variable through steps
            // that can be undone, narrowed by the other's values.
            for (side, this, other, op) in [(a, x, y, op), (b, y, x, mirror(op))] {
                let iv = narrow_by(op, this, other);
                if iv.0 > iv.1 {
                    return None;
                }
                if let Some((offset, iv)) = invert(side, iv, env) {
                    if iv.0 > iv.1 {
                        return None;
                    }
                    out.set(offset, iv);
                }
            }
        }
        // A variable alone holds when it is not zero (and, as the right
        // operand of `and`, when it is positive, which implies that).
        e if truth && slot(e, env).is_some() => {
            let (offset, ty) = slot(e, env)?;
            let iv = narrow_by(BinOp::Ne, env.get(offset, ty), (0, 0));
            if iv.0 > iv.1 {
                return None;
            }
            out.set(offset, iv);
        }
        _ => {}
    }
    Some(out)
}

/// The one slot `e` reads, if it is a variable or an array element whose
/// index the bounds fix.
fn slot(e: &Expr, env: &Env) -> Option<(usize, Ty)> {
    match e {
        Expr::Load { offset, ty } => Some((*offset, *ty)),
        Expr::LoadIndex {
            ty,
            offset,
            len,
            index,
        } => {
            let mut err = false;
            let i = eval(index, env, &mut err);
            (!err && i.0 == i.1 && i.0 >= 0 && i.0 < *len as i64)
                .then(|| (offset + i.0 as usize * ty.width(), *ty))
        }
        _ => None,
    }
}

/// The variable `e` is computed from and the values it may take where
/// `e` takes values in `iv`: through a constant added or subtracted, and,
/// for a variable that is not negative, a division by a positive constant
/// and a remainder by one larger than every value it holds (`cmd / 16 ==
/// 0 && cmd % 16 == 1` holds only for 1).
fn invert(e: &Expr, iv: Iv, env: &Env) -> Option<(usize, Iv)> {
    let mut err = false;
    match e {
        Expr::Load { .. } | Expr::LoadIndex { .. } => {
            let (offset, ty) = slot(e, env)?;
            Some((offset, meet(env.get(offset, ty), iv)))
        }
        Expr::Binary(op, a, b) => {
            let Expr::Const(k) = **b else {
                return match (op, &**a) {
                    (BinOp::Add, Expr::Const(k)) => invert(b, (iv.0 - *k as i64, iv.1 - *k as i64), env),
                    _ => None,
                };
            };
            let k = k as i64;
            let x = eval(a, env, &mut err);
            match op {
                BinOp::Add => invert(a, (iv.0 - k, iv.1 - k), env),
                BinOp::Sub => invert(a, (iv.0 + k, iv.1 + k), env),
                BinOp::Div if k > 0 && x.0 >= 0 => invert(a, (iv.0.max(0) * k, iv.1 * k + k - 1), env),
                BinOp::Rem if k > 0 && x.0 >= 0 && x.1 < k => invert(a, iv, env),
                _ => None,
            }
        }
        _ => None,
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// The values of `x` for which `x op y` can hold, `y` taking the values of
/// its interval.
fn narrow_by(op: BinOp, x: Iv, y: Iv) -> Iv {
    let (lo, hi) = x;
    match op {
        BinOp::Eq => meet(x, y),
        BinOp::Lt => (lo, hi.min(y.1 - 1)),
        BinOp::Le => (lo, hi.min(y.1)),
        BinOp::Gt => (lo.max(y.0 + 1), hi),
        BinOp::Ge => (lo.max(y.0), hi),
        BinOp::Ne if y.0 == y.1 && lo == y.0 => (lo + 1, hi),
        BinOp::Ne if y.0 == y.1 && hi == y.0 => (lo, hi - 1),
        _ => x,
    }
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

/// One abstract execution of a step: whether it may err, and (for the
/// bounds) the values it may store, by offset.
struct Run<'a> {
    bounds: &'a Bounds,
    err: bool,
    /// What raised the first error.
    first: Option<EffectErr>,
    stores: Option<Vec<(usize, Iv)>>,
}

impl<'a> Run<'a> {
    fn new(bounds: &'a Bounds) -> Run<'a> {
        Run {
            bounds,
            err: false,
            first: None,
            stores: None,
        }
    }

    fn eval(&mut self, e: &Expr, env: &Env) -> Iv {
        let before = self.err;
        let v = eval(e, env, &mut self.err);
        if self.err && !before {
            self.first = Some(EffectErr::Expression);
        }
        v
    }

    fn fail(&mut self, why: EffectErr) {
        if !self.err {
            self.first = Some(why);
        }
        self.err = true;
    }

    /// Stores a value in `v` into `place`, the index evaluated in
    /// `index_env`.
    fn store(&mut self, place: &Place, v: Iv, index_env: &Env, env: &mut Env<'a>) {
        let (lo, hi) = ty_range(place.ty);
        if v.0 < lo || v.1 > hi {
            self.fail(EffectErr::Range(place.var));
        }
        let v = (v.0.max(lo), v.1.min(hi));
        if v.0 > v.1 {
            return;
        }
        if let Some(s) = &mut self.stores {
            s.push((place.offset, v));
        }
        match &place.index {
            None => env.set(place.offset, v),
            Some((len, idx)) => {
                let w = place.ty.width();
                let i = self.eval(idx, index_env);
                let mut out = false;
                let i = in_bounds(i, *len, &mut out);
                if out {
                    self.fail(EffectErr::Index(place.var));
                }
                match i {
                    Some(i) if i.0 == i.1 => env.set(place.offset + i.0 as usize * w, v),
                    _ => env.forget(place.offset, place.offset + *len as usize * w),
                }
            }
        }
    }

    fn effects(&mut self, t: &Transition, env: &mut Env<'a>) {
        for Assign { place, value } in &t.effects {
            let v = self.eval(value, env);
            let e = env.clone();
            self.store(place, v, &e, env);
        }
    }

    /// Follows the step made of `ts` (one transition, or a rendezvous
    /// sender then receiver) from its guards; a guard's own errors are not
    /// counted ([`Deps`](super::Deps) asks [`guard_may_err`]). Returns what
    /// is known after it, `None` when its guards cannot all hold.
    fn step(&mut self, m: &Model, ts: &[&Transition]) -> Option<Env<'a>> {
        let mut env0 = Env {
            bounds: self.bounds,
            known: Vec::new(),
        };
        for t in ts {
            if let Some(g) = &t.guard {
                env0 = refine(&env0, g, true)?;
            }
        }
        let mut env = env0.clone();
        match (&ts[0].sync, ts.get(1)) {
            (SyncKind::Send { channel, values }, Some(r)) => {
                let SyncKind::Recv { targets, .. } = &r.sync else {
                    self.fail(EffectErr::Expression);
                    return Some(env);
                };
                if values.len() != targets.len() {
                    self.fail(EffectErr::Expression);
                }
                let types = m.channels[*channel].item_types.as_deref();
                for (i, (v, target)) in values.iter().zip(targets).enumerate() {
                    let mut val = self.eval(v, &env);
                    if let Some(ty) = types.and_then(|ts| ts.get(i)) {
                        if val.0 < ty.min() as i64 || val.1 > ty.max() as i64 {
                            val = ty_range(*ty);
                        }
                    }
                    self.store(target, val, &env0, &mut env);
                }
                self.effects(r, &mut env);
                self.effects(ts[0], &mut env);
            }
            (SyncKind::BufSend { values, .. }, _) => {
                self.effects(ts[0], &mut env);
                for v in values {
                    self.eval(v, &env);
                }
            }
            (SyncKind::BufRecv { channel, targets }, _) => {
                self.effects(ts[0], &mut env);
                let types = m.channels[*channel].item_types.as_deref().unwrap_or(&[]);
                for (i, target) in targets.iter().enumerate() {
                    match types.get(i) {
                        Some(ty) => self.store(target, ty_range(*ty), &env0, &mut env),
                        None => self.fail(EffectErr::Expression),
                    }
                }
            }
            (SyncKind::None | SyncKind::Send { .. } | SyncKind::Recv { .. }, None) => {
                self.effects(ts[0], &mut env)
            }
            _ => self.fail(EffectErr::Expression),
        }
        Some(env)
    }
}

/// Whether evaluating `guard` may err (§8.2).
pub fn guard_may_err(bounds: &Bounds, guard: &Option<Expr>) -> bool {
    let env = Env {
        bounds,
        known: Vec::new(),
    };
    let mut err = false;
    if let Some(g) = guard {
        eval(g, &env, &mut err);
    }
    err
}

/// Whether the step made of `ts` (one local or buffered transition, or a
/// rendezvous sender then receiver) may err once its guards hold (guard
/// errors are [`guard_may_err`]'s).
pub fn effects_may_err(m: &Model, bounds: &Bounds, ts: &[&Transition]) -> bool {
    effects_err(m, bounds, ts).is_some()
}

/// What may raise the first error of the step made of `ts` once its guards
/// hold, if anything may.
pub fn effects_err(m: &Model, bounds: &Bounds, ts: &[&Transition]) -> Option<EffectErr> {
    let mut run = Run::new(bounds);
    let _ = run.step(m, ts);
    run.err.then(|| run.first.unwrap_or(EffectErr::Expression))
}

/// Whether `a` and `b` may hold in one state.
pub fn may_both_hold(bounds: &Bounds, a: &Expr, b: &Expr) -> bool {
    let env = Env {
        bounds,
        known: Vec::new(),
    };
    refine(&env, a, true).and_then(|e| refine(&e, b, true)).is_some()
}

/// Whether the step made of `ts`, when it does not err, can leave `cond`
/// true and can leave it false (tested with `> 0` if `positive`, else
/// `!= 0`): neither when the step never fires.
pub fn after_step(
    m: &Model,
    bounds: &Bounds,
    ts: &[&Transition],
    cond: &Expr,
    positive: bool,
) -> (bool, bool) {
    let mut run = Run::new(bounds);
    let Some(env) = run.step(m, ts) else {
        return (false, false);
    };
    let mut err = false;
    let v = eval(cond, &env, &mut err);
    if err {
        return (true, true);
    }
    if positive {
        (v.1 > 0, v.0 <= 0)
    } else {
        (v != (0, 0), v.0 <= 0 && v.1 >= 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_group_may_err(src: &str) -> bool {
        let m = crate::load_str("t.dve", src).unwrap();
        // Without the bounds: every variable anywhere in its type.
        let mut b = Bounds::of(&m);
        for (v, var) in m.vars.iter().enumerate() {
            b.bound[v] = ty_range(var.ty);
        }
        b.local = Arc::default();
        let t = &m.transitions[0];
        guard_may_err(&b, &t.guard) || effects_may_err(&m, &b, &[t])
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

    #[test]
    fn bounds_are_the_values_reachable_states_hold() {
        let src = "byte n, x = 3, a[3]; int d;
            process P { state s, t; init s;
              trans s -> s { guard n != 10; effect n = n + 1, a[n - 1] = x; },
                    s -> t { guard n == 10; effect d = d - 1; },
                    t -> t { effect d = d - 1; }; }
            system async;";
        let m = crate::load_str("t.dve", src).unwrap();
        let b = Bounds::of(&m);
        // n: 0..10; x: 3 (or 0 in the error state); a: what x holds; d: not
        // bounded below but by its type.
        assert_eq!(b.bound, [(0, 10), (0, 3), (0, 3), (-32768, 0)]);
        assert_eq!(m.vars.len(), 4);
        let t = &m.transitions[0];
        // a[n - 1] with n up to 10 may leave a[0..3]; n + 1 stays a byte.
        assert!(effects_may_err(&m, &b, &[t]));
        assert!(effects_may_err(&m, &b, &[&m.transitions[2]]));
    }

    #[test]
    fn guards_on_array_elements_narrow_them() {
        assert!(!first_group_may_err(&with_trans(
            "byte t[2];",
            "guard t[0] != 0; effect t[0] = t[0] - 1;"
        )));
        assert!(!first_group_may_err(&with_trans(
            "byte t[2];",
            "guard t[1] > 0 && t[1] < 255; effect t[1] = t[1] + 1;"
        )));
        // The guard bounds the other element, not the one decremented.
        assert!(first_group_may_err(&with_trans(
            "byte t[2];",
            "guard t[1] != 0; effect t[0] = t[0] - 1;"
        )));
    }

    #[test]
    fn or_of_non_negative_values_stays_under_their_top_bit() {
        // BEEM's at: a timer that counts down to 0 and rests at 255.
        let timer = "effect t = (t - 1) | ((t == 255) * 255);";
        assert!(!first_group_may_err(&with_trans(
            "byte t;",
            &format!("guard t != 0; {timer}")
        )));
        assert!(first_group_may_err(&with_trans("byte t;", timer)));
        assert!(!first_group_may_err(&with_trans(
            "byte x; byte y;",
            "guard x < 100 && y < 28; effect x = x ^ y;"
        )));
        assert!(first_group_may_err(&with_trans(
            "byte x; byte y;",
            "guard x < 100; effect x = x | y, x = x + 1;"
        )));
    }

    #[test]
    fn the_error_source_names_what_may_err() {
        let source = |src: &str| {
            let m = crate::load_str("t.dve", src).unwrap();
            let d = crate::deps::Deps::new(&m);
            d.groups[0].err_source.map(|e| e.describe(&m))
        };
        assert_eq!(
            source(&with_trans("byte x;", "effect x = x + 1;")).as_deref(),
            Some("its effects: x may be given a value outside byte")
        );
        assert_eq!(
            source(&with_trans("byte a[2]; byte i;", "effect a[i] = 1, i = i + 1;")).as_deref(),
            Some("its effects: an index into a may be out of bounds")
        );
        assert_eq!(
            source(&with_trans("byte x; byte y;", "effect x = 1 / y;")).as_deref(),
            Some("its effects: an expression may err")
        );
        assert_eq!(
            source(&with_trans("byte x;", "guard x < 255; effect x = x + 1;")),
            None
        );
    }

    /// Whether each group of `src` may err, by [`super::super::Deps`].
    fn groups_may_err(src: &str) -> Vec<bool> {
        let m = crate::load_str("t.dve", src).unwrap();
        crate::deps::Deps::new(&m)
            .groups
            .iter()
            .map(|g| g.may_err)
            .collect()
    }

    #[test]
    fn a_counter_is_bounded_in_the_control_states_where_it_is_used() {
        // Over the whole run j is 0..4, so `step[j - 1]` could be step[-1];
        // in q2 it is 1..3 (as in BEEM's peterson).
        let src = "byte step[3];
            process P { byte j; state ncs, wait, q2; init ncs;
              trans ncs -> wait { effect j = 1; },
                    wait -> q2 { guard j < 4; effect step[j - 1] = 1, j = j + 1; },
                    q2 -> wait { },
                    wait -> ncs { guard j == 4; effect j = 0; }; }
            system async;";
        assert_eq!(groups_may_err(src), [false, false, false, false]);
        let m = crate::load_str("t.dve", src).unwrap();
        let b = Bounds::of(&m);
        assert_eq!(b.bound[1], (0, 4));
        let j_in = |s: u16| b.at(&[(0, s)]).map(|b| b.bound[1]);
        // ncs: 0; wait: 1..4; q2: 2..4.
        assert_eq!(
            (j_in(0), j_in(1), j_in(2)),
            (Some((0, 0)), Some((1, 4)), Some((2, 4)))
        );
        // Without the guard the store may leave the array.
        assert_eq!(
            groups_may_err(&src.replace("guard j < 4; ", "")),
            [false, true, false, false]
        );
    }

    #[test]
    fn comparisons_with_expressions_narrow_the_variable() {
        // i == m % 10 bounds i by 9, so i + 1 stays a byte (BEEM's collision).
        let src = "int m; byte i;
            process P { state s; init s;
              trans s -> s { guard i == (m % 10); effect i = i + 1; },
                    s -> s { effect m = m + 1; }; }
            system async;";
        assert!(!groups_may_err(src)[0]);
        assert!(groups_may_err(&src.replace("i == (m % 10)", "i != (m % 10)"))[0]);
        // A variable alone as a guard is not zero.
        let src = "byte a[3], k;
            process P { state s; init s;
              trans s -> s { guard k && k < 4; effect a[k - 1] = 1; },
                    s -> s { guard k < 3; effect k = k + 1; }; }
            system async;";
        assert_eq!(groups_may_err(src), [false, false]);
        assert_eq!(
            groups_may_err(&src.replace("guard k && ", "guard ")),
            [true, false]
        );
    }

    #[test]
    fn the_error_states_successors_start_every_other_process_from_zero() {
        // Q never leaves b but from the error state (§8.3), where it starts
        // in `a` with k = 0: then `arr[k - 1]` errs. P's step is the error.
        let src = "byte arr[2], x;
            process P { byte d; state p; init p; trans p -> p { guard d == 0; effect x = 10 / d; }; }
            process Q { byte k = 1; state a, b; init b;
              trans a -> a { effect x = arr[k - 1]; }, b -> b { }; }
            system async;";
        assert_eq!(groups_may_err(src), [true, true, false]);
        // With no error anywhere, the error state is not reached, and `a`
        // neither.
        assert_eq!(
            groups_may_err(&src.replace("10 / d", "10 / (d + 1)")),
            [false, false, false]
        );
    }
}
