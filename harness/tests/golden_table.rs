//! One golden figure demanded of every exact configuration (in the manner
//! of LTSmin's test suite): every complete BEEM instance of at most 300,000
//! states, explored by each configuration below on both backends, must
//! reach exactly BEEM's state count.
//!
//! The configurations are every one that visits every reachable state:
//! exhaustive BFS and DFS, with the exact and the tree-compressed store
//! (BFS also with the tree store's roots in a compact set, `ctree`), and
//! BFS and the depth-first-like order on 2 and 4 threads (more threads than
//! cores, to shake out races), in the shared exact store and (BFS on 2,
//! the other on 4) the shared tree store; the general state exploring algorithm with
//! BBFS(w) and Alt(b, d) open sets and no cache; state caching with a cache
//! of |S| (with and without the reductions, which keep every state); the
//! sweep-line method (SL, level 0 measure); depth-bounded DFS, sound
//! variants, without a cutoff (threshold also with the tree store); nested DFS on the plain system (no accepting
//! state, so no accepting cycle: it must explore everything).
//!
//! Every configuration runs on the JIT; the interpreter (the oracle, 2-3x
//! slower) runs the ones in [`ON_THE_INTERPRETER_TOO`]: the searches take
//! their successors through the one `NextState` interface whatever the
//! backend, so the others would check the same search code again (and took
//! 70 % of this test's time, the longest of CI's), while these check the
//! interpreter's own figures on whole state spaces (jit/tests/differential.rs
//! compares the two backends successor by successor on every BEEM file's
//! first 20,000 states) and its use by several threads at once.

mod common;
use common::beem;

use std::sync::atomic::{AtomicUsize, Ordering};

use dvemc_run::algo::caching::{CacheSize, Replacement};
use dvemc_run::algo::check::{check, CheckOptions, Checks, Search};
use dvemc_run::algo::dbdfs::{FrontierKind, Variant};
use dvemc_run::model::backend::Backend;
use dvemc_run::model::beem::Beem;
use dvemc_run::run::strategy::{CachingParams, DbdfsParams, Params, Strategy};
use dvemc_run::run::{run, Request};

const MAX_STATES: u64 = 300_000;

/// The last cell of each instance, after [`configurations`].
const NESTED_DFS: &str = "nested dfs";

/// The configurations run on both backends (the rest on the JIT only).
const ON_THE_INTERPRETER_TOO: &[&str] = &["bfs", "dfs", "bfs --threads 4", "dfs --threads 4", NESTED_DFS];

fn configurations() -> Vec<(String, Strategy, Params)> {
    let cache_all = CachingParams {
        cache: Some(CacheSize::Percent(100.0)),
        replacement: Some(Replacement::Stratified(4)),
        ..CachingParams::default()
    };
    let caching = |caching: CachingParams| Params {
        caching,
        ..Params::default()
    };
    let dbdfs = |v: Variant| Params {
        dbdfs: DbdfsParams {
            variant: Some(v),
            frontier: Some(FrontierKind::Tree),
            increment: Some(20),
            ..DbdfsParams::default()
        },
        ..Params::default()
    };
    vec![
        ("bfs".into(), Strategy::Bfs, Params::default()),
        ("dfs".into(), Strategy::Dfs, Params::default()),
        (
            "bfs --store tree".into(),
            Strategy::Bfs,
            Params {
                store: Some(dvemc_run::engine::StoreKind::Tree),
                ..Params::default()
            },
        ),
        (
            "bfs --store ctree".into(),
            Strategy::Bfs,
            Params {
                store: Some(dvemc_run::engine::StoreKind::CTree),
                ..Params::default()
            },
        ),
        (
            "bfs --threads 2".into(),
            Strategy::Bfs,
            Params {
                threads: Some(2),
                ..Params::default()
            },
        ),
        (
            "bfs --threads 4".into(),
            Strategy::Bfs,
            Params {
                threads: Some(4),
                ..Params::default()
            },
        ),
        (
            "dfs --threads 2".into(),
            Strategy::Dfs,
            Params {
                threads: Some(2),
                ..Params::default()
            },
        ),
        (
            "dfs --threads 4".into(),
            Strategy::Dfs,
            Params {
                threads: Some(4),
                ..Params::default()
            },
        ),
        (
            "bfs --store tree --threads 2".into(),
            Strategy::Bfs,
            Params {
                store: Some(dvemc_run::engine::StoreKind::Tree),
                threads: Some(2),
                ..Params::default()
            },
        ),
        (
            "dfs --store tree --threads 4".into(),
            Strategy::Dfs,
            Params {
                store: Some(dvemc_run::engine::StoreKind::Tree),
                threads: Some(4),
                ..Params::default()
            },
        ),
        (
            "dfs --store tree".into(),
            Strategy::Dfs,
            Params {
                store: Some(dvemc_run::engine::StoreKind::Tree),
                ..Params::default()
            },
        ),
        ("bbfs:4".into(), Strategy::Bbfs(Some(4)), Params::default()),
        (
            "alt:2,3".into(),
            Strategy::Alt(Some(2), Some(3)),
            Params::default(),
        ),
        (
            "dfs --cache 100%".into(),
            Strategy::Dfs,
            caching(cache_all.clone()),
        ),
        (
            "bfs --cache 100% --edge-lean --chain-reduction".into(),
            Strategy::Bfs,
            caching(CachingParams {
                edge_lean: true,
                chain_reduction: true,
                ..cache_all
            }),
        ),
        (
            "dfs --sweep-level 0 (sweep-line)".into(),
            Strategy::Dfs,
            caching(CachingParams {
                progress_level: Some(0),
                ..CachingParams::default()
            }),
        ),
        (
            "dbdfs naive-sound".into(),
            Strategy::Dbdfs,
            dbdfs(Variant::NaiveSound),
        ),
        (
            "dbdfs threshold".into(),
            Strategy::Dbdfs,
            dbdfs(Variant::Threshold),
        ),
        (
            "dbdfs threshold --store tree".into(),
            Strategy::Dbdfs,
            Params {
                store: Some(dvemc_run::engine::StoreKind::Tree),
                ..dbdfs(Variant::Threshold)
            },
        ),
    ]
}

/// The states nested DFS explores on the plain system of `instance`.
fn nested_dfs_states(beem: &Beem, instance: &str, backend: Backend) -> Result<u64, String> {
    let model = dve_frontend::load_file(&beem.model_path(instance)).map_err(|e| e.to_string())?;
    let built = dvemc_run::model::backend::build(model.clone(), backend);
    let opts = CheckOptions {
        search: Search::Ndfs,
        checks: Checks::default(),
        goals: Vec::new(),
        all_violations: false,
        limits: Default::default(),
        meter: None,
    };
    let r = check(built.model(), &model, &opts);
    if !r.counters.result.is_complete() || r.violations > 0 {
        return Err(format!(
            "ended {} with {} violations",
            r.counters.result, r.violations
        ));
    }
    Ok(r.counters.states)
}

#[test]
fn every_exact_configuration_gives_beems_state_count() {
    let beem = beem();
    let instances: Vec<(String, u64)> = beem
        .instances()
        .expect("instances.csv")
        .into_iter()
        .filter(|r| r.complete)
        .filter_map(|r| Some((r.instance, r.states?)))
        .filter(|(_, s)| *s <= MAX_STATES)
        .collect();
    assert!(instances.len() >= 100, "{} instances", instances.len());
    let configs = configurations();
    for name in ON_THE_INTERPRETER_TOO {
        assert!(
            *name == NESTED_DFS || configs.iter().any(|(n, _, _)| n == name),
            "{name} is not a configuration"
        );
    }
    let mut cells = Vec::new();
    for (inst, states) in &instances {
        for c in 0..=configs.len() {
            let name = configs.get(c).map_or(NESTED_DFS, |(n, _, _)| n.as_str());
            cells.push((inst.clone(), *states, Backend::Jit, c));
            if ON_THE_INTERPRETER_TOO.contains(&name) {
                cells.push((inst.clone(), *states, Backend::Interp, c));
            }
        }
    }
    let checked = AtomicUsize::new(0);
    let problems = common::problems_on_two_threads(&cells, |(inst, expected, backend, c)| {
        let (name, got) = if *c == configs.len() {
            (NESTED_DFS.to_string(), nested_dfs_states(&beem, inst, *backend))
        } else {
            let (name, strategy, params) = &configs[*c];
            let req = Request {
                model: Some(beem.model_path(inst)),
                strategy: Some(*strategy),
                params: params.clone(),
                backend: *backend,
                ..Request::default()
            };
            let got = match run(&req) {
                Ok(r) if r.record.core.result.is_complete() => Ok(r.record.core.states),
                Ok(r) => Err(format!("ended {}", r.record.core.result)),
                Err(e) => Err(e.to_string()),
            };
            (name.clone(), got)
        };
        checked.fetch_add(1, Ordering::Relaxed);
        match got {
            Ok(s) if s == *expected => vec![],
            Ok(s) => vec![format!("{inst} {name} ({backend}): {s} states, BEEM {expected}")],
            Err(e) => vec![format!("{inst} {name} ({backend}): {e}")],
        }
    });
    assert_eq!(checked.into_inner(), cells.len());
    assert!(
        problems.is_empty(),
        "{} of {} cells differ:\n{}",
        problems.len(),
        cells.len(),
        problems.join("\n")
    );
}
