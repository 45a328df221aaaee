//! Rough timing of the JIT against the interpreter.
//!
//! `cargo run --release -p jit --example jit_bench -- [--compile-only] FILE.dve...`
//!
//! For each file: compile time, then breadth-first exploration of up to
//! `LIMIT` states (interpreter), then the successors and their fingerprints
//! of all those states are generated with each backend, reporting
//! successors per second. Not a unit test: numbers depend on the
//! machine.

use std::collections::{HashSet, VecDeque};
use std::time::Instant;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf};

const LIMIT: usize = 300_000;

/// Breadth-first exploration with `m`: up to `LIMIT` states, in order.
fn collect(m: &dyn NextState) -> Vec<Vec<u8>> {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut order = Vec::new();
    let mut queue = VecDeque::new();
    let init = m.initial_vec();
    seen.insert(init.clone());
    queue.push_back(init);
    let mut out = SuccBuf::new(m.state_len());
    while let Some(s) = queue.pop_front() {
        m.successors(&s, &mut out);
        for (_, t) in out.iter() {
            if seen.len() < LIMIT && !seen.contains(t) {
                seen.insert(t.to_vec());
                queue.push_back(t.to_vec());
            }
        }
        order.push(s);
    }
    order
}

/// Generates the successors of every state (and their fingerprints) with
/// `m`, repeating until at least 0.3 s have passed; returns (successors
/// per pass, seconds per pass).
fn time_backend(m: &dyn NextState, states: &[Vec<u8>]) -> (usize, f64) {
    let mut out = SuccBuf::new(m.state_len());
    let mut sink = 0u64;
    let mut passes = 0;
    let mut succs = 0;
    let t0 = Instant::now();
    while passes == 0 || t0.elapsed().as_secs_f64() < 0.3 {
        succs = 0;
        for s in states {
            m.successors(s, &mut out);
            succs += out.len();
            for (_, t) in out.iter() {
                sink ^= m.fingerprint(t);
            }
        }
        passes += 1;
    }
    std::hint::black_box(sink);
    (succs, t0.elapsed().as_secs_f64() / passes as f64)
}

fn main() {
    let mut compile_only = false;
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "--compile-only" {
            compile_only = true;
        } else {
            files.push(a);
        }
    }
    let mut times = Vec::new();
    for f in &files {
        let model = match dve_frontend::load_file(std::path::Path::new(f)) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{f}: {e}");
                continue;
            }
        };
        let jit = match jit::compile(&model) {
            Ok(j) => j,
            Err(e) => {
                eprintln!("{f}: {e}");
                continue;
            }
        };
        if compile_only {
            // Best of three: the first compilation of a process pays one-time costs.
            let best = (0..2)
                .map(|_| jit::compile(&model).expect("compiled once").compile_time())
                .fold(jit.compile_time(), |a, b| a.min(b));
            times.push((best, f.clone()));
            continue;
        }
        times.push((jit.compile_time(), f.clone()));
        let interp = Interpreter::new(model);
        let states = collect(&interp);
        let (sj, tj) = time_backend(&jit, &states);
        if std::env::var_os("JIT_ONLY").is_some() {
            println!(
                "{f}: {} states, jit {:.2} M succ/s",
                states.len(),
                sj as f64 / tj / 1e6
            );
            continue;
        }
        let (si, ti) = time_backend(&interp, &states);
        assert_eq!(si, sj);
        println!(
            "{f}: compile {:.1} ms; {} states, {si} successors; interpreter {:.2} M succ/s, jit {:.2} M succ/s ({:.1}x)",
            jit.compile_time().as_secs_f64() * 1e3,
            states.len(),
            si as f64 / ti / 1e6,
            sj as f64 / tj / 1e6,
            ti / tj
        );
    }
    times.sort();
    if !times.is_empty() {
        let ms = |i: usize| times[i].0.as_secs_f64() * 1e3;
        println!(
            "compile time over {} files: median {:.2} ms, p90 {:.2} ms, {} over 100 ms, total {:.1} s",
            times.len(),
            ms(times.len() / 2),
            ms(times.len() * 9 / 10),
            times.iter().filter(|t| t.0.as_millis() > 100).count(),
            times.iter().map(|t| t.0.as_secs_f64()).sum::<f64>()
        );
        println!(
            "compile time over {} files: median {:.2} ms, max {:.2} ms ({})",
            times.len(),
            times[times.len() / 2].0.as_secs_f64() * 1e3,
            times.last().unwrap().0.as_secs_f64() * 1e3,
            times.last().unwrap().1
        );
        let top = if std::env::var_os("ALL").is_some() {
            times.len()
        } else {
            8
        };
        for (t, f) in times.iter().rev().take(top) {
            println!("  {:.1} ms {f}", t.as_secs_f64() * 1e3);
        }
    }
}
