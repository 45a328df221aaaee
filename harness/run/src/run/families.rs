//! Each strategy family's part of a run: its options from the request, its
//! algorithm, and its figures into the run record.

use dve_frontend::model::{ModelInfo, NextState};

use super::request::*;
use super::resolve::known_size;
use crate::algo::bbmc::{self, SliceOptions, Targets};
use crate::algo::caching::{
    self, CacheSize, Derivation, Independence, Options as CachingOptions, Order, Progress, Replacement,
};
use crate::algo::check::{self, CheckOptions, CheckReport, Goal, Search};
use crate::algo::dbdfs::{self, FrontierKind, Variant};
use crate::algo::lts::EdgeLog;
use crate::algo::por::{Por, Reducer};
use crate::algo::property::{property_guards, system_view};
use crate::algo::random::{self, Algo, Restart, SearchOptions};
use crate::engine::comm::Partitioning;
use crate::engine::{self, Limits, Outcome, Trace};
use crate::model::beem::Beem;
use crate::output::record::{
    CachingMetrics, DbdfsMetrics, PorMetrics, RandomMetrics, RunRecord, SliceMetrics,
};
use crate::output::verdicts::Checked;
use crate::run::exhaustive::Traversal;
use crate::run::ltl_por::{check_ltl_reduced, ltl_reduction_refusal, Stated};
use crate::run::por_check;
use crate::run::strategy::{Params, Strategy};

/// Exhaustive BFS or DFS on the engine's fast paths (`crate::run::exhaustive`),
/// into the run's record.
#[allow(clippy::too_many_arguments)]
pub(crate) fn exhaustive(
    model: &dyn NextState,
    strategy: Strategy,
    req: &Request,
    threads: usize,
    meter: &Option<engine::progress::Meter>,
    checkpoint: Option<engine::checkpoint::CheckpointSpec>,
    log: Option<&EdgeLog>,
    rec: &mut RunRecord,
) -> Result<(), RunError> {
    let opts = crate::run::exhaustive::ExploreOptions {
        traversal: strategy.traversal().expect("an exhaustive strategy"),
        limits: req.limits,
        level_table: true,
        meter: meter.clone(),
        store: req.params.store.unwrap_or_default(),
        threads,
    };
    let r = match &checkpoint {
        None => match &req.cluster {
            Some(c) => crate::run::distributed::explore(model, &opts, &*c.0, c.1),
            None => match log {
                Some(log) => crate::run::exhaustive::explore_logged(model, &opts, log),
                None => crate::run::exhaustive::explore(model, &opts),
            },
        },
        Some(spec) => match &req.cluster {
            Some(c) => crate::run::distributed::explore_checkpointed(model, &opts, &*c.0, spec),
            None => crate::run::exhaustive::explore_checkpointed(model, &opts, spec),
        }
        .map_err(|e| RunError {
            file: Some(spec.path.display().to_string()),
            ..RunError::input(format!("{e:#}"))
        })?,
    };
    let samples = match (req.params.sample_interval, meter) {
        (Some(_), Some(m)) => serde_json::to_value(m.samples(r.core.states, r.core.transitions)).ok(),
        _ => None,
    };
    // What ran, as the caller set it.
    let mut r = r;
    let (c, given) = (&mut r.core, &mut rec.core);
    c.model = std::mem::take(&mut given.model);
    c.instance = given.instance.take();
    c.strategy = std::mem::take(&mut given.strategy);
    c.config = std::mem::take(&mut given.config);
    c.backend = std::mem::take(&mut given.backend);
    c.seed = given.seed;
    r.cost.compile_ms = rec.cost.compile_ms;
    r.cost.setup_rss_bytes = rec.cost.setup_rss_bytes;
    r.details.samples = samples;
    *rec = r;
    Ok(())
}

/// The general state exploring algorithm (state caching, sweep-line).
#[allow(clippy::too_many_arguments)]
pub(crate) fn general_algorithm(
    model: &dyn NextState,
    strategy: Strategy,
    req: &Request,
    progress_exprs: Vec<dve_frontend::ir::Expr>,
    independence: Option<&Independence>,
    instance: Option<&str>,
    rec: &mut RunRecord,
    notes: &mut Vec<String>,
) -> Result<(), RunError> {
    let p = &req.params;
    let order = match strategy {
        Strategy::Bfs => Order::Bfs,
        Strategy::Dfs => Order::Dfs,
        Strategy::Bbfs(w) => Order::Bbfs(w),
        Strategy::Alt(b, d) => Order::Alt(b, d),
        other => unreachable!("{other} is not an order of the general algorithm"),
    };
    let mut size = instance.and_then(|i| known_size(i, req.beem.as_deref()));
    let mut progress: Option<Progress> = (!p.caching.progress.is_empty()).then(|| Progress {
        exprs: progress_exprs,
        names: p.caching.progress.clone(),
    });
    let mut regress_pct = None;
    if let Some(level) = p.caching.progress_level {
        notes.push(format!(
            "exhaustive run to derive the progress measure of level {level}"
        ));
        // Under the run's budgets: the states it reaches count as the run's.
        let g = match caching::sweep::full_graph(model, &req.limits, req.meter.clone()) {
            Ok(g) => g,
            Err(stopped) => {
                // Stopped before the measure could be derived: the
                // exhaustive run's counters are the run's.
                rec.core.result = stopped.result;
                rec.core.states = stopped.states;
                rec.core.transitions = stopped.transitions;
                rec.cost.store_bytes = Some(stopped.bytes);
                rec.cost.peak_rss_bytes = engine::peak_rss_bytes();
                rec.finish_rates(stopped.time_s);
                return Ok(());
            }
        };
        size = Some(g.store.len() as u64);
        let ap = caching::sweep::derive_progress(
            model,
            &g,
            level,
            p.caching.progress_derivation.unwrap_or(Derivation::Projection),
        );
        notes.push(format!(
            "progress measure: ({}) — {} classes, largest {}, {:.2} % regress transitions",
            ap.progress.names.join(", "),
            ap.classes,
            ap.largest_class,
            100.0 * ap.regress
        ));
        regress_pct = Some(100.0 * ap.regress);
        progress = Some(ap.progress);
    }
    if size.is_none() && matches!(p.caching.cache, Some(CacheSize::Percent(_))) {
        notes.push("|S| is not in instances.csv: exhaustive run first".into());
        // Under the run's budgets: the states it reaches count as the run's.
        let r = crate::run::exhaustive::explore(
            model,
            &crate::run::exhaustive::ExploreOptions {
                traversal: Traversal::Bfs,
                limits: req.limits,
                level_table: false,
                meter: req.meter.clone(),
                store: engine::StoreKind::Exact,
                threads: 1,
            },
        );
        if !r.core.result.is_complete() {
            rec.core.result = r.core.result;
            rec.core.states = r.core.states;
            rec.core.transitions = r.core.transitions;
            rec.cost.store_bytes = r.cost.store_bytes;
            rec.cost.frontier_bytes = r.cost.frontier_bytes;
            rec.cost.peak_rss_bytes = r.cost.peak_rss_bytes;
            rec.finish_rates(r.cost.time_s);
            return Ok(());
        }
        size = Some(r.core.states);
    }
    let opts = CachingOptions {
        order,
        cache: p.caching.cache,
        replacement: p.caching.replacement.unwrap_or(Replacement::Random),
        chain_reduction: p.caching.chain_reduction,
        edge_lean: independence,
        progress: progress.as_ref(),
        max_visits_factor: Some(p.caching.max_visits.unwrap_or(5.0)),
        state_space_size: size,
        limits: req.limits,
        meter: req.meter.clone(),
        seed: p.seed.unwrap_or(0),
        track_distinct: true,
        check_invariants: false,
    };
    let r = caching::run(model, &opts, None);
    rec.core.algorithm = Some(
        match (opts.progress.is_some(), opts.cache.is_some()) {
            (false, _) => "state-caching",
            (true, false) => "sweep-line",
            (true, true) => "sweep-line+caching",
        }
        .into(),
    );
    rec.core.result = r.result;
    rec.core.states = r.states;
    rec.core.visits = Some(r.visits);
    rec.core.revisits = Some(r.revisits);
    rec.core.stored_peak = Some(r.stored_peak);
    rec.core.transitions = r.events;
    rec.details.progress = r.progress.clone();
    let mut m = CachingMetrics {
        state_space_size: r.state_space_size,
        cache_size: r.cache_size,
        replacement: r.replacement.clone(),
        chain_reduction: Some(r.chain_reduction),
        edge_lean: Some(r.edge_lean),
        td_peak: Some(r.td_peak),
        events: Some(r.events),
        pruned_events: Some(r.pruned_events),
        evictions: Some(r.deleted),
        persistent: r.persistent,
        largest_class: r.largest_class,
        progress_classes: r.progress_classes,
        regress_pct,
        ..CachingMetrics::default()
    };
    m.s_pct = m.pct(r.cache_size.unwrap_or(r.stored_peak));
    m.v_pct = m.pct(r.visits);
    m.p_pct = r.persistent.and_then(|x| m.pct(x));
    m.l_pct = r.largest_class.and_then(|x| m.pct(x));
    rec.caching = Some(m);
    rec.cost.store_bytes = Some(r.cache_bytes);
    rec.cost.peak_rss_bytes = r.peak_rss_bytes;
    rec.finish_rates(r.time_s);
    Ok(())
}

/// How many of `runs` seeded runs go at once: one a core, or one at a time
/// under `--threads 1` (each run is sequential).
pub(crate) fn workers(p: &Params, runs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    p.threads.unwrap_or(cores).min(runs).max(1)
}

/// The budgets of each of `workers` runs made at once: the memory is
/// shared between them.
pub(crate) fn per_run(limits: &Limits, workers: usize) -> Limits {
    Limits {
        memory_bytes: limits.memory_bytes.map(|m| m / workers.max(1) as u64),
        ..*limits
    }
}

/// highway and bbmc: seeded slices, a witness search on each, and the BMC
/// baseline.
pub(crate) fn slices(
    model: &dyn NextState,
    info: &ModelInfo,
    strategy: Strategy,
    req: &Request,
    goals: Vec<Goal>,
    ltl: bool,
    rec: &mut RunRecord,
) -> Result<Option<Trace>, RunError> {
    let p = &req.params;
    let breadth = p.slices.breadth.unwrap_or(1) as usize;
    let runs = p.runs.unwrap_or(1) as usize;
    let workers = workers(p, runs);
    let opts = SliceOptions {
        breadth,
        total: strategy == Strategy::Bbmc,
        degrade_depth: p.slices.degrade_depth,
        limits: per_run(&req.limits, workers),
        meter: req.meter.clone(),
    };
    let pred = bbmc::goal_predicate(model, &goals);
    let targets = Targets {
        goal: (!goals.is_empty()).then_some(&pred as bbmc::GoalFn),
        // Deadlocks when asked, or when nothing else is.
        deadlock: req.checks.deadlock || (goals.is_empty() && !ltl),
        accepting: ltl,
    };
    rec.checked = Checked {
        deadlock: targets.deadlock,
        goals: targets.goal.is_some(),
        cycles: ltl,
        ..Checked::default()
    };
    let seed = p.seed.unwrap_or(0);
    let (summary, mut kept) = bbmc::run_many(model, &opts, &targets, seed, runs, workers);
    if let (Some(path), Some(slice)) = (&p.export, &kept.first_slice) {
        bbmc::export(path, slice, info).map_err(|e| match e {
            bbmc::ExportError::TooBig(m) => RunError::usage(m),
            bbmc::ExportError::Io(m) => RunError::input(m),
        })?;
    }
    // The slice is not needed any more: its memory goes to the baseline.
    kept.first_slice = None;
    // The baseline runs after the slices, alone: the whole budget.
    let bmc = bbmc::bmc(model, &targets, &req.limits);
    let m = runs.max(1) as f64;
    let recs = &summary.records;
    let mean = |f: &dyn Fn(&bbmc::SliceRun) -> f64| recs.iter().map(f).sum::<f64>() / m;
    let witness = kept.witness;
    rec.core.algorithm = Some(opts.algorithm().name().to_string());
    rec.core.runs = Some(runs as u64);
    rec.core.seed = Some(seed);
    rec.core.result = recs
        .iter()
        .map(|r| r.result)
        .find(|r| !r.is_complete())
        .unwrap_or(Outcome::Complete);
    // Every distinct state each run looked at (slice plus successors
    // considered but not chosen), summed over the runs.
    rec.core.states = recs.iter().map(|r| r.generated).sum();
    rec.core.transitions = recs.iter().map(|r| r.successors).sum();
    rec.core.deadlocks = Some(recs.iter().map(|r| r.deadlocks).sum());
    rec.core.stored_peak = Some(recs.iter().map(|r| r.generated).max().unwrap_or(0));
    rec.core.witness_found = Some(summary.witness_found);
    rec.core.witness_rate = Some(summary.witness_rate);
    rec.core.witness_kind = witness.as_ref().map(|(_, w)| w.kind.name().to_string());
    let lens: Vec<f64> = recs
        .iter()
        .filter_map(|r| r.witness_length.map(|l| l as f64))
        .collect();
    rec.core.cex_length = witness.as_ref().map(|(_, w)| w.trace.steps.len() as u64);
    rec.core.verdict = Some(
        if summary.witness_found > 0 {
            "violated"
        } else {
            "no_witness"
        }
        .into(),
    );
    rec.cost.peak_rss_bytes = engine::peak_rss_bytes();
    rec.slices = Some(SliceMetrics {
        breadth: Some(breadth as u64),
        degrade_depth: p.slices.degrade_depth.map(u64::from),
        incomplete_runs: Some(summary.incomplete),
        slice_states: Some(summary.mean_slice_states),
        slice_transitions: Some(summary.mean_slice_transitions),
        single_steps: Some(mean(&|r| r.single_steps as f64)),
        back_edges: Some(mean(&|r| r.back_edges as f64)),
        jumps: Some(mean(&|r| r.jumps as f64)),
        biased_queues: Some(mean(&|r| r.biased_queues as f64)),
        queues: Some(summary.mean_queues),
        max_slice_states: Some(summary.max_slice_states),
        introduced_sinks: Some(mean(&|r| r.introduced_sinks as f64)),
        witness_length: (!lens.is_empty()).then(|| lens.iter().sum::<f64>() / lens.len() as f64),
        bmc_states: bmc.states,
        bmc_kind: bmc.kind.map(|k| k.name().to_string()),
        bmc_result: Some(bmc.result.name().to_string()),
    });
    rec.finish_rates(summary.time_s);
    Ok(witness.map(|(_, w)| w.trace))
}

/// urs, sdrs, rurs, rsdrs, random-walk.
pub(crate) fn randomized(
    model: &dyn NextState,
    strategy: Strategy,
    req: &Request,
    goals: Vec<Goal>,
    rec: &mut RunRecord,
) -> Result<Option<Trace>, RunError> {
    let p = &req.params;
    let (algo, restart) = match strategy {
        Strategy::Urs => (Algo::Urs, Restart::Stop),
        Strategy::Sdrs => (Algo::Sdrs, Restart::Stop),
        Strategy::Rurs => (Algo::Urs, p.random.restart.unwrap_or(Restart::Initial)),
        Strategy::Rsdrs => (Algo::Sdrs, p.random.restart.unwrap_or(Restart::Initial)),
        _ => (Algo::RandomWalk, Restart::Initial),
    };
    let memory = if algo == Algo::RandomWalk {
        1
    } else {
        p.random.memory_states.unwrap_or(1) as usize
    };
    let runs = p.runs.unwrap_or(1) as usize;
    let workers = workers(p, runs);
    // Coverage levels in states, from |S|.
    let size = rec
        .core
        .instance
        .as_deref()
        .and_then(|i| known_size(i, req.beem.as_deref()));
    if !p.random.cover_targets.is_empty() && size.is_none() {
        return Err(RunError::usage(
            "--cover-targets are percentages of |S|: the model must be a complete BEEM instance (instances.csv)",
        ));
    }
    let targets: Vec<u64> = p
        .random
        .cover_targets
        .iter()
        .map(|&pc| {
            let s = size.unwrap_or(0);
            if pc.fract() == 0.0 {
                (s * pc as u64).div_ceil(100)
            } else {
                ((pc / 100.0) * s as f64).ceil() as u64
            }
        })
        .collect();
    let opts = SearchOptions {
        restart,
        mixing: p.random.mixing,
        successor_choice: p.random.successor_choice.unwrap_or_default(),
        limits: per_run(&req.limits, workers),
        cover_targets: targets.clone(),
        stop_when_covered: p.random.stop_when_covered,
        sample_interval: p.sample_interval.map(std::time::Duration::from_secs_f64),
        meter: req.meter.clone(),
        ..SearchOptions::new(algo, memory, p.random.steps.unwrap_or(1_000_000))
    };
    let pred = bbmc::goal_predicate(model, &goals);
    let goal = (!goals.is_empty()).then_some(&pred as bbmc::GoalFn);
    rec.checked.goals = goal.is_some();
    let seed = p.seed.unwrap_or(0);
    let all = random::run_many(model, &opts, goal, seed, runs, workers);
    let s = random::summarize(&opts, seed, &all);
    let first_goal = all.iter().position(|r| r.goal_step.is_some());
    rec.core.algorithm = Some(algo.name().to_string());
    rec.core.runs = Some(runs as u64);
    rec.core.seed = Some(seed);
    rec.core.stored_peak = Some(s.stored_peak);
    rec.core.states = all.iter().map(|r| r.covered).sum();
    rec.core.transitions = all.iter().map(|r| r.steps).sum();
    if !targets.is_empty() {
        let levels: Vec<serde_json::Value> = (0..targets.len())
            .map(|i| {
                serde_json::json!({
                    "percent": p.random.cover_targets[i],
                    "states": targets[i],
                    "reached": s.cover_reached[i],
                    "mean_steps": s.mean_cover_steps[i],
                    "mean_time_s": s.mean_cover_time_s[i],
                })
            })
            .collect();
        rec.details.cover = Some(serde_json::Value::Array(levels));
    }
    if p.sample_interval.is_some() {
        rec.details.samples = serde_json::to_value(&all[0].samples).ok();
    }
    if !goals.is_empty() {
        rec.core.witness_found = Some(s.goal_found);
        rec.core.witness_rate = Some(s.goal_rate);
    }
    rec.core.verdict = Some(
        if s.goal_found > 0 {
            "violated"
        } else {
            "no_witness"
        }
        .into(),
    );
    let witness = first_goal.and_then(|i| all[i].witness.clone());
    rec.core.witness_kind = witness.as_ref().map(|_| "goal".to_string());
    rec.core.cex_length = witness.as_ref().map(|w| w.steps.len() as u64);
    rec.core.result = all
        .iter()
        .map(|r| r.stop.outcome())
        .find(|o| !o.is_complete())
        .unwrap_or(Outcome::Complete);
    rec.cost.peak_rss_bytes = engine::peak_rss_bytes();
    rec.random = Some(RandomMetrics {
        memory_states: (algo != Algo::RandomWalk).then_some(memory as u64),
        restart: Some(
            if algo == Algo::RandomWalk {
                "initial_at_deadlock"
            } else {
                restart.name()
            }
            .to_string(),
        ),
        mixing: p.random.mixing,
        successor_choice: Some(opts.successor_choice.name().to_string()),
        steps_bound: Some(opts.steps),
        steps: Some(s.steps),
        restarts: Some(s.restarts),
        covered: Some(s.covered),
        redundancy: Some(s.redundancy),
        stop: (runs == 1).then(|| {
            serde_json::to_value(all[0].stop)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        }),
        // Only a run that looked for a goal has one.
        goal_step: first_goal.and_then(|i| all[i].goal_step),
    });
    rec.finish_rates(s.time_s);
    Ok(witness)
}

/// An exhaustive BFS or DFS: a check of the properties asked (assertions,
/// deadlocks, run-time errors, goals, an LTL property's accepting cycles),
/// or a plain exploration when none is; its counterexample into `trace`,
/// BEEM's figures of the instance into `reference` (`--stats`).
#[allow(clippy::too_many_arguments)]
pub(super) fn exhaustive_or_check(
    model: &dyn NextState,
    ir: &dve_frontend::ir::Model,
    strategy: Strategy,
    req: &Request,
    p: &Params,
    goals: Vec<Goal>,
    has_asserts: bool,
    digest: u64,
    instance: Option<&str>,
    stated: Stated<'_>,
    rec: &mut RunRecord,
    trace: &mut Option<Trace>,
    reference: &mut Option<crate::model::beem::StatFile>,
    notes: &mut Vec<String>,
) -> Result<(), RunError> {
    let ltl = ir.property.is_some();
    let meter = req.meter.clone();
    let checking = ltl
        || !goals.is_empty()
        || req.checks.deadlock
        || req.checks.error
        || (req.checks.assert && has_asserts);
    let threads = p.threads.unwrap_or(1);
    if let Some(c) = &req.cluster {
        distributed_refusal(p, ltl, checking, c.1)?;
        if c.0.size() == 1 {
            // Started without a launcher (or a launcher that gave each
            // task its own job): each would search the whole space.
            notes.push(
                "--distributed: one rank; start it with mpirun -np N (or srun with MPI) to search on N"
                    .into(),
            );
        }
    }
    let por = p.por || p.por_check;
    if por && ltl {
        ltl_reduction_refusal(req, p, stated)?;
    }
    if p.export.is_some() && ltl {
        return Err(RunError::usage(
            "--export writes the model's state space, not a product with an LTL property: drop --property or --ltl",
        ));
    }
    let log = p.export.as_ref().map(|_| EdgeLog::new(p.export_state_labels));
    if checking && req.cluster.is_none() && req.params.store.is_some_and(|s| s != engine::StoreKind::Exact) {
        return Err(RunError::input(
            "--store: property checks (deadlocks, assertions, goals, LTL) keep the exact store for now; drop --check, --goal and --property to only explore"
                .to_string(),
        ));
    }
    // --por-check compares the deadlock states even when nothing is checked.
    if checking || p.por_check {
        let search = if ltl {
            Search::Ndfs
        } else if strategy == Strategy::Dfs {
            Search::Dfs
        } else {
            Search::Bfs
        };
        rec.checked = Checked {
            deadlock: req.checks.deadlock,
            assert: req.checks.assert && has_asserts,
            error: req.checks.error,
            goals: !goals.is_empty(),
            cycles: ltl,
        };
        let opts = CheckOptions {
            search,
            checks: req.checks,
            goals,
            all_violations: req.all_violations,
            limits: req.limits,
            meter: meter.clone(),
        };
        let reducer = por.then(|| {
            let exprs: Vec<_> = opts.goals.iter().map(|g| g.expr.clone()).collect();
            match system_view(ir).filter(|_| ltl) {
                Some(system) => {
                    let mut read = property_guards(ir);
                    read.extend(exprs);
                    Reducer::for_product(&system, &read, rec.checked.assert)
                }
                None => Reducer::new(ir, &exprs, rec.checked.assert),
            }
        });
        let r = search_checked(
            model,
            ir,
            &opts,
            threads,
            req,
            p,
            reducer.as_ref(),
            log.as_ref(),
            rec,
            notes,
        );
        record_check(&r, checking, ltl, threads, req, rec);
        *trace = r.first.map(|v| v.trace);
    } else {
        let checkpoint = p
            .checkpoint
            .as_ref()
            .map(|path| engine::checkpoint::CheckpointSpec {
                path: path.clone(),
                digest,
            });
        if por {
            // Nothing to check: the reduction that keeps deadlocks, which
            // needs no proviso, on any search.
            let regenerates = strategy.traversal() == Some(Traversal::Dfs) && threads <= 1;
            let reduced = if regenerates {
                Por::fixed(ir, model)
            } else {
                Por::new(ir, model)
            };
            exhaustive(&reduced, strategy, req, threads, &meter, checkpoint, None, rec)?;
            rec.por = Some(PorMetrics::of(&reduced.report()));
            rec.warn_por_cost();
        } else {
            exhaustive(
                model,
                strategy,
                req,
                threads,
                &meter,
                checkpoint,
                log.as_ref(),
                rec,
            )?;
        }
        if req.stats {
            *reference =
                instance.and_then(|i| Beem::locate(req.beem.as_deref()).ok()?.stats(i).ok().flatten());
            if let Some(r) = &*reference {
                rec.details.beem_reference = serde_json::to_value(r).ok();
            }
        } else {
            rec.details.level_table = None;
        }
    }
    if let (Some(path), Some(log)) = (&p.export, log) {
        notes.push(crate::run::export::write_export(path, log, model, req, rec)?);
    }
    Ok(())
}

/// The property check of an exhaustive run: distributed, compared with the
/// full search (`--por-check`), reduced (under an LTL property in two
/// passes), or plain; the reduction's columns into `rec`.
#[allow(clippy::too_many_arguments)]
fn search_checked(
    model: &dyn NextState,
    ir: &dve_frontend::ir::Model,
    opts: &CheckOptions,
    threads: usize,
    req: &Request,
    p: &Params,
    reducer: Option<&Reducer>,
    log: Option<&EdgeLog>,
    rec: &mut RunRecord,
    notes: &mut Vec<String>,
) -> CheckReport {
    let ltl = ir.property.is_some();
    match reducer {
        _ if req.cluster.is_some() => {
            let c = req.cluster.as_ref().expect("a cluster");
            let store = req.params.store.unwrap_or_default();
            let (r, metrics, cost, ranks) =
                crate::run::distributed::check(model, ir, opts, &*c.0, store, c.1);
            rec.distributed = Some(metrics);
            rec.details.rank_figures = Some(ranks);
            rec.cost.frontier_bytes = cost.frontier_bytes;
            r
        }
        Some(reducer) if p.por_check => {
            let c = por_check::compare(model, ir, opts, threads, reducer, rec.checked);
            notes.extend(c.lines());
            rec.por = Some(PorMetrics {
                por_check: Some(c.differences.first().cloned().unwrap_or_else(|| "agree".into())),
                por_check_full_states: Some(c.full.counters.states),
                por_check_full_transitions: Some(c.full.counters.transitions),
                por_check_full_s: Some(c.full.time_s),
                ..PorMetrics::of(&reducer.report())
            });
            c.reduced
        }
        Some(reducer) if ltl => {
            let (r, settled) = check_ltl_reduced(model, ir, opts, threads, req.backend, reducer, notes);
            let all = PorMetrics::of(&reducer.report());
            rec.por = Some(match settled {
                // The reduced search never ran: no counters of it.
                Some(why) => PorMetrics {
                    por_not_reduced: Some(why),
                    por_groups: all.por_groups,
                    por_groups_may_err: all.por_groups_may_err,
                    por_may_err: all.por_may_err,
                    por_shared: all.por_shared,
                    ..PorMetrics::default()
                },
                None => all,
            });
            r
        }
        Some(reducer) => {
            let r = check::check_reduced(model, ir, opts, threads, Some(reducer));
            rec.por = Some(PorMetrics::of(&reducer.report()));
            r
        }
        None => match log {
            Some(log) => check::check_logged(model, ir, opts, threads, log),
            None => check::check_threads(model, ir, opts, threads),
        },
    }
}

/// A check's report into the run's record.
fn record_check(
    r: &CheckReport,
    checking: bool,
    ltl: bool,
    threads: usize,
    req: &Request,
    rec: &mut RunRecord,
) {
    if threads > 1 {
        rec.details.threads = Some(threads as u64);
    }
    rec.core.strategy = r.strategy.name().to_string();
    rec.core.verdict = Some(r.verdict.name().into());
    rec.core.violation_kind = r.violation_kind.map(|k| k.name().to_string());
    rec.core.violation = r.violation.clone();
    rec.core.violations = Some(r.violations);
    if checking {
        rec.details.checks = Some(super::check_states::of(r, &rec.checked, req));
    } else {
        rec.core.verdict = None;
        rec.core.violations = None;
    }
    rec.core.cex_length = r.cex_length.map(|c| c as u64);
    rec.core.set_counters(&r.counters);
    rec.cost.store_bytes = Some(r.store_bytes);
    rec.cost.peak_rss_bytes = r.peak_rss_bytes;
    rec.finish_rates(r.time_s);
    // Under an LTL property the choice is the first pass's, over
    // another graph than the one searched: no comparison holds.
    if !ltl {
        rec.warn_por_cost();
    }
}

/// Why a distributed run cannot take this strategy: every other strategy,
/// and the general algorithm, would run whole on each rank.
pub(super) fn distributed_strategy_refusal(strategy: Strategy, p: &Params) -> Result<(), RunError> {
    let why = if strategy != Strategy::Bfs {
        format!("the distributed search is breadth-first: give --strategy bfs, not {strategy}")
    } else if let Some(option) = p.general_option() {
        format!("{option} asks for the general algorithm (state caching, sweep-line), which runs on one machine: drop one of them")
    } else {
        return Ok(());
    };
    Err(RunError::usage(format!("--distributed: {why}")))
}

/// Why a distributed run cannot take these options (`None`: it can).
fn distributed_refusal(
    p: &Params,
    ltl: bool,
    checking: bool,
    partitioning: Partitioning,
) -> Result<(), RunError> {
    let why: String = if ltl {
        "the model has a property process (LTL): accepting cycles are sought on one machine (nested DFS, or CNDFS with --threads), not across ranks".into()
    } else if p.threads.is_some_and(|t| t > 1) {
        "each rank runs one thread: start more ranks (mpirun -np N) instead of --threads".into()
    } else if let Some(s) = p.store.filter(|&s| !crate::run::distributed::supports(s)) {
        format!("each rank keeps its states in the exact or the tree store (--store exact or tree), not --store {s}")
    } else if p.checkpoint.is_some() && checking {
        "a search that checks properties writes no checkpoint: drop --checkpoint, or the checks (--check none, no --goal or --property)".into()
    } else if p.por || p.por_check {
        "partial-order reduction runs on one machine (--por is not distributed)".into()
    } else if p.checkpoint.is_some() && partitioning == Partitioning::Local {
        "--partition local cannot be combined with --checkpoint (a checkpoint does not record the bytes chosen): drop one of them".into()
    } else {
        return Ok(());
    };
    Err(RunError::usage(format!("--distributed: {why}")))
}

/// Iterative depth-bounded DFS (`algo::dbdfs`) into the run's record.
pub(super) fn depth_bounded(
    model: &dyn NextState,
    req: &Request,
    p: &Params,
    rec: &mut RunRecord,
) -> Result<(), RunError> {
    let meter = req.meter.clone();
    let opts = dbdfs::Options {
        depth_cutoff: p.dbdfs.depth_cutoff,
        increment: p.dbdfs.increment.unwrap_or(50),
        variant: p.dbdfs.variant.unwrap_or(Variant::Threshold),
        frontier: p.dbdfs.frontier.unwrap_or(FrontierKind::Tree),
        limits: req.limits,
        meter: meter.clone(),
        record_frontiers: false,
        verify_rebuild: false,
        store: p.store.unwrap_or_default(),
    };
    let r = dbdfs::dbdfs(model, &opts).map_err(RunError::usage)?;
    rec.core.store = opts.store.to_string();
    rec.core.result = r.result;
    rec.core.states = r.states;
    rec.core.expansions = Some(r.expansions);
    rec.core.revisits = Some(r.revisits);
    rec.core.transitions = r.transitions;
    rec.core.max_depth = Some(r.max_depth_explored as u64);
    rec.details.frontier_sizes = Some(r.frontier_sizes.clone());
    rec.cost.store_bytes = Some(r.store_bytes + r.table_bytes);
    rec.cost.frontier_bytes = Some(r.frontier_bytes);
    rec.cost.peak_rss_bytes = r.peak_rss_bytes;
    rec.details.iterations = serde_json::to_value(&r.iterations).ok();
    rec.dbdfs = Some(DbdfsMetrics {
        dbdfs: Some(r.dbdfs.to_string()),
        frontier: Some(r.frontier.to_string()),
        depth_cutoff: r.depth_cutoff.map(u64::from),
        increment: Some(r.increment as u64),
        state_space_exhausted: Some(r.state_space_exhausted),
        get_state_time_s: Some(r.get_state_time_s),
        replay_steps: Some(r.replay_steps),
    });
    rec.finish_rates(r.time_s);
    Ok(())
}
