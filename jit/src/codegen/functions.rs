//! The generated functions as a whole: building the IR of one function,
//! compiling all of them (on two threads for big models), and referring
//! to one from another.

use cranelift_codegen::ir::{FuncRef, InstBuilder, Signature, UserFuncName, Value};
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Module};
use std::sync::atomic::Ordering;

use super::{cg_err, Gen};
use crate::JitError;

/// Threads compiling functions at once (this project's machines have 2 cores).
const COMPILE_THREADS: usize = 2;

/// Below this many instructions in all, compiling on one thread is faster
/// than starting another.
const PARALLEL_INSTS: usize = 20_000;

impl<'m> Gen<'m> {
    /// Builds the IR of function `id`; it is compiled later, with all the
    /// others, by [`Gen::compile_all`].
    pub(super) fn define(
        &mut self,
        id: FuncId,
        sig: Signature,
        body: impl FnOnce(&mut Gen<'m>, &mut FunctionBuilder) -> Result<(), JitError>,
    ) -> Result<(), JitError> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(JitError::Cancelled);
        }
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
    pub(super) fn compile_all(&mut self) -> Result<(), JitError> {
        use std::sync::atomic::AtomicUsize;
        use std::sync::Mutex;
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_by_key(|(_, f)| std::cmp::Reverse(f.dfg.num_insts()));
        let isa = self.module.isa();
        let next = AtomicUsize::new(0);
        type Done = (FuncId, u64, Vec<u8>, Vec<cranelift_module::ModuleReloc>);
        let done: Mutex<Vec<Result<Done, JitError>>> = Mutex::new(Vec::with_capacity(pending.len()));
        let total: usize = pending.iter().map(|(_, f)| f.dfg.num_insts()).sum();
        if total > crate::MAX_INSTRUCTIONS {
            return Err(JitError::TooLarge(format!(
                "{total} instructions of generated code (the JIT compiles at most {})",
                crate::MAX_INSTRUCTIONS
            )));
        }
        let cancel = self.cancel;
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
                if cancel.load(Ordering::Relaxed) {
                    done.lock()
                        .expect("no panic while holding the lock")
                        .push(Err(JitError::Cancelled));
                    break;
                }
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

    pub(super) fn fref(&mut self, b: &mut FunctionBuilder, id: FuncId) -> FuncRef {
        self.used.insert(id);
        *self
            .frefs
            .entry(id)
            .or_insert_with(|| self.module.declare_func_in_func(id, b.func))
    }

    /// Calls a step function; returns its i8 result.
    pub(super) fn call_step(&mut self, b: &mut FunctionBuilder, id: FuncId, src: Value, dst: Value) -> Value {
        let f = self.fref(b, id);
        let call = b.ins().call(f, &[src, dst]);
        b.inst_results(call)[0]
    }
}
