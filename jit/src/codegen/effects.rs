//! What one transition does to the new state: its control state and
//! effects (§7.2), inline or as `eff_T(src, dst) -> i8`, and the buffered
//! channel operations `buf_T` (§7.4).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I8};
use cranelift_codegen::ir::{Block, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use dve_frontend::ir::{SyncKind, Transition};

use super::assign::store_place;
use super::build::{bounds_check, c32, c8, enter, entry_params, index_addr, load_ty, mem, store_ty};
use super::expr::expr;
use super::measure::{ty_range, value_range};
use super::Gen;
use crate::JitError;

impl Gen<'_> {
    /// Inline control state + effects of `t` on `dst` (§7.2); errors to `err`.
    pub(super) fn inline_effects(&mut self, b: &mut FunctionBuilder, t: &Transition, dst: Value, err: Block) {
        let to = c32(b, t.to as i32);
        b.ins().istore16(mem(), to, dst, t.control_offset as i32);
        for a in &t.effects {
            let v = expr(b, &mut self.consts, &a.value, dst, err);
            store_place(
                b,
                &mut self.consts,
                &a.place,
                v,
                value_range(&a.value),
                dst,
                dst,
                err,
            );
        }
    }

    /// `eff_T(src, dst) -> i8`.
    pub(super) fn gen_effects(&mut self, b: &mut FunctionBuilder, t: &Transition) -> Result<(), JitError> {
        let p = entry_params(b);
        let dst = p[1];
        let err = b.create_block();
        self.inline_effects(b, t, dst, err);
        let one = c8(b, 1);
        b.ins().return_(&[one]);
        enter(b, err);
        b.set_cold_block(err);
        let zero = c8(b, 0);
        b.ins().return_(&[zero]);
        Ok(())
    }

    /// Buffered send / receive (§7.4): effects, then the channel operation.
    pub(super) fn gen_bufop(&mut self, b: &mut FunctionBuilder, t: &Transition) -> Result<(), JitError> {
        let m = self.m;
        let p = entry_params(b);
        let (src, dst) = (p[0], p[1]);
        let err = b.create_block();
        self.inline_effects(b, t, dst, err);
        match &t.sync {
            SyncKind::BufSend { channel, values } => {
                let ch = &m.channels[*channel];
                let buf = ch.buffer.as_ref().expect("validated");
                let types = ch.item_types.as_deref().expect("validated");
                let count = b.ins().uload16(I32, mem(), dst, buf.offset as i32);
                // Checked on the source already; kept so that no write can
                // leave the buffer whatever the state.
                bounds_check(b, count, buf.capacity, err);
                let inc = b.ins().iadd_imm_s(count, 1);
                b.ins().istore16(mem(), inc, dst, buf.offset as i32);
                let slot = index_addr(b, dst, count, buf.item_size as i64);
                for (i, v) in values.iter().enumerate() {
                    let val = expr(b, &mut self.consts, v, dst, err);
                    store_ty(
                        b,
                        types[i],
                        val,
                        slot,
                        (buf.offset + 2 + buf.item_offsets[i]) as i32,
                    );
                }
            }
            SyncKind::BufRecv { channel, targets } => {
                let ch = &m.channels[*channel];
                let buf = ch.buffer.as_ref().expect("validated");
                let types = ch.item_types.as_deref().expect("validated");
                let start = buf.offset + 2;
                for (i, target) in targets.iter().enumerate() {
                    let val = load_ty(b, types[i], dst, (start + buf.item_offsets[i]) as i32);
                    store_place(
                        b,
                        &mut self.consts,
                        target,
                        val,
                        ty_range(types[i]),
                        src,
                        dst,
                        err,
                    );
                }
                let count = b.ins().uload16(I32, mem(), dst, buf.offset as i32);
                // 1 <= count <= capacity (count - 1 < capacity, unsigned).
                let dec = b.ins().iadd_imm_s(count, -1);
                bounds_check(b, dec, buf.capacity, err);
                b.ins().istore16(mem(), dec, dst, buf.offset as i32);
                let size = buf.item_size;
                // Shift the queue: slot j <- slot j+1 for j + 1 < count.
                for j in 0..buf.capacity.saturating_sub(1) as usize {
                    let doit = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, count, (j + 2) as i64);
                    let (copy, next) = (b.create_block(), b.create_block());
                    b.ins().brif(doit, next, &[], copy, &[]);
                    enter(b, copy);
                    for k in 0..size {
                        let v = b.ins().load(I8, mem(), dst, (start + (j + 1) * size + k) as i32);
                        b.ins().store(mem(), v, dst, (start + j * size + k) as i32);
                    }
                    b.ins().jump(next, &[]);
                    enter(b, next);
                }
                // Clear slot count - 1 (in range: checked above).
                let last = index_addr(b, dst, dec, size as i64);
                let z = b.ins().iconst(I8, 0);
                for k in 0..size {
                    b.ins().store(mem(), z, last, (start + k) as i32);
                }
            }
            _ => unreachable!("buffered operations only"),
        }
        let one = c8(b, 1);
        b.ins().return_(&[one]);
        enter(b, err);
        b.set_cold_block(err);
        let zero = c8(b, 0);
        b.ins().return_(&[zero]);
        Ok(())
    }
}
