//! The randomized searches (`algo::random`): urs, sdrs, rurs, rsdrs,
//! random-walk.

use dve_frontend::model::NextState;

use super::{per_run, threads_refusal, workers, Algorithm, Found, Search};
use crate::algo::bbmc;
use crate::algo::check::Goal;
use crate::algo::random::{self, Algo, Restart, SearchOptions};
use crate::engine::{self, Outcome, Trace};
use crate::output::record::{RandomMetrics, RunRecord};
use crate::run::options::MEMORY_BOUNDED;
use crate::run::request::{Request, RunError};
use crate::run::resolve::known_size;
use crate::run::strategy::{Params, Strategy};

/// urs, sdrs, rurs, rsdrs, random-walk.
pub(super) struct Randomized;

impl Algorithm for Randomized {
    fn validate(&self, strategy: Strategy, given: &[&str], p: &Params) -> Result<(), String> {
        let r = &p.random;
        if let Some(x) = r.mixing {
            if !(0.0..=1.0).contains(&x) {
                return Err("--mixing must be between 0 and 1".into());
            }
        }
        if MEMORY_BOUNDED.contains(&strategy.name()) && r.memory_states.is_none() {
            return Err(format!(
                "--strategy {strategy} needs a memory bound: --memory-states N"
            ));
        }
        if r.stop_when_covered && r.cover_targets.is_empty() {
            return Err("--stop-when-covered needs --cover-targets".into());
        }
        if r.cover_targets.iter().any(|&t| !(t > 0.0 && t <= 100.0)) {
            return Err("--cover-targets: each level is a percentage of |S| above 0 and at most 100".into());
        }
        threads_refusal(self, strategy, p)?;
        if given.contains(&"check") {
            return Err(
                "--check: the randomized searches check reachability goals only (--goal, --property), not deadlocks".into(),
            );
        }
        Ok(())
    }

    fn sequential(&self, strategy: Strategy) -> Option<String> {
        Some(super::runs_side_by_side(strategy))
    }

    fn product_refusal(&self, strategy: Strategy) -> Option<String> {
        Some(format!("--strategy {strategy} explores plain systems"))
    }

    fn run(&self, s: Search<'_>, rec: &mut RunRecord) -> Result<Found, RunError> {
        let trace = randomized(s.model, s.strategy, s.req, s.goals, rec)?;
        Ok(Found {
            trace,
            reference: None,
        })
    }
}

/// urs, sdrs, rurs, rsdrs, random-walk.
fn randomized(
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
    Ok(record(rec, &opts, p, seed, runs, &all, &s))
}

/// The runs and their summary into the run's record; the first run's
/// path to a goal, if one found any.
fn record(
    rec: &mut RunRecord,
    opts: &SearchOptions,
    p: &Params,
    seed: u64,
    runs: usize,
    all: &[random::SearchRun],
    s: &random::SearchSummary,
) -> Option<Trace> {
    let first_goal = all.iter().position(|r| r.goal_step.is_some());
    rec.core.algorithm = Some(opts.algo.name().to_string());
    rec.core.runs = Some(runs as u64);
    rec.core.seed = Some(seed);
    rec.core.stored_peak = Some(s.stored_peak);
    rec.core.states = all.iter().map(|r| r.covered).sum();
    rec.core.transitions = all.iter().map(|r| r.steps).sum();
    let targets = &opts.cover_targets;
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
    if rec.checked.goals {
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
        memory_states: (opts.algo != Algo::RandomWalk).then_some(opts.memory_states as u64),
        restart: Some(
            if opts.algo == Algo::RandomWalk {
                "initial_at_deadlock"
            } else {
                opts.restart.name()
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
    witness
}
