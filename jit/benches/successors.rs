//! Successor generation, JIT against the interpreter, on BEEM models of
//! different shapes: for each model the first 20,000 states of a BFS are
//! collected once, then each backend computes the successors of all of them
//! (group `successors`), and the successors with their fingerprints (group
//! `successors_fp`: what a search does per state; the interpreter
//! fingerprints with `fingerprint::reference`, the same function in Rust).
//! Run with `cargo bench -p jit`; the BEEM suite is found through
//! `BEEM_DIR` or `../shared/beem`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf};
use std::collections::HashSet;
use std::path::PathBuf;

/// Many small processes, rendezvous, buffers of bytes, a property product,
/// arithmetic-heavy guards, deep counters, huge guards.
const MODELS: &[&str] = &[
    "anderson.3",
    "at.4",
    "bakery.5.prop2",
    "peterson.4",
    "iprotocol.2",
    "leader_election.3",
    "brp2.3",
    "lifts.5",
    "firewire_tree.2",
    "plc.1",
];

fn beem_dir() -> PathBuf {
    std::env::var_os("BEEM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/beem"))
}

/// The first `n` states of a BFS with the interpreter.
fn sample(m: &Interpreter, n: usize) -> Vec<Vec<u8>> {
    let mut seen = HashSet::new();
    let mut states = vec![m.initial_vec()];
    seen.insert(states[0].clone());
    let mut buf = SuccBuf::new(m.state_len());
    let mut i = 0;
    while i < states.len() && states.len() < n {
        let s = states[i].clone();
        m.successors(&s, &mut buf);
        for (_, t) in buf.iter() {
            if states.len() < n && seen.insert(t.to_vec()) {
                states.push(t.to_vec());
            }
        }
        i += 1;
    }
    states
}

fn successors_only(m: &dyn NextState, states: &[Vec<u8>], buf: &mut SuccBuf) -> u64 {
    let mut acc = 0u64;
    for s in states {
        m.successors(s, buf);
        acc += buf.len() as u64;
    }
    acc
}

fn all_successors(m: &dyn NextState, states: &[Vec<u8>], buf: &mut SuccBuf) -> u64 {
    let mut acc = 0u64;
    for s in states {
        m.successors(s, buf);
        for (_, t) in buf.iter() {
            acc ^= m.fingerprint(t);
        }
    }
    acc
}

fn successors(c: &mut Criterion) {
    for (group_name, f) in [
        (
            "successors",
            successors_only as fn(&dyn NextState, &[Vec<u8>], &mut SuccBuf) -> u64,
        ),
        ("successors_fp", all_successors),
    ] {
        let mut group = c.benchmark_group(group_name);
        group.sample_size(10);
        bench_models(&mut group, f);
        group.finish();
    }
}

fn bench_models(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    f: fn(&dyn NextState, &[Vec<u8>], &mut SuccBuf) -> u64,
) {
    for name in MODELS {
        let path = beem_dir().join("dve").join(format!("{name}.dve"));
        let model = dve_frontend::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let interp = Interpreter::new(model.clone());
        let jit = jit::compile(&model).unwrap_or_else(|e| panic!("{name}: {e}"));
        let states = sample(&interp, 20_000);
        let mut buf = SuccBuf::new(interp.state_len());
        let edges: usize = states
            .iter()
            .map(|s| {
                interp.successors(s, &mut buf);
                buf.len()
            })
            .sum();
        group.throughput(Throughput::Elements(edges as u64));
        group.bench_with_input(BenchmarkId::new("interp", name), &states, |b, st| {
            b.iter(|| f(&interp, st, &mut buf))
        });
        group.bench_with_input(BenchmarkId::new("jit", name), &states, |b, st| {
            b.iter(|| f(&jit, st, &mut buf))
        });
    }
}

criterion_group!(benches, successors);
criterion_main!(benches);
