//! The raw choices a model is made of, as proptest strategies, and their
//! lowering into a [`Model`]. A choice names a variable, process or
//! channel by a small number that lowering takes modulo what is in scope
//! there, so every combination of choices (and every shrunk one) is a
//! well-formed model: names resolve, value counts match the channel,
//! nothing assigns a constant, the property process only reads.

use proptest::prelude::*;
use proptest::sample::select;

use crate::model::*;

/// An expression before its names are resolved.
#[derive(Clone, Debug)]
pub enum RExpr {
    Num(i32),
    /// A scalar in scope (a number where there is none).
    Var(u8),
    /// A scalar of the process's own (any scalar in scope where it has none),
    /// so that processes have steps independent of each other.
    Local(u8),
    /// An element of an array in scope (the index alone where there is none).
    Elem(u8, Box<RExpr>),
    /// `P.s` of any system process.
    State(u8, u8),
    Un(UnOp, Box<RExpr>),
    Bin(BinOp, Box<RExpr>, Box<RExpr>),
}

/// A variable or array element written (by an effect or a receive).
#[derive(Clone, Debug)]
pub struct RLval {
    /// A variable of the process's own, if it has one.
    pub local: bool,
    pub var: u8,
    pub index: RExpr,
}

#[derive(Clone, Debug)]
pub struct RVar {
    pub ty: Ty,
    pub len: Option<u32>,
    pub init: Vec<i32>,
    pub is_const: bool,
}

#[derive(Clone, Debug)]
pub struct RChan {
    /// Untyped (rendezvous): values passed by each sync (0 to 2).
    pub arity: usize,
    /// Typed: the item types and the buffer size (0: rendezvous).
    pub typed: Option<(Vec<Ty>, u32)>,
}

#[derive(Clone, Debug)]
pub struct RSync {
    pub chan: u8,
    pub send: bool,
    pub values: Vec<RExpr>,
    pub targets: Vec<RLval>,
}

#[derive(Clone, Debug)]
pub struct RTrans {
    pub from: u8,
    pub to: u8,
    pub guard: Option<RExpr>,
    pub sync: Option<RSync>,
    pub effects: Vec<(RLval, RExpr)>,
}

#[derive(Clone, Debug)]
pub struct RProc {
    pub locals: Vec<RVar>,
    pub states: usize,
    pub init: u8,
    /// Committed states, as a mask over the states.
    pub commit: u8,
    pub asserts: Vec<(u8, RExpr)>,
    pub trans: Vec<RTrans>,
}

/// A property process: guards over globals and control states, accepting
/// states (a mask).
#[derive(Clone, Debug)]
pub struct RProp {
    pub states: usize,
    pub accept: u8,
    pub trans: Vec<(u8, u8, Option<RExpr>)>,
}

/// An LTL formula without next-time over generated atoms.
#[derive(Clone, Debug)]
pub enum RLtl {
    Atom(RExpr),
    Not(Box<RLtl>),
    And(Box<RLtl>, Box<RLtl>),
    Or(Box<RLtl>, Box<RLtl>),
    Implies(Box<RLtl>, Box<RLtl>),
    F(Box<RLtl>),
    G(Box<RLtl>),
    U(Box<RLtl>, Box<RLtl>),
    R(Box<RLtl>, Box<RLtl>),
    W(Box<RLtl>, Box<RLtl>),
}

#[derive(Clone, Debug)]
pub struct RModel {
    pub globals: Vec<RVar>,
    pub chans: Vec<RChan>,
    pub procs: Vec<RProc>,
    pub property: Option<RProp>,
    pub goal: RExpr,
    pub ltl: RLtl,
}

fn ty() -> impl Strategy<Value = Ty> {
    prop_oneof![3 => Just(Ty::Byte), 1 => Just(Ty::Int)]
}

/// Mostly small numbers; now and then one at or past a type's bounds.
fn num() -> impl Strategy<Value = i32> {
    prop_oneof![
        12 => 0i32..4,
        1 => select(vec![255, 256, -1, 32767, -32768, 5, 100, 40, 1000]),
    ]
}

fn un_op() -> impl Strategy<Value = UnOp> {
    prop_oneof![2 => Just(UnOp::Not), 1 => Just(UnOp::Neg), 1 => Just(UnOp::BitNot)]
}

fn bin_op() -> impl Strategy<Value = BinOp> {
    use BinOp::*;
    prop_oneof![
        6 => select(vec![Add, Sub, Eq, Ne, Lt, Le, Gt, Ge, And, Or]),
        2 => select(vec![Mul, Rem, Div, BitAnd, BitOr]),
        1 => select(vec![Shl, Shr, BitXor, Imply]),
    ]
}

pub fn expr() -> impl Strategy<Value = RExpr> {
    let leaf = prop_oneof![
        3 => num().prop_map(RExpr::Num),
        2 => any::<u8>().prop_map(RExpr::Var),
        2 => any::<u8>().prop_map(RExpr::Local),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(p, s)| RExpr::State(p, s)),
        1 => (any::<u8>(), num()).prop_map(|(a, i)| RExpr::Elem(a, Box::new(RExpr::Num(i)))),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            4 => (bin_op(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| RExpr::Bin(o, Box::new(a), Box::new(b))),
            1 => (un_op(), inner.clone()).prop_map(|(o, a)| RExpr::Un(o, Box::new(a))),
            1 => (any::<u8>(), inner).prop_map(|(a, i)| RExpr::Elem(a, Box::new(i))),
        ]
    })
}

/// A guard: mostly a comparison of a variable with a small number.
fn guard() -> impl Strategy<Value = RExpr> {
    use BinOp::*;
    prop_oneof![
        3 => (select(vec![Lt, Le, Eq, Ne, Gt]), any::<u8>(), any::<bool>(), num())
            .prop_map(|(o, v, local, n)| {
                let v = if local { RExpr::Local(v) } else { RExpr::Var(v) };
                RExpr::Bin(o, Box::new(v), Box::new(RExpr::Num(n)))
            }),
        2 => expr(),
    ]
}

/// An effect's right side: mostly a small step or a small constant.
fn rhs() -> impl Strategy<Value = RExpr> {
    use BinOp::*;
    prop_oneof![
        3 => (select(vec![Add, Sub]), any::<u8>(), any::<bool>(), 1i32..3)
            .prop_map(|(o, v, local, n)| {
                let v = if local { RExpr::Local(v) } else { RExpr::Var(v) };
                RExpr::Bin(o, Box::new(v), Box::new(RExpr::Num(n)))
            }),
        2 => num().prop_map(RExpr::Num),
        2 => expr(),
    ]
}

fn lval() -> impl Strategy<Value = RLval> {
    (
        any::<bool>(),
        any::<u8>(),
        prop_oneof![3 => num().prop_map(RExpr::Num), 1 => expr()],
    )
        .prop_map(|(local, var, index)| RLval { local, var, index })
}

fn var(globals: bool) -> impl Strategy<Value = RVar> {
    let len = prop_oneof![3 => Just(None), 1 => (1u32..5).prop_map(Some)];
    (
        ty(),
        len,
        prop::collection::vec(num(), 0..5),
        prop::bool::weighted(if globals { 0.15 } else { 0.0 }),
    )
        .prop_map(|(ty, len, init, c)| RVar {
            ty,
            len,
            init,
            is_const: c && len.is_none(),
        })
}

fn chan() -> impl Strategy<Value = RChan> {
    let typed = prop_oneof![
        1 => Just(None),
        2 => (prop::collection::vec(ty(), 1..3), 0u32..4).prop_map(Some),
    ];
    (0usize..3, typed).prop_map(|(arity, typed)| RChan { arity, typed })
}

fn sync() -> impl Strategy<Value = RSync> {
    (
        any::<u8>(),
        any::<bool>(),
        prop::collection::vec(prop_oneof![2 => num().prop_map(RExpr::Num), 1 => expr()], 2),
        prop::collection::vec(lval(), 2),
    )
        .prop_map(|(chan, send, values, targets)| RSync {
            chan,
            send,
            values,
            targets,
        })
}

fn trans() -> impl Strategy<Value = RTrans> {
    (
        any::<u8>(),
        any::<u8>(),
        prop::option::weighted(0.6, guard()),
        prop::option::weighted(0.3, sync()),
        prop::collection::vec((lval(), rhs()), 0..3),
    )
        .prop_map(|(from, to, guard, sync, effects)| RTrans {
            from,
            to,
            guard,
            sync,
            effects,
        })
}

fn process() -> impl Strategy<Value = RProc> {
    (
        prop::collection::vec(var(false), 0..3),
        1usize..5,
        any::<u8>(),
        prop_oneof![3 => Just(0u8), 1 => any::<u8>()],
        prop::collection::vec((any::<u8>(), guard()), 0..2),
        prop::collection::vec(trans(), 1..6),
    )
        .prop_map(|(locals, states, init, commit, asserts, trans)| RProc {
            locals,
            states,
            init,
            commit,
            asserts: if asserts.len() == 1 && states > 0 {
                asserts
            } else {
                Vec::new()
            },
            trans,
        })
}

fn property() -> impl Strategy<Value = RProp> {
    (
        1usize..4,
        1u8..=255,
        prop::collection::vec(
            (any::<u8>(), any::<u8>(), prop::option::weighted(0.7, guard())),
            1..5,
        ),
    )
        .prop_map(|(states, accept, trans)| RProp {
            states,
            accept,
            trans,
        })
}

fn ltl() -> impl Strategy<Value = RLtl> {
    let leaf = guard().prop_map(RLtl::Atom);
    leaf.prop_recursive(3, 8, 2, |inner| {
        let b = |f: fn(Box<RLtl>, Box<RLtl>) -> RLtl| {
            (inner.clone(), inner.clone()).prop_map(move |(a, c)| f(Box::new(a), Box::new(c)))
        };
        prop_oneof![
            inner.clone().prop_map(|a| RLtl::Not(Box::new(a))),
            inner.clone().prop_map(|a| RLtl::F(Box::new(a))),
            inner.clone().prop_map(|a| RLtl::G(Box::new(a))),
            b(RLtl::And),
            b(RLtl::Or),
            b(RLtl::Implies),
            b(RLtl::U),
            b(RLtl::R),
            b(RLtl::W),
        ]
    })
}

/// Every model the generator makes.
pub fn model() -> impl Strategy<Value = RModel> {
    (
        prop::collection::vec(var(true), 0..5),
        prop::collection::vec(chan(), 0..3),
        prop::collection::vec(process(), 1..4),
        prop::option::weighted(0.25, property()),
        guard(),
        ltl(),
    )
        .prop_map(|(globals, chans, procs, property, goal, ltl)| RModel {
            globals,
            chans,
            procs,
            property,
            goal,
            ltl,
        })
}

/// What an expression may name where it is lowered.
struct Scope<'a> {
    /// Scalars readable (constants included).
    scalars: Vec<String>,
    /// Arrays readable: name and length.
    arrays: Vec<(String, u32)>,
    /// Variables writable: name and length (`None`: a scalar).
    writable: Vec<(String, Option<u32>)>,
    /// Of those, how many at the end are the process's own (scalars and
    /// writable variables are listed globals first).
    own_scalars: usize,
    own_writable: usize,
    /// System processes and their states.
    procs: &'a [(String, Vec<String>)],
}

fn pick<T>(v: &[T], i: u8) -> Option<&T> {
    (!v.is_empty()).then(|| &v[i as usize % v.len()])
}

impl Scope<'_> {
    fn expr(&self, e: &RExpr) -> Expr {
        match e {
            RExpr::Num(n) => Expr::Num(*n),
            RExpr::Var(i) => match pick(&self.scalars, *i) {
                Some(v) => Expr::Var(v.clone()),
                None => Expr::Num(*i as i32 % 4),
            },
            RExpr::Local(i) if self.own_scalars > 0 => {
                let own = &self.scalars[self.scalars.len() - self.own_scalars..];
                Expr::Var(pick(own, *i).unwrap().clone())
            }
            RExpr::Local(i) => self.expr(&RExpr::Var(*i)),
            RExpr::Elem(a, ix) => match pick(&self.arrays, *a) {
                Some((name, _)) => Expr::Elem(name.clone(), Box::new(self.expr(ix))),
                None => self.expr(ix),
            },
            RExpr::State(p, s) => match pick(self.procs, *p) {
                Some((name, states)) => Expr::State(name.clone(), pick(states, *s).unwrap().clone()),
                None => Expr::Num(0),
            },
            RExpr::Un(o, a) => Expr::Un(*o, Box::new(self.expr(a))),
            RExpr::Bin(o, a, b) => Expr::Bin(*o, Box::new(self.expr(a)), Box::new(self.expr(b))),
        }
    }

    fn lval(&self, l: &RLval) -> Option<LValue> {
        let all = &self.writable[..];
        let own = &all[all.len() - self.own_writable..];
        let (name, len) = pick(if l.local && !own.is_empty() { own } else { all }, l.var)?;
        Some(LValue {
            name: name.clone(),
            index: len.map(|_| self.expr(&l.index)),
        })
    }
}

fn decl(name: String, v: &RVar) -> VarDecl {
    let (lo, hi) = v.ty.range();
    let vals: Vec<i32> = v.init.iter().map(|&x| x.clamp(lo, hi)).collect();
    let init = match v.len {
        None => vals
            .first()
            .map(|&x| Init::Scalar(x))
            .or(v.is_const.then_some(Init::Scalar(1))),
        // Up to one more than the array holds: the extra value is cut.
        Some(n) => (!vals.is_empty()).then(|| Init::List(vals.into_iter().take(n as usize + 1).collect())),
    };
    VarDecl {
        is_const: v.is_const,
        ty: v.ty,
        name,
        len: v.len,
        init,
    }
}

fn add_vars(scope: &mut Scope, decls: &[VarDecl]) {
    for d in decls {
        match d.len {
            None => scope.scalars.push(d.name.clone()),
            Some(n) => scope.arrays.push((d.name.clone(), n)),
        }
        if !d.is_const {
            scope.writable.push((d.name.clone(), d.len));
        }
    }
}

fn states(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("s{i}")).collect()
}

fn mask(m: u8, n: usize) -> Vec<usize> {
    (0..n).filter(|i| m & (1 << i) != 0).collect()
}

/// The model, the goal and the LTL formula a raw model lowers to.
pub struct Lowered {
    pub model: Model,
    pub goal: String,
    pub ltl: String,
}

pub fn lower(r: &RModel) -> Lowered {
    let globals: Vec<VarDecl> = r
        .globals
        .iter()
        .enumerate()
        .map(|(i, v)| decl(format!("g{i}"), v))
        .collect();
    let channels: Vec<ChanDecl> = r
        .chans
        .iter()
        .enumerate()
        .map(|(i, c)| ChanDecl {
            name: format!("c{i}"),
            typed: c.typed.clone(),
        })
        .collect();
    let procs: Vec<(String, Vec<String>)> = r
        .procs
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("P{i}"), states(p.states)))
        .collect();
    let mut global_scope = Scope {
        scalars: Vec::new(),
        arrays: Vec::new(),
        writable: Vec::new(),
        own_scalars: 0,
        own_writable: 0,
        procs: &procs,
    };
    add_vars(&mut global_scope, &globals);
    let mut processes = Vec::new();
    for (i, p) in r.procs.iter().enumerate() {
        let locals: Vec<VarDecl> = p
            .locals
            .iter()
            .enumerate()
            .map(|(j, v)| decl(format!("l{i}_{j}"), v))
            .collect();
        let mut scope = Scope {
            scalars: global_scope.scalars.clone(),
            arrays: global_scope.arrays.clone(),
            writable: global_scope.writable.clone(),
            own_scalars: 0,
            own_writable: 0,
            procs: &procs,
        };
        add_vars(&mut scope, &locals);
        scope.own_scalars = scope.scalars.len() - global_scope.scalars.len();
        scope.own_writable = scope.writable.len() - global_scope.writable.len();
        let n = p.states;
        let trans = p
            .trans
            .iter()
            .map(|t| Transition {
                from: t.from as usize % n,
                to: t.to as usize % n,
                guard: t.guard.as_ref().map(|g| scope.expr(g)),
                sync: t.sync.as_ref().and_then(|s| {
                    let (c, rc) = pick(&channels, s.chan).zip(pick(&r.chans, s.chan))?;
                    let arity = rc.typed.as_ref().map_or(rc.arity, |t| t.0.len());
                    if s.send {
                        let vals = (0..arity).map(|k| scope.expr(&s.values[k])).collect();
                        Some(Sync::Send(c.name.clone(), vals))
                    } else {
                        let targets: Option<Vec<LValue>> =
                            (0..arity).map(|k| scope.lval(&s.targets[k])).collect();
                        Some(Sync::Recv(c.name.clone(), targets?))
                    }
                }),
                effects: t
                    .effects
                    .iter()
                    .filter_map(|(l, e)| Some((scope.lval(l)?, scope.expr(e))))
                    .collect(),
            })
            .collect();
        processes.push(Process {
            name: procs[i].0.clone(),
            locals,
            states: procs[i].1.clone(),
            init: p.init as usize % n,
            commit: mask(p.commit, n),
            accept: Vec::new(),
            asserts: p
                .asserts
                .iter()
                .map(|(s, e)| (*s as usize % n, scope.expr(e)))
                .collect(),
            trans,
        });
    }
    if let Some(prop) = &r.property {
        let n = prop.states;
        processes.push(Process {
            name: "Prop".into(),
            locals: Vec::new(),
            states: states(n),
            init: 0,
            commit: Vec::new(),
            accept: mask(prop.accept, n),
            asserts: Vec::new(),
            trans: prop
                .trans
                .iter()
                .map(|(f, t, g)| Transition {
                    from: *f as usize % n,
                    to: *t as usize % n,
                    guard: g.as_ref().map(|g| global_scope.expr(g)),
                    sync: None,
                    effects: Vec::new(),
                })
                .collect(),
        });
    }
    let model = Model {
        globals,
        channels,
        processes,
        has_property: r.property.is_some(),
    };
    Lowered {
        model,
        goal: global_scope.expr(&r.goal).to_string(),
        ltl: ltl_text(&global_scope, &r.ltl),
    }
}

fn ltl_text(scope: &Scope, f: &RLtl) -> String {
    let t = |g: &RLtl| ltl_text(scope, g);
    match f {
        RLtl::Atom(e) => format!("({})", scope.expr(e)),
        RLtl::Not(a) => format!("!({})", t(a)),
        RLtl::F(a) => format!("F ({})", t(a)),
        RLtl::G(a) => format!("G ({})", t(a)),
        RLtl::And(a, b) => format!("({}) && ({})", t(a), t(b)),
        RLtl::Or(a, b) => format!("({}) || ({})", t(a), t(b)),
        RLtl::Implies(a, b) => format!("({}) -> ({})", t(a), t(b)),
        RLtl::U(a, b) => format!("({}) U ({})", t(a), t(b)),
        RLtl::R(a, b) => format!("({}) R ({})", t(a), t(b)),
        RLtl::W(a, b) => format!("({}) W ({})", t(a), t(b)),
    }
}
