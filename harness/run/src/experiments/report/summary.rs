//! The summary of a results file: outcomes, the best run per group,
//! throughput, and the plots, as tables that the markdown and HTML reports
//! both print.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use super::figures::{
    bytes_per_state, configuration, fmt_num, seconds, state_space_sizes, store_bytes, stored, visited,
};
use super::table::ReportTable;
use crate::engine::Outcome;
use crate::experiments::plot::{self, Axis, Bar, Series};
use crate::experiments::runner::median;
use crate::experiments::schema::{Row, CRASHED, ERROR};

/// The memory chart, with [`MEMORY_NOTE`] under it.
pub const MEMORY_PLOT: &str = "bytes_per_state.svg";

/// What the memory chart's figures count, said under it.
pub const MEMORY_NOTE: &str = "Store bytes count what the visited set holds at the end, as allocated: \
the states' bytes and their hash table (both grow in steps, so a store is up to twice its states' \
size). A cache (--cache) also keeps, per state it holds, its search data (references, depth, \
predecessor, flags) beside a free list: a cache that holds most of a small state space takes more \
bytes than the exact store, and saves memory only where it holds a small share of the states. \
Bytes per state, the store and the search structures over the states, is left out for runs of \
fewer than 10,000 states, where the store's first allocation decides it.";

fn pct(v: Option<f64>, of: Option<f64>) -> String {
    match (v, of) {
        (Some(v), Some(s)) if s > 0.0 => format!("{:.1}", 100.0 * v / s),
        _ => "—".into(),
    }
}

/// A run's configuration and backend, as a chart's legend names it.
pub(crate) fn configuration_label(r: &Row) -> String {
    format!("{} ({})", configuration(r), r.get("backend"))
}

/// What a run's speed and memory depend on besides its grid parameters:
/// the strategy, the store and the threads (as `explore` flags, when not
/// the defaults) and the backend, from the run's record.
pub(crate) fn setup(r: &Row) -> String {
    let mut s = r.get("strategy").to_string();
    let store = r.get("store");
    if !store.is_empty() && store != "exact" {
        s += &format!(" --store {store}");
    }
    if let Some(t) = r
        .extra()
        .get("threads")
        .and_then(|t| t.as_u64())
        .filter(|t| *t > 1)
    {
        s += &format!(" --threads {t}");
    }
    format!("{s} ({})", r.get("backend"))
}

/// More series than this in one chart are drawn per [`setup`].
pub(crate) const MAX_SERIES: usize = 12;

/// The runs of one chart by series: per configuration and backend, or per
/// [`setup`] beyond `max` configurations.
pub(crate) fn by_series<'a>(rows: &[&'a Row], max: usize) -> BTreeMap<String, Vec<&'a Row>> {
    let group = |name: fn(&Row) -> String| {
        let mut m: BTreeMap<String, Vec<&'a Row>> = BTreeMap::new();
        for r in rows {
            m.entry(name(r)).or_default().push(*r);
        }
        m
    };
    let per_configuration = group(configuration_label);
    if per_configuration.len() > max {
        group(setup)
    } else {
        per_configuration
    }
}

/// A run's hover text in the plots: instance, full configuration, backend
/// and seed.
pub(crate) fn run_tip(r: &Row) -> String {
    format!(
        "{} · {} ({}, seed {})",
        r.get("instance"),
        configuration(r),
        r.get("backend"),
        r.get("seed")
    )
}

/// More configurations than this are drawn as one bar per [`setup`].
const MAX_BARS: usize = 24;

/// Runs shorter than this are left out of throughput figures: their
/// states per second is mostly start-up and timer noise.
const MIN_THROUGHPUT_SECONDS: f64 = 0.1;

/// Orders complete runs: fewest stored, then fewest visited, then fastest.
fn better(a: &Row, b: &Row) -> std::cmp::Ordering {
    let k = |r: &Row| {
        (
            stored(r).unwrap_or(f64::MAX),
            visited(r).unwrap_or(f64::MAX),
            seconds(r).unwrap_or(f64::MAX),
        )
    };
    let (ka, kb) = (k(a), k(b));
    ka.0.total_cmp(&kb.0)
        .then(ka.1.total_cmp(&kb.1))
        .then(ka.2.total_cmp(&kb.2))
        .then_with(|| a.key().cmp(b.key()))
}

/// The value of grid parameter `key` of a row (from its `params` column).
fn param(r: &Row, key: &str) -> String {
    r.params_value(key).unwrap_or_else(|| "—".into())
}

/// A chart of the report: its file name beside `report.md`, its title, the SVG.
pub struct Plot {
    pub file: &'static str,
    pub title: String,
    pub svg: String,
}

/// What `bench report` says about a set of runs; `report.md` and
/// `report.html` are two renderings of it.
pub struct Summary {
    /// One line: how many cells, which matrices, versions, host, dates.
    pub provenance: String,
    /// The fastest and the least-memory configurations (see `headline`),
    /// shown first.
    pub headline: Option<ReportTable>,
    pub tables: Vec<ReportTable>,
    pub plots: Vec<Plot>,
    /// |S| per instance (see the module comment).
    pub sizes: BTreeMap<String, f64>,
}

/// The grid parameters of `rows`, for checking `--by`.
fn grid_parameters(rows: &[Row]) -> BTreeSet<String> {
    rows.iter()
        .filter_map(|r| {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(r.get("params")).ok()
        })
        .flat_map(|p| p.into_iter().map(|(k, _)| k))
        .collect()
}

pub(crate) fn check_by(rows: &[Row], by: &[String], what: &str) -> Result<()> {
    let known = grid_parameters(rows);
    for b in by {
        if !known.contains(b) {
            anyhow::bail!(
                "--by {b}: no cell of {what} has the grid parameter `{b}` (its parameters: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            );
        }
    }
    Ok(())
}

/// The order of results in the outcome table (others after, by name).
fn result_order() -> [&'static str; 6] {
    [
        Outcome::Complete.name(),
        Outcome::StateLimit.name(),
        Outcome::TimeLimit.name(),
        Outcome::MemoryLimit.name(),
        CRASHED,
        ERROR,
    ]
}

/// Summarises `rows`; `by` names grid parameters that split the best-run
/// groups further (e.g. `chain_reduction` for the state-caching paper's CR
/// columns).
pub fn summarize(rows: &[Row], by: &[String]) -> Summary {
    let sizes = state_space_sizes(rows);
    let mut tables = vec![outcomes(rows), best_runs(rows, by, &sizes), throughput(rows)];
    tables.extend(failures(rows));
    Summary {
        provenance: provenance(rows),
        headline: super::headline::headline(rows),
        tables,
        plots: plots(rows, &sizes),
        sizes,
    }
}

/// The distinct non-empty values of column `c`.
fn values(rows: &[Row], c: &str) -> BTreeSet<String> {
    rows.iter()
        .map(|r| r.get(c).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// One line: how many cells, which matrices, versions, host, dates.
fn provenance(rows: &[Row]) -> String {
    let join = |s: BTreeSet<String>| s.into_iter().collect::<Vec<_>>().join(", ");
    let dates = values(rows, "date_utc");
    format!(
        "{} cells of matrix {}; dvemc {} (commit {}); host {} ({}); {} to {}.",
        rows.len(),
        join(values(rows, "matrix")),
        join(values(rows, "dvemc_version")),
        join(values(rows, "git_commit")),
        join(values(rows, "host")),
        join(values(rows, "cpu")),
        dates.first().cloned().unwrap_or_default(),
        dates.last().cloned().unwrap_or_default(),
    )
}

/// Outcomes: per strategy and backend, the cells and how they ended.
fn outcomes(rows: &[Row]) -> ReportTable {
    let mut results: Vec<String> = values(rows, "result").into_iter().collect();
    let order = result_order();
    results.sort_by_key(|r| {
        (
            order.iter().position(|o| o == r).unwrap_or(order.len()),
            r.clone(),
        )
    });
    let mut by_strategy: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_strategy
            .entry((r.get("strategy").to_string(), r.get("backend").to_string()))
            .or_default()
            .push(r);
    }
    let mut headers = vec!["strategy", "backend", "cells"];
    headers.extend(results.iter().map(String::as_str));
    let mut t = ReportTable::new("outcomes", "Outcomes", "", &headers);
    for ((st, be), rs) in &by_strategy {
        let mut row = vec![st.clone(), be.clone(), rs.len().to_string()];
        row.extend(
            results
                .iter()
                .map(|res| rs.iter().filter(|r| r.get("result") == res).count().to_string()),
        );
        t.rows.push(row);
    }
    t
}

/// Best run per instance and configuration (and `by` parameters).
fn best_runs(rows: &[Row], by: &[String], sizes: &BTreeMap<String, f64>) -> ReportTable {
    let mut headers = vec!["instance", "|S|", "configuration", "backend"];
    headers.extend(by.iter().map(String::as_str));
    headers.extend([
        "seed",
        "stored",
        "stored %",
        "visited",
        "visited %",
        "search s",
        "bytes/state",
        "store bytes",
        "complete runs",
    ]);
    let mut t = ReportTable::new(
        "best",
        "Best run per instance and configuration",
        "A configuration is a strategy with all its parameters (the seeds of a configuration are its \
         repetitions). Per instance, backend and configuration, the best of the complete runs: fewest \
         states stored, then fewest visited, then the shortest search. Stored and visited are also \
         given in % of the state space |S|; bytes/state is what a stored state cost \
         (store and search structures), store bytes the state store's size.",
        &headers,
    )
    .code_columns(&["configuration"]);
    let mut groups: BTreeMap<(String, String, String, Vec<String>), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        groups
            .entry((
                r.get("instance").to_string(),
                configuration(r),
                r.get("backend").to_string(),
                by.iter().map(|b| param(r, b)).collect(),
            ))
            .or_default()
            .push(r);
    }
    for ((inst, config, be, by_vals), rs) in &groups {
        let s = sizes.get(inst).copied();
        let mut complete: Vec<&Row> = rs
            .iter()
            .copied()
            .filter(|r| r.get("result") == Outcome::Complete.name())
            .collect();
        complete.sort_by(|a, b| better(a, b));
        let mut row = vec![inst.clone(), fmt_num(s), config.clone(), be.clone()];
        row.extend(by_vals.iter().cloned());
        match complete.first() {
            Some(b) => row.extend([
                b.get("seed").to_string(),
                fmt_num(stored(b)),
                pct(stored(b), s),
                fmt_num(visited(b)),
                pct(visited(b), s),
                seconds(b)
                    .map(|x| format!("{x:.3}"))
                    .unwrap_or_else(|| "—".into()),
                bytes_per_state_text(bytes_per_state(b)),
                fmt_num(store_bytes(b)),
                format!("{}/{}", complete.len(), rs.len()),
            ]),
            None => {
                // Every figure empty; how the runs ended goes with their
                // count, in its column.
                let mut res: Vec<&str> = rs.iter().map(|r| r.get("result")).collect();
                res.sort();
                res.dedup();
                row.extend(std::iter::repeat_n("—".to_string(), 8));
                row.push(format!("0/{} ({})", rs.len(), res.join(", ")));
            }
        }
        t.rows.push(row);
    }
    t
}

/// Throughput, per configuration.
fn throughput(rows: &[Row]) -> ReportTable {
    let mut t = ReportTable::new(
        "throughput",
        "Throughput",
        &format!(
            "Per configuration and backend, over its complete runs whose search took at least {MIN_THROUGHPUT_SECONDS} s \
             (shorter runs measure start-up and timer noise more than the search): the median states per \
             second and its spread (lowest–highest). A configuration with only shorter runs shows their \
             median, marked (short runs): a rough figure."
        ),
        &[
            "configuration",
            "backend",
            "complete runs",
            "timed runs",
            "states",
            "search s",
            "median states/s",
            "spread",
            "median peak memory MiB",
            "median bytes/state",
        ],
    )
    .code_columns(&["configuration"]);
    let mut by_config: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_config
            .entry((configuration(r), r.get("backend").to_string()))
            .or_default()
            .push(r);
    }
    for (key, all) in &by_config {
        let rs: Vec<&Row> = all
            .iter()
            .copied()
            .filter(|r| r.get("result") == Outcome::Complete.name())
            .collect();
        let timed: Vec<&Row> = rs
            .iter()
            .copied()
            .filter(|r| seconds(r).is_some_and(|t| t >= MIN_THROUGHPUT_SECONDS))
            .collect();
        let mut sps: Vec<f64> = timed.iter().filter_map(|r| r.states_per_second()).collect();
        let mut mem: Vec<f64> = rs
            .iter()
            .filter_map(|r| r.num("peak_mem_bytes"))
            .map(|b| b / 1048576.0)
            .collect();
        let states: f64 = rs.iter().filter_map(|r| r.num("states")).sum();
        let secs: f64 = rs.iter().filter_map(|r| seconds(r)).sum();
        let m = median(&mut sps);
        let short = || {
            let mut all: Vec<f64> = rs.iter().filter_map(|r| r.states_per_second()).collect();
            median(&mut all).map(|x| format!("{} (short runs)", plot::short_number(x)))
        };
        let spread = match (
            sps.iter().copied().reduce(f64::min),
            sps.iter().copied().reduce(f64::max),
        ) {
            (Some(lo), Some(hi)) if sps.len() > 1 => format!("{lo:.0}–{hi:.0}"),
            _ => "—".into(),
        };
        t.rows.push(vec![
            key.0.clone(),
            key.1.clone(),
            rs.len().to_string(),
            timed.len().to_string(),
            fmt_num(Some(states)),
            format!("{secs:.3}"),
            m.map(|x| format!("{x:.0}"))
                .or_else(short)
                .unwrap_or_else(|| "—".into()),
            spread,
            median(&mut mem)
                .map(|x| format!("{x:.1}"))
                .unwrap_or_else(|| "—".into()),
            bytes_per_state_text(median(
                &mut rs.iter().filter_map(|r| bytes_per_state(r)).collect::<Vec<_>>(),
            )),
        ]);
    }
    t
}

/// Failures: the cells that crashed or erred, if any.
fn failures(rows: &[Row]) -> Option<ReportTable> {
    let failed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.get("result") == CRASHED || r.get("result") == ERROR)
        .collect();
    if failed.is_empty() {
        return None;
    }
    let mut t = ReportTable::new(
        "failures",
        "Failures",
        "",
        &["cell", "result", "exit", "signal", "message"],
    )
    .code_columns(&["cell"]);
    for r in failed {
        t.rows.push(
            ["key", "result", "exit_code", "signal", "message"]
                .iter()
                .map(|c| r.get(c).to_string())
                .collect(),
        );
    }
    Some(t)
}

/// The charts of the complete runs.
fn plots(rows: &[Row], sizes: &BTreeMap<String, f64>) -> Vec<Plot> {
    let complete: Vec<&Row> = rows
        .iter()
        .filter(|r| r.get("result") == Outcome::Complete.name())
        .collect();
    let timed: Vec<&Row> = complete
        .iter()
        .copied()
        .filter(|r| seconds(r).is_some_and(|t| t >= MIN_THROUGHPUT_SECONDS))
        .collect();
    let mut plots = Vec::new();
    plots.extend(bar_plot(
        "states_per_s.svg",
        "States per second per configuration",
        "States per second (bar: median of the complete runs of at least 0.1 s; dots: runs)",
        "states per second",
        &timed,
        Row::states_per_second,
    ));
    plots.extend(bar_plot(
        MEMORY_PLOT,
        "Bytes per state per configuration",
        "Bytes per stored state, store and search structures (bar: median of the complete runs; dots: runs)",
        "bytes per state",
        &complete,
        bytes_per_state,
    ));
    let mut series = Vec::new();
    let mut seconds_series = Vec::new();
    for (name, rs) in by_series(&complete, MAX_SERIES) {
        let (a, b) = instance_series(&name, &rs, sizes);
        series.push(a);
        seconds_series.push(b);
    }
    // A legend entry without points says nothing.
    series.retain(|s| !s.points.is_empty());
    seconds_series.retain(|s| !s.points.is_empty());
    if !series.is_empty() {
        let (x, y) = stored_visited_axes(&series);
        plots.push(Plot {
            file: "stored_vs_visited.svg",
            title: "Stored against visited states".into(),
            svg: plot::scatter("Stored vs visited states (complete runs)", &x, &y, &series),
        });
    }
    if !seconds_series.is_empty() {
        let (x, y) = seconds_axes(&seconds_series);
        plots.push(Plot {
            file: "seconds_per_instance.svg",
            title: "Search time against state-space size".into(),
            svg: plot::scatter(
                "Search time by state-space size (complete runs)",
                &x,
                &y,
                &seconds_series,
            ),
        });
    }
    plots
}

/// Bytes per state as the tables give it (one decimal).
fn bytes_per_state_text(v: Option<f64>) -> String {
    v.map_or_else(|| "—".into(), |x| format!("{x:.1}"))
}

/// A bar chart of `value` over `rows`: per configuration and backend (per
/// [`setup`] beyond [`MAX_BARS`] of them), the median as the bar and the
/// runs as dots; `None` when no run has the value.
fn bar_plot(
    file: &'static str,
    title: &str,
    caption: &str,
    axis_label: &str,
    rows: &[&Row],
    value: impl Fn(&Row) -> Option<f64>,
) -> Option<Plot> {
    let bars: Vec<Bar> = by_series(rows, MAX_BARS)
        .into_iter()
        .filter_map(|(label, rs)| {
            let mut dots: Vec<f64> = rs.iter().filter_map(|r| value(r)).collect();
            Some((label, median(&mut dots)?, dots))
        })
        .enumerate()
        .map(|(i, (label, value, dots))| Bar {
            label,
            value,
            dots,
            color: i,
        })
        .collect();
    if bars.is_empty() {
        return None;
    }
    let axis = Axis::fit(axis_label, bars.iter().flat_map(|b| b.dots.clone()), 50.0);
    Some(Plot {
        file,
        title: title.into(),
        svg: plot::bars(caption, &axis, &bars),
    })
}

/// Two series of the complete runs `rs` named `name`: stored % against
/// visited %, and search seconds against |S|; each point's tip names its run.
pub(crate) fn instance_series(name: &str, rs: &[&Row], sizes: &BTreeMap<String, f64>) -> (Series, Series) {
    let mut stored_visited = Series::new(name, Vec::new());
    let mut by_size = Series::new(name, Vec::new());
    for r in rs {
        let Some(s) = sizes.get(r.get("instance")) else {
            continue;
        };
        let tip = run_tip(r);
        if let (Some(a), Some(b)) = (stored(r), visited(r)) {
            stored_visited.points.push((100.0 * a / s, 100.0 * b / s));
            stored_visited.tips.push(tip.clone());
        }
        if let Some(t) = seconds(r) {
            by_size.points.push((*s, t.max(1e-6)));
            by_size.tips.push(tip);
        }
    }
    (stored_visited, by_size)
}

pub(crate) fn stored_visited_axes(series: &[Series]) -> (Axis, Axis) {
    (
        Axis::fit(
            "stored states (% of |S|)",
            series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            1e9,
        ),
        Axis::fit(
            "visited states (% of |S|)",
            series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
            50.0,
        ),
    )
}

pub(crate) fn seconds_axes(series: &[Series]) -> (Axis, Axis) {
    (
        Axis::fit(
            "state space size |S|",
            series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            20.0,
        ),
        Axis::fit(
            "search seconds",
            series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
            20.0,
        ),
    )
}
