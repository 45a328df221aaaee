//! The distributed BFS (`explore --distributed`) against the sequential
//! search and BEEM: on the smallest complete instance of every family with
//! more than 10,000 and at most 300,000 states, with 2 and 3 ranks, in the
//! exact and the tree store, states, transitions, deadlocks, levels (the
//! whole level table) and back-level edges equal the sequential search's,
//! and the states equal instances.csv's. Checks across ranks give the
//! sequential check's verdict and a counterexample as short that replays;
//! the state limit is global and the memory limit holds on every rank;
//! what cannot run distributed is refused.
//!
//! Ranks are threads of this process (`engine::comm::local`) in every
//! build; with the feature `mpi` (`cargo test --release -p harness
//! --features mpi --test distributed`) the same sample runs under `mpirun`
//! with processes for ranks, and Ctrl-C on `mpirun` ends every rank with a
//! record.

mod common;
use common::beem;
use common::dvemc::TempDir;

use std::path::PathBuf;
use std::sync::Arc;

use dvemc_run::algo::check::Checks;
use dvemc_run::engine::comm::{local, Cluster, Partitioning};
use dvemc_run::engine::{LevelStats, Outcome, StoreKind, Trace};
use dvemc_run::model::backend::{build, Backend};
use dvemc_run::model::beem::Beem;
use dvemc_run::output::record::RunRecord;
use dvemc_run::run::strategy::{Params, Strategy};
use dvemc_run::run::{run, ErrorKind, Request};

/// The smallest complete instance of every family with more than 10,000
/// and at most 300,000 states, and its states.
fn sample(beem: &Beem) -> Vec<(String, u64)> {
    let mut best: std::collections::BTreeMap<String, (String, u64)> = Default::default();
    let rows = beem.instances().expect("instances.csv");
    for r in rows {
        if let Some(s) = r.states.filter(|&s| r.complete && s > 10_000 && s <= 300_000) {
            if best.get(&r.family).is_none_or(|b| s < b.1) {
                best.insert(r.family.clone(), (r.instance.clone(), s));
            }
        }
    }
    best.into_values().collect()
}

fn request(model: PathBuf, store: StoreKind) -> Request {
    Request {
        model: Some(model),
        strategy: Some(Strategy::Bfs),
        params: Params {
            threads: Some(1),
            store: Some(store),
            ..Params::default()
        },
        stats: true,
        ..Request::default()
    }
}

/// What must not depend on the number of ranks.
#[derive(Debug, PartialEq)]
struct Counters {
    result: Outcome,
    states: u64,
    transitions: u64,
    deadlocks: Option<u64>,
    levels: Option<u64>,
    back_level_edges: Option<u64>,
    max_back_level_edge: Option<u64>,
    level_table: Option<Vec<LevelStats>>,
}

fn counters(r: &RunRecord) -> Counters {
    let bfs = r.bfs.clone().unwrap_or_default();
    Counters {
        result: r.core.result,
        states: r.core.states,
        transitions: r.core.transitions,
        deadlocks: r.core.deadlocks,
        levels: bfs.levels,
        back_level_edges: bfs.back_level_edges,
        max_back_level_edge: bfs.max_back_level_edge,
        level_table: r.details.level_table.clone(),
    }
}

/// `req` on `ranks` ranks (threads); every rank's record and trace, after
/// checking that they agree.
fn on_ranks(ranks: usize, req: &Request) -> Result<(RunRecord, Option<Trace>), dvemc_run::run::RunError> {
    spread_on_ranks(ranks, req, Partitioning::Whole)
}

/// [`on_ranks`] with the states spread by `spread`.
fn spread_on_ranks(
    ranks: usize,
    req: &Request,
    spread: Partitioning,
) -> Result<(RunRecord, Option<Trace>), dvemc_run::run::RunError> {
    let all = local::run(ranks, |c| {
        let req = Request {
            cluster: Some(Cluster(Arc::new(c), spread)),
            ..req.clone()
        };
        run(&req).map(|r| (r.record, r.trace))
    });
    let first = all[0].clone();
    for (rank, r) in all.iter().enumerate() {
        match (r, &first) {
            (Ok((rec, trace)), Ok((rec0, trace0))) => {
                assert_eq!(counters(rec), counters(rec0), "rank {rank}");
                assert_eq!(trace, trace0, "rank {rank}");
            }
            (Err(e), Err(e0)) => assert_eq!(e.message, e0.message, "rank {rank}"),
            _ => panic!("rank {rank} ended otherwise than rank 0"),
        }
    }
    first
}

#[test]
fn every_family_on_two_and_three_ranks_in_both_stores() {
    let beem = beem();
    let sample = sample(&beem);
    assert!(sample.len() >= 35, "{} families", sample.len());
    let mut rank_figures = 0;
    for (inst, states) in &sample {
        let path = beem.model_path(inst);
        let seq = run(&request(path.clone(), StoreKind::Exact)).expect(inst).record;
        assert_eq!(
            seq.core.states, *states,
            "{inst}: sequential against instances.csv"
        );
        // Both rank counts and both stores; every pair of them under mpirun.
        for (ranks, store) in [(2, StoreKind::Exact), (3, StoreKind::Tree)] {
            let (rec, _) = on_ranks(ranks, &request(path.clone(), store)).expect(inst);
            assert_eq!(
                counters(&rec),
                counters(&seq),
                "{inst}: {ranks} ranks, {store} store"
            );
            let d = rec.distributed.as_ref().expect("distributed figures");
            assert_eq!(d.ranks, Some(ranks as u64));
            let figures = rec.details.rank_figures.as_ref().expect("per-rank figures");
            assert_eq!(
                figures.iter().map(|f| f.states).sum::<u64>(),
                seq.core.states,
                "{inst}: owned states"
            );
            assert!(
                figures.iter().all(|f| f.states > 0),
                "{inst}: a rank owns nothing"
            );
            rank_figures += figures.len();
            assert_eq!(
                rec.core.config,
                format!(
                    "bfs{} --distributed",
                    if store == StoreKind::Tree {
                        " --store tree"
                    } else {
                        ""
                    }
                )
            );
        }
    }
    assert_eq!(rank_figures, sample.len() * 5);
}

#[test]
fn a_local_partition_keeps_the_counts_and_sends_less() {
    let beem = beem();
    let (mut local_bytes, mut state_bytes) = (0, 0);
    for (inst, _) in &sample(&beem) {
        let path = beem.model_path(inst);
        let seq = run(&request(path.clone(), StoreKind::Exact)).expect(inst).record;
        for ranks in [2, 3] {
            let req = request(path.clone(), StoreKind::Exact);
            let (rec, _) = spread_on_ranks(ranks, &req, Partitioning::Local).expect(inst);
            assert_eq!(counters(&rec), counters(&seq), "{inst}: {ranks} ranks, local");
            let figures = rec.details.rank_figures.as_ref().expect("per-rank figures");
            assert_eq!(
                figures.iter().map(|f| f.states).sum::<u64>(),
                seq.core.states,
                "{inst}"
            );
            assert_eq!(rec.core.config, "bfs --distributed --partition local");
            local_bytes += rec
                .distributed
                .as_ref()
                .and_then(|d| d.bytes_sent)
                .expect("bytes sent");
            let (whole, _) = on_ranks(ranks, &req).expect(inst);
            state_bytes += whole
                .distributed
                .as_ref()
                .and_then(|d| d.bytes_sent)
                .expect("bytes sent");
        }
    }
    // Over the sample, most successors stay with their source's rank.
    assert!(
        local_bytes * 2 < state_bytes,
        "local {local_bytes} bytes, state {state_bytes}"
    );
}

/// Two counters and a byte that steps by 100 while below `LIMIT`: a model
/// with a goal (x == 20 and y == 7) and, for a limit of 150, deadlocks;
/// for 250, a run-time error (the byte overflows) and no deadlock.
const COUNTERS: &str = "
byte z;
process P { byte x; state s; init s; trans s -> s { guard x < 30; effect x = x + 1; }; }
process Q { byte y; state s, t; init s;
  trans s -> s { guard y < 9; effect y = y + 1; },
        s -> t { guard y == 9; effect z = z + 1; };
}
process R { byte w; state s; init s; trans s -> s { guard w < LIMIT; effect w = w + 100; }; }
system async;
";

fn model_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dvemc-distributed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn replay(req: &Request, trace: &Trace) {
    let ir = dve_frontend::load_file(req.model.as_ref().unwrap()).unwrap();
    let model = build(ir, Backend::Interp).into_model();
    common::replay(model.as_ref(), trace).expect("the counterexample replays");
}

#[test]
fn checks_across_ranks_give_the_sequential_verdict_and_counterexample_length() {
    let path = model_file("counters.dve", &COUNTERS.replace("LIMIT", "150"));
    let goal = Request {
        goals: vec!["P->x == 20 && Q->y == 7".into()],
        checks: Checks::default(),
        ..request(path.clone(), StoreKind::Exact)
    };
    let deadlock = Request {
        checks: Checks {
            deadlock: true,
            ..Checks::default()
        },
        ..request(path.clone(), StoreKind::Exact)
    };
    let error = Request {
        checks: Checks {
            error: true,
            ..Checks::default()
        },
        ..request(
            model_file("overflow.dve", &COUNTERS.replace("LIMIT", "250")),
            StoreKind::Exact,
        )
    };
    for (what, req) in [("goal", &goal), ("deadlock", &deadlock), ("error", &error)] {
        let seq = run(req).unwrap();
        assert_eq!(seq.record.core.verdict.as_deref(), Some("violated"), "{what}");
        let spreads = [Partitioning::Whole, Partitioning::Local];
        for (ranks, spread) in [1, 2, 3].into_iter().flat_map(|r| spreads.map(|s| (r, s))) {
            let (rec, trace) = spread_on_ranks(ranks, req, spread).unwrap();
            assert_eq!(
                rec.core.verdict, seq.record.core.verdict,
                "{what}, {ranks} ranks, {spread:?}"
            );
            assert_eq!(rec.core.violation_kind, seq.record.core.violation_kind, "{what}");
            assert_eq!(
                rec.core.cex_length, seq.record.core.cex_length,
                "{what}, {ranks} ranks"
            );
            let trace = trace.expect("a counterexample");
            assert_eq!(Some(trace.steps.len() as u64), rec.core.cex_length);
            replay(req, &trace);
        }
    }
    assert_eq!(run(&goal).unwrap().record.core.cex_length, Some(27));
}

#[test]
fn the_state_limit_is_global() {
    let beem = beem();
    let req = Request {
        limits: dvemc_run::engine::Limits {
            max_states: Some(5_000),
            ..Default::default()
        },
        ..request(beem.model_path("adding.2"), StoreKind::Exact)
    };
    for ranks in [2, 3] {
        let (rec, _) = on_ranks(ranks, &req).unwrap();
        assert_eq!(rec.core.result, Outcome::StateLimit);
        assert!(
            rec.core.states > 5_000 && rec.core.states < 200_000,
            "{}",
            rec.core.states
        );
        assert_eq!(rec.exit_code(), 4);
    }
}

/// Every rank's store, parent links and batches (sent and received) stay
/// within its memory budget, at budgets where the batches weigh as much as
/// the store and where the store outweighs them.
#[test]
fn the_memory_limit_holds_on_every_rank() {
    let beem = beem();
    for store in [StoreKind::Exact, StoreKind::Tree] {
        for deadlock in [false, true] {
            for mib in [4, 9, 32] {
                let limit = mib << 20;
                let req = Request {
                    limits: dvemc_run::engine::Limits {
                        memory_bytes: Some(limit),
                        ..Default::default()
                    },
                    checks: Checks {
                        deadlock,
                        ..Checks::default()
                    },
                    ..request(beem.model_path("at.4"), store)
                };
                for ranks in [2, 3] {
                    let what = format!("{store:?}, deadlock {deadlock}, {mib} MiB, {ranks} ranks");
                    let (rec, _) = on_ranks(ranks, &req).unwrap();
                    assert_eq!(rec.core.result, Outcome::MemoryLimit, "{what}");
                    let figures = rec.details.rank_figures.expect("rank figures");
                    assert_eq!(figures.len(), ranks);
                    for f in figures {
                        assert!(f.states > 0, "{what}");
                        let held = f.store_bytes + f.frontier_bytes;
                        assert!(held <= limit, "{what}: rank {} holds {held} bytes", f.rank);
                    }
                }
            }
        }
    }
}

/// `req` writing its checkpoint to `base` (the ranks' files beside it),
/// stopped after `max` states if some.
fn checkpointed(req: &Request, base: &std::path::Path, max: Option<u64>) -> Request {
    Request {
        params: Params {
            checkpoint: Some(base.to_path_buf()),
            ..req.params.clone()
        },
        limits: dvemc_run::engine::Limits {
            max_states: max,
            ..Default::default()
        },
        ..req.clone()
    }
}

fn rank_files(base: &std::path::Path, ranks: usize) -> Vec<bool> {
    (0..ranks)
        .map(|r| PathBuf::from(format!("{}.rank{r}", base.display())).is_file())
        .collect()
}

/// A search stopped twice by its state limit, each time writing one
/// checkpoint per rank, then run to its end from them, has the counters
/// and the level table of the search run at once, in both stores; the
/// search that ends removes the files. Another number of ranks, another
/// store or another model is refused, and so is a set of files of which
/// one is missing.
#[test]
fn a_search_resumed_from_its_ranks_checkpoints_counts_as_one_run() {
    let beem = beem();
    let path = beem.model_path("bakery.4");
    let dir = TempDir::new("distributed-ckpt");
    for store in [StoreKind::Exact, StoreKind::Tree] {
        let req = request(path.clone(), store);
        let (whole, _) = on_ranks(2, &req).unwrap();
        assert_eq!(whole.core.states, 157_003);
        let base = dir.join(format!("{store}.ckpt"));
        for (part, max) in [(0, 50_000), (1, 100_000)] {
            let (rec, _) = on_ranks(2, &checkpointed(&req, &base, Some(max))).unwrap();
            assert_eq!(rec.core.result, Outcome::StateLimit, "{store}, part {part}");
            assert!(rec.core.states > max && rec.core.states < whole.core.states);
            let info = rec.details.checkpoint.clone().expect("checkpoint figures");
            assert!(info.saved);
            assert_eq!(info.resumed_parts, part);
            assert_eq!(rank_files(&base, 2), [true, true]);
        }
        // Refused, the files left as they were.
        let other_store = if store == StoreKind::Exact {
            StoreKind::Tree
        } else {
            StoreKind::Exact
        };
        let refusals = [
            (
                3,
                checkpointed(&req, &base, None),
                "a checkpoint of 2 ranks; this run has 3",
            ),
            (
                2,
                checkpointed(&request(path.clone(), other_store), &base, None),
                &format!("give --store {store}"),
            ),
            (
                2,
                checkpointed(&request(beem.model_path("peterson.3"), store), &base, None),
                "another model",
            ),
        ];
        for (ranks, req, says) in &refusals {
            let e = on_ranks(*ranks, req).map(|_| ()).expect_err(says);
            assert!(e.message.contains(says), "{}", e.message);
        }
        assert_eq!(rank_files(&base, 2), [true, true]);
        let (rec, _) = on_ranks(2, &checkpointed(&req, &base, None)).unwrap();
        assert_eq!(counters(&rec), counters(&whole), "{store}: in three parts");
        let info = rec.details.checkpoint.clone().unwrap();
        assert_eq!((info.resumed_parts, info.saved), (2, false));
        assert_eq!(rank_files(&base, 2), [false, false]);
    }
    // One rank's file missing.
    let req = request(path, StoreKind::Exact);
    let base = dir.join("missing.ckpt");
    on_ranks(2, &checkpointed(&req, &base, Some(50_000))).unwrap();
    std::fs::remove_file(format!("{}.rank1", base.display())).unwrap();
    let e = on_ranks(2, &checkpointed(&req, &base, None))
        .map(|_| ())
        .unwrap_err();
    assert!(e.message.contains("rank1: missing"), "{}", e.message);
}

#[test]
fn what_cannot_run_distributed_is_refused() {
    let beem = beem();
    let path = beem.model_path("adding.1");
    let base = request(path, StoreKind::Exact);
    let mut cases: Vec<(Request, &str)> = vec![
        (
            Request {
                strategy: Some(Strategy::Dfs),
                ..base.clone()
            },
            "breadth-first",
        ),
        (
            Request {
                params: Params {
                    threads: Some(2),
                    ..base.params.clone()
                },
                ..base.clone()
            },
            "mpirun -np N",
        ),
        (
            Request {
                params: Params {
                    store: Some(StoreKind::CTree),
                    ..base.params.clone()
                },
                ..base.clone()
            },
            "--store ctree",
        ),
        (
            Request {
                property: Some(2),
                model: Some(beem.model_path("peterson.2")),
                ..base.clone()
            },
            "on one machine",
        ),
        (
            Request {
                checks: Checks {
                    deadlock: true,
                    ..Checks::default()
                },
                params: Params {
                    checkpoint: Some(std::env::temp_dir().join("dvemc-refused.ckpt")),
                    ..base.params.clone()
                },
                ..base.clone()
            },
            "writes no checkpoint",
        ),
    ];
    // Every other strategy, and the general algorithm, would run whole on
    // each rank.
    cases.push((
        Request {
            strategy: Some(Strategy::Dbdfs),
            ..base.clone()
        },
        "breadth-first",
    ));
    let mut lean = base.params.clone();
    lean.caching.edge_lean = true;
    cases.push((
        Request {
            params: lean,
            ..base.clone()
        },
        "--edge-lean asks for the general algorithm",
    ));
    let checkpointed = Request {
        params: Params {
            checkpoint: Some(std::env::temp_dir().join("dvemc-refused-local.ckpt")),
            ..base.params.clone()
        },
        ..base.clone()
    };
    let e = spread_on_ranks(2, &checkpointed, Partitioning::Local)
        .map(|_| ())
        .expect_err("local and a checkpoint");
    assert_eq!(e.kind, ErrorKind::Usage, "{}", e.message);
    assert!(
        e.message
            .contains("--partition local cannot be combined with --checkpoint"),
        "{}",
        e.message
    );
    for (req, says) in cases {
        let e = on_ranks(2, &req).map(|_| ()).expect_err(says);
        assert_eq!(e.kind, ErrorKind::Usage, "{}", e.message);
        assert!(
            e.message.starts_with("--distributed: ") && e.message.contains(says),
            "{}",
            e.message
        );
    }
}

#[cfg(feature = "mpi")]
mod mpi {
    //! The same under `mpirun`, ranks being processes.

    use super::*;
    use crate::common::dvemc::{stderr, Dvemc, BIN};
    use std::process::{Command, Stdio};

    fn mpirun(np: usize, args: &[&str]) -> Command {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "--allow-run-as-root", "-np", &np.to_string()]);
        c.arg(BIN);
        c.args(["explore", "--distributed", "--json", "--threads", "1"]);
        c.args(args);
        c
    }

    fn record(out: &std::process::Output) -> serde_json::Value {
        let text = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(text.trim()).unwrap_or_else(|e| {
            panic!(
                "{e}: stdout {text:?}, stderr {:?}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// The human report ends with a line per rank, whose states add up to
    /// the run's; without mpirun the search is one rank, and says so.
    #[test]
    fn the_report_has_a_line_per_rank() {
        let model = beem().model_path("adding.1");
        let model = model.to_str().expect("utf-8");
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "--allow-run-as-root", "-np", "3"]);
        c.arg(BIN);
        let out = c
            .args(["explore", model, "--distributed"])
            .output()
            .expect("mpirun");
        let text = String::from_utf8_lossy(&out.stdout);
        let line = |label: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(label))
                .unwrap_or_else(|| panic!("no {label:?} in {text}"))
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("no number after {label:?} in {text}"))
        };
        let ranks: u64 = (0..3).map(|r| line(&format!("rank {r}:"))).sum();
        assert_eq!(ranks, line("states:"), "{text}");
        let alone = Dvemc::new().args(["explore", model, "--distributed"]).run();
        let e = stderr(&alone);
        assert!(e.contains("--distributed: one rank"), "{e}");
    }

    /// Every rank's store, parent links and batches stay within its memory
    /// budget when ranks are processes (what arrives is received into
    /// exactly its size), and the message says the budget is per rank.
    #[test]
    fn the_memory_limit_holds_under_mpirun() {
        let model = beem().model_path("at.4");
        for (np, check) in [(2, "assert"), (3, "deadlock")] {
            for store in ["exact", "tree"] {
                let limit: u64 = 4 << 20;
                let out = mpirun(np, &[model.to_str().expect("utf-8"), "--store", store])
                    .args(["--check", check, "--memory-limit", "4M"])
                    .output()
                    .expect("mpirun");
                let r = record(&out);
                let what = format!("{np} ranks, {store}, {check}");
                assert_eq!(r["result"], "memory_limit", "{what}");
                let e = String::from_utf8_lossy(&out.stderr);
                let says = format!("memory limit of 4.0 MiB per rank reached ({np} ranks)");
                assert!(e.contains(&says), "{what}: {e}");
                let ranks = r["rank_figures"].as_array().expect("rank figures");
                assert_eq!(ranks.len(), np);
                for f in ranks {
                    let held = f["store_bytes"].as_u64().unwrap() + f["frontier_bytes"].as_u64().unwrap();
                    assert!(held <= limit, "{what}: {f}");
                }
            }
        }
    }

    /// The family sample, or with `DVEMC_DISTRIBUTED_MAX_STATES=N` (`make
    /// verify-distributed`) every complete instance of at most N states.
    #[test]
    fn every_family_under_mpirun() {
        let beem = beem();
        let max = std::env::var("DVEMC_DISTRIBUTED_MAX_STATES")
            .ok()
            .map(|v| v.parse::<u64>().expect("a number"));
        let instances: Vec<(String, u64)> = match max {
            None => sample(&beem),
            Some(max) => beem
                .instances()
                .unwrap()
                .into_iter()
                .filter_map(|r| Some((r.instance, r.states.filter(|&s| r.complete && s <= max)?)))
                .collect(),
        };
        let mut runs = 0;
        for (inst, states) in &instances {
            let start = std::time::Instant::now();
            let seq = run(&request(beem.model_path(inst), StoreKind::Exact))
                .expect(inst)
                .record;
            let want = serde_json::to_value(&seq).unwrap();
            for (np, store) in [(2, "exact"), (3, "exact"), (2, "tree"), (3, "tree")] {
                let out = mpirun(np, &[inst, "--store", store]).output().unwrap();
                let got = record(&out);
                assert_eq!(out.status.code(), Some(0), "{inst}, {np} ranks, {store}");
                for k in [
                    "states",
                    "transitions",
                    "deadlocks",
                    "levels",
                    "back_level_edges",
                    "max_back_level_edge",
                ] {
                    assert_eq!(got[k], want[k], "{inst}, {np} ranks, {store}: {k}");
                }
                assert_eq!(got["states"], *states, "{inst}: instances.csv");
                assert_eq!(got["ranks"], np as u64);
                assert_eq!(got["rank_figures"].as_array().map(Vec::len), Some(np));
                runs += 1;
            }
            if max.is_some() {
                println!(
                    "{inst}: {states} states, 4 runs agree ({:.1} s)",
                    start.elapsed().as_secs_f64()
                );
            }
        }
        println!(
            "{} instances, {runs} runs under mpirun agree with the sequential search",
            instances.len()
        );
        assert!(runs >= 4 * 35, "{runs} runs");
    }

    #[test]
    fn a_goal_found_across_ranks_replays() {
        let path = model_file("counters-mpi.dve", &COUNTERS.replace("LIMIT", "150"));
        let out = mpirun(3, &[path.to_str().unwrap(), "--goal", "P->x == 20 && Q->y == 7"])
            .output()
            .unwrap();
        let got = record(&out);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(got["verdict"], "violated");
        assert_eq!(got["cex_length"], 27);
        // The printed trace, step by step, against the interpreter.
        let ir = dve_frontend::load_file(&path).unwrap();
        let model = build(ir, Backend::Interp).into_model();
        let info = model.info().clone();
        let mut state = model.initial_vec();
        let steps = got["trace"]["steps"].as_array().expect("trace steps");
        assert_eq!(steps.len(), 27);
        let mut buf = dve_frontend::model::SuccBuf::new(model.state_len());
        for (i, step) in steps.iter().enumerate() {
            model.successors(&state, &mut buf);
            let next = buf
                .iter()
                .map(|(e, s)| (e, s.to_vec()))
                .find(|(e, s)| {
                    let t = Trace {
                        initial: state.clone(),
                        steps: vec![dvemc_run::engine::Step::new(*e, s)],
                        cycle_start: None,
                    };
                    let j = dvemc_run::output::counterexample::to_json(&info, &t);
                    j["steps"][0]["transition"] == step["transition"]
                        && j["steps"][0]["state"] == step["state"]
                })
                .unwrap_or_else(|| panic!("step {} is not a transition", i + 1));
            state = next.1;
        }
    }

    /// A search stopped by its time limit part after part, each part
    /// writing one checkpoint per rank, ends with the counters of the
    /// search run at once, in both stores; the last part removes the files.
    /// (at.4: large enough that two ranks do not finish it within the
    /// first second.)
    #[test]
    fn a_search_in_parts_of_a_second_under_mpirun_counts_as_one_run() {
        let beem = beem();
        let seq = run(&request(beem.model_path("at.4"), StoreKind::Exact))
            .unwrap()
            .record;
        let want = serde_json::to_value(&seq).unwrap();
        let dir = TempDir::new("mpi-ckpt");
        for store in ["exact", "tree"] {
            let base = dir.join(format!("{store}.ckpt"));
            let args = [
                "at.4",
                "--store",
                store,
                "--checkpoint",
                base.to_str().unwrap(),
                "--time-limit",
                "1",
            ];
            let mut parts = 0;
            let got = loop {
                let out = mpirun(2, &args).output().unwrap();
                let got = record(&out);
                if got["result"] == "complete" {
                    assert_eq!(out.status.code(), Some(0));
                    break got;
                }
                assert_eq!(got["result"], "time_limit", "{store}, part {parts}");
                assert_eq!(got["checkpoint"]["saved"], true);
                assert_eq!(rank_files(&base, 2), [true, true]);
                parts += 1;
                assert!(parts < 30, "{store}: no end in sight");
            };
            assert!(parts > 0, "{store}: never stopped");
            for k in ["states", "transitions", "deadlocks", "levels", "max_level_states"] {
                assert_eq!(got[k], want[k], "{store} in {} parts: {k}", parts + 1);
            }
            assert_eq!(got["checkpoint"]["resumed_parts"], parts);
            assert_eq!(rank_files(&base, 2), [false, false]);
        }
    }

    #[test]
    fn ctrl_c_on_mpirun_ends_every_rank_with_a_record() {
        let beem = beem();
        let inst = beem.model_path("anderson.6");
        let child = mpirun(2, &[inst.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_secs(4));
        // SAFETY: a plain system call on our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        let got = record(&out);
        assert_eq!(got["result"], "interrupted");
        assert!(got["states"].as_u64().unwrap() > 0);
        assert_eq!(got["ranks"], 2);
        // mpirun's own status after a signal is its own (OpenMPI: 1).
        assert!(!out.status.success());
    }
}
