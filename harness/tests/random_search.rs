//! Memory-aware randomized exploration (Abed, Tripakis and Vincent): URS,
//! SDRS, their re-initialized forms, the mixing parameter, the random walk
//! and memory-bounded BFS, on hand-written graphs and small BEEM instances.
//! The memory never holds more than `N` states; seeded runs are
//! reproducible; the exact coverage counter and the cover times are
//! consistent; goal traces replay.

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf};
use dve_frontend::LoadOptions;
use dvemc_run::algo::bbmc::goal_predicate;
use dvemc_run::algo::check::{Goal, Trace};
use dvemc_run::algo::random::{run_many, search, summarize, Algo, Restart, SearchOptions, SearchRun, Stop};
use dvemc_run::run::exhaustive::{bfs, Limits};

mod common;
use common::{beem, Graph};

fn graph(succ: Vec<Vec<u32>>) -> Graph {
    Graph::new("graph", succ)
}

/// An m-ary tree of height h (the paper's T(h, m)); leaves are deadlocks.
fn tree(h: u32, m: u32) -> Graph {
    let n = (m.pow(h + 1) - 1) / (m - 1);
    graph(
        (0..n)
            .map(|i| (1..=m).map(|k| i * m + k).filter(|&c| c < n).collect())
            .collect(),
    )
}

/// A directed L x L grid (right and down moves), the corner a deadlock.
fn grid(l: u32) -> Graph {
    graph(
        (0..l * l)
            .map(|i| {
                let (x, y) = (i % l, i / l);
                let mut v = Vec::new();
                if x + 1 < l {
                    v.push(i + 1);
                }
                if y + 1 < l {
                    v.push(i + l);
                }
                v
            })
            .collect(),
    )
}

fn beem_model(instance: &str, goals: &[&str]) -> (Interpreter, Vec<Goal>) {
    let beem = beem();
    let opts = LoadOptions {
        exprs: goals.iter().map(|g| g.to_string()).collect(),
        ..Default::default()
    };
    let l = dve_frontend::load_file_with(&beem.model_path(instance), &opts).expect("loads");
    let goals = goals
        .iter()
        .zip(l.exprs)
        .map(|(t, e)| Goal {
            text: t.to_string(),
            expr: e,
        })
        .collect();
    (Interpreter::new(l.model), goals)
}

fn all_variants() -> Vec<SearchOptions> {
    let mut v = Vec::new();
    for algo in [Algo::Urs, Algo::Sdrs] {
        for restart in [Restart::Stop, Restart::Initial, Restart::Random] {
            v.push(SearchOptions {
                restart,
                ..SearchOptions::new(algo, 0, 0)
            });
        }
    }
    for x in [0.1, 0.5, 1.0] {
        v.push(SearchOptions {
            mixing: Some(x),
            restart: Restart::Random,
            ..SearchOptions::new(Algo::Urs, 0, 0)
        });
    }
    v.push(SearchOptions::new(Algo::Bfs, 0, 0));
    v
}

#[test]
fn memory_never_holds_more_than_n_states() {
    let models: Vec<Box<dyn NextState>> = vec![
        Box::new(tree(6, 3)),
        Box::new(grid(30)),
        Box::new(beem_model("bakery.2", &[]).0),
        Box::new(beem_model("lifts.1", &[]).0),
    ];
    for m in &models {
        let total = bfs(m.as_ref(), &Limits::default(), false).core.states;
        for n in [1usize, 2, 7, 100, total as usize / 5, total as usize + 3] {
            for base in all_variants() {
                let opts = SearchOptions {
                    memory_states: n,
                    steps: 20_000,
                    ..base
                };
                for seed in 0..3 {
                    let r = search(m.as_ref(), &opts, None, seed);
                    assert!(
                        r.stored_peak as usize <= n,
                        "{:?} N={n}: peak {}",
                        opts.algo,
                        r.stored_peak
                    );
                    assert!(r.covered <= total);
                    assert!(r.covered >= r.stored_peak.min(total));
                    match (opts.algo, opts.restart) {
                        (Algo::Bfs, _) => {
                            assert_eq!(r.covered, (n as u64).min(total));
                            assert_eq!(r.restarts, 0);
                        }
                        (_, Restart::Stop) => {
                            assert_eq!(r.restarts, 0);
                            assert!(matches!(r.stop, Stop::Steps | Stop::MemoryFull));
                            if r.stop == Stop::MemoryFull {
                                assert_eq!(r.stored_peak as usize, n);
                            }
                        }
                        _ => assert!(r.stop == Stop::Steps),
                    }
                    if n as u64 > total {
                        assert_eq!(r.restarts, 0, "the memory cannot fill up");
                    }
                }
            }
        }
    }
}

#[test]
fn random_walk_stores_one_state_and_restarts_at_deadlocks() {
    let t = tree(4, 2);
    let opts = SearchOptions::new(Algo::RandomWalk, 1, 1000);
    let r = search(&t, &opts, None, 5);
    assert_eq!(r.stored_peak, 1);
    assert_eq!(r.steps, 1000);
    // Each walk is 4 steps to a leaf plus one step at the leaf.
    assert_eq!(r.restarts, 200);
    assert!((r.redundancy - (1000.0 - (r.covered - 1) as f64) / 1000.0).abs() < 1e-12);
}

#[test]
fn a_run_publishes_its_counters_to_the_progress_meter() {
    // Covered states, steps and restarts, at the budget's polls (every 256
    // steps): what the progress line and its samples show.
    let t = tree(12, 2);
    let meter = dvemc_run::engine::progress::Meter::sampling(std::time::Duration::ZERO);
    let opts = SearchOptions {
        meter: Some(meter.clone()),
        ..SearchOptions::new(Algo::RandomWalk, 1, 10_000)
    };
    let r = search(&t, &opts, None, 5);
    let samples = meter.samples(0, 0);
    let published = &samples[..samples.len() - 1];
    assert!(published.len() >= 10, "{} samples", samples.len());
    assert!(published
        .iter()
        .all(|s| s.transitions <= r.steps && s.states <= r.steps + 1));
    assert!(published
        .last()
        .is_some_and(|s| s.transitions > 9_000 && s.states > 1));
}

fn key(r: &SearchRun) -> (u64, u64, u64, u64, Vec<u64>) {
    (
        r.steps,
        r.covered,
        r.restarts,
        r.stored_peak,
        r.samples.iter().map(|s| s.covered).collect(),
    )
}

#[test]
fn seeded_runs_are_reproducible() {
    let (m, _) = beem_model("lifts.1", &[]);
    for base in all_variants()
        .into_iter()
        .chain([SearchOptions::new(Algo::RandomWalk, 1, 0)])
    {
        let opts = SearchOptions {
            memory_states: if base.algo == Algo::RandomWalk { 1 } else { 300 },
            steps: 30_000,
            sample_every: 1000,
            ..base
        };
        let a = search(&m, &opts, None, 11);
        let b = search(&m, &opts, None, 11);
        assert_eq!(key(&a), key(&b), "{:?}", opts.algo);
        if opts.algo != Algo::Bfs {
            let c = search(&m, &opts, None, 12);
            assert_ne!(key(&a), key(&c), "{:?}: seeds 11 and 12 agree", opts.algo);
        }
    }
    // A series is the same on one thread or two.
    let opts = SearchOptions {
        restart: Restart::Initial,
        ..SearchOptions::new(Algo::Urs, 200, 5000)
    };
    let one: Vec<_> = run_many(&m, &opts, None, 3, 6, 1).iter().map(key).collect();
    let two: Vec<_> = run_many(&m, &opts, None, 3, 6, 2).iter().map(key).collect();
    assert_eq!(one, two);
}

#[test]
fn cover_times_and_full_coverage() {
    // SDRS restarts only at deadlocks; on these graphs every state stays
    // reachable, so both algorithms reach 100%.
    let models: Vec<Box<dyn NextState>> = vec![
        Box::new(tree(6, 3)),
        Box::new(grid(25)),
        Box::new(beem_model("phils.1", &[]).0),
    ];
    for m in &models {
        cover_all(m.as_ref());
    }
}

fn cover_all(m: &dyn NextState) {
    let total = bfs(m, &Limits::default(), false).core.states;
    let targets: Vec<u64> = [60, 70, 80, 90, 100]
        .iter()
        .map(|p| (total * p).div_ceil(100))
        .collect();
    for algo in [Algo::Urs, Algo::Sdrs] {
        let opts = SearchOptions {
            cover_targets: targets.clone(),
            stop_when_covered: true,
            sample_every: 500,
            ..SearchOptions::new(algo, total as usize, 5_000_000)
        };
        let runs = run_many(m, &opts, None, 1, 4, 2);
        for r in &runs {
            assert_eq!(r.stop, Stop::Covered, "{algo:?}");
            assert_eq!(r.covered, total);
            assert_eq!(r.restarts, 0);
            let steps: Vec<u64> = r.cover_steps.iter().map(|s| s.unwrap()).collect();
            assert!(steps.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(*steps.last().unwrap(), r.steps);
            // Coverage samples never decrease and end at the total.
            assert!(r
                .samples
                .windows(2)
                .all(|w| w[0].covered <= w[1].covered && w[0].steps <= w[1].steps));
            assert_eq!(r.samples.last().unwrap().covered, total);
            assert!(r.steps >= total - 1);
            let k = (total - 1) as f64;
            assert!((r.redundancy - (r.steps as f64 - k) / r.steps as f64).abs() < 1e-12);
        }
        let s = summarize(&opts, 1, &runs);
        assert_eq!(s.cover_reached, vec![4; 5]);
        let means: Vec<f64> = s.mean_cover_steps.iter().map(|x| x.unwrap()).collect();
        assert!(means.windows(2).all(|w| w[0] <= w[1]));
    }
}

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
}

#[test]
fn goals_are_found_with_replayable_traces() {
    let (m, goals) = beem_model("gear.1", &["Clutch.error_open"]);
    let pred = goal_predicate(&m, &goals);
    let mut variants = all_variants();
    variants.push(SearchOptions::new(Algo::RandomWalk, 1, 0));
    for base in variants {
        let opts = SearchOptions {
            memory_states: if base.algo == Algo::RandomWalk { 1 } else { 150 },
            steps: 400_000,
            ..base
        };
        let mut found = 0;
        for seed in 0..5 {
            let r = search(&m, &opts, Some(&pred), seed);
            if r.stop == Stop::Goal {
                let w = r.witness.expect("a trace");
                replay(&m, &w);
                assert!(pred(w.state(w.steps.len())));
                found += 1;
            }
        }
        // The goal lies in the transient part of the state space: a search
        // that restarts from a random stored state (or does not restart) can
        // be caught in a terminal component without it; restarting from the
        // initial state cannot.
        let must = opts.restart == Restart::Initial || opts.algo == Algo::RandomWalk;
        assert!(found > 0 || !must, "{:?} {:?}: no goal", opts.algo, opts.restart);
    }
}

#[test]
fn mixing_controls_depth() {
    // On a deep thin tree, leaf-first selection (X = 1) gets deeper sooner
    // than internal-first selection (X = 0).
    let t = tree(12, 2);
    let depth_of = |r: &SearchRun| r.covered;
    let run = |x: f64| {
        let opts = SearchOptions {
            mixing: Some(x),
            ..SearchOptions::new(Algo::Urs, 1 << 14, 3000)
        };
        (0..10)
            .map(|s| depth_of(&search(&t, &opts, None, s)))
            .sum::<u64>()
    };
    // Leaf-first never re-selects an internal node while leaves remain: more
    // new nodes per step.
    assert!(run(1.0) > run(0.1), "{} vs {}", run(1.0), run(0.1));
    // X = 0 only ever selects internal nodes: after the root, nothing new is
    // selected and only the root's successors are covered.
    assert_eq!(run(0.0), 10 * 3);
}

/// URS, SDRS and the random walk choose "a successor of u uniformly": a
/// successor *state*. From 0, three transitions lead to 1 and one to 2:
/// the first step reaches 2 with probability 1/2 (1/4 with the
/// transition-level choice, kept as `SuccessorChoice::Transition`).
#[test]
fn a_step_chooses_a_successor_state_uniformly() {
    use dvemc_run::algo::random::SuccessorChoice;
    let g = graph(vec![vec![1, 1, 1, 2], vec![], vec![]]);
    let is_two = |s: &[u8]| u32::from_le_bytes(s.try_into().unwrap()) == 2;
    let runs = 4000u64;
    for algo in [Algo::Urs, Algo::Sdrs, Algo::RandomWalk] {
        for (choice, p) in [(SuccessorChoice::State, 0.5), (SuccessorChoice::Transition, 0.25)] {
            let opts = SearchOptions {
                successor_choice: choice,
                ..SearchOptions::new(algo, 3, 1)
            };
            let hits = (0..runs)
                .filter(|&seed| search(&g, &opts, Some(&is_two), seed).goal_step == Some(1))
                .count();
            let observed = hits as f64 / runs as f64;
            // Four standard deviations of a binomial proportion.
            let sd = (p * (1.0 - p) / runs as f64).sqrt();
            assert!(
                (observed - p).abs() < 4.0 * sd,
                "{algo:?} {choice:?}: state 2 first in {observed:.3} of the runs, expected {p}"
            );
        }
    }
}
