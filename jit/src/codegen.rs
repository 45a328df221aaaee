//! Lowering of the IR to Cranelift.
//!
//! Generated functions (all `Linkage::Local` in one JIT module):
//!
//! * `successors(src, states, entries, cap) -> i64` (`system async`): the
//!   whole enumeration of §7.7 (see `Gen::gen_successors`), writing states
//!   and [`Succ`] entries directly into the caller's buffers; -1 when more
//!   than `cap` successors exist.
//! * `eff_T(src, dst) -> i8` per transition: control state then effects on
//!   `dst` (§7.2); 1 = ok, 0 = run-time error. Small effect lists are
//!   inlined into `successors` instead of called.
//! * `buf_T(src, dst) -> i8` for buffered channel operations (§7.4;
//!   effects first, then the channel operation).
//! * `guard_T(src) -> i8` for very large guards (kept out of `successors`
//!   to keep its register allocation fast).
//! * `status_T(src) -> i8` per transition (`system sync` only, driven from
//!   Rust).
//! * `fan(src, states, entries, c, cap, statuses) -> i64` (models with a
//!   property): successor `c`, a system step, replaced by its product with
//!   the enabled property moves.
//! * `stage2_K(src, states, entries, cap, count, statuses) -> i64` (big
//!   models): stage 2 of a group of processes.
//! * `subK(base) -> i64`: a big subexpression repeated among guards
//!   (value, or 1 << 32 for a run-time error).
//! * `copy(src, dst)` for long state vectors, and `fingerprint(state) ->
//!   u64`.
//!
//! Helper functions are generated only when called; all functions are
//! built first, then compiled on two threads (`Gen::compile_all`).
//!
//! Erroneous successors are only flagged: the caller writes the error state
//! into their slots, which keeps a call out of every successor's code.
//! Where an exact bound of the successors of one state (counted while
//! generating: there are no loops) fits 1 MiB, the caller reserves it and
//! pushes skip the capacity check.
//!
//! In `successors`, each process dispatches on its control state (a switch)
//! so only transitions leaving the current state are looked at. Statuses
//! computed once (property moves, stage-1 receivers, §8.2 channel error
//! flags, §7.5 may-move flags) are kept in a stack slot, not in registers.
//!
//! Code generation is structured: every construct ends in a block that
//! dominates everything emitted after it, and every block is sealed when it
//! is entered (there are no loops, so all its predecessors exist by then).
//! The only variables are the successor count and the running error flag
//! of a rendezvous sender.
//!
//! Memory safety: every static offset is checked against the state length
//! at compile time (`validate`), every dynamic index is compared with the
//! array length before the address is computed, and buffered-channel counts
//! are checked against the capacity before they are used as an index (a
//! count outside `0..=capacity` in the source makes the step erroneous).

use std::collections::HashMap;
use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, Endianness, FuncRef, InstBuilder, MemFlagsData, Signature, StackSlot,
    StackSlotData, StackSlotKind, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};

use dve_frontend::ir::{BinOp, Expr, Model, Place, SyncKind, SystemKind, Transition, Ty, UnOp};
use dve_frontend::model::{Label, Succ, NONE};

use crate::JitError;

pub(crate) struct Compiled {
    pub module: JITModule,
    /// `successors` (`system async` only).
    pub succ: Option<*const u8>,
    /// An upper bound of the successors `succ` produces, when it does not
    /// check the capacity it is given (which must be at least that).
    pub max_successors: Option<usize>,
    pub fp: *const u8,
    /// Per-transition functions (`system sync` only).
    pub sync: Option<SyncFns>,
    /// The state functions: `f(state) -> value (zero-extended) | error << 32`.
    pub functions: Vec<*const u8>,
    pub consts: Vec<Box<[i32]>>,
}

/// `status_T(src) -> i8` (0 disabled, 1 enabled, 3 erroneous guard) and
/// `eff_T(src, dst) -> i8` (1 ok) per transition id.
pub(crate) struct SyncFns {
    pub status: Vec<*const u8>,
    pub eff: Vec<*const u8>,
}

/// Loads and stores into state vectors: unaligned, never trapping (every
/// address is checked before it is formed), little-endian.
fn mem() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_endianness(Endianness::Little)
}

fn cg_err<E: std::fmt::Debug>(e: E) -> JitError {
    JitError::Codegen(format!("{e:?}"))
}

/// Byte offsets of the fields of [`Succ`] as laid out by this build of Rust.
#[derive(Clone, Copy)]
struct EntryLayout {
    size: i64,
    trans: i32,
    partner: i32,
    prop: i32,
    error: i32,
}

impl EntryLayout {
    fn new() -> EntryLayout {
        let label = offset_of!(Succ, label);
        EntryLayout {
            size: std::mem::size_of::<Succ>() as i64,
            trans: (label + offset_of!(Label, trans)) as i32,
            partner: (label + offset_of!(Label, partner)) as i32,
            prop: (label + offset_of!(Label, prop)) as i32,
            error: offset_of!(Succ, error) as i32,
        }
    }
}

pub(crate) fn compile(m: &Model, functions: &[Expr]) -> Result<Compiled, JitError> {
    validate(m)?;
    if !functions.iter().all(|e| expr_ok(e, m.state_len)) {
        return Err(JitError::InvalidModel(
            "a state function reads outside the state vector".into(),
        ));
    }
    let sync = m.system == SystemKind::Sync;

    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(cg_err)?;
    flags.set("use_colocated_libcalls", "false").map_err(cg_err)?;
    flags.set("is_pic", "false").map_err(cg_err)?;
    flags
        .set(
            "enable_verifier",
            if cfg!(debug_assertions) { "true" } else { "false" },
        )
        .map_err(cg_err)?;
    let isa = cranelift_native::builder()
        .map_err(|e| JitError::Unsupported {
            feature: format!("this host ({e})"),
        })?
        .finish(settings::Flags::new(flags))
        .map_err(cg_err)?;
    let module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));

    let mut g = Gen {
        m,
        module,
        fctx: FunctionBuilderContext::new(),
        consts: Tables::default(),
        layout: EntryLayout::new(),
        step_sig: Signature::new(cranelift_codegen::isa::CallConv::SystemV),
        eff: Vec::new(),
        bufop: HashMap::new(),
        guard_fn: HashMap::new(),
        frefs: Frefs::new(),
        copy_fn: None,
        fan_fn: None,
        unchecked: false,
        counting: false,
        push_sites: 0,
        fanned_sites: 0,
        props: Vec::new(),
        used: std::collections::HashSet::new(),
        pending: Vec::new(),
    };
    g.step_sig = signature(&g.module, 2, Some(I8));

    // Declarations.
    for t in &m.transitions {
        let id = g
            .module
            .declare_function(&format!("eff{}", t.id), Linkage::Local, &g.step_sig)
            .map_err(cg_err)?;
        g.eff.push(id);
        if matches!(t.sync, SyncKind::BufSend { .. } | SyncKind::BufRecv { .. }) {
            let id = g
                .module
                .declare_function(&format!("buf{}", t.id), Linkage::Local, &g.step_sig)
                .map_err(cg_err)?;
            g.bufop.insert(t.id, id);
        }
    }
    let guard_sig = signature(&g.module, 1, Some(I8));
    for t in &m.transitions {
        if t.guard.as_ref().is_some_and(|e| expr_size(e) > BIG_GUARD) {
            let id = g
                .module
                .declare_function(&format!("guard{}", t.id), Linkage::Local, &guard_sig)
                .map_err(cg_err)?;
            g.guard_fn.insert(t.id, id);
        }
    }
    // Repeated big subexpressions of guards: one function each,
    // `sub(base) -> value (zero-extended) | error << 32`.
    let sub_sig = signature(&g.module, 1, Some(I64));
    let repeated = repeated_subexpressions(m);
    let mut subs = Vec::new();
    for (k, (rep, all)) in repeated.iter().enumerate() {
        let id = g
            .module
            .declare_function(&format!("sub{k}"), Linkage::Local, &sub_sig)
            .map_err(cg_err)?;
        for e in all {
            g.consts.shared.insert(Tables::key(e), id);
        }
        subs.push((id, *rep));
    }
    g.consts.shared_sig = Some(sub_sig.clone());
    // The state functions, like the shared subexpressions.
    let mut function_ids = Vec::new();
    for (k, e) in functions.iter().enumerate() {
        let id = g
            .module
            .declare_function(&format!("statefn{k}"), Linkage::Local, &sub_sig)
            .map_err(cg_err)?;
        function_ids.push((id, e));
    }
    // `f(base) -> value (zero-extended) | error << 32`.
    let value_fn = |g: &mut Gen, b: &mut FunctionBuilder, e: &Expr| {
        let p = entry_params(b);
        let err = b.create_block();
        let v = expr(b, &mut g.consts, e, p[0], err);
        let r = b.ins().uextend(I64, v);
        b.ins().return_(&[r]);
        enter(b, err);
        b.set_cold_block(err);
        let bad = b.ins().iconst(I64, 1 << 32);
        b.ins().return_(&[bad]);
        Ok(())
    };
    for &(id, e) in &function_ids {
        g.define(id, sub_sig.clone(), |g, b| value_fn(g, b, e))?;
    }
    for (id, e) in subs {
        g.consts.building = Some(Tables::key(e));
        g.define(id, sub_sig.clone(), |g, b| value_fn(g, b, e))?;
        g.consts.building = None;
    }
    let copy_sig = signature(&g.module, 2, None);
    let copy_id = g
        .module
        .declare_function("copy", Linkage::Local, &copy_sig)
        .map_err(cg_err)?;
    g.copy_fn = Some(copy_id);
    let succ_sig = signature(&g.module, 4, Some(I64));
    let succ_id = g
        .module
        .declare_function("successors", Linkage::Local, &succ_sig)
        .map_err(cg_err)?;
    let fp_sig = signature(&g.module, 1, Some(I64));
    let fp_id = g
        .module
        .declare_function("fingerprint", Linkage::Local, &fp_sig)
        .map_err(cg_err)?;

    // Definitions: the entry points first, then (below) only the helper
    // functions they call — most effects are inlined, and compiling unused
    // functions was most of the compile time of big models.
    // `system sync` is driven from Rust with per-transition status and
    // effect functions; `system async` gets the whole enumeration.
    let mut status_ids = Vec::new();
    if sync {
        for t in &m.transitions {
            let id = g
                .module
                .declare_function(&format!("status{}", t.id), Linkage::Local, &guard_sig)
                .map_err(cg_err)?;
            g.define(id, guard_sig.clone(), |g, b| {
                let p = entry_params(b);
                let cs = b.ins().uload16(I32, mem(), p[0], t.control_offset as i32);
                let st = g.status(b, t, Some(cs), p[0]);
                b.ins().return_(&[st]);
                Ok(())
            })?;
            status_ids.push(id);
        }
    } else {
        // Without capacity checks when the successors of one state
        // certainly fit a small buffer (the caller reserves the bound).
        g.unchecked = estimated_pushes(m) * (m.state_len + g.layout.size as usize) <= UNCHECKED_BYTES;
        if let Some(pp) = m.property {
            // Status offsets: after the may-move flags (see `gen_successors`).
            let np = m.processes.len() as u32;
            g.props = m.processes[pp]
                .local
                .iter()
                .enumerate()
                .map(|(i, &t)| (t, np + i as u32))
                .collect();
            let fan_sig = signature(&g.module, 6, Some(I64));
            let fan_id = g
                .module
                .declare_function("fan", Linkage::Local, &fan_sig)
                .map_err(cg_err)?;
            g.define(fan_id, fan_sig, |g, b| g.gen_fan(b))?;
            g.fan_fn = Some(fan_id);
        }
        g.counting = true;
        g.define(succ_id, succ_sig, |g, b| g.gen_successors(b))?;
        g.counting = false;
    }
    g.define(fp_id, fp_sig, |g, b| {
        let p = entry_params(b);
        let h = emit_fingerprint(b, p[0], g.m.state_len);
        b.ins().return_(&[h]);
        Ok(())
    })?;
    if sync {
        // Called from Rust.
        g.used.extend(g.eff.iter().copied());
    }
    let mut done: std::collections::HashSet<FuncId> = std::collections::HashSet::new();
    loop {
        let todo: Vec<FuncId> = g.used.iter().copied().filter(|id| !done.contains(id)).collect();
        if todo.is_empty() {
            break;
        }
        for id in todo {
            done.insert(id);
            if id == copy_id {
                g.define(copy_id, copy_sig.clone(), |g, b| {
                    let p = entry_params(b);
                    emit_copy(b, p[0], p[1], g.m.state_len);
                    b.ins().return_(&[]);
                    Ok(())
                })?;
            } else if let Some(t) = m.transitions.iter().find(|t| g.eff[t.id] == id) {
                g.define(id, g.step_sig.clone(), |g, b| g.gen_effects(b, t))?;
            } else if let Some(t) = m.transitions.iter().find(|t| g.bufop.get(&t.id) == Some(&id)) {
                g.define(id, g.step_sig.clone(), |g, b| g.gen_bufop(b, t))?;
            } else if let Some(t) = m.transitions.iter().find(|t| g.guard_fn.get(&t.id) == Some(&id)) {
                let guard = t.guard.as_ref().expect("has a guard");
                g.define(id, guard_sig.clone(), |g, b| {
                    let p = entry_params(b);
                    let err = b.create_block();
                    let r = truth(b, &mut g.consts, guard, p[0], err, false);
                    b.ins().return_(&[r]);
                    enter(b, err);
                    let three = c8(b, 3);
                    b.ins().return_(&[three]);
                    Ok(())
                })?;
            }
        }
    }

    g.compile_all()?;
    g.module.finalize_definitions().map_err(cg_err)?;
    let succ = (!sync).then(|| g.module.get_finalized_function(succ_id));
    let fp = g.module.get_finalized_function(fp_id);
    let sync_fns = sync.then(|| SyncFns {
        status: status_ids
            .iter()
            .map(|&id| g.module.get_finalized_function(id))
            .collect(),
        eff: g
            .eff
            .iter()
            .map(|&id| g.module.get_finalized_function(id))
            .collect(),
    });
    // Generated code has no loops: each push site runs at most once, and
    // `fan` turns one successor into at most one per property transition.
    let max_successors =
        (!sync && g.unchecked).then(|| g.push_sites - g.fanned_sites + g.fanned_sites * g.props.len().max(1));
    let functions = function_ids
        .iter()
        .map(|&(id, _)| g.module.get_finalized_function(id))
        .collect();
    Ok(Compiled {
        max_successors,
        functions,
        module: g.module,
        succ,
        fp,
        sync: sync_fns,
        consts: g.consts.consts,
    })
}

/// Whether every static offset `e` reads lies inside a state of `len` bytes.
fn expr_ok(e: &Expr, len: usize) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Load { ty, offset } => offset + ty.width() <= len,
        Expr::LoadIndex {
            ty,
            offset,
            len: n,
            index,
        } => offset + ty.width() * *n as usize <= len && expr_ok(index, len),
        Expr::ConstIndex { index, .. } => expr_ok(index, len),
        Expr::InState { offset, .. } => offset + 2 <= len,
        Expr::Unary(_, a) => expr_ok(a, len),
        Expr::Binary(_, a, b) => expr_ok(a, len) && expr_ok(b, len),
    }
}

/// Checks that every static offset the code will use lies inside the state
/// vector, and declines what the interpreter itself cannot run.
fn validate(m: &Model) -> Result<(), JitError> {
    let len = m.state_len;
    let bad = |what: &str| {
        Err(JitError::InvalidModel(format!(
            "{what} lies outside the state vector"
        )))
    };
    let place_ok = |p: &Place| match &p.index {
        None => p.offset + p.ty.width() <= len,
        Some((n, idx)) => p.offset + p.ty.width() * *n as usize <= len && expr_ok(idx, len),
    };
    if m.processes.is_empty() {
        return Err(JitError::InvalidModel("no process".into()));
    }
    if m.initial.len() != len {
        return bad("the initial state");
    }
    for p in &m.processes {
        if p.state_offset + 2 > len {
            return bad("a control state");
        }
    }
    if let Some(pp) = m.property {
        if pp >= m.processes.len() {
            return Err(JitError::InvalidModel("property process index".into()));
        }
    }
    for ch in &m.channels {
        if let Some(b) = &ch.buffer {
            let Some(types) = &ch.item_types else {
                return Err(JitError::Unsupported {
                    feature: "untyped buffered channels".into(),
                });
            };
            if types.len() != b.item_offsets.len()
                || b.item_offsets
                    .iter()
                    .zip(types)
                    .any(|(o, t)| o + t.width() > b.item_size)
            {
                return Err(JitError::InvalidModel(format!(
                    "layout of buffered channel {}",
                    ch.name
                )));
            }
            if b.offset + 2 + b.capacity as usize * b.item_size > len {
                return bad("a channel buffer");
            }
        }
    }
    // Every transition list holds transitions of its process and kind (the
    // code generator relies on it).
    for (pi, p) in m.processes.iter().enumerate() {
        type KindCheck = fn(&SyncKind) -> bool;
        let lists: [(&[usize], KindCheck); 5] = [
            (&p.local, |k| matches!(k, SyncKind::None)),
            (&p.recv, |k| matches!(k, SyncKind::Recv { .. })),
            (&p.send, |k| matches!(k, SyncKind::Send { .. })),
            (&p.buf_recv, |k| matches!(k, SyncKind::BufRecv { .. })),
            (&p.buf_send, |k| matches!(k, SyncKind::BufSend { .. })),
        ];
        for (list, kind_ok) in lists {
            for &t in list {
                match m.transitions.get(t) {
                    Some(tr) if tr.process == pi && kind_ok(&tr.sync) => {}
                    _ => {
                        return Err(JitError::InvalidModel(format!(
                            "transition lists of process {}",
                            p.name
                        )))
                    }
                }
            }
        }
    }
    for (i, t) in m.transitions.iter().enumerate() {
        if t.id != i {
            return Err(JitError::InvalidModel(format!("transition {i} has id {}", t.id)));
        }
        if t.control_offset + 2 > len || t.process >= m.processes.len() {
            return bad("a control state");
        }
        if let Some(g) = &t.guard {
            if !expr_ok(g, len) {
                return bad("a guard variable");
            }
        }
        for a in &t.effects {
            if !expr_ok(&a.value, len) || !place_ok(&a.place) {
                return bad("an effect variable");
            }
        }
        match &t.sync {
            SyncKind::None => {}
            SyncKind::Send { channel, values } | SyncKind::BufSend { channel, values } => {
                if *channel >= m.channels.len() || values.iter().any(|v| !expr_ok(v, len)) {
                    return bad("a sent value");
                }
            }
            SyncKind::Recv { channel, targets } | SyncKind::BufRecv { channel, targets } => {
                if *channel >= m.channels.len() || targets.iter().any(|p| !place_ok(p)) {
                    return bad("a receive target");
                }
            }
        }
        match &t.sync {
            SyncKind::BufSend {
                channel,
                values: items,
            } => check_buf(m, *channel, items.len())?,
            SyncKind::BufRecv { channel, targets } => check_buf(m, *channel, targets.len())?,
            _ => {}
        }
    }
    Ok(())
}

fn check_buf(m: &Model, channel: usize, n: usize) -> Result<(), JitError> {
    match &m.channels[channel].buffer {
        Some(b) if n <= b.item_offsets.len() => Ok(()),
        Some(_) => Err(JitError::InvalidModel(format!(
            "item count on channel {}",
            m.channels[channel].name
        ))),
        // The interpreter turns this into a run-time error; keep it simple.
        None => Err(JitError::Unsupported {
            feature: "buffered operation on an unbuffered channel".into(),
        }),
    }
}

/// A signature of `params` pointer-sized (i64) parameters and an optional
/// return value: every generated function has one.
fn signature(module: &JITModule, params: usize, ret: Option<cranelift_codegen::ir::Type>) -> Signature {
    let mut sig = module.make_signature();
    sig.params.extend((0..params).map(|_| AbiParam::new(I64)));
    sig.returns.extend(ret.map(AbiParam::new));
    sig
}

fn entry_params(b: &mut FunctionBuilder) -> Vec<Value> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    b.block_params(entry).to_vec()
}

/// Switches to a block and seals it (all its predecessors exist: no loops).
fn enter(b: &mut FunctionBuilder, blk: Block) {
    b.switch_to_block(blk);
    b.seal_block(blk);
}

fn c32(b: &mut FunctionBuilder, v: i32) -> Value {
    b.ins().iconst(I32, v as u32 as i64)
}

fn c8(b: &mut FunctionBuilder, v: u8) -> Value {
    b.ins().iconst(I8, v as i64)
}

/// Branches to `err` when `cond` (an i8 truth value) holds, else continues.
fn err_if(b: &mut FunctionBuilder, cond: Value, err: Block) {
    let cont = b.create_block();
    b.ins().brif(cond, err, &[], cont, &[]);
    enter(b, cont);
}

/// Reads a variable slot of type `ty` at `base + off` as an i32.
fn load_ty(b: &mut FunctionBuilder, ty: Ty, base: Value, off: i32) -> Value {
    match ty {
        Ty::Byte => b.ins().uload8(I32, mem(), base, off),
        Ty::Int => b.ins().sload16(I32, mem(), base, off),
    }
}

/// Stores the low bits of `v` (an i32) as `ty` at `base + off`.
fn store_ty(b: &mut FunctionBuilder, ty: Ty, v: Value, base: Value, off: i32) {
    match ty {
        Ty::Byte => b.ins().istore8(mem(), v, base, off),
        Ty::Int => b.ins().istore16(mem(), v, base, off),
    };
}

/// `base + index * scale` for an index already known to be in range.
fn index_addr(b: &mut FunctionBuilder, base: Value, index: Value, scale: i64) -> Value {
    let i = b.ins().uextend(I64, index);
    let i = if scale == 1 {
        i
    } else {
        b.ins().imul_imm_s(i, scale)
    };
    b.ins().iadd(base, i)
}

/// Checks `0 <= index < len` (one unsigned compare), branching to `err` otherwise.
fn bounds_check(b: &mut FunctionBuilder, index: Value, len: u32, err: Block) {
    let out = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, index, len as i64);
    err_if(b, out, err);
}

fn bool_to_i32(b: &mut FunctionBuilder, c: Value) -> Value {
    b.ins().uextend(I32, c)
}

/// Compiles an expression over the state at `base` (§5); run-time errors
/// branch to `err`.
fn expr(b: &mut FunctionBuilder, consts: &mut Tables, e: &Expr, base: Value, err: Block) -> Value {
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

/// What expression code needs besides the builder: constant-array tables
/// (their addresses are baked into the code) and the subexpressions
/// compiled once as functions of their own.
#[derive(Default)]
struct Tables {
    consts: Vec<Box<[i32]>>,
    /// Node address (inside the model being compiled) -> function computing
    /// it: big subexpressions that occur several times among the guards
    /// (generated models such as plc repeat one of 1,800 nodes 20 times).
    shared: HashMap<usize, FuncId>,
    shared_sig: Option<Signature>,
    /// Callee references of the function being built.
    refs: HashMap<FuncId, FuncRef>,
    /// The node whose own function is being built (not a call to itself).
    building: Option<usize>,
}

impl Tables {
    fn key(e: &Expr) -> usize {
        e as *const Expr as usize
    }

    fn is_shared(&self, e: &Expr) -> bool {
        let k = Tables::key(e);
        self.building != Some(k) && self.shared.contains_key(&k)
    }

    /// A reference to `e`'s function in the function being built, if `e` is
    /// a shared subexpression.
    fn shared_ref(&mut self, b: &mut FunctionBuilder, e: &Expr) -> Option<FuncRef> {
        if !self.is_shared(e) {
            return None;
        }
        let id = self.shared[&Tables::key(e)];
        let sig = self.shared_sig.clone().expect("set with `shared`");
        Some(*self.refs.entry(id).or_insert_with(|| {
            // What `Module::declare_func_in_func` does, without the module.
            let signature = b.import_signature(sig);
            let name = b
                .func
                .declare_imported_user_function(cranelift_codegen::ir::UserExternalName {
                    namespace: 0,
                    index: id.as_u32(),
                });
            b.import_function(cranelift_codegen::ir::ExtFuncData {
                name: cranelift_codegen::ir::ExternalName::user(name),
                signature,
                colocated: true,
                patchable: false,
            })
        }))
    }
}

/// Subexpressions of at least this many nodes that occur more than once
/// among the guards are compiled once, as functions.
const SHARED_MIN: usize = 64;

/// The repeated big subexpressions of the guards of `m`: one representative
/// of each (the first met) and all its occurrences.
fn repeated_subexpressions(m: &Model) -> Vec<(&Expr, Vec<&Expr>)> {
    use std::hash::{Hash, Hasher};
    // Post-order: (structural hash, size) of every node, grouping the big ones.
    fn walk<'e>(e: &'e Expr, groups: &mut HashMap<(u64, usize), Vec<&'e Expr>>) -> (u64, usize) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let size = match e {
            Expr::Const(c) => {
                (0u8, c).hash(&mut h);
                1
            }
            Expr::Load { ty, offset } => {
                (1u8, *ty as u8, offset).hash(&mut h);
                1
            }
            Expr::InState { offset, state } => {
                (2u8, offset, state).hash(&mut h);
                1
            }
            Expr::LoadIndex {
                ty,
                offset,
                len,
                index,
            } => {
                let (ih, is) = walk(index, groups);
                (3u8, *ty as u8, offset, len, ih).hash(&mut h);
                1 + is
            }
            Expr::ConstIndex { values, index } => {
                let (ih, is) = walk(index, groups);
                (4u8, values, ih).hash(&mut h);
                1 + is
            }
            Expr::Unary(op, a) => {
                let (ah, asz) = walk(a, groups);
                (5u8, *op as u8, ah).hash(&mut h);
                1 + asz
            }
            Expr::Binary(op, a, c) => {
                let (ah, asz) = walk(a, groups);
                let (ch, csz) = walk(c, groups);
                (6u8, *op as u8, ah, ch).hash(&mut h);
                1 + asz + csz
            }
        };
        let hash = h.finish();
        if size >= SHARED_MIN {
            groups.entry((hash, size)).or_default().push(e);
        }
        (hash, size)
    }
    let mut groups: HashMap<(u64, usize), Vec<&Expr>> = HashMap::new();
    for t in &m.transitions {
        if let Some(g) = &t.guard {
            walk(g, &mut groups);
        }
    }
    let mut out = Vec::new();
    for (_, members) in groups {
        // Equal hashes are confirmed structurally.
        let mut rest = members;
        while rest.len() > 1 {
            let first = rest[0];
            let (same, other): (Vec<&Expr>, Vec<&Expr>) = rest.into_iter().partition(|e| *e == first);
            if same.len() > 1 {
                out.push((first, same));
            }
            rest = other;
        }
    }
    // Only the biggest: a repeated subexpression all of whose occurrences
    // lie inside occurrences of a bigger chosen one is left inline (else a
    // chain `a || b || c ...` would become a chain of calls).
    out.sort_by_key(|(e, all)| (std::cmp::Reverse(expr_size(e)), Tables::key(e), all.len()));
    fn cover(e: &Expr, covered: &mut std::collections::HashSet<usize>) {
        covered.insert(Tables::key(e));
        match e {
            Expr::LoadIndex { index, .. } | Expr::ConstIndex { index, .. } | Expr::Unary(_, index) => {
                cover(index, covered)
            }
            Expr::Binary(_, a, c) => {
                cover(a, covered);
                cover(c, covered);
            }
            _ => {}
        }
    }
    let mut covered = std::collections::HashSet::new();
    let mut chosen = Vec::new();
    for (e, all) in out {
        if all.iter().all(|m| covered.contains(&Tables::key(m))) {
            continue;
        }
        for m in &all {
            cover(m, &mut covered);
        }
        chosen.push((e, all));
    }
    // A deterministic order (function ids, hence code layout).
    chosen.sort_by_key(|(e, _)| Tables::key(e));
    chosen
}

/// Size of an expression in nodes, or `None` when its evaluation can raise
/// an error (division, remainder, indexing).
fn safe_size(e: &Expr) -> Option<usize> {
    Some(match e {
        Expr::Const(_) | Expr::Load { .. } | Expr::InState { .. } => 1,
        Expr::LoadIndex { .. } | Expr::ConstIndex { .. } => return None,
        Expr::Unary(_, a) => 1 + safe_size(a)?,
        Expr::Binary(BinOp::Div | BinOp::Rem, ..) => return None,
        Expr::Binary(_, a, c) => 1 + safe_size(a)? + safe_size(c)?,
    })
}

/// Whether a short-circuit right operand may be evaluated unconditionally.
fn eager_ok(r: &Expr) -> bool {
    safe_size(r).is_some_and(|n| n <= EAGER_LIMIT)
}

/// Number of nodes of an expression.
fn expr_size(e: &Expr) -> usize {
    match e {
        Expr::Const(_) | Expr::Load { .. } | Expr::InState { .. } => 1,
        Expr::LoadIndex { index, .. } | Expr::ConstIndex { index, .. } => 1 + expr_size(index),
        Expr::Unary(_, a) => 1 + expr_size(a),
        Expr::Binary(_, a, c) => 1 + expr_size(a) + expr_size(c),
    }
}

/// Effects up to this size (in expression nodes) are inlined into the
/// successor function.
const INLINE_EFFECTS: usize = 24;

/// The distinct source states of some transitions, in first-seen order.
fn distinct_froms(m: &Model, ts: impl Iterator<Item = usize>) -> Vec<u16> {
    let mut out: Vec<u16> = Vec::new();
    for t in ts {
        let f = m.transitions[t].from;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// Successor buffers up to this size are reserved whole, so that pushes
/// need no capacity check.
const UNCHECKED_BYTES: usize = 1 << 20;

/// The receivers that could pair with the rendezvous send `t` (same
/// channel, another process), in model order.
fn partners(m: &Model, t: usize) -> impl Iterator<Item = &Transition> {
    let send = &m.transitions[t];
    let channel = match send.sync {
        SyncKind::Send { channel, .. } => Some(channel),
        _ => None,
    };
    m.transitions.iter().filter(move |r| {
        r.process != send.process && matches!(r.sync, SyncKind::Recv { channel: c, .. } if Some(c) == channel)
    })
}

/// An estimate of the push sites `gen_successors` will generate (the exact
/// count, made while generating, is what the caller relies on).
fn estimated_pushes(m: &Model) -> usize {
    let nprops = m.property.map_or(0, |p| m.processes[p].local.len());
    let mut system = 0;
    let mut direct = nprops;
    for (p, pr) in m.processes.iter().enumerate() {
        if Some(p) == m.property {
            continue;
        }
        system += pr.local.len() + pr.buf_recv.len() + pr.buf_send.len();
        for &t in &pr.send {
            for r in partners(m, t) {
                if Some(r.process) == m.property {
                    direct += 1;
                } else {
                    system += 1;
                }
            }
        }
    }
    system * nprops.max(1) + direct
}

/// Threads compiling functions at once (this project's machines have 2 cores).
const COMPILE_THREADS: usize = 2;

/// Below this many instructions in all, compiling on one thread is faster
/// than starting another.
const PARALLEL_INSTS: usize = 20_000;

/// Estimated size (instructions) of a stage-2 function in big models.
const STAGE2_INSTS: usize = 8_000;

/// Guards larger than this (in nodes) get a function of their own.
const BIG_GUARD: usize = 200;

/// Largest right operand of `and` / `or` / `imply` evaluated without a branch.
const EAGER_LIMIT: usize = 16;

/// The truth of `e` as an i8 0/1: `e > 0` when `positive`, else `e != 0`
/// (the same for the comparisons and logical operators, whose values are 0
/// or 1, which are compiled straight to flags without widening). An `and`,
/// `or` or `imply` whose right operand is `eager_ok` is evaluated without
/// branches: that operand cannot fail, so evaluating it anyway gives the
/// same value.
fn truth(
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

/// Assignment (§6): range check of `v`, index (evaluated in `index_base`)
/// bounds check, store into `dst`.
/// Stores `v`, whose value is known to lie in `range`, into `place`: an
/// error if out of the place's type range (the check is left out when
/// `range` fits) or index out of bounds.
#[allow(clippy::too_many_arguments)]
fn store_place(
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

/// Values of a variable of type `ty`.
fn ty_range(ty: Ty) -> (i64, i64) {
    match ty {
        Ty::Byte => (0, 255),
        Ty::Int => (-32768, 32767),
    }
}

fn fits(r: (i64, i64), within: (i64, i64)) -> bool {
    within.0 <= r.0 && r.1 <= within.1
}

/// An interval holding every value `e` can take (evaluation is in wrapping
/// 32-bit arithmetic: an operation whose exact result could leave the i32
/// range gets the whole range).
fn value_range(e: &Expr) -> (i64, i64) {
    const ALL: (i64, i64) = (i32::MIN as i64, i32::MAX as i64);
    let exact = |lo: i64, hi: i64| if fits((lo, hi), ALL) { (lo, hi) } else { ALL };
    match e {
        Expr::Const(c) => (*c as i64, *c as i64),
        Expr::Load { ty, .. } | Expr::LoadIndex { ty, .. } => ty_range(*ty),
        Expr::ConstIndex { values, .. } => (
            values.iter().copied().min().unwrap_or(0) as i64,
            values.iter().copied().max().unwrap_or(0) as i64,
        ),
        Expr::InState { .. } | Expr::Unary(UnOp::Not, _) => (0, 1),
        Expr::Unary(UnOp::Neg, a) => {
            let (lo, hi) = value_range(a);
            exact(-hi, -lo)
        }
        Expr::Unary(UnOp::BitNot, a) => {
            let (lo, hi) = value_range(a);
            (-hi - 1, -lo - 1)
        }
        Expr::Binary(op, a, c) => {
            let ((al, ah), (cl, ch)) = (value_range(a), value_range(c));
            match op {
                BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::And
                | BinOp::Or
                | BinOp::Imply => (0, 1),
                BinOp::Add => exact(al + cl, ah + ch),
                BinOp::Sub => exact(al - ch, ah - cl),
                BinOp::Mul => {
                    let p = [al * cl, al * ch, ah * cl, ah * ch];
                    exact(*p.iter().min().expect("4"), *p.iter().max().expect("4"))
                }
                BinOp::BitAnd if cl >= 0 => (0, ch),
                BinOp::BitAnd if al >= 0 => (0, ah),
                _ => ALL,
            }
        }
    }
}

/// Truncation through a typed channel (§7.3).
fn truncate(b: &mut FunctionBuilder, ty: Ty, v: Value) -> Value {
    match ty {
        Ty::Byte => b.ins().band_imm_s(v, 0xff),
        Ty::Int => {
            let s = b.ins().ireduce(I16, v);
            b.ins().sextend(I32, s)
        }
    }
}

/// Unrolled copy of `len` bytes (8-byte words, then 4, 2, 1).
fn emit_copy(b: &mut FunctionBuilder, src: Value, dst: Value, len: usize) {
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
fn emit_zero(b: &mut FunctionBuilder, dst: Value, len: usize) {
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

/// `dve_frontend::model::fingerprint::reference`, unrolled for `len` bytes.
fn emit_fingerprint(b: &mut FunctionBuilder, state: Value, len: usize) -> Value {
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

/// What one successor applies to the copy of the source, in order.
#[derive(Clone, Copy)]
enum Step {
    /// A generated step function `(src, dst) -> i8`.
    Call(FuncId),
    /// Rendezvous value passing from sender to receiver (§7.3 step 2).
    Pass { send: usize, recv: usize },
    /// Control state and effects of a transition, inline.
    Inline(usize),
}

/// The error flag of a successor.
#[derive(Clone, Copy)]
/// A successor's label (transition, partner, property transition).
enum Lab {
    Const([u32; 3]),
    Dyn([Value; 3]),
}

enum Flag {
    Const(bool),
    /// Non-zero i8 = error.
    Val(Value),
}

/// The parameters and variables of the successor function being built.
struct SuccCx {
    src: Value,
    states: Value,
    entries: Value,
    cap: Value,
    count: Variable,
    overflow: Block,
    /// Status bytes computed once per call.
    flags: Flags,
}

/// Where the status bytes are: the successor function's stack slot, or
/// (in the functions it calls) a pointer to it.
#[derive(Clone, Copy)]
enum Flags {
    Slot(StackSlot),
    Ptr(Value),
}

impl SuccCx {
    fn flag(&self, b: &mut FunctionBuilder, off: u32) -> Value {
        match self.flags {
            Flags::Slot(slot) => b.ins().stack_load(I64, I8, slot, off as i32),
            Flags::Ptr(p) => b.ins().load(I8, MemFlagsData::trusted(), p, off as i32),
        }
    }

    fn flags_addr(&self, b: &mut FunctionBuilder) -> Value {
        match self.flags {
            Flags::Slot(slot) => b.ins().stack_addr(I64, slot, 0),
            Flags::Ptr(p) => p,
        }
    }
}

struct Gen<'m> {
    m: &'m Model,
    module: JITModule,
    fctx: FunctionBuilderContext,
    consts: Tables,
    layout: EntryLayout,
    step_sig: Signature,
    /// `eff_T` per transition id.
    eff: Vec<FuncId>,
    /// Buffered operation per transition id.
    bufop: HashMap<usize, FuncId>,
    /// Out-of-line guards (large ones) per transition id.
    guard_fn: HashMap<usize, FuncId>,
    /// Callee references of the function being built.
    frefs: Frefs,
    copy_fn: Option<FuncId>,
    /// `fan` (models with a property): expands one system successor by the
    /// enabled property moves.
    fan_fn: Option<FuncId>,
    /// Whether pushes skip the capacity check (`Compiled::max_successors`).
    unchecked: bool,
    /// Counting push sites of the successor function (not of `fan`).
    counting: bool,
    push_sites: usize,
    /// Those of them whose successor `fan` expands.
    fanned_sites: usize,
    /// Property transitions with the offset of their status byte in the
    /// successor function's status block.
    props: Vec<(usize, u32)>,
    /// Helper functions called by the generated code (only those are defined).
    used: std::collections::HashSet<FuncId>,
    /// Functions built, waiting to be compiled.
    pending: Vec<(FuncId, cranelift_codegen::ir::Function)>,
}

/// Per-function map of callee references.
type Frefs = HashMap<FuncId, FuncRef>;

impl<'m> Gen<'m> {
    /// Builds the IR of function `id`; it is compiled later, with all the
    /// others, by [`Gen::compile_all`].
    fn define(
        &mut self,
        id: FuncId,
        sig: Signature,
        body: impl FnOnce(&mut Gen<'m>, &mut FunctionBuilder) -> Result<(), JitError>,
    ) -> Result<(), JitError> {
        let mut func =
            cranelift_codegen::ir::Function::with_name_signature(UserFuncName::user(0, id.as_u32()), sig);
        let mut fctx = std::mem::take(&mut self.fctx);
        {
            let mut b = FunctionBuilder::new(&mut func, &mut fctx);
            self.frefs.clear();
            self.consts.refs.clear();
            body(self, &mut b)?;
            b.finalize(self.module.target_config());
        }
        self.fctx = fctx;
        self.pending.push((id, func));
        Ok(())
    }

    /// Compiles every defined function, on up to [`COMPILE_THREADS`]
    /// threads (biggest first), then hands the machine code to the module.
    /// Cranelift's time grows with the size of a function, and big models
    /// have several big functions (successors, large guards).
    fn compile_all(&mut self) -> Result<(), JitError> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Mutex;
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_by_key(|(_, f)| std::cmp::Reverse(f.dfg.num_insts()));
        let isa = self.module.isa();
        let next = AtomicUsize::new(0);
        type Done = (FuncId, u64, Vec<u8>, Vec<cranelift_module::ModuleReloc>);
        let done: Mutex<Vec<Result<Done, JitError>>> = Mutex::new(Vec::with_capacity(pending.len()));
        let total: usize = pending.iter().map(|(_, f)| f.dfg.num_insts()).sum();
        let threads = if total < PARALLEL_INSTS {
            1
        } else {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(COMPILE_THREADS)
        };
        let work = || {
            let mut ctx = Context::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((id, func)) = pending.get(i) else { break };
                ctx.clear();
                ctx.func = func.clone();
                let r = match ctx.compile(isa, &mut Default::default()) {
                    Err(e) => Err(JitError::Codegen(format!(
                        "{:?}",
                        cranelift_codegen::print_errors::pretty_error(e.func, e.inner)
                    ))),
                    Ok(code) => {
                        let (align, bytes, mach) = (
                            code.buffer.alignment as u64,
                            code.code_buffer().to_vec(),
                            code.buffer.relocs().to_vec(),
                        );
                        let relocs = mach
                            .iter()
                            .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &ctx.func, *id))
                            .collect();
                        Ok((*id, align, bytes, relocs))
                    }
                };
                done.lock().expect("no panic while holding the lock").push(r);
            }
        };
        if threads <= 1 {
            work();
        } else {
            std::thread::scope(|sc| {
                for _ in 1..threads {
                    sc.spawn(work);
                }
                work();
            });
        }
        for r in done.into_inner().expect("no panic while holding the lock") {
            let (id, align, bytes, relocs) = r?;
            self.module
                .define_function_bytes(id, align, &bytes, &relocs)
                .map_err(cg_err)?;
        }
        Ok(())
    }

    fn fref(&mut self, b: &mut FunctionBuilder, id: FuncId) -> FuncRef {
        self.used.insert(id);
        *self
            .frefs
            .entry(id)
            .or_insert_with(|| self.module.declare_func_in_func(id, b.func))
    }

    /// Calls a step function; returns its i8 result.
    fn call_step(&mut self, b: &mut FunctionBuilder, id: FuncId, src: Value, dst: Value) -> Value {
        let f = self.fref(b, id);
        let call = b.ins().call(f, &[src, dst]);
        b.inst_results(call)[0]
    }

    /// Inline control state + effects of `t` on `dst` (§7.2); errors to `err`.
    fn inline_effects(&mut self, b: &mut FunctionBuilder, t: &Transition, dst: Value, err: Block) {
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
    fn gen_effects(&mut self, b: &mut FunctionBuilder, t: &Transition) -> Result<(), JitError> {
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
    fn gen_bufop(&mut self, b: &mut FunctionBuilder, t: &Transition) -> Result<(), JitError> {
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

    /// Status of a transition in the source (DiVinE's `passed_through`):
    /// an i8 that is 0 (disabled), 1 (enabled) or 3 (enabled, erroneous
    /// guard). `cs` is the process's control state, `None` when it is
    /// already known to equal `t.from`.
    fn status(&mut self, b: &mut FunctionBuilder, t: &Transition, cs: Option<Value>, src: Value) -> Value {
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

    /// Emits `body(f)` for the control state `f == cs` among `froms`
    /// (distinct), then continues after it.
    fn dispatch(
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
    fn when(
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

    /// Appends one successor: bounds check of the output, label, then the
    /// copy of the source with `steps` applied (or the error state).
    fn push(&mut self, b: &mut FunctionBuilder, cx: &mut SuccCx, label: [u32; 3], err: Flag, steps: &[Step]) {
        self.push_dyn(b, cx, Lab::Const(label), err, steps)
    }

    /// `push` with the label given as constants or i32 values.
    fn push_dyn(&mut self, b: &mut FunctionBuilder, cx: &mut SuccCx, label: Lab, err: Flag, steps: &[Step]) {
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

    /// One system step expanded by the property moves (§7.6): the system
    /// successor is pushed once, then `fan` replaces it by one copy per
    /// enabled property move (none when no move is enabled), which keeps
    /// the code linear in the number of transitions rather than in their
    /// product with the property's.
    fn emit(
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
    }

    /// `fan(src, states, entries, c, cap, statuses) -> count`: successor
    /// `c` (a system step) is replaced by its product with every enabled
    /// property move, in order, written from position `c` on; -1 when
    /// `cap` is exceeded. A system error or a property guard error gives
    /// the error state (§7.6, §8).
    fn gen_fan(&mut self, b: &mut FunctionBuilder) -> Result<(), JitError> {
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

    /// Committed flag (i8) of process `p` in control state `cs`, `None` when
    /// it is constantly false.
    fn committed(&mut self, b: &mut FunctionBuilder, p: usize, cs: Value) -> Option<Value> {
        let m = self.m;
        let mut acc: Option<Value> = None;
        let mut or = |b: &mut FunctionBuilder, v: Value| {
            acc = Some(match acc {
                None => v,
                Some(a) => b.ins().bor(a, v),
            });
        };
        if p == 0 && m.error_state_committed() {
            let v = b.ins().icmp_imm_s(IntCC::Equal, cs, m.error_marker() as i64);
            or(b, v);
        }
        for (k, &c) in m.processes[p].committed.iter().enumerate() {
            if c && !(p == 0 && k == m.error_marker() as usize) {
                let v = b.ins().icmp_imm_s(IntCC::Equal, cs, k as i64);
                or(b, v);
            }
        }
        acc
    }

    /// The step applying the control state and effects of `t`: inline when
    /// small, else a call of `eff_T`.
    fn effects_step(&self, t: usize) -> Step {
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

    /// A rendezvous sender `t` of process `pi` paired with every candidate
    /// receiver of another process (§7.3, §7.7 item 3.4, §8.2). `cs` is the
    /// control state when it still has to be tested, `chan_err` the stack
    /// offset of the channel's error flag if it has one.
    #[allow(clippy::too_many_arguments)]
    fn gen_send(
        &mut self,
        b: &mut FunctionBuilder,
        cx: &mut SuccCx,
        cands: &[(usize, usize, usize, u32)],
        pi: usize,
        t: usize,
        cs: Option<Value>,
        chan_err: Option<u32>,
        sender_err: Variable,
    ) {
        let m = self.m;
        let tr = &m.transitions[t];
        let SyncKind::Send { channel, .. } = tr.sync else {
            unreachable!("send list")
        };
        let partners: Vec<_> = cands
            .iter()
            .filter(|c| c.0 == channel && c.1 != pi)
            .copied()
            .collect();
        if partners.is_empty() {
            // No candidate can ever pair with it (guards have no side
            // effects, so it need not be evaluated).
            return;
        }
        let src = cx.src;
        let st = match chan_err {
            None => self.status(b, tr, cs, src),
            Some(off) => {
                let ce = cx.flag(b, off);
                let (check, join) = (b.create_block(), b.create_block());
                let st = b.append_block_param(join, I8);
                let three = c8(b, 3);
                b.ins().brif(ce, join, &[BlockArg::Value(three)], check, &[]);
                enter(b, check);
                let s = self.status(b, tr, cs, src);
                b.ins().jump(join, &[BlockArg::Value(s)]);
                enter(b, join);
                st
            }
        };
        let en = b.ins().band_imm_s(st, 1);
        // The running error flag, when known at compile time (no guard, no
        // channel error: false until a conflicting partner may set it).
        let mut known = (tr.guard.is_none() && chan_err.is_none()).then_some(false);
        self.when(b, en, |g, b| {
            let e = b.ins().band_imm_s(st, 2);
            b.def_var(sender_err, e);
            for &(_, q, r, off) in &partners {
                let rst = cx.flag(b, off);
                let ren = b.ins().band_imm_s(rst, 1);
                let conflict = Some(q) != m.property
                    && tr
                        .global_writes
                        .iter()
                        .any(|w| m.transitions[r].global_writes.contains(w));
                let k = if conflict { Some(true) } else { known };
                g.when(b, ren, |g, b| {
                    if conflict {
                        let one = c8(b, 1);
                        b.def_var(sender_err, one);
                    }
                    let flag = match k {
                        Some(v) => Flag::Const(v),
                        None => Flag::Val(b.use_var(sender_err)),
                    };
                    if Some(q) == m.property {
                        let steps = [g.effects_step(t), g.effects_step(r)];
                        g.push(b, cx, [t as u32, NONE, r as u32], flag, &steps);
                    } else {
                        let steps = [
                            Step::Pass { send: t, recv: r },
                            g.effects_step(r),
                            g.effects_step(t),
                        ];
                        g.emit(b, cx, t as u32, r as u32, flag, &steps);
                    }
                });
                if conflict {
                    // Set only if this partner was enabled.
                    known = None;
                }
            }
        });
    }

    /// Stage 2 of process `pi` (§7.7 item 3: its local and buffered
    /// transitions and the rendezvous it starts), under its may-move flag.
    #[allow(clippy::too_many_arguments)]
    fn gen_stage2(
        &mut self,
        b: &mut FunctionBuilder,
        cx: &mut SuccCx,
        pi: usize,
        cands: &[(usize, usize, usize, u32)],
        chan_err: &[Option<u32>],
        may_move: &[Option<u32>],
        sender_err: Variable,
    ) {
        let m = self.m;
        let pr = &m.processes[pi];
        let src = cx.src;
        let cs = |b: &mut FunctionBuilder, p: usize| {
            b.ins()
                .uload16(I32, mem(), src, m.processes[p].state_offset as i32)
        };
        // A send on a channel with an error flag may be enabled in any
        // control state (§8.2): such processes emit their sends after
        // the dispatch, each with its own control-state test.
        let quirky = pr.send.iter().any(|&t| match m.transitions[t].sync {
            SyncKind::Send { channel, .. } => chan_err[channel].is_some(),
            _ => false,
        });
        let mut grouped: Vec<usize> = pr
            .local
            .iter()
            .chain(&pr.buf_recv)
            .chain(&pr.buf_send)
            .copied()
            .collect();
        if !quirky {
            grouped.extend(&pr.send);
        }
        let froms = distinct_froms(m, grouped.iter().copied());
        let body = |g: &mut Self, b: &mut FunctionBuilder, cx: &mut SuccCx| {
            let c = cs(b, pi);
            g.dispatch(b, c, &froms, |g, b, f| {
                for &t in pr.local.iter().filter(|&&t| m.transitions[t].from == f) {
                    let tr = &m.transitions[t];
                    let st = g.status(b, tr, None, src);
                    let e = if tr.guard.is_none() {
                        Flag::Const(false)
                    } else {
                        Flag::Val(b.ins().band_imm_s(st, 2))
                    };
                    let steps = [g.effects_step(t)];
                    match tr.guard {
                        None => g.emit(b, cx, t as u32, NONE, e, &steps),
                        Some(_) => {
                            let en = b.ins().band_imm_s(st, 1);
                            g.when(b, en, |g, b| g.emit(b, cx, t as u32, NONE, e, &steps));
                        }
                    }
                }
                for (list, recv) in [(&pr.buf_recv, true), (&pr.buf_send, false)] {
                    for &t in list.iter().filter(|&&t| m.transitions[t].from == f) {
                        let tr = &m.transitions[t];
                        let (SyncKind::BufRecv { channel, .. } | SyncKind::BufSend { channel, .. }) = tr.sync
                        else {
                            unreachable!("buffered lists")
                        };
                        let buf = m.channels[channel].buffer.as_ref().expect("validated");
                        let st = g.status(b, tr, None, src);
                        let n = b.ins().uload16(I32, mem(), src, buf.offset as i32);
                        let room = if recv {
                            b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, n, 0)
                        } else {
                            b.ins()
                                .icmp_imm_s(IntCC::UnsignedLessThan, n, buf.capacity as i64)
                        };
                        let en = b.ins().band(st, room);
                        let en = b.ins().band_imm_s(en, 1);
                        g.when(b, en, |g, b| {
                            let e = b.ins().band_imm_s(st, 2);
                            let step = Step::Call(g.bufop[&t]);
                            g.emit(b, cx, t as u32, NONE, Flag::Val(e), &[step]);
                        });
                    }
                }
                if !quirky {
                    for &t in pr.send.iter().filter(|&&t| m.transitions[t].from == f) {
                        g.gen_send(b, cx, cands, pi, t, None, None, sender_err);
                    }
                }
            });
            if quirky {
                for &t in &pr.send {
                    let SyncKind::Send { channel, .. } = m.transitions[t].sync else {
                        unreachable!("send list")
                    };
                    let c = cs(b, pi);
                    g.gen_send(b, cx, cands, pi, t, Some(c), chan_err[channel], sender_err);
                }
            }
        };
        match may_move[pi] {
            None => body(self, b, cx),
            Some(off) => {
                let mm = cx.flag(b, off);
                self.when(b, mm, |g, b| body(g, b, cx))
            }
        }
    }

    /// Groups the stage-2 processes, in order, into functions of about
    /// `STAGE2_INSTS` instructions (an estimate); one group for models
    /// below twice that.
    fn stage2_chunks(&self, procs: &[usize]) -> Vec<Vec<usize>> {
        let m = self.m;
        let size = |t: &Transition| {
            let guard = t.guard.as_ref().map_or(0, expr_size);
            let effects: usize = t.effects.iter().map(|a| expr_size(&a.value) + 2).sum();
            guard + effects
        };
        let cost = |p: usize| -> usize {
            let pr = &m.processes[p];
            let own: usize = pr
                .local
                .iter()
                .chain(&pr.buf_recv)
                .chain(&pr.buf_send)
                .map(|&t| 30 + 2 * size(&m.transitions[t]))
                .sum();
            let sends: usize = pr
                .send
                .iter()
                .map(|&t| {
                    10 + 2 * size(&m.transitions[t]) + partners(m, t).map(|r| 30 + 2 * size(r)).sum::<usize>()
                })
                .sum();
            own + sends
        };
        let costs: Vec<usize> = procs.iter().map(|&p| cost(p)).collect();
        if costs.iter().sum::<usize>() < 2 * STAGE2_INSTS {
            return vec![procs.to_vec()];
        }
        let mut chunks: Vec<Vec<usize>> = vec![Vec::new()];
        let mut acc = 0;
        for (&p, &c) in procs.iter().zip(&costs) {
            if acc > 0 && acc + c > STAGE2_INSTS {
                chunks.push(Vec::new());
                acc = 0;
            }
            chunks.last_mut().expect("one").push(p);
            acc += c;
        }
        chunks
    }

    /// The whole successor enumeration (§7.7 with §7.5, §7.6, §8.2).
    ///
    /// Statuses computed once (property moves, stage-1 receivers, channel
    /// error flags, may-move flags) live in a stack slot rather than in
    /// registers, and control states are reloaded where used: long live
    /// ranges made register allocation of big models slow.
    fn gen_successors(&mut self, b: &mut FunctionBuilder) -> Result<(), JitError> {
        let m = self.m;
        let np = m.processes.len();
        let p = entry_params(b);
        let count = b.declare_var(I64);
        let zero64 = b.ins().iconst(I64, 0);
        b.def_var(count, zero64);
        let sender_err = b.declare_var(I8);
        let zero8 = c8(b, 0);
        b.def_var(sender_err, zero8);
        let overflow = b.create_block();

        // Stack-slot layout: may-move flags, property statuses, receiver
        // statuses, channel error flags.
        let n_props = m.property.map_or(0, |pp| m.processes[pp].local.len());
        let n_recv: usize = m.processes.iter().map(|p| p.recv.len()).sum();
        let size = np + n_props + n_recv + m.channels.len();
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size.max(1) as u32,
            0,
        ));
        let mut cx = SuccCx {
            src: p[0],
            states: p[1],
            entries: p[2],
            cap: p[3],
            count,
            overflow,
            flags: Flags::Slot(slot),
        };
        let src = cx.src;
        let cs = |b: &mut FunctionBuilder, p: usize| {
            b.ins()
                .uload16(I32, mem(), src, m.processes[p].state_offset as i32)
        };

        // §7.5: committed states.
        let committed: Vec<Option<Value>> = (0..np)
            .map(|p| {
                let c = cs(b, p);
                self.committed(b, p, c)
            })
            .collect();
        let mut only: Option<Value> = None;
        for c in committed.iter().flatten() {
            only = Some(match only {
                None => *c,
                Some(o) => b.ins().bor(o, *c),
            });
        }
        // `may_move[p]`: stack offset of the flag, `None` = always.
        let mut may_move: Vec<Option<u32>> = vec![None; np];
        if let Some(o) = only {
            let free = b.ins().icmp_imm_s(IntCC::Equal, o, 0);
            for (p, c) in committed.iter().enumerate() {
                let v = match c {
                    None => free,
                    Some(c) => b.ins().bor(free, *c),
                };
                b.ins().stack_store(I64, v, slot, p as i32);
                may_move[p] = Some(p as u32);
            }
        }
        let mut next_off = np as u32;

        // Property moves, evaluated in the source.
        let mut props: Vec<(usize, u32)> = Vec::new();
        if let Some(pp) = m.property {
            for &t in &m.processes[pp].local {
                let c = cs(b, pp);
                let st = self.status(b, &m.transitions[t], Some(c), src);
                b.ins().stack_store(I64, st, slot, next_off as i32);
                props.push((t, next_off));
                next_off += 1;
            }
        }

        // Stage 1: rendezvous receivers of every process (property
        // included), dispatched on the control state; the statuses of the
        // others stay 0.
        let mut cands: Vec<(usize, usize, usize, u32)> = Vec::new(); // (channel, process, transition, status offset)
        let recv_start = next_off;
        for (q, pr) in m.processes.iter().enumerate() {
            for &r in &pr.recv {
                let SyncKind::Recv { channel, .. } = m.transitions[r].sync else {
                    unreachable!("receive list")
                };
                cands.push((channel, q, r, next_off));
                next_off += 1;
            }
        }
        if !cands.is_empty() {
            let base = b.ins().stack_addr(I64, slot, recv_start as i32);
            emit_zero(b, base, cands.len());
        }
        for (q, pr) in m.processes.iter().enumerate() {
            if pr.recv.is_empty() {
                continue;
            }
            let mine: Vec<_> = cands.iter().filter(|c| c.1 == q).copied().collect();
            let froms = distinct_froms(m, pr.recv.iter().copied());
            let body = |g: &mut Self, b: &mut FunctionBuilder| {
                let c = cs(b, q);
                g.dispatch(b, c, &froms, |g, b, f| {
                    for &(_, _, r, off) in &mine {
                        let tr = &m.transitions[r];
                        if tr.from == f {
                            let st = g.status(b, tr, None, src);
                            b.ins().stack_store(I64, st, slot, off as i32);
                        }
                    }
                });
            };
            match may_move[q] {
                None => body(self, b),
                Some(off) => {
                    let mm = cx.flag(b, off);
                    self.when(b, mm, body);
                }
            }
        }
        // §8.2: per-channel error flags, for channels on which some
        // receive guard can raise an error at all.
        let mut chan_err: Vec<Option<u32>> = vec![None; m.channels.len()];
        for (ch, flag) in chan_err.iter_mut().enumerate() {
            let mut acc: Option<Value> = None;
            for &(_, _, r, off) in cands.iter().filter(|c| c.0 == ch) {
                if m.transitions[r]
                    .guard
                    .as_ref()
                    .is_none_or(|g| safe_size(g).is_some())
                {
                    continue;
                }
                let st = cx.flag(b, off);
                let e = b.ins().band_imm_s(st, 2);
                acc = Some(match acc {
                    None => e,
                    Some(a) => b.ins().bor(a, e),
                });
            }
            if let Some(v) = acc {
                let off = next_off + ch as u32;
                b.ins().stack_store(I64, v, slot, off as i32);
                *flag = Some(off);
            }
        }

        // Stage 2, process by process; in big models in several functions
        // (compiled in parallel, and each faster to compile).
        let stage2: Vec<usize> = (0..np).filter(|&p| Some(p) != m.property).collect();
        let chunks = self.stage2_chunks(&stage2);
        if chunks.len() <= 1 {
            for &pi in &stage2 {
                self.gen_stage2(b, &mut cx, pi, &cands, &chan_err, &may_move, sender_err);
            }
        } else {
            let sig = signature(&self.module, 6, Some(I64));
            let flags = cx.flags_addr(b);
            for (k, chunk) in chunks.iter().enumerate() {
                let id = self
                    .module
                    .declare_function(&format!("stage2_{k}"), Linkage::Local, &sig)
                    .map_err(cg_err)?;
                let frefs = std::mem::take(&mut self.frefs);
                let refs = std::mem::take(&mut self.consts.refs);
                self.define(id, sig.clone(), |g, b| {
                    let p = entry_params(b);
                    let count = b.declare_var(I64);
                    b.def_var(count, p[4]);
                    let sender_err = b.declare_var(I8);
                    let zero8 = c8(b, 0);
                    b.def_var(sender_err, zero8);
                    let overflow = b.create_block();
                    let mut cx = SuccCx {
                        src: p[0],
                        states: p[1],
                        entries: p[2],
                        cap: p[3],
                        count,
                        overflow,
                        flags: Flags::Ptr(p[5]),
                    };
                    for &pi in chunk {
                        g.gen_stage2(b, &mut cx, pi, &cands, &chan_err, &may_move, sender_err);
                    }
                    let c = b.use_var(count);
                    b.ins().return_(&[c]);
                    enter(b, overflow);
                    b.set_cold_block(overflow);
                    let m1 = b.ins().iconst(I64, -1);
                    b.ins().return_(&[m1]);
                    Ok(())
                })?;
                self.frefs = frefs;
                self.consts.refs = refs;
                let f = self.fref(b, id);
                let c = b.use_var(cx.count);
                let call = b
                    .ins()
                    .call(f, &[cx.src, cx.states, cx.entries, cx.cap, c, flags]);
                let n = b.inst_results(call)[0];
                let over = b.ins().icmp_imm_s(IntCC::SignedLessThan, n, 0);
                let cont = b.create_block();
                b.ins().brif(over, cx.overflow, &[], cont, &[]);
                enter(b, cont);
                b.def_var(cx.count, n);
            }
        }

        // §7.6: a deadlocked system lets the property move alone.
        if m.property.is_some() {
            let c = b.use_var(cx.count);
            let none = b.ins().icmp_imm_s(IntCC::Equal, c, 0);
            self.when(b, none, |g, b| {
                for &(pt, off) in &props {
                    let st = cx.flag(b, off);
                    let en = b.ins().band_imm_s(st, 1);
                    g.when(b, en, |g, b| {
                        let e = b.ins().band_imm_s(st, 2);
                        g.push(
                            b,
                            &mut cx,
                            [NONE, NONE, pt as u32],
                            Flag::Val(e),
                            &[g.effects_step(pt)],
                        );
                    });
                }
            });
        }
        let c = b.use_var(cx.count);
        b.ins().return_(&[c]);
        enter(b, overflow);
        b.set_cold_block(overflow);
        let m1 = b.ins().iconst(I64, -1);
        b.ins().return_(&[m1]);
        Ok(())
    }
}
