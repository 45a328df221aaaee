//! Breadth-bounded model checking (`algo::bbmc`): highway and bbmc.

use dve_frontend::model::{ModelInfo, NextState};

use super::{export_refusal, per_run, threads_refusal, workers, Algorithm, Found, Search};
use crate::algo::bbmc::{self, SliceOptions, Targets};
use crate::algo::check::Goal;
use crate::engine::{self, Outcome, Trace};
use crate::output::record::{RunRecord, SliceMetrics};
use crate::output::verdicts::Checked;
use crate::run::request::{Request, RunError};
use crate::run::strategy::{Params, Strategy};

/// highway and bbmc.
pub(super) struct Slices;

impl Algorithm for Slices {
    fn validate(&self, strategy: Strategy, given: &[&str], p: &Params) -> Result<(), String> {
        export_refusal(p, given)?;
        if p.slices.breadth.is_none() {
            return Err(format!(
                "--strategy {strategy} needs a breadth bound: --breadth N"
            ));
        }
        threads_refusal(self, strategy, p)
    }

    fn sequential(&self, strategy: Strategy) -> Option<String> {
        Some(super::runs_side_by_side(strategy))
    }

    fn product_refusal(&self, _: Strategy) -> Option<String> {
        None
    }

    fn run(&self, s: Search<'_>, rec: &mut RunRecord) -> Result<Found, RunError> {
        let ltl = s.ir.property.is_some();
        let trace = slices(s.model, s.info, s.strategy, s.req, s.goals, ltl, rec)?;
        Ok(Found {
            trace,
            reference: None,
        })
    }
}

/// highway and bbmc: seeded slices, a witness search on each, and the BMC
/// baseline.
fn slices(
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
    let witness = kept.witness.map(|(_, w)| w);
    record(rec, &opts, seed, runs, &summary, witness.as_ref(), &bmc);
    Ok(witness.map(|w| w.trace))
}

/// The runs' summary, the first witness and the BMC baseline into the
/// run's record.
fn record(
    rec: &mut RunRecord,
    opts: &SliceOptions,
    seed: u64,
    runs: usize,
    summary: &bbmc::BbmcSummary,
    witness: Option<&bbmc::Witness>,
    bmc: &bbmc::BmcReport,
) {
    let m = runs.max(1) as f64;
    let recs = &summary.records;
    let mean = |f: &dyn Fn(&bbmc::SliceRun) -> f64| recs.iter().map(f).sum::<f64>() / m;
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
    rec.core.witness_kind = witness.map(|w| w.kind.name().to_string());
    let lens: Vec<f64> = recs
        .iter()
        .filter_map(|r| r.witness_length.map(|l| l as f64))
        .collect();
    rec.core.cex_length = witness.map(|w| w.trace.steps.len() as u64);
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
        breadth: Some(opts.breadth as u64),
        degrade_depth: opts.degrade_depth.map(u64::from),
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
}
