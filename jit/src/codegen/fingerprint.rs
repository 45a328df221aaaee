//! The `fingerprint(state) -> u64` function: the frontend's reference hash
//! unrolled for the model's state length.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::build::mem;

/// `dve_frontend::model::fingerprint::reference`, unrolled for `len` bytes.
pub(super) fn emit_fingerprint(b: &mut FunctionBuilder, state: Value, len: usize) -> Value {
    const SEED: u64 = 0x9E37_79B9_7F4A_7C15;
    const K1: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const K2: u64 = 0x1656_67B1_9E37_79F9;
    let mut acc = b.ins().iconst(I64, SEED as i64);
    let mix = |b: &mut FunctionBuilder, acc: Value, w: Value| {
        let w = b.ins().imul_imm_s(w, K1 as i64);
        let x = b.ins().bxor(acc, w);
        let x = b.ins().rotl_imm_s(x, 29);
        b.ins().imul_imm_s(x, K2 as i64)
    };
    let full = len / 8;
    for i in 0..full {
        let w = b.ins().load(I64, mem(), state, (i * 8) as i32);
        acc = mix(b, acc, w);
    }
    let rest = len % 8;
    if rest > 0 {
        // Zero-padded last word from 4-, 2- and 1-byte pieces.
        let base = full * 8;
        let mut word: Option<Value> = None;
        let mut off = 0usize;
        for (w, ty) in [(4usize, I32), (2, I16), (1, I8)] {
            if rest - off >= w {
                let v = b.ins().load(ty, mem(), state, (base + off) as i32);
                let v = b.ins().uextend(I64, v);
                let v = if off > 0 {
                    b.ins().ishl_imm_s(v, (off * 8) as i64)
                } else {
                    v
                };
                word = Some(match word {
                    None => v,
                    Some(acc) => b.ins().bor(acc, v),
                });
                off += w;
            }
        }
        acc = mix(b, acc, word.expect("rest > 0"));
    }
    let mut h = b.ins().bxor_imm_s(acc, len as i64);
    for k in [0xFF51_AFD7_ED55_8CCDu64, 0xC4CE_B9FE_1A85_EC53] {
        let s = b.ins().ushr_imm_s(h, 33);
        h = b.ins().bxor(h, s);
        h = b.ins().imul_imm_s(h, k as i64);
    }
    let s = b.ins().ushr_imm_s(h, 33);
    h = b.ins().bxor(h, s);
    let one = b.ins().iconst(I64, 1);
    let zero = b.ins().icmp_imm_s(IntCC::Equal, h, 0);
    b.ins().select(zero, one, h)
}
