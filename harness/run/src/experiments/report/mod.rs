//! `bench report`: a results file as markdown tables and SVG plots.
//!
//! - `report.md`: outcomes per strategy; the best run of each (instance,
//!   backend, configuration) group, a configuration being a strategy with
//!   all its parameters; throughput per configuration from the runs long
//!   enough to measure it; failures.
//! - `states_per_s.svg`: states per second per configuration and backend
//!   (bar: median of the complete runs of at least 0.1 s; dots: the runs).
//! - `bytes_per_state.svg`: the bytes each stored state cost (store and
//!   search structures), per configuration and backend.
//! - `stored_vs_visited.svg`: stored states against visited states, both in
//!   % of the state space, one point per complete run.
//! - `seconds_per_instance.svg`: search time against state-space size.
//!
//! A chart's series are the configurations with their backend; beyond
//! [`MAX_SERIES`] of them, each series is a [`setup`] (strategy, store,
//! threads, backend), so that runs the legend cannot list one by one are
//! still told apart by what decides their speed and memory.
//!
//! *Stored* is the caching paper's S in states: the cache size when there
//! is a cache, else the `stored_peak` counter, else `states` for strategies
//! that keep every state they reach; *visited* is `visits`, else `expansions`, else
//! `states`. The state-space size |S| of an instance is instances.csv's
//! count when exact, else the largest state count of a complete `bfs` or
//! `dfs` run in the file.

mod figures;
mod headline;
pub mod html;
mod summary;
mod table;

pub use figures::*;
pub use summary::*;
pub use table::*;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::experiments::schema::Table;
use crate::model::beem::Beem;

/// Writes the report of the results files `csvs` into `out_dir`
/// (`report.md` and its SVGs; with `html`, also `report.html`, rendering
/// the tables of every paper whose matrix is among the runs, `beem` giving
/// the suite's figures); returns the files written.
pub fn report(
    csvs: &[PathBuf],
    out_dir: &Path,
    by: &[String],
    html: bool,
    beem: Option<&Beem>,
) -> Result<Vec<PathBuf>> {
    let mut rows = Vec::new();
    for csv in csvs {
        rows.extend(Table::read(csv)?.rows);
    }
    let names: Vec<String> = csvs
        .iter()
        .map(|c| {
            c.file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    check_by(&rows, by, &names.join(", "))?;
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let summary = summarize(&rows, by);
    let title = format!("Benchmark report: {}", names.join(", "));
    let mut md_out = String::new();
    let _ = writeln!(md_out, "# Benchmark report: `{}`\n", names.join("`, `"));
    let _ = writeln!(md_out, "{}\n", summary.provenance);
    for t in summary.headline.iter().chain(&summary.tables) {
        t.markdown(&mut md_out);
    }
    let mut written = Vec::new();
    if !summary.plots.is_empty() {
        let _ = writeln!(md_out, "## Plots\n");
    }
    for p in &summary.plots {
        let path = out_dir.join(p.file);
        std::fs::write(&path, &p.svg).with_context(|| format!("writing {}", path.display()))?;
        let _ = writeln!(md_out, "![{}]({})\n", p.title, p.file);
        if p.file == MEMORY_PLOT {
            let _ = writeln!(md_out, "{MEMORY_NOTE}\n");
        }
        written.push(path);
    }
    let p = out_dir.join("report.md");
    std::fs::write(&p, md_out).with_context(|| format!("writing {}", p.display()))?;
    written.insert(0, p);
    if html {
        written.extend(html::write(&rows, &summary, out_dir, beem, &title)?);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::schema::Row;

    fn run(spec: &str, args: &str, store: &str, threads: u64) -> Row {
        let mut r = Row::empty();
        for (c, v) in [
            ("key", format!("m|jit|{spec} {args}|")),
            ("instance", "m".into()),
            ("backend", "jit".into()),
            ("strategy", spec.into()),
            ("spec", spec.into()),
            ("args", args.into()),
            ("result", "complete".into()),
            ("store", store.into()),
            ("states", "100000".into()),
            ("time_s", "0.5".into()),
            ("store_bytes", "20000".into()),
            ("bytes_per_state", "20.5".into()),
            ("extra", format!("{{\"threads\":{threads}}}")),
        ] {
            r.set(c, v);
        }
        r
    }

    fn legend(summary: &Summary, file: &str) -> String {
        let svg = &summary.plots.iter().find(|p| p.file == file).expect(file).svg;
        let start = svg.find("data-legend=\"").expect("a legend") + 13;
        svg[start..start + svg[start..].find('"').unwrap()].replace("&quot;", "\"")
    }

    /// Charts tell configurations apart: by their full configuration, or
    /// beyond a legend's worth by strategy, store, threads and backend;
    /// memory is shown in the tables and in a chart.
    #[test]
    fn charts_tell_stores_and_threads_apart_and_memory_is_shown() {
        let few = [run("bfs", "", "exact", 1), run("bfs", "--store tree", "tree", 1)];
        let s = summarize(&few, &[]);
        assert_eq!(
            legend(&s, "stored_vs_visited.svg"),
            r#"["bfs (jit)","bfs --store tree (jit)"]"#
        );
        let mut many: Vec<Row> = (0..MAX_SERIES)
            .map(|i| run("bfs", &format!("--max-visits {i}"), "exact", 1))
            .collect();
        many.push(run("bfs", "--store tree --threads 2", "tree", 2));
        let s = summarize(&many, &[]);
        assert_eq!(
            legend(&s, "seconds_per_instance.svg"),
            r#"["bfs (jit)","bfs --store tree --threads 2 (jit)"]"#
        );
        assert!(legend(&s, "bytes_per_state.svg").contains("bfs --store tree --threads 2 (jit)"));
        let best = s.tables.iter().find(|t| t.id == "best").unwrap();
        let col = |h: &str| best.headers.iter().position(|x| x == h).expect(h);
        assert_eq!(best.rows[0][col("bytes/state")], "20.5");
        assert_eq!(best.rows[0][col("store bytes")], "20\u{202f}000");
    }

    /// The HTML report opens with the headline table (fastest, least
    /// memory), says what store bytes count under the memory chart, labels
    /// its bars, gives short runs' throughput, and keeps each cell of a
    /// group without a complete run in its column.
    #[test]
    fn the_html_report_answers_which_is_fastest_and_which_is_smallest() {
        let mut exact = run("bfs", "", "exact", 1);
        exact.set("time_s", "0.01");
        exact.set("states_per_s", "10000000");
        let tree = run("bfs", "--store tree", "tree", 1);
        let mut tiny = run("bfs", "", "exact", 1);
        for (c, v) in [
            ("key", "t|jit|bfs |"),
            ("instance", "t"),
            ("states", "7"),
            ("time_s", "0.001"),
            ("bytes_per_state", "33356.6"),
        ] {
            tiny.set(c, v);
        }
        let mut stopped = run("dfs", "--cache 1", "exact", 1);
        stopped.set("result", "visit_limit");
        let rows = [exact, tree, tiny, stopped];
        let s = summarize(&rows, &[]);
        let dir = std::env::temp_dir().join(format!("dvemc-report-html-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        html::write(&rows, &s, &dir, None, "t").unwrap();
        let h = std::fs::read_to_string(dir.join("report.html")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let headline = h.find("<section id=\"headline\">").expect("a headline section");
        assert!(headline < h.find("<section id=\"overview\">").unwrap());
        assert!(h.contains("Fastest and least memory") && h.contains("all 2 instances"));
        assert!(h.contains(&crate::experiments::plot::escape(MEMORY_NOTE)));
        // The bars carry their values and configurations.
        let bars = &s.plots.iter().find(|p| p.file == MEMORY_PLOT).unwrap().svg;
        assert!(
            bars.contains("20.50  bfs (jit)") || bars.contains("20.5  bfs (jit)"),
            "{bars}"
        );
        // 7 states: no bytes per state (the first allocation's), in the
        // tables or the chart.
        assert!(!h.contains("33356") && !h.contains("33\u{202f}356"));
        let best = s.tables.iter().find(|t| t.id == "best").unwrap();
        let col = |h: &str| best.headers.iter().position(|x| x == h).expect(h);
        let none = best
            .rows
            .iter()
            .find(|r| r[col("configuration")].starts_with("dfs"))
            .unwrap();
        assert_eq!(none[col("seed")], "—");
        assert_eq!(none[col("complete runs")], "0/1 (visit_limit)");
        let tp = s.tables.iter().find(|t| t.id == "throughput").unwrap();
        let exact_row = tp.rows.iter().find(|r| r[0] == "bfs").unwrap();
        assert!(
            exact_row[6].ends_with("(short runs)") && exact_row[6] != "—",
            "{exact_row:?}"
        );
    }
}
