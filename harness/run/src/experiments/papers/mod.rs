//! The papers' tables, rendered from the rows of their reproduction
//! matrices (`dvemc bench report FILE --paper NAME`): each experiment is a
//! matrix in `beem/matrices/`, run by `dvemc bench run` like any other, and
//! its tables come from the common CSV.

pub mod abed;
pub mod evangelista;
pub mod meulen;
pub mod udupa;

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::schema::Row;
use crate::model::beem::Beem;

/// The papers whose tables `bench report --paper` renders (and the BEEM
/// census, rendered the same way from its matrix).
pub const PAPERS: &[&str] = &[
    "evangelista-table2",
    "evangelista-table3",
    "udupa-dbdfs",
    "meulen-bbmc",
    "abed-random",
    "beem-census",
];

/// Renders the tables of `paper` from `rows` into `out` (`beem`: the
/// suite, for the papers whose tables name BEEM's figures).
pub fn render(paper: &str, rows: &[Row], out: &Path, beem: Option<&Beem>) -> Result<Vec<PathBuf>> {
    match paper {
        "evangelista-table2" => evangelista::render_table2(rows, out),
        "evangelista-table3" => evangelista::render_table3(rows, out),
        "udupa-dbdfs" => udupa::render(rows, out),
        "meulen-bbmc" => meulen::render(rows, out, beem),
        "abed-random" => abed::render(rows, out),
        // Not a paper's: the census of issue 14 (every BEEM instance).
        "beem-census" => super::census::render(rows, out, beem),
        other => bail!("no tables for paper `{other}` (one of: {})", PAPERS.join(", ")),
    }
}

/// The rows of a results file, with look-ups.
pub(crate) struct Rows<'a>(pub &'a [Row]);

impl<'a> Rows<'a> {
    /// The first row satisfying `f`.
    pub fn find(&self, f: impl Fn(&Row) -> bool) -> Option<&'a Row> {
        self.0.iter().find(|r| f(r))
    }
}

/// `(from - to) / from` in %, `-` without a base.
pub(crate) fn pct(from: f64, to: f64) -> String {
    if from > 0.0 {
        format!("{:.1}%", 100.0 * (from - to) / from)
    } else {
        "-".into()
    }
}
