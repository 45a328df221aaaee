//! Small helpers over Cranelift's function builder shared by every
//! generator: memory flags, signatures, blocks, constants, typed loads and
//! stores of state variables, and unrolled copies.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{AbiParam, Block, Endianness, InstBuilder, MemFlagsData, Signature, Value};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::Module;

use dve_frontend::ir::Ty;

/// Loads and stores into state vectors: unaligned, never trapping (every
/// address is checked before it is formed), little-endian.
pub(super) fn mem() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_endianness(Endianness::Little)
}

/// A signature of `params` pointer-sized (i64) parameters and an optional
/// return value: every generated function has one.
pub(super) fn signature(
    module: &JITModule,
    params: usize,
    ret: Option<cranelift_codegen::ir::Type>,
) -> Signature {
    let mut sig = module.make_signature();
    sig.params.extend((0..params).map(|_| AbiParam::new(I64)));
    sig.returns.extend(ret.map(AbiParam::new));
    sig
}

pub(super) fn entry_params(b: &mut FunctionBuilder) -> Vec<Value> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    b.block_params(entry).to_vec()
}

/// Switches to a block and seals it (all its predecessors exist: no loops).
pub(super) fn enter(b: &mut FunctionBuilder, blk: Block) {
    b.switch_to_block(blk);
    b.seal_block(blk);
}

pub(super) fn c32(b: &mut FunctionBuilder, v: i32) -> Value {
    b.ins().iconst(I32, v as u32 as i64)
}

pub(super) fn c8(b: &mut FunctionBuilder, v: u8) -> Value {
    b.ins().iconst(I8, v as i64)
}

/// Branches to `err` when `cond` (an i8 truth value) holds, else continues.
pub(super) fn err_if(b: &mut FunctionBuilder, cond: Value, err: Block) {
    let cont = b.create_block();
    b.ins().brif(cond, err, &[], cont, &[]);
    enter(b, cont);
}

/// Reads a variable slot of type `ty` at `base + off` as an i32.
pub(super) fn load_ty(b: &mut FunctionBuilder, ty: Ty, base: Value, off: i32) -> Value {
    match ty {
        Ty::Byte => b.ins().uload8(I32, mem(), base, off),
        Ty::Int => b.ins().sload16(I32, mem(), base, off),
    }
}

/// Stores the low bits of `v` (an i32) as `ty` at `base + off`.
pub(super) fn store_ty(b: &mut FunctionBuilder, ty: Ty, v: Value, base: Value, off: i32) {
    match ty {
        Ty::Byte => b.ins().istore8(mem(), v, base, off),
        Ty::Int => b.ins().istore16(mem(), v, base, off),
    };
}

/// `base + index * scale` for an index already known to be in range.
pub(super) fn index_addr(b: &mut FunctionBuilder, base: Value, index: Value, scale: i64) -> Value {
    let i = b.ins().uextend(I64, index);
    let i = if scale == 1 {
        i
    } else {
        b.ins().imul_imm_s(i, scale)
    };
    b.ins().iadd(base, i)
}

/// Checks `0 <= index < len` (one unsigned compare), branching to `err` otherwise.
pub(super) fn bounds_check(b: &mut FunctionBuilder, index: Value, len: u32, err: Block) {
    let out = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, index, len as i64);
    err_if(b, out, err);
}

pub(super) fn bool_to_i32(b: &mut FunctionBuilder, c: Value) -> Value {
    b.ins().uextend(I32, c)
}

/// Unrolled copy of `len` bytes (8-byte words, then 4, 2, 1).
pub(super) fn emit_copy(b: &mut FunctionBuilder, src: Value, dst: Value, len: usize) {
    let mut off = 0usize;
    for (w, ty) in [(8usize, I64), (4, I32), (2, I16), (1, I8)] {
        while len - off >= w {
            let v = b.ins().load(ty, mem(), src, off as i32);
            b.ins().store(mem(), v, dst, off as i32);
            off += w;
        }
    }
}

/// Zeroes `len` bytes at `dst`.
pub(super) fn emit_zero(b: &mut FunctionBuilder, dst: Value, len: usize) {
    let mut off = 0usize;
    for (w, ty) in [(8usize, I64), (4, I32), (2, I16), (1, I8)] {
        if len - off >= w {
            let z = b.ins().iconst(ty, 0);
            while len - off >= w {
                b.ins().store(mem(), z, dst, off as i32);
                off += w;
            }
        }
    }
}
