//! The general state exploring algorithm of the state-caching paper
//! (`algo::caching`): bfs and dfs with a caching or sweep-line option,
//! bbfs and alt.

use dve_frontend::model::NextState;

use super::{export_refusal, por_refusal, threads_refusal, Algorithm, Found, Search};
use crate::algo::caching::{
    self, CacheSize, Derivation, Independence, Options as CachingOptions, Order, Progress, Replacement,
};
use crate::engine::{self, StoreKind};
use crate::output::record::{CachingMetrics, RunRecord};
use crate::run::exhaustive::Traversal;
use crate::run::request::{Request, RunError};
use crate::run::resolve::known_size;
use crate::run::strategy::{Family, Params, Strategy};

/// State caching and sweep-line.
pub(super) struct Caching;

/// The general algorithm explores: the property options are refused.
const EXPLORES_ONLY: &str = "the general algorithm (state caching, sweep-line) explores only; drop the caching options to check properties";

impl Algorithm for Caching {
    fn validate(&self, strategy: Strategy, given: &[&str], p: &Params) -> Result<(), String> {
        let c = &p.caching;
        if !c.progress.is_empty() && c.progress_level.is_some() {
            return Err("give --sweep-measure or --sweep-level, not both".into());
        }
        if c.progress_derivation.is_some() && c.progress_level.is_none() {
            return Err(
                "--sweep-derivation chooses how --sweep-level derives its measure: give --sweep-level too"
                    .into(),
            );
        }
        if c.replacement.is_some() && c.cache.is_none() {
            return Err("--replacement needs --cache".into());
        }
        if p.general_algorithm() && matches!(strategy, Strategy::Bfs | Strategy::Dfs) {
            for f in ["goal", "property", "all-violations", "stats", "check"] {
                if given.contains(&f) {
                    return Err(format!("--{f}: {EXPLORES_ONLY}"));
                }
            }
        }
        por_refusal(p, given)?;
        export_refusal(p, given)?;
        if let Some(f) = c.max_visits {
            if !(f > 0.0 && f.is_finite()) {
                return Err("--max-visits must be a positive number".into());
            }
        }
        if p.general_algorithm() && p.store.is_some_and(|s| s != StoreKind::Exact) {
            return Err(
                "--store: the general algorithm (state caching, sweep-line) keeps its own cache; --store applies to exhaustive bfs and dfs, and dbdfs".into(),
            );
        }
        threads_refusal(self, strategy, p)?;
        if p.general_algorithm() && given.contains(&"sample-interval") {
            return Err(
                "--sample-interval: the general algorithm (state caching, sweep-line) does not sample".into(),
            );
        }
        Ok(())
    }

    fn sequential(&self, _: Strategy) -> Option<String> {
        Some("the general algorithm (state caching, sweep-line) is sequential".into())
    }

    fn product_refusal(&self, strategy: Strategy) -> Option<String> {
        let with = if strategy.family() == Family::Caching {
            ""
        } else {
            " with caching options"
        };
        Some(format!("--strategy {strategy}{with} explores plain systems"))
    }

    fn run(&self, s: Search<'_>, rec: &mut RunRecord) -> Result<Found, RunError> {
        general_algorithm(
            s.model,
            s.strategy,
            s.req,
            s.progress_exprs,
            s.independence,
            s.instance,
            rec,
            s.notes,
        )?;
        Ok(Found::default())
    }
}

/// The general state exploring algorithm (state caching, sweep-line).
#[allow(clippy::too_many_arguments)]
fn general_algorithm(
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
    record(&r, &opts, regress_pct, rec);
    Ok(())
}

/// The search's report into the run's record (`regress_pct`: of the
/// measure derived for `--sweep-level`).
fn record(r: &caching::CachingReport, opts: &CachingOptions, regress_pct: Option<f64>, rec: &mut RunRecord) {
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
}
