//! Structured control flow for the generators: code under a condition,
//! and a switch on a process's control state. Every construct ends in a
//! block that dominates what follows (see the module documentation).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, Switch};

use super::build::enter;
use super::Gen;

impl Gen<'_> {
    /// Emits `body(f)` for the control state `f == cs` among `froms`
    /// (distinct), then continues after it.
    pub(super) fn dispatch(
        &mut self,
        b: &mut FunctionBuilder,
        cs: Value,
        froms: &[u16],
        mut body: impl FnMut(&mut Self, &mut FunctionBuilder, u16),
    ) {
        match froms {
            [] => {}
            [f] => {
                let is = b.ins().icmp_imm_s(IntCC::Equal, cs, *f as i64);
                self.when(b, is, |g, b| body(g, b, *f));
            }
            _ => {
                let join = b.create_block();
                let mut sw = Switch::new();
                let blocks: Vec<Block> = froms.iter().map(|_| b.create_block()).collect();
                for (f, blk) in froms.iter().zip(&blocks) {
                    sw.set_entry(*f as u128, *blk);
                }
                sw.emit(b, cs, join);
                for (f, blk) in froms.iter().zip(&blocks) {
                    enter(b, *blk);
                    body(self, b, *f);
                    b.ins().jump(join, &[]);
                }
                enter(b, join);
            }
        }
    }

    /// Emits `body` under the i8 condition `cond`, then continues after it.
    pub(super) fn when(
        &mut self,
        b: &mut FunctionBuilder,
        cond: Value,
        body: impl FnOnce(&mut Self, &mut FunctionBuilder),
    ) {
        let (then, next) = (b.create_block(), b.create_block());
        b.ins().brif(cond, then, &[], next, &[]);
        enter(b, then);
        body(self, b);
        b.ins().jump(next, &[]);
        enter(b, next);
    }
}
