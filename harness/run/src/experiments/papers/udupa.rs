//! `bench report FILE --paper udupa-dbdfs`: the tables of Udupa, Desai and
//! Rajamani, "Depth Bounded Explicit-State Model Checking" (SPIN 2011),
//! from the rows of `beem/matrices/udupa-dbdfs.toml`:
//!
//! - Table 2: revisits without thresholds (naive-sound, Fig. 5) and with
//!   (threshold, Fig. 6), frontier kept as states, at the large and the small
//!   increment, each run to the instance's depth (`--depth-cutoff {depth}`);
//! - Tables 3 and 4: execution time and `getState()` time with traces and
//!   with the frontier tree (threshold), at the small and the large
//!   increment, full states for comparison;
//! - Table 1: distinct states and maximum depth explored in a fixed time
//!   budget (no cutoff), unoptimised (naive-sound with traces) against
//!   optimised (threshold with the frontier tree).
//!
//! Writes `tables.md` and `table1.csv`, `table2.csv`, `table34.csv`.

use crate::engine::Outcome;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::{pct, Rows};
use crate::experiments::schema::Row;
use crate::experiments::util::human;

fn incr(from: f64, to: f64) -> String {
    if from > 0.0 {
        format!("{:.1}%", 100.0 * (to - from) / from)
    } else {
        "-".into()
    }
}

/// A reduction in time, `-` when the time without is below a millisecond
/// (one iteration: nothing is rebuilt but the initial state).
fn pct_time(from: f64, to: f64) -> String {
    if from >= 1e-3 {
        pct(from, to)
    } else {
        "-".into()
    }
}

/// A run's value with a mark when a budget stopped it.
fn mark(r: &Row, text: String) -> String {
    if r.get("result") == Outcome::Complete.name() {
        text
    } else {
        format!("{text} ({})", r.get("result"))
    }
}

fn iterations(r: &Row) -> usize {
    r.extra()
        .get("iterations")
        .and_then(|v| v.as_array())
        .map_or(0, |v| v.len())
}

/// The rows and what the tables are laid out by.
struct Runs<'a> {
    rows: Rows<'a>,
    /// The small and the large increment.
    small: u64,
    large: u64,
    /// Each instance's depth cutoff.
    depth: BTreeMap<String, u64>,
}

impl<'a> Runs<'a> {
    fn collect(rows: &'a [Row]) -> Result<Self> {
        // Tables 2-4: runs to a depth cutoff; Table 1: runs without one.
        let cut: Vec<&Row> = rows
            .iter()
            .filter(|r| !r.get("depth_cutoff").is_empty())
            .collect();
        let incs: BTreeSet<u64> = cut
            .iter()
            .filter_map(|r| r.num("increment"))
            .map(|x| x as u64)
            .collect();
        let (Some(&small), Some(&large)) = (incs.first(), incs.last()) else {
            bail!("no depth-bounded run with a cutoff: is this a run of udupa-dbdfs.toml?");
        };
        let mut depth: BTreeMap<String, u64> = BTreeMap::new();
        for r in &cut {
            if let Some(d) = r.num("depth_cutoff") {
                depth.insert(r.get("instance").to_string(), d as u64);
            }
        }
        Ok(Runs {
            rows: Rows(rows),
            small,
            large,
            depth,
        })
    }

    /// The dbdfs run of `inst` with variant `v`, frontier `f`, increment
    /// `inc`, with or without a depth cutoff.
    fn find(&self, inst: &str, v: &str, f: &str, inc: u64, with_cutoff: bool) -> Option<&'a Row> {
        self.rows.find(|r| {
            r.get("instance") == inst
                && r.get("strategy") == "dbdfs"
                && r.get("dbdfs") == v
                && r.get("frontier") == f
                && r.num("increment") == Some(inc as f64)
                && r.get("depth_cutoff").is_empty() != with_cutoff
        })
    }
}

/// Renders the tables into `out`.
pub fn render(rows: &[Row], out: &Path) -> Result<Vec<PathBuf>> {
    let runs = Runs::collect(rows)?;
    let (small, large) = (runs.small, runs.large);
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Depth-bounded DFS on BEEM: the shape of Udupa, Desai, Rajamani (SPIN 2011), Tables 1-4\n\n\
         `dvemc bench report FILE --paper udupa-dbdfs` on a run of `beem/matrices/udupa-dbdfs.toml` \
         (every run a cell: a fresh process); the tables as CSV in `table1.csv`, `table2.csv`, \
         `table34.csv`. Instances: the BEEM instances with the deepest state spaces \
         (`stats/*.stat.xml` `<levels>`); *depth* is `<levels> - 1`, so a run to that depth explores \
         the whole state space. Large increment {large}, small increment {small}. Reductions are \
         `(without - with) / without`, as in the paper.\n",
    );

    table2(&runs, &mut md, out)?;
    tables34(&runs, &mut md, out)?;
    table1(&runs, &mut md, out)?;
    let md_path = out.join("tables.md");
    std::fs::write(&md_path, md)?;
    Ok(vec![
        md_path,
        out.join("table1.csv"),
        out.join("table2.csv"),
        out.join("table34.csv"),
    ])
}

/// Table 2: revisits without and with thresholds, at both increments.
fn table2(runs: &Runs, md: &mut String, out: &Path) -> Result<()> {
    let (small, large) = (runs.small, runs.large);
    let mut c2 = csv::Writer::from_path(out.join("table2.csv"))?;
    c2.write_record([
        "instance",
        "depth",
        "states",
        "large_increment",
        "revisits_without_threshold_large",
        "revisits_with_threshold_large",
        "reduction_large",
        "small_increment",
        "revisits_without_threshold_small",
        "revisits_with_threshold_small",
        "reduction_small",
    ])?;
    let _ = writeln!(md, "## Table 2: reduction in revisits due to thresholding\n");
    let _ = writeln!(
        md,
        "| Model | Depth | Distinct states explored | Revisits without threshold (inc {large}) | Revisits with threshold (inc {large}) | Reduction (inc {large}) | Revisits without threshold (inc {small}) | Revisits with threshold (inc {small}) | Reduction (inc {small}) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for (inst, d) in &runs.depth {
        let cells = [
            runs.find(inst, "naive-sound", "states", large, true),
            runs.find(inst, "threshold", "states", large, true),
            runs.find(inst, "naive-sound", "states", small, true),
            runs.find(inst, "threshold", "states", small, true),
        ];
        let [Some(nl), Some(tl), Some(ns), Some(ts)] = cells else {
            continue;
        };
        let rv = |x: &Row| x.num("revisits").unwrap_or(0.0);
        let u = |x: &Row, k: &str| x.num(k).unwrap_or(0.0) as u64;
        let _ = writeln!(
            md,
            "| {inst} | {d} | {} | {} | {} | {} | {} | {} | {} |",
            human(u(tl, "states")),
            mark(nl, human(u(nl, "revisits"))),
            mark(tl, human(u(tl, "revisits"))),
            pct(rv(nl), rv(tl)),
            mark(ns, human(u(ns, "revisits"))),
            mark(ts, human(u(ts, "revisits"))),
            pct(rv(ns), rv(ts)),
        );
        c2.write_record([
            inst.clone(),
            d.to_string(),
            u(tl, "states").to_string(),
            large.to_string(),
            u(nl, "revisits").to_string(),
            u(tl, "revisits").to_string(),
            pct(rv(nl), rv(tl)),
            small.to_string(),
            u(ns, "revisits").to_string(),
            u(ts, "revisits").to_string(),
            pct(rv(ns), rv(ts)),
        ])?;
        if tl.get("result") == Outcome::Complete.name()
            && tl.get("manifest_complete") == "yes"
            && tl.get("manifest_states") != tl.get("states")
        {
            let _ = writeln!(
                md,
                "\n**{inst}: {} states, BEEM has {}**\n",
                tl.get("states"),
                tl.get("manifest_states")
            );
        }
    }
    c2.flush()?;
    let _ = writeln!(
        md,
        "\nPaper (Table 2; ZING on Microsoft models, increments 1000 and 50): reductions of 3.6% to 94% \
         (53.2%, 94.0%, 3.6%, 42.5%, 39.1%, 42%, 34.3%) at increment 1000 and of 1.4% to 12.2% at \
         increment 50. (For TMHashTableFixed the paper prints 1581%, which is (without - with) / with; \
         with the formula of its other rows it is 94.0%.)\n"
    );

    Ok(())
}

/// Tables 3 and 4: execution and getState() time with traces and with the frontier tree.
fn tables34(runs: &Runs, md: &mut String, out: &Path) -> Result<()> {
    let mut c34 = csv::Writer::from_path(out.join("table34.csv"))?;
    c34.write_record([
        "increment",
        "instance",
        "depth",
        "iterations",
        "time_traces_s",
        "get_state_traces_s",
        "replay_steps_traces",
        "time_tree_s",
        "get_state_tree_s",
        "replay_steps_tree",
        "reduction_execution_time",
        "reduction_get_state_time",
        "reduction_replay_steps",
        "time_states_s",
    ])?;
    for (table, inc) in [("Table 3", runs.small), ("Table 4", runs.large)] {
        let _ = writeln!(
            md,
            "## {table}: time to explore a fixed depth with and without frontier tree (increment {inc})\n"
        );
        let _ = writeln!(
            md,
            "| Model | Depth | Iterations | Execution time, traces (s) | getState() time, traces (s) | Execution time, frontier tree (s) | getState() time, frontier tree (s) | Reduction in execution time | Reduction in getState() time | Transitions replayed, traces | Transitions replayed, tree | Execution time, full states (s) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for (inst, d) in &runs.depth {
            let (Some(tr), Some(tree), Some(st)) = (
                runs.find(inst, "threshold", "traces", inc, true),
                runs.find(inst, "threshold", "tree", inc, true),
                runs.find(inst, "threshold", "states", inc, true),
            ) else {
                continue;
            };
            let f = |x: &Row, k: &str| x.num(k).unwrap_or(0.0);
            let iters = iterations(tree);
            let _ = writeln!(
                md,
                "| {inst} | {d} | {iters} | {} | {:.3} | {} | {:.3} | {} | {} | {} | {} | {:.3} |",
                mark(tr, format!("{:.3}", f(tr, "time_s"))),
                f(tr, "get_state_time_s"),
                mark(tree, format!("{:.3}", f(tree, "time_s"))),
                f(tree, "get_state_time_s"),
                pct(f(tr, "time_s"), f(tree, "time_s")),
                pct_time(f(tr, "get_state_time_s"), f(tree, "get_state_time_s")),
                human(f(tr, "replay_steps") as u64),
                human(f(tree, "replay_steps") as u64),
                f(st, "time_s"),
            );
            c34.write_record([
                inc.to_string(),
                inst.clone(),
                d.to_string(),
                iters.to_string(),
                format!("{:.6}", f(tr, "time_s")),
                format!("{:.6}", f(tr, "get_state_time_s")),
                tr.get("replay_steps").to_string(),
                format!("{:.6}", f(tree, "time_s")),
                format!("{:.6}", f(tree, "get_state_time_s")),
                tree.get("replay_steps").to_string(),
                pct(f(tr, "time_s"), f(tree, "time_s")),
                pct_time(f(tr, "get_state_time_s"), f(tree, "get_state_time_s")),
                pct(f(tr, "replay_steps"), f(tree, "replay_steps")),
                format!("{:.6}", f(st, "time_s")),
            ])?;
        }
        let _ = writeln!(md);
    }
    c34.flush()?;
    let _ = writeln!(
        md,
        "Paper: reduction in execution time 19.1% to 82.9% at increment 50 (Table 3) and 0.01% to \
         80.1% at increment 1000 (Table 4); getState() was up to 70% (inc 50) and 95% (inc 1000) of \
         the execution time with traces.\n"
    );

    Ok(())
}

/// Table 1: states and depth explored in a fixed time budget, unoptimised against optimised.
fn table1(runs: &Runs, md: &mut String, out: &Path) -> Result<()> {
    let large = runs.large;
    let t1: BTreeSet<String> = runs
        .rows
        .0
        .iter()
        .filter(|r| r.get("strategy") == "dbdfs" && r.get("depth_cutoff").is_empty())
        .map(|r| r.get("instance").to_string())
        .collect();
    let budget = runs
        .rows
        .0
        .iter()
        .find(|r| r.get("depth_cutoff").is_empty())
        .map(|r| r.get("budget_time_s").to_string())
        .unwrap_or_default();
    let mut c1 = csv::Writer::from_path(out.join("table1.csv"))?;
    c1.write_record([
        "instance",
        "time_budget_s",
        "increment",
        "states_unopt",
        "states_opt",
        "states_increase",
        "max_depth_unopt",
        "max_depth_opt",
        "depth_increase",
        "time_unopt_s",
        "time_opt_s",
        "peak_rss_unopt_bytes",
        "peak_rss_opt_bytes",
        "peak_rss_before_search_bytes",
        "result_unopt",
        "result_opt",
    ])?;
    let _ = writeln!(
        md,
        "## Table 1: states explored and peak memory usage for a fixed time budget (increment {large})\n\n\
         Unopt: Fig. 5 (naive sound) with traces; Opt: Fig. 6 (thresholds) with the frontier tree. \
         Time budget {budget} s per run, no depth cutoff. *Maximum depth explored* is the last bound \
         whose iteration finished; a run that ends before the budget has explored the whole state \
         space (its execution time says how much sooner). Peak memory is the run's resident set \
         (VmHWM), including what loading the model takes (last column); dvemc's visited set keeps \
         every state in full (exact).\n"
    );
    let _ = writeln!(
        md,
        "| Model | Time budget (s) | Distinct explored, Unopt | Distinct explored, Opt | Increase | Maximum depth explored, Unopt | Maximum depth explored, Opt | Increase | Execution time, Unopt (s) | Execution time, Opt (s) | Peak memory, Unopt (MB) | Peak memory, Opt (MB) | of which before the search (MB) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for inst in &t1 {
        let (Some(un), Some(op)) = (
            runs.find(inst, "naive-sound", "traces", large, false),
            runs.find(inst, "threshold", "tree", large, false),
        ) else {
            continue;
        };
        let u = |x: &Row, k: &str| x.num(k).unwrap_or(0.0);
        let mb = |x: &Row, k: &str| format!("{:.1}", u(x, k) / (1024.0 * 1024.0));
        let _ = writeln!(
            md,
            "| {inst} | {budget} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {} | {} | {} |",
            mark(un, human(u(un, "states") as u64)),
            mark(op, human(u(op, "states") as u64)),
            incr(u(un, "states"), u(op, "states")),
            un.get("max_depth"),
            op.get("max_depth"),
            incr(u(un, "max_depth"), u(op, "max_depth")),
            u(un, "time_s"),
            u(op, "time_s"),
            mb(un, "peak_rss_bytes"),
            mb(op, "peak_rss_bytes"),
            mb(op, "setup_rss_bytes"),
        );
        c1.write_record([
            inst.clone(),
            budget.clone(),
            large.to_string(),
            un.get("states").to_string(),
            op.get("states").to_string(),
            incr(u(un, "states"), u(op, "states")),
            un.get("max_depth").to_string(),
            op.get("max_depth").to_string(),
            incr(u(un, "max_depth"), u(op, "max_depth")),
            format!("{:.3}", u(un, "time_s")),
            format!("{:.3}", u(op, "time_s")),
            un.get("peak_rss_bytes").to_string(),
            op.get("peak_rss_bytes").to_string(),
            op.get("setup_rss_bytes").to_string(),
            un.get("result").to_string(),
            op.get("result").to_string(),
        ])?;
    }
    c1.flush()?;
    let _ = writeln!(
        md,
        "\nPaper (Table 1, budgets of 2.5 to 5.5 hours): +26.4% to +1246.8% distinct states, +5.1% to \
         +86.8% maximum depth, peak memory +0.2% to +14%.\n\n\
         A run stopped by its budget is marked `(time_limit)`."
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        inst: &str,
        variant: &str,
        frontier: &str,
        inc: u64,
        cutoff: Option<u64>,
        f: &[(&str, &str)],
    ) -> Row {
        let mut r = Row::empty();
        r.set("instance", inst);
        r.set("strategy", "dbdfs");
        r.set("result", "complete");
        r.set("dbdfs", variant);
        r.set("frontier", frontier);
        r.set("increment", inc.to_string());
        r.set("depth_cutoff", cutoff.map(|c| c.to_string()).unwrap_or_default());
        for (k, v) in f {
            r.set(k, *v);
        }
        r
    }

    /// The tables come from the rows: revisits and their reduction,
    /// times, and the budget table.
    #[test]
    fn tables_from_rows() {
        let mut rows = Vec::new();
        for inc in [50, 1000] {
            rows.push(row(
                "m",
                "naive-sound",
                "states",
                inc,
                Some(9),
                &[("revisits", "200"), ("states", "1000")],
            ));
            rows.push(row(
                "m",
                "threshold",
                "states",
                inc,
                Some(9),
                &[("revisits", "50"), ("states", "1000"), ("time_s", "1.0")],
            ));
            rows.push(row(
                "m",
                "threshold",
                "traces",
                inc,
                Some(9),
                &[("time_s", "2.0"), ("get_state_time_s", "1.0")],
            ));
            rows.push(row(
                "m",
                "threshold",
                "tree",
                inc,
                Some(9),
                &[("time_s", "1.5"), ("get_state_time_s", "0.5")],
            ));
        }
        rows.push(row(
            "deep",
            "naive-sound",
            "traces",
            1000,
            None,
            &[("states", "100"), ("max_depth", "10"), ("result", "time_limit")],
        ));
        rows.push(row(
            "deep",
            "threshold",
            "tree",
            1000,
            None,
            &[("states", "300"), ("max_depth", "30"), ("result", "time_limit")],
        ));
        let dir = std::env::temp_dir().join(format!("dvemc-udupa-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        render(&rows, &dir).unwrap();
        let md = std::fs::read_to_string(dir.join("tables.md")).unwrap();
        assert!(
            md.contains("| m | 9 | 1000 | 200 | 50 | 75.0% | 200 | 50 | 75.0% |"),
            "{md}"
        );
        assert!(
            md.contains("| m | 9 | 0 | 2.000 | 1.000 | 1.500 | 0.500 | 25.0% | 50.0% |"),
            "{md}"
        );
        assert!(
            md.contains("| deep |  | 100 (time_limit) | 300 (time_limit) | 200.0% | 10 | 30 | 200.0% |"),
            "{md}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
