//! S. Evangelista, L. M. Kristensen, "Search-Order Independent State
//! Caching": Table 2 (state caching with DFS, BFS, BBFS(w) and Alt(b, d),
//! with and without chain reduction) and Table 3 (the sweep-line method
//! alone and with state caching), rendered from the rows of
//! `beem/matrices/evangelista-table2.toml` and `-table3.toml` beside the
//! paper's figures (`results/caching/`).
//!
//! Table 2 (Table 1 of the paper gives the protocol): per instance, search
//! family and CR setting, the best run is the complete one with the
//! smallest cache, then the fewest visits; S is its cache size and V its
//! visits, both in % of `|S|`. The matrix's search runs every order of the
//! family with every replacement strategy at 5, 10, ... % and stops at the
//! first size with a complete run.
//!
//! Table 3: SL alone (S = peak stored, V, P = persistent at the end, L =
//! largest class in memory at once), and SL + SC with stratified caching at
//! the smallest cache (1 % grid, bisected to 0.1 %) with which a run is
//! complete within 5·|S| visits, FIFO and LIFO among equal progress values
//! as two rows.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod paper;

use crate::engine::Outcome;
use paper::*;
pub use paper::{paper_table2, PaperRow};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::experiments::plot::{self, Axis, Series};
use crate::experiments::schema::Row as RunRow;

/// The best run of one cell.
#[derive(Clone, Debug)]
pub struct Best {
    pub cache_pct: u32,
    pub visits_pct: f64,
    pub stored_pct: f64,
    /// The family's parameter of the best run: `w` of BBFS, `b,d` of Alt.
    pub param: String,
    pub replacement: String,
    pub runs: u32,
    /// Successful runs at the best cache size, and the most visits among
    /// them: how much V depends on the strategy and parameter chosen.
    pub ok_runs: u32,
    pub worst_visits_pct: f64,
}

/// How the runs at one cache size ended (none of them succeeded).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Failures {
    pub cache_full: u32,
    pub visit_limit: u32,
}

/// One cell of Table 2 as measured: the best run, and when we needed a
/// larger cache than the paper (or found none), how our runs failed at the
/// paper's cache size, the measured reason for the difference.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    pub best: Option<Best>,
    pub at_paper_s: Option<Failures>,
    /// When no run was made at the paper's S (a search that went down from
    /// above and stopped at the first size where every run failed): that
    /// size and how its runs ended, the measured reason S is not lower.
    pub below_best: Option<(u32, Failures)>,
    /// Whether the run file has runs of this cell at all (a matrix such as
    /// the 60-strategy family's runs only some cells of an instance).
    pub ran: bool,
}

const TABLE2_HEADER: &str =
    "instance,states,degree,search,cr,S,V,param,replacement,stored_peak_pct,runs,seconds,\
paper_S,paper_V,paper_param,ok_runs,V_worst,paper_S_cache_full,paper_S_visit_limit\n";

/// One CSV line of `table2.csv` (see `TABLE2_HEADER`).
fn csv_line(row: &Row, fam: usize, ci: usize, cell: &Cell, secs: f64, prow: &PaperRow) -> String {
    let (ps, pv, pp) = prow.cells[fam][ci];
    let best = match &cell.best {
        Some(b) => format!(
            "{},{:.0},\"{}\",{},{:.1},{}",
            b.cache_pct,
            b.visits_pct,
            b.param.clone(),
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
        Some(f) => format!("{},{}", f.cache_full, f.visit_limit),
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

fn write_table2_md(
    path: &Path,
    rows: &[Row],
    paper: &[PaperRow],
    strategies: &[String],
) -> anyhow::Result<()> {
    let mut md = String::new();
    let _ = writeln!(md, "# Table 2 of the state-caching paper, measured by dvemc\n");
    let _ = writeln!(
        md,
        "Each cell: S (cache size, % of |S|) / V (visits, % of |S|) of the best successful run \
         (smallest cache, then fewest visits), ours then the paper's in brackets. Edge-lean \
         reduction on; cache sizes 5, 10, … %; visits ≤ 5·|S|; replacement strategies: {}; \
         BBFS w ∈ {{4, 16, 256}}, Alt b, d ∈ {{1, 4, 8}} (chosen parameter after the cell). \
         `-` = no successful run up to {} %; `·` = a cell this run file has no runs of.\n",
        strategies.join(", "),
        100
    );
    let _ = writeln!(md, "{}\n", closeness(rows, paper));
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
                    _ if !row.cells[fam][ci].ran => {
                        let _ = write!(line, " · [{ps}/{pv}{pparam}] |");
                    }
                    Some(b) => {
                        let param = b.param.clone();
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
        "\nPlots: `table2-S.svg` and `table2-V.svg` (our S and V against the paper's, every cell)."
    );
    md.push_str(&differences(rows, paper));
    std::fs::write(path, md)?;
    Ok(())
}

/// How many of the cells run have S within 5 points of the paper's.
fn closeness(rows: &[Row], paper: &[PaperRow]) -> String {
    let (mut run, mut within, mut equal) = (0, 0, 0);
    for row in rows {
        for fam in 0..4 {
            for ci in 0..2 {
                let cell = &row.cells[fam][ci];
                if !cell.ran {
                    continue;
                }
                run += 1;
                let ps = paper[row.pi].cells[fam][ci].0 as i64;
                if let Some(b) = &cell.best {
                    let d = (b.cache_pct as i64 - ps).abs();
                    within += u32::from(d <= 5);
                    equal += u32::from(d == 0);
                }
            }
        }
    }
    format!("S within 5 points of the paper's: {within} of {run} cells ({equal} equal).")
}

/// The cells where our S or V differs from the paper's by more than 5
/// points, each with the measured reason.
fn differences(rows: &[Row], paper: &[PaperRow]) -> String {
    let mut out = String::from(
        "\n## Differences of more than 5 points, and their measured reasons\n\n\
         S is a multiple of 5: a cell is listed when S differs by 10 points or more, or by 5 \
         and V by more than 5 (V is then measured at another cache size). \
         `S↑`: we needed a larger cache; the outcomes of all our runs at the paper's S \
         are given, or at the smallest size run when a search down from above stopped \
         before it (`cache_full`: the TD-tree of open states and their ancestors did \
         not fit; `visit_limit`: more than 5·|S| visits). `S↓`: we succeeded with a smaller \
         cache than the paper's best. `V` at equal S: the range of V over our successful \
         runs at that size (strategies × parameters), against the paper's V.\n\n",
    );
    let mut counts = [0u32; 5]; // S↑ oom-dominated, S↑ oot-dominated, S↓, V in range, V out of range
                                // The S↑ cells whose outcomes are those of the smallest size run,
                                // above the paper's S.
    let mut above_paper_s = 0u32;
    let mut lines = Vec::new();
    for row in rows {
        for fam in 0..4 {
            for ci in 0..2 {
                let (ps, pv, _) = paper[row.pi].cells[fam][ci];
                let cell = &row.cells[fam][ci];
                if !cell.ran {
                    continue;
                }
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
                        // How the runs ended at the paper's S, else at the
                        // smallest size run when a search from above
                        // stopped before it.
                        let measured = match (cell.at_paper_s, cell.below_best) {
                            (Some(f), _) => Some((ps, f, "")),
                            (None, Some((pct, f))) if pct > ps => Some((
                                pct,
                                f,
                                "not run at the paper's S (the search went down from above); ",
                            )),
                            _ => None,
                        };
                        let reason = match measured {
                            Some((pct, f, before)) => {
                                counts[usize::from(f.visit_limit > f.cache_full)] += 1;
                                above_paper_s += u32::from(pct != ps);
                                format!(
                                    "{before}at {pct} % our {} runs ended {} cache_full, {} visit_limit",
                                    f.cache_full + f.visit_limit,
                                    f.cache_full,
                                    f.visit_limit
                                )
                            }
                            None => "outcomes at the paper's S not recorded".to_string(),
                        };
                        lines.push(format!("- {what}: S↑ {s} vs {ps}{vs}; {reason}"));
                    } else {
                        counts[2] += 1;
                        lines.push(format!(
                            "- {what}: S↓ {s} vs {ps}{vs}; {} with {} succeeds ({} of our runs at {s} %)",
                            b.param_text(FAMILIES[fam]),
                            b.replacement,
                            b.ok_runs
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
        "Summary: {} cells with S↑ where most of our runs at the paper's S ended cache_full, {} where most ended visit_limit{}; \
         {} cells with S↓; at equal S, {} cells whose paper V lies within the range of our runs' V, {} outside it.\n",
        counts[0],
        counts[1],
        if above_paper_s > 0 {
            format!(" ({above_paper_s} of them at the smallest size run, above the paper's S)")
        } else {
            String::new()
        },
        counts[2],
        counts[3],
        counts[4]
    );
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out
}

/// Two scatter plots, S and V: ours against the paper's, one point per
/// cell, one series per search family, the diagonal where they agree.
fn write_table2_svgs(paths: [&Path; 2], rows: &[Row], paper: &[PaperRow]) -> anyhow::Result<()> {
    for (k, path) in paths.iter().enumerate() {
        let series: Vec<Series> = FAMILIES
            .iter()
            .enumerate()
            .map(|(fam, name)| {
                let mut s = Series::new(*name, Vec::new());
                for row in rows {
                    for ci in 0..2 {
                        if let Some(b) = &row.cells[fam][ci].best {
                            let (ps, pv, _) = paper[row.pi].cells[fam][ci];
                            let (p, ours) = if k == 0 {
                                (ps as f64, b.cache_pct as f64)
                            } else {
                                (pv as f64, b.visits_pct)
                            };
                            s.points.push((p, ours));
                            s.tips.push(format!(
                                "{} {name}{}: dvemc {ours:.0}, paper {p:.0}",
                                row.name,
                                if ci == 1 { " CR" } else { "" }
                            ));
                        }
                    }
                }
                s
            })
            .collect();
        let (title, max) = if k == 0 {
            ("S: cache size (% of |S|), dvemc against the paper", 100.0)
        } else {
            ("V: visits (% of |S|), dvemc against the paper", 500.0)
        };
        let axis = |label: &str| Axis {
            label: label.into(),
            min: 0.0,
            max,
            log: false,
            base2: false,
        };
        let svg = plot::scatter_with_diagonal(title, &axis("paper"), &axis("dvemc"), &series);
        std::fs::write(path, svg)?;
    }
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

impl Best {
    /// The order of the best run, as `--strategy` writes it.
    fn param_text(&self, family: &str) -> String {
        match family {
            "BBFS" => format!("bbfs:{}", self.param),
            "Alt" => format!("alt:{}", self.param),
            other => other.to_lowercase(),
        }
    }
}

/// A figure of a run row: a column, else a field of `extra` (S, V, P, L).
fn fig(r: &RunRow, name: &str) -> Option<f64> {
    if super::super::schema::COLUMNS.contains(&name) {
        return r.num(name);
    }
    r.extra().get(name)?.as_f64()
}

/// A searched percentage of a row's grid point (`cache = "12.5%"`).
fn pct_param(r: &RunRow, key: &str) -> Option<f64> {
    r.params_value(key)?.trim_end_matches('%').parse().ok()
}

fn is_complete(r: &RunRow) -> bool {
    r.get("result") == Outcome::Complete.name()
}

/// Table 2 from the rows of `evangelista-table2.toml`: `table2.csv`,
/// `table2.md`, `table2-S.svg` and `table2-V.svg` in `out`.
pub fn render_table2(rows: &[RunRow], out: &Path) -> Result<Vec<PathBuf>> {
    let paper = paper_table2();
    let mut table: Vec<Row> = Vec::new();
    let mut csv = String::from(TABLE2_HEADER);
    let mut strategies: Vec<String> = Vec::new();
    for (pi, prow) in paper.iter().enumerate() {
        let of: Vec<&RunRow> = rows
            .iter()
            .filter(|r| r.get("instance") == prow.instance)
            .collect();
        if of.is_empty() {
            continue;
        }
        // |S| and the degree from the exhaustive run.
        let full = of
            .iter()
            .find(|r| r.params_value("cache").is_none() && is_complete(r));
        let size = full
            .and_then(|r| r.num("states"))
            .or_else(|| of.iter().find_map(|r| r.num("state_space_size")))
            .unwrap_or(prow.states as f64) as u64;
        let degree = full
            .and_then(|r| Some(r.num("transitions")? / r.num("states")?))
            .unwrap_or(f64::NAN);
        let mut row = Row {
            name: prow.instance.to_string(),
            size,
            degree,
            cells: Default::default(),
            pi,
        };
        let mut secs = [[0.0f64; 2]; 4];
        for fam in 0..4 {
            for ci in 0..2 {
                let group: Vec<&RunRow> = of
                    .iter()
                    .copied()
                    .filter(|r| r.params_value("cache").is_some())
                    .filter(|r| family(r) == Some(fam))
                    .filter(|r| (r.params_value("chain_reduction").as_deref() == Some("true")) == (ci == 1))
                    .collect();
                for r in &group {
                    if let Some(rep) = r.params_value("replacement") {
                        if !strategies.contains(&rep) {
                            strategies.push(rep);
                        }
                    }
                }
                secs[fam][ci] = group.iter().filter_map(|r| r.num("wall_s")).sum();
                row.cells[fam][ci] = cell_of(&group, prow.cells[fam][ci].0);
            }
        }
        for fam in 0..4 {
            for ci in 0..2 {
                if row.cells[fam][ci].ran {
                    csv.push_str(&csv_line(&row, fam, ci, &row.cells[fam][ci], secs[fam][ci], prow));
                }
            }
        }
        table.push(row);
    }
    std::fs::create_dir_all(out)?;
    let files = [
        out.join("table2.csv"),
        out.join("table2.md"),
        out.join("table2-S.svg"),
        out.join("table2-V.svg"),
    ];
    std::fs::write(&files[0], csv)?;
    write_table2_md(&files[1], &table, paper, &strategies)?;
    write_table2_svgs([&files[2], &files[3]], &table, paper)?;
    Ok(files.to_vec())
}

/// Replacement strategies in the order that breaks ties between equally
/// good runs: `Replacement::family()`, whose first 8 are the order of
/// `evangelista-table2.toml`.
fn replacement_rank() -> std::collections::HashMap<String, usize> {
    crate::algo::caching::Replacement::family()
        .iter()
        .enumerate()
        .map(|(i, r)| (r.to_string(), i))
        .collect()
}

/// The family of a run: 0..4 for DFS, BFS, BBFS, Alt.
fn family(r: &RunRow) -> Option<usize> {
    ["dfs", "bfs", "bbfs", "alt"]
        .iter()
        .position(|f| *f == r.get("strategy"))
}

/// One cell of Table 2 from the runs of its search: the best complete run,
/// and how the runs at the paper's S ended when none of them succeeded.
fn cell_of(group: &[&RunRow], paper_s: u32) -> Cell {
    let at = |pct: f64| -> Vec<&RunRow> {
        group
            .iter()
            .copied()
            .filter(|r| pct_param(r, "cache") == Some(pct))
            .collect()
    };
    let best_pct = group
        .iter()
        .filter(|r| is_complete(r))
        .filter_map(|r| pct_param(r, "cache"))
        .min_by(f64::total_cmp);
    let best = best_pct.and_then(|pct| {
        let ok: Vec<&RunRow> = at(pct).into_iter().filter(|r| is_complete(r)).collect();
        let v = |r: &&RunRow| fig(r, "V").unwrap_or(f64::INFINITY);
        let rank = replacement_rank();
        // Ties (equal visits) go to the first run in the protocol's order:
        // the family's orders by parameter, then the replacement strategies
        // in `replacement_rank`'s order (rows come in the order cells ended).
        let order = |r: &&RunRow| -> (Vec<u32>, usize) {
            let params = r
                .get("spec")
                .split_once(':')
                .map(|(_, p)| p.split(',').filter_map(|x| x.parse().ok()).collect())
                .unwrap_or_default();
            let rep = r.params_value("replacement").unwrap_or_default();
            (params, rank.get(&rep).copied().unwrap_or(rank.len()))
        };
        let b = ok
            .iter()
            .min_by(|a, b| v(a).total_cmp(&v(b)).then_with(|| order(a).cmp(&order(b))))?;
        let size = b.num("state_space_size").unwrap_or(f64::NAN);
        Some(Best {
            cache_pct: pct.round() as u32,
            visits_pct: v(b),
            stored_pct: 100.0 * b.num("stored_peak").unwrap_or(f64::NAN) / size,
            param: b
                .get("spec")
                .split_once(':')
                .map(|(_, p)| p.to_string())
                .unwrap_or_default(),
            replacement: b.params_value("replacement").unwrap_or_default(),
            runs: group.len() as u32,
            ok_runs: ok.len() as u32,
            worst_visits_pct: ok.iter().map(v).fold(0.0, f64::max),
        })
    });
    // How the runs at a size ended, when none of them succeeded.
    let failures = |pct: f64| -> Option<Failures> {
        let failed = at(pct);
        (!failed.is_empty() && !failed.iter().any(|r| is_complete(r))).then(|| {
            let count =
                |res: &[&str]| failed.iter().filter(|r| res.contains(&r.get("result"))).count() as u32;
            Failures {
                cache_full: count(&["cache_full"]),
                visit_limit: count(&["visit_limit", "time_limit"]),
            }
        })
    };
    let at_paper_s = failures(paper_s as f64);
    // The largest size run below the best one (every size below the best
    // failed, by its definition).
    let below_best = best_pct.and_then(|best| {
        let pct = group
            .iter()
            .filter_map(|r| pct_param(r, "cache"))
            .filter(|&p| p < best)
            .max_by(f64::total_cmp)?;
        Some((pct.round() as u32, failures(pct)?))
    });
    Cell {
        best,
        at_paper_s,
        below_best,
        ran: !group.is_empty(),
    }
}

/// Table 3 from the rows of `evangelista-table3.toml`: per derivation of the
/// progress measures, `table3[-DERIVATION].csv` and `.md` in `out`.
pub fn render_table3(rows: &[RunRow], out: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out)?;
    let mut derivations: Vec<String> = rows
        .iter()
        .filter_map(|r| r.params_value("progress_derivation"))
        .collect();
    derivations.sort();
    derivations.dedup();
    // The projection derivation first: its files keep the plain names.
    derivations.sort_by_key(|d| d != "projection");
    let mut files = Vec::new();
    for d in &derivations {
        let suffix = if d == "projection" {
            String::new()
        } else {
            format!("-{d}")
        };
        let (csv, md) = table3_of(rows, d);
        let (c, m) = (
            out.join(format!("table3{suffix}.csv")),
            out.join(format!("table3{suffix}.md")),
        );
        std::fs::write(&c, csv)?;
        std::fs::write(&m, md)?;
        files.extend([c, m]);
    }
    Ok(files)
}

/// The CSV and the markdown of Table 3 for one derivation.
fn table3_of(rows: &[RunRow], derivation: &str) -> (String, String) {
    let mut csv = String::from(
        "instance,states,level,derivation,measure,regress_pct,SL_S,SL_V,P,L,SC_order,SC_S,SC_V,SC_runs,\
         paper_SL_S,paper_SL_V,paper_P,paper_L,paper_SC_S,paper_SC_V\n",
    );
    let mut md = format!(
        "# Table 3 of the state-caching paper, measured by dvemc\n\n\
         Automatic progress measures of the paper's levels (Sect. 5.2), derived from the full state space \
         by our `{derivation}` derivation (the paper does not give its own; see `dvemc explore --help`). \
         SL: the sweep-line method alone, FIFO among equal progress values. SL + SC: with stratified \
         caching (K = 4; the paper used \"a variation\" it does not describe), FIFO and LIFO among equal \
         progress values as two rows, each at the smallest cache (1, 2, ..., 19, 20, 25, ... % until a \
         run is complete within 5·|S| visits, then bisected to 0.1 %). All figures in % of |S|: ours, \
         then the paper's in brackets (the paper has one SL + SC row).\n\n\
         | Model | states | PM | SL S | SL V | P | L | SC order | SL+SC S | SL+SC V | regress % | measure |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    let f = |x: Option<f64>| x.map(|v| format!("{v:.1}")).unwrap_or_default();
    let dash = |t: String| if t.is_empty() { "-".to_string() } else { t };
    for &(inst, pstates, level, ps, pv, pp, pl, pss, psv) in PAPER_TABLE3.iter() {
        let ours: Vec<&RunRow> = rows
            .iter()
            .filter(|r| r.get("instance") == inst)
            .filter(|r| r.params_value("progress_level").as_deref() == Some(&level.to_string()))
            .filter(|r| r.params_value("progress_derivation").as_deref() == Some(derivation))
            .collect();
        let Some(sl) = ours.iter().find(|r| r.params_value("cache").is_none()) else {
            continue;
        };
        let size = sl.num("state_space_size").map(|x| x as u64).unwrap_or(pstates);
        let measure = sl
            .extra()
            .get("progress")
            .and_then(|p| p.as_array().cloned())
            .map(|a| a.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        let regress = fig(sl, "regress_pct")
            .map(|v| format!("{v:.2}"))
            .unwrap_or_default();
        let sl_figs = [fig(sl, "S"), fig(sl, "V"), fig(sl, "P"), fig(sl, "L")].map(f);
        let sl_figs = if is_complete(sl) {
            sl_figs
        } else {
            [
                sl.get("result").to_string(),
                String::new(),
                String::new(),
                String::new(),
            ]
        };
        for (k, order) in ["bfs", "dfs"].into_iter().enumerate() {
            let runs: Vec<&RunRow> = ours
                .iter()
                .copied()
                .filter(|r| r.params_value("cache").is_some() && r.get("spec") == order)
                .collect();
            let best = runs.iter().filter(|r| is_complete(r)).min_by(|a, b| {
                pct_param(a, "cache")
                    .unwrap_or(f64::MAX)
                    .total_cmp(&pct_param(b, "cache").unwrap_or(f64::MAX))
            });
            let (sc_s, sc_v) = match best {
                Some(b) => (f(pct_param(b, "cache")), f(fig(b, "V"))),
                None => (String::new(), String::new()),
            };
            let name = ["fifo", "lifo"][k];
            let _ = writeln!(
                csv,
                "{inst},{size},{level},{derivation},\"{measure}\",{regress},{},{},{},{},{name},{sc_s},{sc_v},{},{ps},{pv},{pp},{pl},{pss},{psv}",
                sl_figs[0], sl_figs[1], sl_figs[2], sl_figs[3], runs.len()
            );
            let _ = if k == 0 {
                writeln!(
                    md,
                    "| {inst} | {size} | {level} | {} [{ps}] | {} [{pv}] | {} [{pp}] | {} [{pl}] | FIFO | {} [{pss}] | {} [{psv}] | {regress} | {measure} |",
                    dash(sl_figs[0].clone()), dash(sl_figs[1].clone()), dash(sl_figs[2].clone()), dash(sl_figs[3].clone()),
                    dash(sc_s), dash(sc_v),
                )
            } else {
                writeln!(md, "| | | | | | | | LIFO | {} | {} | | |", dash(sc_s), dash(sc_v))
            };
        }
    }
    (csv, md)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run row of the Table 2 matrix.
    fn run(spec: &str, cache: &str, replacement: &str, result: &str, v: f64) -> RunRow {
        let mut r = RunRow::empty();
        r.set("instance", "at.2");
        r.set("strategy", spec.split(':').next().unwrap());
        r.set("spec", spec);
        r.set("result", result);
        r.set("state_space_size", "1000");
        r.set("stored_peak", "100");
        r.set(
            "params",
            format!(r#"{{"cache":"{cache}","replacement":"{replacement}","chain_reduction":false}}"#),
        );
        r.set("V", v.to_string());
        r
    }

    /// A run row of the Table 3 matrix (bopdp.2, level 3, projection).
    fn sweep(spec: &str, cache: Option<&str>, result: &str, figs: [f64; 4]) -> RunRow {
        let mut r = RunRow::empty();
        r.set("instance", "bopdp.2");
        r.set("spec", spec);
        r.set("result", result);
        r.set("state_space_size", "25685");
        let cache = cache.map(|c| format!(r#","cache":"{c}""#)).unwrap_or_default();
        r.set(
            "params",
            format!(r#"{{"progress_level":3,"progress_derivation":"projection"{cache}}}"#),
        );
        for (k, v) in ["S", "V", "P", "L"].iter().zip(figs) {
            r.set(k, v.to_string());
        }
        r.set("regress_pct", "0.2336");
        r.set("extra", r#"{"progress":["-a","b"]}"#);
        r
    }

    #[test]
    fn table3_gives_sl_and_fifo_and_lifo_rows_beside_the_paper() {
        let rows = [
            sweep("bfs", None, "complete", [52.4, 230.7, 0.5, 51.9]),
            sweep("bfs", Some("20%"), "cache_full", [20.0, 100.0, 0.0, 0.0]),
            sweep("bfs", Some("33.3%"), "complete", [33.3, 305.9, 0.0, 0.0]),
            sweep("dfs", Some("30%"), "complete", [30.0, 400.0, 0.0, 0.0]),
            sweep("dfs", Some("29.9%"), "cache_full", [29.9, 10.0, 0.0, 0.0]),
        ];
        let (csv, md) = table3_of(&rows, "projection");
        assert!(
            csv.contains("bopdp.2,25685,3,projection,\"-a b\",0.23,52.4,230.7,0.5,51.9,fifo,33.3,305.9,2,52.4,231,0.5,51.9,20.4,498"),
            "{csv}"
        );
        assert!(csv.contains(",lifo,30.0,400.0,2,"), "{csv}");
        assert!(md.contains("| bopdp.2 | 25685 | 3 | 52.4 [52.4] |"), "{md}");
        assert!(md.contains("| LIFO | 30.0 | 400.0 |"), "{md}");
        // Rows of the paper without runs are left out.
        assert!(!csv.contains("brp.3"), "{csv}");
    }

    #[test]
    fn a_cell_is_the_smallest_complete_cache_then_fewest_visits_then_protocol_order() {
        let rows = [
            run("bbfs:4", "5%", "random", "cache_full", 50.0),
            run("bbfs:16", "5%", "random", "visit_limit", 500.0),
            run("bbfs:256", "10%", "age", "complete", 300.0),
            run("bbfs:16", "10%", "age", "complete", 300.0),
            run("bbfs:16", "10%", "random", "complete", 300.0),
            run("bbfs:4", "10%", "random", "complete", 350.0),
        ];
        let group: Vec<&RunRow> = rows.iter().collect();
        let c = cell_of(&group, 5);
        let b = c.best.expect("a complete run");
        assert_eq!(
            (
                b.cache_pct,
                b.visits_pct,
                b.param.as_str(),
                b.replacement.as_str()
            ),
            (10, 300.0, "16", "random")
        );
        assert_eq!((b.runs, b.ok_runs, b.worst_visits_pct), (6, 4, 350.0));
        assert_eq!(
            c.at_paper_s,
            Some(Failures {
                cache_full: 1,
                visit_limit: 1
            })
        );
        // Nothing ran at the paper's S: no failure counts.
        assert_eq!(cell_of(&group, 35).at_paper_s, None);
        // The largest size below the best one, all of whose runs failed.
        assert_eq!(
            c.below_best,
            Some((
                5,
                Failures {
                    cache_full: 1,
                    visit_limit: 1
                }
            ))
        );
        // A search from above: 20 % succeeds, 15 % fails, 10 % never ran.
        let rows = [
            run("dfs", "20%", "random", "complete", 300.0),
            run("dfs", "15%", "random", "visit_limit", 500.0),
            run("dfs", "15%", "age", "visit_limit", 500.0),
        ];
        let group: Vec<&RunRow> = rows.iter().collect();
        let c = cell_of(&group, 10);
        assert_eq!(c.at_paper_s, None);
        assert_eq!(
            c.below_best,
            Some((
                15,
                Failures {
                    cache_full: 0,
                    visit_limit: 2
                }
            ))
        );
        // Nothing ran below the best size: nothing to report.
        assert_eq!(cell_of(&group[..1], 10).below_best, None);
    }

    /// A cell whose best run has cache `s`, visits `v` to `worst` over 3
    /// successful runs, and `fails` = (cache_full, visit_limit) at the
    /// paper's S.
    fn cell(s: u32, v: f64, worst: f64, fails: Option<(u32, u32)>) -> Cell {
        let best = Some(Best {
            cache_pct: s,
            visits_pct: v,
            stored_pct: s as f64,
            param: String::new(),
            replacement: "random".into(),
            runs: 8,
            ok_runs: 3,
            worst_visits_pct: worst,
        });
        let at_paper_s = fails.map(|(cache_full, visit_limit)| Failures {
            cache_full,
            visit_limit,
        });
        Cell {
            best,
            at_paper_s,
            below_best: None,
            ran: true,
        }
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
        // BBFS+CR: runs, none of them successful.
        row.cells[2][1].ran = true;
        // BBFS: paper 30/369; a search from above stopped at 35 %.
        row.cells[2][0] = cell(40, 372.0, 400.0, None);
        row.cells[2][0].below_best = Some((
            35,
            Failures {
                cache_full: 0,
                visit_limit: 60,
            },
        ));
        let text = differences(std::slice::from_ref(&row), paper);
        assert!(
            text.contains(
                "at.2 DFS: S↑ 45 vs 35, V 200 vs 228; at 35 % our 8 runs ended 1 cache_full, 7 visit_limit"
            ),
            "{text}"
        );
        assert!(text.contains("at.2 DFS+CR: V 300 vs 428; our 3 successful runs at 30 % visit 300–450 %, the paper's V within that range"), "{text}");
        assert!(text.contains("at.2 BFS: V 100 vs 130; our 3 successful runs at 40 % visit 100–120 %, all fewer than the paper's"), "{text}");
        assert!(text.contains("at.2 BFS+CR: S↓ 30 vs 40"), "{text}");
        assert!(text.contains("at.2 BBFS: S↑ 40 vs 30; not run at the paper's S (the search went down from above); at 35 % our 60 runs ended 0 cache_full, 60 visit_limit"), "{text}");
        assert!(text.contains("at.2 BBFS+CR: no successful run"), "{text}");
        assert!(text.contains("at.2 Alt: S↑ 35 vs 30, V 300 vs 219; at 30 % our 72 runs ended 60 cache_full, 12 visit_limit"), "{text}");
        assert!(!text.contains("at.2 Alt+CR"), "{text}");
        assert!(text.contains("Summary: 1 cells with S↑ where most of our runs at the paper's S ended cache_full, 2 where most ended visit_limit (1 of them at the smallest size run, above the paper's S);"), "{text}");
        // DFS+CR, BFS equal; Alt, Alt+CR 5 points off; BBFS 10.
        let close = |row: &Row| closeness(std::slice::from_ref(row), paper);
        assert_eq!(
            close(&row),
            "S within 5 points of the paper's: 4 of 8 cells (2 equal)."
        );
        // A cell without runs is neither listed nor counted.
        row.cells[2][1].ran = false;
        assert!(!differences(std::slice::from_ref(&row), paper).contains("BBFS+CR"));
        assert_eq!(
            close(&row),
            "S within 5 points of the paper's: 4 of 7 cells (2 equal)."
        );
    }
}
