//! Stage 2 of the successor enumeration (§7.7 item 3), process by
//! process: local and buffered transitions and the rendezvous a process
//! starts as sender; in big models split into several functions.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I8};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use dve_frontend::ir::{SyncKind, Transition};
use dve_frontend::model::NONE;

use super::build::{c8, enter, mem};
use super::measure::expr_size;
use super::push::{Flag, Step, SuccCx};
use super::transitions::{distinct_froms, partners};
use super::Gen;

/// Estimated size (instructions) of a stage-2 function in big models.
const STAGE2_INSTS: usize = 8_000;

impl Gen<'_> {
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
    pub(super) fn gen_stage2(
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
    pub(super) fn stage2_chunks(&self, procs: &[usize]) -> Vec<Vec<usize>> {
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
}
