//! `bench compare`: a results file against a baseline (what `make
//! check-regressions` runs).
//!
//! - Every cell of the baseline must be in the current file and the other
//!   way round (a new cell needs a new baseline).
//! - Every deterministic column ([`DETERMINISTIC`]: result, states,
//!   transitions, stored, visits, revisits, ...) must be equal.
//! - Speed ratios measured inside one run — states per second on a backend
//!   other than `interp` over the same cell's on `interp`, geometric mean
//!   per strategy over the cells whose `interp` search in the baseline takes
//!   at least [`MIN_RATIO_SECONDS`] — must not fall more than `tolerance` (default
//!   30 %) below the baseline's. Absolute speeds are not compared: they
//!   depend on the machine.

use std::collections::BTreeMap;

use super::schema::{Row, Table, DETERMINISTIC};
use crate::engine::Outcome;

/// The reference backend of speed ratios.
pub const REFERENCE_BACKEND: &str = "interp";

#[derive(Debug, Default)]
pub struct Comparison {
    pub cells: usize,
    pub ratios: usize,
    /// One line per speed ratio: current against baseline.
    pub ratio_lines: Vec<String>,
    pub problems: Vec<String>,
}

impl Comparison {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Cells whose `interp` search in the baseline is shorter than this give
/// no speed ratio: their timings are mostly noise. (The baseline decides,
/// so that the cells of a ratio are the same in every run.)
pub const MIN_RATIO_SECONDS: f64 = 0.1;

/// (spec with arguments, backend) → (instance, seed) → (ratio of states per
/// second to `interp`'s, `interp`'s search seconds), for complete cells.
/// (instance, spec with arguments, seed) → backend → (states/s, search s).
type Speeds = BTreeMap<(String, String, String), BTreeMap<String, (f64, f64)>>;

type CellRatios = BTreeMap<(String, String), BTreeMap<(String, String), (f64, f64)>>;

fn cell_ratios(t: &Table) -> CellRatios {
    // (instance, spec args, seed) -> backend -> (states/s, search s)
    let mut by_cell = Speeds::new();
    for r in &t.rows {
        if r.get("result") != Outcome::Complete.name() {
            continue;
        }
        let (Some(sps), Some(secs)) = (r.num("states_per_s"), r.num("time_s")) else {
            continue;
        };
        if sps <= 0.0 {
            continue;
        }
        let spec = if r.get("args").is_empty() {
            r.get("spec").to_string()
        } else {
            format!("{} {}", r.get("spec"), r.get("args"))
        };
        by_cell
            .entry((r.get("instance").to_string(), spec, r.get("seed").to_string()))
            .or_default()
            .insert(r.get("backend").to_string(), (sps, secs));
    }
    let mut out = CellRatios::new();
    for ((instance, spec, seed), backends) in by_cell {
        let Some(&(base, base_s)) = backends.get(REFERENCE_BACKEND) else {
            continue;
        };
        for (b, (sps, _)) in backends {
            if b != REFERENCE_BACKEND {
                out.entry((spec.clone(), b))
                    .or_default()
                    .insert((instance.clone(), seed.clone()), (sps / base, base_s));
            }
        }
    }
    out
}

fn geomean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

pub fn compare(current: &Table, baseline: &Table, tolerance: f64) -> Comparison {
    let mut c = Comparison {
        cells: baseline.rows.len(),
        ..Comparison::default()
    };
    let cur = current.by_key();
    let base = baseline.by_key();
    let mut keys: Vec<&str> = base.keys().copied().collect();
    keys.sort();
    for k in &keys {
        let b: &Row = base[k];
        let Some(r) = cur.get(k) else {
            c.problems
                .push(format!("{k}: in the baseline but not in this run"));
            continue;
        };
        for col in DETERMINISTIC {
            let (want, got) = (b.get(col), r.get(col));
            if want != got {
                c.problems
                    .push(format!("{k}: {col} is {} (baseline {})", show(got), show(want)));
            }
        }
    }
    let mut extra: Vec<&str> = cur.keys().filter(|k| !base.contains_key(*k)).copied().collect();
    extra.sort();
    for k in extra {
        c.problems.push(format!(
            "{k}: not in the baseline (update the baseline when the matrix changes)"
        ));
    }
    let (rc, rb) = (cell_ratios(current), cell_ratios(baseline));
    for ((spec, backend), cells) in &rb {
        let cells: Vec<(&(String, String), f64)> = cells
            .iter()
            .filter(|(_, (_, base_s))| *base_s >= MIN_RATIO_SECONDS)
            .map(|(k, (ratio, _))| (k, *ratio))
            .collect();
        let Some(want) = geomean(cells.iter().map(|c| c.1)) else {
            continue;
        };
        c.ratios += 1;
        let cur = rc.get(&(spec.clone(), backend.clone()));
        let got: Vec<f64> = cells
            .iter()
            .filter_map(|(k, _)| cur.and_then(|m| m.get(*k)).map(|(r, _)| *r))
            .collect();
        if got.len() < cells.len() {
            c.problems.push(format!(
                "{spec}: {backend}/{REFERENCE_BACKEND} speed ratio: {} of its {} cells did not complete on both backends",
                cells.len() - got.len(),
                cells.len()
            ));
            continue;
        }
        let got = geomean(got.into_iter()).unwrap_or(0.0);
        c.ratio_lines.push(format!(
            "{spec}: {backend}/{REFERENCE_BACKEND} speed ratio {got:.2} over {} cells (baseline {want:.2})",
            cells.len()
        ));
        if got < want * (1.0 - tolerance) {
            c.problems.push(format!(
                "{spec}: {backend}/{REFERENCE_BACKEND} speed ratio {got:.2} (geometric mean of {} cells), more than {:.0}% below the baseline's {want:.2}",
                cells.len(),
                tolerance * 100.0
            ));
        }
    }
    c
}

fn show(v: &str) -> String {
    if v.is_empty() {
        "empty".into()
    } else {
        format!("`{v}`")
    }
}
