//! `bench report`: a results file as markdown tables and SVG plots.
//!
//! - `report.md`: outcomes per strategy; the best run of each (instance,
//!   backend, configuration) group, a configuration being a strategy with
//!   all its parameters; throughput per configuration from the runs long
//!   enough to measure it; failures.
//! - `states_per_s.svg`: states per second per configuration and backend
//!   (bar: median of the complete runs of at least 0.1 s; dots: the runs).
//! - `stored_vs_visited.svg`: stored states against visited states, both in
//!   % of the state space, one point per complete run.
//! - `seconds_per_instance.svg`: search time against state-space size.
//!
//! *Stored* is the caching paper's S in states: the cache size when there
//! is a cache, else the `stored_peak` counter, else `states` for strategies
//! that keep every state they reach; *visited* is `visits`, else `expansions`, else
//! `states`. The state-space size |S| of an instance is instances.csv's
//! count when exact, else the largest state count of a complete `bfs` or
//! `dfs` run in the file.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::runner::median;
use super::schema::{Row, Table, CRASHED, ERROR};
use super::svg::{self, Axis, Bar, Series};

/// Strategies that store every reachable state they find.
const EXHAUSTIVE: &[&str] = &["bfs", "dfs"];

fn stored(r: &Row) -> Option<f64> {
    r.num("cache_size")
        .or_else(|| r.num("stored_peak"))
        .or_else(|| r.num("states"))
}

fn visited(r: &Row) -> Option<f64> {
    r.num("visits")
        .or_else(|| r.num("expansions"))
        .or_else(|| r.num("states"))
}

fn seconds(r: &Row) -> Option<f64> {
    r.num("time_s").or_else(|| r.num("wall_s"))
}

fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

fn fmt_num(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(x) if x == x.trunc() && x.abs() < 1e15 => group_digits(x as i64),
        Some(x) => format!("{x:.3}"),
    }
}

fn group_digits(v: i64) -> String {
    let s = v.abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

fn pct(v: Option<f64>, of: Option<f64>) -> String {
    match (v, of) {
        (Some(v), Some(s)) if s > 0.0 => format!("{:.1}", 100.0 * v / s),
        _ => "—".into(),
    }
}

/// |S| per instance.
fn state_space_sizes(rows: &[Row]) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for r in rows {
        if r.get("manifest_complete") == "yes" {
            if let Some(s) = r.num("manifest_states") {
                m.insert(r.get("instance").to_string(), s);
            }
        }
    }
    for r in rows {
        if r.get("result") == "complete" && EXHAUSTIVE.contains(&r.get("strategy")) {
            if let Some(s) = r.num("states") {
                let e = m.entry(r.get("instance").to_string()).or_insert(0.0);
                if r.get("manifest_complete") != "yes" && s > *e {
                    *e = s;
                }
            }
        }
    }
    m.retain(|_, v| *v > 0.0);
    m
}

/// A row's configuration: the strategy and every parameter of its cell
/// (`spec args`), the seed excepted (seeds repeat a configuration).
fn configuration(r: &Row) -> String {
    if r.get("args").is_empty() {
        r.get("spec").to_string()
    } else {
        format!("{} {}", r.get("spec"), r.get("args"))
    }
}

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

/// Writes the report of `csv` into `out_dir`; returns the files written.
/// `by` names grid parameters that split the best-run groups further (e.g.
/// `chain_reduction` for the state-caching paper's CR columns).
pub fn report(csv: &Path, out_dir: &Path, by: &[String]) -> Result<Vec<PathBuf>> {
    let table = Table::read(csv)?;
    let rows = &table.rows;
    let known: std::collections::BTreeSet<String> = rows
        .iter()
        .filter_map(|r| {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(r.get("params")).ok()
        })
        .flat_map(|p| p.into_iter().map(|(k, _)| k))
        .collect();
    for b in by {
        if !known.contains(b) {
            anyhow::bail!(
                "--by {b}: no cell of {} has the grid parameter `{b}` (its parameters: {})",
                csv.display(),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            );
        }
    }
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let sizes = state_space_sizes(rows);
    let mut md_out = String::new();
    let name = csv
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let _ = writeln!(md_out, "# Benchmark report: `{name}`\n");
    let set = |c: &str| {
        rows.iter()
            .map(|r| r.get(c).to_string())
            .filter(|s| !s.is_empty())
            .collect::<BTreeSet<_>>()
    };
    let join = |s: BTreeSet<String>| s.into_iter().collect::<Vec<_>>().join(", ");
    let dates = set("date_utc");
    let _ = writeln!(
        md_out,
        "{} cells of matrix {}; dvemc {} (commit {}); host {} ({}); {} to {}.\n",
        rows.len(),
        join(set("matrix")),
        join(set("dvemc_version")),
        join(set("git_commit")),
        join(set("host")),
        join(set("cpu")),
        dates.first().cloned().unwrap_or_default(),
        dates.last().cloned().unwrap_or_default(),
    );

    // Outcomes.
    let mut results: Vec<String> = set("result").into_iter().collect();
    let order = [
        "complete",
        "state_limit",
        "time_limit",
        "memory_limit",
        CRASHED,
        ERROR,
    ];
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
    let _ = writeln!(md_out, "## Outcomes\n");
    let _ = writeln!(md_out, "| strategy | backend | cells | {} |", results.join(" | "));
    let _ = writeln!(md_out, "|---|---|---:|{}", "---:|".repeat(results.len()));
    for ((st, be), rs) in &by_strategy {
        let counts: Vec<String> = results
            .iter()
            .map(|res| rs.iter().filter(|r| r.get("result") == res).count().to_string())
            .collect();
        let _ = writeln!(
            md_out,
            "| {} | {} | {} | {} |",
            md(st),
            md(be),
            rs.len(),
            counts.join(" | ")
        );
    }

    // Best run per configuration.
    let _ = writeln!(md_out, "\n## Best run per instance and configuration\n");
    let _ = writeln!(
        md_out,
        "A configuration is a strategy with all its parameters (the seeds of a configuration are its \
         repetitions). Per instance, backend and configuration, the best of the complete runs: fewest \
         states stored, then fewest visited, then the shortest search. Stored and visited are also \
         given in % of the state space |S|.\n"
    );
    let by_cols: String = by.iter().map(|b| format!(" {} |", md(b))).collect();
    let _ = writeln!(
        md_out,
        "| instance | \\|S\\| | configuration | backend |{by_cols} seed | stored | stored % | visited | visited % | search s | complete runs |"
    );
    let _ = writeln!(
        md_out,
        "|---|---:|---|---|{}---:|---:|---:|---:|---:|---:|---:|",
        "---|".repeat(by.len())
    );
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
        let by_vals: String = by_vals.iter().map(|v| format!(" {} |", md(v))).collect();
        let s = sizes.get(inst).copied();
        let mut complete: Vec<&Row> = rs
            .iter()
            .copied()
            .filter(|r| r.get("result") == "complete")
            .collect();
        complete.sort_by(|a, b| better(a, b));
        match complete.first() {
            Some(b) => {
                let _ = writeln!(
                    md_out,
                    "| {} | {} | `{}` | {} |{by_vals} {} | {} | {} | {} | {} | {} | {}/{} |",
                    md(inst),
                    fmt_num(s),
                    md(config),
                    md(be),
                    b.get("seed"),
                    fmt_num(stored(b)),
                    pct(stored(b), s),
                    fmt_num(visited(b)),
                    pct(visited(b), s),
                    seconds(b)
                        .map(|x| format!("{x:.3}"))
                        .unwrap_or_else(|| "—".into()),
                    complete.len(),
                    rs.len()
                );
            }
            None => {
                let mut res: Vec<&str> = rs.iter().map(|r| r.get("result")).collect();
                res.sort();
                res.dedup();
                let _ = writeln!(
                    md_out,
                    "| {} | {} | `{}` | {} |{by_vals} no complete run ({}) | | | | | | 0/{} |",
                    md(inst),
                    fmt_num(s),
                    md(config),
                    md(be),
                    res.join(", "),
                    rs.len()
                );
            }
        }
    }

    // Throughput, per configuration.
    let _ = writeln!(md_out, "\n## Throughput\n");
    let _ = writeln!(
        md_out,
        "Per configuration and backend, over its complete runs whose search took at least {MIN_THROUGHPUT_SECONDS} s \
         (shorter runs measure start-up and timer noise more than the search): the median states per \
         second and its spread (lowest–highest).\n"
    );
    let _ = writeln!(
        md_out,
        "| configuration | backend | complete runs | timed runs | states | search s | median states/s | spread | median peak memory MiB |"
    );
    let _ = writeln!(md_out, "|---|---|---:|---:|---:|---:|---:|---|---:|");
    let mut bars = Vec::new();
    let mut by_config: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_config
            .entry((configuration(r), r.get("backend").to_string()))
            .or_default()
            .push(r);
    }
    for (i, (key, all)) in by_config.iter().enumerate() {
        let rs: Vec<&Row> = all
            .iter()
            .copied()
            .filter(|r| r.get("result") == "complete")
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
        let spread = match (
            sps.iter().copied().reduce(f64::min),
            sps.iter().copied().reduce(f64::max),
        ) {
            (Some(lo), Some(hi)) if sps.len() > 1 => format!("{lo:.0}–{hi:.0}"),
            _ => "—".into(),
        };
        let _ = writeln!(
            md_out,
            "| `{}` | {} | {} | {} | {} | {:.3} | {} | {} | {} |",
            md(&key.0),
            md(&key.1),
            rs.len(),
            timed.len(),
            fmt_num(Some(states)),
            secs,
            m.map(|x| format!("{x:.0}"))
                .unwrap_or_else(|| format!("— (no run ≥ {MIN_THROUGHPUT_SECONDS} s)")),
            spread,
            median(&mut mem)
                .map(|x| format!("{x:.1}"))
                .unwrap_or_else(|| "—".into()),
        );
        if let Some(m) = m {
            bars.push(Bar {
                label: format!("{} ({})", key.0, key.1),
                value: m,
                dots: sps.clone(),
                color: i,
            });
        }
    }

    // Failures.
    let failed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.get("result") == CRASHED || r.get("result") == ERROR)
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(md_out, "\n## Failures\n");
        let _ = writeln!(md_out, "| cell | result | exit | signal | message |");
        let _ = writeln!(md_out, "|---|---|---:|---|---|");
        for r in failed {
            let _ = writeln!(
                md_out,
                "| `{}` | {} | {} | {} | {} |",
                md(r.key()),
                r.get("result"),
                r.get("exit_code"),
                r.get("signal"),
                md(r.get("message"))
            );
        }
    }

    // Plots.
    let mut written = Vec::new();
    let mut plots = Vec::new();
    if !bars.is_empty() {
        let axis = Axis::fit(
            "states per second",
            bars.iter().flat_map(|b| b.dots.clone()),
            50.0,
        );
        let svg = svg::bars(
            "States per second per configuration (bar: median of the complete runs of at least 0.1 s; dots: runs)",
            &axis,
            &bars,
        );
        plots.push(("states_per_s.svg", "States per second per configuration", svg));
    }
    let mut series = Vec::new();
    let mut seconds_series = Vec::new();
    for (st, _be) in by_strategy.keys() {
        if series.iter().any(|s: &Series| &s.name == st) {
            continue;
        }
        let rs: Vec<&Row> = rows
            .iter()
            .filter(|r| r.get("strategy") == st && r.get("result") == "complete")
            .collect();
        let pts: Vec<(f64, f64)> = rs
            .iter()
            .filter_map(|r| {
                let s = sizes.get(r.get("instance"))?;
                Some((100.0 * stored(r)? / s, 100.0 * visited(r)? / s))
            })
            .collect();
        series.push(Series {
            name: st.clone(),
            points: pts,
        });
        let pts: Vec<(f64, f64)> = rs
            .iter()
            .filter_map(|r| Some((*sizes.get(r.get("instance"))?, seconds(r)?.max(1e-6))))
            .collect();
        seconds_series.push(Series {
            name: st.clone(),
            points: pts,
        });
    }
    // A legend entry without points says nothing.
    series.retain(|s| !s.points.is_empty());
    seconds_series.retain(|s| !s.points.is_empty());
    if !series.is_empty() {
        let x = Axis::fit(
            "stored states (% of |S|)",
            series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            1e9,
        );
        let y = Axis::fit(
            "visited states (% of |S|)",
            series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
            50.0,
        );
        plots.push((
            "stored_vs_visited.svg",
            "Stored against visited states",
            svg::scatter("Stored vs visited states (complete runs)", &x, &y, &series),
        ));
    }
    if !seconds_series.is_empty() {
        let x = Axis::fit(
            "state space size |S|",
            seconds_series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            20.0,
        );
        let y = Axis::fit(
            "search seconds",
            seconds_series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
            20.0,
        );
        plots.push((
            "seconds_per_instance.svg",
            "Search time against state-space size",
            svg::scatter(
                "Search time by state-space size (complete runs)",
                &x,
                &y,
                &seconds_series,
            ),
        ));
    }
    if !plots.is_empty() {
        let _ = writeln!(md_out, "\n## Plots\n");
    }
    for (file, alt, svg) in plots {
        let p = out_dir.join(file);
        std::fs::write(&p, svg).with_context(|| format!("writing {}", p.display()))?;
        let _ = writeln!(md_out, "![{alt}]({file})\n");
        written.push(p);
    }
    let p = out_dir.join("report.md");
    std::fs::write(&p, md_out).with_context(|| format!("writing {}", p.display()))?;
    written.insert(0, p);
    Ok(written)
}
