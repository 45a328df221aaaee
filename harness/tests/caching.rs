//! State caching for general state exploring algorithms (the
//! search-order independent state caching paper): search-order identities,
//! invariant I4, and that every successful run with any search order,
//! replacement strategy, reduction and the sweep-line method visits exactly
//! the state space found by an exhaustive search (same set of fingerprints).

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf};
use dvemc_run::algo::caching::sweep::{derive_progress, full_graph, Derivation};
use dvemc_run::algo::caching::{
    run, CacheSize, CachingReport, Independence, Options, Order, Progress, Replacement, Step,
};
use dvemc_run::engine::store::StateStore;
use dvemc_run::engine::Outcome;
use dvemc_run::model::beem::Beem;

mod common;
use common::dvemc::{json, stderr, Dvemc};
use common::{beem, Graph};

struct Instance {
    name: String,
    model: Interpreter,
    indep: Independence,
    /// Fingerprints of the whole state space (exhaustive BFS).
    fps: HashSet<u64>,
}

fn load(beem: &Beem, name: &str) -> Instance {
    let ir = dve_frontend::load_file(&beem.model_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let indep = Independence::from_model(&ir);
    let model = Interpreter::new(ir);
    let fps = exhaustive(&model);
    Instance {
        name: name.to_string(),
        model,
        indep,
        fps,
    }
}

/// The fingerprints of every reachable state, by a plain BFS over the exact
/// store (independent of the caching code).
fn exhaustive(model: &dyn NextState) -> HashSet<u64> {
    let n = model.state_len();
    let mut store = StateStore::new(n);
    let mut buf = SuccBuf::new(n);
    let init = model.initial_vec();
    store.insert(&init, model.fingerprint(&init));
    let mut next = 0u32;
    while (next as usize) < store.len() {
        model.successors(store.get(next), &mut buf);
        for i in 0..buf.len() {
            let s = buf.state(i);
            store.insert(s, model.fingerprint(s));
        }
        next += 1;
    }
    store.iter().map(|s| model.fingerprint(s)).collect()
}

/// Runs and returns the report with the set of visited fingerprints.
fn run_collect(model: &dyn NextState, opts: &Options) -> (CachingReport, HashSet<u64>) {
    let mut seen = HashSet::new();
    let mut obs = |st: Step| {
        if st.visit {
            seen.insert(st.dst);
        }
    };
    let r = run(model, opts, Some(&mut obs));
    (r, seen)
}

fn run_steps(model: &dyn NextState, opts: &Options) -> (CachingReport, Vec<Step>) {
    let mut steps = Vec::new();
    let mut obs = |st: Step| steps.push(st);
    let r = run(model, opts, Some(&mut obs));
    (r, steps)
}

/// Runs `jobs` on two threads.
fn parallel<T: Send>(jobs: Vec<T>, f: impl Fn(T) + Sync) {
    let jobs: Vec<Mutex<Option<T>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(j) = jobs.get(i) else { break };
                let job = j.lock().unwrap().take().unwrap();
                f(job);
            });
        }
    });
}

#[test]
fn search_orders_coincide_on_beem_instances() {
    // DFS ≡ BBFS(1) ≡ Alt(0, ∞) and BFS ≡ BBFS(∞) ≡ Alt(∞, 0): the same
    // sequence of executed events (source, successor, visit or not), without
    // and with a cache, reductions included.
    let b = beem();
    let names = [
        "adding.1",
        "bakery.2",
        "lifts.2",
        "brp.1",
        "peterson.1",
        "bopdp.1",
    ];
    let insts: Vec<Instance> = names.iter().map(|n| load(&b, n)).collect();
    let groups = [
        [Order::Dfs, Order::Bbfs(Some(1)), Order::Alt(Some(0), None)],
        [Order::Bfs, Order::Bbfs(None), Order::Alt(None, Some(0))],
    ];
    let mut compared = 0;
    for inst in &insts {
        let size = inst.fps.len() as u64;
        for cfg in 0..3 {
            for group in &groups {
                let mut first: Option<(CachingReport, Vec<Step>)> = None;
                for &order in group {
                    let opts = Options {
                        order,
                        cache: (cfg > 0).then_some(CacheSize::Percent(40.0)),
                        replacement: if cfg == 1 {
                            Replacement::Random
                        } else {
                            Replacement::Stratified(3)
                        },
                        chain_reduction: cfg == 2,
                        edge_lean: (cfg == 2).then_some(&inst.indep),
                        state_space_size: Some(size),
                        seed: 7,
                        ..Default::default()
                    };
                    let (r, steps) = run_steps(&inst.model, &opts);
                    match &first {
                        None => first = Some((r, steps)),
                        Some((r0, s0)) => {
                            assert_eq!(r.result, r0.result, "{} {order} cfg {cfg}", inst.name);
                            assert_eq!(r.visits, r0.visits, "{} {order} cfg {cfg}", inst.name);
                            assert!(
                                steps == *s0,
                                "{}: {order} differs from {} (cfg {cfg})",
                                inst.name,
                                group[0]
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
        // The two groups really are different orders.
        let o = |order| {
            run_steps(
                &inst.model,
                &Options {
                    order,
                    ..Default::default()
                },
            )
            .1
        };
        assert!(o(Order::Dfs) != o(Order::Bfs), "{}", inst.name);
    }
    assert_eq!(compared, names.len() * 3 * 2 * 2);
}

/// The orders of the grid: DFS, BFS, BBFS(w), Alt(b, d).
fn orders() -> Vec<Order> {
    vec![
        Order::Dfs,
        Order::Bfs,
        Order::Bbfs(Some(4)),
        Order::Bbfs(Some(16)),
        Order::Bbfs(Some(256)),
        Order::Alt(Some(1), Some(1)),
        Order::Alt(Some(8), Some(4)),
        Order::Alt(Some(4), Some(8)),
    ]
}

/// (chain reduction, edge-lean).
const REDUCTIONS: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

#[test]
fn every_successful_run_visits_the_whole_state_space() {
    let b = beem();
    // 24 instances of 12 families up to 300,000 states; the small ones get
    // most of the combinations, the large ones a sample.
    let small = [
        "adding.1",
        "anderson.2",
        "bakery.1",
        "bopdp.1",
        "brp.1",
        "cambridge.1",
        "cyclic_scheduler.2",
        "elevator.2",
        "firewire_link.1",
        "gear.1",
        "iprotocol.1",
        "lamport.1",
        "lifts.2",
        "lup.1",
        "mcs.2",
        "peterson.1",
        "plc.1",
        "production_cell.2",
        "protocols.3",
        "reader_writer.1",
    ];
    let large = ["at.2", "bakery.4", "lifts.4", "brp2.5"];
    let insts: Vec<Instance> = small.iter().chain(&large).map(|n| load(&b, n)).collect();
    let combos: Vec<(Order, Replacement, (bool, bool))> = orders()
        .into_iter()
        .flat_map(|o| Replacement::ALL.into_iter().map(move |r| (o, r)))
        .flat_map(|(o, r)| REDUCTIONS.into_iter().map(move |red| (o, r, red)))
        .collect();
    // Each combination on 2 small instances (spread), and every 12th on a
    // large one.
    let mut jobs = Vec::new();
    for (c, &combo) in combos.iter().enumerate() {
        for k in 0..2 {
            jobs.push((combo, (c * 7 + k * 9) % small.len()));
        }
        if c % 12 == 0 {
            jobs.push((combo, small.len() + (c / 12) % large.len()));
        }
    }
    let successes = Mutex::new(vec![0u32; combos.len()]);
    let runs = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let per_instance = Mutex::new(vec![0u32; insts.len()]);
    parallel(jobs, |((order, repl, (cr, el)), i)| {
        let inst = &insts[i];
        let size = inst.fps.len() as u64;
        for pct in [25.0, 60.0, 90.0] {
            let opts = Options {
                order,
                cache: Some(CacheSize::Percent(pct)),
                replacement: repl,
                chain_reduction: cr,
                edge_lean: el.then_some(&inst.indep),
                state_space_size: Some(size),
                seed: i as u64,
                ..Default::default()
            };
            let (r, seen) = run_collect(&inst.model, &opts);
            runs.fetch_add(1, Ordering::Relaxed);
            let what = format!("{} {order} {repl} cr={cr} el={el} cache={pct}%", inst.name);
            if !seen.is_subset(&inst.fps) {
                failures
                    .lock()
                    .unwrap()
                    .push(format!("{what}: visited a state outside the state space"));
            }
            assert_eq!(r.states, seen.len() as u64, "{what}");
            if r.stored_peak > r.cache_size.unwrap() {
                failures
                    .lock()
                    .unwrap()
                    .push(format!("{what}: stored {} > cache", r.stored_peak));
            }
            if r.result == Outcome::Complete {
                if seen != inst.fps {
                    failures.lock().unwrap().push(format!(
                        "{what}: complete with {} of {} states",
                        seen.len(),
                        inst.fps.len()
                    ));
                }
                let c = combos.iter().position(|x| *x == (order, repl, (cr, el))).unwrap();
                successes.lock().unwrap()[c] += 1;
                per_instance.lock().unwrap()[i] += 1;
                break;
            }
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every strategy with every order, and every reduction with every
    // order, completed somewhere (some combinations are hopeless: DFS
    // deleting the shallowest states first can run out of time even with a
    // cache of 90 %).
    let successes = successes.into_inner().unwrap();
    let mut never = Vec::new();
    for o in orders() {
        for r in Replacement::ALL {
            if !combos
                .iter()
                .zip(&successes)
                .any(|(c, &n)| c.0 == o && c.1 == r && n > 0)
            {
                never.push(format!("{o} {r}"));
            }
        }
        for red in REDUCTIONS {
            if !combos
                .iter()
                .zip(&successes)
                .any(|(c, &n)| c.0 == o && c.2 == red && n > 0)
            {
                never.push(format!("{o} {red:?}"));
            }
        }
    }
    assert!(never.is_empty(), "never completed: {never:?}");
    let per_instance = per_instance.into_inner().unwrap();
    for (inst, n) in insts.iter().zip(&per_instance) {
        assert!(*n > 0, "{}: no successful run", inst.name);
    }
    eprintln!(
        "{} runs, {} successful, on {} instances",
        runs.load(Ordering::Relaxed),
        per_instance.iter().sum::<u32>(),
        insts.len()
    );
}

#[test]
fn sweep_line_with_and_without_caching_visits_every_state() {
    let b = beem();
    let names = [
        "brp.1",
        "iprotocol.1",
        "lifts.2",
        "plc.1",
        "bopdp.1",
        "production_cell.2",
    ];
    let mut jobs = Vec::new();
    for name in names {
        for level in 0..=5u8 {
            for how in [Derivation::Greedy, Derivation::Projection] {
                jobs.push((name, level, how));
            }
        }
    }
    let done = Mutex::new(0u32);
    parallel(jobs, |(name, level, how)| {
        let inst = load(&b, name);
        let g = full_graph(&inst.model, &Default::default(), None).ok().unwrap();
        let ap = derive_progress(&inst.model, &g, level, how);
        match how {
            // The greedy derivation keeps the whole vector within the bound.
            Derivation::Greedy => assert!(
                ap.regress <= dvemc_run::algo::caching::sweep::LEVEL_BOUNDS[level as usize] + 1e-12,
                "{name} level {level}: {} regress",
                ap.regress
            ),
            // A projection only judges components one by one: at level 0
            // all of them never decrease, so neither does the vector; a
            // higher level keeps every component of a lower one.
            Derivation::Projection => {
                if level == 0 {
                    assert_eq!(ap.regress, 0.0, "{name}");
                } else {
                    let lower = derive_progress(&inst.model, &g, level - 1, how);
                    for c in &lower.progress.names {
                        assert!(ap.progress.names.contains(c), "{name} level {level}: {c} dropped");
                    }
                }
            }
        }
        let size = inst.fps.len() as u64;
        for (cache, order, el) in [
            (None, Order::Bfs, false),
            (None, Order::Dfs, true),
            (Some(CacheSize::Percent(50.0)), Order::Bfs, false),
            (Some(CacheSize::Percent(30.0)), Order::Bfs, true),
        ] {
            let opts = Options {
                order,
                cache,
                replacement: Replacement::Stratified(4),
                edge_lean: el.then_some(&inst.indep),
                progress: Some(&ap.progress),
                state_space_size: Some(size),
                max_visits_factor: if cache.is_none() { None } else { Some(5.0) },
                check_invariants: true,
                ..Default::default()
            };
            let (r, seen) = run_collect(&inst.model, &opts);
            assert!(seen.is_subset(&inst.fps));
            if cache.is_none() {
                assert_eq!(
                    r.result,
                    Outcome::Complete,
                    "{name} level {level}: sweep-line alone"
                );
            }
            if r.result == Outcome::Complete {
                assert!(
                    seen == inst.fps,
                    "{name} level {level} {:?}: {} of {}",
                    cache,
                    seen.len(),
                    size
                );
                assert!(r.persistent.is_some() && r.largest_class.is_some());
                *done.lock().unwrap() += 1;
            }
            if level == 0 {
                // No regress transition, hence no persistent state.
                assert_eq!(r.persistent, Some(0), "{name}");
            }
        }
    });
    assert!(*done.lock().unwrap() >= (names.len() * 6 * 2 * 2) as u32);
}

#[test]
fn sweep_line_with_a_hand_written_measure() {
    // Any measure is sound: regress transitions make persistent states.
    let b = beem();
    let path = b.model_path("brp.1");
    let names = vec![
        "prod_n".to_string(),
        "Producer->n".to_string(),
        "Producer.check".to_string(),
    ];
    let loaded = dve_frontend::load_file_with(
        &path,
        &dve_frontend::LoadOptions {
            exprs: names.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    let progress = Progress {
        exprs: loaded.exprs.clone(),
        names,
    };
    let model = Interpreter::new(loaded.model);
    let fps = exhaustive(&model);
    for cache in [None, Some(CacheSize::Percent(40.0))] {
        let opts = Options {
            order: Order::Bfs,
            cache,
            progress: Some(&progress),
            state_space_size: Some(fps.len() as u64),
            check_invariants: true,
            ..Default::default()
        };
        let (r, seen) = run_collect(&model, &opts);
        if cache.is_none() {
            assert_eq!(r.result, Outcome::Complete);
            assert!(r.persistent.unwrap() > 0, "this measure has regress transitions");
        }
        if r.result == Outcome::Complete {
            assert!(seen == fps);
        }
    }
}

// ---- invariant I4 and the TD-tree on hand-written graphs -----------------

/// The state space of Fig. 2: 0→1,2; 1→3,4; 2→4; 3→5; 4→6,7; 7→2.
fn fig2() -> Graph {
    Graph::new(
        "graph",
        vec![
            vec![1, 2],
            vec![3, 4],
            vec![4],
            vec![5],
            vec![6, 7],
            vec![],
            vec![],
            vec![2],
        ],
    )
}

#[test]
fn fig2_bfs_with_a_tiny_cache_terminates_and_revisits_state_2() {
    let g = fig2();
    let mut steps = Vec::new();
    let mut obs = |s: Step| steps.push(s);
    let opts = Options {
        order: Order::Bfs,
        cache: Some(CacheSize::States(7)),
        replacement: Replacement::DepthMin,
        state_space_size: Some(8),
        max_visits_factor: None,
        check_invariants: true,
        ..Default::default()
    };
    let r = run(&g, &opts, Some(&mut obs));
    assert_eq!(r.result, Outcome::Complete);
    assert_eq!(r.states, 8);
    assert!(r.stored_peak <= 7);
    assert!(r.revisits >= 1, "a deleted state was reached again");
}

#[test]
fn tiny_caches_on_random_graphs_keep_invariant_i4() {
    // Random graphs with cycles; every order, strategy and reduction, with
    // I4 checked after every iteration (the cache stays below 64 states).
    let mut rng = dvemc_run::engine::rng::Rng::seeded(11);
    for gi in 0..10 {
        let n = 20 + rng.below(40);
        let succ: Vec<Vec<u32>> = (0..n)
            .map(|v| {
                let k = rng.below(4);
                let mut s: Vec<u32> = (0..k).map(|_| rng.below(n) as u32).collect();
                if v + 1 < n && rng.below(3) > 0 {
                    s.push(v as u32 + 1);
                }
                s
            })
            .collect();
        let g = Graph::new("graph", succ);
        let fps = exhaustive(&g);
        for order in orders() {
            for repl in Replacement::family() {
                for cr in [false, true] {
                    for cache in [5u64, 15] {
                        let opts = Options {
                            order,
                            cache: Some(CacheSize::States(cache)),
                            replacement: repl,
                            chain_reduction: cr,
                            state_space_size: Some(fps.len() as u64),
                            max_visits_factor: Some(20.0),
                            seed: gi,
                            check_invariants: true,
                            ..Default::default()
                        };
                        let (r, seen) = run_collect(&g, &opts);
                        assert!(r.stored_peak <= cache);
                        if r.result == Outcome::Complete {
                            assert!(seen == fps, "graph {gi} {order} {repl} cr={cr} cache {cache}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn cli_runs_the_caching_algorithm() {
    let b = beem();
    let model = b.model_path("adding.1");
    let out = Dvemc::new()
        .arg("explore")
        .arg(&model)
        .args([
            "--strategy",
            "alt:8,4",
            "--cache",
            "50%",
            "--replacement",
            "stratified",
            "--edge-lean",
            "--chain-reduction",
            "--json",
        ])
        .run();
    let v = json(&out);
    for key in [
        "states",
        "result",
        "stored_peak",
        "visits",
        "revisits",
        "S",
        "V",
        "cache_size",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["strategy"], "alt:8,4");
    if v["result"] == "complete" {
        assert_eq!(v["states"], 7372);
        assert_eq!(out.status.code(), Some(0));
    } else {
        assert_eq!(out.status.code(), Some(4));
    }
    // Sweep-line with an automatic measure.
    let out = Dvemc::new()
        .arg("explore")
        .arg(&model)
        .args(["--sweep-level", "2", "--json"])
        .run();
    let v = json(&out);
    assert_eq!(v["result"], "complete");
    assert_eq!(v["states"], 7372);
    assert!(v.get("P").is_some() && v.get("L").is_some());
    // A bad combination is a usage error.
    let out = Dvemc::new()
        .arg("explore")
        .arg(&model)
        .args(["--strategy", "bbfs:4", "--sweep-level", "1"])
        .run();
    assert_eq!(out.status.code(), Some(2));
    // The greedy derivation on request; a derivation needs a level.
    let out = Dvemc::new()
        .arg("explore")
        .arg(&model)
        .args(["--sweep-level", "2", "--sweep-derivation", "greedy", "--json"])
        .run();
    let v = json(&out);
    assert_eq!(v["result"], "complete");
    assert_eq!(v["states"], 7372);
    for bad in [
        &["--sweep-derivation", "greedy"][..],
        &["--sweep-level", "2", "--sweep-derivation", "finest"][..],
    ] {
        let out = Dvemc::new().arg("explore").arg(&model).args(bad).run();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = stderr(&out);
        assert!(
            err.contains("--sweep-derivation") || err.contains("finest"),
            "{err}"
        );
    }
}
