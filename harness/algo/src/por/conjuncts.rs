//! The conjuncts as the choice reads them: each group's in one array, and
//! the common shapes of a conjunct (a control state, a variable compared
//! with a constant) tested without walking its expression. A closure asks
//! for the truths of hundreds of conjuncts a state, and the front end's
//! general test ([`Deps::holds`]) walks an expression tree for each.

use dve_frontend::deps::{ConjunctKind, Deps, Test};
use dve_frontend::ir::{BinOp, Expr, UnOp};
use dve_frontend::model::read_slot;

/// Each group's conjuncts in one array: a closure reads them for every
/// disabled group it takes in, and one contiguous array keeps that walk
/// compact, where each group's own list sits in an allocation of its own.
pub struct GroupConjuncts {
    /// Group `g`'s conjuncts are `ids[start[g]..start[g + 1]]`.
    start: Vec<u32>,
    ids: Vec<u32>,
}

impl GroupConjuncts {
    pub fn new(deps: &Deps) -> GroupConjuncts {
        let mut start = vec![0];
        let mut ids = Vec::new();
        for g in &deps.groups {
            ids.extend(g.conjuncts.iter().map(|&c| c as u32));
            start.push(ids.len() as u32);
        }
        GroupConjuncts { start, ids }
    }

    pub(super) fn of(&self, g: usize) -> &[u32] {
        &self.ids[self.start[g] as usize..self.start[g + 1] as usize]
    }
}

/// A scalar of the state vector, as `read_slot` reads it, maybe divided by
/// a constant or reduced modulo one (`div`, a nonzero divisor other than
/// -1, so that it cannot err; `rem` for the remainder).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scalar {
    offset: u32,
    width: u8,
    signed: bool,
    rem: bool,
    div: Option<i32>,
}

impl Scalar {
    fn of(e: &Expr) -> Option<Scalar> {
        match e {
            Expr::Load { ty, offset } => Some(Scalar {
                offset: u32::try_from(*offset).ok()?,
                width: ty.width() as u8,
                signed: ty.signed(),
                rem: false,
                div: None,
            }),
            Expr::Binary(op @ (BinOp::Div | BinOp::Rem), a, b) => match (Scalar::of(a)?, &**b) {
                (x, &Expr::Const(k)) if x.div.is_none() && k != 0 && k != -1 => Some(Scalar {
                    rem: *op == BinOp::Rem,
                    div: Some(k),
                    ..x
                }),
                _ => None,
            },
            _ => None,
        }
    }

    #[inline(always)]
    fn read(self, s: &[u8]) -> i32 {
        let v = read_slot(s, self.offset as usize, self.width as usize, self.signed);
        match self.div {
            None => v,
            Some(k) if self.rem => v % k,
            Some(k) => v / k,
        }
    }
}

/// A conjunct's test in one of the shapes tested directly; `negate`
/// inverts it (`not`, or a test of the comparison's value being zero).
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// The 2-byte control state at `offset` is `state`.
    Control { offset: u32, state: u16 },
    /// `x op k`, `x` a scalar, `op` a comparison.
    Compare {
        x: Scalar,
        op: BinOp,
        k: i32,
        negate: bool,
    },
    /// `x op y`, both scalars.
    Compare2 {
        x: Scalar,
        op: BinOp,
        y: Scalar,
        negate: bool,
    },
    /// `x != 0` (or `x > 0`, `positive`).
    Value { x: Scalar, positive: bool, negate: bool },
    /// `a[x] op k`, `a` an array of `len` elements of `width` bytes at
    /// `base`, `x` a scalar (an index out of range errs).
    Indexed {
        base: u32,
        len: u32,
        width: u8,
        signed: bool,
        x: Scalar,
        op: BinOp,
        k: i32,
        negate: bool,
    },
    /// `x == k0 || x == k1 || ...`, the first `n` of `ks` (a message
    /// checked against the kinds a transition takes).
    AnyOf {
        x: Scalar,
        ks: [i32; ANY_OF],
        n: u8,
        negate: bool,
    },
    /// Anything else: [`Deps::holds`].
    General,
}

/// The most constants an [`Shape::AnyOf`] holds.
const ANY_OF: usize = 6;

/// Every conjunct's [`Shape`].
pub struct Quick {
    shapes: Vec<Shape>,
}

impl Quick {
    pub fn new(deps: &Deps) -> Quick {
        let shapes = deps
            .conjuncts
            .iter()
            .map(|c| match &c.kind {
                ConjunctKind::Control { process, state } => u32::try_from(deps.state_offset(*process))
                    .map_or(Shape::General, |offset| Shape::Control {
                        offset,
                        state: *state,
                    }),
                ConjunctKind::Guard(e, test) => shape(e, *test == Test::Positive, false),
                _ => Shape::General,
            })
            .collect();
        Quick { shapes }
    }

    /// Whether conjunct `c` holds in `s` (`None`: its evaluation errs), as
    /// [`Deps::holds`] says.
    #[inline]
    pub fn holds(&self, deps: &Deps, c: usize, s: &[u8]) -> Option<bool> {
        Some(match self.shapes[c] {
            Shape::Control { offset, state } => {
                let o = offset as usize;
                u16::from_le_bytes([s[o], s[o + 1]]) == state
            }
            Shape::Compare { x, op, k, negate } => compare(op, x.read(s), k) != negate,
            Shape::Compare2 { x, op, y, negate } => compare(op, x.read(s), y.read(s)) != negate,
            Shape::Value { x, positive, negate } => {
                let v = x.read(s);
                (if positive { v > 0 } else { v != 0 }) != negate
            }
            Shape::Indexed {
                base,
                len,
                width,
                signed,
                x,
                op,
                k,
                negate,
            } => {
                let i = x.read(s);
                if i < 0 || i as u32 >= len {
                    return None;
                }
                let v = read_slot(
                    s,
                    base as usize + i as usize * width as usize,
                    width as usize,
                    signed,
                );
                compare(op, v, k) != negate
            }
            Shape::AnyOf { x, ks, n, negate } => {
                let v = x.read(s);
                ks[..n as usize].contains(&v) != negate
            }
            Shape::General => return deps.holds(c, s),
        })
    }
}

/// The shape of `e` tested nonzero (or positive), negated if `negate`.
fn shape(e: &Expr, positive: bool, negate: bool) -> Shape {
    match e {
        // `not a` is 1 exactly when `a` is 0, so both tests of it agree.
        Expr::Unary(UnOp::Not, a) => shape(a, false, !negate),
        // So is a disjunction: of equalities of one scalar, a set.
        Expr::Binary(BinOp::Or, ..) => {
            let mut ks = [0; ANY_OF];
            let mut n = 0;
            let mut x = None;
            match (equalities(e, &mut x, &mut ks, &mut n), x) {
                (true, Some(x)) => Shape::AnyOf {
                    x,
                    ks,
                    n: n as u8,
                    negate,
                },
                _ => Shape::General,
            }
        }
        // A comparison is 0 or 1: both tests of it agree.
        Expr::Binary(op, a, b) if is_comparison(*op) => match (Scalar::of(a), &**b, &**a, Scalar::of(b)) {
            (Some(x), Expr::Const(k), _, _) => Shape::Compare {
                x,
                op: *op,
                k: *k,
                negate,
            },
            (_, _, Expr::Const(k), Some(x)) => Shape::Compare {
                x,
                op: flipped(*op),
                k: *k,
                negate,
            },
            (Some(x), _, _, Some(y)) => Shape::Compare2 {
                x,
                op: *op,
                y,
                negate,
            },
            _ => match (&**a, &**b) {
                (a, &Expr::Const(k)) => indexed(a, *op, k, negate),
                (&Expr::Const(k), b) => indexed(b, flipped(*op), k, negate),
                _ => Shape::General,
            },
        },
        _ => match Scalar::of(e) {
            Some(x) => Shape::Value { x, positive, negate },
            None => indexed(e, if positive { BinOp::Gt } else { BinOp::Ne }, 0, negate),
        },
    }
}

/// `e op k` for `e` an array element at a scalar index, else the general
/// test.
fn indexed(e: &Expr, op: BinOp, k: i32, negate: bool) -> Shape {
    let Expr::LoadIndex {
        ty,
        offset,
        len,
        index,
    } = e
    else {
        return Shape::General;
    };
    match (Scalar::of(index), u32::try_from(*offset)) {
        (Some(x), Ok(base)) => Shape::Indexed {
            base,
            len: *len,
            width: ty.width() as u8,
            signed: ty.signed(),
            x,
            op,
            k,
            negate,
        },
        _ => Shape::General,
    }
}

/// Whether `e` is a disjunction of `x == k` (either way round) over one
/// scalar `x`, at most [`ANY_OF`] of them: their constants left in `ks`.
fn equalities(e: &Expr, x: &mut Option<Scalar>, ks: &mut [i32; ANY_OF], n: &mut usize) -> bool {
    match e {
        Expr::Binary(BinOp::Or, a, b) => equalities(a, x, ks, n) && equalities(b, x, ks, n),
        Expr::Binary(BinOp::Eq, a, b) => {
            let (y, k) = match (Scalar::of(a), &**b, &**a, Scalar::of(b)) {
                (Some(y), &Expr::Const(k), _, _) | (_, _, &Expr::Const(k), Some(y)) => (y, k),
                _ => return false,
            };
            if *n == ANY_OF || x.is_some_and(|x| x != y) {
                return false;
            }
            *x = Some(y);
            ks[*n] = k;
            *n += 1;
            true
        }
        _ => false,
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// `op` with its operands swapped: `k op x` is `x (flipped op) k`.
fn flipped(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

#[inline(always)]
fn compare(op: BinOp, x: i32, k: i32) -> bool {
    match op {
        BinOp::Eq => x == k,
        BinOp::Ne => x != k,
        BinOp::Lt => x < k,
        BinOp::Le => x <= k,
        BinOp::Gt => x > k,
        _ => x >= k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape beside the general test, on random state vectors: the
    /// same truths and the same errors.
    #[test]
    fn quick_tests_agree_with_the_front_end() {
        let src = "byte x, a[2]; int i;
process P { state s, t; init s;
 trans s -> t { guard x == 3 && 3 < x && i >= -2; },
       s -> s { guard not (i > -2) && x && not x; },
       t -> s { guard i && x != 250 && -7 <= i; },
       t -> t { guard x / 2 == 1 && a[x] == 0 && not (not (i < 0)) && i % -3 != 1 && x / 0 == 0; }; }
process Q { state u; init u; trans u -> u { guard P.t && x <= i && not (i / -1 > x) && a[1] % 4 != x; },
  u -> u { guard (x == 3 || 250 == x || x == 1) && not (i == 1 || i == -2) && (x == 2 || i == 2); },
  u -> u { guard 1 > a[i % 5] && not a[x / 100] && a[i] && a[x % 2] >= 1; }; }
system async;";
        let m = dve_frontend::load_str("shapes.dve", src).unwrap();
        let deps = Deps::new(&m);
        let quick = Quick::new(&deps);
        let count = |pick: fn(&Shape) -> bool| quick.shapes.iter().filter(|s| pick(s)).count();
        assert!(
            count(|s| !matches!(s, Shape::General)) >= 16,
            "{:?}",
            quick.shapes
        );
        // Two sets of equalities (the disjunction over two variables is not
        // one) and five array elements.
        assert_eq!(
            count(|s| matches!(s, Shape::AnyOf { .. })),
            2,
            "{:?}",
            quick.shapes
        );
        assert_eq!(
            count(|s| matches!(s, Shape::Indexed { .. })),
            5,
            "{:?}",
            quick.shapes
        );
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut state = vec![0u8; m.state_len];
        let (mut errors, mut truths) = (0, [0; 2]);
        for _ in 0..20_000 {
            for b in state.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Small values often, so that the comparisons go both ways.
                *b = if seed.is_multiple_of(3) {
                    (seed >> 8) as u8
                } else {
                    (seed >> 8) as u8 % 5
                };
            }
            for c in 0..deps.conjuncts.len() {
                let (q, d) = (quick.holds(&deps, c, &state), deps.holds(c, &state));
                assert_eq!(q, d, "conjunct {c} ({:?}) in {state:?}", quick.shapes[c]);
                match d {
                    None => errors += 1,
                    Some(t) => truths[t as usize] += 1,
                }
            }
        }
        assert!(
            errors > 0 && truths[0] > 0 && truths[1] > 0,
            "{errors} {truths:?}"
        );
    }
}
