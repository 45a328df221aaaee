//! Expressions (§5) compiled over a state vector: as an i32 value
//! (`expr`), or straight to an i8 truth value (`truth`) for guards and
//! conditions; run-time errors branch to a given block.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

use dve_frontend::ir::{BinOp, Expr, UnOp};

use super::build::{bool_to_i32, bounds_check, c32, enter, err_if, index_addr, load_ty, mem};
use super::measure::eager_ok;
use super::tables::Tables;

/// Compiles an expression over the state at `base` (§5); run-time errors
/// branch to `err`.
pub(super) fn expr(b: &mut FunctionBuilder, consts: &mut Tables, e: &Expr, base: Value, err: Block) -> Value {
    if let Some(f) = consts.shared_ref(b, e) {
        // `sub(base) -> value | error << 32`
        let call = b.ins().call(f, &[base]);
        let r = b.inst_results(call)[0];
        let hi = b.ins().ushr_imm_s(r, 32);
        let bad = b.ins().icmp_imm_s(IntCC::NotEqual, hi, 0);
        err_if(b, bad, err);
        return b.ins().ireduce(I32, r);
    }
    match e {
        Expr::Const(c) => c32(b, *c),
        Expr::Load { ty, offset } => load_ty(b, *ty, base, *offset as i32),
        Expr::LoadIndex {
            ty,
            offset,
            len,
            index,
        } => {
            let i = expr(b, consts, index, base, err);
            bounds_check(b, i, *len, err);
            let addr = index_addr(b, base, i, ty.width() as i64);
            load_ty(b, *ty, addr, *offset as i32)
        }
        Expr::ConstIndex { values, index } => {
            let i = expr(b, consts, index, base, err);
            bounds_check(b, i, values.len() as u32, err);
            let table: Box<[i32]> = values.clone().into_boxed_slice();
            let ptr = table.as_ptr() as i64;
            consts.consts.push(table);
            let tbase = b.ins().iconst(I64, ptr);
            let addr = index_addr(b, tbase, i, 4);
            b.ins()
                .load(I32, MemFlagsData::trusted().with_readonly(), addr, 0)
        }
        Expr::InState { offset, state } => {
            let cs = b.ins().uload16(I32, mem(), base, *offset as i32);
            let eq = b.ins().icmp_imm_s(IntCC::Equal, cs, *state as i64);
            bool_to_i32(b, eq)
        }
        Expr::Unary(op, a) => {
            let a = expr(b, consts, a, base, err);
            match op {
                UnOp::Neg => b.ins().ineg(a),
                UnOp::BitNot => b.ins().bnot(a),
                UnOp::Not => {
                    let z = b.ins().icmp_imm_s(IntCC::Equal, a, 0);
                    bool_to_i32(b, z)
                }
            }
        }
        Expr::Binary(BinOp::And | BinOp::Or | BinOp::Imply, _, r) if eager_ok(r) => {
            let t = truth(b, consts, e, base, err, false);
            bool_to_i32(b, t)
        }
        Expr::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Imply), l, r) => {
            let x = expr(b, consts, l, base, err);
            let rhs = b.create_block();
            let join = b.create_block();
            let res = b.append_block_param(join, I32);
            let (zero, one) = (c32(b, 0), c32(b, 1));
            match op {
                BinOp::And => b.ins().brif(x, rhs, &[], join, &[BlockArg::Value(zero)]),
                BinOp::Or => b.ins().brif(x, join, &[BlockArg::Value(one)], rhs, &[]),
                _ => b.ins().brif(x, rhs, &[], join, &[BlockArg::Value(one)]),
            };
            enter(b, rhs);
            let y = expr(b, consts, r, base, err);
            let pos = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, y, 0);
            let pos = bool_to_i32(b, pos);
            b.ins().jump(join, &[BlockArg::Value(pos)]);
            enter(b, join);
            res
        }
        Expr::Binary(op, l, r) => {
            let x = expr(b, consts, l, base, err);
            let y = expr(b, consts, r, base, err);
            binary(b, *op, x, y, err)
        }
    }
}

/// The truth of `e` as an i8 0/1: `e > 0` when `positive`, else `e != 0`
/// (the same for the comparisons and logical operators, whose values are 0
/// or 1, which are compiled straight to flags without widening). An `and`,
/// `or` or `imply` whose right operand is `eager_ok` is evaluated without
/// branches: that operand cannot fail, so evaluating it anyway gives the
/// same value.
pub(super) fn truth(
    b: &mut FunctionBuilder,
    consts: &mut Tables,
    e: &Expr,
    base: Value,
    err: Block,
    positive: bool,
) -> Value {
    let cc = |op: BinOp| match op {
        BinOp::Eq => Some(IntCC::Equal),
        BinOp::Ne => Some(IntCC::NotEqual),
        BinOp::Lt => Some(IntCC::SignedLessThan),
        BinOp::Le => Some(IntCC::SignedLessThanOrEqual),
        BinOp::Gt => Some(IntCC::SignedGreaterThan),
        BinOp::Ge => Some(IntCC::SignedGreaterThanOrEqual),
        _ => None,
    };
    if consts.is_shared(e) {
        let v = expr(b, consts, e, base, err);
        let cc = if positive {
            IntCC::SignedGreaterThan
        } else {
            IntCC::NotEqual
        };
        return b.ins().icmp_imm_s(cc, v, 0);
    }
    match e {
        Expr::Binary(op, l, r) if cc(*op).is_some() => {
            let x = expr(b, consts, l, base, err);
            let y = expr(b, consts, r, base, err);
            b.ins().icmp(cc(*op).expect("a comparison"), x, y)
        }
        Expr::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Imply), l, r) if eager_ok(r) => {
            let xt = truth(b, consts, l, base, err, false);
            let pos = truth(b, consts, r, base, err, true);
            match op {
                BinOp::And => b.ins().band(xt, pos),
                BinOp::Or => b.ins().bor(xt, pos),
                _ => {
                    let xf = b.ins().bxor_imm_s(xt, 1);
                    b.ins().bor(xf, pos)
                }
            }
        }
        Expr::Unary(UnOp::Not, a) => {
            let t = truth(b, consts, a, base, err, false);
            b.ins().bxor_imm_s(t, 1)
        }
        Expr::InState { offset, state } => {
            let cs = b.ins().uload16(I32, mem(), base, *offset as i32);
            b.ins().icmp_imm_s(IntCC::Equal, cs, *state as i64)
        }
        _ => {
            let v = expr(b, consts, e, base, err);
            let cc = if positive {
                IntCC::SignedGreaterThan
            } else {
                IntCC::NotEqual
            };
            b.ins().icmp_imm_s(cc, v, 0)
        }
    }
}

fn binary(b: &mut FunctionBuilder, op: BinOp, x: Value, y: Value, err: Block) -> Value {
    let cmp = |b: &mut FunctionBuilder, cc: IntCC| {
        let c = b.ins().icmp(cc, x, y);
        bool_to_i32(b, c)
    };
    match op {
        BinOp::Add => b.ins().iadd(x, y),
        BinOp::Sub => b.ins().isub(x, y),
        BinOp::Mul => b.ins().imul(x, y),
        BinOp::Div | BinOp::Rem => {
            let zero = b.ins().icmp_imm_s(IntCC::Equal, y, 0);
            err_if(b, zero, err);
            let min = c32(b, i32::MIN);
            let m1 = c32(b, -1);
            let xmin = b.ins().icmp(IntCC::Equal, x, min);
            let ym1 = b.ins().icmp(IntCC::Equal, y, m1);
            let ovf = b.ins().band(xmin, ym1);
            err_if(b, ovf, err);
            if op == BinOp::Div {
                b.ins().sdiv(x, y)
            } else {
                b.ins().srem(x, y)
            }
        }
        // Cranelift masks shift amounts to the type width, like `wrapping_shl`.
        BinOp::Shl => b.ins().ishl(x, y),
        BinOp::Shr => b.ins().sshr(x, y),
        BinOp::BitAnd => b.ins().band(x, y),
        BinOp::BitOr => b.ins().bor(x, y),
        BinOp::BitXor => b.ins().bxor(x, y),
        BinOp::Eq => cmp(b, IntCC::Equal),
        BinOp::Ne => cmp(b, IntCC::NotEqual),
        BinOp::Lt => cmp(b, IntCC::SignedLessThan),
        BinOp::Le => cmp(b, IntCC::SignedLessThanOrEqual),
        BinOp::Gt => cmp(b, IntCC::SignedGreaterThan),
        BinOp::Ge => cmp(b, IntCC::SignedGreaterThanOrEqual),
        BinOp::And | BinOp::Or | BinOp::Imply => unreachable!("short-circuit operators are handled in expr"),
    }
}
