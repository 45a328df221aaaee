//! Differential oracles over generated models (`dve-gen`): pairs of
//! searches that must agree, on models BEEM does not have (reachable
//! run-time errors, buffered channels, committed states, arrays indexed
//! by expressions). Each `#[test]` runs one oracle over a fixed range of
//! seeds (the CI sample); a disagreement is reported with its seed and
//! the model shrunk by proptest (replay it with `dvemc gen --seed N`).
//! The ignored test `fuzz` runs every oracle on fresh seeds for
//! `DVEMC_FUZZ_SECONDS` seconds (`make fuzz SECONDS=N`) and prints, per
//! oracle, the models tried and the failures, and what the models cover.
//!
//! The oracles: the JIT against the interpreter (successor lists in
//! order with labels and error flags, fingerprints); full against `--por`
//! (deadlock states as vectors, error reachability, a goal's and the
//! assertions' verdicts, an LTL formula's verdict); the exact store against
//! tree, ctree and compact (counters); one thread against two (BFS
//! counters and levels, DFS counters); nested DFS against CNDFS (LTL
//! verdicts, lassos); a ctree search stopped by memory budgets and resumed
//! from its checkpoint against the search at once; one rank against two
//! (`--distributed`, ranks as threads); and every counterexample of those
//! searches replays in the interpreter.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dve_frontend::interp::Interpreter;
use dve_frontend::ir;
use dve_frontend::ltl::Spec;
use dve_frontend::model::{NextState, SuccBuf};
use dve_frontend::property::{property_guards, system_view};
use dve_frontend::LoadOptions;
use dve_gen::Generated;
use dvemc_run::algo::check::{
    check_reduced, check_threads, CheckOptions, CheckReport, Checks, Goal, Search, Verdict,
};
use dvemc_run::algo::ltl_reduced::{self, System};
use dvemc_run::algo::por::{Por, Reducer, Tapped};
use dvemc_run::engine::checkpoint::CheckpointSpec;
use dvemc_run::engine::comm::{local, Cluster, Partitioning};
use dvemc_run::engine::{Limits, Outcome, StoreKind};
use dvemc_run::model::backend::{build, Backend};
use dvemc_run::output::record::RunRecord;
use dvemc_run::run::exhaustive::{explore, explore_checkpointed, ExploreOptions, Traversal};
use dvemc_run::run::strategy::{Params, Strategy};
use dvemc_run::run::{run, Request};

use common::dvemc::{TempDir, TempFile};
use common::Recorder;

/// Models with more states than this are not checked (counted as too big).
const MAX_STATES: u64 = 30_000;

/// A generated model, loaded.
struct Case {
    seed: u64,
    /// The model's text, goal and LTL formula.
    g: Text,
    /// The model as written (with its property process, if any).
    full: ir::Model,
    /// Without the property process, with the goal compiled.
    plain: ir::Model,
    goal: ir::Expr,
    /// Without the property process, the LTL formula's automaton instead.
    ltl: ir::Model,
}

/// What the reference search found (the interpreter, BFS, exact store).
struct Reference {
    record: RunRecord,
    error: bool,
    /// Whether the model without its property process is as small (the
    /// oracles that search it, without a state limit, need it).
    plain_small: bool,
}

/// A model's text with its goal and LTL formula (generated, or a model
/// kept in `tests/generated/`).
struct Text {
    text: String,
    goal: String,
    ltl: String,
}

impl From<Generated> for Text {
    fn from(g: Generated) -> Text {
        Text {
            text: g.text,
            goal: g.goal,
            ltl: g.ltl,
        }
    }
}

fn load(seed: u64, g: impl Into<Text>) -> Result<Case, String> {
    let g: Text = g.into();
    let err = |e: dve_frontend::LoadError| format!("the model does not load: {e}");
    let full =
        dve_frontend::load_str("gen.dve", &g.text).map_err(|e| format!("the model does not load: {e}"))?;
    let plain = dve_frontend::load_str_with(
        "gen.dve",
        &g.text,
        &LoadOptions {
            ignore_property: true,
            exprs: vec![g.goal.clone()],
            ..Default::default()
        },
    )
    .map_err(err)?;
    let ltl = dve_frontend::load_str_with(
        "gen.dve",
        &g.text,
        &LoadOptions {
            ltl: Some(Spec::Formula {
                text: g.ltl.clone(),
                definitions: vec![],
            }),
            ..Default::default()
        },
    )
    .map_err(err)?;
    Ok(Case {
        seed,
        g,
        full,
        goal: plain.exprs[0].clone(),
        plain: plain.model,
        ltl: ltl.model,
    })
}

fn interp(m: &ir::Model) -> Box<dyn NextState> {
    build(m.clone(), Backend::Interp).into_model()
}

fn bfs(store: StoreKind, threads: usize) -> ExploreOptions {
    ExploreOptions {
        traversal: Traversal::Bfs,
        level_table: true,
        store,
        threads,
        limits: Limits {
            max_states: Some(MAX_STATES),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The reference search of the model as written; `None` when it has more
/// than [`MAX_STATES`] states.
fn reference(c: &Case) -> Option<Reference> {
    let rec = Tapped {
        inner: interp(&c.full),
        tap: Recorder::default(),
    };
    let record = explore(&rec, &bfs(StoreKind::Exact, 1));
    let plain = explore(interp(&c.plain).as_ref(), &bfs(StoreKind::Exact, 1));
    (record.core.result == Outcome::Complete).then(|| Reference {
        record,
        error: rec.tap.error.load(Ordering::Relaxed),
        plain_small: plain.core.result == Outcome::Complete,
    })
}

type Oracle = fn(&Case, &Reference) -> Result<(), String>;

/// Every oracle, by name.
const ORACLES: [(&str, Oracle); 8] = [
    ("jit", jit_is_the_interpreter),
    ("por", por_keeps_deadlocks_errors_and_verdicts),
    ("stores", stores_count_as_the_exact_one),
    ("threads", two_threads_count_as_one),
    ("ndfs-cndfs", cndfs_agrees_with_nested_dfs),
    ("checkpoint", a_resumed_search_is_the_search_at_once),
    ("distributed", two_ranks_count_as_one),
    ("replay", counterexamples_replay),
];

fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

/// The JIT and the interpreter on every reachable state (of the model as
/// written and of its LTL product): the same successor lists (labels,
/// error flags, states, in order) and fingerprints.
fn jit_is_the_interpreter(c: &Case, _: &Reference) -> Result<(), String> {
    for m in [&c.full, &c.ltl] {
        let jit = jit::compile(m).map_err(|e| format!("the JIT: {e}"))?;
        let interp = Interpreter::new(m.clone());
        ensure(jit.initial_vec() == interp.initial_vec(), || {
            "initial states differ".into()
        })?;
        let len = interp.state_len();
        let (mut a, mut b) = (SuccBuf::new(len), SuccBuf::new(len));
        let mut seen = std::collections::HashSet::new();
        let mut queue = vec![interp.initial_vec()];
        seen.insert(queue[0].clone());
        while let Some(s) = queue.pop() {
            jit::differential::compare_state("gen", &interp, &jit, &s, &mut a, &mut b)?;
            for (_, t) in a.iter() {
                if seen.len() as u64 <= MAX_STATES * 4 && seen.insert(t.to_vec()) {
                    queue.push(t.to_vec());
                }
            }
        }
    }
    Ok(())
}

fn options(search: Search, checks: Checks, goals: Vec<Goal>) -> CheckOptions {
    CheckOptions {
        search,
        checks,
        goals,
        all_violations: false,
        // Every search has a budget: a product or a system without its
        // property process may be larger than the model checked first.
        limits: Limits {
            max_states: Some(MAX_STATES * 8),
            ..Default::default()
        },
        meter: None,
    }
}

fn goal(c: &Case) -> Vec<Goal> {
    vec![Goal {
        text: c.g.goal.clone(),
        expr: c.goal.clone(),
    }]
}

const ASSERTS: Checks = Checks {
    deadlock: false,
    assert: true,
    error: false,
};
const NOTHING: Checks = Checks {
    deadlock: false,
    assert: false,
    error: false,
};

/// Models whose reduced search cut some state's successors.
static REDUCED: AtomicU64 = AtomicU64::new(0);

/// Partial-order reduction against the full search: the same deadlock
/// states (as vectors) and error reachability; the goal's verdict and the
/// assertions' (BFS and DFS, one and two threads); the LTL formula's
/// verdict on the product reduced in two passes (one and two threads).
/// Counterexamples replay in the full model.
fn por_keeps_deadlocks_errors_and_verdicts(c: &Case, reference: &Reference) -> Result<(), String> {
    if !reference.plain_small {
        return Ok(());
    }
    let search = |m: &dyn NextState| {
        let rec = Tapped {
            inner: m,
            tap: Recorder::default(),
        };
        let r = explore(&rec, &bfs(StoreKind::Exact, 1));
        (
            r.core.result,
            rec.tap.deadlocks.into_inner().unwrap(),
            rec.tap.error.load(Ordering::Relaxed),
        )
    };
    let full = search(interp(&c.plain).as_ref());
    if full.0 != Outcome::Complete {
        return Ok(()); // larger without its property process
    }
    let por = Por::new(&c.plain, interp(&c.plain));
    let reduced = search(&por);
    if por.stats().reduced > 0 {
        REDUCED.fetch_add(1, Ordering::Relaxed);
    }
    ensure(reduced.0 == Outcome::Complete, || {
        format!("reduced: {:?}", reduced.0)
    })?;
    ensure(reduced.1 == full.1, || {
        format!(
            "deadlock states differ: {} full, {} reduced",
            full.1.len(),
            reduced.1.len()
        )
    })?;
    ensure(reduced.2 == full.2, || {
        format!("error reachable: full {}, reduced {}", full.2, reduced.2)
    })?;
    let model = interp(&c.plain);
    for (checks, goals, what) in [
        (NOTHING, goal(c), "the goal"),
        (ASSERTS, vec![], "the assertions"),
    ] {
        let exprs: Vec<ir::Expr> = goals.iter().map(|g| g.expr.clone()).collect();
        let reducer = Reducer::new(&c.plain, &exprs, true);
        let want = check_threads(
            model.as_ref(),
            &c.plain,
            &options(Search::Bfs, checks, goals.clone()),
            1,
        );
        for (search, threads) in [
            (Search::Bfs, 1),
            (Search::Bfs, 2),
            (Search::Dfs, 1),
            (Search::Dfs, 2),
        ] {
            let r = check_reduced(
                model.as_ref(),
                &c.plain,
                &options(search, checks, goals.clone()),
                threads,
                Some(&reducer),
            );
            ensure(r.verdict == want.verdict, || {
                format!(
                    "{what}, {search:?} on {threads} threads: full {:?}, reduced {:?} ({:?})",
                    want.verdict, r.verdict, r.violation
                )
            })?;
            replays(model.as_ref(), &r).map_err(|e| format!("{what}, {search:?} {threads}: {e}"))?;
        }
    }
    let product_model = interp(&c.ltl);
    let want = check_threads(
        product_model.as_ref(),
        &c.ltl,
        &options(Search::Ndfs, NOTHING, vec![]),
        1,
    );
    // An automaton without transitions (the formula is valid) leaves
    // nothing to reduce: `--por` searches that product whole.
    let Some(system) = system_view(&c.ltl) else {
        return Ok(());
    };
    let system_model = build(system.clone(), Backend::Interp).into_model();
    if want.verdict == Verdict::Unknown {
        return Ok(()); // too large a product
    }
    for threads in [1, 2] {
        let reducer = Reducer::for_product(&system, &property_guards(&c.ltl), false);
        let r = ltl_reduced::check(
            product_model.as_ref(),
            &c.ltl,
            System {
                ir: &system,
                model: system_model.as_ref(),
            },
            &options(Search::Ndfs, NOTHING, vec![]),
            threads,
            &reducer,
        )
        .report;
        ensure(r.verdict == want.verdict, || {
            format!(
                "LTL {} on {threads} threads: full {:?}, reduced {:?}",
                c.g.ltl, want.verdict, r.verdict
            )
        })?;
        if let Some(v) = &r.first {
            common::check_lasso(product_model.as_ref(), &v.trace)
                .map_err(|e| format!("LTL lasso (reduced): {e}"))?;
        }
    }
    Ok(())
}

fn replays(m: &dyn NextState, r: &CheckReport) -> Result<(), String> {
    match &r.first {
        Some(v) => v
            .trace
            .replay(m)
            .map_err(|e| format!("the counterexample does not replay: {e}")),
        None => Ok(()),
    }
}

/// The counters every exact search shares.
fn counters(r: &RunRecord) -> (Outcome, u64, u64, Option<u64>, Option<u64>) {
    (
        r.core.result,
        r.core.states,
        r.core.transitions,
        r.core.deadlocks,
        r.core.error_transitions,
    )
}

fn levels(r: &RunRecord) -> (Option<u64>, String) {
    (
        r.bfs.as_ref().and_then(|g| g.levels),
        serde_json::to_string(&r.details.level_table).unwrap(),
    )
}

/// The tree, ctree and compact stores count as the exact one (BFS).
fn stores_count_as_the_exact_one(c: &Case, reference: &Reference) -> Result<(), String> {
    let model = interp(&c.full);
    let want = counters(&reference.record);
    for store in [StoreKind::Tree, StoreKind::CTree, StoreKind::Compact(64)] {
        let mut r = explore(model.as_ref(), &bfs(store, 1));
        if store.is_probabilistic() && r.core.result == Outcome::Probabilistic {
            r.core.result = Outcome::Complete;
        }
        ensure(counters(&r) == want, || {
            format!("{store}: {:?}, exact {want:?}", counters(&r))
        })?;
        ensure(
            r.bfs.as_ref().and_then(|g| g.levels) == levels(&reference.record).0,
            || format!("{store}: levels differ"),
        )?;
    }
    Ok(())
}

/// Two threads against one: BFS in the exact and the tree store (every
/// counter, the level table), the depth-first-like order (states,
/// transitions, deadlocks, errors).
fn two_threads_count_as_one(c: &Case, reference: &Reference) -> Result<(), String> {
    let model = interp(&c.full);
    let want = (counters(&reference.record), levels(&reference.record));
    for store in [StoreKind::Exact, StoreKind::Tree] {
        let r = explore(model.as_ref(), &bfs(store, 2));
        let got = (counters(&r), levels(&r));
        ensure(got == want, || {
            format!("bfs {store} 2 threads: {got:?}, one {want:?}")
        })?;
    }
    let dfs = |threads| ExploreOptions {
        traversal: Traversal::Dfs,
        ..bfs(StoreKind::Exact, threads)
    };
    let one = counters(&explore(model.as_ref(), &dfs(1)));
    let two = counters(&explore(model.as_ref(), &dfs(2)));
    ensure(one == two, || format!("dfs: 2 threads {two:?}, one {one:?}"))?;
    ensure(one == want.0, || format!("dfs {one:?}, bfs {:?}", want.0))
}

/// Nested DFS (one thread) and CNDFS (two) give the same verdict on the
/// LTL formula's product and on the model's own property process; their
/// lassos replay and pass an accepting state.
fn cndfs_agrees_with_nested_dfs(c: &Case, reference: &Reference) -> Result<(), String> {
    let mut models = Vec::new();
    if reference.plain_small {
        models.push(("ltl", &c.ltl));
    }
    if c.full.property.is_some() {
        models.push(("property process", &c.full));
    }
    for (what, m) in models {
        let model = interp(m);
        let opts = options(Search::Ndfs, NOTHING, vec![]);
        let one = check_threads(model.as_ref(), m, &opts, 1);
        if one.counters.result != Outcome::Complete && one.verdict == Verdict::Unknown {
            continue; // too large a product
        }
        let two = check_threads(model.as_ref(), m, &opts, 2);
        ensure(one.verdict == two.verdict, || {
            format!("{what}: nested DFS {:?}, CNDFS {:?}", one.verdict, two.verdict)
        })?;
        ensure(one.verdict != Verdict::Unknown, || {
            format!("{what}: {:?}", one.counters.result)
        })?;
        for r in [&one, &two] {
            if let Some(v) = &r.first {
                common::check_lasso(model.as_ref(), &v.trace).map_err(|e| format!("{what}: lasso: {e}"))?;
            }
        }
    }
    Ok(())
}

/// Checkpointed searches that were stopped (and resumed) at least once.
static RESUMED: AtomicU64 = AtomicU64::new(0);

/// A ctree search stopped by memory budgets (chosen from the seed) and
/// resumed from its checkpoint each time ends with the counters and
/// levels of the search at once, and removes its checkpoint.
fn a_resumed_search_is_the_search_at_once(c: &Case, reference: &Reference) -> Result<(), String> {
    let model = interp(&c.full);
    let once = explore(model.as_ref(), &bfs(StoreKind::CTree, 1));
    let dir = TempDir::new("gen-ckpt");
    let spec = CheckpointSpec {
        path: dir.join("gen.ckpt"),
        digest: c.seed,
    };
    let mut budget = 2_000 + (c.seed % 64) * 1_000;
    let mut parts = 0u64;
    let result = loop {
        let limited = parts < 8;
        let opts = ExploreOptions {
            limits: Limits {
                memory_bytes: limited.then_some(budget),
                max_states: Some(MAX_STATES),
                ..Default::default()
            },
            ..bfs(StoreKind::CTree, 1)
        };
        let r = match explore_checkpointed(model.as_ref(), &opts, &spec) {
            Ok(r) => r,
            Err(e) => break Err(format!("part {parts}: {e}")),
        };
        let info = r.details.checkpoint.clone().unwrap_or_default();
        if info.resumed_parts != parts {
            break Err(format!("part {parts} says it is part {}", info.resumed_parts));
        }
        parts += 1;
        if !info.saved {
            break Ok(r);
        }
        budget += budget / 2;
    };
    drop(dir);
    let last = result?;
    if parts > 1 {
        RESUMED.fetch_add(1, Ordering::Relaxed);
    }
    ensure(
        (counters(&last), levels(&last)) == (counters(&once), levels(&once)),
        || {
            format!(
                "in {parts} parts: {:?}, at once {:?}",
                counters(&last),
                counters(&once)
            )
        },
    )?;
    ensure(counters(&once) == counters(&reference.record), || {
        "ctree and exact differ".into()
    })
}

/// The distributed BFS on two ranks (threads) against one rank's search:
/// states, transitions, deadlocks, levels, the level table; the ranks
/// agree among themselves. A check for the goal and the errors on two
/// ranks gives the sequential verdict, with a counterexample that replays.
fn two_ranks_count_as_one(c: &Case, reference: &Reference) -> Result<(), String> {
    if !reference.plain_small {
        return Ok(());
    }
    let file = TempFile::new("gen", &c.g.text);
    let req = |checks: Option<Checks>| Request {
        model: Some(file.path().into()),
        strategy: Some(Strategy::Bfs),
        params: Params {
            threads: Some(1),
            store: Some(StoreKind::Exact),
            ..Params::default()
        },
        limits: Limits {
            max_states: Some(MAX_STATES),
            ..Default::default()
        },
        ignore_property: true,
        stats: true,
        goals: if checks.is_some() {
            vec![c.g.goal.clone()]
        } else {
            vec![]
        },
        checks: checks.unwrap_or_default(),
        ..Request::default()
    };
    let key = |r: &RunRecord| {
        (
            counters(r),
            levels(r),
            r.bfs.as_ref().and_then(|g| g.back_level_edges),
        )
    };
    for checks in [
        None,
        Some(Checks {
            deadlock: false,
            assert: true,
            error: true,
        }),
    ] {
        let one = run(&req(checks)).map_err(|e| format!("one rank: {}", e.message))?;
        if one.record.core.result != Outcome::Complete {
            // Larger without its property process: where a state limit
            // stops a search depends on the ranks.
            return Ok(());
        }
        let all = local::run(2, |comm| {
            let r = Request {
                cluster: Some(Cluster(Arc::new(comm), Partitioning::Whole)),
                ..req(checks)
            };
            run(&r).map(|r| (r.record, r.trace))
        });
        let model = interp(&c.plain);
        for (rank, r) in all.into_iter().enumerate() {
            let (rec, trace) = r.map_err(|e| format!("rank {rank}: {}", e.message))?;
            if checks.is_none() {
                ensure(key(&rec) == key(&one.record), || {
                    format!(
                        "rank {rank} of 2: {:?}, one rank {:?}",
                        key(&rec),
                        key(&one.record)
                    )
                })?;
            } else {
                let verdict = |r: &RunRecord| r.core.verdict.clone();
                ensure(verdict(&rec) == verdict(&one.record), || {
                    format!(
                        "check on rank {rank} of 2: {:?}, one rank {:?}",
                        verdict(&rec),
                        verdict(&one.record)
                    )
                })?;
                if let Some(t) = trace {
                    t.replay(model.as_ref())
                        .map_err(|e| format!("rank {rank}: the counterexample does not replay: {e}"))?;
                }
            }
        }
    }
    Ok(())
}

/// Checks for deadlocks, assertions, errors and the goal by every search
/// (BFS, DFS; one and two threads) agree on whether something is violated,
/// and every counterexample replays in the interpreter (the first of BFS
/// and of every violation counted by `--all-violations` too).
fn counterexamples_replay(c: &Case, reference: &Reference) -> Result<(), String> {
    if !reference.plain_small {
        return Ok(());
    }
    let model = interp(&c.plain);
    let all = Checks {
        deadlock: true,
        assert: true,
        error: true,
    };
    // The verdict of BFS on one thread, with every check and with the goal alone.
    let mut want: [Option<Verdict>; 2] = [None, None];
    for (search, threads) in [
        (Search::Bfs, 1),
        (Search::Bfs, 2),
        (Search::Dfs, 1),
        (Search::Dfs, 2),
    ] {
        for checks in [all, NOTHING] {
            let opts = options(search, checks, goal(c));
            let r = check_threads(model.as_ref(), &c.plain, &opts, threads);
            replays(model.as_ref(), &r).map_err(|e| format!("{search:?} {threads}: {e}"))?;
            let want = &mut want[usize::from(checks.deadlock)];
            match *want {
                None => *want = Some(r.verdict),
                Some(v) => ensure(v == r.verdict, || {
                    format!(
                        "{search:?} on {threads} threads, deadlocks checked {}: {:?}, BFS {v:?}",
                        checks.deadlock, r.verdict
                    )
                })?,
            }
        }
    }
    Ok(())
}

/// Runs `oracle` on the model of `seed`; a panic is a failure too.
fn try_oracle(oracle: Oracle, c: &Case, r: &Reference) -> Result<(), String> {
    match catch_unwind(AssertUnwindSafe(|| oracle(c, r))) {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or(p.downcast_ref::<&str>().copied())
                .unwrap_or("?")
        )),
    }
}

/// What one oracle gave on one model: `None` when the model was too big.
fn check_model(oracle: Oracle, seed: u64, g: Generated) -> Option<Result<(), String>> {
    let c = match load(seed, g) {
        Ok(c) => c,
        Err(e) => return Some(Err(e)),
    };
    let r = reference(&c)?;
    Some(try_oracle(oracle, &c, &r))
}

/// The failure on `seed`, with the model shrunk while it fails.
fn report(name: &str, oracle: Oracle, seed: u64, first: String) -> String {
    let (small, tried) = dve_gen::shrink(seed, 500, |g| {
        matches!(check_model(oracle, seed, g.clone()), Some(Err(_)))
    });
    let again = check_model(oracle, seed, small.clone())
        .and_then(|r| r.err())
        .unwrap_or_else(|| first.clone());
    format!(
        "oracle {name}, seed {seed} (dvemc gen --seed {seed}): {first}\n\
         shrunk ({tried} tried): {again}\n{}goal: {}\nltl: {}\n",
        small.text, small.goal, small.ltl
    )
}

/// Runs `oracle` over `seeds` on two threads; fails with every
/// disagreement, shrunk. Returns the models checked (not too big).
fn sample(name: &str, seeds: std::ops::Range<u64>) -> usize {
    let oracle = ORACLES.iter().find(|o| o.0 == name).unwrap().1;
    let seeds: Vec<u64> = seeds.collect();
    let checked = AtomicU64::new(0);
    let problems = common::problems_on_two_threads(&seeds, |&seed| {
        match check_model(oracle, seed, dve_gen::generate(seed)) {
            None => vec![],
            Some(Ok(())) => {
                checked.fetch_add(1, Ordering::Relaxed);
                vec![]
            }
            Some(Err(e)) => vec![report(name, oracle, seed, e)],
        }
    });
    assert!(
        problems.is_empty(),
        "{} failures:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let checked = checked.into_inner() as usize;
    assert!(
        checked * 10 >= seeds.len() * 7,
        "{checked} of {} checked",
        seeds.len()
    );
    checked
}

#[test]
fn jit_and_interpreter() {
    sample("jit", 0..300);
}

#[test]
fn full_and_por() {
    let checked = sample("por", 1000..1150);
    // The reduction cuts something in some of them (not all are vacuous).
    let reduced = REDUCED.load(Ordering::Relaxed) as usize;
    assert!(reduced * 10 >= checked, "{reduced} of {checked} reduced");
}

#[test]
fn exact_and_other_stores() {
    sample("stores", 2000..2300);
}

#[test]
fn one_and_two_threads() {
    sample("threads", 3000..3200);
}

#[test]
fn nested_dfs_and_cndfs() {
    sample("ndfs-cndfs", 4000..4300);
}

#[test]
fn checkpointed_and_uninterrupted() {
    let checked = sample("checkpoint", 5000..5200);
    // Most searches are stopped by their budgets at least once.
    let resumed = RESUMED.load(Ordering::Relaxed) as usize;
    assert!(resumed * 2 >= checked, "{resumed} of {checked} resumed");
}

#[test]
fn one_and_two_ranks() {
    sample("distributed", 6000..6100);
}

#[test]
fn counterexamples_replay_in_the_interpreter() {
    sample("replay", 7000..7200);
}

/// The value of the comment line `// KEY: value` of a kept model.
fn header(text: &str, key: &str) -> Option<String> {
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix(&format!("// {key}: ")).map(str::to_string))
}

/// Every model kept in `tests/generated/` (failures the generator found,
/// shrunk, as `dvemc gen` prints a model, with a line `// oracle: NAME`)
/// passes its oracle.
#[test]
fn kept_models_pass_their_oracles() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/generated");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/generated")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dve"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let field =
            |key| header(&text, key).unwrap_or_else(|| panic!("{}: no `// {key}:` line", path.display()));
        let name = field("oracle");
        let oracle = ORACLES
            .iter()
            .find(|o| o.0 == name)
            .unwrap_or_else(|| panic!("{}: no oracle {name}", path.display()))
            .1;
        let t = Text {
            goal: field("goal"),
            ltl: field("ltl"),
            text,
        };
        let c = load(0, t).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = reference(&c).expect("a small model");
        if let Err(e) = try_oracle(oracle, &c, &r) {
            panic!("{}: oracle {name}: {e}", path.display());
        }
    }
}

/// Counts of the fuzz run.
#[derive(Default)]
struct Tally {
    tried: [u64; ORACLES.len()],
    failed: [u64; ORACLES.len()],
    failures: Vec<String>,
    models: u64,
    too_big: u64,
    /// Checked, but larger without their property process (the oracles
    /// that search that system pass them by).
    plain_big: u64,
    errors: u64,
    deadlocks: u64,
    arrays: u64,
    buffered: u64,
    rendezvous: u64,
    committed: u64,
    asserts: u64,
    property: u64,
    states: u64,
}

/// `make fuzz SECONDS=N`: every oracle on fresh seeds (from the clock, or
/// `DVEMC_FUZZ_SEED`) for `DVEMC_FUZZ_SECONDS` seconds on two threads;
/// prints per oracle the models tried and failed, what the models cover,
/// and every failure shrunk; fails if any oracle failed.
#[test]
#[ignore = "the fuzz driver: make fuzz SECONDS=N"]
fn fuzz() {
    let secs: u64 = std::env::var("DVEMC_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let first: u64 = std::env::var("DVEMC_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                << 20
        });
    let next = AtomicU64::new(first);
    let tally = Mutex::new(Tally::default());
    let end = Instant::now() + Duration::from_secs(secs);
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| {
                while Instant::now() < end {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    let g = dve_gen::generate(seed);
                    let f = g.features();
                    let c = match load(seed, g) {
                        Ok(c) => c,
                        Err(e) => {
                            tally.lock().unwrap().failures.push(format!("seed {seed}: {e}"));
                            continue;
                        }
                    };
                    let Some(r) = reference(&c) else {
                        let mut t = tally.lock().unwrap();
                        t.models += 1;
                        t.too_big += 1;
                        continue;
                    };
                    {
                        let mut t = tally.lock().unwrap();
                        t.models += 1;
                        t.states += r.record.core.states;
                        t.errors += u64::from(r.error);
                        t.plain_big += u64::from(!r.plain_small);
                        t.deadlocks += u64::from(r.record.core.deadlocks.unwrap_or(0) > 0);
                        t.arrays += u64::from(f.arrays);
                        t.buffered += u64::from(f.buffered);
                        t.rendezvous += u64::from(f.rendezvous);
                        t.committed += u64::from(f.committed);
                        t.asserts += u64::from(f.asserts);
                        t.property += u64::from(f.property);
                    }
                    for (i, (name, oracle)) in ORACLES.iter().enumerate() {
                        if Instant::now() >= end {
                            break;
                        }
                        let result = try_oracle(*oracle, &c, &r);
                        let failure = result.err().map(|e| report(name, *oracle, seed, e));
                        let mut t = tally.lock().unwrap();
                        t.tried[i] += 1;
                        if let Some(f) = failure {
                            t.failed[i] += 1;
                            t.failures.push(f);
                        }
                    }
                }
            });
        }
    });
    let t = tally.into_inner().unwrap();
    println!("fuzz: {secs} s from seed {first}");
    println!(
        "checkpoint: {} of the searches were stopped and resumed; por: {} of the reduced searches cut successors",
        RESUMED.load(Ordering::Relaxed),
        REDUCED.load(Ordering::Relaxed)
    );
    println!("| oracle | models tried | failures | models/s |");
    println!("|---|---:|---:|---:|");
    for (i, (name, _)) in ORACLES.iter().enumerate() {
        println!(
            "| {name} | {} | {} | {:.1} |",
            t.tried[i],
            t.failed[i],
            t.tried[i] as f64 / secs as f64
        );
    }
    let checked = t.models - t.too_big;
    println!(
        "models: {} generated, {} over {MAX_STATES} states (not checked), {checked} checked ({} states in all; {} of them larger without their property process); \
         of those checked: {} reach an error, {} have deadlocks, {} arrays, {} rendezvous, {} buffered channels, \
         {} committed states, {} assertions, {} a property process",
        t.models, t.too_big, t.states, t.plain_big, t.errors, t.deadlocks, t.arrays, t.rendezvous, t.buffered, t.committed, t.asserts, t.property
    );
    for f in &t.failures {
        println!("{f}");
    }
    assert!(t.failures.is_empty(), "{} failures", t.failures.len());
}
