//! The model's dependency information for partial-order reduction, derived
//! once from the IR (PINS's, as LTSmin's DVE front end has it).
//!
//! **Transition groups**: one per local or buffered transition, one per
//! (sender, receiver) pair of a synchronous channel in two different
//! processes that can ever be enabled together (§7.3, §7.5). The property
//! process is not part of the reduced system: its transitions form no
//! group ([`Deps::property`] names it), and a rendezvous with it makes the
//! model irreducible ([`Deps::irreducible`]).
//!
//! **Sets**, over the state-vector slots of [`crate::interp::model_info`]
//! (control states, variables, array elements, buffer counts and items):
//! what a group reads (guards, control states, committed conditions,
//! values, indices, effect right-hand sides), may write (an element at an
//! index not known statically counts as the whole array; a buffer operation
//! its count and every item) and must write (control states, scalars and
//! elements at constant indices, buffer counts) when it does not err.
//!
//! **Guards** are split into conjuncts, so that a group is enabled exactly
//! when all its conjuncts hold: the control state of each process involved,
//! each `and`-operand of the guards (one conjunct for a guard that may raise
//! a run-time error, §8.2: an error makes the transition enabled, so only
//! the whole guard is false exactly when it is not enabled), "the buffer is
//! not full / not empty", and, in a model with committed states, "no other
//! process is in a committed state" for a group whose processes are not
//! (§7.5). Conjuncts are shared between groups.
//!
//! **Per conjunct** the necessary enabling set (groups that can make it true
//! from false) and the necessary disabling set (groups that can make it
//! false from true), by a step that does not err: moves into or out of the
//! control state, sends or receives on the buffer, and for a guard the
//! groups writing what it reads, less those after which the guard is known
//! to be always false (not enabling) or always true (not disabling). A
//! may-be-co-enabled relation between conjuncts
//! ([`Deps::may_be_coenabled`]): two control states of one process, "no
//! other process committed" and another's committed state, and comparisons
//! of variables with constants that no value meets are never co-enabled.
//!
//! **Errors**: [`Group::may_err`] is false only where an interval analysis
//! ([`may_error`]) shows the group never raises a run-time error; an
//! erroneous step jumps to the error state and so may change every slot,
//! which [`Deps::dependent`] (the relation between steps that do not err)
//! leaves to the reduction.

pub mod counters;
pub mod may_error;
#[cfg(test)]
mod tests;

use crate::interp::{eval, model_info};
use crate::ir::{BinOp, Expr, Model, Place, SyncKind, SystemKind, Transition};
use crate::model::NONE;

/// A set of slots or groups: sorted indices.
pub type Set = Vec<usize>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// A local or buffered transition.
    Single(usize),
    /// A rendezvous: sender, receiver.
    Rendezvous(usize, usize),
}

#[derive(Clone, Debug)]
pub struct Group {
    pub kind: GroupKind,
    pub reads: Set,
    /// What the step itself reads (effects, values, indices; a guard that may
    /// err too): its outcome, once enabled, depends on nothing else.
    pub action_reads: Set,
    pub may_write: Set,
    pub must_write: Set,
    /// Indices into [`Deps::conjuncts`]; the group is enabled exactly when
    /// all hold.
    pub conjuncts: Set,
    /// The group may raise a run-time error (not shown impossible).
    pub may_err: bool,
    /// Where, when it may.
    pub err_source: Option<ErrSource>,
}

/// What part of a step may raise a run-time error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrSource {
    Guard,
    Effect(EffectErr),
    /// Both sides of a rendezvous may assign one global variable (§7.3).
    SharedGlobal,
}

/// What in a step's effects may raise its first run-time error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EffectErr {
    /// A value stored into this variable may leave its type's range.
    Range(usize),
    /// An index into this array may be out of its bounds.
    Index(usize),
    /// An expression may err (a division by zero, an index read).
    Expression,
}

impl ErrSource {
    /// In words, naming `m`'s variables.
    pub fn describe(&self, m: &Model) -> String {
        match self {
            ErrSource::Guard => "its guard".into(),
            ErrSource::Effect(EffectErr::Range(v)) => {
                let var = &m.vars[*v];
                format!(
                    "its effects: {} may be given a value outside {}",
                    var.name,
                    var.ty.name()
                )
            }
            ErrSource::Effect(EffectErr::Index(v)) => {
                format!(
                    "its effects: an index into {} may be out of bounds",
                    m.vars[*v].name
                )
            }
            ErrSource::Effect(EffectErr::Expression) => "its effects: an expression may err".into(),
            ErrSource::SharedGlobal => "both sides assign one global".into(),
        }
    }
}

impl Group {
    /// The transitions, sender first.
    pub fn transitions(&self) -> Vec<usize> {
        match self.kind {
            GroupKind::Single(t) => vec![t],
            GroupKind::Rendezvous(s, r) => vec![s, r],
        }
    }
}

/// How a guard operand is tested: `and` tests its left operand with `!= 0`
/// and its right one with `> 0` (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    NonZero,
    Positive,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConjunctKind {
    /// Process `process` is in control state `state`.
    Control {
        process: usize,
        state: u16,
    },
    Guard(Expr, Test),
    BufferNotFull {
        channel: usize,
    },
    BufferNotEmpty {
        channel: usize,
    },
    /// No process outside `movers` is in a committed control state.
    NoneCommitted {
        movers: Vec<usize>,
    },
}

#[derive(Clone, Debug)]
pub struct Conjunct {
    pub kind: ConjunctKind,
    pub reads: Set,
    /// Necessary enabling set: groups that can make it true.
    pub enabling: Set,
    /// Necessary disabling set: groups that can make it false.
    pub disabling: Set,
    /// A guard whose evaluation may raise a run-time error: its step is
    /// enabled then too (§8.2), whatever its value would be.
    pub may_err: bool,
}

#[derive(Clone, Debug)]
pub struct Deps {
    /// Number of slots (of `model_info(m).slots`).
    pub slots: usize,
    pub groups: Vec<Group>,
    pub conjuncts: Vec<Conjunct>,
    /// Why the system cannot be reduced, if so (a property process aside:
    /// that is [`Deps::property`]).
    pub irreducible: Option<String>,
    /// The property process, which forms no group: the system is reduced
    /// under it only as the product allows.
    pub property: Option<usize>,
    /// Per process, the committed flag of each control state.
    committed: Vec<Vec<bool>>,
    bounds: may_error::Bounds,
    state_offsets: Vec<usize>,
    buffers: Vec<Option<(usize, u32)>>,
    /// The slot of every byte of the state vector.
    slot_of_byte: Vec<usize>,
}

/// Maps byte offsets to slot indices.
struct SlotMap<'a> {
    of_byte: &'a [usize],
}

impl SlotMap<'_> {
    fn slot(&self, offset: usize) -> usize {
        self.of_byte[offset]
    }
    fn array(&self, offset: usize, width: usize, len: u32, out: &mut Set) {
        (0..len as usize).for_each(|i| out.push(self.slot(offset + i * width)));
    }
    fn expr_reads(&self, e: &Expr, out: &mut Set) {
        match e {
            Expr::Const(_) => {}
            Expr::Load { offset, .. } | Expr::InState { offset, .. } => out.push(self.slot(*offset)),
            Expr::LoadIndex {
                ty,
                offset,
                len,
                index,
            } => {
                match **index {
                    Expr::Const(i) if i >= 0 && (i as u32) < *len => {
                        out.push(self.slot(offset + i as usize * ty.width()))
                    }
                    _ => self.array(*offset, ty.width(), *len, out),
                }
                self.expr_reads(index, out);
            }
            Expr::ConstIndex { index, .. } | Expr::Unary(_, index) => self.expr_reads(index, out),
            Expr::Binary(_, a, b) => {
                self.expr_reads(a, out);
                self.expr_reads(b, out);
            }
        }
    }
    /// Records a store into `place`: its index's reads, may and must writes.
    fn place(&self, p: &Place, reads: &mut Set, may: &mut Set, must: &mut Set) {
        match &p.index {
            None => {
                may.push(self.slot(p.offset));
                must.push(self.slot(p.offset));
            }
            Some((len, idx)) => {
                self.expr_reads(idx, reads);
                match **idx {
                    Expr::Const(i) if i >= 0 && (i as u32) < *len => {
                        let s = self.slot(p.offset + i as usize * p.ty.width());
                        may.push(s);
                        must.push(s);
                    }
                    _ => self.array(p.offset, p.ty.width(), *len, may),
                }
            }
        }
    }
}

fn normalise(s: &mut Set) {
    s.sort_unstable();
    s.dedup();
}

/// Whether two sorted sets meet.
pub fn meets(a: &[usize], b: &[usize]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// Splits `e` (tested with `test`) into its `and`-operands.
fn split(e: &Expr, test: Test, out: &mut Vec<(Expr, Test)>) {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            split(a, Test::NonZero, out);
            split(b, Test::Positive, out);
        }
        _ => out.push((e.clone(), test)),
    }
}

/// Collects the conjuncts, shared between groups.
#[derive(Default)]
struct Conjuncts(Vec<Conjunct>);

impl Conjuncts {
    fn add(&mut self, kind: ConjunctKind, mut reads: Set) -> usize {
        if let Some(i) = self.0.iter().position(|c| c.kind == kind) {
            return i;
        }
        normalise(&mut reads);
        self.0.push(Conjunct {
            kind,
            reads,
            enabling: Vec::new(),
            disabling: Vec::new(),
            may_err: false,
        });
        self.0.len() - 1
    }
}

/// Whether a conjunct holds in a state: `Some(truth)`, or `None` when
/// evaluating it raises a run-time error.
pub type Truth = Option<bool>;

impl Deps {
    /// Derives the groups, their sets and the conjuncts from the model.
    pub fn new(m: &Model) -> Deps {
        let info = model_info(m);
        let mut of_byte = vec![usize::MAX; m.state_len];
        for (i, s) in info.slots.iter().enumerate() {
            of_byte[s.offset..s.offset + s.width].fill(i);
        }
        let map = SlotMap { of_byte: &of_byte };
        let bounds = may_error::Bounds::of(m);
        let committed_slots: Set = m
            .processes
            .iter()
            .filter(|p| p.committed.iter().any(|&c| c))
            .map(|p| map.slot(p.state_offset))
            .collect();
        let is_committed = |t: &Transition| m.processes[t.process].committed[t.from as usize];
        let system = |t: &Transition| Some(t.process) != m.property;
        let mut kinds = Vec::new();
        for t in m.transitions.iter().filter(|t| system(t)) {
            match &t.sync {
                SyncKind::Recv { .. } => {}
                SyncKind::Send { channel, .. } => {
                    // A pair with one side committed and one not is never
                    // enabled (§7.5).
                    for r in m
                        .transitions
                        .iter()
                        .filter(|r| system(r) && r.process != t.process)
                    {
                        if matches!(r.sync, SyncKind::Recv { channel: c, .. } if c == *channel)
                            && is_committed(t) == is_committed(r)
                        {
                            kinds.push(GroupKind::Rendezvous(t.id, r.id));
                        }
                    }
                }
                _ => kinds.push(GroupKind::Single(t.id)),
            }
        }
        let mut conjuncts = Conjuncts::default();
        let mut groups = Vec::new();
        // Per group, the bounds where its processes are in its source
        // states (`None`: never all at once, so the group never fires).
        let mut group_bounds = Vec::new();
        let property_syncs = m.property.is_some_and(|p| {
            m.transitions
                .iter()
                .any(|t| t.process == p && !matches!(t.sync, SyncKind::None))
        });
        let mut irreducible = if m.system == SystemKind::Sync {
            Some(
                "a `system sync` model has no interleavings to cut (every step moves every process)"
                    .to_string(),
            )
        } else if property_syncs {
            Some("the property process synchronises with the system".to_string())
        } else {
            None
        };
        for kind in kinds {
            let ts: Vec<&Transition> = match kind {
                GroupKind::Single(t) => vec![&m.transitions[t]],
                GroupKind::Rendezvous(s, r) => vec![&m.transitions[s], &m.transitions[r]],
            };
            let (mut reads, mut may, mut must, mut cs) = (Set::new(), Set::new(), Set::new(), Set::new());
            let from: Vec<(usize, u16)> = ts.iter().map(|t| (t.process, t.from)).collect();
            let gb = bounds.at(&from);
            let guard_may_err =
                |g: &Option<Expr>| gb.as_ref().is_some_and(|b| may_error::guard_may_err(b, g));
            let mut err_source = gb.as_ref().and_then(|b| {
                if ts.iter().any(|t| may_error::guard_may_err(b, &t.guard)) {
                    Some(ErrSource::Guard)
                } else {
                    may_error::effects_err(m, b, &ts).map(ErrSource::Effect)
                }
            });
            for t in &ts {
                let cslot = map.slot(t.control_offset);
                let control = ConjunctKind::Control {
                    process: t.process,
                    state: t.from,
                };
                cs.push(conjuncts.add(control, vec![cslot]));
                may.push(cslot);
                must.push(cslot);
                if let Some(g) = &t.guard {
                    let mut parts = Vec::new();
                    if guard_may_err(&t.guard) {
                        parts.push((g.clone(), Test::NonZero));
                    } else {
                        split(g, Test::NonZero, &mut parts);
                    }
                    for (e, test) in parts {
                        let mut r = Set::new();
                        map.expr_reads(&e, &mut r);
                        cs.push(conjuncts.add(ConjunctKind::Guard(e, test), r));
                    }
                }
                for a in &t.effects {
                    map.expr_reads(&a.value, &mut reads);
                    map.place(&a.place, &mut reads, &mut may, &mut must);
                }
                match &t.sync {
                    SyncKind::None => {}
                    SyncKind::Send { values, .. } => {
                        values.iter().for_each(|v| map.expr_reads(v, &mut reads))
                    }
                    SyncKind::Recv { targets, .. } => targets
                        .iter()
                        .for_each(|p| map.place(p, &mut reads, &mut may, &mut must)),
                    SyncKind::BufSend { channel, .. } | SyncKind::BufRecv { channel, .. } => {
                        let b = m.channels[*channel].buffer.as_ref().expect("a buffered channel");
                        let count = map.slot(b.offset);
                        let mut whole = vec![count];
                        for k in 0..b.capacity as usize {
                            for o in &b.item_offsets {
                                whole.push(map.slot(b.offset + 2 + k * b.item_size + o));
                            }
                        }
                        reads.extend(&whole);
                        may.extend(&whole);
                        must.push(count);
                        if let SyncKind::BufRecv { targets, .. } = &t.sync {
                            targets
                                .iter()
                                .for_each(|p| map.place(p, &mut reads, &mut may, &mut must));
                            cs.push(
                                conjuncts
                                    .add(ConjunctKind::BufferNotEmpty { channel: *channel }, vec![count]),
                            );
                        } else if let SyncKind::BufSend { values, .. } = &t.sync {
                            values.iter().for_each(|v| map.expr_reads(v, &mut reads));
                            cs.push(
                                conjuncts.add(ConjunctKind::BufferNotFull { channel: *channel }, vec![count]),
                            );
                        }
                    }
                }
            }
            if let SyncKind::Send { channel, .. } = ts[0].sync {
                // Both sides assigning one global is an error (§7.3), and the
                // flag carries over to the sender's later receivers; a
                // receiver guard's error makes every sender on the channel
                // erroneous whatever its state (§8.2), which no conjunct
                // expresses.
                let receivers = m
                    .transitions
                    .iter()
                    .filter(|q| matches!(q.sync, SyncKind::Recv { channel: c, .. } if c == channel));
                for q in receivers {
                    if ts[0].global_writes.iter().any(|g| q.global_writes.contains(g)) {
                        err_source.get_or_insert(ErrSource::SharedGlobal);
                    }
                    let q_err = bounds
                        .at(&[(q.process, q.from)])
                        .is_some_and(|b| may_error::guard_may_err(&b, &q.guard));
                    if q_err && irreducible.is_none() {
                        irreducible = Some(format!(
                            "the guard of `{}` may raise a run-time error, which makes every sender on its \
                             channel erroneous whatever its state (DVE reference §8.2)",
                            q.text
                        ));
                    }
                }
            }
            if !committed_slots.is_empty() && !ts.iter().any(|t| is_committed(t)) {
                let movers = ts.iter().map(|t| t.process).collect();
                cs.push(conjuncts.add(ConjunctKind::NoneCommitted { movers }, committed_slots.clone()));
            }
            let mut action_reads = reads.clone();
            for &c in &cs {
                reads.extend(&conjuncts.0[c].reads);
            }
            for t in &ts {
                if let (Some(g), true) = (&t.guard, guard_may_err(&t.guard)) {
                    map.expr_reads(g, &mut action_reads);
                }
            }
            normalise(&mut reads);
            normalise(&mut action_reads);
            normalise(&mut may);
            normalise(&mut must);
            normalise(&mut cs);
            groups.push(Group {
                kind,
                reads,
                action_reads,
                may_write: may,
                must_write: must,
                conjuncts: cs,
                may_err: err_source.is_some(),
                err_source,
            });
            group_bounds.push(gb);
        }
        let mut conjuncts = conjuncts.0;
        for c in conjuncts.iter_mut() {
            if let ConjunctKind::Guard(e, _) = &c.kind {
                c.may_err = may_error::guard_may_err(&bounds, &Some(e.clone()));
            }
        }
        for c in conjuncts.iter_mut() {
            for (g, group) in groups.iter().enumerate() {
                let (en, dis) = match c.kind {
                    ConjunctKind::Control { process, state } => {
                        let moves = |to: bool| {
                            group.transitions().iter().any(|&t| {
                                let t = &m.transitions[t];
                                t.process == process && (t.from == state) != to && (t.to == state) == to
                            })
                        };
                        (moves(true), moves(false))
                    }
                    // Only a send fills a buffer, only a receive empties it.
                    ConjunctKind::BufferNotFull { channel } | ConjunctKind::BufferNotEmpty { channel } => {
                        let on = |recv: bool| {
                            group.transitions().iter().any(|&t| match m.transitions[t].sync {
                                SyncKind::BufRecv { channel: ch, .. } => recv && ch == channel,
                                SyncKind::BufSend { channel: ch, .. } => !recv && ch == channel,
                                _ => false,
                            })
                        };
                        let full = matches!(c.kind, ConjunctKind::BufferNotFull { .. });
                        (on(full), on(!full))
                    }
                    // What the step leaves of the guard, when it writes what
                    // the guard reads.
                    ConjunctKind::Guard(ref e, test) if meets(&group.may_write, &c.reads) => {
                        let ts: Vec<&Transition> =
                            group.transitions().iter().map(|&t| &m.transitions[t]).collect();
                        match &group_bounds[g] {
                            Some(b) => may_error::after_step(m, b, &ts, e, test == Test::Positive),
                            None => (false, false),
                        }
                    }
                    _ => {
                        let w = meets(&group.may_write, &c.reads);
                        (w, w)
                    }
                };
                if en {
                    c.enabling.push(g);
                }
                if dis {
                    c.disabling.push(g);
                }
            }
        }
        Deps {
            slots: info.slots.len(),
            groups,
            conjuncts,
            irreducible,
            property: m.property,
            committed: m.processes.iter().map(|p| p.committed.clone()).collect(),
            bounds,
            state_offsets: m.processes.iter().map(|p| p.state_offset).collect(),
            buffers: m
                .channels
                .iter()
                .map(|c| c.buffer.as_ref().map(|b| (b.offset, b.capacity)))
                .collect(),
            slot_of_byte: of_byte,
        }
    }

    /// The slots an expression over the state (a goal, an assertion) may
    /// read.
    pub fn expr_slots(&self, e: &Expr) -> Set {
        let map = SlotMap {
            of_byte: &self.slot_of_byte,
        };
        let mut out = Set::new();
        map.expr_reads(e, &mut out);
        normalise(&mut out);
        out
    }

    /// Two conjuncts may hold in one state: false for two control states of
    /// one process, for "no other process is committed" with a committed
    /// state of another process, and for two guard comparisons of a
    /// variable with constants that no value meets (`x < 3`, `x == 5`) when
    /// neither may raise an error.
    pub fn may_be_coenabled(&self, a: usize, b: usize) -> bool {
        use ConjunctKind::{Control, Guard, NoneCommitted};
        match (&self.conjuncts[a].kind, &self.conjuncts[b].kind) {
            (Control { process: p, state: s }, Control { process: q, state: t }) => p != q || s == t,
            (Control { process, state }, NoneCommitted { movers })
            | (NoneCommitted { movers }, Control { process, state }) => {
                movers.contains(process) || !self.committed[*process][*state as usize]
            }
            // An erring guard enables its step whatever its value.
            (Guard(..), Guard(..)) if self.conjuncts[a].may_err || self.conjuncts[b].may_err => true,
            (Guard(x, _), Guard(y, _)) => may_error::may_both_hold(&self.bounds, x, y),
            _ => true,
        }
    }

    /// Two groups may be enabled in one state.
    pub fn groups_may_be_coenabled(&self, g: usize, h: usize) -> bool {
        let (a, b) = (&self.groups[g].conjuncts, &self.groups[h].conjuncts);
        a.iter().all(|&x| b.iter().all(|&y| self.may_be_coenabled(x, y)))
    }

    /// Two groups may not commute when neither errs (they do not accord):
    /// one may disable the other (it is in the necessary disabling set of
    /// one of the other's conjuncts), or may write what the other's step
    /// reads or writes. (An erroneous step changes every slot; what that
    /// asks of a reduction is [`Group::may_err`]'s to say.)
    pub fn dependent(&self, g: usize, h: usize) -> bool {
        let (a, b) = (&self.groups[g], &self.groups[h]);
        let disables = |x: usize, y: &Group| {
            y.conjuncts
                .iter()
                .any(|&c| self.conjuncts[c].disabling.binary_search(&x).is_ok())
        };
        meets(&a.may_write, &b.action_reads)
            || meets(&a.may_write, &b.may_write)
            || meets(&b.may_write, &a.action_reads)
            || disables(g, b)
            || disables(h, a)
    }

    fn control(&self, p: usize, s: &[u8]) -> u16 {
        let off = self.state_offsets[p];
        u16::from_le_bytes([s[off], s[off + 1]])
    }

    /// The offset of process `p`'s 2-byte control state.
    pub fn state_offset(&self, p: usize) -> usize {
        self.state_offsets[p]
    }

    /// Whether conjunct `c` holds in state `s` (not the error state).
    pub fn holds(&self, c: usize, s: &[u8]) -> Truth {
        Some(match &self.conjuncts[c].kind {
            ConjunctKind::Control { process, state } => self.control(*process, s) == *state,
            ConjunctKind::Guard(e, test) => {
                let v = eval(e, s).ok()?;
                match test {
                    Test::NonZero => v != 0,
                    Test::Positive => v > 0,
                }
            }
            ConjunctKind::BufferNotFull { channel } | ConjunctKind::BufferNotEmpty { channel } => {
                let (off, cap) = self.buffers[*channel]?;
                let count = u16::from_le_bytes([s[off], s[off + 1]]) as u32;
                match self.conjuncts[c].kind {
                    ConjunctKind::BufferNotFull { .. } => count < cap,
                    _ => count > 0,
                }
            }
            ConjunctKind::NoneCommitted { movers } => (0..self.committed.len())
                .filter(|p| !movers.contains(p))
                .all(|p| {
                    !self.committed[p]
                        .get(self.control(p, s) as usize)
                        .copied()
                        .unwrap_or(false)
                }),
        })
    }

    /// The group a successor's label names (`None` for a step of the
    /// property process or one of no group).
    pub fn group_of_label(&self, trans: u32, partner: u32) -> Option<usize> {
        let kind = if partner == NONE {
            GroupKind::Single(trans as usize)
        } else {
            GroupKind::Rendezvous(trans as usize, partner as usize)
        };
        self.groups.iter().position(|g| g.kind == kind)
    }
}
