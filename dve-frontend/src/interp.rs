//! The reference interpreter: DiVinE 2's semantics over the IR, implementing
//! [`NextState`]. It is the specification the JIT is tested against, so it
//! favours following `docs/dve-language.md` step by step over cleverness;
//! section numbers below refer to that document.

use crate::ir::{Assign, BinOp, Expr, Model, Place, SyncKind, SystemKind, Transition, Ty, UnOp};
use crate::model::{read_slot, Label, ModelInfo, NextState, ProcessInfo, Slot, SlotKind, SuccBuf, NONE};

/// A run-time error of the model (§8.1): the transition leads to the error
/// state. The kind only names the error for people (`Interpreter::step_error`);
/// every kind leads to the same error state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeError {
    /// An array index below 0 or past the array's end (read or write).
    IndexOutOfBounds,
    /// Division or remainder by zero.
    DivisionByZero,
    /// -2147483648 divided by -1 (a hardware trap in the reference).
    DivisionOverflow,
    /// A value assigned outside its variable's type.
    ValueOutOfRange,
    /// Both sides of a rendezvous assign the same global variable.
    WriteConflict,
    /// A rendezvous that passes a different number of values than its
    /// receiver takes (the parser's checks leave none).
    SyncMismatch,
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RuntimeError::IndexOutOfBounds => "array index out of bounds",
            RuntimeError::DivisionByZero => "division by zero",
            RuntimeError::DivisionOverflow => "division overflow (-2147483648 / -1)",
            RuntimeError::ValueOutOfRange => "value out of the range of its variable's type",
            RuntimeError::WriteConflict => "both sides of the rendezvous assign the same global variable",
            RuntimeError::SyncMismatch => {
                "the rendezvous passes a different number of values than its receiver takes"
            }
        })
    }
}

type Eval<T> = Result<T, RuntimeError>;

pub struct Interpreter {
    model: Model,
    info: ModelInfo,
    /// The state functions ([`NextState::state_function`]).
    functions: Vec<Expr>,
}

impl Interpreter {
    pub fn new(model: Model) -> Interpreter {
        Interpreter::with_state_functions(model, Vec::new())
    }

    /// An interpreter that also evaluates `functions` as the model's state
    /// functions.
    pub fn with_state_functions(model: Model, functions: Vec<Expr>) -> Interpreter {
        let info = model_info(&model);
        Interpreter {
            model,
            info,
            functions,
        }
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Evaluates an expression over a state (32-bit, §5).
    pub fn eval(&self, e: &Expr, s: &[u8]) -> Eval<i32> {
        eval(e, s)
    }

    fn control_state(&self, p: usize, s: &[u8]) -> u16 {
        let off = self.model.processes[p].state_offset;
        u16::from_le_bytes([s[off], s[off + 1]])
    }

    fn is_committed(&self, p: usize, s: &[u8]) -> bool {
        let cs = self.control_state(p, s);
        if p == 0 && cs == self.model.error_marker() {
            return self.model.error_state_committed();
        }
        self.model.processes[p]
            .committed
            .get(cs as usize)
            .copied()
            .unwrap_or(false)
    }

    /// DiVinE's `passed_through`: the transition's source state matches and
    /// its guard holds. `None` = not enabled, `Some(err)` = enabled, `err`
    /// when the guard raised an error (§8.2: such a transition is enabled).
    fn enabled(&self, t: &Transition, cs: u16, s: &[u8]) -> Option<bool> {
        if t.from != cs {
            return None;
        }
        match &t.guard {
            None => Some(false),
            Some(g) => match eval(g, s) {
                Ok(0) => None,
                Ok(_) => Some(false),
                Err(_) => Some(true),
            },
        }
    }

    /// Appends the enabled property transitions (without sync) in `s`,
    /// ERR_BIT marking erroneous ones.
    fn property_moves(&self, s: &[u8], out: &mut Vec<u32>) {
        if let Some(pp) = self.model.property {
            let cs = self.control_state(pp, s);
            for &t in &self.model.processes[pp].local {
                if let Some(err) = self.enabled(&self.model.transitions[t], cs, s) {
                    out.push(t as u32 | if err { ERR_BIT } else { 0 });
                }
            }
        }
    }

    fn successors_async(&self, src: &[u8], out: &mut SuccBuf) {
        let m = &self.model;
        // Working memory reused across calls: the enabled property moves,
        // then the rendezvous receivers of stage 1 as (channel, process,
        // transition) triples; ERR_BIT marks erroneous ones.
        let mut scratch = std::mem::take(&mut out.scratch);
        scratch.clear();
        self.property_moves(src, &mut scratch);
        let n_props = scratch.len();
        let only_committed = (0..m.processes.len()).any(|p| self.is_committed(p, src));
        let may_move = |p: usize| !only_committed || self.is_committed(p, src);

        // Stage 1: rendezvous receivers, all processes (property included).
        for (p, proc_) in m.processes.iter().enumerate() {
            if !may_move(p) {
                continue;
            }
            let cs = self.control_state(p, src);
            for &t in &proc_.recv {
                let tr = &m.transitions[t];
                if let Some(err) = self.enabled(tr, cs, src) {
                    let SyncKind::Recv { channel, .. } = tr.sync else {
                        unreachable!()
                    };
                    scratch.extend([channel as u32 | if err { ERR_BIT } else { 0 }, p as u32, t as u32]);
                }
            }
        }
        let (props, candidates) = scratch.split_at(n_props);
        let on_channel = |channel: usize| {
            candidates
                .chunks_exact(3)
                .filter(move |c| (c[0] & !ERR_BIT) as usize == channel)
        };

        // Stage 2: per process, local, buffered receive, buffered send, sends.
        for (p, proc_) in m.processes.iter().enumerate() {
            if Some(p) == m.property || !may_move(p) {
                continue;
            }
            let cs = self.control_state(p, src);
            for &t in &proc_.local {
                if let Some(err) = self.enabled(&m.transitions[t], cs, src) {
                    self.emit(src, t as u32, NONE, err, props, out);
                }
            }
            for &t in &proc_.buf_recv {
                let tr = &m.transitions[t];
                let SyncKind::BufRecv { channel, .. } = tr.sync else {
                    unreachable!()
                };
                if let Some(err) = self.enabled(tr, cs, src) {
                    if self.buffer_count(channel, src) > 0 {
                        self.emit(src, t as u32, NONE, err, props, out);
                    }
                }
            }
            for &t in &proc_.buf_send {
                let tr = &m.transitions[t];
                let SyncKind::BufSend { channel, .. } = tr.sync else {
                    unreachable!()
                };
                if let Some(err) = self.enabled(tr, cs, src) {
                    let cap = m.channels[channel].buffer.as_ref().map_or(0, |b| b.capacity);
                    if self.buffer_count(channel, src) < cap {
                        self.emit(src, t as u32, NONE, err, props, out);
                    }
                }
            }
            for &t in &proc_.send {
                let tr = &m.transitions[t];
                let SyncKind::Send { channel, .. } = tr.sync else {
                    unreachable!()
                };
                // §8.2: an error in any receiver guard on the channel makes
                // every sender on it enabled and erroneous, whatever its
                // source state.
                let channel_error = on_channel(channel).any(|c| c[0] & ERR_BIT != 0);
                let mut err = if channel_error {
                    true
                } else {
                    match self.enabled(tr, cs, src) {
                        None => continue,
                        Some(e) => e,
                    }
                };
                for c in on_channel(channel) {
                    let (q, r) = (c[1] as usize, c[2]);
                    if q == p {
                        continue;
                    }
                    if Some(q) == m.property {
                        // A property receive forms one product step by itself.
                        self.push_step(
                            src,
                            Label {
                                trans: t as u32,
                                partner: NONE,
                                prop: r,
                            },
                            err,
                            out,
                        );
                        continue;
                    }
                    // Both sides assigning the same global is an error; DiVinE
                    // keeps the flag for the remaining receivers of this sender.
                    if conflict(tr, &m.transitions[r as usize]) {
                        err = true;
                    }
                    self.emit(src, t as u32, r, err, props, out);
                }
            }
        }
        // §7.6: a deadlocked system lets the property move alone.
        if out.is_empty() && m.property.is_some() {
            for &pm in props {
                let label = Label {
                    trans: NONE,
                    partner: NONE,
                    prop: pm & !ERR_BIT,
                };
                self.push_step(src, label, pm & ERR_BIT != 0, out);
            }
        }
        out.scratch = scratch;
    }

    /// Appends the successors of one system step, expanded by the property
    /// moves when there is a property process (§7.6).
    fn emit(&self, src: &[u8], trans: u32, partner: u32, err: bool, props: &[u32], out: &mut SuccBuf) {
        if self.model.property.is_none() {
            self.push_step(
                src,
                Label {
                    trans,
                    partner,
                    prop: NONE,
                },
                err,
                out,
            );
        } else {
            for &pm in props {
                let label = Label {
                    trans,
                    partner,
                    prop: pm & !ERR_BIT,
                };
                self.push_step(src, label, err || pm & ERR_BIT != 0, out);
            }
        }
    }

    /// Computes the successor of one step and appends it.
    fn push_step(&self, src: &[u8], label: Label, err: bool, out: &mut SuccBuf) {
        let dst = out.push_copy(src, label, err);
        let ok = !err && self.apply_step(src, label, dst).is_ok();
        if !ok {
            self.model.write_error_state(dst);
            let last = out.len() - 1;
            let (_, entries) = out.raw_parts_mut();
            entries[last].error = true;
        }
    }

    fn apply_step(&self, src: &[u8], label: Label, dst: &mut [u8]) -> Eval<()> {
        let m = &self.model;
        if label.trans != NONE {
            let t = &m.transitions[label.trans as usize];
            match &t.sync {
                SyncKind::None => apply_effects(t, dst)?,
                SyncKind::Send { values, .. } => {
                    if label.partner != NONE {
                        // §7.3: values, receiver, then sender.
                        let r = &m.transitions[label.partner as usize];
                        let SyncKind::Recv { targets, .. } = &r.sync else {
                            unreachable!()
                        };
                        if values.len() != targets.len() {
                            return Err(RuntimeError::SyncMismatch);
                        }
                        let SyncKind::Send { channel, .. } = t.sync else {
                            unreachable!()
                        };
                        let types = m.channels[channel].item_types.as_deref();
                        for (i, (v, target)) in values.iter().zip(targets).enumerate() {
                            let mut val = eval(v, dst)?;
                            // A typed channel truncates to its item type.
                            if let Some(ty) = types.and_then(|ts| ts.get(i)) {
                                val = truncate(*ty, val);
                            }
                            store(target, val, src, dst)?;
                        }
                        apply_effects(r, dst)?;
                    }
                    apply_effects(t, dst)?;
                }
                SyncKind::BufSend { channel, values } => {
                    // §7.4: effects first, then the values are appended.
                    apply_effects(t, dst)?;
                    let b = m.channels[*channel]
                        .buffer
                        .as_ref()
                        .ok_or(RuntimeError::SyncMismatch)?;
                    let count = self.buffer_count(*channel, dst);
                    write_u16(dst, b.offset, (count + 1) as u16);
                    let types = m.channels[*channel].item_types.as_deref().unwrap_or(&[]);
                    for (i, v) in values.iter().enumerate() {
                        let val = eval(v, dst)?;
                        let off = b.offset + 2 + count as usize * b.item_size + b.item_offsets[i];
                        write_truncated(dst, off, types[i], val);
                    }
                }
                SyncKind::BufRecv { channel, targets } => {
                    apply_effects(t, dst)?;
                    let b = m.channels[*channel]
                        .buffer
                        .as_ref()
                        .ok_or(RuntimeError::SyncMismatch)?;
                    let types = m.channels[*channel].item_types.as_deref().unwrap_or(&[]);
                    for (i, target) in targets.iter().enumerate() {
                        let off = b.offset + 2 + b.item_offsets[i];
                        let val = read_slot(dst, off, types[i].width(), types[i].signed());
                        store(target, val, src, dst)?;
                    }
                    let count = self.buffer_count(*channel, dst) as usize;
                    write_u16(dst, b.offset, (count - 1) as u16);
                    let start = b.offset + 2;
                    dst.copy_within(start + b.item_size..start + count * b.item_size, start);
                    dst[start + (count - 1) * b.item_size..start + count * b.item_size].fill(0);
                }
                SyncKind::Recv { .. } => return Err(RuntimeError::SyncMismatch),
            }
        }
        if label.prop != NONE {
            apply_effects(&m.transitions[label.prop as usize], dst)?;
        }
        Ok(())
    }

    fn buffer_count(&self, channel: usize, s: &[u8]) -> u32 {
        match &self.model.channels[channel].buffer {
            Some(b) => u16::from_le_bytes([s[b.offset], s[b.offset + 1]]) as u32,
            None => 0,
        }
    }

    /// Why the step `label` from `src` leads to the error state: the first
    /// run-time error met re-evaluating it — the guards of the transitions
    /// it names, a receiver's guard on the sender's channel (§8.2), the
    /// rendezvous write conflict, then the effects. `None` when none is met
    /// (a `system sync` step may fail in a process its label does not name).
    pub fn step_error(&self, src: &[u8], label: Label) -> Option<RuntimeError> {
        let m = &self.model;
        let named: Vec<&Transition> = [label.trans, label.partner, label.prop]
            .into_iter()
            .filter(|&t| t != NONE)
            .map(|t| &m.transitions[t as usize])
            .collect();
        let guard_error = |t: &Transition| match &t.guard {
            Some(g) if t.from == self.control_state(t.process, src) => eval(g, src).err(),
            _ => None,
        };
        if let Some(e) = named.iter().find_map(|t| guard_error(t)) {
            return Some(e);
        }
        if let (SystemKind::Async, Some(SyncKind::Send { channel, .. })) =
            (m.system, named.first().map(|t| &t.sync))
        {
            let mut receivers = m
                .transitions
                .iter()
                .filter(|r| matches!(r.sync, SyncKind::Recv { channel: c, .. } if c == *channel));
            if let Some(e) = receivers.find_map(guard_error) {
                return Some(e);
            }
        }
        if let [a, b, ..] = named[..] {
            if label.partner != NONE && conflict(a, b) {
                return Some(RuntimeError::WriteConflict);
            }
        }
        let mut dst = src.to_vec();
        match m.system {
            SystemKind::Async => self.apply_step(src, label, &mut dst).err(),
            SystemKind::Sync => named.iter().find_map(|t| {
                dst.copy_from_slice(src);
                apply_effects(t, &mut dst).err()
            }),
        }
    }

    /// `system sync` (§7.9): [`crate::sync::successors`], with this
    /// interpreter's guards and effects.
    fn successors_sync(&self, src: &[u8], out: &mut SuccBuf) {
        let m = &self.model;
        crate::sync::successors(
            m,
            src,
            out,
            |p, t| self.enabled(&m.transitions[t], self.control_state(p, src), src),
            |t, part| apply_effects(&m.transitions[t], part).is_ok(),
        );
    }
}

const ERR_BIT: u32 = 1 << 31;

fn conflict(a: &Transition, b: &Transition) -> bool {
    a.global_writes.iter().any(|g| b.global_writes.contains(g))
}

fn write_u16(s: &mut [u8], off: usize, v: u16) {
    s[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

fn truncate(ty: Ty, v: i32) -> i32 {
    match ty {
        Ty::Byte => v as u8 as i32,
        Ty::Int => v as i16 as i32,
    }
}

fn write_truncated(s: &mut [u8], off: usize, ty: Ty, v: i32) {
    match ty {
        Ty::Byte => s[off] = v as u8,
        Ty::Int => s[off..off + 2].copy_from_slice(&(v as i16).to_le_bytes()),
    }
}

/// §7.2 / §6: control state first, then the effects in order; each sees the
/// previous ones.
fn apply_effects(t: &Transition, dst: &mut [u8]) -> Eval<()> {
    write_u16(dst, t.control_offset, t.to);
    for Assign { place, value } in &t.effects {
        let v = eval(value, dst)?;
        store_in_place(place, v, dst)?;
    }
    Ok(())
}

/// Stores `v` into `place`; the index is evaluated in `index_state` (the
/// original state for receive targets, §7.3).
fn store(place: &Place, v: i32, index_state: &[u8], dst: &mut [u8]) -> Eval<()> {
    let off = place_offset(place, index_state)?;
    write_checked(dst, off, place.ty, v)
}

fn store_in_place(place: &Place, v: i32, dst: &mut [u8]) -> Eval<()> {
    let off = place_offset(place, dst)?;
    write_checked(dst, off, place.ty, v)
}

fn place_offset(place: &Place, s: &[u8]) -> Eval<usize> {
    match &place.index {
        None => Ok(place.offset),
        Some((len, idx)) => {
            let i = eval(idx, s)?;
            if i < 0 || i as u32 >= *len {
                return Err(RuntimeError::IndexOutOfBounds);
            }
            Ok(place.offset + i as usize * place.ty.width())
        }
    }
}

/// §6: a value outside the type's range is an error, not a wrap.
fn write_checked(dst: &mut [u8], off: usize, ty: Ty, v: i32) -> Eval<()> {
    if !ty.contains(v) {
        return Err(RuntimeError::ValueOutOfRange);
    }
    write_truncated(dst, off, ty, v);
    Ok(())
}

/// Expression evaluation (§5), in 32-bit two's complement.
pub fn eval(e: &Expr, s: &[u8]) -> Eval<i32> {
    Ok(match e {
        Expr::Const(c) => *c,
        Expr::Load { ty, offset } => read_slot(s, *offset, ty.width(), ty.signed()),
        Expr::LoadIndex {
            ty,
            offset,
            len,
            index,
        } => {
            let i = eval(index, s)?;
            if i < 0 || i as u32 >= *len {
                return Err(RuntimeError::IndexOutOfBounds);
            }
            read_slot(s, offset + i as usize * ty.width(), ty.width(), ty.signed())
        }
        Expr::ConstIndex { values, index } => {
            let i = eval(index, s)?;
            *values
                .get(usize::try_from(i).map_err(|_| RuntimeError::IndexOutOfBounds)?)
                .ok_or(RuntimeError::IndexOutOfBounds)?
        }
        Expr::InState { offset, state } => (u16::from_le_bytes([s[*offset], s[offset + 1]]) == *state) as i32,
        Expr::Unary(op, a) => {
            let a = eval(a, s)?;
            match op {
                UnOp::Neg => a.wrapping_neg(),
                UnOp::BitNot => !a,
                UnOp::Not => (a == 0) as i32,
            }
        }
        Expr::Binary(op, a, b) => {
            let x = eval(a, s)?;
            match op {
                // Short-circuit; the right operand is tested with `> 0` (§5).
                BinOp::And => return Ok(if x == 0 { 0 } else { (eval(b, s)? > 0) as i32 }),
                BinOp::Or => return Ok(if x != 0 { 1 } else { (eval(b, s)? > 0) as i32 }),
                BinOp::Imply => return Ok(if x == 0 { 1 } else { (eval(b, s)? > 0) as i32 }),
                _ => {}
            }
            let y = eval(b, s)?;
            binary(*op, x, y)?
        }
    })
}

/// Appends to `out` the state-vector offsets `e` reads in `s`, each once,
/// in order: variables, array elements at their index in `s` (after the
/// index's own reads; none for an index out of bounds), control states
/// (`P.s`). Both operands of `and`,
/// `or` and `imply` count, whether or not evaluation reaches the second.
pub fn reads(e: &Expr, s: &[u8], out: &mut Vec<usize>) {
    fn read(out: &mut Vec<usize>, offset: usize) {
        if !out.contains(&offset) {
            out.push(offset);
        }
    }
    match e {
        Expr::Const(_) => {}
        Expr::Load { offset, .. } | Expr::InState { offset, .. } => read(out, *offset),
        Expr::LoadIndex {
            ty,
            offset,
            len,
            index,
        } => {
            reads(index, s, out);
            match eval(index, s) {
                Ok(i) if i >= 0 && (i as u32) < *len => read(out, offset + i as usize * ty.width()),
                _ => {}
            }
        }
        Expr::ConstIndex { index, .. } | Expr::Unary(_, index) => reads(index, s, out),
        Expr::Binary(_, a, b) => {
            reads(a, s, out);
            reads(b, s, out);
        }
    }
}

/// A strict binary operator on evaluated operands.
pub fn binary(op: BinOp, x: i32, y: i32) -> Eval<i32> {
    Ok(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        // Division or remainder by zero, and i32::MIN / -1 (a hardware trap
        // in the reference), are run-time errors.
        BinOp::Div | BinOp::Rem if y == 0 => return Err(RuntimeError::DivisionByZero),
        BinOp::Div => x.checked_div(y).ok_or(RuntimeError::DivisionOverflow)?,
        BinOp::Rem => x.checked_rem(y).ok_or(RuntimeError::DivisionOverflow)?,
        // Shift counts are taken modulo 32, as x86 does (C leaves it undefined).
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr => x.wrapping_shr(y as u32),
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Eq => (x == y) as i32,
        BinOp::Ne => (x != y) as i32,
        BinOp::Lt => (x < y) as i32,
        BinOp::Le => (x <= y) as i32,
        BinOp::Gt => (x > y) as i32,
        BinOp::Ge => (x >= y) as i32,
        BinOp::And => (x != 0 && y > 0) as i32,
        BinOp::Or => (x != 0 || y > 0) as i32,
        BinOp::Imply => (x == 0 || y > 0) as i32,
    })
}

impl NextState for Interpreter {
    fn state_functions(&self) -> usize {
        self.functions.len()
    }

    fn state_function(&self, i: usize, state: &[u8]) -> Option<i32> {
        eval(&self.functions[i], state).ok()
    }

    fn info(&self) -> &ModelInfo {
        &self.info
    }

    fn initial_state(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.model.initial);
    }

    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        out.clear();
        match self.model.system {
            SystemKind::Async => self.successors_async(src, out),
            SystemKind::Sync => self.successors_sync(src, out),
        }
    }
}

/// Builds the boundary's static description from the IR.
pub fn model_info(m: &Model) -> ModelInfo {
    let mut slots = Vec::new();
    for v in m.vars.iter().filter(|v| v.process.is_none()) {
        push_var_slots(&mut slots, v);
    }
    for ch in &m.channels {
        if let Some(b) = &ch.buffer {
            slots.push(Slot {
                name: format!("{}.len", ch.name),
                offset: b.offset,
                width: 2,
                signed: false,
                kind: SlotKind::ChannelLength,
            });
            let types = ch.item_types.as_deref().unwrap_or(&[]);
            for k in 0..b.capacity as usize {
                for (i, ty) in types.iter().enumerate() {
                    slots.push(Slot {
                        name: format!("{}[{}].{}", ch.name, k, i),
                        offset: b.offset + 2 + k * b.item_size + b.item_offsets[i],
                        width: ty.width(),
                        signed: ty.signed(),
                        kind: SlotKind::ChannelItem,
                    });
                }
            }
        }
    }
    for (p, proc_) in m.processes.iter().enumerate() {
        slots.push(Slot {
            name: proc_.name.clone(),
            offset: proc_.state_offset,
            width: 2,
            signed: false,
            kind: SlotKind::ControlState { process: p },
        });
        for v in m.vars.iter().filter(|v| v.process == Some(p)) {
            push_var_slots(&mut slots, v);
        }
    }
    ModelInfo {
        name: m.name.clone(),
        state_len: m.state_len,
        slots,
        processes: m
            .processes
            .iter()
            .enumerate()
            .map(|(p, proc_)| ProcessInfo {
                name: proc_.name.clone(),
                states: proc_.states.clone(),
                state_offset: proc_.state_offset,
                accepting: proc_.accepting.clone(),
                is_property: m.property == Some(p),
            })
            .collect(),
        transitions: m.transitions.iter().map(|t| t.text.clone()).collect(),
        transition_bodies: m.transitions.iter().map(|t| t.body.clone()).collect(),
        transition_process: m.transitions.iter().map(|t| t.process).collect(),
        property: m.property,
    }
}

fn push_var_slots(slots: &mut Vec<Slot>, v: &crate::ir::Var) {
    let kind = SlotKind::Variable;
    match v.array_len {
        None => slots.push(Slot {
            name: v.name.clone(),
            offset: v.offset,
            width: v.ty.width(),
            signed: v.ty.signed(),
            kind,
        }),
        Some(n) => {
            for i in 0..n as usize {
                slots.push(Slot {
                    name: format!("{}[{}]", v.name, i),
                    offset: v.offset + i * v.ty.width(),
                    width: v.ty.width(),
                    signed: v.ty.signed(),
                    kind: kind.clone(),
                });
            }
        }
    }
}
