//! Series of runs, each with its own seed, and their summary.

use super::slice::*;
use super::witness::*;
use crate::check::ViolationKind;
use dve_frontend::model::NextState;
use dvemc_engine::rng::run_seeds;
use dvemc_engine::rng::Rng;
use dvemc_engine::Outcome;
use serde::Serialize;
use std::time::Instant;

/// One run of a BBMC series.
#[derive(Clone, Debug, Serialize)]
pub struct SliceRun {
    pub run: usize,
    pub seed: u64,
    pub result: Outcome,
    pub slice_states: u64,
    pub slice_transitions: u64,
    pub single_steps: u64,
    pub back_edges: u64,
    pub jumps: u64,
    pub biased_queues: u64,
    pub queues: u64,
    pub deadlocks: u64,
    pub introduced_sinks: u64,
    pub generated: u64,
    /// Successor entries computed.
    pub successors: u64,
    pub witness: Option<ViolationKind>,
    /// Transitions of the witness trace (stem plus cycle for a lasso).
    pub witness_length: Option<usize>,
    pub time_s: f64,
}

/// A series of seeded slice constructions and witness searches.
#[derive(Clone, Debug, Serialize)]
pub struct BbmcSummary {
    pub algorithm: Algorithm,
    pub breadth: usize,
    pub degrade_depth: Option<u32>,
    pub runs: usize,
    pub seed: u64,
    /// Runs whose slice holds a witness.
    pub witness_found: u64,
    /// `witness_found / runs`: the estimated probability of a witness.
    pub witness_rate: f64,
    pub mean_slice_states: f64,
    pub mean_slice_transitions: f64,
    pub mean_queues: f64,
    pub max_slice_states: u64,
    /// Runs stopped by a limit.
    pub incomplete: u64,
    pub time_s: f64,
    #[serde(skip)]
    pub records: Vec<SliceRun>,
}

pub(crate) fn one_run(
    model: &dyn NextState,
    opts: &SliceOptions,
    targets: &Targets,
    run: usize,
    seed: u64,
) -> (SliceRun, Slice, Option<Witness>) {
    let mut rng = Rng::seeded(seed);
    let slice = build_slice(model, opts, &mut rng);
    let witness = if targets.any() {
        find_witness(&slice, model.info(), targets)
    } else {
        None
    };
    let rec = SliceRun {
        run,
        seed,
        result: slice.result,
        slice_states: slice.len() as u64,
        slice_transitions: slice.edges.len() as u64,
        single_steps: slice.single_steps,
        back_edges: slice.back_edges,
        jumps: slice.jumps,
        biased_queues: slice.biased_queues,
        queues: slice.queues() as u64,
        deadlocks: slice.deadlocks(),
        introduced_sinks: slice.introduced_sinks(),
        generated: slice.generated,
        successors: slice.successors,
        witness: witness.as_ref().map(|w| w.kind),
        witness_length: witness.as_ref().map(|w| w.trace.steps.len()),
        time_s: slice.time_s,
    };
    (rec, slice, witness)
}

/// What [`run_many`] keeps besides the summary: the slice of run 0 and the
/// first run (lowest index) with a witness.
pub struct Kept {
    pub first_slice: Option<Slice>,
    pub witness: Option<(usize, Witness)>,
}

/// Runs `runs` seeded constructions (seeds from [`run_seeds`]) on up to
/// `threads` threads; the figures do not depend on the thread count.
pub fn run_many(
    model: &dyn NextState,
    opts: &SliceOptions,
    targets: &Targets,
    seed: u64,
    runs: usize,
    threads: usize,
) -> (BbmcSummary, Kept) {
    let start = Instant::now();
    let seeds = run_seeds(seed, runs);
    let threads = threads.clamp(1, runs.max(1));
    type Part = (Vec<SliceRun>, Option<Slice>, Option<(usize, Witness)>);
    let results: Vec<Part> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let seeds = &seeds;
                sc.spawn(move || {
                    let mut recs = Vec::new();
                    let mut first = None;
                    let mut wit: Option<(usize, Witness)> = None;
                    for r in (t..seeds.len()).step_by(threads) {
                        let (rec, slice, w) = one_run(model, opts, targets, r, seeds[r]);
                        recs.push(rec);
                        if r == 0 {
                            first = Some(slice);
                        }
                        if let (None, Some(w)) = (&wit, w) {
                            wit = Some((r, w));
                        }
                    }
                    (recs, first, wit)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bbmc worker"))
            .collect()
    });
    let mut records = Vec::with_capacity(runs);
    let mut kept = Kept {
        first_slice: None,
        witness: None,
    };
    for (recs, first, wit) in results {
        records.extend(recs);
        if first.is_some() {
            kept.first_slice = first;
        }
        if let Some((r, w)) = wit {
            if kept.witness.as_ref().is_none_or(|(k, _)| r < *k) {
                kept.witness = Some((r, w));
            }
        }
    }
    records.sort_by_key(|r| r.run);
    let m = runs.max(1) as f64;
    let witness_found = records.iter().filter(|r| r.witness.is_some()).count() as u64;
    let summary = BbmcSummary {
        algorithm: opts.algorithm(),
        breadth: opts.breadth,
        degrade_depth: if opts.total { opts.degrade_depth } else { None },
        runs,
        seed,
        witness_found,
        witness_rate: witness_found as f64 / m,
        mean_slice_states: records.iter().map(|r| r.slice_states as f64).sum::<f64>() / m,
        mean_slice_transitions: records.iter().map(|r| r.slice_transitions as f64).sum::<f64>() / m,
        mean_queues: records.iter().map(|r| r.queues as f64).sum::<f64>() / m,
        max_slice_states: records.iter().map(|r| r.slice_states).max().unwrap_or(0),
        incomplete: records.iter().filter(|r| r.result != Outcome::Complete).count() as u64,
        time_s: start.elapsed().as_secs_f64(),
        records,
    };
    (summary, kept)
}

/// Largest slice [`write_dot`] draws.
pub const DOT_MAX_STATES: usize = 5000;
