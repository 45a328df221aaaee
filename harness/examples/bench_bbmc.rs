//! `make bench-bbmc`: Breadth-Bounded Model Checking against BMC on BEEM
//! reachability properties (Meulen, Stappers, Willemse, Section 4).
//!
//! For every chosen property (shallow and deep counterexamples, by BEEM's
//! shortest counterexample length), Algorithm 2 is run `RUNS` times (seeded)
//! at each breadth bound 1..=6; we report the *probability of finding a
//! witness* (runs whose slice holds a goal state), the mean slice size and
//! its ratio to the number of states BMC (BFS stopped at the first witness)
//! stores — the paper's Table 1 and Figs. 3-4 — and the expected number of
//! slice states per witness found (mean slice size / witness probability).
//! Then a graceful degradation sweep (Algorithm 3, Fig. 5): depth bounds D
//! by breadth bounds N, on a few of the properties and on two LTL
//! properties of BEEM's lift controller (accepting cycles).
//!
//! Usage: bench_bbmc [--beem DIR] [--out DIR] [--runs R] [--seed S] [--quick]
//! Writes breadth.csv, degradation.csv, README.md and SVG plots to
//! results/bbmc/.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use dve_frontend::interp::Interpreter;
use dve_frontend::LoadOptions;
use harness::bbmc::{bmc, goal_predicate, run_many, BmcReport, SliceOptions, Targets};
use harness::check::Goal;
use harness::explore::{bfs, Limits};
use harness::manifest::{Beem, PropertyKind};

/// (instance, property) pairs: reachability goals with shallow, middle and
/// deep shortest counterexamples, and LTL properties (accepting cycles).
const BREADTH_SET: &[(&str, u32)] = &[
    // shallow (BEEM cex length <= 20)
    ("iprotocol.2", 1),
    ("protocols.2", 1),
    ("needham.2", 1),
    ("reader_writer.1", 1),
    ("gear.1", 2),
    ("cambridge.2", 1),
    ("bakery.2", 1),
    ("peterson.3", 1),
    // middle
    ("krebs.2", 1),
    ("lamport.2", 1),
    ("szymanski.2", 1),
    // deep (>= 50)
    ("rushhour.1", 1),
    ("lifts.5", 1),
    ("krebs.3", 1),
    ("brp2.2", 3),
    ("frogs.1", 1),
    ("production_cell.4", 1),
    ("gear.1", 1),
    ("production_cell.2", 1),
    ("leader_election.4", 1),
    ("sokoban.1", 1),
    ("hanoi.1", 1),
];

const DEGRADE_SET: &[(&str, u32)] = &[
    ("reader_writer.1", 1),
    ("gear.1", 2),
    ("iprotocol.2", 1),
    ("lifts.5", 1),
    ("production_cell.2", 1),
    ("leader_election.4", 1),
    ("hanoi.1", 1),
    ("lifts.2", 3),
    ("lifts.2", 4),
];
const DEGRADE_DEPTHS: &[Option<u32>] = &[Some(10), Some(20), Some(40), Some(60), None];
const DEGRADE_BREADTHS: &[usize] = &[1, 2, 4, 8, 16, 32];

/// A slice may not grow past this many states (the construction is then
/// cut and counted as incomplete).
const SLICE_CAP: u64 = 2_000_000;

struct Prop {
    instance: String,
    prop_id: u32,
    kind: PropertyKind,
    formula: String,
    cex: Option<u64>,
    states: u64,
    levels: u64,
    ir: dve_frontend::ir::Model,
    goals: Vec<Goal>,
    bmc: BmcReport,
}

impl Prop {
    fn class(&self) -> &'static str {
        match (self.kind, self.cex) {
            (PropertyKind::Ltl, _) => "ltl",
            (_, Some(c)) if c <= 20 => "shallow",
            (_, Some(c)) if c >= 50 => "deep",
            _ => "middle",
        }
    }
    fn name(&self) -> String {
        format!("{} #{}", self.instance, self.prop_id)
    }
}

fn load(beem: &Beem, instance: &str, prop_id: u32) -> Result<Prop> {
    let row = beem
        .properties()?
        .into_iter()
        .find(|p| p.instance == instance && p.prop_id == prop_id)
        .with_context(|| format!("no property {prop_id} of {instance}"))?;
    let (path, exprs) = match row.kind {
        PropertyKind::Reachability => (beem.model_path(instance), vec![row.formula.clone()]),
        PropertyKind::Ltl => (beem.property_model_path(instance, prop_id), vec![]),
    };
    let l = dve_frontend::load_file_with(
        &path,
        &LoadOptions {
            exprs,
            ..Default::default()
        },
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let goals: Vec<Goal> = l
        .exprs
        .iter()
        .map(|e| Goal {
            text: row.formula.clone(),
            expr: e.clone(),
        })
        .collect();
    let m = Interpreter::new(l.model.clone());
    let full = bfs(&m, &Limits::default(), false);
    let bmc = {
        let pred = goal_predicate(&m, &goals);
        let t = targets(&goals, &pred, l.model.property.is_some());
        bmc(&m, &t, &Limits::default())
    };
    Ok(Prop {
        instance: instance.into(),
        prop_id,
        kind: row.kind,
        formula: row.formula.clone(),
        cex: row.cex_length,
        states: full.states,
        levels: full.levels.unwrap_or(0),
        ir: l.model,
        goals,
        bmc,
    })
}

fn targets<'a>(goals: &[Goal], pred: &'a (dyn Fn(&[u8]) -> bool + Sync), ltl: bool) -> Targets<'a> {
    Targets {
        goal: (!goals.is_empty()).then_some(pred),
        deadlock: false,
        accepting: ltl,
    }
}

struct Row {
    name: String,
    class: &'static str,
    breadth: usize,
    depth: Option<u32>,
    rate: f64,
    mean_states: f64,
    mean_transitions: f64,
    mean_queues: f64,
    bmc: Option<u64>,
    mean_witness_len: Option<f64>,
    incomplete: u64,
    time_s: f64,
}

impl Row {
    fn ratio(&self) -> Option<f64> {
        self.bmc.map(|b| self.mean_states / b as f64)
    }
    /// Slice states spent per witness found (repeating BBMC until one is found).
    fn per_witness(&self) -> Option<f64> {
        (self.rate > 0.0).then(|| self.mean_states / self.rate)
    }
}

fn measure(p: &Prop, opts: &SliceOptions, runs: usize, seed: u64) -> Row {
    let m = Interpreter::new(p.ir.clone());
    let pred = goal_predicate(&m, &p.goals);
    let t = targets(&p.goals, &pred, p.ir.property.is_some());
    let start = Instant::now();
    let (s, _) = run_many(&m, opts, &t, seed, runs, 2);
    let lens: Vec<f64> = s
        .records
        .iter()
        .filter_map(|r| r.witness_length.map(|l| l as f64))
        .collect();
    Row {
        name: p.name(),
        class: p.class(),
        breadth: opts.breadth,
        depth: opts.degrade_depth,
        rate: s.witness_rate,
        mean_states: s.mean_slice_states,
        mean_transitions: s.mean_slice_transitions,
        mean_queues: s.mean_queues,
        bmc: p.bmc.states,
        mean_witness_len: (!lens.is_empty()).then(|| lens.iter().sum::<f64>() / lens.len() as f64),
        incomplete: s.incomplete,
        time_s: start.elapsed().as_secs_f64(),
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn f3(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_default()
}

fn csv_rows(path: &Path, props: &[Prop], rows: &[Row], runs: usize, seed: u64) -> Result<()> {
    let mut out = String::from(
        "instance,prop_id,type,class,beem_cex_length,states,bfs_levels,bmc_states,breadth,degrade_depth,runs,seed,witness_rate,mean_slice_states,mean_slice_transitions,mean_queues,ratio_to_bmc,states_per_witness,mean_witness_length,incomplete_runs,seconds\n",
    );
    for r in rows {
        let p = props.iter().find(|p| p.name() == r.name).expect("prop");
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{:.2},{:.2},{:.2},{:.2},{},{},{},{},{:.3}",
            p.instance,
            p.prop_id,
            if p.kind == PropertyKind::Ltl {
                "LTL"
            } else {
                "reachability"
            },
            r.class,
            opt(p.cex),
            p.states,
            p.levels,
            opt(r.bmc),
            r.breadth,
            opt(r.depth),
            runs,
            seed,
            r.rate,
            r.mean_states,
            r.mean_transitions,
            r.mean_queues,
            f3(r.ratio()),
            r.per_witness().map(|x| format!("{x:.1}")).unwrap_or_default(),
            r.mean_witness_len.map(|x| format!("{x:.1}")).unwrap_or_default(),
            r.incomplete,
            r.time_s
        )?;
    }
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

// ---------------------------------------------------------------- plots

const PALETTE: &[&str] = &[
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
    "#17becf", "#393b79", "#637939",
];

/// A line chart: one polyline per series; log-scale y when `log_y`.
fn svg_chart(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log_y: bool,
    log_x: bool,
) -> Result<()> {
    let (w, h, ml, mr, mt, mb) = (760.0, 420.0, 70.0, 230.0, 40.0, 50.0);
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|&(_, y)| !log_y || y > 0.0)
        .collect();
    if pts.is_empty() {
        return Ok(());
    }
    let tx = |x: f64| if log_x { x.log2() } else { x };
    let ty = |y: f64| if log_y { y.log10() } else { y };
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    let (mut y0, mut y1) = (f64::MAX, f64::MIN);
    for &(x, y) in &pts {
        x0 = x0.min(tx(x));
        x1 = x1.max(tx(x));
        y0 = y0.min(ty(y));
        y1 = y1.max(ty(y));
    }
    if log_y {
        y0 = y0.floor();
        y1 = y1.ceil().max(y0 + 1.0);
    } else {
        y0 = y0.min(0.0);
        y1 = if y1 <= 1.0 && y0 >= 0.0 { 1.0 } else { y1 * 1.05 };
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let px = |x: f64| ml + (tx(x) - x0) / (x1 - x0) * (w - ml - mr);
    let py = |y: f64| h - mb - (ty(y) - y0) / (y1 - y0) * (h - mt - mb);
    let mut s = String::new();
    writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">"
    )?;
    writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")?;
    writeln!(
        s,
        "<text x=\"{}\" y=\"20\" font-size=\"14\" text-anchor=\"middle\">{}</text>",
        (ml + w - mr) / 2.0,
        esc(title)
    )?;
    // Axes and ticks.
    writeln!(
        s,
        "<line x1=\"{ml}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/><line x1=\"{ml}\" y1=\"{mt}\" x2=\"{ml}\" y2=\"{}\" stroke=\"black\"/>",
        h - mb,
        w - mr,
        h - mb,
        h - mb
    )?;
    let mut xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs.dedup();
    for &x in &xs {
        writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
            px(x),
            mt,
            h - mb,
            h - mb + 15.0,
            x
        )?;
    }
    let yticks: Vec<f64> = if log_y {
        (y0 as i32..=y1 as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        (0..=5).map(|i| y0 + (y1 - y0) * i as f64 / 5.0).collect()
    };
    for &y in &yticks {
        let label = if log_y {
            format!("{y}")
        } else if y1 <= 1.0 {
            format!("{y:.1}")
        } else {
            format!("{y:.0}")
        };
        writeln!(
            s,
            "<line x1=\"{ml}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#ddd\"/><text x=\"{2}\" y=\"{3}\" text-anchor=\"end\">{4}</text>",
            py(y),
            w - mr,
            ml - 5.0,
            py(y) + 4.0,
            label
        )?;
    }
    writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        (ml + w - mr) / 2.0,
        h - 12.0,
        esc(xlabel)
    )?;
    writeln!(
        s,
        "<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {0})\">{1}</text>",
        (mt + h - mb) / 2.0,
        esc(ylabel)
    )?;
    for (i, (name, data)) in series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let d: Vec<String> = data
            .iter()
            .filter(|&&(_, y)| !log_y || y > 0.0)
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        if !d.is_empty() {
            writeln!(
                s,
                "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.8\" points=\"{}\"/>",
                d.join(" ")
            )?;
            for p in &d {
                let (a, b) = p.split_once(',').unwrap();
                writeln!(s, "<circle cx=\"{a}\" cy=\"{b}\" r=\"2.5\" fill=\"{c}\"/>")?;
            }
        }
        let ly = mt + 14.0 * i as f64;
        writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{c}\" stroke-width=\"2\"/><text x=\"{3}\" y=\"{4}\">{5}</text>",
            w - mr + 10.0,
            ly,
            w - mr + 28.0,
            w - mr + 32.0,
            ly + 4.0,
            esc(name)
        )?;
    }
    writeln!(s, "</svg>")?;
    std::fs::write(path, s).with_context(|| format!("writing {}", path.display()))
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

// ---------------------------------------------------------------- main

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut beem_dir: Option<PathBuf> = None;
    let mut out = PathBuf::from("results/bbmc");
    let mut runs = 100usize;
    let mut seed = 1u64;
    let mut quick = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--beem" => beem_dir = args.next().map(PathBuf::from),
            "--out" => out = PathBuf::from(args.next().context("--out DIR")?),
            "--runs" => runs = args.next().context("--runs R")?.parse()?,
            "--seed" => seed = args.next().context("--seed S")?.parse()?,
            "--quick" => quick = true,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let beem = Beem::locate(beem_dir.as_deref())?;
    std::fs::create_dir_all(&out)?;
    let t0 = Instant::now();
    let set: Vec<(&str, u32)> = if quick {
        BREADTH_SET[..4].to_vec()
    } else {
        BREADTH_SET.to_vec()
    };

    // Part 1: breadth bounds 1..=6 (Algorithm 2).
    let mut props: Vec<Prop> = Vec::new();
    for &(inst, id) in set.iter().chain(DEGRADE_SET.iter()) {
        if props.iter().any(|p| p.instance == inst && p.prop_id == id) {
            continue;
        }
        let p = load(&beem, inst, id)?;
        eprintln!(
            "{:<24} {:<8} cex {:>4}  |S| {:>8}  levels {:>4}  BMC {:>8} states",
            p.name(),
            p.class(),
            opt(p.cex),
            p.states,
            p.levels,
            opt(p.bmc.states)
        );
        props.push(p);
    }
    let mut breadth_rows = Vec::new();
    for &(inst, id) in &set {
        let p = props
            .iter()
            .find(|p| p.instance == inst && p.prop_id == id)
            .unwrap();
        for n in 1..=6 {
            let opts = SliceOptions {
                limits: Limits {
                    max_states: Some(SLICE_CAP),
                    ..Default::default()
                },
                ..SliceOptions::bounded(n)
            };
            let r = measure(p, &opts, runs, seed);
            eprintln!(
                "  N={n}  witness rate {:.2}  slice {:>9.1}  ratio {:>8}  ({:.1} s)",
                r.rate,
                r.mean_states,
                f3(r.ratio()),
                r.time_s
            );
            breadth_rows.push(r);
        }
    }
    csv_rows(&out.join("breadth.csv"), &props, &breadth_rows, runs, seed)?;

    // Part 2: graceful degradation (Algorithm 3).
    let mut degrade_rows = Vec::new();
    let dset: Vec<(&str, u32)> = if quick {
        DEGRADE_SET[..2].to_vec()
    } else {
        DEGRADE_SET.to_vec()
    };
    for &(inst, id) in &dset {
        let p = props
            .iter()
            .find(|p| p.instance == inst && p.prop_id == id)
            .unwrap();
        eprintln!("{} (graceful degradation)", p.name());
        for &d in DEGRADE_DEPTHS {
            for &n in DEGRADE_BREADTHS {
                let opts = SliceOptions {
                    degrade_depth: d,
                    limits: Limits {
                        max_states: Some(SLICE_CAP),
                        ..Default::default()
                    },
                    ..SliceOptions::bounded(n)
                };
                let r = measure(p, &opts, runs, seed);
                eprintln!(
                    "  D={:<4} N={n:<3} witness rate {:.2}  slice {:>9.1}  ratio {:>8}",
                    opt(d),
                    r.rate,
                    r.mean_states,
                    f3(r.ratio())
                );
                degrade_rows.push(r);
            }
        }
    }
    csv_rows(&out.join("degradation.csv"), &props, &degrade_rows, runs, seed)?;

    // Plots.
    for class in ["shallow", "middle", "deep"] {
        let rows: Vec<&Row> = breadth_rows.iter().filter(|r| r.class == class).collect();
        let mut names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
        names.dedup();
        let series = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<(String, Vec<(f64, f64)>)> {
            names
                .iter()
                .map(|n| {
                    let pts = rows
                        .iter()
                        .filter(|r| &r.name == n)
                        .filter_map(|r| f(r).map(|y| (r.breadth as f64, y)))
                        .collect();
                    (n.clone(), pts)
                })
                .collect()
        };
        svg_chart(
            &out.join(format!("witness-rate-{class}.svg")),
            &format!("Witness probability, {class} goals (Algorithm 2, {runs} runs)"),
            "breadth bound N",
            "probability of a witness",
            &series(&|r| Some(r.rate)),
            false,
            false,
        )?;
        svg_chart(
            &out.join(format!("ratio-{class}.svg")),
            &format!("Slice states / BMC states, {class} goals"),
            "breadth bound N",
            "mean slice states / BMC states (log)",
            &series(&|r| r.ratio()),
            true,
            false,
        )?;
    }
    for p in props
        .iter()
        .filter(|p| dset.contains(&(p.instance.as_str(), p.prop_id)))
    {
        let rows: Vec<&Row> = degrade_rows.iter().filter(|r| r.name == p.name()).collect();
        let series = |f: &dyn Fn(&Row) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
            DEGRADE_DEPTHS
                .iter()
                .map(|&d| {
                    let name = d.map_or("no degradation".to_string(), |d| format!("D = {d}"));
                    let pts = rows
                        .iter()
                        .filter(|r| r.depth == d)
                        .map(|r| (r.breadth as f64, f(r)))
                        .collect();
                    (name, pts)
                })
                .collect()
        };
        let file = format!("degradation-{}-{}", p.instance, p.prop_id);
        svg_chart(
            &out.join(format!("{file}-rate.svg")),
            &format!("{}: witness probability", p.name()),
            "breadth bound N (log2)",
            "probability of a witness",
            &series(&|r| r.rate),
            false,
            true,
        )?;
        svg_chart(
            &out.join(format!("{file}-states.svg")),
            &format!("{}: mean slice states (BMC {})", p.name(), opt(p.bmc.states)),
            "breadth bound N (log2)",
            "mean slice states (log)",
            &series(&|r| r.mean_states),
            true,
            true,
        )?;
    }

    // The report.
    let md = report(
        &props,
        &breadth_rows,
        &degrade_rows,
        &dset,
        runs,
        seed,
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

fn report(
    props: &[Prop],
    rows: &[Row],
    drows: &[Row],
    dset: &[(&str, u32)],
    runs: usize,
    seed: u64,
    secs: f64,
) -> Result<String> {
    let mut md = String::new();
    writeln!(md, "# Breadth-Bounded Model Checking on BEEM")?;
    writeln!(md)?;
    writeln!(
        md,
        "Generated by `make bench-bbmc` (`harness/examples/bench_bbmc.rs`): {runs} seeded runs per configuration (series seed {seed}), interpreter backend, {secs:.0} s in all. \
Algorithm 2 (bounded breadth-first exploration, totality kept) of Meulen, Stappers and Willemse; the witness is a state of the slice satisfying the BEEM reachability goal (or an accepting cycle of the slice for LTL). \
BMC is explicit BFS stopped at the first witness (the number of states it has stored then: the paper's optimistic BMC figure). \
*Witness probability* = runs with a witness / runs; *ratio* = mean slice states / BMC states (below 1: BBMC builds fewer states, the paper's Figs. 3-5); \
*states per witness* = mean slice states / witness probability, the expected number of slice states built until a witness is found by repeating BBMC."
    )?;
    writeln!(md)?;
    writeln!(md, "Files: `breadth.csv`, `degradation.csv`, `witness-rate-*.svg`, `ratio-*.svg`, `degradation-*-{{rate,states}}.svg`.")?;
    writeln!(md)?;
    writeln!(md, "## Properties")?;
    writeln!(md)?;
    writeln!(
        md,
        "| property | class | BEEM cex length | states | BFS levels | BMC states | formula |"
    )?;
    writeln!(md, "|---|---|---:|---:|---:|---:|---|")?;
    for p in props {
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | `{}` |",
            p.name(),
            p.class(),
            opt(p.cex),
            p.states,
            p.levels,
            opt(p.bmc.states),
            p.formula.replace('|', "\\|")
        )?;
    }
    writeln!(md)?;
    writeln!(
        md,
        "## Witness probability and slice size by breadth bound (Algorithm 2)"
    )?;
    writeln!(md)?;
    writeln!(
        md,
        "Each cell: witness probability / mean slice states / ratio to BMC."
    )?;
    writeln!(md)?;
    writeln!(
        md,
        "| property | class | BMC | N=1 | N=2 | N=3 | N=4 | N=5 | N=6 |"
    )?;
    writeln!(md, "|---|---|---:|---|---|---|---|---|---|")?;
    let mut names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    names.dedup();
    for n in &names {
        let rs: Vec<&Row> = rows.iter().filter(|r| &r.name == n).collect();
        write!(md, "| {} | {} | {} |", n, rs[0].class, opt(rs[0].bmc))?;
        for r in &rs {
            write!(md, " {:.2} / {:.0} / {} |", r.rate, r.mean_states, f3(r.ratio()))?;
        }
        writeln!(md)?;
    }
    writeln!(md)?;
    writeln!(md, "## BBMC against BMC")?;
    writeln!(md)?;
    writeln!(
        md,
        "Per property: the best breadth bound by expected states per witness, that figure, and BMC's. \
BBMC wins when a witness costs fewer slice states on average than BMC stores; \
*single run* says whether some N gives probability >= 0.9 with fewer states than BMC in one run."
    )?;
    writeln!(md)?;
    writeln!(md, "| property | class | BEEM cex | best N | probability | states per witness | BMC states | winner | single run |")?;
    writeln!(md, "|---|---|---:|---:|---:|---:|---:|---|---|")?;
    let mut tally: Vec<(&str, u32, u32)> = vec![("shallow", 0, 0), ("middle", 0, 0), ("deep", 0, 0)];
    for n in &names {
        let rs: Vec<&Row> = rows.iter().filter(|r| &r.name == n).collect();
        let p = props.iter().find(|p| &p.name() == n).unwrap();
        let best = rs
            .iter()
            .filter(|r| r.per_witness().is_some())
            .min_by(|a, b| a.per_witness().partial_cmp(&b.per_witness()).unwrap());
        let bmc = p.bmc.states.map(|b| b as f64);
        let win = match (best.and_then(|b| b.per_witness()), bmc) {
            (Some(w), Some(b)) if w < b => "BBMC",
            (_, Some(_)) => "BMC",
            _ => "-",
        };
        let single = rs
            .iter()
            .any(|r| r.rate >= 0.9 && bmc.is_some_and(|b| r.mean_states < b));
        if let Some(t) = tally.iter_mut().find(|t| t.0 == p.class()) {
            if win == "BBMC" {
                t.1 += 1;
            } else {
                t.2 += 1;
            }
        }
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            n,
            p.class(),
            opt(p.cex),
            best.map(|b| b.breadth.to_string()).unwrap_or("-".into()),
            best.map(|b| format!("{:.2}", b.rate)).unwrap_or("0".into()),
            best.and_then(|b| b.per_witness())
                .map(|x| format!("{x:.0}"))
                .unwrap_or("no witness".into()),
            opt(p.bmc.states),
            win,
            if single { "yes" } else { "no" }
        )?;
    }
    writeln!(md)?;
    for (c, b, m) in &tally {
        writeln!(md, "- {c} goals: BBMC cheaper on {b}, BMC on {m}.")?;
    }
    writeln!(md)?;
    writeln!(md, "## Graceful degradation (Algorithm 3)")?;
    writeln!(md)?;
    writeln!(
        md,
        "Depth bound D (none = Algorithm 2) by breadth bound N. Each cell: witness probability / mean slice states. The paper's estimate of the slice size with degradation is D x N."
    )?;
    for &(inst, id) in dset {
        let name = format!("{inst} #{id}");
        let p = props.iter().find(|p| p.name() == name).unwrap();
        writeln!(md)?;
        writeln!(
            md,
            "### {name} ({}, BEEM cex {}, BMC {} states)",
            p.class(),
            opt(p.cex),
            opt(p.bmc.states)
        )?;
        writeln!(md)?;
        write!(md, "| D |")?;
        for n in DEGRADE_BREADTHS {
            write!(md, " N={n} |")?;
        }
        writeln!(md)?;
        write!(md, "|---|")?;
        for _ in DEGRADE_BREADTHS {
            write!(md, "---|")?;
        }
        writeln!(md)?;
        for &d in DEGRADE_DEPTHS {
            write!(md, "| {} |", d.map_or("none".to_string(), |d| d.to_string()))?;
            for &n in DEGRADE_BREADTHS {
                if let Some(r) = drows
                    .iter()
                    .find(|r| r.name == name && r.depth == d && r.breadth == n)
                {
                    write!(md, " {:.2} / {:.0} |", r.rate, r.mean_states)?;
                }
            }
            writeln!(md)?;
        }
    }
    Ok(md)
}
