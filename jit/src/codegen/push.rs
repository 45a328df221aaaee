//! Writing one successor into the caller's buffers: its label, the copy of
//! the source and the steps applied to it (effects, rendezvous value
//! passing), and its error flag.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64, I8};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, StackSlot, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_module::FuncId;

use dve_frontend::ir::SyncKind;

use super::assign::{store_place, truncate};
use super::build::{c8, emit_copy, enter, mem};
use super::expr::expr;
use super::measure::{expr_size, ty_range, value_range};
use super::Gen;

/// What one successor applies to the copy of the source, in order.
#[derive(Clone, Copy)]
pub(super) enum Step {
    /// A generated step function `(src, dst) -> i8`.
    Call(FuncId),
    /// Rendezvous value passing from sender to receiver (§7.3 step 2).
    Pass { send: usize, recv: usize },
    /// Control state and effects of a transition, inline.
    Inline(usize),
}

/// A successor's label (transition, partner, property transition).
#[derive(Clone, Copy)]
pub(super) enum Lab {
    Const([u32; 3]),
    Dyn([Value; 3]),
}

/// The error flag of a successor.
pub(super) enum Flag {
    Const(bool),
    /// Non-zero i8 = error.
    Val(Value),
}

/// The parameters and variables of the successor function being built.
pub(super) struct SuccCx {
    pub(super) src: Value,
    pub(super) states: Value,
    pub(super) entries: Value,
    pub(super) cap: Value,
    pub(super) count: Variable,
    pub(super) overflow: Block,
    /// Status bytes computed once per call.
    pub(super) flags: Flags,
}

/// Where the status bytes are: the successor function's stack slot, or
/// (in the functions it calls) a pointer to it.
#[derive(Clone, Copy)]
pub(super) enum Flags {
    Slot(StackSlot),
    Ptr(Value),
}

impl SuccCx {
    pub(super) fn flag(&self, b: &mut FunctionBuilder, off: u32) -> Value {
        match self.flags {
            Flags::Slot(slot) => b.ins().stack_load(I64, I8, slot, off as i32),
            Flags::Ptr(p) => b.ins().load(I8, MemFlagsData::trusted(), p, off as i32),
        }
    }

    pub(super) fn flags_addr(&self, b: &mut FunctionBuilder) -> Value {
        match self.flags {
            Flags::Slot(slot) => b.ins().stack_addr(I64, slot, 0),
            Flags::Ptr(p) => p,
        }
    }
}

/// Effects up to this size (in expression nodes) are inlined into the
/// successor function.
const INLINE_EFFECTS: usize = 24;

impl Gen<'_> {
    /// Appends one successor: bounds check of the output, label, then the
    /// copy of the source with `steps` applied (or the error state).
    pub(super) fn push(
        &mut self,
        b: &mut FunctionBuilder,
        cx: &mut SuccCx,
        label: [u32; 3],
        err: Flag,
        steps: &[Step],
    ) {
        self.push_dyn(b, cx, Lab::Const(label), err, steps)
    }

    /// `push` with the label given as constants or i32 values.
    pub(super) fn push_dyn(
        &mut self,
        b: &mut FunctionBuilder,
        cx: &mut SuccCx,
        label: Lab,
        err: Flag,
        steps: &[Step],
    ) {
        let m = self.m;
        let lay = self.layout;
        let len = m.state_len;
        let c = b.use_var(cx.count);
        if self.counting {
            self.push_sites += 1;
        }
        if !self.unchecked {
            let full = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, c, cx.cap);
            let cont = b.create_block();
            b.ins().brif(full, cx.overflow, &[], cont, &[]);
            enter(b, cont);
        }
        let off = b.ins().imul_imm_s(c, len as i64);
        let dst = b.ins().iadd(cx.states, off);
        let eoff = b.ins().imul_imm_s(c, lay.size);
        let ent = b.ins().iadd(cx.entries, eoff);
        let label = match label {
            Lab::Const([t, p, q]) if lay.partner == lay.trans + 4 => {
                // One 8-byte store for transition and partner.
                let tp = b.ins().iconst(I64, (t as u64 | (p as u64) << 32) as i64);
                b.ins().store(mem(), tp, ent, lay.trans);
                let q = b.ins().iconst(I32, q as i64);
                [None, None, Some(q)]
            }
            Lab::Const(l) => l.map(|v| Some(b.ins().iconst(I32, v as i64))),
            Lab::Dyn(l) => l.map(Some),
        };
        for (v, o) in label.into_iter().zip([lay.trans, lay.partner, lay.prop]) {
            if let Some(v) = v {
                b.ins().store(MemFlagsData::trusted(), v, ent, o);
            }
        }
        let (errb, done) = (b.create_block(), b.create_block());
        let flag = b.append_block_param(done, I8);
        match err {
            Flag::Const(true) => {
                b.ins().jump(errb, &[]);
                let apply = b.create_block();
                enter(b, apply);
            }
            // Applied in the current block.
            Flag::Const(false) => {}
            Flag::Val(v) => {
                let apply = b.create_block();
                b.ins().brif(v, errb, &[], apply, &[]);
                enter(b, apply);
            }
        }
        if len <= 128 {
            emit_copy(b, cx.src, dst, len);
        } else {
            let f = self.fref(b, self.copy_fn.expect("declared"));
            b.ins().call(f, &[cx.src, dst]);
        }
        for step in steps {
            match *step {
                Step::Call(id) => {
                    let ok = self.call_step(b, id, cx.src, dst);
                    let next = b.create_block();
                    b.ins().brif(ok, next, &[], errb, &[]);
                    enter(b, next);
                }
                Step::Pass { send, recv } => self.inline_pass(b, send, recv, cx.src, dst, errb),
                Step::Inline(t) => self.inline_effects(b, &self.m.transitions[t], dst, errb),
            }
        }
        // The error state itself is written by the caller, for every entry
        // flagged erroneous (`JitModel::successors`).
        let zero = c8(b, 0);
        b.ins().jump(done, &[BlockArg::Value(zero)]);
        enter(b, errb);
        let one = c8(b, 1);
        b.ins().jump(done, &[BlockArg::Value(one)]);
        enter(b, done);
        b.ins().store(MemFlagsData::trusted(), flag, ent, lay.error);
        let c1 = b.ins().iadd_imm_s(c, 1);
        b.def_var(cx.count, c1);
    }

    /// Rendezvous value passing (§7.3 step 2): values evaluated on `dst`,
    /// truncated for typed channels, stored into the receiver's targets
    /// whose indices are evaluated on the original `src`.
    fn inline_pass(
        &mut self,
        b: &mut FunctionBuilder,
        send: usize,
        recv: usize,
        src: Value,
        dst: Value,
        err: Block,
    ) {
        let m = self.m;
        let SyncKind::Send { channel, values } = &m.transitions[send].sync else {
            unreachable!("a sender")
        };
        let SyncKind::Recv { targets, .. } = &m.transitions[recv].sync else {
            unreachable!("a receiver")
        };
        if values.len() != targets.len() {
            b.ins().jump(err, &[]);
            // Unreachable continuation block keeps the builder consistent.
            let dead = b.create_block();
            enter(b, dead);
            return;
        }
        let types = m.channels[*channel].item_types.as_deref();
        for (i, (v, target)) in values.iter().zip(targets).enumerate() {
            let mut val = expr(b, &mut self.consts, v, dst, err);
            let mut range = value_range(v);
            if let Some(ty) = types.and_then(|ts| ts.get(i)) {
                val = truncate(b, *ty, val);
                range = ty_range(*ty);
            }
            store_place(b, &mut self.consts, target, val, range, src, dst, err);
        }
    }

    /// The step applying the control state and effects of `t`: inline when
    /// small, else a call of `eff_T`.
    pub(super) fn effects_step(&self, t: usize) -> Step {
        let tr = &self.m.transitions[t];
        let size: usize = tr
            .effects
            .iter()
            .map(|a| expr_size(&a.value) + a.place.index.as_ref().map_or(0, |(_, i)| expr_size(i)) + 1)
            .sum();
        if size <= INLINE_EFFECTS {
            Step::Inline(t)
        } else {
            Step::Call(self.eff[t])
        }
    }
}
