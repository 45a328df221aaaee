//! A table of the report, and its markdown rendering (the HTML one is in
//! `html.rs`).

use std::fmt::Write as _;

fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A table of the report, rendered as markdown (`report.md`) and as HTML
/// (`report.html`, where it is sortable).
pub struct ReportTable {
    pub id: &'static str,
    pub title: String,
    pub intro: String,
    pub headers: Vec<String>,
    /// Per column: shown as code (configurations, cell keys).
    pub code: Vec<bool>,
    pub rows: Vec<Vec<String>>,
}

impl ReportTable {
    pub(super) fn new(id: &'static str, title: &str, intro: &str, headers: &[&str]) -> ReportTable {
        ReportTable {
            id,
            title: title.into(),
            intro: intro.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            code: vec![false; headers.len()],
            rows: Vec::new(),
        }
    }

    pub(super) fn code_columns(mut self, names: &[&str]) -> ReportTable {
        for (i, h) in self.headers.iter().enumerate() {
            self.code[i] = names.contains(&h.as_str());
        }
        self
    }

    /// Columns whose every non-empty cell is a number are right-aligned.
    pub fn numeric(&self, col: usize) -> bool {
        let mut any = false;
        for r in &self.rows {
            let v = r.get(col).map(String::as_str).unwrap_or("");
            if v.is_empty() || v == "—" {
                continue;
            }
            let clean: String = v
                .chars()
                .filter(|c| !matches!(c, '\u{202f}' | '%' | '/'))
                .collect();
            if clean.parse::<f64>().is_err() {
                return false;
            }
            any = true;
        }
        any
    }

    pub(crate) fn markdown(&self, out: &mut String) {
        let _ = writeln!(out, "## {}\n", self.title);
        if !self.intro.is_empty() {
            let _ = writeln!(out, "{}\n", self.intro);
        }
        let head: Vec<String> = self.headers.iter().map(|h| md(h)).collect();
        let _ = writeln!(out, "| {} |", head.join(" | "));
        let align: Vec<&str> = (0..self.headers.len())
            .map(|i| if self.numeric(i) { "---:" } else { "---" })
            .collect();
        let _ = writeln!(out, "|{}|", align.join("|"));
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    if self.code.get(i).copied().unwrap_or(false) && !v.is_empty() {
                        format!("`{}`", md(v))
                    } else {
                        md(v)
                    }
                })
                .collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
}
