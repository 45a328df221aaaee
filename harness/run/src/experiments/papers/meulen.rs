//! `bench report FILE --paper meulen-bbmc`: Breadth-Bounded Model Checking
//! against BMC on BEEM properties (Meulen, Stappers, Willemse, Section 4),
//! from the rows of `beem/matrices/meulen-bbmc.toml`:
//!
//! - per property (shallow, middle and deep counterexamples by BEEM's
//!   shortest counterexample length; LTL), Algorithm 2 at breadth bounds
//!   1..6: the *witness probability* (runs whose slice holds a witness), the
//!   mean slice size and its ratio to the states BMC (BFS stopped at the
//!   first witness) stores — the paper's Table 1 and Figs. 3-4 — and the
//!   expected slice states per witness (mean slice size / probability);
//! - graceful degradation (Algorithm 3, Fig. 5): depth bounds D by breadth
//!   bounds N.
//!
//! The state count and BFS levels of each instance come from its `bfs`
//! cell; the class and formula of each property from `properties.csv`.
//! Writes `README.md`, `breadth.csv`, `degradation.csv` and SVG plots.

use crate::engine::Outcome;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::experiments::plot;
use crate::experiments::schema::Row;
use crate::model::beem::{Beem, PropertyKind, PropertyRow};

/// One property's figures.
struct Prop {
    instance: String,
    id: u32,
    ltl: bool,
    formula: String,
    cex: Option<u64>,
    states: Option<u64>,
    levels: Option<u64>,
    bmc: Option<u64>,
}

impl Prop {
    fn name(&self) -> String {
        format!("{} #{}", self.instance, self.id)
    }
    fn class(&self) -> &'static str {
        match (self.ltl, self.cex) {
            (true, _) => "ltl",
            (_, Some(c)) if c <= 20 => "shallow",
            (_, Some(c)) if c >= 50 => "deep",
            _ => "middle",
        }
    }
}

/// One configuration's figures.
struct Fig<'a> {
    row: &'a Row,
    breadth: u64,
    depth: Option<u64>,
}

impl Fig<'_> {
    fn rate(&self) -> f64 {
        self.row.num("witness_rate").unwrap_or(0.0)
    }
    fn states(&self) -> f64 {
        self.row.num("slice_states").unwrap_or(0.0)
    }
    fn ratio(&self) -> Option<f64> {
        self.row.num("bmc_states").map(|b| self.states() / b)
    }
    /// Slice states spent per witness found (repeating BBMC until one is found).
    fn per_witness(&self) -> Option<f64> {
        (self.rate() > 0.0).then(|| self.states() / self.rate())
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn f3(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_default()
}

fn property_of(r: &Row) -> Option<u32> {
    r.extra()
        .get("property")
        .and_then(|v| v.as_u64())
        .map(|v| v as u32)
        .or_else(|| {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(r.get("params"))
                .ok()?
                .get("property")?
                .as_u64()
                .map(|v| v as u32)
        })
}

/// A property's key: instance and property id.
type Key = (String, u32);

/// Everything the tables and plots are made of.
struct Figures<'a> {
    props: BTreeMap<Key, Prop>,
    /// Per property, its configurations sorted by depth bound (none last), then breadth.
    figs: BTreeMap<Key, Vec<Fig<'a>>>,
    /// Properties run with Algorithm 2 at N = 1..6.
    breadth_set: Vec<Key>,
    /// Properties run with some depth bound D.
    degrade_set: Vec<Key>,
    /// The depth bounds run, then `None` (Algorithm 2).
    depths: Vec<Option<u64>>,
    /// The breadth bounds run with a depth bound.
    breadths: BTreeSet<u64>,
    runs: String,
    seeds: String,
}

impl<'a> Figures<'a> {
    fn collect(rows: &'a [Row], props_csv: &[PropertyRow]) -> Result<Self> {
        // |S| and BFS levels from the bfs cells.
        let mut bfs: BTreeMap<&str, (Option<u64>, Option<u64>)> = BTreeMap::new();
        for r in rows
            .iter()
            .filter(|r| r.get("strategy") == "bfs" && r.get("result") == Outcome::Complete.name())
        {
            bfs.insert(
                r.get("instance"),
                (
                    r.num("states").map(|x| x as u64),
                    r.num("levels").map(|x| x as u64),
                ),
            );
        }
        let slices: Vec<&Row> = rows.iter().filter(|r| r.get("strategy") == "bbmc").collect();
        if slices.is_empty() {
            bail!("no bbmc cell: is this a run of meulen-bbmc.toml?");
        }
        let mut props: BTreeMap<Key, Prop> = BTreeMap::new();
        let mut figs: BTreeMap<Key, Vec<Fig>> = BTreeMap::new();
        let (mut runs, mut seeds) = (BTreeSet::new(), BTreeSet::new());
        for r in slices {
            let Some(id) = property_of(r) else { continue };
            let inst = r.get("instance").to_string();
            runs.insert(r.get("runs").to_string());
            seeds.insert(r.get("seed").to_string());
            let key = (inst.clone(), id);
            props.entry(key.clone()).or_insert_with(|| {
                let p = props_csv.iter().find(|p| p.instance == inst && p.prop_id == id);
                Prop {
                    instance: inst.clone(),
                    id,
                    ltl: p.is_some_and(|p| p.kind == PropertyKind::Ltl),
                    formula: p.map(|p| p.formula.clone()).unwrap_or_default(),
                    cex: p.and_then(|p| p.cex_length),
                    states: bfs.get(inst.as_str()).and_then(|x| x.0),
                    levels: bfs.get(inst.as_str()).and_then(|x| x.1),
                    bmc: r.num("bmc_states").map(|x| x as u64),
                }
            });
            figs.entry(key).or_default().push(Fig {
                row: r,
                breadth: r.num("breadth").unwrap_or(0.0) as u64,
                depth: r.num("degrade_depth").map(|x| x as u64),
            });
        }
        for f in figs.values_mut() {
            f.sort_by_key(|f| (f.depth.unwrap_or(u64::MAX), f.breadth));
        }
        // The breadth set: Algorithm 2 at N = 1..6; the degradation set: any D.
        let breadth_set: Vec<Key> = figs
            .iter()
            .filter(|(_, f)| (1..=6).all(|n| f.iter().any(|x| x.depth.is_none() && x.breadth == n)))
            .map(|(k, _)| k.clone())
            .collect();
        let degrade_set: Vec<Key> = figs
            .iter()
            .filter(|(_, f)| f.iter().any(|x| x.depth.is_some()))
            .map(|(k, _)| k.clone())
            .collect();
        let degraded = || figs.values().flatten().filter(|f| f.depth.is_some());
        let depths: BTreeSet<Option<u64>> = degraded().map(|f| f.depth).collect();
        let depths: Vec<Option<u64>> = depths.into_iter().chain([None]).collect();
        let breadths: BTreeSet<u64> = degraded().map(|f| f.breadth).collect();
        let join = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        Ok(Figures {
            runs: join(&runs),
            seeds: join(&seeds),
            props,
            figs,
            breadth_set,
            degrade_set,
            depths,
            breadths,
        })
    }

    /// Algorithm 2's configurations of `k` at N = 1..6.
    fn by_breadth(&self, k: &Key) -> impl Iterator<Item = &Fig<'a>> {
        self.figs[k]
            .iter()
            .filter(|f| f.depth.is_none() && f.breadth <= 6)
    }

    /// The configurations of `k` at depth bound `d` and a breadth of the degradation grid.
    fn at_depth(&self, k: &Key, d: Option<u64>) -> impl Iterator<Item = &Fig<'a>> {
        self.figs[k]
            .iter()
            .filter(move |f| f.depth == d && self.breadths.contains(&f.breadth))
    }
}

/// Renders the tables and plots into `out`.
pub fn render(rows: &[Row], out: &Path, beem: Option<&Beem>) -> Result<Vec<PathBuf>> {
    let Some(beem) = beem else {
        bail!("the meulen-bbmc tables need properties.csv: give --beem DIR");
    };
    let props_csv = beem.properties()?;
    let figures = Figures::collect(rows, &props_csv)?;
    let mut files = Files {
        out,
        written: vec![out.join("breadth.csv"), out.join("degradation.csv")],
    };
    let (breadth_csv, degrade_csv) = csvs(&figures);
    std::fs::write(&files.written[0], breadth_csv)?;
    std::fs::write(&files.written[1], degrade_csv)?;
    write_breadth_plots(&figures, &mut files)?;
    write_degradation_plots(&figures, &mut files)?;

    let mut md = String::new();
    md_intro(&mut md, &figures);
    md_properties(&mut md, &figures);
    md_breadth(&mut md, &figures);
    md_against_bmc(&mut md, &figures);
    md_degradation(&mut md, &figures);
    let md_path = out.join("README.md");
    std::fs::write(&md_path, md)?;
    files.written.insert(0, md_path);
    Ok(files.written)
}

const CSV_HEADER: &str = "instance,prop_id,type,class,beem_cex_length,states,bfs_levels,bmc_states,breadth,degrade_depth,runs,seed,witness_rate,mean_slice_states,mean_slice_transitions,mean_queues,ratio_to_bmc,states_per_witness,mean_witness_length,incomplete_runs,seconds\n";

/// One configuration's line of `breadth.csv` or `degradation.csv`.
fn csv_line(p: &Prop, f: &Fig) -> String {
    let r = f.row;
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{:.2},{:.2},{:.2},{:.2},{},{},{},{},{:.3}\n",
        p.instance,
        p.id,
        if p.ltl { "LTL" } else { "reachability" },
        p.class(),
        opt(p.cex),
        opt(p.states),
        opt(p.levels),
        opt(p.bmc),
        f.breadth,
        opt(f.depth),
        r.get("runs"),
        r.get("seed"),
        f.rate(),
        f.states(),
        r.num("slice_transitions").unwrap_or(0.0),
        r.num("queues").unwrap_or(0.0),
        f3(f.ratio()),
        f.per_witness().map(|x| format!("{x:.1}")).unwrap_or_default(),
        r.num("witness_length")
            .map(|x| format!("{x:.1}"))
            .unwrap_or_default(),
        r.get("incomplete_runs"),
        r.num("time_s").unwrap_or(0.0),
    )
}

/// `breadth.csv` and `degradation.csv`.
fn csvs(fs: &Figures) -> (String, String) {
    let mut breadth_csv = String::from(CSV_HEADER);
    for k in &fs.breadth_set {
        for f in fs.by_breadth(k) {
            breadth_csv.push_str(&csv_line(&fs.props[k], f));
        }
    }
    let mut degrade_csv = String::from(CSV_HEADER);
    for k in &fs.degrade_set {
        for d in &fs.depths {
            for f in fs.at_depth(k, *d) {
                degrade_csv.push_str(&csv_line(&fs.props[k], f));
            }
        }
    }
    (breadth_csv, degrade_csv)
}

/// The output folder and the files written to it so far.
struct Files<'p> {
    out: &'p Path,
    written: Vec<PathBuf>,
}

impl Files<'_> {
    /// Writes a plot unless it is empty (no points).
    fn plot(&mut self, file: String, svg: String) -> Result<()> {
        if !svg.is_empty() {
            let p = self.out.join(file);
            std::fs::write(&p, svg)?;
            self.written.push(p);
        }
        Ok(())
    }
}

/// A plot's series: one line per property or per depth bound.
type Series = Vec<(String, Vec<(f64, f64)>)>;

/// Witness probability and slice/BMC ratio by breadth bound, per class.
fn write_breadth_plots(fs: &Figures, files: &mut Files) -> Result<()> {
    let runs = &fs.runs;
    for class in ["shallow", "middle", "deep"] {
        let series = |f: &dyn Fn(&Fig) -> Option<f64>| -> Series {
            fs.breadth_set
                .iter()
                .filter(|k| fs.props[*k].class() == class)
                .map(|k| {
                    let pts = fs
                        .by_breadth(k)
                        .filter_map(|x| f(x).map(|y| (x.breadth as f64, y)))
                        .collect();
                    (fs.props[k].name(), pts)
                })
                .collect()
        };
        files.plot(
            format!("witness-rate-{class}.svg"),
            plot::lines(
                &format!("Witness probability, {class} goals (Algorithm 2, {runs} runs)"),
                "breadth bound N",
                "probability of a witness",
                &series(&|x| Some(x.rate())),
                false,
                false,
            ),
        )?;
        files.plot(
            format!("ratio-{class}.svg"),
            plot::lines(
                &format!("Slice states / BMC states, {class} goals"),
                "breadth bound N",
                "mean slice states / BMC states (log)",
                &series(&|x| x.ratio()),
                true,
                false,
            ),
        )?;
    }
    Ok(())
}

/// Per degraded property, witness probability and slice states by N, a line per D.
fn write_degradation_plots(fs: &Figures, files: &mut Files) -> Result<()> {
    for k in &fs.degrade_set {
        let p = &fs.props[k];
        let series = |f: &dyn Fn(&Fig) -> f64| -> Series {
            fs.depths
                .iter()
                .map(|d| {
                    let name = d.map_or("no degradation".to_string(), |d| format!("D = {d}"));
                    let pts = fs.at_depth(k, *d).map(|x| (x.breadth as f64, f(x))).collect();
                    (name, pts)
                })
                .collect()
        };
        let file = format!("degradation-{}-{}", p.instance, p.id);
        files.plot(
            format!("{file}-rate.svg"),
            plot::lines(
                &format!("{}: witness probability", p.name()),
                "breadth bound N (log2)",
                "probability of a witness",
                &series(&|x| x.rate()),
                false,
                true,
            ),
        )?;
        files.plot(
            format!("{file}-states.svg"),
            plot::lines(
                &format!("{}: mean slice states (BMC {})", p.name(), opt(p.bmc)),
                "breadth bound N (log2)",
                "mean slice states (log)",
                &series(&|x| x.states()),
                true,
                true,
            ),
        )?;
    }
    Ok(())
}

/// The report's title, what was run and the files.
fn md_intro(md: &mut String, fs: &Figures) {
    let (runs, seeds) = (&fs.runs, &fs.seeds);
    let _ = writeln!(md, "# Breadth-Bounded Model Checking on BEEM\n");
    let _ = writeln!(
        md,
        "`dvemc bench report FILE --paper meulen-bbmc` on a run of `beem/matrices/meulen-bbmc.toml`: \
{runs} seeded runs per configuration (series seed {seeds}), interpreter backend. \
Algorithm 2 (bounded breadth-first exploration, totality kept) of Meulen, Stappers and Willemse; the witness is a state of the slice satisfying the BEEM reachability goal (or an accepting cycle of the slice for LTL). \
BMC is explicit BFS stopped at the first witness (the number of states it has stored then: the paper's optimistic BMC figure). \
*Witness probability* = runs with a witness / runs; *ratio* = mean slice states / BMC states (below 1: BBMC builds fewer states, the paper's Figs. 3-5); \
*states per witness* = mean slice states / witness probability, the expected number of slice states built until a witness is found by repeating BBMC.\n"
    );
    let _ = writeln!(
        md,
        "Files: `breadth.csv`, `degradation.csv`, `witness-rate-*.svg`, `ratio-*.svg`, `degradation-*-{{rate,states}}.svg`.\n"
    );
}

/// The properties table.
fn md_properties(md: &mut String, fs: &Figures) {
    let _ = writeln!(md, "## Properties\n");
    let _ = writeln!(
        md,
        "| property | class | BEEM cex length | states | BFS levels | BMC states | formula |\n|---|---|---:|---:|---:|---:|---|"
    );
    for p in fs.props.values() {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | `{}` |",
            p.name(),
            p.class(),
            opt(p.cex),
            opt(p.states),
            opt(p.levels),
            opt(p.bmc),
            p.formula.replace('|', "\\|")
        );
    }
}

/// Witness probability and slice size by breadth bound (Algorithm 2).
fn md_breadth(md: &mut String, fs: &Figures) {
    let _ = writeln!(
        md,
        "\n## Witness probability and slice size by breadth bound (Algorithm 2)\n\n\
         Each cell: witness probability / mean slice states / ratio to BMC.\n"
    );
    let _ = writeln!(
        md,
        "| property | class | BMC | N=1 | N=2 | N=3 | N=4 | N=5 | N=6 |\n|---|---|---:|---|---|---|---|---|---|"
    );
    for k in &fs.breadth_set {
        let p = &fs.props[k];
        let _ = write!(md, "| {} | {} | {} |", p.name(), p.class(), opt(p.bmc));
        for f in fs.by_breadth(k) {
            let _ = write!(md, " {:.2} / {:.0} / {} |", f.rate(), f.states(), f3(f.ratio()));
        }
        let _ = writeln!(md);
    }
}

/// BBMC's best breadth bound against BMC, per property, and the tally per class.
fn md_against_bmc(md: &mut String, fs: &Figures) {
    let _ = writeln!(
        md,
        "\n## BBMC against BMC\n\n\
Per property: the best breadth bound by expected states per witness, that figure, and BMC's. \
BBMC wins when a witness costs fewer slice states on average than BMC stores; \
*single run* says whether some N gives probability >= 0.9 with fewer states than BMC in one run.\n"
    );
    let _ = writeln!(
        md,
        "| property | class | BEEM cex | best N | probability | states per witness | BMC states | winner | single run |\n|---|---|---:|---:|---:|---:|---:|---|---|"
    );
    let mut tally: Vec<(&str, u32, u32)> = vec![("shallow", 0, 0), ("middle", 0, 0), ("deep", 0, 0)];
    for k in &fs.breadth_set {
        let p = &fs.props[k];
        let figs: Vec<&Fig> = fs.by_breadth(k).collect();
        let best = figs.iter().filter(|f| f.per_witness().is_some()).min_by(|a, b| {
            a.per_witness()
                .unwrap_or(f64::MAX)
                .total_cmp(&b.per_witness().unwrap_or(f64::MAX))
        });
        let bmc = p.bmc.map(|b| b as f64);
        let win = match (best.and_then(|b| b.per_witness()), bmc) {
            (Some(w), Some(b)) if w < b => "BBMC",
            (_, Some(_)) => "BMC",
            _ => "-",
        };
        let single = figs
            .iter()
            .any(|f| f.rate() >= 0.9 && bmc.is_some_and(|b| f.states() < b));
        if let Some(t) = tally.iter_mut().find(|t| t.0 == p.class()) {
            if win == "BBMC" {
                t.1 += 1;
            } else {
                t.2 += 1;
            }
        }
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.name(),
            p.class(),
            opt(p.cex),
            best.map(|b| b.breadth.to_string()).unwrap_or("-".into()),
            best.map(|b| format!("{:.2}", b.rate())).unwrap_or("0".into()),
            best.and_then(|b| b.per_witness())
                .map(|x| format!("{x:.0}"))
                .unwrap_or("no witness".into()),
            opt(p.bmc),
            win,
            if single { "yes" } else { "no" }
        );
    }
    let _ = writeln!(md);
    for (c, b, m) in &tally {
        let _ = writeln!(md, "- {c} goals: BBMC cheaper on {b}, BMC on {m}.");
    }
}

/// Graceful degradation (Algorithm 3): a D by N table per property.
fn md_degradation(md: &mut String, fs: &Figures) {
    let _ = writeln!(
        md,
        "\n## Graceful degradation (Algorithm 3)\n\n\
Depth bound D (none = Algorithm 2) by breadth bound N. Each cell: witness probability / mean slice states. The paper's estimate of the slice size with degradation is D x N."
    );
    for k in &fs.degrade_set {
        let p = &fs.props[k];
        let _ = writeln!(
            md,
            "\n### {} ({}, BEEM cex {}, BMC {} states)\n",
            p.name(),
            p.class(),
            opt(p.cex),
            opt(p.bmc)
        );
        let _ = write!(md, "| D |");
        for n in &fs.breadths {
            let _ = write!(md, " N={n} |");
        }
        let _ = write!(md, "\n|---|");
        for _ in &fs.breadths {
            let _ = write!(md, "---|");
        }
        let _ = writeln!(md);
        for d in &fs.depths {
            let _ = write!(md, "| {} |", d.map_or("none".to_string(), |d| d.to_string()));
            for n in &fs.breadths {
                if let Some(f) = fs.figs[k].iter().find(|f| f.depth == *d && f.breadth == *n) {
                    let _ = write!(md, " {:.2} / {:.0} |", f.rate(), f.states());
                }
            }
            let _ = writeln!(md);
        }
    }
}
