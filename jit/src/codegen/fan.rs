//! The product with the property process (§7.6): each system successor
//! is pushed once, then expanded by the `fan` function into one copy per
//! enabled property move.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64, I8};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, StackSlotData, StackSlotKind};
use cranelift_frontend::FunctionBuilder;

use dve_frontend::model::NONE;

use super::build::{c32, emit_copy, enter, entry_params};
use super::push::{Flag, Flags, Lab, Step, SuccCx};
use super::Gen;
use crate::JitError;

impl Gen<'_> {
    /// One system step expanded by the property moves (§7.6): the system
    /// successor is pushed once, then `fan` replaces it by one copy per
    /// enabled property move (none when no move is enabled), which keeps
    /// the code linear in the number of transitions rather than in their
    /// product with the property's.
    pub(super) fn emit(
        &mut self,
        b: &mut FunctionBuilder,
        cx: &mut SuccCx,
        trans: u32,
        partner: u32,
        err: Flag,
        steps: &[Step],
    ) {
        let Some(fan) = self.fan_fn else {
            self.push(b, cx, [trans, partner, NONE], err, steps);
            return;
        };
        if self.counting {
            self.fanned_sites += 1;
        }
        let c0 = b.use_var(cx.count);
        self.push(b, cx, [trans, partner, NONE], err, steps);
        // A held property leaves the system step as it is.
        let held = cx.flag(b, self.hold_off);
        let (fanning, done) = (b.create_block(), b.create_block());
        b.ins().brif(held, done, &[], fanning, &[]);
        enter(b, fanning);
        let flags = cx.flags_addr(b);
        let f = self.fref(b, fan);
        let call = b
            .ins()
            .call(f, &[cx.src, cx.states, cx.entries, c0, cx.cap, flags]);
        let n = b.inst_results(call)[0];
        let over = b.ins().icmp_imm_s(IntCC::SignedLessThan, n, 0);
        let cont = b.create_block();
        b.ins().brif(over, cx.overflow, &[], cont, &[]);
        enter(b, cont);
        b.def_var(cx.count, n);
        b.ins().jump(done, &[]);
        enter(b, done);
    }

    /// `fan(src, states, entries, c, cap, statuses) -> count`: successor
    /// `c` (a system step) is replaced by its product with every enabled
    /// property move, in order, written from position `c` on; -1 when
    /// `cap` is exceeded. A system error or a property guard error gives
    /// the error state (§7.6, §8).
    pub(super) fn gen_fan(&mut self, b: &mut FunctionBuilder) -> Result<(), JitError> {
        let m = self.m;
        let lay = self.layout;
        let len = m.state_len;
        let p = entry_params(b);
        let (states, entries, c0, flags) = (p[1], p[2], p[3], p[5]);
        // The system successor is overwritten by the first product state:
        // keep a copy.
        let saved = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            len.max(1) as u32,
            3,
        ));
        let copy = b.ins().stack_addr(I64, saved, 0);
        let off = b.ins().imul_imm_s(c0, len as i64);
        let s0 = b.ins().iadd(states, off);
        if len <= 128 {
            emit_copy(b, s0, copy, len);
        } else {
            let f = self.fref(b, self.copy_fn.expect("declared"));
            b.ins().call(f, &[s0, copy]);
        }
        let eoff = b.ins().imul_imm_s(c0, lay.size);
        let e0 = b.ins().iadd(entries, eoff);
        let trans = b.ins().load(I32, MemFlagsData::trusted(), e0, lay.trans);
        let partner = b.ins().load(I32, MemFlagsData::trusted(), e0, lay.partner);
        let sys_err = b.ins().load(I8, MemFlagsData::trusted(), e0, lay.error);
        let count = b.declare_var(I64);
        b.def_var(count, c0);
        let overflow = b.create_block();
        let mut cx = SuccCx {
            src: copy,
            states,
            entries,
            cap: p[4],
            count,
            overflow,
            flags: Flags::Ptr(flags),
        };
        for (pt, off) in self.props.clone() {
            let st = b.ins().load(I8, MemFlagsData::trusted(), flags, off as i32);
            let en = b.ins().band_imm_s(st, 1);
            self.when(b, en, |g, b| {
                let perr = b.ins().band_imm_s(st, 2);
                let e = b.ins().bor(sys_err, perr);
                let prop = c32(b, pt as i32);
                // The property's effects write only its own variables and
                // never read `src` (`eff_T` works on `dst`).
                g.push_dyn(
                    b,
                    &mut cx,
                    Lab::Dyn([trans, partner, prop]),
                    Flag::Val(e),
                    &[g.effects_step(pt)],
                );
            });
        }
        let c = b.use_var(count);
        b.ins().return_(&[c]);
        enter(b, overflow);
        b.set_cold_block(overflow);
        let m1 = b.ins().iconst(I64, -1);
        b.ins().return_(&[m1]);
        Ok(())
    }
}
