//! Breadth-bounded exploration (Highway simulation, Algorithms 2 and 3 of
//! Meulen, Stappers and Willemse) and BBMC, on hand-written graphs and small
//! BEEM instances: every slice is a sub-structure of the full state space
//! whose transitions are exactly `V² ∩ →` with the paper's classification;
//! Algorithm 2 and 3 slices have no sink that is not a deadlock; a breadth
//! bound at least the widest BFS level gives the whole state space; seeded
//! runs are reproducible; witnesses replay in the model; BMC agrees with
//! the project's BFS checker.

use std::collections::HashMap;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{Label, NextState, SuccBuf};
use dve_frontend::LoadOptions;
use dvemc_run::algo::bbmc::{
    bmc, build_slice, find_witness, goal_predicate, run_many, write_aut, write_dot, Algorithm, EdgeKind,
    Slice, SliceOptions, Targets,
};
use dvemc_run::algo::check::{check, CheckOptions, Checks, Goal, Search, Trace, ViolationKind};
use dvemc_run::engine::rng::Rng;
use dvemc_run::engine::store::StateStore;
use dvemc_run::run::exhaustive::{bfs, Limits, Outcome};

mod common;
use common::{beem, Graph};

fn node(s: &[u8]) -> u32 {
    u32::from_le_bytes(s.try_into().unwrap())
}

/// A pseudo-random graph with `n` nodes, out-degrees 0..=4 (some
/// deadlocks), parallel edges and self-loops.
fn random_graph(n: u32, seed: u64) -> Graph {
    let mut rng = Rng::seeded(seed);
    let succ = (0..n)
        .map(|i| {
            let deg = if i > 0 && rng.below(9) == 0 {
                0
            } else {
                1 + rng.below(4)
            };
            (0..deg)
                .map(|_| {
                    if rng.below(3) == 0 {
                        (i + 1) % n
                    } else {
                        rng.below(n as usize) as u32
                    }
                })
                .collect()
        })
        .collect();
    Graph::new("random", succ)
}

fn binary_tree(depth: u32) -> Graph {
    let n = (1u32 << (depth + 1)) - 1;
    Graph::new(
        "tree",
        (0..n)
            .map(|i| [2 * i + 1, 2 * i + 2].into_iter().filter(|&c| c < n).collect())
            .collect(),
    )
}

/// 0 -> 1, 2; 1 -> 3, 4; 2 -> 5; 3, 4, 5 -> 0. With breadth 2 a Highway
/// simulation may keep {3, 4} from {3, 4, 5} and leave 2 without successor.
fn lanes() -> Graph {
    Graph::new(
        "lanes",
        vec![vec![1, 2], vec![3, 4], vec![5], vec![0], vec![0], vec![0]],
    )
}

/// The full state space: states, the multiset of transitions (by state id,
/// label, error flag) and the widest BFS level.
struct Full {
    store: StateStore,
    edges: HashMap<(u32, Label, bool, u32), u32>,
    transitions: u64,
    widest: usize,
}

fn full(m: &dyn NextState) -> Full {
    let mut store = StateStore::new(m.state_len());
    let mut buf = SuccBuf::new(m.state_len());
    let mut edges = HashMap::new();
    let mut transitions = 0;
    let init = m.initial_vec();
    store.insert(&init, m.fingerprint(&init));
    let (mut next, mut level_end, mut widest) = (0u32, 1usize, 1usize);
    while (next as usize) < store.len() {
        model_succ(m, store.get(next), &mut buf);
        for (e, s) in buf.iter() {
            let (id, _) = store.insert(s, m.fingerprint(s)).split();
            *edges.entry((next, e.label, e.error, id)).or_insert(0) += 1;
            transitions += 1;
        }
        next += 1;
        if next as usize == level_end {
            widest = widest.max(store.len() - level_end);
            level_end = store.len();
        }
    }
    Full {
        store,
        edges,
        transitions,
        widest,
    }
}

fn model_succ(m: &dyn NextState, s: &[u8], buf: &mut SuccBuf) {
    m.successors(s, buf);
}

/// Checks that `slice` is a sub-structure of the full state space, that its
/// transitions are exactly `V² ∩ →` among expanded states, classified by
/// queue, and that the chosen transitions (parents) are slice transitions.
fn check_slice(m: &dyn NextState, f: &Full, slice: &Slice, what: &str) {
    let n = slice.len();
    let ids: Vec<u32> = (0..n as u32)
        .map(|v| {
            let s = slice.states.get(v);
            f.store
                .find(s, m.fingerprint(s))
                .unwrap_or_else(|| panic!("{what}: slice state {v} is not reachable"))
        })
        .collect();
    assert_eq!(ids[0], 0, "{what}: slice state 0 is not the initial state");
    let mut ours: HashMap<(u32, Label, bool, u32), u32> = HashMap::new();
    for e in &slice.edges {
        let key = (ids[e.from as usize], e.label, e.error, ids[e.to as usize]);
        let have = f.edges.get(&key).copied().unwrap_or(0);
        let c = ours.entry(key).or_insert(0);
        *c += 1;
        assert!(*c <= have, "{what}: transition {e:?} is not in the state space");
        let (qf, qt) = (slice.queue[e.from as usize], slice.queue[e.to as usize]);
        let kind = if qt <= qf {
            EdgeKind::BackEdge
        } else if qt == qf + 1 {
            EdgeKind::SingleStep
        } else {
            EdgeKind::Jump
        };
        assert_eq!(e.kind, kind, "{what}: {e:?} from Q{qf} to Q{qt}");
    }
    // Exactly V² ∩ → over the expanded states.
    let mut buf = SuccBuf::new(m.state_len());
    let mut expected: HashMap<(u32, Label, bool, u32), u32> = HashMap::new();
    let slice_id: HashMap<u32, u32> = ids.iter().enumerate().map(|(v, &id)| (id, v as u32)).collect();
    for v in 0..n as u32 {
        if slice.model_degree[v as usize] == u32::MAX {
            continue;
        }
        m.successors(slice.states.get(v), &mut buf);
        assert_eq!(buf.len() as u32, slice.model_degree[v as usize]);
        for (e, s) in buf.iter() {
            let id = f.store.find(s, m.fingerprint(s)).unwrap();
            if slice_id.contains_key(&id) {
                *expected
                    .entry((ids[v as usize], e.label, e.error, id))
                    .or_insert(0) += 1;
            }
        }
    }
    assert_eq!(ours, expected, "{what}: transitions are not V² ∩ →");
    let count = |k| slice.edges.iter().filter(|e| e.kind == k).count() as u64;
    assert_eq!(slice.single_steps, count(EdgeKind::SingleStep));
    assert_eq!(slice.back_edges, count(EdgeKind::BackEdge));
    assert_eq!(slice.jumps, count(EdgeKind::Jump));
    // Queues: contiguous, at most N states each, the initial state alone first.
    assert_eq!(slice.queue_starts.first(), Some(&0));
    for (q, &lo) in slice.queue_starts.iter().enumerate() {
        let hi = slice.queue_starts.get(q + 1).map_or(n as u32, |&h| h);
        assert!(hi > lo);
        assert!(
            (hi - lo) as usize <= slice.breadth.max(1),
            "{what}: queue {q} too wide"
        );
        assert!((lo..hi).all(|v| slice.queue[v as usize] == q as u32));
    }
    // The chosen transitions form a tree of single steps.
    for v in 1..n as u32 {
        let (p, e) = slice.parent[v as usize];
        assert_eq!(slice.queue[p as usize] + 1, slice.queue[v as usize]);
        assert!(
            slice
                .edges
                .iter()
                .any(|x| x.from == p && x.to == v && x.label == e.label && x.kind == EdgeKind::SingleStep),
            "{what}: the parent transition of {v} is not a single step"
        );
    }
}

fn load(instance: &str, goals: &[&str]) -> (dve_frontend::ir::Model, Vec<Goal>) {
    let b = beem();
    let path = if let Some((inst, p)) = instance.split_once(".prop") {
        b.property_model_path(inst, p.parse().unwrap())
    } else {
        b.model_path(instance)
    };
    let opts = LoadOptions {
        exprs: goals.iter().map(|g| g.to_string()).collect(),
        ..Default::default()
    };
    let l = dve_frontend::load_file_with(&path, &opts).expect("model loads");
    let goals = goals
        .iter()
        .zip(l.exprs)
        .map(|(t, e)| Goal {
            text: t.to_string(),
            expr: e,
        })
        .collect();
    (l.model, goals)
}

fn models() -> Vec<(String, Box<dyn NextState>)> {
    let mut v: Vec<(String, Box<dyn NextState>)> = vec![
        ("tree".into(), Box::new(binary_tree(6))),
        ("lanes".into(), Box::new(lanes())),
        ("random-a".into(), Box::new(random_graph(300, 1))),
        ("random-b".into(), Box::new(random_graph(2000, 2))),
    ];
    for inst in ["phils.1", "bakery.2", "lifts.1", "gear.1", "lifts.1.prop3"] {
        v.push((inst.into(), Box::new(Interpreter::new(load(inst, &[]).0))));
    }
    v
}

fn algorithms(breadth: usize) -> Vec<SliceOptions> {
    vec![
        SliceOptions::highway(breadth),
        SliceOptions::bounded(breadth),
        SliceOptions::degrading(breadth, 1),
        SliceOptions::degrading(breadth, 5),
    ]
}

#[test]
fn slices_are_substructures_of_the_state_space() {
    let (mut jumps, mut backs, mut singles) = (0, 0, 0);
    for (name, m) in models() {
        let f = full(m.as_ref());
        for breadth in [1, 2, 3, 6, 25] {
            for opts in algorithms(breadth) {
                for seed in 0..4 {
                    let slice = build_slice(m.as_ref(), &opts, &mut Rng::seeded(seed));
                    assert_eq!(slice.result, Outcome::Complete);
                    let what = format!("{name} {:?} N={breadth} seed {seed}", opts.algorithm());
                    check_slice(m.as_ref(), &f, &slice, &what);
                    jumps += slice.jumps;
                    backs += slice.back_edges;
                    singles += slice.single_steps;
                }
            }
        }
    }
    // Every kind of transition was met (the classification was tested).
    assert!(jumps > 0 && backs > 0 && singles > 0, "{jumps} {backs} {singles}");
}

#[test]
fn bounded_slices_have_no_introduced_sinks() {
    let mut highway_sinks = 0;
    for (name, m) in models() {
        for breadth in [1, 2, 3, 4, 6] {
            for opts in algorithms(breadth) {
                for seed in 0..6 {
                    let slice = build_slice(m.as_ref(), &opts, &mut Rng::seeded(seed));
                    let sinks = slice.introduced_sinks();
                    if opts.algorithm() == Algorithm::Highway {
                        highway_sinks += sinks;
                        continue;
                    }
                    assert_eq!(sinks, 0, "{name} {:?} N={breadth} seed {seed}", opts.algorithm());
                    // Directly: every state with a successor in the model has
                    // one in the slice.
                    let out = slice.out_degrees();
                    for (v, (&o, &m)) in out.iter().zip(&slice.model_degree).enumerate() {
                        assert!(o > 0 || m == 0, "{name}: state {v} is a new sink");
                    }
                }
            }
        }
    }
    // Algorithm 1 does not keep the slice total; the constraint matters.
    assert!(
        highway_sinks > 0,
        "no Highway slice had a sink: the check proves nothing"
    );
}

#[test]
fn highway_on_lanes_drops_a_lane_sometimes_bounded_never() {
    let m = lanes();
    let mut dropped = 0;
    for seed in 0..60 {
        let h = build_slice(&m, &SliceOptions::highway(2), &mut Rng::seeded(seed));
        dropped += (h.introduced_sinks() > 0) as u32;
        let b = build_slice(&m, &SliceOptions::bounded(2), &mut Rng::seeded(seed));
        assert_eq!(b.introduced_sinks(), 0);
    }
    // {3, 4} is one of three 2-subsets of {3, 4, 5}.
    assert!((8..=35).contains(&dropped), "dropped {dropped} of 60");
}

#[test]
fn wide_breadth_gives_the_whole_state_space() {
    for (name, m) in models() {
        let f = full(m.as_ref());
        let report = bfs(m.as_ref(), &Limits::default(), false);
        assert_eq!(report.core.states, f.store.len() as u64);
        let widest = report.bfs.as_ref().and_then(|g| g.max_level_states).unwrap() as usize;
        assert_eq!(widest, f.widest, "{name}");
        for breadth in [widest, widest + 7] {
            for seed in 0..3 {
                let slice = build_slice(
                    m.as_ref(),
                    &SliceOptions::bounded(breadth),
                    &mut Rng::seeded(seed),
                );
                assert_eq!(slice.len() as u64, report.core.states, "{name} N={breadth}");
                assert_eq!(slice.edges.len() as u64, f.transitions, "{name} N={breadth}");
                assert_eq!(Some(slice.deadlocks()), report.core.deadlocks, "{name}");
                // Then it is a breadth-first search: queues are BFS levels.
                assert_eq!(
                    slice.queues() as u64,
                    report.bfs.as_ref().and_then(|g| g.levels).unwrap(),
                    "{name}"
                );
                assert_eq!(slice.jumps, 0);
            }
        }
    }
}

/// A slice's states and transitions, for comparing constructions.
type SliceImage = (Vec<Vec<u8>>, Vec<(u32, u32, Label, EdgeKind)>);

fn fingerprint_of(slice: &Slice) -> SliceImage {
    (
        slice.states.iter().map(|s| s.to_vec()).collect(),
        slice
            .edges
            .iter()
            .map(|e| (e.from, e.to, e.label, e.kind))
            .collect(),
    )
}

#[test]
fn seeded_slices_are_reproducible() {
    let (ir, _) = load("lifts.1", &[]);
    let m = Interpreter::new(ir);
    for opts in algorithms(3) {
        let a = build_slice(&m, &opts, &mut Rng::seeded(42));
        let b = build_slice(&m, &opts, &mut Rng::seeded(42));
        assert_eq!(fingerprint_of(&a), fingerprint_of(&b));
        let differ = (0..5)
            .any(|s| fingerprint_of(&build_slice(&m, &opts, &mut Rng::seeded(s))) != fingerprint_of(&a));
        assert!(differ, "{:?}: every seed gives the same slice", opts.algorithm());
    }
    // Series: the same figures whatever the number of threads.
    let t = Targets {
        deadlock: true,
        ..Default::default()
    };
    let (s1, _) = run_many(&m, &SliceOptions::bounded(2), &t, 7, 12, 1);
    let (s2, _) = run_many(&m, &SliceOptions::bounded(2), &t, 7, 12, 2);
    assert_eq!(s1.mean_slice_states, s2.mean_slice_states);
    assert_eq!(s1.witness_found, s2.witness_found);
    let r1: Vec<_> = s1
        .records
        .iter()
        .map(|r| (r.seed, r.slice_states, r.slice_transitions))
        .collect();
    let r2: Vec<_> = s2
        .records
        .iter()
        .map(|r| (r.seed, r.slice_states, r.slice_transitions))
        .collect();
    assert_eq!(r1, r2);
}

#[test]
fn graceful_degradation_narrows_queues_after_depth_d() {
    for (name, m) in models() {
        for d in [1u32, 3, 8] {
            for seed in 0..4 {
                let bounded = build_slice(m.as_ref(), &SliceOptions::bounded(6), &mut Rng::seeded(seed));
                let slice = build_slice(m.as_ref(), &SliceOptions::degrading(6, d), &mut Rng::seeded(seed));
                // Identical up to depth D (same random draws).
                let upto = |s: &Slice| s.queue.iter().take_while(|&&q| q <= d).count();
                let k = upto(&bounded);
                assert_eq!(upto(&slice), k, "{name}");
                assert!(
                    (0..k as u32).all(|v| slice.states.get(v) == bounded.states.get(v)),
                    "{name}"
                );
                let widths: Vec<u32> = slice
                    .queue_starts
                    .iter()
                    .enumerate()
                    .map(|(q, &lo)| slice.queue_starts.get(q + 1).map_or(slice.len() as u32, |&h| h) - lo)
                    .collect();
                for q in d as usize..widths.len().saturating_sub(1) {
                    assert!(
                        widths[q + 1] <= widths[q],
                        "{name} D={d}: queue widths {widths:?}"
                    );
                }
            }
        }
    }
}

/// Checks that every step of `t` is a transition of `m` (and for a lasso,
/// that the cycle closes through an accepting state).
fn replay(m: &dyn NextState, t: &Trace) {
    assert_eq!(t.initial, m.initial_vec());
    let mut buf = SuccBuf::new(m.state_len());
    for (i, step) in t.steps.iter().enumerate() {
        m.successors(t.state(i), &mut buf);
        assert!(
            buf.iter()
                .any(|(e, s)| e.label == step.label && e.error == step.error && s == &step.state[..]),
            "step {} is not a transition",
            i + 1
        );
    }
    if let Some(c) = t.cycle_start {
        assert!(c < t.steps.len());
        assert_eq!(t.state(c), t.state(t.steps.len()), "the lasso does not close");
        assert!((c..=t.steps.len()).any(|i| m.info().is_accepting(t.state(i))));
    }
}

#[test]
fn witnesses_are_real_and_replay() {
    // Goal: gear.1 property 2 (shallow) and 1 (deep, 88 steps).
    for goal in ["Clutch.error_open", "currentGear == 5"] {
        let (ir, goals) = load("gear.1", &[goal]);
        let m = Interpreter::new(ir);
        let pred = goal_predicate(&m, &goals);
        let t = Targets {
            goal: Some(&pred),
            ..Default::default()
        };
        let mut found = 0;
        for seed in 0..20 {
            let slice = build_slice(&m, &SliceOptions::bounded(4), &mut Rng::seeded(seed));
            if let Some(w) = find_witness(&slice, m.info(), &t) {
                assert_eq!(w.kind, ViolationKind::Goal);
                replay(&m, &w.trace);
                assert!(pred(w.trace.state(w.trace.steps.len())));
                found += 1;
            }
        }
        assert!(found > 0, "{goal}: no witness in 20 slices");
        // The whole state space holds one.
        let slice = build_slice(&m, &SliceOptions::bounded(100_000), &mut Rng::seeded(0));
        assert!(find_witness(&slice, m.info(), &t).is_some());
    }
    // Deadlocks: a random graph with deadlocks.
    let g = random_graph(500, 3);
    let t = Targets {
        deadlock: true,
        ..Default::default()
    };
    let mut found = 0;
    for seed in 0..20 {
        let slice = build_slice(&g, &SliceOptions::bounded(2), &mut Rng::seeded(seed));
        if let Some(w) = find_witness(&slice, &g.info, &t) {
            assert_eq!(w.kind, ViolationKind::Deadlock);
            replay(&g, &w.trace);
            assert!(g.succ[node(w.trace.state(w.trace.steps.len())) as usize].is_empty());
            found += 1;
        }
    }
    assert!(found > 0);
    // Accepting cycles: lifts.1 property 3 (BEEM: violated) and
    // anderson.2 property 4 (BEEM: holds, no accepting cycle).
    let acc = Targets {
        accepting: true,
        ..Default::default()
    };
    let (ir, _) = load("lifts.1.prop3", &[]);
    let m = Interpreter::new(ir);
    let mut found = 0;
    for seed in 0..20 {
        let slice = build_slice(&m, &SliceOptions::bounded(3), &mut Rng::seeded(seed));
        if let Some(w) = find_witness(&slice, m.info(), &acc) {
            assert_eq!(w.kind, ViolationKind::AcceptingCycle);
            replay(&m, &w.trace);
            found += 1;
        }
    }
    assert!(found > 0, "lifts.1 #3: no accepting cycle in 20 slices");
    let (ir, _) = load("anderson.2.prop4", &[]);
    let m = Interpreter::new(ir);
    for seed in 0..10 {
        let slice = build_slice(
            &m,
            &SliceOptions::bounded(1 + seed as usize),
            &mut Rng::seeded(seed),
        );
        assert!(find_witness(&slice, m.info(), &acc).is_none());
    }
    let slice = build_slice(&m, &SliceOptions::bounded(1_000_000), &mut Rng::seeded(0));
    assert!(find_witness(&slice, m.info(), &acc).is_none());
}

#[test]
fn bmc_is_bfs_stopped_at_the_first_witness() {
    for (inst, goal) in [
        ("gear.1", "Clutch.error_open"),
        ("gear.1", "currentGear == 5"),
        ("bakery.2", "P_0.CS + P_1.CS > 1"),
    ] {
        let (ir, goals) = load(inst, &[goal]);
        let m = Interpreter::new(ir.clone());
        let pred = goal_predicate(&m, &goals);
        let t = Targets {
            goal: Some(&pred),
            ..Default::default()
        };
        let r = bmc(&m, &t, &Limits::default());
        let opts = CheckOptions {
            search: Search::Bfs,
            checks: Checks::default(),
            goals: goals.clone(),
            all_violations: false,
            limits: Limits::default(),
            meter: None,
        };
        let c = check(&m, &ir, &opts);
        assert_eq!(r.kind, Some(ViolationKind::Goal), "{inst} {goal}");
        assert_eq!(r.states, Some(c.counters.states), "{inst} {goal}");
    }
    // Deadlock in a tree: the first leaf in BFS order.
    let tree = binary_tree(4);
    let t = Targets {
        deadlock: true,
        ..Default::default()
    };
    let r = bmc(&tree, &t, &Limits::default());
    assert_eq!(r.kind, Some(ViolationKind::Deadlock));
    assert_eq!(r.states, Some(31));
    // Accepting cycles: found exactly when nested DFS finds one.
    let acc = Targets {
        accepting: true,
        ..Default::default()
    };
    for (inst, has) in [
        ("lifts.1.prop3", true),
        ("phils.1.prop1", true),
        ("anderson.2.prop4", false),
    ] {
        let (ir, _) = load(inst, &[]);
        let m = Interpreter::new(ir);
        let r = bmc(&m, &acc, &Limits::default());
        let total = bfs(&m, &Limits::default(), false).core.states;
        assert_eq!(r.kind.is_some(), has, "{inst}");
        if let Some(s) = r.states {
            assert!(s >= 1 && s <= total, "{inst}: {s} of {total}");
            // With a breadth bound that keeps every state, BBMC finds one too.
            let slice = build_slice(&m, &SliceOptions::bounded(1 << 20), &mut Rng::seeded(1));
            assert!(find_witness(&slice, m.info(), &acc).is_some());
        }
    }
}

#[test]
fn limits_stop_the_construction() {
    let g = binary_tree(10);
    let opts = SliceOptions {
        limits: Limits {
            max_states: Some(50),
            ..Default::default()
        },
        ..SliceOptions::bounded(40)
    };
    let slice = build_slice(&g, &opts, &mut Rng::seeded(0));
    assert_eq!(slice.result, Outcome::StateLimit);
    assert!(slice.len() <= 50);
    check_slice(&g, &full(&g), &slice, "limited");
}

#[test]
fn a_spent_time_budget_stops_the_draw_of_a_queue() {
    // The first poll comes before the first queue's draw (the expansion
    // polls every 1,024 states only): the slice is the initial state, its
    // successors not chosen, and it says why.
    let g = binary_tree(10);
    let opts = SliceOptions {
        limits: Limits {
            time: Some(std::time::Duration::ZERO),
            ..Default::default()
        },
        ..SliceOptions::bounded(40)
    };
    let slice = build_slice(&g, &opts, &mut Rng::seeded(0));
    assert_eq!(slice.result, Outcome::TimeLimit);
    assert_eq!(slice.len(), 1);
    check_slice(&g, &full(&g), &slice, "time budget spent");
}

#[test]
fn a_construction_publishes_its_counters_to_the_progress_meter() {
    // States generated and successors, at the expansion's polls (every
    // 1,024 states): what the progress line and its samples show.
    let g = binary_tree(12);
    let meter = dvemc_run::engine::progress::Meter::sampling(std::time::Duration::ZERO);
    let opts = SliceOptions {
        meter: Some(meter.clone()),
        ..SliceOptions::bounded(1 << 20)
    };
    let slice = build_slice(&g, &opts, &mut Rng::seeded(0));
    let samples = meter.samples(0, 0);
    let published = &samples[..samples.len() - 1];
    assert_eq!(published.len(), 7, "{published:?}");
    assert!(published
        .iter()
        .all(|s| s.states <= slice.generated && s.transitions <= slice.successors));
    // Growing until the leaves, which generate nothing.
    assert!(published.windows(2).all(|w| w[0].states <= w[1].states));
    assert!(published[0].states < slice.generated && published[6].states == slice.generated);
}

#[test]
fn aut_and_dot_exports() {
    let (ir, _) = load("phils.1", &[]);
    let m = Interpreter::new(ir);
    let slice = build_slice(&m, &SliceOptions::bounded(2), &mut Rng::seeded(3));
    let mut aut = Vec::new();
    write_aut(&mut aut, &slice, m.info()).unwrap();
    let text = String::from_utf8(aut).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("des (0, {}, {})", slice.edges.len(), slice.len())
    );
    let mut n = 0;
    for line in lines {
        let inner = line
            .strip_prefix('(')
            .and_then(|l| l.strip_suffix(')'))
            .expect("( .. )");
        let (from, rest) = inner.split_once(", \"").unwrap();
        let (label, to) = rest.rsplit_once("\", ").unwrap();
        assert!(from.parse::<usize>().unwrap() < slice.len());
        assert!(to.parse::<usize>().unwrap() < slice.len());
        assert!(!label.is_empty() && !label.contains('"'));
        n += 1;
    }
    assert_eq!(n, slice.edges.len());
    let mut dot = Vec::new();
    write_dot(&mut dot, &slice, m.info()).unwrap();
    let dot = String::from_utf8(dot).unwrap();
    assert!(dot.starts_with("digraph slice {") && dot.trim_end().ends_with('}'));
    assert_eq!(
        dot.lines().filter(|l| l.contains("[label=")).count(),
        slice.edges.len()
    );
}

/// The command line: `explore --strategy bbmc|highway|urs|...` with JSON.
mod cli {
    use super::common::dvemc::{dvemc, exit_code, json_or_null, stderr, TempDir};

    #[test]
    fn bbmc_json_and_exports() {
        let dir = TempDir::new("bbmc");
        let aut = dir.join("slice.aut");
        let args = [
            "explore",
            "gear.1",
            "--strategy",
            "bbmc",
            "--breadth",
            "4",
            "--property",
            "2",
            "--runs",
            "20",
            "--seed",
            "3",
            "--json",
            "--export-lts",
            aut.to_str().unwrap(),
        ];
        let o = dvemc(&args);
        let (code, v, err) = (exit_code(&o), json_or_null(&o), stderr(&o));
        assert!(v.is_object(), "{err}");
        for key in [
            "slice_states",
            "slice_transitions",
            "witness_found",
            "witness_rate",
            "stored_peak",
            "states",
            "transitions",
            "bmc_states",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        let found = v["witness_found"].as_u64().unwrap();
        assert_eq!(code, if found > 0 { 1 } else { 0 });
        assert_eq!(v["witness_rate"].as_f64().unwrap(), found as f64 / 20.0);
        // Reproducible.
        let o = dvemc(&args);
        let again = json_or_null(&o);
        assert_eq!(v["slice_states"], again["slice_states"]);
        assert_eq!(v["witness_found"], again["witness_found"]);
        let text = std::fs::read_to_string(&aut).unwrap();
        assert!(text.starts_with("des (0, "));
        // DOT for small slices.
        let dot = dir.join("slice.dot");
        let o = dvemc(&[
            "explore",
            "phils.1",
            "--strategy",
            "highway",
            "--breadth",
            "2",
            "--export-lts",
            dot.to_str().unwrap(),
        ]);
        let err = stderr(&o);
        assert!(
            std::fs::read_to_string(&dot).unwrap().starts_with("digraph"),
            "{err}"
        );
    }

    #[test]
    fn random_search_json_and_usage_errors() {
        let o = dvemc(&[
            "explore",
            "lifts.1",
            "--strategy",
            "rurs",
            "--memory-states",
            "200",
            "--steps",
            "20000",
            "--restart",
            "random",
            "--json",
        ]);
        let (code, v, err) = (exit_code(&o), json_or_null(&o), stderr(&o));
        assert_eq!(code, 0, "{err}");
        assert!(v["stored_peak"].as_u64().unwrap() <= 200);
        for key in ["covered", "steps", "restarts", "redundancy", "stored_peak"] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert!(v["restarts"].as_f64().unwrap() >= 1.0);
        // A goal found: exit 1 and a trace.
        let o = dvemc(&[
            "explore",
            "gear.1",
            "--strategy",
            "urs",
            "--memory-states",
            "3000",
            "--property",
            "2",
            "--json",
        ]);
        let (code, v) = (exit_code(&o), json_or_null(&o));
        assert_eq!(code, 1);
        assert!(v["trace"].is_object());
        for bad in [
            &["explore", "gear.1", "--strategy", "urs"][..],
            &["explore", "gear.1", "--strategy", "bbmc"],
            &["explore", "gear.1", "--breadth", "2"],
            &[
                "explore",
                "gear.1",
                "--strategy",
                "sdrs",
                "--memory-states",
                "9",
                "--mixing",
                "0.5",
            ],
            &[
                "explore",
                "gear.1",
                "--strategy",
                "highway",
                "--breadth",
                "2",
                "--degrade-depth",
                "4",
            ],
            &[
                "explore",
                "gear.1",
                "--strategy",
                "bbmc",
                "--breadth",
                "2",
                "--export-lts",
                "x.txt",
            ],
        ] {
            assert_eq!(exit_code(&dvemc(bad)), 2, "{bad:?}");
        }
    }
}

/// Algorithm 2 chooses the next queue uniformly among the admissible
/// N-close subsets. With Q_1 = {a, b}, succ(a) = {x1, x2}, succ(b) = {x1, y}
/// and N = 2, all three 2-subsets of {x1, x2, y} serve both a and b, so each
/// must come with probability 1/3 (serving a then b with a random successor
/// each, and filling up, gives 3/8, 3/8, 1/4).
#[test]
fn bounded_exploration_draws_admissible_queues_uniformly() {
    // 0 -> a=1, b=2; a -> x1=3, x2=4; b -> x1=3, y=5.
    let g = Graph::new(
        "uniform",
        vec![vec![1, 2], vec![3, 4], vec![3, 5], vec![], vec![], vec![]],
    );
    let runs = 6000;
    let mut count: HashMap<Vec<u32>, u32> = HashMap::new();
    for seed in 0..runs {
        let slice = build_slice(&g, &SliceOptions::bounded(2), &mut Rng::seeded(seed));
        assert_eq!(slice.biased_queues, 0, "every queue drawn by rejection");
        let mut q2: Vec<u32> = (0..slice.queue.len())
            .filter(|&i| slice.queue[i] == 2)
            .map(|i| node(slice.states.get(i as u32)))
            .collect();
        q2.sort_unstable();
        *count.entry(q2).or_default() += 1;
    }
    assert_eq!(count.len(), 3, "{count:?}");
    // Four standard deviations of a binomial(6000, 1/3) proportion: 0.024.
    for (q, &n) in &count {
        let p = n as f64 / runs as f64;
        assert!(
            (p - 1.0 / 3.0).abs() < 0.024,
            "{q:?}: {p:.3} of the draws ({count:?})"
        );
    }
}
