//! `dvemc verify-beem`: explore every complete BEEM instance up to a size
//! and compare the state count with `instances.csv`.
//!
//! The CSV is written to a temporary file beside the target and renamed
//! when the run ends, so an interrupted run leaves no partial report.

use crate::explore::{explore, ExploreOptions, Limits, Strategy};
use crate::manifest::Beem;
use anyhow::{Context, Result};
use dve_frontend::model::NextState;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// One row of `results/beem-verify.csv`.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyRow {
    pub instance: String,
    pub expected: u64,
    pub got: u64,
    #[serde(rename = "match")]
    pub matches: bool,
    pub seconds: f64,
    pub bytes_per_state: f64,
    /// `complete`, or the budget or error that ended the run.
    pub result: String,
}

pub struct VerifySummary {
    pub rows: Vec<VerifyRow>,
    pub skipped_larger: usize,
}

impl VerifySummary {
    pub fn matched(&self) -> usize {
        self.rows.iter().filter(|r| r.matches).count()
    }
}

/// Explores, with BFS, every `complete=yes` instance of at most `max_states`
/// states (by BEEM's count), smallest first. `memory_limit` bounds each run.
pub fn verify_beem(
    beem: &Beem,
    max_states: u64,
    memory_limit: Option<u64>,
    out: &Path,
    mut progress: impl FnMut(&VerifyRow),
) -> Result<VerifySummary> {
    let rows = beem.instances().context("reading instances.csv")?;
    let mut todo: Vec<(String, u64)> = rows
        .iter()
        .filter(|r| r.complete)
        .filter_map(|r| r.states.map(|s| (r.instance.clone(), s)))
        .collect();
    let total = todo.len();
    todo.retain(|(_, s)| *s <= max_states);
    todo.sort_by_key(|(_, s)| *s);
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let tmp = out.with_extension("csv.tmp");
    let mut writer = csv::Writer::from_path(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    let mut done = Vec::new();
    for (name, expected) in todo {
        let start = Instant::now();
        let row = match dve_frontend::load_file(&beem.model_path(&name)) {
            Err(e) => VerifyRow {
                instance: name.clone(),
                expected,
                got: 0,
                matches: false,
                seconds: 0.0,
                bytes_per_state: 0.0,
                result: format!("load error: {}", e.to_string().lines().next().unwrap_or("")),
            },
            Ok(ir) => {
                let model: Box<dyn NextState> = Box::new(dve_frontend::interp::Interpreter::new(ir));
                let opts = ExploreOptions {
                    strategy: Strategy::Bfs,
                    limits: Limits {
                        memory_bytes: memory_limit,
                        ..Default::default()
                    },
                    level_table: false,
                };
                let r = explore(model.as_ref(), &opts);
                VerifyRow {
                    instance: name.clone(),
                    expected,
                    got: r.states,
                    matches: r.result.is_complete() && r.states == expected,
                    seconds: start.elapsed().as_secs_f64(),
                    bytes_per_state: r.bytes_per_state,
                    result: r.result.name().to_string(),
                }
            }
        };
        writer.serialize(&row)?;
        writer.flush()?;
        progress(&row);
        done.push(row);
    }
    writer.flush()?;
    drop(writer);
    std::fs::rename(&tmp, out).with_context(|| format!("renaming {} to {}", tmp.display(), out.display()))?;
    Ok(VerifySummary {
        skipped_larger: total - done.len(),
        rows: done,
    })
}

/// The closing summary, one paragraph.
pub fn print_summary(out: &mut impl Write, s: &VerifySummary, max_states: u64) -> std::io::Result<()> {
    let states: u64 = s.rows.iter().map(|r| r.got).sum();
    let secs: f64 = s.rows.iter().map(|r| r.seconds).sum();
    writeln!(
        out,
        "{} of {} complete instances up to {} states match BEEM exactly ({} states in {:.1} s); {} larger instances not run",
        s.matched(),
        s.rows.len(),
        max_states,
        states,
        secs,
        s.skipped_larger
    )?;
    for r in s.rows.iter().filter(|r| !r.matches) {
        writeln!(
            out,
            "MISMATCH {}: expected {}, got {} ({})",
            r.instance, r.expected, r.got, r.result
        )?;
    }
    Ok(())
}
