//! `dvemc bench merge`: results files merged into one, one row per key.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Result};

use super::schema::{Row, Table, DETERMINISTIC};

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
