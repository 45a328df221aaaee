//! Cranelift JIT backend for DVE models: lowers the frontend's IR
//! ([`dve_frontend::ir::Model`]) to native code and implements the model
//! boundary [`NextState`] with it.
//!
//! One function per model does the whole successor enumeration of
//! `docs/dve-language.md` §7.7 (committed check, stage-1 receiver collection
//! with the §8.2 per-channel error flags, stage 2 per process, the property
//! product of §7.6 and the deadlock stutter) without calling back into Rust;
//! small generated helper functions apply the effects of one transition.
//! A second generated function computes the fingerprint, specialised to the
//! state length. The reference interpreter ([`dve_frontend::interp`]) is the
//! specification: the successors, their order, labels and error flags are
//! the same (see `tests/differential.rs`).
//!
//! ```
//! use dve_frontend::model::{NextState, SuccBuf};
//! let src = "byte x; process P { state a; init a; trans a -> a { guard x < 3; effect x = x + 1; }; } system async;";
//! let model = dve_frontend::load_str("counter.dve", src).unwrap();
//! let jit = jit::compile(&model).unwrap();
//! let init = jit.initial_vec();
//! let mut succs = SuccBuf::new(jit.state_len());
//! jit.successors(&init, &mut succs);
//! assert_eq!(succs.len(), 1);
//! ```

mod codegen;
pub mod differential;
mod held;

pub use held::PropertyHeld;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use dve_frontend::ir::Model;
use dve_frontend::model::{ModelInfo, NextState, SuccBuf};

/// Why a model could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    /// A language feature the JIT declines (the interpreter still runs it).
    #[error("the JIT does not support {feature}")]
    Unsupported { feature: String },
    /// The IR breaks an invariant the generated code relies on (for example
    /// a variable placed outside the state vector).
    #[error("invalid model for the JIT: {0}")]
    InvalidModel(String),
    /// Cranelift rejected the generated code (a bug of this crate).
    #[error("code generation failed: {0}")]
    Codegen(String),
    /// The model is beyond the sizes the JIT compiles in reasonable time
    /// and memory ([`MAX_STATE_BYTES`], [`MAX_INSTRUCTIONS`]); the
    /// interpreter runs it.
    #[error("the model is too large for the JIT: {0}")]
    TooLarge(String),
    /// The caller asked compilation to stop ([`compile_cancellable`]).
    #[error("compilation was cancelled")]
    Cancelled,
}

/// The longest state vector the JIT compiles. The fingerprint and the
/// state copy are unrolled over the whole vector, and Cranelift's time
/// grows faster than linearly with a function's length, so past this the
/// interpreter starts sooner than the JIT would (measurements in
/// `results/jit/NOTES.md`).
pub const MAX_STATE_BYTES: usize = 16 << 10;

/// The most Cranelift instructions the JIT compiles for one model (all
/// functions together, before compilation): beyond it, compile time and
/// memory grow to seconds and gigabytes (`results/jit/NOTES.md`).
pub const MAX_INSTRUCTIONS: usize = 400_000;

/// `successors(src, out_states, out_entries, capacity, held) -> count`, or
/// -1 when more than `capacity` successors exist (nothing past `capacity`
/// entries is written); `held` 1 holds the property process
/// ([`JitModel::property_held`]).
type SuccFn = unsafe extern "C" fn(*const u8, *mut u8, *mut u8, u64, u64) -> i64;
/// `fingerprint(state) -> u64`.
type FpFn = unsafe extern "C" fn(*const u8) -> u64;
/// `status_T(state) -> 0 | 1 | 3` (disabled, enabled, erroneous guard).
type StatusFn = unsafe extern "C" fn(*const u8) -> u8;
/// `eff_T(src, dst) -> ok`: control state and effects of `T` on `dst`.
type EffFn = unsafe extern "C" fn(*const u8, *mut u8) -> u8;
/// `f(state) -> value (zero-extended) | error << 32`: a state function.
type ValueFn = unsafe extern "C" fn(*const u8) -> u64;

/// How successors are generated.
enum Backend {
    /// `system async`: one generated function does everything.
    Async(SuccFn),
    /// `system sync` (§7.9): the combination of one transition per process
    /// is driven from Rust, statuses and effects are generated code.
    Sync { status: Vec<StatusFn>, eff: Vec<EffFn> },
}

/// A model compiled to native code.
pub struct JitModel {
    model: Model,
    info: ModelInfo,
    /// Owns the code (freed on drop) — `None` only during drop.
    module: Option<cranelift_jit::JITModule>,
    backend: Backend,
    fp_fn: FpFn,
    /// The state functions ([`NextState::state_function`]).
    functions: Vec<ValueFn>,
    /// Capacity the successor function needs (`Compiled::max_successors`);
    /// 0 when it checks the capacity itself.
    min_capacity: usize,
    /// Constant-array tables whose addresses are baked into the code.
    _consts: Vec<Box<[i32]>>,
    compile_time: Duration,
}

// SAFETY: after `finalize_definitions` the JITModule is never used again
// except to free its memory in `Drop` (which needs `&mut self`, hence no
// other thread can be running the code then). The generated functions are
// pure: they read only the source state, the constant tables owned by this
// struct (immutable after compilation) and write only to the caller's
// buffers, so calling them from several threads at once is sound.
unsafe impl Send for JitModel {}
// SAFETY: see `Send`; `&JitModel` only gives access to immutable data and
// to re-entrant code.
unsafe impl Sync for JitModel {}

impl Drop for JitModel {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: no function of the module can be running (we have
            // `&mut self`) and the function pointers die with `self`.
            unsafe { module.free_memory() };
        }
    }
}

/// Models compiled by this process: a run compiles its model once (a
/// test counts it).
static COMPILED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many models this process has compiled.
pub fn compiled() -> u64 {
    COMPILED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Compiles a model.
pub fn compile(model: &Model) -> Result<JitModel, JitError> {
    compile_with(model, &[])
}

/// Compiles a model and `functions`, expressions over its states (goals,
/// assertions), into native state functions ([`NextState::state_function`]).
pub fn compile_with(model: &Model, functions: &[dve_frontend::ir::Expr]) -> Result<JitModel, JitError> {
    compile_cancellable(model, functions, &AtomicBool::new(false))
}

/// [`compile_with`], stopping with [`JitError::Cancelled`] soon after
/// `cancel` is set (Cranelift cannot be interrupted inside a function: the
/// flag is read before each function is built and before each is compiled).
pub fn compile_cancellable(
    model: &Model,
    functions: &[dve_frontend::ir::Expr],
    cancel: &AtomicBool,
) -> Result<JitModel, JitError> {
    COMPILED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let start = Instant::now();
    let c = codegen::compile(model, functions, cancel)?;
    let compile_time = start.elapsed();
    // SAFETY (all transmutes): the pointers are the finalized code of
    // functions declared with exactly these signatures (see `codegen`).
    let fp_fn = unsafe { std::mem::transmute::<*const u8, FpFn>(c.fp) };
    let backend = match (c.succ, c.sync) {
        (Some(f), _) => Backend::Async(unsafe { std::mem::transmute::<*const u8, SuccFn>(f) }),
        (None, Some(s)) => Backend::Sync {
            status: s
                .status
                .iter()
                .map(|&f| unsafe { std::mem::transmute::<*const u8, StatusFn>(f) })
                .collect(),
            eff: s
                .eff
                .iter()
                .map(|&f| unsafe { std::mem::transmute::<*const u8, EffFn>(f) })
                .collect(),
        },
        (None, None) => return Err(JitError::Codegen("no successor function generated".into())),
    };
    Ok(JitModel {
        model: model.clone(),
        info: dve_frontend::interp::model_info(model),
        module: Some(c.module),
        backend,
        fp_fn,
        functions: c
            .functions
            .iter()
            .map(|&f| unsafe { std::mem::transmute::<*const u8, ValueFn>(f) })
            .collect(),
        min_capacity: c.max_successors.unwrap_or(0),
        _consts: c.consts,
        compile_time,
    })
}

impl JitModel {
    /// `system sync` (§7.9): [`dve_frontend::sync::successors`], as the
    /// interpreter's, with the compiled guards and effects.
    fn successors_sync(&self, status: &[StatusFn], eff: &[EffFn], src: &[u8], out: &mut SuccBuf) {
        dve_frontend::sync::successors(
            &self.model,
            src,
            out,
            // SAFETY: `src` holds `state_len` bytes, all the function reads.
            |_, t| match unsafe { (status[t])(src.as_ptr()) } {
                0 => None,
                st => Some(st & 2 != 0),
            },
            // SAFETY: `part` holds `state_len` bytes; the effect function
            // reads and writes only inside them.
            |t, part| unsafe { (eff[t])(part.as_ptr(), part.as_mut_ptr()) } != 0,
        );
    }

    /// Wall-clock time spent in [`compile`] generating and linking the code.
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    pub fn model(&self) -> &Model {
        &self.model
    }
}

impl NextState for JitModel {
    fn state_functions(&self) -> usize {
        self.functions.len()
    }

    fn state_function(&self, i: usize, state: &[u8]) -> Option<i32> {
        debug_assert_eq!(state.len(), self.info.state_len);
        // SAFETY: `state` holds `state_len` bytes, all the function reads
        // (its offsets were checked against the state length).
        let r = unsafe { (self.functions[i])(state.as_ptr()) };
        (r >> 32 == 0).then_some(r as u32 as i32)
    }

    fn info(&self) -> &ModelInfo {
        &self.info
    }

    fn initial_state(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.model.initial);
    }

    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        self.successors_held(src, out, false);
    }

    fn fingerprint(&self, state: &[u8]) -> u64 {
        assert_eq!(state.len(), self.model.state_len, "state has the wrong length");
        // SAFETY: the function reads exactly `state_len` bytes.
        unsafe { (self.fp_fn)(state.as_ptr()) }
    }
}

impl JitModel {
    /// The successors of `src`, with the property process held (`held`:
    /// no property move, no receive by it, no move of it alone) or not.
    fn successors_held(&self, src: &[u8], out: &mut SuccBuf, held: bool) {
        let len = self.model.state_len;
        assert_eq!(src.len(), len, "source state has the wrong length");
        assert_eq!(out.state_len(), len, "SuccBuf made for another state length");
        out.clear();
        let succ_fn = match &self.backend {
            Backend::Async(f) => *f,
            Backend::Sync { status, eff } => return self.successors_sync(status, eff, src, out),
        };
        let (states, entries) = out.raw_parts_mut();
        // A first guess (no division per call); the reserves below make
        // room for `cap` states and entries whatever it is.
        let mut cap = entries.capacity().max(16).max(self.min_capacity);
        loop {
            // Both are empty, so this makes the capacities at least `cap`.
            states.reserve(cap * len);
            entries.reserve(cap);
            // SAFETY: `src` holds `len` bytes; `states` has room for `cap`
            // states and `entries` for `cap` entries, and the generated code
            // writes no more than `cap` of each: it returns -1 instead, or,
            // compiled without checks, it writes at most `min_capacity <= cap`.
            let n = unsafe {
                (succ_fn)(
                    src.as_ptr(),
                    states.as_mut_ptr(),
                    entries.as_mut_ptr().cast(),
                    cap as u64,
                    held as u64,
                )
            };
            if n >= 0 {
                let n = n as usize;
                // Cannot fail (see the safety comment above); a cheap check
                // that the bound counted at compile time holds.
                assert!(
                    n <= cap,
                    "generated code wrote {n} successors into room for {cap}"
                );
                // SAFETY: the first `n` states and entries were written in
                // full (every field of every `Succ`, the flag as 0 or 1).
                unsafe {
                    states.set_len(n * len);
                    entries.set_len(n);
                }
                // The generated code flags erroneous successors without
                // writing their state.
                if out.entries().iter().any(|e| e.error) {
                    for i in 0..n {
                        if out.entry(i).error {
                            self.model.write_error_state(out.state_mut(i));
                        }
                    }
                }
                return;
            }
            cap *= 2;
        }
    }
}
