//! `bench report FILE --paper abed-random`: memory-aware randomized
//! exploration on BEEM (Abed, Tripakis, Vincent, Section 4), from the rows
//! of `beem/matrices/abed-random.toml`:
//!
//! - the paper's Table 2: mean cover times (steps and seconds) of 60 to
//!   100 % of the state space by URS and SDRS with a memory that holds the
//!   whole state space, URS with mixing parameters and the random walk,
//!   with each instance's density factor (DF = m / h, h the BFS depth of
//!   the state space, m = |S|^(1/h); the paper's h is the longest acyclic
//!   path, which we do not compute);
//! - the paper's Fig. 5: coverage over time of RURS and RSDRS (restarting
//!   from the initial state, and from a random stored state) with a memory
//!   of 15 % of the state space, against a memory-bounded BFS and the
//!   random walk.
//!
//! Writes `README.md`, `cover_time.csv`, `coverage.csv` and
//! `coverage-*.svg`.

use crate::engine::Outcome;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::Value;

use crate::experiments::plot;
use crate::experiments::schema::Row;

/// The name of a configuration, as the paper's tables call it.
fn variant(r: &Row) -> String {
    let restart = |r: &Row| match r.get("restart") {
        "random" => " (random)",
        _ => " (initial)",
    };
    match r.get("strategy") {
        "urs" => match r.num("mixing") {
            Some(x) => format!("URS X={x}"),
            None => "URS".into(),
        },
        "sdrs" => "SDRS".into(),
        "rurs" => format!("RURS{}", restart(r)),
        "rsdrs" => format!("RSDRS{}", restart(r)),
        "random-walk" => "random walk".into(),
        "bfs" => "BFS".into(),
        other => other.to_string(),
    }
}

/// One coverage level of a row's `cover`.
struct Level {
    percent: f64,
    states: u64,
    reached: u64,
    mean_steps: Option<f64>,
    mean_s: Option<f64>,
}

fn levels(r: &Row) -> Vec<Level> {
    r.extra()
        .get("cover")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|l| Level {
                    percent: l["percent"].as_f64().unwrap_or(0.0),
                    states: l["states"].as_u64().unwrap_or(0),
                    reached: l["reached"].as_u64().unwrap_or(0),
                    mean_steps: l["mean_steps"].as_f64(),
                    mean_s: l["mean_time_s"].as_f64(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// (time, covered states, steps, restarts) of a row's samples.
fn samples(r: &Row) -> Vec<(f64, u64, u64, u64)> {
    r.extra()
        .get("samples")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|s| {
                    (
                        s["time_s"].as_f64().unwrap_or(0.0),
                        s["covered"].as_u64().or(s["states"].as_u64()).unwrap_or(0),
                        s["steps"].as_u64().or(s["transitions"].as_u64()).unwrap_or(0),
                        s["restarts"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The rows the tables are made of, grouped.
struct Runs<'a> {
    /// |S| and BFS depth per instance, from the exhaustive bfs cells.
    size: BTreeMap<&'a str, (u64, u64)>,
    /// The rows with cover times (Table 2).
    cover: Vec<&'a Row>,
    /// The rows with coverage samples (Fig. 5).
    growth: Vec<&'a Row>,
    seed: &'a str,
    /// The instances of `cover`, in row order.
    instances: Vec<&'a str>,
    /// The configurations of `cover`, in row order.
    variants: Vec<String>,
    /// The instances of `growth`, in row order.
    ginst: Vec<&'a str>,
}

impl<'a> Runs<'a> {
    fn collect(rows: &'a [Row]) -> Result<Self> {
        let mut size: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        for r in rows
            .iter()
            .filter(|r| r.get("strategy") == "bfs" && r.get("result") == Outcome::Complete.name())
        {
            if let (Some(s), Some(l)) = (r.num("states"), r.num("levels")) {
                size.insert(r.get("instance"), (s as u64, (l as u64).saturating_sub(1).max(1)));
            }
        }
        let cover: Vec<&Row> = rows.iter().filter(|r| !levels(r).is_empty()).collect();
        let growth: Vec<&Row> = rows.iter().filter(|r| !samples(r).is_empty()).collect();
        if cover.is_empty() && growth.is_empty() {
            bail!("no cover times and no samples: is this a run of abed-random.toml?");
        }
        let seed = rows
            .iter()
            .map(|r| r.get("seed"))
            .find(|s| !s.is_empty())
            .unwrap_or("");
        let mut instances: Vec<&str> = cover.iter().map(|r| r.get("instance")).collect();
        instances.dedup();
        let mut variants: Vec<String> = Vec::new();
        for r in &cover {
            let v = variant(r);
            if !variants.contains(&v) {
                variants.push(v);
            }
        }
        let mut ginst: Vec<&str> = growth.iter().map(|r| r.get("instance")).collect();
        ginst.dedup();
        Ok(Runs {
            size,
            cover,
            growth,
            seed,
            instances,
            variants,
            ginst,
        })
    }

    /// The cover-time row of configuration `v` on `inst`.
    fn find(&self, inst: &str, v: &str) -> Option<&'a Row> {
        self.cover
            .iter()
            .find(|r| r.get("instance") == inst && variant(r) == v)
            .copied()
    }

    /// The number of runs of configuration `v`.
    fn runs_of(&self, v: &str) -> String {
        self.cover
            .iter()
            .find(|r| variant(r) == v)
            .map(|r| r.get("runs").to_string())
            .unwrap_or_default()
    }

    /// The coverage rows of `inst`.
    fn growth_of(&self, inst: &str) -> Vec<&'a Row> {
        self.growth
            .iter()
            .filter(|r| r.get("instance") == inst)
            .copied()
            .collect()
    }
}

/// The density factor DF = m / h with m = |S|^(1/h).
fn df(states: u64, h: u64) -> f64 {
    (states as f64).powf(1.0 / h as f64) / h as f64
}

/// The state-space size a coverage row was measured against.
fn total_of(r: &Row) -> f64 {
    r.num("manifest_states").unwrap_or(0.0)
}

/// The memory size N of a coverage row (from its params in older files).
fn memory_of(r: &Row) -> f64 {
    r.num("memory_states")
        .or_else(|| {
            serde_json::from_str::<serde_json::Map<String, Value>>(r.get("params"))
                .ok()?
                .get("max_states")?
                .as_str()?
                .parse()
                .ok()
        })
        .unwrap_or(0.0)
}

/// Renders the tables and plots into `out`.
pub fn render(rows: &[Row], out: &Path) -> Result<Vec<PathBuf>> {
    let runs = Runs::collect(rows)?;
    let mut written = Vec::new();
    let p = out.join("cover_time.csv");
    std::fs::write(&p, cover_time_csv(&runs))?;
    written.push(p);
    let p = out.join("coverage.csv");
    std::fs::write(&p, coverage_csv(&runs))?;
    written.push(p);
    for inst in &runs.ginst {
        let svg = coverage_plot(&runs, inst);
        if !svg.is_empty() {
            let p = out.join(format!("coverage-{inst}.svg"));
            std::fs::write(&p, svg)?;
            written.push(p);
        }
    }

    let mut md = String::new();
    let _ = writeln!(md, "# Memory-aware randomized exploration on BEEM\n");
    let _ = writeln!(
        md,
        "`dvemc bench report FILE --paper abed-random` on a run of `beem/matrices/abed-random.toml`, interpreter backend, series seed {}. \
Algorithms of Abed, Tripakis and Vincent as implemented in `harness/src/algo/random.rs`: one *step* selects a node and visits one uniformly chosen successor; \
*covered* states are counted by an exact evaluation-only store outside the N-state memory; *redundancy* = (n - k) / n with n steps and k newly covered states.\n",
        runs.seed
    );
    let percents: Vec<f64> = runs
        .cover
        .first()
        .map(|r| levels(r).iter().map(|l| l.percent).collect())
        .unwrap_or_default();
    md_cover_times(&mut md, &runs, &percents);
    md_winners(&mut md, &runs, &percents);
    md_coverage(&mut md, &runs);
    let p = out.join("README.md");
    std::fs::write(&p, md)?;
    written.insert(0, p);
    Ok(written)
}

/// `cover_time.csv`: a line per cover-time row and coverage level.
fn cover_time_csv(runs: &Runs) -> String {
    let mut csv = String::from(
        "instance,states,bfs_depth,density_factor,algorithm,coverage_percent,target_states,runs,reached,mean_cover_steps,mean_cover_seconds,mean_redundancy_at_stop,step_cap,seed\n",
    );
    for r in &runs.cover {
        let inst = r.get("instance");
        let (states, h) = runs.size.get(inst).copied().unwrap_or((0, 1));
        for l in levels(r) {
            let _ = writeln!(
                csv,
                "{inst},{states},{h},{:.4},{},{},{},{},{},{},{},{:.4},{},{}",
                df(states, h),
                variant(r),
                l.percent,
                l.states,
                r.get("runs"),
                l.reached,
                l.mean_steps.map(|x| format!("{x:.1}")).unwrap_or_default(),
                l.mean_s.map(|x| format!("{x:.5}")).unwrap_or_default(),
                r.num("redundancy").unwrap_or(0.0),
                r.get("steps_bound"),
                r.get("seed"),
            );
        }
    }
    csv
}

/// `coverage.csv`: a line per coverage sample.
fn coverage_csv(runs: &Runs) -> String {
    let mut csv = String::from(
        "instance,states,memory_states,algorithm,seed,time_s,steps,covered,coverage_percent,restarts\n",
    );
    for r in &runs.growth {
        let total = total_of(r);
        for (t, c, st, re) in samples(r) {
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{t:.4},{st},{c},{:.3},{re}",
                r.get("instance"),
                total,
                memory_of(r),
                variant(r),
                r.get("seed"),
                100.0 * c as f64 / total.max(1.0),
            );
        }
    }
    csv
}

/// The coverage-over-time plot of `inst`, a line per configuration.
fn coverage_plot(runs: &Runs, inst: &str) -> String {
    let rs = runs.growth_of(inst);
    let series: Vec<(String, Vec<(f64, f64)>)> = rs
        .iter()
        .map(|r| {
            let total = total_of(r).max(1.0);
            (
                variant(r),
                samples(r)
                    .into_iter()
                    .map(|(t, c, ..)| (t, 100.0 * c as f64 / total))
                    .collect(),
            )
        })
        .collect();
    let n = rs.iter().map(|r| memory_of(r)).fold(0.0, f64::max);
    plot::lines(
        &format!("{inst}: coverage over time, memory N = {n} states (15 %)"),
        "time (s)",
        "covered states (% of the state space)",
        &series,
        false,
        false,
    )
}

/// The paper's Table 2: instance figures, then mean cover times per level and configuration.
fn md_cover_times(md: &mut String, runs: &Runs, percents: &[f64]) {
    let _ = writeln!(md, "## Mean cover time (Table 2)\n");
    let _ = writeln!(
        md,
        "Memory N = |S| (URS and SDRS never re-initialize); {} runs of URS and of SDRS, {} of each mixing variant, {} of the random walk; each run stops at 100 % coverage or at the step cap. \
DF = m / h with h = BFS depth (eccentricity of the initial state; the paper uses the longest acyclic path) and m = |S|^(1/h). \
Each cell: mean cover time in steps / in milliseconds; `(k/R)` when only k of the R runs reached the level within the cap (their mean). \
On a state space without deadlocks SDRS never re-initializes and is exactly the random walk (same seeds, same steps).\n",
        runs.runs_of("URS"),
        runs.runs_of("URS X=0.5"),
        runs.runs_of("random walk")
    );
    let (instances, size) = (&runs.instances, &runs.size);
    let _ = write!(md, "| coverage | algorithm |");
    for name in instances {
        let _ = write!(md, " {name} |");
    }
    let _ = write!(md, "\n|---|---|");
    for _ in instances {
        let _ = write!(md, "---:|");
    }
    let _ = write!(md, "\n| size (states) | |");
    for name in instances {
        let _ = write!(md, " {} |", size.get(name).map_or(0, |x| x.0));
    }
    let _ = write!(md, "\n| BFS depth h | |");
    for name in instances {
        let _ = write!(md, " {} |", size.get(name).map_or(0, |x| x.1));
    }
    let _ = write!(md, "\n| DF | |");
    for name in instances {
        let (s, h) = size.get(name).copied().unwrap_or((0, 1));
        let _ = write!(md, " {:.3} |", df(s, h));
    }
    let _ = write!(md, "\n| step cap | |");
    for name in instances {
        let cap = runs
            .find(name, "URS")
            .map(|r| r.get("steps_bound").to_string())
            .unwrap_or_default();
        let _ = write!(md, " {cap} |");
    }
    let _ = writeln!(md);
    for (i, pc) in percents.iter().enumerate() {
        for v in &runs.variants {
            let _ = write!(md, "| {pc} % | {v} |");
            for name in instances {
                let cell = runs
                    .find(name, v)
                    .and_then(|r| levels(r).into_iter().nth(i).map(|l| (r, l)));
                md_cover_cell(md, cell);
            }
            let _ = writeln!(md);
        }
    }
}

/// One cell of Table 2: the mean cover time of a level, or why there is none.
fn md_cover_cell(md: &mut String, cell: Option<(&Row, Level)>) {
    match cell {
        Some((r, l)) => match (l.mean_steps, l.mean_s) {
            (Some(st), Some(s)) => {
                let _ = write!(md, " {st:.0} / {:.2}", s * 1e3);
                let runs = r.num("runs").unwrap_or(0.0) as u64;
                if l.reached < runs {
                    let _ = write!(md, " ({}/{runs})", l.reached);
                }
                let _ = write!(md, " |");
            }
            _ => {
                let _ = write!(md, " not reached (0/{}) |", r.get("runs"));
            }
        },
        None => {
            let _ = write!(md, " |");
        }
    }
}

/// URS against SDRS per level and instance.
fn md_winners(md: &mut String, runs: &Runs, percents: &[f64]) {
    let _ = writeln!(
        md,
        "\nWinner per level (fewer mean steps, counting only levels both reached in every run):\n"
    );
    let _ = write!(md, "| coverage |");
    for name in &runs.instances {
        let _ = write!(md, " {name} |");
    }
    let _ = write!(md, "\n|---|");
    for _ in &runs.instances {
        let _ = write!(md, "---|");
    }
    let _ = writeln!(md);
    for (i, pc) in percents.iter().enumerate() {
        let _ = write!(md, "| {pc} % |");
        for name in &runs.instances {
            let get = |v: &str| {
                runs.find(name, v).and_then(|r| {
                    levels(r)
                        .into_iter()
                        .nth(i)
                        .map(|l| (r.num("runs").unwrap_or(0.0) as u64, l))
                })
            };
            let _ = write!(md, " {} |", winner(get("URS"), get("SDRS")));
        }
        let _ = writeln!(md);
    }
}

/// Which of URS and SDRS reaches a level in fewer mean steps (given as
/// (runs, level)), or reaches it in more runs.
fn winner(urs: Option<(u64, Level)>, sdrs: Option<(u64, Level)>) -> String {
    match (urs, sdrs) {
        (Some((ur, u)), Some((sr, s))) => match (u.mean_steps, s.mean_steps) {
            (Some(a), Some(b)) if u.reached == ur && s.reached == sr => {
                if a < b {
                    format!("URS ({:.2}x)", b / a)
                } else {
                    format!("SDRS ({:.2}x)", a / b)
                }
            }
            _ if u.reached > s.reached => {
                format!("URS ({} vs {} runs reach it)", u.reached, s.reached)
            }
            _ if s.reached > u.reached => {
                format!("SDRS ({} vs {} runs reach it)", s.reached, u.reached)
            }
            _ => "-".into(),
        },
        _ => "-".into(),
    }
}

/// The paper's Fig. 5 as tables: coverage at given times per instance.
fn md_coverage(md: &mut String, runs: &Runs) {
    let seconds = runs
        .growth
        .iter()
        .filter_map(|r| r.num("budget_time_s"))
        .fold(0.0, f64::max);
    let _ = writeln!(
        md,
        "\n## Coverage over time with N = 15 % of the state space (Fig. 5)\n\n\
One seeded run per algorithm, {seconds} s each. Covered states in % of |S| at given times; `x N` = final covered / memory size. Plots: `coverage-*.svg`; samples: `coverage.csv`."
    );
    for inst in &runs.ginst {
        let rs = runs.growth_of(inst);
        let total = rs.first().map_or(1.0, |r| total_of(r)).max(1.0);
        let n = rs.iter().map(|r| memory_of(r)).fold(0.0, f64::max);
        let _ = writeln!(md, "\n### {inst} (|S| = {total}, N = {n})\n");
        let ts: Vec<f64> = [0.05, 0.1, 0.25, 0.5, 1.0].iter().map(|f| f * seconds).collect();
        let _ = write!(md, "| algorithm |");
        for t in &ts {
            let _ = write!(md, " {t:.1} s |");
        }
        let _ = write!(md, " final | x N | steps | restarts | redundancy |\n|---|");
        for _ in &ts {
            let _ = write!(md, "---:|");
        }
        let _ = writeln!(md, "---:|---:|---:|---:|---:|");
        for r in &rs {
            md_coverage_row(md, r, &ts, total, n);
        }
    }
}

/// One configuration's coverage at the times `ts` and at the end.
fn md_coverage_row(md: &mut String, r: &Row, ts: &[f64], total: f64, n: f64) {
    let ss = samples(r);
    let at = |t: f64| {
        ss.iter()
            .take_while(|s| s.0 <= t + 1e-9)
            .last()
            .map_or(1, |s| s.1)
    };
    let _ = write!(md, "| {} |", variant(r));
    for &t in ts {
        let _ = write!(md, " {:.1} % |", 100.0 * at(t) as f64 / total);
    }
    let (covered, steps, restarts) = ss.last().map_or((0, 0, 0), |s| (s.1, s.2, s.3));
    let _ = writeln!(
        md,
        " {covered} ({:.1} %) | {:.2} | {steps} | {restarts} | {:.3} |",
        100.0 * covered as f64 / total,
        covered as f64 / n.max(1.0),
        r.num("redundancy").unwrap_or(0.0)
    );
}
