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

pub mod html;
mod summary;

pub use summary::*;

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
    for t in &summary.tables {
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
