//! Stores into state variables: the range check of the assigned value
//! (§6), the bounds check of an array index, and the truncation of values
//! passed through a typed channel (§7.3).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32};
use cranelift_codegen::ir::{Block, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use dve_frontend::ir::{Place, Ty};

use super::build::{bounds_check, err_if, index_addr, store_ty};
use super::expr::expr;
use super::measure::{fits, ty_range};
use super::tables::Tables;

/// Assignment (§6): range check of `v`, index (evaluated in `index_base`)
/// bounds check, store into `dst`.
/// Stores `v`, whose value is known to lie in `range`, into `place`: an
/// error if out of the place's type range (the check is left out when
/// `range` fits) or index out of bounds.
#[allow(clippy::too_many_arguments)]
pub(super) fn store_place(
    b: &mut FunctionBuilder,
    consts: &mut Tables,
    place: &Place,
    v: Value,
    range: (i64, i64),
    index_base: Value,
    dst: Value,
    err: Block,
) {
    if !fits(range, ty_range(place.ty)) {
        let out = match place.ty {
            Ty::Byte => b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, v, 255),
            Ty::Int => {
                let biased = b.ins().iadd_imm_s(v, 32768);
                b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, biased, 65535)
            }
        };
        err_if(b, out, err);
    }
    let addr = match &place.index {
        None => dst,
        Some((len, idx)) => {
            let i = expr(b, consts, idx, index_base, err);
            bounds_check(b, i, *len, err);
            index_addr(b, dst, i, place.ty.width() as i64)
        }
    };
    store_ty(b, place.ty, v, addr, place.offset as i32);
}

/// Truncation through a typed channel (§7.3).
pub(super) fn truncate(b: &mut FunctionBuilder, ty: Ty, v: Value) -> Value {
    match ty {
        Ty::Byte => b.ins().band_imm_s(v, 0xff),
        Ty::Int => {
            let s = b.ins().ireduce(I16, v);
            b.ins().sextend(I32, s)
        }
    }
}
