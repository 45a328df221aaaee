//! Benchmark matrices: `dvemc bench run|list|report|merge|slurm|compare`.
//!
//! - [`matrix`]: TOML matrices expanded into cells (one `dvemc explore` run
//!   each) with stable keys `instance|backend|spec args|seed`.
//! - [`exec`]: one cell as a child process (address-space limit, deadline
//!   kill, rusage).
//! - [`schema`]: the one CSV schema of results (`results/SCHEMA.md`), the
//!   classification of a finished child, durable appends.
//! - [`runner`]: N workers, resume, progress, summary.
//! - [`report`] (with `svg`): markdown tables and SVG plots; [`papers`]:
//!   each paper's tables from the rows of its reproduction matrix.
//! - [`compare`]: a run against a baseline (`make check-regressions`).
//! - [`slurm`]: an array-job script, one shard per task.

pub mod census;
pub mod compare;
pub mod exec;
pub mod html;
pub mod matrix;
pub mod papers;
pub mod plot;
pub mod provenance;
pub mod report;
pub mod runner;
pub mod schema;
pub mod slurm;
pub mod util;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Result};

use schema::{Row, Table, DETERMINISTIC};

/// What `merge` did.
#[derive(Debug, Default)]
pub struct MergeSummary {
    pub rows: usize,
    pub duplicates: usize,
    /// Keys present in several inputs with different deterministic columns.
    pub conflicts: Vec<String>,
}

/// Merges results files into `out`: one row per key (the first input that
/// has it wins), sorted by key, written atomically.
pub fn merge(inputs: &[&Path], out: &Path) -> Result<MergeSummary> {
    if inputs.is_empty() {
        bail!("nothing to merge");
    }
    let mut by_key: BTreeMap<String, Row> = BTreeMap::new();
    let mut s = MergeSummary::default();
    for p in inputs {
        let t = Table::read(p)?;
        for r in t.rows {
            match by_key.get(r.key()) {
                None => {
                    by_key.insert(r.key().to_string(), r);
                }
                Some(old) => {
                    s.duplicates += 1;
                    if DETERMINISTIC.iter().any(|c| old.get(c) != r.get(c)) {
                        s.conflicts.push(r.key().to_string());
                    }
                }
            }
        }
    }
    s.rows = by_key.len();
    Table {
        rows: by_key.into_values().collect(),
    }
    .write(out)?;
    Ok(s)
}
