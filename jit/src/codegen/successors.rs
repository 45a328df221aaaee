//! The `successors` function (`system async`): committed states (§7.5),
//! property moves, stage-1 receivers with the §8.2 channel error flags,
//! stage 2, and the deadlock move of the property (§7.6).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64, I8};
use cranelift_codegen::ir::{InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_module::{Linkage, Module};

use dve_frontend::ir::{Model, SyncKind};
use dve_frontend::model::NONE;

use super::build::{c8, emit_zero, enter, entry_params, mem, signature};
use super::measure::safe_size;
use super::push::{Flag, Flags, SuccCx};
use super::transitions::{distinct_froms, partners};
use super::{cg_err, Gen};
use crate::JitError;

/// Successor buffers up to this size are reserved whole, so that pushes
/// need no capacity check.
pub(super) const UNCHECKED_BYTES: usize = 1 << 20;

/// An estimate of the push sites `gen_successors` will generate (the exact
/// count, made while generating, is what the caller relies on).
pub(super) fn estimated_pushes(m: &Model) -> usize {
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

impl Gen<'_> {
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

    /// The whole successor enumeration (§7.7 with §7.5, §7.6, §8.2).
    ///
    /// Statuses computed once (property moves, stage-1 receivers, channel
    /// error flags, may-move flags) live in a stack slot rather than in
    /// registers, and control states are reloaded where used: long live
    /// ranges made register allocation of big models slow.
    pub(super) fn gen_successors(&mut self, b: &mut FunctionBuilder) -> Result<(), JitError> {
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
        // The byte that holds the property comes last.
        let size = np + n_props + n_recv + m.channels.len() + 1;
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
        self.hold_off = size as u32 - 1;
        if m.property.is_some() {
            let hold = b.ins().ireduce(I8, p[4]);
            b.ins().stack_store(I64, hold, slot, self.hold_off as i32);
        }
        let may_move = self.may_move_flags(b, slot, cx.src);
        let mut next_off = np as u32;
        let props = self.property_statuses(b, slot, cx.src, &mut next_off);
        let cands = self.stage1(b, &cx, slot, &may_move, &mut next_off);
        let chan_err = channel_error_flags(m, b, &cx, slot, &cands, next_off);
        self.stage2(b, &mut cx, &cands, &chan_err, &may_move, sender_err)?;
        if m.property.is_some() {
            self.deadlock_moves(b, &mut cx, &props);
        }
        let c = b.use_var(cx.count);
        b.ins().return_(&[c]);
        enter(b, overflow);
        b.set_cold_block(overflow);
        let m1 = b.ins().iconst(I64, -1);
        b.ins().return_(&[m1]);
        Ok(())
    }

    /// §7.5: committed states. Stores each process's may-move flag in
    /// `slot` when some process can be committed; per process the flag's
    /// offset, `None` = always.
    fn may_move_flags(&mut self, b: &mut FunctionBuilder, slot: StackSlot, src: Value) -> Vec<Option<u32>> {
        let m = self.m;
        let np = m.processes.len();
        let committed: Vec<Option<Value>> = (0..np)
            .map(|p| {
                let c = control_state(b, m, src, p);
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
        may_move
    }

    /// Property moves, evaluated in the source: their statuses stored from
    /// `next_off` on; the transitions with their offsets.
    fn property_statuses(
        &mut self,
        b: &mut FunctionBuilder,
        slot: StackSlot,
        src: Value,
        next_off: &mut u32,
    ) -> Vec<(usize, u32)> {
        let m = self.m;
        let mut props: Vec<(usize, u32)> = Vec::new();
        if let Some(pp) = m.property {
            for &t in &m.processes[pp].local {
                let c = control_state(b, m, src, pp);
                let st = self.status(b, &m.transitions[t], Some(c), src);
                b.ins().stack_store(I64, st, slot, *next_off as i32);
                props.push((t, *next_off));
                *next_off += 1;
            }
        }
        props
    }

    /// Stage 1: rendezvous receivers of every process (property included),
    /// dispatched on the control state; the statuses of the others stay 0.
    /// Returns the receivers as (channel, process, transition, status offset).
    fn stage1(
        &mut self,
        b: &mut FunctionBuilder,
        cx: &SuccCx,
        slot: StackSlot,
        may_move: &[Option<u32>],
        next_off: &mut u32,
    ) -> Vec<(usize, usize, usize, u32)> {
        let m = self.m;
        let src = cx.src;
        let mut cands: Vec<(usize, usize, usize, u32)> = Vec::new(); // (channel, process, transition, status offset)
        let recv_start = *next_off;
        for (q, pr) in m.processes.iter().enumerate() {
            for &r in &pr.recv {
                let SyncKind::Recv { channel, .. } = m.transitions[r].sync else {
                    unreachable!("receive list")
                };
                cands.push((channel, q, r, *next_off));
                *next_off += 1;
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
                let c = control_state(b, m, src, q);
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
            let guarded = |g: &mut Self, b: &mut FunctionBuilder| match may_move[q] {
                None => body(g, b),
                Some(off) => {
                    let mm = cx.flag(b, off);
                    g.when(b, mm, body);
                }
            };
            if Some(q) == m.property {
                // A held property receives nothing.
                let held = cx.flag(b, self.hold_off);
                let free = b.ins().icmp_imm_s(IntCC::Equal, held, 0);
                self.when(b, free, guarded);
            } else {
                guarded(self, b);
            }
        }
        cands
    }

    /// Stage 2, process by process; in big models in several functions
    /// (compiled in parallel, and each faster to compile).
    fn stage2(
        &mut self,
        b: &mut FunctionBuilder,
        cx: &mut SuccCx,
        cands: &[(usize, usize, usize, u32)],
        chan_err: &[Option<u32>],
        may_move: &[Option<u32>],
        sender_err: Variable,
    ) -> Result<(), JitError> {
        let m = self.m;
        let stage2: Vec<usize> = (0..m.processes.len())
            .filter(|&p| Some(p) != m.property)
            .collect();
        let chunks = self.stage2_chunks(&stage2);
        if chunks.len() <= 1 {
            for &pi in &stage2 {
                self.gen_stage2(b, cx, pi, cands, chan_err, may_move, sender_err);
            }
            return Ok(());
        }
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
                    g.gen_stage2(b, &mut cx, pi, cands, chan_err, may_move, sender_err);
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
        Ok(())
    }

    /// §7.6: a deadlocked system lets the property move alone (`props`: its
    /// transitions with their status offsets). A held property does not
    /// move here: the caller adds its loop.
    fn deadlock_moves(&mut self, b: &mut FunctionBuilder, cx: &mut SuccCx, props: &[(usize, u32)]) {
        let c = b.use_var(cx.count);
        let held = cx.flag(b, self.hold_off);
        let held = b.ins().uextend(I64, held);
        let either = b.ins().bor(c, held);
        let none = b.ins().icmp_imm_s(IntCC::Equal, either, 0);
        self.when(b, none, |g, b| {
            for &(pt, off) in props {
                let st = cx.flag(b, off);
                let en = b.ins().band_imm_s(st, 1);
                g.when(b, en, |g, b| {
                    let e = b.ins().band_imm_s(st, 2);
                    g.push(
                        b,
                        cx,
                        [NONE, NONE, pt as u32],
                        Flag::Val(e),
                        &[g.effects_step(pt)],
                    );
                });
            }
        });
    }
}

/// The control state of process `p` in `src`.
fn control_state(b: &mut FunctionBuilder, m: &Model, src: Value, p: usize) -> Value {
    b.ins()
        .uload16(I32, mem(), src, m.processes[p].state_offset as i32)
}

/// §8.2: per-channel error flags, for channels on which some receive guard
/// can raise an error at all, stored after the receivers' statuses (from
/// `next_off`); per channel the flag's offset.
fn channel_error_flags(
    m: &Model,
    b: &mut FunctionBuilder,
    cx: &SuccCx,
    slot: StackSlot,
    cands: &[(usize, usize, usize, u32)],
    next_off: u32,
) -> Vec<Option<u32>> {
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
    chan_err
}
