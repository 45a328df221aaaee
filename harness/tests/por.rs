//! Partial-order reduction (`algo::por`) against the full search: through
//! the engine's exhaustive BFS, on both backends, the reduced search keeps
//! exactly the deadlock states of the full one (as state vectors), stores at
//! most as many states, and reaches the error state exactly when the full
//! search does. On hand-written models and on the smallest complete
//! instance of every BEEM family (at most 300,000 states). The checks with
//! the cycle proviso (BFS and DFS, one and two threads) keep the deadlock
//! states, find goals (BEEM's reachability properties) and assertion
//! violations with counterexamples that replay; a hand-made model loses its
//! goal without the proviso. LTL properties (BEEM's, on the smallest
//! instance of every family that has some) keep BEEM's answer on the
//! product reduced in two passes, with lassos that replay. `make
//! verify-por` runs the BEEM part over every complete instance up to
//! 1,000,000 states.
//!
//! `cargo test --release -p harness --test por -- --nocapture` also prints
//! the table of `results/por/NOTES.md`.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use dve_frontend::ir;
use dve_frontend::model::NextState;
use dve_frontend::property::{property_guards, system_view};
use dvemc_run::algo::check::{
    check, check_reduced, CheckOptions, CheckReport, Checks, Goal, Search, Verdict, ViolationKind,
};
use dvemc_run::algo::ltl_reduced::{self, System};
use dvemc_run::algo::por::{Por, PorStats, Reducer, Tapped};
use dvemc_run::model::backend::{build, Backend};
use dvemc_run::model::beem::Beem;
use dvemc_run::run::exhaustive::{explore, ExploreOptions, Outcome};

use common::{beem, Recorder};

const MAX_STATES: u64 = 300_000;

struct Searched {
    states: u64,
    deadlocks: BTreeSet<Vec<u8>>,
    error: bool,
}

fn search(model: &dyn NextState) -> Searched {
    let rec = Tapped {
        inner: model,
        tap: Recorder::default(),
    };
    let r = explore(&rec, &ExploreOptions::default());
    assert_eq!(r.core.result, Outcome::Complete);
    let deadlocks = rec.tap.deadlocks.into_inner().unwrap();
    assert_eq!(r.core.deadlocks, Some(deadlocks.len() as u64));
    Searched {
        states: r.core.states,
        deadlocks,
        error: rec.tap.error.load(Ordering::Relaxed),
    }
}

/// Full and reduced state counts of `m` on `backend`, after checking that
/// the reduction keeps the deadlocks and the error state.
fn compare(name: &str, m: &ir::Model, backend: Backend) -> (u64, u64) {
    let full = search(build(m.clone(), backend).model());
    let por = Por::new(m, build(m.clone(), backend).into_model());
    let reduced = search(&por);
    assert!(
        reduced.states <= full.states,
        "{name} ({backend}): {} reduced states > {} full",
        reduced.states,
        full.states
    );
    assert_eq!(
        reduced.deadlocks.len(),
        full.deadlocks.len(),
        "{name} ({backend}): deadlock counts differ"
    );
    assert!(
        reduced.deadlocks == full.deadlocks,
        "{name} ({backend}): deadlock states differ"
    );
    assert_eq!(
        reduced.error, full.error,
        "{name} ({backend}): error reachability differs"
    );
    (full.states, reduced.states)
}

fn both_backends(name: &str, src: &str) -> (u64, u64) {
    let m = dve_frontend::load_str(name, src).unwrap();
    let jit = compare(name, &m, Backend::Jit);
    assert_eq!(
        compare(name, &m, Backend::Interp),
        jit,
        "{name}: the backends differ"
    );
    jit
}

/// `n` processes counting to 3 each, then stopping: one deadlock.
fn counters(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!(
            "process P{i} {{ byte k; state a, b; init a; trans a -> a {{ guard k < 3; effect k = k + 1; }}, \
             a -> b {{ guard k == 3; }}; }}\n"
        );
    }
    s + "system async;"
}

#[test]
fn independent_processes_are_reduced_and_keep_their_deadlock() {
    let (full, reduced) = both_backends("counters", &counters(3));
    assert_eq!(full, 5 * 5 * 5);
    assert!(reduced < full / 4, "{reduced} of {full}");
}

#[test]
fn an_error_far_from_a_looping_process_stays_reachable() {
    // P loops forever, independent of Q. Q counts to 7 and stops; with steps
    // of 100 its byte overflows instead, and the error state (where Q
    // restarts at its first state) leads on.
    let src = "process P { byte t; state a; init a; trans a -> a { effect t = 1 - t; }; }
               process Q { byte k; state z, q, stop; init q;
                 trans q -> q { guard k != 7; effect k = k + 1; }, q -> stop { guard k == 7; }; }
               system async;";
    let (full, reduced) = both_backends("no error", src);
    assert!(reduced < full, "{reduced} of {full}");
    let src = src.replace("k + 1", "k + 100");
    let m = dve_frontend::load_str("error", &src).unwrap();
    assert!(search(build(m, Backend::Interp).model()).error);
    let (full, reduced) = both_backends("error", &src);
    assert!(reduced < full, "{reduced} of {full}");
}

/// The reduction as if no step could err (LTSmin's assumption, measured by
/// `examples/por_without_errors.rs`) cuts more, and here loses the error
/// state the sound one keeps: Q's third step overflows its byte while P
/// loops on its own, and only the error makes Q's steps matter.
#[test]
fn assuming_no_errors_cuts_more_and_loses_the_error() {
    let src = "process P { byte t; state a; init a; trans a -> a { effect t = 1 - t; }; }
               process Q { byte k; state q; init q; trans q -> q { effect k = k + 100; }; }
               system async;";
    let m = dve_frontend::load_str("overflow", src).unwrap();
    let full = search(build(m.clone(), Backend::Interp).model());
    let sound = search(&Por::new(&m, build(m.clone(), Backend::Interp).into_model()));
    let unsound = search(&Por::assuming_no_errors(
        &m,
        build(m.clone(), Backend::Interp).into_model(),
    ));
    assert!(full.error && sound.error);
    assert!(
        unsound.states < sound.states,
        "{} and {}",
        unsound.states,
        sound.states
    );
    assert!(!unsound.error, "{} states", unsound.states);
}

/// A guard that may err enables its step whatever its value: here P's guard
/// reads `a[i]` out of range while `i == 5`, although `i < 3` and `i == 5`
/// never hold together, so Q's step must not be taken alone first.
#[test]
fn a_guard_that_may_err_is_coenabled_with_every_guard() {
    let src = "byte i = 5; byte a[3];
               process Q { state q0, q1; init q0; trans q0 -> q1 { guard i == 5; effect i = 0; }; }
               process P { state p0, p1, p2; init p0;
                 trans p0 -> p1 { }, p1 -> p2 { guard a[i] == 0 && i < 3; }; }
               system async;";
    let m = dve_frontend::load_str("erring guard", src).unwrap();
    assert!(search(build(m, Backend::Interp).model()).error);
    both_backends("erring guard", src);
}

#[test]
fn rendezvous_buffers_and_committed_states() {
    let rendezvous = "byte x; channel c, d;
        process P { state p0, p1, p2; init p0;
          trans p0 -> p1 { sync c!1; }, p1 -> p2 { sync d!x; }, p1 -> p0 { guard x > 2; }; }
        process Q { byte y; state q0, q1; init q0;
          trans q0 -> q1 { sync c?y; }, q1 -> q0 { guard x < 4; effect x = x + y; }; }
        process R { byte z; state r0, r1; init r0;
          trans r0 -> r1 { sync d?z; }, r1 -> r0 { guard z < 5; effect z = z + 1; }; }
        system async;";
    both_backends("rendezvous", rendezvous);
    let buffered = "channel {byte} q[2];
        process S { byte n; state s0, s1; init s0; commit s1;
          trans s0 -> s1 { guard n < 3; sync q!n; }, s1 -> s0 { effect n = n + 1; }; }
        process R { byte v, w; state r0, r1; init r0;
          trans r0 -> r1 { sync q?v; }, r1 -> r0 { guard w < 2; effect w = w + 1; }; }
        process T { byte k; state t0; init t0; trans t0 -> t0 { guard k < 4; effect k = k + 1; }; }
        system async;";
    both_backends("buffered", buffered);
    // Reduced in some states (where S has stopped), though every state stays
    // reachable another way.
    let m = dve_frontend::load_str("buffered", buffered).unwrap();
    let por = Por::new(&m, build(m.clone(), Backend::Interp).into_model());
    search(&por);
    assert!(por.stats().reduced > 0, "{:?}", por.stats());
}

/// The smallest complete instance of every family, up to `MAX_STATES`.
fn sample(beem: &Beem) -> Vec<(String, u64)> {
    let mut best: Vec<(String, String, u64)> = Vec::new();
    for row in beem.instances().unwrap() {
        let Some(states) = row.states.filter(|&s| row.complete && s <= MAX_STATES) else {
            continue;
        };
        match best.iter_mut().find(|b| b.0 == row.family) {
            Some(b) if b.2 <= states => {}
            Some(b) => *b = (row.family, row.instance, states),
            None => best.push((row.family, row.instance, states)),
        }
    }
    best.into_iter().map(|b| (b.1, b.2)).collect()
}

#[test]
fn beem_sample_keeps_deadlocks_and_errors() {
    let beem = beem();
    println!("| instance | full states | reduced states | share |");
    println!("|---|---:|---:|---:|");
    for (instance, beem_states) in sample(&beem) {
        let m = dve_frontend::load_file(&beem.model_path(&instance)).unwrap();
        let (full, reduced) = compare(&instance, &m, Backend::Jit);
        assert_eq!(
            full, beem_states,
            "{instance}: the full search misses BEEM's count"
        );
        assert_eq!(
            compare(&instance, &m, Backend::Interp),
            (full, reduced),
            "{instance}: the backends differ"
        );
        println!(
            "| {instance} | {full} | {reduced} | {:.3} |",
            reduced as f64 / full as f64
        );
    }
}

/// A checked run of `src` with `goals`, reduced by a reducer built for
/// them and the assertions, on `threads` threads.
fn check_por(src: &str, goals: &[&str], search: Search, threads: usize) -> (CheckReport, PorStats) {
    let loaded = dve_frontend::load_str_with(
        "model",
        src,
        &dve_frontend::LoadOptions {
            exprs: goals.iter().map(|g| g.to_string()).collect(),
            ..Default::default()
        },
    )
    .unwrap();
    let model = build(loaded.model.clone(), Backend::Interp).into_model();
    let reducer = Reducer::new(&loaded.model, &loaded.exprs, true);
    let opts = check_options(&loaded.exprs, goals, search);
    let r = check_reduced(model.as_ref(), &loaded.model, &opts, threads, Some(&reducer));
    (r, reducer.stats())
}

fn check_options(exprs: &[ir::Expr], goals: &[&str], search: Search) -> CheckOptions {
    CheckOptions {
        search,
        checks: Checks {
            deadlock: false,
            assert: true,
            error: true,
        },
        goals: exprs
            .iter()
            .zip(goals)
            .map(|(e, g)| Goal {
                text: g.to_string(),
                expr: e.clone(),
            })
            .collect(),
        all_violations: false,
        limits: Default::default(),
        meter: None,
    }
}

const SEARCHES: [(Search, usize); 4] = [
    (Search::Bfs, 1),
    (Search::Bfs, 2),
    (Search::Dfs, 1),
    (Search::Dfs, 2),
];

/// P flips a bit forever, independent of Q, whose one step reaches the
/// goal: the reduced set at P's states is P's step alone, which closes a
/// cycle without Q ever moving (the ignoring problem). The cycle proviso
/// expands a state of that cycle fully.
#[test]
fn the_cycle_proviso_keeps_a_goal_behind_an_ignored_step() {
    let src = "byte x;
               process P { byte t; state a; init a; trans a -> a { effect t = 1 - t; }; }
               process Q { state q0, q1; init q0; trans q0 -> q1 { effect x = 1; }; }
               system async;";
    let goals = ["x == 1"];
    let loaded = dve_frontend::load_str_with(
        "ignoring",
        src,
        &dve_frontend::LoadOptions {
            exprs: vec![goals[0].into()],
            ..Default::default()
        },
    )
    .unwrap();
    // Without the proviso the goal is lost.
    let reducer = Reducer::new(&loaded.model, &loaded.exprs, true);
    assert_eq!(reducer.visible(), 1);
    let por = Por::with_reducer(build(loaded.model.clone(), Backend::Interp).into_model(), reducer);
    let r = check(
        &por,
        &loaded.model,
        &check_options(&loaded.exprs, &goals, Search::Bfs),
    );
    assert_eq!(r.verdict, Verdict::Holds, "{r:?}");
    assert!(por.stats().reduced > 0);
    for (search, threads) in SEARCHES {
        let (r, stats) = check_por(src, &goals, search, threads);
        assert_eq!(r.verdict, Verdict::Violated, "{search:?} {threads}: {r:?}");
        assert!(
            stats.reduced > 0 && stats.proviso > 0,
            "{search:?} {threads}: {stats:?}"
        );
        replays(src, &r);
    }
}

/// Q's assertion fails once P has counted to 2; R runs independently.
#[test]
fn an_assertion_violation_is_found_under_reduction() {
    let src = "byte n;
               process P { state p; init p; trans p -> p { guard n < 3; effect n = n + 1; }; }
               process Q { state q0, q1; init q0; assert q1: n != 2; trans q0 -> q1 { }, q1 -> q0 { }; }
               process R { byte k; state r; init r; trans r -> r { guard k < 5; effect k = k + 1; }; }
               system async;";
    for (search, threads) in SEARCHES {
        let (r, stats) = check_por(src, &[], search, threads);
        assert_eq!(
            r.violation_kind,
            Some(ViolationKind::Assert),
            "{search:?} {threads}: {r:?}"
        );
        assert!(stats.reduced > 0, "{search:?} {threads}: {stats:?}");
        replays(src, &r);
    }
    // The same model with a true assertion: every state is searched, fewer than in full.
    let holds = src.replace("n != 2", "n != 7");
    let (r, _) = check_por(&holds, &[], Search::Bfs, 1);
    assert_eq!(r.verdict, Verdict::Holds);
    assert!(r.counters.states < 4 * 2 * 6, "{}", r.counters.states);
}

/// The counterexample of `r` is a path of the full model.
fn replays(src: &str, r: &CheckReport) {
    let m = dve_frontend::load_str("replay", src).unwrap();
    let model = build(m, Backend::Interp).into_model();
    let trace = &r.first.as_ref().expect("a counterexample").trace;
    trace
        .replay(model.as_ref())
        .unwrap_or_else(|e| panic!("{e}: {r:?}"));
}

/// The instances of the reduced searches' BEEM test: the smallest complete
/// instance of every family up to [`MAX_STATES`], or with
/// `DVEMC_POR_MAX_STATES=N` (`make verify-por`) every complete instance up
/// to N states.
fn por_instances(beem: &Beem) -> Vec<String> {
    match std::env::var("DVEMC_POR_MAX_STATES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        None => sample(beem).into_iter().map(|s| s.0).collect(),
        Some(max) => {
            let mut rows: Vec<_> = beem
                .instances()
                .unwrap()
                .into_iter()
                .filter(|r| r.complete && r.states.is_some_and(|s| s <= max))
                .collect();
            rows.sort_by_key(|r| r.states);
            rows.into_iter().map(|r| r.instance).collect()
        }
    }
}

/// A check of `m` (its successors from `model`, `search` on `threads`
/// threads, every violation counted unless goals are given) reduced by
/// `reducer`, and the deadlock states it met.
fn reduced_check(
    model: &dyn NextState,
    m: &ir::Model,
    reducer: &Reducer,
    (exprs, goals): (&[ir::Expr], &[&str]),
    search: Search,
    threads: usize,
) -> (CheckReport, BTreeSet<Vec<u8>>) {
    let rec = Tapped {
        inner: model,
        tap: Recorder::default(),
    };
    let mut opts = check_options(exprs, goals, search);
    opts.all_violations = goals.is_empty();
    if !goals.is_empty() {
        // A goal's answer alone: which of a run-time error and the goal a
        // search meets first depends on its order, reduced or not.
        opts.checks.error = false;
        opts.checks.assert = false;
    }
    let r = check_reduced(&rec, m, &opts, threads, Some(reducer));
    (r, rec.tap.deadlocks.into_inner().unwrap())
}

/// Every reduced search (BFS and DFS, one and two threads) of every
/// instance keeps the full search's deadlock states and run-time errors,
/// and every reachability property of properties.csv on it gets BEEM's
/// answer (where BEEM's data is not known to be wrong) with a
/// counterexample that replays in the full model.
#[test]
fn beem_reduced_searches_keep_deadlocks_and_reachability_answers() {
    use dvemc_run::model::beem::{Answer, PropertyKind};
    let beem = beem();
    let props = beem.properties().unwrap();
    let mut checked = 0;
    for instance in por_instances(&beem) {
        let path = beem.model_path(&instance);
        let m = dve_frontend::load_file(&path).unwrap();
        let model = build(m.clone(), Backend::Jit).into_model();
        let full = search(model.as_ref());
        let reducer = Reducer::new(&m, &[], true);
        let mut reduced = Vec::new();
        for (search, threads) in SEARCHES {
            let (r, deadlocks) = reduced_check(model.as_ref(), &m, &reducer, (&[], &[]), search, threads);
            reduced.push(r.counters.states);
            let what = format!("{instance} {search:?} {threads}");
            assert_eq!(r.counters.result, Outcome::Complete, "{what}");
            assert!(
                r.counters.states <= full.states,
                "{what}: {} > {}",
                r.counters.states,
                full.states
            );
            assert!(deadlocks == full.deadlocks, "{what}: deadlock states differ");
            assert_eq!(
                r.counters.error_transitions > 0,
                full.error,
                "{what}: error reachability"
            );
        }
        println!(
            "{instance}: {} states, reduced (bfs, bfs 2, dfs, dfs 2) {reduced:?}",
            full.states
        );
        for p in props.iter().filter(|p| {
            p.instance == instance && p.kind == PropertyKind::Reachability && p.beem_answer != Answer::Unknown
        }) {
            if dvemc_run::experiments::verify::known_discrepancy(&p.family, p.prop_id).is_some() {
                continue;
            }
            let goals = [p.formula.as_str()];
            let loaded = dve_frontend::load_file_with(
                &path,
                &dve_frontend::LoadOptions {
                    exprs: vec![p.formula.clone()],
                    ..Default::default()
                },
            )
            .unwrap();
            let model = build(loaded.model.clone(), Backend::Jit).into_model();
            let reducer = Reducer::new(&loaded.model, &loaded.exprs, true);
            for (search, threads) in SEARCHES {
                let (r, _) = reduced_check(
                    model.as_ref(),
                    &loaded.model,
                    &reducer,
                    (&loaded.exprs, &goals),
                    search,
                    threads,
                );
                let what = format!("{instance} property {} {search:?} {threads}", p.prop_id);
                let reached = r.violation_kind == Some(ViolationKind::Goal);
                assert_eq!(reached, p.beem_answer == Answer::Yes, "{what}: {r:?}");
                if let Some(v) = &r.first {
                    v.trace
                        .replay(model.as_ref())
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                checked += 1;
            }
        }
    }
    println!("{checked} reduced property checks");
    assert!(checked > 0);
}

/// The LTL properties with a recorded answer of the smallest instance of
/// every family that has some, up to [`MAX_STATES`] (with
/// `DVEMC_POR_MAX_STATES=N`, of every instance up to N states).
fn ltl_properties(beem: &Beem) -> Vec<dvemc_run::model::beem::PropertyRow> {
    use dvemc_run::model::beem::{Answer, PropertyKind};
    let sizes: std::collections::HashMap<String, u64> = beem
        .instances()
        .unwrap()
        .into_iter()
        .filter(|r| r.complete)
        .filter_map(|r| r.states.map(|s| (r.instance, s)))
        .collect();
    let all = std::env::var("DVEMC_POR_MAX_STATES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let max = all.unwrap_or(MAX_STATES);
    let mut props: Vec<_> = beem
        .properties()
        .unwrap()
        .into_iter()
        .filter(|p| p.kind == PropertyKind::Ltl && p.beem_answer != Answer::Unknown)
        .filter(|p| sizes.get(&p.instance).is_some_and(|&s| s <= max))
        .collect();
    props.sort_by_key(|p| (sizes[&p.instance], p.instance.clone(), p.prop_id));
    if all.is_none() {
        let mut first: std::collections::HashMap<String, String> = Default::default();
        for p in &props {
            first
                .entry(p.family.clone())
                .or_insert_with(|| p.instance.clone());
        }
        props.retain(|p| first[&p.family] == p.instance);
    }
    props
}

/// Every LTL property of [`ltl_properties`], checked on the product reduced
/// in two passes (`ltl_reduced::check`), with one thread (nested DFS) and two
/// (CNDFS), gets BEEM's answer, and every lasso replays in the full product.
#[test]
fn beem_ltl_properties_keep_their_answers_under_reduction() {
    use dvemc_run::model::beem::Answer;
    let beem = beem();
    let mut checked = 0;
    let mut reduced = 0;
    for p in ltl_properties(&beem) {
        let m = dve_frontend::load_file(&beem.property_model_path(&p.instance, p.prop_id)).unwrap();
        let model = build(m.clone(), Backend::Jit).into_model();
        let system = system_view(&m).unwrap();
        let system_model = build(system.clone(), Backend::Jit).into_model();
        for threads in [1, 2] {
            let reducer = Reducer::for_product(&system, &property_guards(&m), false);
            let mut opts = check_options(&[], &[], Search::Ndfs);
            opts.checks = Checks::default();
            let system = System {
                ir: &system,
                model: system_model.as_ref(),
            };
            let r = ltl_reduced::check(model.as_ref(), &m, system, &opts, threads, &reducer);
            let what = format!(
                "{} property {} ({}) on {threads} threads",
                p.instance, p.prop_id, p.formula
            );
            assert!(r.system_states.is_some(), "{what}");
            assert_eq!(r.report.counters.result, Outcome::Complete, "{what}");
            let holds = r.report.verdict == Verdict::Holds;
            assert_eq!(
                holds,
                p.beem_answer == Answer::Yes,
                "{what}: {:?}",
                r.report.verdict
            );
            if let Some(v) = &r.report.first {
                v.trace
                    .replay(model.as_ref())
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            reduced += u64::from(reducer.stats().reduced > 0);
            checked += 1;
        }
    }
    println!("{checked} reduced LTL checks, {reduced} with states cut");
    assert!(checked > 0 && reduced > 0);
}

/// Every reduced DFS path that regenerates a state's successors (the
/// sequential DFS drops its kept lists past a cap) cuts them as the first
/// time: with no kept list at all, the search is the same as with them.
#[test]
fn a_dfs_that_regenerates_successors_cuts_them_the_same_way() {
    use dvemc_run::engine::{dfs, Budget, DfsOptions, Limits, Nothing, Observer, Reduce, StateStore, Store};

    struct Cutting<'r>(&'r Reducer);
    impl<S: Store> Observer<S> for Cutting<'_> {
        fn reducer(&self) -> Option<&dyn Reduce> {
            Some(self.0)
        }
    }
    fn counts<O: Observer<StateStore>>(model: &dyn NextState, keep_bytes: usize, obs: &mut O) -> [u64; 3] {
        let budget = Budget::new(&Limits::default(), std::time::Instant::now());
        let mut store = StateStore::new(model.state_len());
        let opts = DfsOptions {
            keep_bytes,
            ..DfsOptions::new(&budget)
        };
        let r = dfs(model, &mut store, &budget, opts, obs);
        assert_eq!(r.counters.result, Outcome::Complete);
        [store.len() as u64, r.counters.transitions, r.counters.deadlocks]
    }
    let beem = beem();
    for instance in ["lann.2", "brp.2", "phils.3", "bakery.3"] {
        let m = dve_frontend::load_file(&beem.model_path(instance)).unwrap();
        let model = build(m.clone(), Backend::Jit).into_model();
        // The reduction as the search's hook (the checks' path).
        let full = counts(model.as_ref(), usize::MAX, &mut Nothing)[0];
        let kept = counts(
            model.as_ref(),
            usize::MAX,
            &mut Cutting(&Reducer::new(&m, &[], false)),
        );
        let regenerated = counts(model.as_ref(), 0, &mut Cutting(&Reducer::new(&m, &[], false)));
        assert_eq!(regenerated, kept, "{instance}: the hook");
        assert!(kept[0] < full, "{instance}: not reduced ({full} states)");
        // The reduction wrapped around the model (the exhaustive path).
        let fixed = |keep| counts(&Por::fixed(&m, model.as_ref()), keep, &mut Nothing);
        assert_eq!(fixed(0), fixed(usize::MAX), "{instance}: the wrapped model");
    }
}
