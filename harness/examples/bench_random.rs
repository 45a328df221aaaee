//! `make bench-random`: memory-aware randomized exploration on BEEM
//! (Abed, Tripakis, Vincent, Section 4).
//!
//! Part 1, the paper's Table 2: mean cover time (steps and seconds) of 60,
//! 70, 80, 90 and 100 % of the state space by URS and SDRS with a memory
//! large enough for the whole state space (no re-initialization), over
//! `RUNS` seeded runs, on four BEEM instances of a few thousand to tens of
//! thousands of states with different density factors (DF = m / h with
//! h the BFS depth of the state space and m = |S|^(1/h); the paper's h is
//! the longest acyclic path, which we do not compute). The random walk and
//! URS with two mixing parameters are measured the same way for reference.
//! A run that does not reach a level within the step cap is left out of
//! that level's mean and counted (`reached` column).
//!
//! Part 2, the paper's Fig. 5: coverage (distinct states visited, from an
//! exact evaluation-only store) over time of RURS and RSDRS (restarting
//! from the initial state, and from a random stored state) with a memory of
//! N = 15 % of the state space, against a memory-bounded BFS with the same
//! N and the plain random walk, on larger instances (one seeded run each,
//! a fixed time budget).
//!
//! Usage: bench_random [--beem DIR] [--out DIR] [--runs R] [--seed S]
//!                     [--seconds T] [--quick]
//! Writes cover_time.csv, coverage.csv, README.md and SVG plots to
//! results/random/.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use dve_frontend::interp::Interpreter;
use harness::explore::{bfs, Limits};
use harness::manifest::Beem;
use harness::random_search::{run_many, search, summarize, Algo, Restart, SearchOptions, SearchRun};

/// Part 1: (instance, step cap as a multiple of |S|).
const COVER_SET: &[(&str, u64)] = &[
    ("reader_writer.2", 400),
    ("blocks.2", 400),
    ("bridge.1", 400),
    ("production_cell.1", 120),
];
const LEVELS: &[u64] = &[60, 70, 80, 90, 100];

/// Part 2: larger instances.
const GROWTH_SET: &[&str] = &["reader_writer.3", "blocks.3", "fischer.4"];

#[derive(Clone)]
struct Variant {
    name: &'static str,
    /// Runs of this variant: the series' runs divided by this.
    runs_div: usize,
    algo: Algo,
    restart: Restart,
    mixing: Option<f64>,
}

fn cover_variants() -> Vec<Variant> {
    vec![
        Variant {
            name: "URS",
            runs_div: 1,
            algo: Algo::Urs,
            restart: Restart::Stop,
            mixing: None,
        },
        Variant {
            name: "SDRS",
            runs_div: 1,
            algo: Algo::Sdrs,
            restart: Restart::Stop,
            mixing: None,
        },
        Variant {
            name: "URS X=0.5",
            runs_div: 5,
            algo: Algo::Urs,
            restart: Restart::Stop,
            mixing: Some(0.5),
        },
        Variant {
            name: "URS X=0.9",
            runs_div: 5,
            algo: Algo::Urs,
            restart: Restart::Stop,
            mixing: Some(0.9),
        },
        Variant {
            name: "random walk",
            runs_div: 10,
            algo: Algo::RandomWalk,
            restart: Restart::Initial,
            mixing: None,
        },
    ]
}

fn growth_variants() -> Vec<Variant> {
    vec![
        Variant {
            name: "RURS (initial)",
            runs_div: 1,
            algo: Algo::Urs,
            restart: Restart::Initial,
            mixing: None,
        },
        Variant {
            name: "RURS (random)",
            runs_div: 1,
            algo: Algo::Urs,
            restart: Restart::Random,
            mixing: None,
        },
        Variant {
            name: "RSDRS (initial)",
            runs_div: 1,
            algo: Algo::Sdrs,
            restart: Restart::Initial,
            mixing: None,
        },
        Variant {
            name: "RSDRS (random)",
            runs_div: 1,
            algo: Algo::Sdrs,
            restart: Restart::Random,
            mixing: None,
        },
        Variant {
            name: "BFS",
            runs_div: 1,
            algo: Algo::Bfs,
            restart: Restart::Stop,
            mixing: None,
        },
        Variant {
            name: "random walk",
            runs_div: 1,
            algo: Algo::RandomWalk,
            restart: Restart::Initial,
            mixing: None,
        },
    ]
}

struct Instance {
    states: u64,
    depth: u64,
    df: f64,
    model: Interpreter,
}

fn load(beem: &Beem, name: &str) -> Result<Instance> {
    let ir = dve_frontend::load_file(&beem.model_path(name)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let model = Interpreter::new(ir);
    let r = bfs(&model, &Limits::default(), false);
    let h = r.levels.unwrap_or(1).saturating_sub(1).max(1);
    let m = (r.states as f64).powf(1.0 / h as f64);
    Ok(Instance {
        states: r.states,
        depth: h,
        df: m / h as f64,
        model,
    })
}

/// Instance, |S|, N, and the runs by algorithm name.
type Growth = (String, u64, u64, Vec<(String, SearchRun)>);

struct CoverRow {
    instance: String,
    variant: String,
    level: u64,
    runs: usize,
    reached: u64,
    mean_steps: Option<f64>,
    mean_s: Option<f64>,
    redundancy: f64,
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut beem_dir: Option<PathBuf> = None;
    let mut out = PathBuf::from("results/random");
    let mut runs = 100usize;
    let mut seed = 1u64;
    let mut seconds = 12.0f64;
    let mut quick = false;
    let mut only: Option<Vec<String>> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--instances" => {
                only = Some(
                    args.next()
                        .context("--instances A,B")?
                        .split(',')
                        .map(String::from)
                        .collect(),
                )
            }
            "--beem" => beem_dir = args.next().map(PathBuf::from),
            "--out" => out = PathBuf::from(args.next().context("--out DIR")?),
            "--runs" => runs = args.next().context("--runs R")?.parse()?,
            "--seed" => seed = args.next().context("--seed S")?.parse()?,
            "--seconds" => seconds = args.next().context("--seconds T")?.parse()?,
            "--quick" => quick = true,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    if quick {
        runs = runs.min(10);
        seconds = seconds.min(3.0);
    }
    let beem = Beem::locate(beem_dir.as_deref())?;
    std::fs::create_dir_all(&out)?;
    let t0 = Instant::now();

    // Part 1: mean cover times.
    let mut cover_rows: Vec<CoverRow> = Vec::new();
    let mut cover_instances = Vec::new();
    let cover_set: Vec<(String, u64)> = match &only {
        Some(names) => names.iter().map(|n| (n.clone(), 400)).collect(),
        None => COVER_SET.iter().map(|&(n, c)| (n.to_string(), c)).collect(),
    };
    for (name, cap) in &cover_set {
        let (name, cap) = (name.as_str(), *cap);
        let inst = load(&beem, name)?;
        eprintln!(
            "{name}: {} states, BFS depth {}, DF {:.3}",
            inst.states, inst.depth, inst.df
        );
        let targets: Vec<u64> = LEVELS.iter().map(|p| (inst.states * p).div_ceil(100)).collect();
        for v in cover_variants() {
            let opts = SearchOptions {
                restart: v.restart,
                mixing: v.mixing,
                cover_targets: targets.clone(),
                stop_when_covered: true,
                ..SearchOptions::new(v.algo, inst.states as usize, cap * inst.states)
            };
            let t = Instant::now();
            let runs = (runs / v.runs_div).max(1);
            let all = run_many(&inst.model, &opts, None, seed, runs, 2);
            let s = summarize(&opts, seed, &all);
            eprintln!(
                "  {:<12} reached 100% in {}/{runs} runs; mean cover time 100%: {} steps, {} s ({:.1} s)",
                v.name,
                s.cover_reached[4],
                s.mean_cover_steps[4]
                    .map(|x| format!("{x:.0}"))
                    .unwrap_or("-".into()),
                s.mean_cover_time_s[4]
                    .map(|x| format!("{x:.3}"))
                    .unwrap_or("-".into()),
                t.elapsed().as_secs_f64()
            );
            for (i, &level) in LEVELS.iter().enumerate() {
                cover_rows.push(CoverRow {
                    instance: name.into(),
                    variant: v.name.into(),
                    level,
                    runs,
                    reached: s.cover_reached[i],
                    mean_steps: s.mean_cover_steps[i],
                    mean_s: s.mean_cover_time_s[i],
                    redundancy: s.redundancy,
                });
            }
        }
        cover_instances.push((name.to_string(), inst.states, inst.depth, inst.df, cap));
    }
    let mut csv = String::from(
        "instance,states,bfs_depth,density_factor,algorithm,coverage_percent,target_states,runs,reached,mean_cover_steps,mean_cover_seconds,mean_redundancy_at_stop,step_cap,seed\n",
    );
    for r in &cover_rows {
        let (_, states, depth, df, cap) = cover_instances.iter().find(|c| c.0 == r.instance).unwrap();
        writeln!(
            csv,
            "{},{},{},{:.4},{},{},{},{},{},{},{},{:.4},{},{}",
            r.instance,
            states,
            depth,
            df,
            r.variant,
            r.level,
            (states * r.level).div_ceil(100),
            r.runs,
            r.reached,
            r.mean_steps.map(|x| format!("{x:.1}")).unwrap_or_default(),
            r.mean_s.map(|x| format!("{x:.5}")).unwrap_or_default(),
            r.redundancy,
            cap * states,
            seed
        )?;
    }
    std::fs::write(out.join("cover_time.csv"), csv)?;

    // Part 2: coverage over time with N = 15 % of |S|.
    let mut growth: Vec<Growth> = Vec::new();
    let gset: Vec<&str> = if quick {
        GROWTH_SET[..1].to_vec()
    } else {
        GROWTH_SET.to_vec()
    };
    for &name in &gset {
        let ir = dve_frontend::load_file(&beem.model_path(name)).map_err(|e| anyhow::anyhow!("{e}"))?;
        let model = Interpreter::new(ir);
        let total = beem
            .instances()?
            .into_iter()
            .find(|r| r.instance == name)
            .and_then(|r| r.states)
            .context("instance size")?;
        let n = (total * 15 / 100) as usize;
        eprintln!("{name}: {total} states, memory N = {n} (15 %), {seconds} s per run");
        let variants = growth_variants();
        // Two runs at a time (one per core).
        let results: Vec<(String, SearchRun)> = std::thread::scope(|sc| {
            let mut done = Vec::new();
            for pair in variants.chunks(2) {
                let hs: Vec<_> = pair
                    .iter()
                    .map(|v| {
                        let model = &model;
                        let v = v.clone();
                        sc.spawn(move || {
                            let opts = SearchOptions {
                                restart: v.restart,
                                mixing: v.mixing,
                                limits: harness::search::Limits {
                                    time: Some(Duration::from_secs_f64(seconds)),
                                    ..Default::default()
                                },
                                sample_interval: Some(Duration::from_secs_f64(seconds / 80.0)),
                                ..SearchOptions::new(v.algo, n, u64::MAX)
                            };
                            let r = search(model, &opts, None, seed);
                            (v.name.to_string(), r)
                        })
                    })
                    .collect();
                for h in hs {
                    done.push(h.join().expect("run"));
                }
            }
            done
        });
        for (v, r) in &results {
            eprintln!(
                "  {v:<16} covered {:>9} ({:.1} % of |S|, {:.2} x N) in {:.1} s, {} steps, {} restarts, peak {}",
                r.covered,
                100.0 * r.covered as f64 / total as f64,
                r.covered as f64 / n as f64,
                r.time_s,
                r.steps,
                r.restarts,
                r.stored_peak
            );
        }
        growth.push((name.to_string(), total, n as u64, results));
    }
    let mut csv = String::from(
        "instance,states,memory_states,algorithm,seed,time_s,steps,covered,coverage_percent,restarts\n",
    );
    for (name, total, n, results) in &growth {
        for (v, r) in results {
            for s in &r.samples {
                writeln!(
                    csv,
                    "{name},{total},{n},{v},{seed},{:.4},{},{},{:.3},{}",
                    s.time_s,
                    s.steps,
                    s.covered,
                    100.0 * s.covered as f64 / *total as f64,
                    s.restarts
                )?;
            }
        }
    }
    std::fs::write(out.join("coverage.csv"), csv)?;
    for (name, total, n, results) in &growth {
        let series: Vec<(String, Vec<(f64, f64)>)> = results
            .iter()
            .map(|(v, r)| {
                (
                    v.clone(),
                    r.samples
                        .iter()
                        .map(|s| (s.time_s, 100.0 * s.covered as f64 / *total as f64))
                        .collect(),
                )
            })
            .collect();
        svg_time_chart(
            &out.join(format!("coverage-{name}.svg")),
            &format!("{name}: coverage over time, memory N = {n} states (15 %)"),
            &series,
        )?;
    }

    let md = report(
        &cover_rows,
        &cover_instances,
        &growth,
        runs,
        seed,
        seconds,
        t0.elapsed().as_secs_f64(),
    )?;
    std::fs::write(out.join("README.md"), md)?;
    eprintln!(
        "wrote {}/README.md ({:.1} s)",
        out.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

const PALETTE: &[&str] = &[
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

/// Coverage (%) against time (s), one step-line per series.
fn svg_time_chart(path: &Path, title: &str, series: &[(String, Vec<(f64, f64)>)]) -> Result<()> {
    let (w, h, ml, mr, mt, mb) = (760.0, 420.0, 60.0, 170.0, 40.0, 50.0);
    let xmax = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let ymax = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    let ymax = ((ymax / 10.0).ceil() * 10.0).clamp(10.0, 100.0);
    let px = |x: f64| ml + x / xmax * (w - ml - mr);
    let py = |y: f64| h - mb - y / ymax * (h - mt - mb);
    let mut s = String::new();
    writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">"
    )?;
    writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")?;
    writeln!(
        s,
        "<text x=\"{}\" y=\"20\" font-size=\"14\" text-anchor=\"middle\">{title}</text>",
        (ml + w - mr) / 2.0
    )?;
    for i in 0..=5 {
        let y = ymax * i as f64 / 5.0;
        writeln!(
            s,
            "<line x1=\"{ml}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#ddd\"/><text x=\"{2}\" y=\"{3}\" text-anchor=\"end\">{y:.0}</text>",
            py(y),
            w - mr,
            ml - 5.0,
            py(y) + 4.0
        )?;
        let x = xmax * i as f64 / 5.0;
        writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{mt}\" x2=\"{0}\" y2=\"{1}\" stroke=\"#ddd\"/><text x=\"{0}\" y=\"{2}\" text-anchor=\"middle\">{x:.1}</text>",
            px(x),
            h - mb,
            h - mb + 15.0
        )?;
    }
    writeln!(
        s,
        "<line x1=\"{ml}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"black\"/><line x1=\"{ml}\" y1=\"{mt}\" x2=\"{ml}\" y2=\"{0}\" stroke=\"black\"/>",
        h - mb,
        w - mr
    )?;
    writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time (s)</text>",
        (ml + w - mr) / 2.0,
        h - 12.0
    )?;
    writeln!(
        s,
        "<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {0})\">covered states (% of the state space)</text>",
        (mt + h - mb) / 2.0
    )?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let d: Vec<String> = pts
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.8\" points=\"{}\"/>",
            d.join(" ")
        )?;
        let ly = mt + 14.0 * i as f64;
        writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{c}\" stroke-width=\"2\"/><text x=\"{3}\" y=\"{4}\">{name}</text>",
            w - mr + 10.0,
            ly,
            w - mr + 28.0,
            w - mr + 32.0,
            ly + 4.0
        )?;
    }
    writeln!(s, "</svg>")?;
    std::fs::write(path, s).with_context(|| format!("writing {}", path.display()))
}

/// Covered states at time `t` (the last sample at or before it).
fn covered_at(r: &SearchRun, t: f64) -> u64 {
    r.samples
        .iter()
        .take_while(|s| s.time_s <= t + 1e-9)
        .last()
        .map_or(1, |s| s.covered)
}

fn report(
    rows: &[CoverRow],
    instances: &[(String, u64, u64, f64, u64)],
    growth: &[Growth],
    runs: usize,
    seed: u64,
    seconds: f64,
    secs: f64,
) -> Result<String> {
    let mut md = String::new();
    writeln!(md, "# Memory-aware randomized exploration on BEEM")?;
    writeln!(md)?;
    writeln!(
        md,
        "Generated by `make bench-random` (`harness/examples/bench_random.rs`), interpreter backend, series seed {seed}, {secs:.0} s in all. \
Algorithms of Abed, Tripakis and Vincent as implemented in `harness/src/random_search.rs`: one *step* selects a node and visits one uniformly chosen successor; \
*covered* states are counted by an exact evaluation-only store outside the N-state memory; *redundancy* = (n - k) / n with n steps and k newly covered states."
    )?;
    writeln!(md)?;
    writeln!(md, "## Mean cover time (Table 2)")?;
    writeln!(md)?;
    writeln!(
        md,
        "Memory N = |S| (URS and SDRS never re-initialize); {runs} runs of URS and of SDRS, {} of each mixing variant, {} of the random walk; each run stops at 100 % coverage or at the step cap. \
DF = m / h with h = BFS depth (eccentricity of the initial state; the paper uses the longest acyclic path) and m = |S|^(1/h). \
Each cell: mean cover time in steps / in milliseconds; `(k/R)` when only k of the R runs reached the level within the cap (their mean). \
On a state space without deadlocks SDRS never re-initializes and is exactly the random walk (same seeds, same steps)."
    , (runs / 5).max(1), (runs / 10).max(1))?;
    writeln!(md)?;
    write!(md, "| coverage | algorithm |")?;
    for (name, ..) in instances {
        write!(md, " {name} |")?;
    }
    writeln!(md)?;
    write!(md, "|---|---|")?;
    for _ in instances {
        write!(md, "---:|")?;
    }
    writeln!(md)?;
    write!(md, "| size (states) | |")?;
    for (_, s, ..) in instances {
        write!(md, " {s} |")?;
    }
    writeln!(md)?;
    write!(md, "| BFS depth h | |")?;
    for (_, _, h, ..) in instances {
        write!(md, " {h} |")?;
    }
    writeln!(md)?;
    write!(md, "| DF | |")?;
    for (_, _, _, df, _) in instances {
        write!(md, " {df:.3} |")?;
    }
    writeln!(md)?;
    write!(md, "| step cap | |")?;
    for (_, s, _, _, cap) in instances {
        write!(md, " {} |", s * cap)?;
    }
    writeln!(md)?;
    let mut variants: Vec<String> = rows.iter().map(|r| r.variant.clone()).collect();
    let mut seen = Vec::new();
    variants.retain(|v| {
        let new = !seen.contains(v);
        seen.push(v.clone());
        new
    });
    for &level in LEVELS {
        for v in &variants {
            write!(md, "| {level} % | {v} |")?;
            for (name, ..) in instances {
                let r = rows
                    .iter()
                    .find(|r| &r.instance == name && &r.variant == v && r.level == level)
                    .unwrap();
                match (r.mean_steps, r.mean_s) {
                    (Some(st), Some(s)) => {
                        write!(md, " {st:.0} / {:.2}", s * 1e3)?;
                        if r.reached < r.runs as u64 {
                            write!(md, " ({}/{})", r.reached, r.runs)?;
                        }
                        write!(md, " |")?;
                    }
                    _ => write!(md, " not reached (0/{}) |", r.runs)?,
                }
            }
            writeln!(md)?;
        }
    }
    writeln!(md)?;
    writeln!(
        md,
        "Winner per level (fewer mean steps, counting only levels both reached in every run):"
    )?;
    writeln!(md)?;
    write!(md, "| coverage |")?;
    for (name, ..) in instances {
        write!(md, " {name} |")?;
    }
    writeln!(md)?;
    write!(md, "|---|")?;
    for _ in instances {
        write!(md, "---|")?;
    }
    writeln!(md)?;
    for &level in LEVELS {
        write!(md, "| {level} % |")?;
        for (name, ..) in instances {
            let get = |v: &str| {
                rows.iter()
                    .find(|r| &r.instance == name && r.variant == v && r.level == level)
                    .unwrap()
            };
            let (u, s) = (get("URS"), get("SDRS"));
            let cell = match (u.mean_steps, s.mean_steps) {
                (Some(a), Some(b)) if u.reached == u.runs as u64 && s.reached == s.runs as u64 => {
                    if a < b {
                        format!("URS ({:.2}x)", b / a)
                    } else {
                        format!("SDRS ({:.2}x)", a / b)
                    }
                }
                _ if u.reached > s.reached => format!("URS ({} vs {} runs reach it)", u.reached, s.reached),
                _ if s.reached > u.reached => format!("SDRS ({} vs {} runs reach it)", s.reached, u.reached),
                _ => "-".into(),
            };
            write!(md, " {cell} |")?;
        }
        writeln!(md)?;
    }
    writeln!(md)?;
    writeln!(
        md,
        "## Coverage over time with N = 15 % of the state space (Fig. 5)"
    )?;
    writeln!(md)?;
    writeln!(
        md,
        "One seeded run per algorithm, {seconds} s each (two runs at a time on two cores). Covered states in % of |S| at given times; `x N` = final covered / memory size. Plots: `coverage-*.svg`; samples: `coverage.csv`."
    )?;
    for (name, total, n, results) in growth {
        writeln!(md)?;
        writeln!(md, "### {name} (|S| = {total}, N = {n})")?;
        writeln!(md)?;
        let ts: Vec<f64> = [0.05, 0.1, 0.25, 0.5, 1.0].iter().map(|f| f * seconds).collect();
        write!(md, "| algorithm |")?;
        for t in &ts {
            write!(md, " {t:.1} s |")?;
        }
        writeln!(md, " final | x N | steps | restarts | redundancy |")?;
        write!(md, "|---|")?;
        for _ in &ts {
            write!(md, "---:|")?;
        }
        writeln!(md, "---:|---:|---:|---:|---:|")?;
        for (v, r) in results {
            write!(md, "| {v} |")?;
            for &t in &ts {
                write!(md, " {:.1} % |", 100.0 * covered_at(r, t) as f64 / *total as f64)?;
            }
            writeln!(
                md,
                " {} ({:.1} %) | {:.2} | {} | {} | {:.3} |",
                r.covered,
                100.0 * r.covered as f64 / *total as f64,
                r.covered as f64 / *n as f64,
                r.steps,
                r.restarts,
                r.redundancy
            )?;
        }
    }
    Ok(md)
}
