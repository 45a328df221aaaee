//! Exhaustive search and safety checks over the ranks of a distributed run
//! (`explore --distributed`, an MPI job): the engine's distributed BFS
//! (`engine::loops::distributed`) into the run record every search gives,
//! with the ranks' figures.
//!
//! Every rank calls the same function and gets the same record; only rank
//! 0 publishes progress (and the command line prints only rank 0's).

use std::time::Instant;

use dve_frontend::ir;
use dve_frontend::model::NextState;

use crate::algo::check::{self, CheckOptions, CheckReport};
use crate::engine::checkpoint::{CheckpointInfo, CheckpointSpec};
use crate::engine::comm::{Comm, Partitioning};
use crate::engine::loops::distributed::checkpoint::distributed_bfs_checkpointed;
use crate::engine::loops::distributed::{distributed_bfs, Distributed, Partition};
use crate::engine::loops::parallel::{NoWatch, Watch};
use crate::engine::store::tree::leaf_order::tree_store_for;
use crate::engine::{Budget, Limits, StateStore, StoreKind};
use crate::output::record::{BfsMetrics, Core, Cost, Details, DistributedMetrics, RunRecord};
use crate::run::exhaustive::ExploreOptions;

/// The stores a rank can keep its states in.
pub fn supports(store: StoreKind) -> bool {
    matches!(store, StoreKind::Exact | StoreKind::Tree)
}

/// This rank's budget under `limits`, and the global state limit (the
/// budget's would be per rank); only rank 0 publishes progress.
fn rank_budget(
    comm: &dyn Comm,
    limits: &Limits,
    meter: Option<crate::engine::progress::Meter>,
) -> (Budget, u64) {
    let per_rank = Limits {
        max_states: None,
        ..*limits
    };
    let meter = if comm.rank() == 0 { meter } else { None };
    let budget = Budget::new(&per_rank, Instant::now()).with_meter(meter);
    (budget, limits.max_states.unwrap_or(u64::MAX))
}

/// The search on this rank, in a store of kind `store`, with the global
/// state limit of `limits` and the rest of them per rank.
fn search<W: Watch>(
    model: &dyn NextState,
    comm: &dyn Comm,
    store: StoreKind,
    limits: &Limits,
    meter: Option<crate::engine::progress::Meter>,
    watch: &W,
    partitioning: Partitioning,
) -> Distributed<W::Found> {
    let (budget, max) = rank_budget(comm, limits, meter);
    let partition = match partitioning {
        Partitioning::Whole => Partition::whole(),
        Partitioning::Local => Partition::choose(model, comm.size()),
    };
    match store {
        StoreKind::Tree => distributed_bfs(
            model,
            comm,
            &mut tree_store_for(model, &budget),
            &budget,
            max,
            watch,
            partition,
        ),
        _ => distributed_bfs(
            model,
            comm,
            &mut StateStore::new(model.state_len()),
            &budget,
            max,
            watch,
            partition,
        ),
    }
}

/// The ranks' figures as the record gives them.
fn metrics<F>(d: &Distributed<F>) -> DistributedMetrics {
    let states = d.run.counters.states.max(1) as f64;
    let messages: u64 = d.ranks.iter().map(|r| r.messages_sent).sum();
    let bytes: u64 = d.ranks.iter().map(|r| r.bytes_sent).sum();
    DistributedMetrics {
        ranks: Some(d.ranks.len() as u64),
        rounds: Some(d.rounds),
        messages_sent: Some(messages),
        bytes_sent: Some(bytes),
        messages_per_state: Some(messages as f64 / states),
        bytes_sent_per_state: Some(bytes as f64 / states),
        wait_s: Some(d.ranks.iter().map(|r| r.wait_s).fold(0.0, f64::max)),
    }
}

/// Store, frontier and peak memory: the sums over the ranks, the peak
/// resident set of the largest rank.
fn cost<F>(d: &Distributed<F>) -> Cost {
    Cost {
        store_bytes: Some(d.run.store_bytes),
        frontier_bytes: Some(d.run.frontier_bytes),
        peak_rss_bytes: d.ranks.iter().map(|r| r.peak_rss_bytes).max().unwrap_or(0),
        ..Cost::default()
    }
}

/// [`crate::run::exhaustive::explore`] over the ranks of `comm` (BFS,
/// exact or tree store), its states spread by `partitioning`.
pub fn explore(
    model: &dyn NextState,
    opts: &ExploreOptions,
    comm: &dyn Comm,
    partitioning: Partitioning,
) -> RunRecord {
    let start = Instant::now();
    let d = search(
        model,
        comm,
        opts.store,
        &opts.limits,
        opts.meter.clone(),
        &NoWatch,
        partitioning,
    );
    explore_record(model, opts, &d, None, start.elapsed().as_secs_f64())
}

/// [`explore`] that goes on from the checkpoint `spec` (every rank's file
/// of it) and writes it if the search stops before its end
/// (`engine::loops::distributed::checkpoint`); the rates count every part.
pub fn explore_checkpointed(
    model: &dyn NextState,
    opts: &ExploreOptions,
    comm: &dyn Comm,
    spec: &CheckpointSpec,
) -> anyhow::Result<RunRecord> {
    let start = Instant::now();
    let (budget, max) = rank_budget(comm, &opts.limits, opts.meter.clone());
    let elapsed = || {
        (
            crate::engine::process_cpu_seconds(),
            start.elapsed().as_secs_f64(),
        )
    };
    let (d, info) = match opts.store {
        StoreKind::Tree => distributed_bfs_checkpointed(
            model,
            comm,
            &budget,
            max,
            || tree_store_for(model, &budget),
            spec,
            &elapsed,
        )?,
        _ => distributed_bfs_checkpointed(
            model,
            comm,
            &budget,
            max,
            || StateStore::new(model.state_len()),
            spec,
            &elapsed,
        )?,
    };
    let time_s = start.elapsed().as_secs_f64() + info.prior_wall_s;
    Ok(explore_record(model, opts, &d, Some(info), time_s))
}

/// The record of an exploring distributed search.
fn explore_record(
    model: &dyn NextState,
    opts: &ExploreOptions,
    d: &Distributed<()>,
    checkpoint: Option<CheckpointInfo>,
    time_s: f64,
) -> RunRecord {
    let mut rec = RunRecord {
        core: Core {
            model: model.info().name.clone(),
            strategy: "bfs".into(),
            config: match opts.store {
                StoreKind::Exact => "bfs --distributed".into(),
                kind => format!("bfs --store {kind} --distributed"),
            },
            store: opts.store.to_string(),
            state_len: model.state_len() as u64,
            ..Core::from(&d.run.counters)
        },
        bfs: Some(BfsMetrics {
            levels: Some(d.run.levels.len() as u64),
            back_level_edges: Some(d.run.back_level_edges),
            max_back_level_edge: Some(d.run.max_back_level_edge),
            max_level_states: Some(d.run.levels.iter().map(|l| l.states).max().unwrap_or(0)),
        }),
        distributed: Some(metrics(d)),
        cost: cost(d),
        details: Details {
            threads: Some(1),
            rank_figures: Some(d.ranks.clone()),
            level_table: opts.level_table.then(|| d.run.levels.clone()),
            checkpoint,
            ..Details::default()
        },
        ..RunRecord::default()
    };
    rec.finish_rates(time_s);
    rec
}

/// A breadth-first [`check::check`] over the ranks of `comm`, and the
/// distributed figures for its record.
pub fn check(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    comm: &dyn Comm,
    store: StoreKind,
    partitioning: Partitioning,
) -> (
    CheckReport,
    DistributedMetrics,
    Cost,
    Vec<crate::engine::loops::distributed::RankFigures>,
) {
    let mut figures = None;
    let report = check::check_on(model, ir, opts, None, |prop, _| {
        let d = search(
            model,
            comm,
            store,
            &opts.limits,
            opts.meter.clone(),
            prop,
            partitioning,
        );
        figures = Some((metrics(&d), cost(&d), d.ranks.clone()));
        (d.run, d.violations, d.first)
    });
    let (m, c, ranks) = figures.expect("the search ran");
    (report, m, c, ranks)
}
