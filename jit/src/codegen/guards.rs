//! The status of a transition in a source state: its control state and
//! guard, evaluated inline, or by a `guard_T` function for very large
//! guards.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I8;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use dve_frontend::ir::Transition;

use super::build::{c8, enter};
use super::expr::truth;
use super::measure::eager_ok;
use super::Gen;

/// Guards larger than this (in nodes) get a function of their own.
pub(super) const BIG_GUARD: usize = 200;

impl Gen<'_> {
    /// Status of a transition in the source (DiVinE's `passed_through`):
    /// an i8 that is 0 (disabled), 1 (enabled) or 3 (enabled, erroneous
    /// guard). `cs` is the process's control state, `None` when it is
    /// already known to equal `t.from`.
    pub(super) fn status(
        &mut self,
        b: &mut FunctionBuilder,
        t: &Transition,
        cs: Option<Value>,
        src: Value,
    ) -> Value {
        let is_from = cs.map(|cs| b.ins().icmp_imm_s(IntCC::Equal, cs, t.from as i64));
        let Some(g) = &t.guard else {
            return is_from.unwrap_or_else(|| c8(b, 1));
        };
        if !self.guard_fn.contains_key(&t.id) && eager_ok(g) {
            // Cannot fail and is cheap: no branches.
            // `expr` emits no branch to `never` for such an expression, so
            // the block stays pristine (never inserted).
            let never = b.create_block();
            let holds = truth(b, &mut self.consts, g, src, never, false);
            return match is_from {
                None => holds,
                Some(f) => b.ins().band(f, holds),
            };
        }
        let guard = b.create_block();
        let join = b.create_block();
        let st = b.append_block_param(join, I8);
        match is_from {
            None => {
                b.ins().jump(guard, &[]);
            }
            Some(f) => {
                let zero = c8(b, 0);
                b.ins().brif(f, guard, &[], join, &[BlockArg::Value(zero)]);
            }
        }
        enter(b, guard);
        if let Some(&id) = self.guard_fn.get(&t.id) {
            let f = self.fref(b, id);
            let call = b.ins().call(f, &[src]);
            let r = b.inst_results(call)[0];
            b.ins().jump(join, &[BlockArg::Value(r)]);
            enter(b, join);
            return st;
        }
        let err = b.create_block();
        let t = truth(b, &mut self.consts, g, src, err, false);
        b.ins().jump(join, &[BlockArg::Value(t)]);
        enter(b, err);
        let three = c8(b, 3);
        b.ins().jump(join, &[BlockArg::Value(three)]);
        enter(b, join);
        st
    }
}
