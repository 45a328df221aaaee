//! The experiments of the state-caching paper: Table 2 (state caching with
//! DFS, BFS, BBFS(w) and Alt(b, d), with and without chain reduction) and
//! Table 3 (state caching with the sweep-line method), run on BEEM and
//! written beside the paper's figures (`results/caching/`).
//!
//! Table 2 protocol (Table 1 of the paper): edge-lean reduction always on;
//! cache sizes 5, 10, 15, … % of `|S|` until a run succeeds; visits bounded
//! by 5·|S|; every replacement strategy; BBFS(w) for w ∈ {4, 16, 256},
//! Alt(b, d) for b, d ∈ {1, 4, 8}. For each instance, search family and CR
//! setting, the best run is the successful one with the smallest cache,
//! then the fewest visits; S is its cache size and V its visits, both in %
//! of `|S|`.
//!
//! Table 3 protocol: automatic progress measures of the paper's levels
//! (`projection` derivation unless told otherwise); SL alone (S = peak
//! stored, V, P = persistent at the end, L = largest class in memory at
//! once), then SL + SC with the stratified strategy and the smallest cache
//! (1 % grid, bisected to 0.1 %) with which a run succeeds within 5·|S|
//! visits.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use dve_frontend::model::NextState;

use super::sweep::{derive_progress, full_graph, Derivation, Progress};
use super::{run, CacheSize, CachingReport, Independence, Options, Order, Replacement};
use crate::explore::{bfs, Limits};
use crate::manifest::Beem;
use crate::search::Outcome;

/// One cell pair of the paper's Table 2: (S, V) for no CR and CR per family.
pub struct PaperRow {
    pub instance: &'static str,
    pub states: u64,
    pub degree: f64,
    /// [DFS, BFS, BBFS, Alt] × [no CR, CR] → (S, V, parameter).
    pub cells: [[(u32, u32, &'static str); 2]; 4],
}

macro_rules! row {
    ($i:expr, $s:expr, $d:expr,
     $d1:expr, $d2:expr, $d3:expr, $d4:expr,
     $b1:expr, $b2:expr, $b3:expr, $b4:expr,
     $w1:expr, $w2:expr, $wp1:expr, $w3:expr, $w4:expr, $wp2:expr,
     $a1:expr, $a2:expr, $ap1:expr, $a3:expr, $a4:expr, $ap2:expr) => {
        PaperRow {
            instance: $i,
            states: $s,
            degree: $d,
            cells: [
                [($d1, $d2, ""), ($d3, $d4, "")],
                [($b1, $b2, ""), ($b3, $b4, "")],
                [($w1, $w2, $wp1), ($w3, $w4, $wp2)],
                [($a1, $a2, $ap1), ($a3, $a4, $ap2)],
            ],
        }
    };
}

/// Table 2 of the paper (rows: instance, |S|, d; DFS S V no/yes; BFS S V
/// no/yes; BBFS S V w no/yes; Alt S V (b,d) no/yes).
pub fn paper_table2() -> Vec<PaperRow> {
    vec![
        row!(
            "at.2", 49443, 2.9, 35, 228, 30, 428, 40, 130, 40, 130, 30, 369, "4", 30, 373, "4", 30, 219,
            "8,4", 30, 222, "8,4"
        ),
        row!(
            "bakery.4", 157003, 2.6, 20, 271, 20, 271, 25, 216, 25, 149, 25, 173, "4", 25, 168, "4", 20, 185,
            "8,4", 20, 185, "8,4"
        ),
        row!(
            "bopdp.2", 25685, 2.8, 15, 215, 10, 437, 30, 149, 25, 162, 15, 246, "4", 10, 398, "4", 15, 213,
            "1,8", 10, 406, "1,8"
        ),
        row!(
            "brp.3", 996627, 2.0, 5, 235, 5, 152, 15, 112, 10, 116, 5, 163, "256", 5, 168, "256", 5, 160,
            "8,8", 5, 153, "8,8"
        ),
        row!(
            "brp2.5", 298111, 1.4, 5, 141, 5, 140, 30, 112, 20, 103, 5, 130, "4", 5, 131, "4", 5, 135, "8,1",
            5, 137, "8,1"
        ),
        row!(
            "cambridge.5",
            698912,
            4.5,
            45,
            285,
            45,
            287,
            35,
            121,
            35,
            120,
            45,
            203,
            "4",
            45,
            200,
            "16",
            45,
            232,
            "8,4",
            45,
            233,
            "8,8"
        ),
        row!(
            "collision.3",
            434530,
            2.3,
            10,
            484,
            10,
            338,
            30,
            119,
            25,
            169,
            10,
            487,
            "16",
            10,
            412,
            "16",
            10,
            239,
            "8,1",
            10,
            286,
            "8,1"
        ),
        row!(
            "extinction.3",
            751930,
            3.5,
            10,
            185,
            10,
            184,
            10,
            100,
            10,
            100,
            10,
            186,
            "4",
            10,
            187,
            "4",
            10,
            176,
            "4,4",
            10,
            176,
            "4,4"
        ),
        row!(
            "firewire_link.7",
            399598,
            2.7,
            5,
            327,
            5,
            321,
            25,
            101,
            20,
            101,
            5,
            278,
            "256",
            5,
            348,
            "256",
            5,
            214,
            "8,1",
            5,
            230,
            "8,1"
        ),
        row!(
            "firewire_tree.4",
            169992,
            3.7,
            10,
            337,
            10,
            345,
            10,
            100,
            10,
            100,
            15,
            190,
            "4",
            15,
            191,
            "4",
            10,
            313,
            "4,4",
            10,
            311,
            "4,4"
        ),
        row!(
            "gear.2", 16689, 1.3, 15, 109, 15, 106, 10, 100, 5, 102, 10, 100, "256", 5, 101, "256", 10, 102,
            "4,4", 10, 101, "4,4"
        ),
        row!(
            "iprotocol.2",
            29994,
            3.3,
            5,
            359,
            5,
            364,
            20,
            132,
            20,
            132,
            5,
            250,
            "4",
            5,
            245,
            "16",
            5,
            296,
            "8,1",
            5,
            294,
            "1,1"
        ),
        row!(
            "lamport_nonatomic.3",
            36983,
            3.3,
            45,
            398,
            45,
            366,
            50,
            120,
            50,
            119,
            45,
            257,
            "4",
            45,
            260,
            "4",
            45,
            237,
            "8,8",
            45,
            232,
            "8,1"
        ),
        row!(
            "leader_election.4",
            746240,
            5.0,
            15,
            450,
            15,
            316,
            10,
            100,
            10,
            100,
            15,
            456,
            "16",
            15,
            453,
            "16",
            15,
            273,
            "4,1",
            15,
            275,
            "4,1"
        ),
        row!(
            "lifts.6", 333649, 2.1, 5, 123, 5, 124, 15, 123, 15, 112, 5, 125, "4", 5, 132, "4", 5, 124,
            "1,1", 5, 124, "1,1"
        ),
        row!(
            "lup.2", 495720, 1.8, 30, 478, 30, 294, 30, 142, 30, 142, 40, 369, "4", 35, 324, "4", 15, 429,
            "8,8", 15, 428, "8,8"
        ),
        row!(
            "needham.3",
            206925,
            2.7,
            5,
            412,
            5,
            415,
            30,
            100,
            30,
            100,
            5,
            409,
            "256",
            5,
            417,
            "256",
            5,
            435,
            "1,1",
            5,
            435,
            "1,1"
        ),
        row!(
            "peterson.3",
            170156,
            3.1,
            25,
            345,
            25,
            331,
            35,
            142,
            35,
            136,
            25,
            374,
            "4",
            25,
            356,
            "4",
            25,
            329,
            "1,8",
            25,
            320,
            "8,8"
        ),
        row!(
            "pgm_protocol.7",
            322585,
            2.5,
            10,
            152,
            10,
            152,
            10,
            106,
            5,
            112,
            5,
            360,
            "16",
            5,
            392,
            "4",
            5,
            493,
            "8,1",
            10,
            145,
            "4,1"
        ),
        row!(
            "plc.2", 130777, 1.6, 5, 100, 5, 100, 30, 100, 10, 100, 10, 101, "4", 5, 113, "4", 5, 100, "1,8",
            5, 101, "8,8"
        ),
        row!(
            "production_cell.4",
            340685,
            2.8,
            10,
            176,
            10,
            175,
            10,
            100,
            10,
            100,
            10,
            162,
            "4",
            10,
            162,
            "4",
            10,
            157,
            "8,1",
            10,
            158,
            "8,1"
        ),
        row!(
            "rether.3", 305334, 1.0, 30, 118, 25, 152, 40, 104, 15, 111, 35, 132, "256", 15, 117, "256", 25,
            113, "8,1", 15, 128, "8,1"
        ),
        row!(
            "synapse.6",
            625175,
            1.9,
            5,
            148,
            5,
            118,
            30,
            111,
            25,
            296,
            5,
            133,
            "16",
            5,
            136,
            "16",
            5,
            129,
            "8,8",
            5,
            129,
            "8,8"
        ),
        row!(
            "telephony.3",
            765379,
            4.1,
            30,
            394,
            25,
            491,
            50,
            124,
            50,
            123,
            25,
            482,
            "256",
            25,
            470,
            "16",
            25,
            368,
            "8,1",
            25,
            388,
            "8,1"
        ),
        row!(
            "train-gate.5",
            803458,
            2.1,
            10,
            114,
            10,
            114,
            20,
            100,
            20,
            100,
            10,
            110,
            "4",
            10,
            105,
            "256",
            10,
            102,
            "4,1",
            10,
            102,
            "4,1"
        ),
    ]
}

pub const FAMILIES: [&str; 4] = ["DFS", "BFS", "BBFS", "Alt"];

/// The orders of a family in the paper's grid.
pub fn family_orders(family: usize) -> Vec<Order> {
    match family {
        0 => vec![Order::Dfs],
        1 => vec![Order::Bfs],
        2 => [4, 16, 256].into_iter().map(|w| Order::Bbfs(Some(w))).collect(),
        _ => {
            let mut v = Vec::new();
            for b in [1, 4, 8] {
                for d in [1, 4, 8] {
                    v.push(Order::Alt(Some(b), Some(d)));
                }
            }
            v
        }
    }
}

fn order_param(o: Order) -> String {
    match o {
        Order::Bbfs(Some(w)) => w.to_string(),
        Order::Alt(Some(b), Some(d)) => format!("{b},{d}"),
        _ => String::new(),
    }
}

/// The best run of one cell.
#[derive(Clone, Debug)]
pub struct Best {
    pub cache_pct: u32,
    pub visits_pct: f64,
    pub stored_pct: f64,
    pub order: Order,
    pub replacement: Replacement,
    pub runs: u32,
    /// Successful runs at the best cache size, and the most visits among
    /// them: how much V depends on the strategy and parameter chosen.
    pub ok_runs: u32,
    pub worst_visits_pct: f64,
}

/// How the runs at one cache size ended (none of them succeeded).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Failures {
    pub out_of_memory: u32,
    pub out_of_time: u32,
}

/// One cell of Table 2 as measured: the best run, and when we needed a
/// larger cache than the paper (or found none), how our runs failed at the
/// paper's cache size, the measured reason for the difference.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    pub best: Option<Best>,
    pub at_paper_s: Option<Failures>,
}

/// Settings of the experiments.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub beem: PathBuf,
    pub out_dir: PathBuf,
    pub max_states: u64,
    pub instances: Option<Vec<String>>,
    pub strategies: Vec<Replacement>,
    pub threads: usize,
    /// Largest cache size tried (%).
    pub max_pct: u32,
    /// Derivation of the automatic progress measures (Table 3).
    pub derivation: Derivation,
}

fn parallel_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|sc| {
        for _ in 0..threads.max(1) {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("result"))
        .collect()
}

/// Finds the best run of a (family, CR) cell; `paper_s` is the paper's S
/// for it, where the outcomes of our failed runs are kept.
fn best_run(
    model: &dyn NextState,
    indep: &Independence,
    size: u64,
    orders: &[Order],
    cr: bool,
    paper_s: u32,
    cfg: &BenchConfig,
) -> Cell {
    let mut cell = Cell::default();
    let mut runs = 0;
    let mut pct = 5;
    while pct <= cfg.max_pct {
        let jobs: Vec<(Order, Replacement)> = orders
            .iter()
            .flat_map(|&o| cfg.strategies.iter().map(move |&r| (o, r)))
            .collect();
        let results = parallel_map(&jobs, cfg.threads, |&(order, repl)| {
            let opts = Options {
                order,
                cache: Some(CacheSize::Percent(pct as f64)),
                replacement: repl,
                chain_reduction: cr,
                edge_lean: Some(indep),
                state_space_size: Some(size),
                track_distinct: false,
                seed: 1,
                ..Default::default()
            };
            let r = run(model, &opts, None);
            (order, repl, r)
        });
        runs += results.len() as u32;
        let ok: Vec<_> = results
            .iter()
            .filter(|(_, _, r)| r.result == Outcome::Complete)
            .collect();
        if let Some((order, replacement, r)) = ok.iter().min_by_key(|(_, _, r)| r.visits) {
            cell.best = Some(Best {
                cache_pct: pct,
                visits_pct: r.visits_pct.unwrap_or(0.0),
                stored_pct: r.stored_pct.unwrap_or(0.0),
                order: *order,
                replacement: *replacement,
                runs,
                ok_runs: ok.len() as u32,
                worst_visits_pct: ok.iter().filter_map(|(_, _, r)| r.visits_pct).fold(0.0, f64::max),
            });
            return cell;
        }
        if pct == paper_s {
            let count = |o| results.iter().filter(|(_, _, r)| r.result == o).count() as u32;
            cell.at_paper_s = Some(Failures {
                out_of_memory: count(Outcome::CacheFull),
                out_of_time: count(Outcome::VisitLimit) + count(Outcome::TimeLimit),
            });
        }
        pct += 5;
    }
    cell
}

/// The instance compiled with the JIT (the interpreter if it declines):
/// the figures are the same with either backend, the runs faster.
fn model_of(beem: &Beem, name: &str) -> Option<(Box<dyn NextState>, Independence)> {
    let path = beem.model_path(name);
    let ir = dve_frontend::load_file(&path).ok()?;
    let indep = Independence::from_model(&ir);
    Some((
        crate::backend::build(ir, crate::backend::Backend::Jit).model,
        indep,
    ))
}

/// Runs the Table 2 experiment; writes `table2.csv`, `table2.md` and
/// `table2.svg` into the output directory.
pub fn table2(cfg: &BenchConfig, mut progress: impl FnMut(&str)) -> anyhow::Result<()> {
    let beem = Beem::at(&cfg.beem);
    std::fs::create_dir_all(&cfg.out_dir)?;
    let paper = paper_table2();
    let mut csv = String::from(TABLE2_HEADER);
    let mut rows: Vec<Row> = Vec::new();
    for (pi, prow) in paper.iter().enumerate() {
        if let Some(list) = &cfg.instances {
            if !list.iter().any(|i| i == prow.instance) {
                continue;
            }
        }
        if prow.states > cfg.max_states {
            progress(&format!(
                "{}: skipped ({} states > {})",
                prow.instance, prow.states, cfg.max_states
            ));
            continue;
        }
        let Some((model, indep)) = model_of(&beem, prow.instance) else {
            progress(&format!("{}: does not load", prow.instance));
            continue;
        };
        let full = bfs(model.as_ref(), &Limits::default(), false);
        let mut row = Row {
            name: prow.instance.to_string(),
            size: full.states,
            degree: full.transitions as f64 / full.states as f64,
            cells: Default::default(),
            pi,
        };
        for fam in 0..4 {
            let orders = family_orders(fam);
            for (ci, cr) in [false, true].into_iter().enumerate() {
                let t = Instant::now();
                let (ps, pv, _) = prow.cells[fam][ci];
                let cell = best_run(model.as_ref(), &indep, row.size, &orders, cr, ps, cfg);
                let secs = t.elapsed().as_secs_f64();
                csv.push_str(&csv_line(&row, fam, ci, &cell, secs, prow));
                progress(&match &cell.best {
                    Some(b) => format!(
                        "{} {} CR={}: S {} V {:.0} ({} {}) — paper S {ps} V {pv} ({secs:.1} s)",
                        row.name,
                        FAMILIES[fam],
                        if cr { "yes" } else { "no" },
                        b.cache_pct,
                        b.visits_pct,
                        b.order,
                        b.replacement,
                    ),
                    None => format!("{} {}: no successful run", row.name, FAMILIES[fam]),
                });
                row.cells[fam][ci] = cell;
            }
        }
        rows.push(row);
        // Write as we go, so a long run leaves partial results.
        std::fs::write(cfg.out_dir.join("table2.csv"), &csv)?;
        write_table2_md(&cfg.out_dir.join("table2.md"), &rows, &paper, cfg)?;
        write_table2_svg(&cfg.out_dir.join("table2.svg"), &rows, &paper)?;
    }
    Ok(())
}

const TABLE2_HEADER: &str =
    "instance,states,degree,search,cr,S,V,param,replacement,stored_peak_pct,runs,seconds,\
paper_S,paper_V,paper_param,ok_runs,V_worst,paper_S_out_of_memory,paper_S_out_of_time\n";

/// One CSV line of `table2.csv` (see `TABLE2_HEADER`).
fn csv_line(row: &Row, fam: usize, ci: usize, cell: &Cell, secs: f64, prow: &PaperRow) -> String {
    let (ps, pv, pp) = prow.cells[fam][ci];
    let best = match &cell.best {
        Some(b) => format!(
            "{},{:.0},\"{}\",{},{:.1},{}",
            b.cache_pct,
            b.visits_pct,
            order_param(b.order),
            b.replacement,
            b.stored_pct,
            b.runs
        ),
        None => ",,,,,".to_string(),
    };
    let spread = match &cell.best {
        Some(b) => format!("{},{:.0}", b.ok_runs, b.worst_visits_pct),
        None => ",".to_string(),
    };
    let fails = match cell.at_paper_s {
        Some(f) => format!("{},{}", f.out_of_memory, f.out_of_time),
        None => ",".to_string(),
    };
    format!(
        "{},{},{:.2},{},{},{best},{secs:.1},{ps},{pv},\"{pp}\",{spread},{fails}\n",
        row.name,
        row.size,
        row.degree,
        FAMILIES[fam],
        if ci == 1 { "yes" } else { "no" },
    )
}

/// One instance of Table 2 as measured.
struct Row {
    name: String,
    size: u64,
    degree: f64,
    /// [DFS, BFS, BBFS, Alt] × [no CR, CR].
    cells: [[Cell; 2]; 4],
    /// Its index in `paper_table2()`.
    pi: usize,
}

fn write_table2_md(path: &Path, rows: &[Row], paper: &[PaperRow], cfg: &BenchConfig) -> anyhow::Result<()> {
    let mut md = String::new();
    let _ = writeln!(md, "# Table 2 of the state-caching paper, measured by dvemc\n");
    let _ = writeln!(
        md,
        "Each cell: S (cache size, % of |S|) / V (visits, % of |S|) of the best successful run \
         (smallest cache, then fewest visits), ours then the paper's in brackets. Edge-lean \
         reduction on; cache sizes 5, 10, … %; visits ≤ 5·|S|; replacement strategies: {}; \
         BBFS w ∈ {{4, 16, 256}}, Alt b, d ∈ {{1, 4, 8}} (chosen parameter after the cell). \
         `-` = no successful run up to {} %.\n",
        cfg.strategies
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        cfg.max_pct
    );
    let _ = writeln!(
        md,
        "| Model | CR | DFS S/V | BFS S/V | BBFS S/V (w) | Alt S/V (b,d) |"
    );
    let _ = writeln!(md, "| --- | --- | --- | --- | --- | --- |");
    let mut sums = [[(0.0f64, 0.0f64, 0.0f64, 0.0f64, 0u32); 2]; 4];
    for row in rows {
        let p = &paper[row.pi];
        for ci in 0..2 {
            let mut line = if ci == 0 {
                format!(
                    "| {} (states {}, d = {:.1}) | no |",
                    row.name, row.size, row.degree
                )
            } else {
                "| | yes |".to_string()
            };
            for fam in 0..4 {
                let (ps, pv, pp) = p.cells[fam][ci];
                let pparam = if pp.is_empty() {
                    String::new()
                } else {
                    format!(" ({pp})")
                };
                match &row.cells[fam][ci].best {
                    Some(b) => {
                        let param = order_param(b.order);
                        let param = if param.is_empty() {
                            String::new()
                        } else {
                            format!(" ({param})")
                        };
                        let _ = write!(
                            line,
                            " {}/{:.0}{param} [{ps}/{pv}{pparam}] |",
                            b.cache_pct, b.visits_pct
                        );
                        let s = &mut sums[fam][ci];
                        s.0 += b.cache_pct as f64;
                        s.1 += b.visits_pct;
                        s.2 += ps as f64;
                        s.3 += pv as f64;
                        s.4 += 1;
                    }
                    None => {
                        let _ = write!(line, " - [{ps}/{pv}{pparam}] |");
                    }
                }
            }
            let _ = writeln!(md, "{line}");
        }
    }
    for ci in 0..2 {
        let mut line = format!(
            "| Average on these rows | {} |",
            if ci == 0 { "no" } else { "yes" }
        );
        for fam_sums in &sums {
            let s = fam_sums[ci];
            if s.4 == 0 {
                line.push_str(" - |");
            } else {
                let n = s.4 as f64;
                let _ = write!(
                    line,
                    " {:.1}/{:.0} [{:.1}/{:.0}] |",
                    s.0 / n,
                    s.1 / n,
                    s.2 / n,
                    s.3 / n
                );
            }
        }
        let _ = writeln!(md, "{line}");
    }
    let _ = writeln!(md, "\nPaper, average on 135 models: DFS 18.5/259 (CR 17.7/251), BFS 30.1/131 (26.3/143), BBFS 19.4/236 (17.4/241), Alt 16.4/239 (15.5/249).");
    let _ = writeln!(
        md,
        "\nPlot: `table2.svg` (our S and V against the paper's, every cell)."
    );
    md.push_str(&differences(rows, paper));
    std::fs::write(path, md)?;
    Ok(())
}

/// The cells where our S or V differs from the paper's by more than 5
/// points, each with the measured reason.
fn differences(rows: &[Row], paper: &[PaperRow]) -> String {
    let mut out = String::from(
        "\n## Differences of more than 5 points, and their measured reasons\n\n\
         S is a multiple of 5: a cell is listed when S differs by 10 points or more, or by 5 \
         and V by more than 5 (V is then measured at another cache size). \
         `S↑`: we needed a larger cache; the outcomes of all our runs at the paper's S \
         are given (`out_of_memory`: the TD-tree of open states and their ancestors did \
         not fit; `out_of_time`: more than 5·|S| visits). `S↓`: we succeeded with a smaller \
         cache than the paper's best. `V` at equal S: the range of V over our successful \
         runs at that size (strategies × parameters), against the paper's V.\n\n",
    );
    let mut counts = [0u32; 5]; // S↑ oom-dominated, S↑ oot-dominated, S↓, V in range, V out of range
    let mut lines = Vec::new();
    for row in rows {
        for fam in 0..4 {
            for ci in 0..2 {
                let (ps, pv, _) = paper[row.pi].cells[fam][ci];
                let cell = &row.cells[fam][ci];
                let what = format!(
                    "{} {}{}",
                    row.name,
                    FAMILIES[fam],
                    if ci == 1 { "+CR" } else { "" }
                );
                let Some(b) = &cell.best else {
                    lines.push(format!("- {what}: no successful run of ours (paper {ps}/{pv})"));
                    continue;
                };
                let (s, v) = (b.cache_pct as i64, b.visits_pct.round() as i64);
                let (ds, dv) = (s - ps as i64, v - pv as i64);
                // V at another cache size is listed with the S difference.
                let vs = if dv.abs() > 5 {
                    format!(", V {v} vs {pv}")
                } else {
                    String::new()
                };
                if ds.abs() > 5 || (ds != 0 && dv.abs() > 5) {
                    if ds > 0 {
                        let reason = match cell.at_paper_s {
                            Some(f) => {
                                counts[usize::from(f.out_of_time > f.out_of_memory)] += 1;
                                format!(
                                    "at {ps} % our {} runs ended {} out_of_memory, {} out_of_time",
                                    f.out_of_memory + f.out_of_time,
                                    f.out_of_memory,
                                    f.out_of_time
                                )
                            }
                            None => "outcomes at the paper's S not recorded".to_string(),
                        };
                        lines.push(format!("- {what}: S↑ {s} vs {ps}{vs}; {reason}"));
                    } else {
                        counts[2] += 1;
                        lines.push(format!(
                            "- {what}: S↓ {s} vs {ps}{vs}; {} with {} succeeds ({} of our runs at {s} %)",
                            b.order, b.replacement, b.ok_runs
                        ));
                    }
                } else if s == ps as i64 && (v - pv as i64).abs() > 5 {
                    let within = (pv as f64) >= b.visits_pct - 0.5 && (pv as f64) <= b.worst_visits_pct + 0.5;
                    counts[if within { 3 } else { 4 }] += 1;
                    let side = if within {
                        "the paper's V within that range"
                    } else if (pv as f64) < b.visits_pct {
                        "more than the paper's"
                    } else {
                        "fewer than the paper's"
                    };
                    lines.push(if b.ok_runs == 1 {
                        format!(
                            "- {what}: V {v} vs {pv}; our only successful run at {s} % visits {v} %, {side}"
                        )
                    } else {
                        format!(
                            "- {what}: V {v} vs {pv}; our {} successful runs at {s} % visit {v}–{:.0} %, {}",
                            b.ok_runs,
                            b.worst_visits_pct,
                            if within {
                                side.to_string()
                            } else {
                                format!("all {side}")
                            }
                        )
                    });
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "Summary: {} cells with S↑ where most of our runs at the paper's S ran out of memory, {} where most ran out of time; \
         {} cells with S↓; at equal S, {} cells whose paper V lies within the range of our runs' V, {} outside it.\n",
        counts[0], counts[1], counts[2], counts[3], counts[4]
    );
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out
}

/// Two scatter plots (S and V: ours against the paper's), SVG by hand.
fn write_table2_svg(path: &Path, rows: &[Row], paper: &[PaperRow]) -> anyhow::Result<()> {
    let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    let mut pts: [Vec<(f64, f64, usize)>; 2] = [Vec::new(), Vec::new()];
    for row in rows {
        for fam in 0..4 {
            for ci in 0..2 {
                if let Some(b) = &row.cells[fam][ci].best {
                    let (ps, pv, _) = paper[row.pi].cells[fam][ci];
                    pts[0].push((ps as f64, b.cache_pct as f64, fam));
                    pts[1].push((pv as f64, b.visits_pct, fam));
                }
            }
        }
    }
    let (w, h, m) = (420.0, 420.0, 50.0);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">"#,
        2.0 * w + 20.0,
        h + 40.0
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for (k, (title, maxv)) in [
        ("S: cache size (% of |S|)", 100.0),
        ("V: visits (% of |S|)", 500.0),
    ]
    .iter()
    .enumerate()
    {
        let ox = k as f64 * (w + 20.0);
        let sx = |v: f64| ox + m + (v.min(*maxv) / maxv) * (w - 2.0 * m);
        let sy = |v: f64| h - m + 20.0 - (v.min(*maxv) / maxv) * (h - 2.0 * m);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="18" text-anchor="middle" font-size="14">{title}</text>"#,
            ox + w / 2.0
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#999" stroke-dasharray="4,3"/>"##,
            sx(0.0),
            sy(0.0),
            sx(*maxv),
            sy(*maxv)
        );
        let _ = writeln!(
            svg,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/>"#,
            sx(0.0),
            sy(0.0),
            sx(*maxv),
            sy(0.0),
            sx(0.0),
            sy(0.0),
            sx(0.0),
            sy(*maxv)
        );
        for i in 0..=4 {
            let v = maxv * i as f64 / 4.0;
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="middle">{v:.0}</text>"#,
                sx(v),
                sy(0.0) + 15.0
            );
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="end">{v:.0}</text>"#,
                sx(0.0) - 4.0,
                sy(v) + 4.0
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">paper</text>"#,
            ox + w / 2.0,
            h + 10.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">dvemc</text>"#,
            ox + 14.0,
            h / 2.0,
            ox + 14.0,
            h / 2.0
        );
        for &(x, y, fam) in &pts[k] {
            let _ = writeln!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{}" fill-opacity="0.7"/>"#,
                sx(x),
                sy(y),
                colors[fam]
            );
        }
        for (fam, name) in FAMILIES.iter().enumerate() {
            let y = 40.0 + 16.0 * fam as f64;
            let _ = writeln!(
                svg,
                r#"<circle cx="{}" cy="{}" r="4" fill="{}"/><text x="{}" y="{}">{name}</text>"#,
                ox + m + 10.0,
                y,
                colors[fam],
                ox + m + 18.0,
                y + 4.0
            );
        }
    }
    let _ = writeln!(svg, "</svg>");
    std::fs::write(path, svg)?;
    Ok(())
}

/// Rows of the paper's Table 3: (instance, |S|, PM level, SL S, V, P, L,
/// SL+SC S, V).
pub const PAPER_TABLE3: [(&str, u64, u8, f64, f64, f64, f64, f64, f64); 25] = [
    ("bopdp.2", 25685, 3, 52.4, 231.0, 0.5, 51.9, 20.4, 498.0),
    ("bopdp.2", 25685, 4, 26.8, 242.0, 0.8, 26.0, 14.9, 480.0),
    ("bopdp.2", 25685, 5, 13.7, 259.0, 1.9, 8.3, 12.7, 482.0),
    ("brp.3", 996627, 2, 13.3, 145.0, 0.1, 8.3, 4.9, 203.0),
    ("brp.3", 996627, 3, 10.6, 126.0, 0.5, 2.9, 9.7, 154.0),
    ("brp.3", 996627, 4, 10.0, 122.0, 2.4, 0.3, 9.9, 120.0),
    ("brp.3", 996627, 5, 8.1, 124.0, 3.8, 0.1, 8.2, 119.0),
    ("collision.3", 434530, 4, 24.1, 100.0, 0.0, 24.1, 13.5, 482.0),
    ("collision.3", 434530, 5, 21.1, 232.0, 9.0, 12.2, 16.0, 337.0),
    ("iprotocol.1", 6814, 5, 50.4, 100.0, 0.0, 47.3, 21.0, 416.0),
    ("lifts.4", 112792, 5, 33.3, 100.0, 0.0, 33.3, 8.5, 489.0),
    ("needham.3", 206925, 5, 20.9, 100.0, 0.0, 0.1, 21.0, 101.0),
    ("pgm_protocol.3", 195015, 3, 2.4, 144.0, 1.1, 0.0, 2.1, 129.0),
    ("pgm_protocol.3", 195015, 4, 3.2, 110.0, 3.1, 0.0, 3.1, 110.0),
    ("pgm_protocol.3", 195015, 5, 9.0, 110.0, 8.9, 0.0, 9.0, 108.0),
    ("plc.2", 130777, 3, 1.8, 100.0, 0.0, 1.7, 0.6, 102.0),
    ("plc.2", 130777, 4, 1.2, 105.0, 1.2, 0.0, 1.3, 105.0),
    ("plc.2", 130777, 5, 1.2, 105.0, 1.2, 0.0, 1.3, 105.0),
    (
        "production_cell.4",
        340685,
        4,
        27.7,
        100.0,
        0.0,
        22.7,
        14.1,
        485.0,
    ),
    ("production_cell.4", 340685, 5, 11.1, 100.0, 2.0, 6.9, 5.5, 438.0),
    ("rether.3", 305334, 4, 25.3, 161.0, 3.9, 21.8, 5.0, 200.0),
    ("rether.3", 305334, 5, 6.3, 152.0, 6.0, 0.6, 6.1, 144.0),
    ("synapse.6", 625175, 3, 26.6, 100.0, 0.0, 26.6, 7.4, 477.0),
    ("synapse.6", 625175, 4, 27.4, 316.0, 2.7, 16.4, 17.2, 477.0),
    ("synapse.6", 625175, 5, 18.1, 150.0, 10.8, 2.9, 17.4, 136.0),
];

/// Runs the Table 3 experiment; writes `table3.csv` and `table3.md`.
pub fn table3(cfg: &BenchConfig, mut progress: impl FnMut(&str)) -> anyhow::Result<()> {
    let beem = Beem::at(&cfg.beem);
    std::fs::create_dir_all(&cfg.out_dir)?;
    let mut csv = String::from(
        "instance,states,level,measure,regress_pct,SL_S,SL_V,P,L,SC_cache,SC_S,SC_V,paper_SL_S,paper_SL_V,paper_P,paper_L,paper_SC_S,paper_SC_V,SC_order\n",
    );
    let mut md = format!(
        "# Table 3 of the state-caching paper, measured by dvemc\n\n\
         Automatic progress measures (levels of Sect. 5.2, `{}` derivation from the full state space), \
         sweep-line alone (SL, FIFO among equal progress values) and with state caching (SL + SC, stratified replacement, FIFO or LIFO among equal progress values, whichever needs less memory, cache sizes 1, 2, …, 19, 20, 25, … % \
         until a run succeeds within 5·|S| visits, then bisected to 0.1 %). All figures in % of |S|; ours, then the paper's in brackets.\n\n\
         | Model | states | PM | SL S | SL V | P | L | SL+SC S | SL+SC V | SC order | measure |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        cfg.derivation
    );
    let mut last: Option<(String, super::sweep::Graph, Box<dyn NextState>)> = None;
    let mut reuse: Option<(String, Vec<String>, CachingReport, Option<ScBest>)> = None;
    for &(inst, pstates, level, ps, pv, pp, pl, pss, psv) in PAPER_TABLE3.iter() {
        if let Some(list) = &cfg.instances {
            if !list.iter().any(|i| i == inst) {
                continue;
            }
        }
        if pstates > cfg.max_states {
            progress(&format!(
                "{inst}: skipped ({pstates} states > {})",
                cfg.max_states
            ));
            continue;
        }
        if last.as_ref().map(|l| l.0.as_str()) != Some(inst) {
            let Some((model, _)) = model_of(&beem, inst) else {
                progress(&format!("{inst}: does not load"));
                continue;
            };
            let g = full_graph(model.as_ref(), &Limits::default()).expect("an exhaustive run");
            last = Some((inst.to_string(), g, model));
        }
        let (_, graph, model) = last.as_ref().expect("loaded");
        let model: &dyn NextState = model.as_ref();
        let size = graph.store.len() as u64;
        let t = Instant::now();
        let ap = derive_progress(model, graph, level, cfg.derivation);
        let derive_s = t.elapsed().as_secs_f64();
        // Levels often share a measure: run it once.
        if reuse.as_ref().map(|r| (&r.0, &r.1)) != Some((&inst.to_string(), &ap.progress.names)) {
            let (sl, best) = sweep_runs(model, size, &ap.progress, cfg);
            reuse = Some((inst.to_string(), ap.progress.names.clone(), sl, best));
        }
        let (_, _, sl, best) = reuse.as_ref().expect("runs");
        let measure = ap.progress.names.join(" ");
        let f = |x: Option<f64>| x.map(|v| format!("{v:.1}")).unwrap_or_default();
        let (sc_cache, sc_s, sc_v, sc_order) = match &best {
            Some((p, (o, r))) => (format!("{p}"), f(r.stored_pct), f(r.visits_pct), o.to_string()),
            None => (String::new(), String::new(), String::new(), String::new()),
        };
        let _ = writeln!(
            csv,
            "{inst},{size},{level},\"{measure}\",{:.2},{},{},{},{},{sc_cache},{sc_s},{sc_v},{ps},{pv},{pp},{pl},{pss},{psv},{sc_order}",
            100.0 * ap.regress,
            f(sl.stored_pct),
            f(sl.visits_pct),
            f(sl.persistent_pct),
            f(sl.largest_class_pct),
        );
        let _ = writeln!(
            md,
            "| {inst} | {size} | {level} | {} [{ps}] | {} [{pv}] | {} [{pp}] | {} [{pl}] | {} [{pss}] | {} [{psv}] | {sc_order} | {measure} |",
            f(sl.stored_pct),
            f(sl.visits_pct),
            f(sl.persistent_pct),
            f(sl.largest_class_pct),
            if sc_s.is_empty() { "-".into() } else { sc_s.clone() },
            if sc_v.is_empty() { "-".into() } else { sc_v.clone() },
        );
        progress(&format!(
            "{inst} level {level}: ({measure}) {:.1} % regress, derived in {derive_s:.1} s; SL S {} V {} P {} L {}; SL+SC S {} V {}",
            100.0 * ap.regress,
            f(sl.stored_pct),
            f(sl.visits_pct),
            f(sl.persistent_pct),
            f(sl.largest_class_pct),
            sc_s,
            sc_v
        ));
        std::fs::write(cfg.out_dir.join("table3.csv"), &csv)?;
        std::fs::write(cfg.out_dir.join("table3.md"), &md)?;
    }
    Ok(())
}

/// SL + SC's best run: (cache %, (order among equal progress values, run)).
type ScBest = (f64, (&'static str, CachingReport));

/// SL alone (FIFO), and SL + SC's smallest successful cache for `progress`.
fn sweep_runs(
    model: &dyn NextState,
    size: u64,
    progress: &Progress,
    cfg: &BenchConfig,
) -> (CachingReport, Option<ScBest>) {
    let sl = run(
        model,
        &Options {
            order: Order::Bfs,
            progress: Some(progress),
            state_space_size: Some(size),
            max_visits_factor: None,
            track_distinct: false,
            ..Default::default()
        },
        None,
    );
    // SL + SC: the smallest cache that succeeds on a grid (1 % steps
    // below 20 %, then 5 %), then bisected between the last size that
    // failed and the first that succeeded down to 0.1 % of |S| (success
    // is close to monotone in the cache size; the paper gives S to
    // 0.1 %).
    // Both orders among equal progress values (FIFO and LIFO): the
    // best complete run of the two (fewest visits), else a failure.
    let sc_run = |pct: f64| {
        let runs = parallel_map(&[Order::Bfs, Order::Dfs], cfg.threads, |&order| {
            run(
                model,
                &Options {
                    order,
                    cache: Some(CacheSize::Percent(pct)),
                    replacement: Replacement::Stratified(4),
                    progress: Some(progress),
                    state_space_size: Some(size),
                    track_distinct: false,
                    ..Default::default()
                },
                None,
            )
        });
        let mut runs = runs.into_iter();
        let (fifo, lifo) = (runs.next().expect("fifo"), runs.next().expect("lifo"));
        let ok = |r: &CachingReport| r.result == Outcome::Complete;
        match (ok(&fifo), ok(&lifo)) {
            (true, true) if lifo.visits < fifo.visits => ("lifo", lifo),
            (true, _) => ("fifo", fifo),
            (false, true) => ("lifo", lifo),
            (false, false) => ("fifo", fifo),
        }
    };
    let mut pcts: Vec<f64> = (1..20).map(|k| k as f64).collect();
    pcts.extend((4..=20).map(|k| 5.0 * k as f64));
    let mut best = None;
    let mut failed = 0.0;
    for pct in pcts {
        let r = sc_run(pct);
        if r.1.result == Outcome::Complete {
            best = Some((pct, r));
            break;
        }
        failed = pct;
    }
    if let Some((mut ok, _)) = best {
        // Tenths of a percent, so the sizes stay exact.
        let (mut lo, mut hi) = ((failed * 10.0).round() as u32, (ok * 10.0).round() as u32);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            let r = sc_run(mid as f64 / 10.0);
            if r.1.result == Outcome::Complete {
                hi = mid;
                ok = mid as f64 / 10.0;
                best = Some((ok, r));
            } else {
                lo = mid;
            }
        }
    }
    (sl, best)
}

/// Rewrites `table2.md` and `table2.svg` from `table2.csv`.
pub fn table2_report(cfg: &BenchConfig) -> anyhow::Result<()> {
    let paper = paper_table2();
    let mut rdr = csv::Reader::from_path(cfg.out_dir.join("table2.csv"))?;
    let mut rows: Vec<Row> = Vec::new();
    for rec in rdr.records() {
        let r = rec?;
        let inst = r[0].to_string();
        let Some(pi) = paper.iter().position(|p| p.instance == inst) else {
            continue;
        };
        if rows.last().map(|x| &x.name) != Some(&inst) {
            rows.push(Row {
                name: inst.clone(),
                size: r[1].parse()?,
                degree: r[2].parse()?,
                cells: Default::default(),
                pi,
            });
        }
        let fam = FAMILIES
            .iter()
            .position(|f| *f == &r[3])
            .ok_or_else(|| anyhow::anyhow!("bad family"))?;
        let ci = usize::from(&r[4] == "yes");
        // Columns added later (spread of V, failures at the paper's S) may
        // be missing from older files.
        let num = |i: usize| r.get(i).and_then(|x| x.parse::<u32>().ok());
        let cell = &mut rows.last_mut().expect("row").cells[fam][ci];
        if let (Some(oom), Some(oot)) = (num(17), num(18)) {
            cell.at_paper_s = Some(Failures {
                out_of_memory: oom,
                out_of_time: oot,
            });
        }
        if r[5].is_empty() {
            continue;
        }
        let param = &r[7];
        let order = match fam {
            0 => Order::Dfs,
            1 => Order::Bfs,
            2 => Order::Bbfs(Some(param.parse()?)),
            _ => {
                let (b, d) = param
                    .split_once(',')
                    .ok_or_else(|| anyhow::anyhow!("bad alt parameter"))?;
                Order::Alt(Some(b.parse()?), Some(d.parse()?))
            }
        };
        let visits_pct: f64 = r[6].parse()?;
        cell.best = Some(Best {
            cache_pct: r[5].parse()?,
            visits_pct,
            stored_pct: r[9].parse().unwrap_or(0.0),
            order,
            replacement: r[8].parse().map_err(|e: String| anyhow::anyhow!(e))?,
            runs: r[10].parse().unwrap_or(0),
            ok_runs: num(15).unwrap_or(0),
            worst_visits_pct: r.get(16).and_then(|x| x.parse().ok()).unwrap_or(visits_pct),
        });
    }
    write_table2_md(&cfg.out_dir.join("table2.md"), &rows, &paper, cfg)?;
    write_table2_svg(&cfg.out_dir.join("table2.svg"), &rows, &paper)?;
    Ok(())
}

/// Entry point of the `caching-bench` binary: `caching-bench table2|table3
/// [--beem DIR] [--out DIR] [--max-states N] [--instances a,b] [--strategies
/// r1,r2] [--threads N] [--max-pct P]`.
pub fn main_with_args(args: &[String]) -> anyhow::Result<()> {
    let mut which = None;
    let mut cfg = BenchConfig {
        beem: PathBuf::new(),
        out_dir: PathBuf::from("results/caching"),
        max_states: 1_000_000,
        instances: None,
        strategies: Replacement::ALL.to_vec(),
        threads: 2,
        max_pct: 100,
        derivation: Derivation::Projection,
    };
    let mut beem_dir: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .ok_or_else(|| anyhow::anyhow!("{a} needs a value"))
        };
        match a.as_str() {
            "table2" | "table3" | "table2-report" => which = Some(a.clone()),
            "--beem" => beem_dir = Some(PathBuf::from(val()?)),
            "--out" => cfg.out_dir = PathBuf::from(val()?),
            "--max-states" => cfg.max_states = val()?.parse()?,
            "--threads" => cfg.threads = val()?.parse()?,
            "--max-pct" => cfg.max_pct = val()?.parse()?,
            "--derivation" => cfg.derivation = val()?.parse().map_err(|e: String| anyhow::anyhow!(e))?,
            "--instances" => cfg.instances = Some(val()?.split(',').map(str::to_string).collect()),
            "--strategies" => {
                cfg.strategies = val()?
                    .split(',')
                    .map(|s| s.parse::<Replacement>().map_err(|e| anyhow::anyhow!(e)))
                    .collect::<Result<_, _>>()?
            }
            other => anyhow::bail!("unknown argument `{other}`"),
        }
    }
    cfg.beem = crate::manifest::locate_beem(beem_dir.as_deref())?;
    let log = |s: &str| eprintln!("{s}");
    match which.as_deref() {
        Some("table2") => table2(&cfg, log),
        Some("table3") => table3(&cfg, log),
        Some("table2-report") => table2_report(&cfg),
        _ => anyhow::bail!("usage: caching-bench table2|table3 [--beem DIR] [--out DIR] [--max-states N] [--instances a,b] [--strategies r1,r2] [--threads N] [--max-pct P]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell whose best run has cache `s`, visits `v` to `worst` over 3
    /// successful runs, and `fails` = (out_of_memory, out_of_time) at the
    /// paper's S.
    fn cell(s: u32, v: f64, worst: f64, fails: Option<(u32, u32)>) -> Cell {
        let best = Some(Best {
            cache_pct: s,
            visits_pct: v,
            stored_pct: s as f64,
            order: Order::Dfs,
            replacement: Replacement::Random,
            runs: 8,
            ok_runs: 3,
            worst_visits_pct: worst,
        });
        let at_paper_s = fails.map(|(out_of_memory, out_of_time)| Failures {
            out_of_memory,
            out_of_time,
        });
        Cell { best, at_paper_s }
    }

    #[test]
    fn differences_name_each_cell_and_its_measured_reason() {
        let paper = paper_table2();
        // at.2: DFS 35/228, CR 30/428; BFS 40/130 (both).
        let mut row = Row {
            name: "at.2".into(),
            size: 49443,
            degree: 3.0,
            cells: Default::default(),
            pi: 0,
        };
        row.cells[0][0] = cell(45, 200.0, 300.0, Some((1, 7)));
        row.cells[0][1] = cell(30, 300.0, 450.0, None);
        row.cells[1][0] = cell(40, 100.0, 120.0, None);
        row.cells[1][1] = cell(30, 100.0, 120.0, None);
        row.cells[2][0] = cell(30, 372.0, 400.0, None);
        // Alt: paper 30/219; 5 points more cache and V 300.
        row.cells[3][0] = cell(35, 300.0, 300.0, Some((60, 12)));
        // Alt+CR: paper 30/222; 5 points more cache, V within 5: not listed.
        row.cells[3][1] = cell(35, 225.0, 300.0, None);
        let text = differences(&[row], &paper);
        assert!(
            text.contains("at.2 DFS: S↑ 45 vs 35, V 200 vs 228; at 35 % our 8 runs ended 1 out_of_memory, 7 out_of_time"),
            "{text}"
        );
        assert!(text.contains("at.2 DFS+CR: V 300 vs 428; our 3 successful runs at 30 % visit 300–450 %, the paper's V within that range"), "{text}");
        assert!(text.contains("at.2 BFS: V 100 vs 130; our 3 successful runs at 40 % visit 100–120 %, all fewer than the paper's"), "{text}");
        assert!(text.contains("at.2 BFS+CR: S↓ 30 vs 40"), "{text}");
        // Within 5 points: not listed; a cell without a run is.
        assert!(!text.contains("at.2 BBFS:"), "{text}");
        assert!(text.contains("at.2 BBFS+CR: no successful run"), "{text}");
        assert!(text.contains("at.2 Alt: S↑ 35 vs 30, V 300 vs 219; at 30 % our 72 runs ended 60 out_of_memory, 12 out_of_time"), "{text}");
        assert!(!text.contains("at.2 Alt+CR"), "{text}");
        assert!(text.contains("Summary: 1 cells with S↑ where most of our runs at the paper's S ran out of memory, 1 where most ran out of time"), "{text}");
    }
}
