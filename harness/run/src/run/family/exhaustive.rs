//! Exhaustive bfs and dfs: every reachable state, once, on the engine's
//! fast paths (one thread or more, checkpointed, distributed), or a check
//! of the properties asked (deadlocks, assertions, run-time errors, goals,
//! an LTL property's accepting cycles), reduced by `--por` if asked.

use dve_frontend::model::NextState;

use super::{export_refusal, por_refusal, threads_refusal, Algorithm, Found, Search};
use crate::algo::check::{self, CheckOptions, CheckReport, Search as CheckSearch};
use crate::algo::lts::EdgeLog;
use crate::algo::por::{Por, Reducer};
use crate::engine::comm::Partitioning;
use crate::engine::{self, StoreKind};
use crate::model::beem::Beem;
use crate::output::record::{PorMetrics, RunRecord};
use crate::output::verdicts::Checked;
use crate::run::exhaustive::Traversal;
use crate::run::ltl_por::{check_ltl_reduced, ltl_reduction_refusal};
use crate::run::por_check;
use crate::run::request::{Request, RunError};
use crate::run::strategy::{Params, Strategy};
use dve_frontend::property::{property_guards, system_view};

/// bfs and dfs without caching or sweep-line options.
pub(super) struct Exhaustive;

impl Algorithm for Exhaustive {
    fn validate(&self, strategy: Strategy, given: &[&str], p: &Params) -> Result<(), String> {
        if given.contains(&"seed") {
            return Err(format!(
                "--seed: exhaustive {strategy} makes no random choice (the seed drives the cache replacement: give --cache)"
            ));
        }
        // --sweep-level would have made this the general algorithm.
        if p.caching.progress_derivation.is_some() {
            return Err(
                "--sweep-derivation chooses how --sweep-level derives its measure: give --sweep-level too"
                    .into(),
            );
        }
        por_refusal(p, given)?;
        export_refusal(p, given)?;
        if strategy == Strategy::Dfs && p.store.is_some_and(|s| s.is_probabilistic()) {
            return Err(
                "--store compact: hash compaction keeps only the states still to expand, so it serves bfs (a DFS stack goes back to old states)".into(),
            );
        }
        if strategy == Strategy::Dfs && p.store == Some(StoreKind::CTree) {
            return Err(
                "--store ctree: its states have no number, so it serves bfs only (its queue holds them); dfs takes --store tree".into(),
            );
        }
        threads_refusal(self, strategy, p)
    }

    fn sequential(&self, _: Strategy) -> Option<String> {
        None
    }

    fn product_refusal(&self, _: Strategy) -> Option<String> {
        None
    }

    fn run(&self, s: Search<'_>, rec: &mut RunRecord) -> Result<Found, RunError> {
        let mut found = Found::default();
        exhaustive_or_check(s, rec, &mut found)?;
        Ok(found)
    }
}

/// Exhaustive BFS or DFS on the engine's fast paths (`crate::run::exhaustive`),
/// into the run's record.
#[allow(clippy::too_many_arguments)]
fn exhaustive(
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

/// An exhaustive BFS or DFS: a check of the properties asked (assertions,
/// deadlocks, run-time errors, goals, an LTL property's accepting cycles),
/// or a plain exploration when none is; its counterexample into `trace`,
/// BEEM's figures of the instance into `reference` (`--stats`).
fn exhaustive_or_check(s: Search<'_>, rec: &mut RunRecord, found: &mut Found) -> Result<(), RunError> {
    let Search {
        model,
        system,
        ir,
        strategy,
        req,
        p,
        goals,
        has_asserts,
        digest,
        instance,
        stated,
        notes,
        ..
    } = s;
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
            CheckSearch::Ndfs
        } else if strategy == Strategy::Dfs {
            CheckSearch::Dfs
        } else {
            CheckSearch::Bfs
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
            (model, system),
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
        found.trace = r.first.map(|v| v.trace);
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
            found.reference =
                instance.and_then(|i| Beem::locate(req.beem.as_deref()).ok()?.stats(i).ok().flatten());
            if let Some(r) = &found.reference {
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
    (model, system): (&dyn NextState, Option<&dyn NextState>),
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
    if let Some(c) = &req.cluster {
        let store = req.params.store.unwrap_or_default();
        let (r, metrics, cost, ranks) = crate::run::distributed::check(model, ir, opts, &*c.0, store, c.1);
        rec.distributed = Some(metrics);
        rec.details.rank_figures = Some(ranks);
        rec.cost.frontier_bytes = cost.frontier_bytes;
        return r;
    }
    match reducer {
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
            let (r, settled) = check_ltl_reduced(model, ir, opts, threads, system, reducer, notes);
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
        rec.details.checks = Some(crate::run::check_states::of(r, &rec.checked, req));
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
pub(crate) fn distributed_strategy_refusal(strategy: Strategy, p: &Params) -> Result<(), RunError> {
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
