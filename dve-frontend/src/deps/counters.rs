//! Counter invariants: bounds on a variable that every process only adds
//! constants to, from where each process stands in its control graph.
//!
//! A *counter* is a scalar variable whose every store is `x = x + c` or
//! `x = x - c` with `c` a constant (never a receive's target, never any
//! other assignment). Along a run that raises no error, a store never
//! wraps (an out-of-range store is an error, §8.1), so `x` equals its
//! initial value plus, for each process, the sum of the constants of the
//! transitions it fired. Those transitions form a path of the process's
//! control graph from its initial state to its current one, so the sum
//! lies within the least and greatest path sums to that control state,
//! found by shortest and longest paths (unbounded where a cycle on the way
//! changes the sum). Where a process is in a known control state that
//! bound is its own; elsewhere it is the hull over its reachable control
//! states.
//!
//! The philosophers' `count` rises as one enters the table and falls as
//! they leave: a process in `inside` has added one, so `count - 1` there
//! cannot underflow, which intervals over single variables cannot show.
//!
//! These bounds hold in every state before a run's first error, so they
//! hold everywhere once, with them, no step may err (the first erroneous
//! step of any run would start from a state they bound). Where some step
//! may err, a run goes on from the error state (§8.3): every variable zero,
//! process 0 in a control state it cannot leave, every other process in its
//! first declared control state. After the last error of a run the counter
//! is 0 plus the path sums from those control states, so the bounds of
//! [`Counter::with_restarts`], the hull of both, hold in every reachable
//! state.

use crate::ir::{BinOp, Expr, Model, SyncKind};

/// A closed interval with unbounded ends as `None`.
pub type Range = (Option<i64>, Option<i64>);

/// One counter: its initial value and, per process, the range of its sum
/// of constants in each control state (`None` where the graph never gets
/// there) and over all of them.
#[derive(Clone, Debug)]
pub struct Counter {
    pub var: usize,
    initial: i64,
    /// Per process that adds to it: (process, per control state, hull).
    parts: Vec<Part>,
    /// The same from the error state (value 0, process 0 stuck, the others
    /// from their first control state), counted once [`Counter::with_restarts`].
    after_error: Vec<Part>,
    restarts: bool,
}

/// A process's sums: (process, per control state, hull over them).
type Part = (usize, Vec<Option<Range>>, Range);

impl Counter {
    /// The counter's bounds in the states where each `(process, control
    /// state)` of `at` holds, or `None` where no state has them all.
    pub fn at(&self, at: &[(usize, u16)]) -> Option<Range> {
        let first = sum_at(self.initial, &self.parts, at);
        if !self.restarts {
            return first;
        }
        // After an error process 0 stands in no control state of its own.
        let again = if at.iter().any(|&(p, _)| p == 0) {
            None
        } else {
            sum_at(0, &self.after_error, at)
        };
        match (first, again) {
            (Some(a), Some(b)) => Some((min(a.0, b.0), max(a.1, b.1))),
            (a, b) => a.or(b),
        }
    }

    /// These bounds widened to hold after errors too.
    pub fn with_restarts(&self) -> Counter {
        Counter {
            restarts: true,
            ..self.clone()
        }
    }
}

fn sum_at(initial: i64, parts: &[Part], at: &[(usize, u16)]) -> Option<Range> {
    let mut sum: Range = (Some(initial), Some(initial));
    for (p, per_state, hull) in parts {
        let r = match at.iter().find(|(q, _)| q == p) {
            Some(&(_, s)) => (*per_state.get(s as usize)?)?,
            None => *hull,
        };
        sum = (add(sum.0, r.0), add(sum.1, r.1));
    }
    Some(sum)
}

fn add(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    a?.checked_add(b?)
}

/// The constant `x = x + c` adds, if `value` is of that form over the
/// scalar at `offset`.
fn increment(value: &Expr, offset: usize) -> Option<i64> {
    let is_x = |e: &Expr| matches!(e, Expr::Load { offset: o, .. } if *o == offset);
    match value {
        Expr::Binary(BinOp::Add, a, b) => match (&**a, &**b) {
            (a, Expr::Const(c)) if is_x(a) => Some(*c as i64),
            (Expr::Const(c), b) if is_x(b) => Some(*c as i64),
            _ => None,
        },
        Expr::Binary(BinOp::Sub, a, b) => match (&**a, &**b) {
            (a, Expr::Const(c)) if is_x(a) => Some(-(*c as i64)),
            _ => None,
        },
        _ => None,
    }
}

/// The counters of `m` that some transition changes.
pub fn counters(m: &Model) -> Vec<Counter> {
    let mut out = Vec::new();
    for (v, var) in m.vars.iter().enumerate() {
        if var.array_len.is_some() {
            continue;
        }
        // Per transition, what it adds; `None` for a store of another form.
        let mut adds = vec![Some(0i64); m.transitions.len()];
        let mut changed = false;
        for t in &m.transitions {
            let targets = match &t.sync {
                SyncKind::Recv { targets, .. } | SyncKind::BufRecv { targets, .. } => &targets[..],
                _ => &[],
            };
            if targets.iter().any(|p| p.var == v) {
                adds[t.id] = None;
            }
            for a in t.effects.iter().filter(|a| a.place.var == v) {
                adds[t.id] = match (adds[t.id], increment(&a.value, var.offset)) {
                    (Some(sum), Some(c)) => Some(sum + c),
                    _ => None,
                };
                changed = true;
            }
        }
        if !changed || adds.iter().any(Option::is_none) {
            continue;
        }
        let initial = crate::model::read_slot(&m.initial, var.offset, var.ty.width(), var.ty.signed()) as i64;
        let mut parts = Vec::new();
        let mut after_error = Vec::new();
        for (p, proc) in m.processes.iter().enumerate() {
            let edges: Vec<(usize, usize, i64)> = m
                .transitions
                .iter()
                .filter(|t| t.process == p)
                .map(|t| (t.from as usize, t.to as usize, adds[t.id].unwrap_or(0)))
                .collect();
            if edges.iter().all(|e| e.2 == 0) {
                continue;
            }
            let n = proc.states.len();
            parts.push(part(p, n, proc.init as usize, &edges));
            if p != 0 {
                after_error.push(part(p, n, 0, &edges));
            }
        }
        out.push(Counter {
            var: v,
            initial,
            parts,
            after_error,
            restarts: false,
        });
    }
    out
}

/// Process `p`'s least and greatest sums over the paths from `start`.
fn part(p: usize, n: usize, start: usize, edges: &[(usize, usize, i64)]) -> Part {
    let lo: Vec<_> = extreme(n, start, edges, |c| -c)
        .into_iter()
        .map(|d| d.map(|b| b.map(|x| -x)))
        .collect();
    let hi = extreme(n, start, edges, |c| c);
    let per_state: Vec<Option<Range>> = (0..n).map(|s| Some((lo[s]?, hi[s]?))).collect();
    let hull = per_state.iter().flatten().fold(None, |acc: Option<Range>, r| {
        Some(acc.map_or(*r, |a| (min(a.0, r.0), max(a.1, r.1))))
    });
    (p, per_state, hull.unwrap_or((Some(0), Some(0))))
}

/// The lower end, `None` meaning unbounded.
fn min(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    Some(a?.min(b?))
}

fn max(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    Some(a?.max(b?))
}

/// Per control state, the greatest sum of `weight(c)` over the paths from
/// `init` (`None` outside: never reached; `Some(None)`: unbounded), by
/// Bellman-Ford: after `n` rounds, a state still gaining lies on or behind
/// a cycle that gains, and so does all it reaches.
fn extreme(
    n: usize,
    init: usize,
    edges: &[(usize, usize, i64)],
    weight: impl Fn(i64) -> i64,
) -> Vec<Option<Option<i64>>> {
    let mut best: Vec<Option<i64>> = vec![None; n];
    let mut unbounded = vec![false; n];
    best[init] = Some(0);
    for round in 0..2 * n + 1 {
        let mut changed = false;
        for &(a, b, c) in edges {
            let Some(d) = best[a] else { continue };
            if unbounded[a] && !unbounded[b] {
                unbounded[b] = true;
                best[b] = Some(best[b].unwrap_or(d));
                changed = true;
            }
            let d = d.saturating_add(weight(c));
            if best[b].is_none_or(|old| d > old) {
                best[b] = Some(d);
                if round >= n {
                    unbounded[b] = true;
                }
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    best.iter()
        .zip(&unbounded)
        .map(|(b, &u)| b.map(|d| (!u).then_some(d)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(src: &str) -> Model {
        crate::load_str("t.dve", src).unwrap()
    }

    #[test]
    fn a_count_of_processes_inside_is_bounded_by_where_each_stands() {
        let m = model(
            "byte count;
             process P { state out, inside, eat; init out;
               trans out -> inside { effect count = count + 1; },
                     inside -> eat {}, eat -> inside {},
                     inside -> out { effect count = count - 1; }; }
             process Q { state out, inside; init out;
               trans out -> inside { effect count = count + 1; },
                     inside -> out { effect count = count - 1; }; }
             system async;",
        );
        let cs = counters(&m);
        assert_eq!(cs.len(), 1);
        let c = &cs[0];
        // P inside (state 1): count is 1 (Q out) or 2 (Q inside).
        assert_eq!(c.at(&[(0, 1)]), Some((Some(1), Some(2))));
        assert_eq!(c.at(&[(0, 2), (1, 1)]), Some((Some(2), Some(2))));
        assert_eq!(c.at(&[]), Some((Some(0), Some(2))));
    }

    #[test]
    fn a_cycle_that_adds_leaves_the_counter_unbounded_above() {
        let m = model(
            "byte n; byte k;
             process P { state a, b; init a;
               trans a -> b { effect n = n + 1; }, b -> a {},
                     a -> a { effect k = 5; }, a -> a { effect k = k + 1; }; }
             system async;",
        );
        let cs = counters(&m);
        // `k` is assigned a constant: not a counter.
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].at(&[(0, 1)]), Some((Some(1), None)));
        assert_eq!(cs[0].at(&[(0, 0)]), Some((Some(0), None)));
    }

    #[test]
    fn a_received_variable_is_no_counter() {
        let m = model(
            "byte n; channel c;
             process P { state a; init a; trans a -> a { sync c?n; }, a -> a { effect n = n + 1; }; }
             process Q { state a; init a; trans a -> a { sync c!3; }; }
             system async;",
        );
        assert!(counters(&m).is_empty());
    }
}
