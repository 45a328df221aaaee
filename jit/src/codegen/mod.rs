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

mod assign;
mod build;
mod effects;
mod expr;
mod fan;
mod fingerprint;
mod flow;
mod functions;
mod guards;
mod measure;
mod push;
mod stage2;
mod successors;
mod tables;
mod transitions;
mod validate;

use std::collections::HashMap;
use std::mem::offset_of;
use std::sync::atomic::AtomicBool;

use cranelift_codegen::ir::types::{I32, I64, I8};
use cranelift_codegen::ir::{FuncRef, InstBuilder, Signature};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};

use dve_frontend::ir::{Expr, Model, SyncKind, SystemKind};
use dve_frontend::model::{Label, Succ};

use crate::JitError;

use build::{c8, emit_copy, enter, entry_params, mem, signature};
use expr::{expr, truth};
use fingerprint::emit_fingerprint;
use guards::BIG_GUARD;
use measure::expr_size;
use successors::{estimated_pushes, UNCHECKED_BYTES};
use tables::{repeated_subexpressions, Tables};
use validate::{expr_ok, validate};

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

/// Fewer instructions than a transition generates (BEEM's biggest models
/// and a generated one with thousands of transitions: about 50 each).
const MIN_INSTS_PER_TRANSITION: usize = 10;

pub(crate) fn compile(m: &Model, functions: &[Expr], cancel: &AtomicBool) -> Result<Compiled, JitError> {
    check(m, functions)?;
    let sync = m.system == SystemKind::Sync;
    let mut g = Gen::new(m, new_module()?, cancel);

    // Declarations.
    g.declare_steps()?;
    let guard_sig = signature(&g.module, 1, Some(I8));
    g.declare_guards(&guard_sig)?;
    let function_ids = g.value_functions(functions)?;
    let copy_sig = signature(&g.module, 2, None);
    let copy_id = g
        .module
        .declare_function("copy", Linkage::Local, &copy_sig)
        .map_err(cg_err)?;
    g.copy_fn = Some(copy_id);
    let succ_sig = signature(&g.module, 5, Some(I64));
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
        status_ids = g.status_functions(&guard_sig)?;
    } else {
        g.successor_function(succ_id, succ_sig)?;
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
    g.define_used(copy_id, &copy_sig, &guard_sig)?;

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
        .map(|&id| g.module.get_finalized_function(id))
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

/// Declines models the JIT does not compile: too large, or invalid.
fn check(m: &Model, functions: &[Expr]) -> Result<(), JitError> {
    if m.state_len > crate::MAX_STATE_BYTES {
        return Err(JitError::TooLarge(format!(
            "a state vector of {} bytes (the JIT compiles at most {})",
            m.state_len,
            crate::MAX_STATE_BYTES
        )));
    }
    // Every transition takes some tens of instructions: decline before
    // building code that `compile_all` would refuse anyway.
    if m.transitions.len() * MIN_INSTS_PER_TRANSITION > crate::MAX_INSTRUCTIONS {
        return Err(JitError::TooLarge(format!(
            "{} transitions (the JIT compiles at most {})",
            m.transitions.len(),
            crate::MAX_INSTRUCTIONS / MIN_INSTS_PER_TRANSITION
        )));
    }
    validate(m)?;
    if !functions.iter().all(|e| expr_ok(e, m.state_len)) {
        return Err(JitError::InvalidModel(
            "a state function reads outside the state vector".into(),
        ));
    }
    Ok(())
}

/// A JIT module for this host, optimising for speed.
fn new_module() -> Result<JITModule, JitError> {
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
    Ok(JITModule::new(JITBuilder::with_isa(isa, default_libcall_names())))
}

/// `f(base) -> value (zero-extended) | error << 32`.
fn value_fn(g: &mut Gen, b: &mut FunctionBuilder, e: &Expr) -> Result<(), JitError> {
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
}

impl<'m> Gen<'m> {
    fn new(m: &'m Model, module: JITModule, cancel: &'m AtomicBool) -> Gen<'m> {
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
            hold_off: 0,
            used: std::collections::HashSet::new(),
            pending: Vec::new(),
            cancel,
        };
        g.step_sig = signature(&g.module, 2, Some(I8));
        g
    }

    /// Declares `eff_T` per transition, and `buf_T` for buffered channel operations.
    fn declare_steps(&mut self) -> Result<(), JitError> {
        let m = self.m;
        for t in &m.transitions {
            let id = self
                .module
                .declare_function(&format!("eff{}", t.id), Linkage::Local, &self.step_sig)
                .map_err(cg_err)?;
            self.eff.push(id);
            if matches!(t.sync, SyncKind::BufSend { .. } | SyncKind::BufRecv { .. }) {
                let id = self
                    .module
                    .declare_function(&format!("buf{}", t.id), Linkage::Local, &self.step_sig)
                    .map_err(cg_err)?;
                self.bufop.insert(t.id, id);
            }
        }
        Ok(())
    }

    /// Declares `guard_T` for the big guards, which are called rather than inlined.
    fn declare_guards(&mut self, guard_sig: &Signature) -> Result<(), JitError> {
        let m = self.m;
        for t in &m.transitions {
            if t.guard.as_ref().is_some_and(|e| expr_size(e) > BIG_GUARD) {
                let id = self
                    .module
                    .declare_function(&format!("guard{}", t.id), Linkage::Local, guard_sig)
                    .map_err(cg_err)?;
                self.guard_fn.insert(t.id, id);
            }
        }
        Ok(())
    }

    /// Declares and defines the functions of a value: the repeated big
    /// subexpressions of guards and the state functions `functions`;
    /// returns the ids of the latter.
    fn value_functions(&mut self, functions: &'m [Expr]) -> Result<Vec<FuncId>, JitError> {
        let m = self.m;
        // Repeated big subexpressions of guards: one function each,
        // `sub(base) -> value (zero-extended) | error << 32`.
        let sub_sig = signature(&self.module, 1, Some(I64));
        let repeated = repeated_subexpressions(m);
        let mut subs = Vec::new();
        for (k, (rep, all)) in repeated.iter().enumerate() {
            let id = self
                .module
                .declare_function(&format!("sub{k}"), Linkage::Local, &sub_sig)
                .map_err(cg_err)?;
            for e in all {
                self.consts.shared.insert(Tables::key(e), id);
            }
            subs.push((id, *rep));
        }
        self.consts.shared_sig = Some(sub_sig.clone());
        // The state functions, like the shared subexpressions.
        let mut function_ids = Vec::new();
        for (k, e) in functions.iter().enumerate() {
            let id = self
                .module
                .declare_function(&format!("statefn{k}"), Linkage::Local, &sub_sig)
                .map_err(cg_err)?;
            function_ids.push((id, e));
        }
        for &(id, e) in &function_ids {
            self.define(id, sub_sig.clone(), |g, b| value_fn(g, b, e))?;
        }
        for (id, e) in subs {
            self.consts.building = Some(Tables::key(e));
            self.define(id, sub_sig.clone(), |g, b| value_fn(g, b, e))?;
            self.consts.building = None;
        }
        Ok(function_ids.into_iter().map(|(id, _)| id).collect())
    }

    /// `system sync`: `status_T` per transition, called from Rust.
    fn status_functions(&mut self, guard_sig: &Signature) -> Result<Vec<FuncId>, JitError> {
        let m = self.m;
        let mut status_ids = Vec::new();
        for t in &m.transitions {
            let id = self
                .module
                .declare_function(&format!("status{}", t.id), Linkage::Local, guard_sig)
                .map_err(cg_err)?;
            self.define(id, guard_sig.clone(), |g, b| {
                let p = entry_params(b);
                let cs = b.ins().uload16(I32, mem(), p[0], t.control_offset as i32);
                let st = g.status(b, t, Some(cs), p[0]);
                b.ins().return_(&[st]);
                Ok(())
            })?;
            status_ids.push(id);
        }
        Ok(status_ids)
    }

    /// `system async`: the successor function (and `fan` with a property).
    fn successor_function(&mut self, succ_id: FuncId, succ_sig: Signature) -> Result<(), JitError> {
        let m = self.m;
        // Without capacity checks when the successors of one state
        // certainly fit a small buffer (the caller reserves the bound).
        self.unchecked = estimated_pushes(m) * (m.state_len + self.layout.size as usize) <= UNCHECKED_BYTES;
        if let Some(pp) = m.property {
            // Status offsets: after the may-move flags (see `gen_successors`).
            let np = m.processes.len() as u32;
            self.props = m.processes[pp]
                .local
                .iter()
                .enumerate()
                .map(|(i, &t)| (t, np + i as u32))
                .collect();
            let fan_sig = signature(&self.module, 6, Some(I64));
            let fan_id = self
                .module
                .declare_function("fan", Linkage::Local, &fan_sig)
                .map_err(cg_err)?;
            self.define(fan_id, fan_sig, |g, b| g.gen_fan(b))?;
            self.fan_fn = Some(fan_id);
        }
        self.counting = true;
        self.define(succ_id, succ_sig, |g, b| g.gen_successors(b))?;
        self.counting = false;
        Ok(())
    }

    /// Defines the helper functions the generated code calls, and those
    /// they call, until no new one is used.
    fn define_used(
        &mut self,
        copy_id: FuncId,
        copy_sig: &Signature,
        guard_sig: &Signature,
    ) -> Result<(), JitError> {
        let m = self.m;
        let mut done: std::collections::HashSet<FuncId> = std::collections::HashSet::new();
        loop {
            let todo: Vec<FuncId> = self
                .used
                .iter()
                .copied()
                .filter(|id| !done.contains(id))
                .collect();
            if todo.is_empty() {
                break;
            }
            for id in todo {
                done.insert(id);
                if id == copy_id {
                    self.define(copy_id, copy_sig.clone(), |g, b| {
                        let p = entry_params(b);
                        emit_copy(b, p[0], p[1], g.m.state_len);
                        b.ins().return_(&[]);
                        Ok(())
                    })?;
                } else if let Some(t) = m.transitions.iter().find(|t| self.eff[t.id] == id) {
                    self.define(id, self.step_sig.clone(), |g, b| g.gen_effects(b, t))?;
                } else if let Some(t) = m.transitions.iter().find(|t| self.bufop.get(&t.id) == Some(&id)) {
                    self.define(id, self.step_sig.clone(), |g, b| g.gen_bufop(b, t))?;
                } else if let Some(t) = m
                    .transitions
                    .iter()
                    .find(|t| self.guard_fn.get(&t.id) == Some(&id))
                {
                    let guard = t.guard.as_ref().expect("has a guard");
                    self.define(id, guard_sig.clone(), |g, b| {
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
        Ok(())
    }
}

/// The code generator of one model. Its methods are defined in the
/// submodules, one concern each.
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
    /// With a property: the offset in the status block of the byte that
    /// says the property is held (`crate::JitModel::property_held`).
    hold_off: u32,
    /// Helper functions called by the generated code (only those are defined).
    used: std::collections::HashSet<FuncId>,
    /// Functions built, waiting to be compiled.
    pending: Vec<(FuncId, cranelift_codegen::ir::Function)>,
    /// Set by the caller to stop compiling (`crate::compile_cancellable`).
    cancel: &'m AtomicBool,
}

/// Per-function map of callee references.
type Frefs = HashMap<FuncId, FuncRef>;
