//! `bench report --html`: one self-contained HTML file (inline SVG, CSS and
//! script; it opens offline) for one or more results files, in the spirit
//! of BenchExec's table generator:
//!
//! - overview plots: a quantile plot per configuration (how many runs
//!   finish within a time), states per second, bytes per state, stored
//!   against visited states, search time against state-space size;
//! - each paper whose reproduction matrix is among the runs: its tables
//!   (from `bench report --paper`, written beside the report) with every
//!   figure that differs from the paper's highlighted, and its plots;
//! - per instance, its configurations side by side (stored % against
//!   visited %, time against states; the full configuration on hover);
//! - the summary tables of `report.md` and every run, sortable (click a
//!   header) and filterable (type words that must all appear in a row).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::figures::{bytes_per_state, configuration, fmt_num, seconds, store_bytes, stored, visited};
use super::summary::{self as report, by_series, Summary, MAX_SERIES};
use super::table::ReportTable;
use crate::engine::Outcome;
use crate::experiments::papers;
use crate::experiments::plot::{self, escape, Axis, Series};
use crate::experiments::schema::Row;
use crate::model::beem::Beem;

/// Writes `report.html` (and the papers' files under `papers/NAME/`) into
/// `out_dir` from `rows`; returns the files written.
pub fn write(
    rows: &[Row],
    summary: &Summary,
    out_dir: &Path,
    beem: Option<&Beem>,
    title: &str,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>{STYLE}</style></head><body>\n",
        escape(title)
    );
    let _ = writeln!(
        h,
        "<h1>{}</h1>\n<p class=\"prov\">{}</p>",
        escape(title),
        escape(&summary.provenance)
    );

    // Papers first: they are what a reproduction run is for.
    let mut paper_sections = String::new();
    let matrices: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.get("matrix")).collect();
    let mut nav = Vec::new();
    for paper in papers::PAPERS.iter().filter(|p| matrices.contains(*p)) {
        let mine: Vec<Row> = rows
            .iter()
            .filter(|r| r.get("matrix") == *paper)
            .cloned()
            .collect();
        let dir = out_dir.join("papers").join(paper);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let id = format!("paper-{paper}");
        let label = if *paper == "beem-census" {
            "Census".to_string()
        } else {
            format!("Paper: {paper}")
        };
        nav.push((id.clone(), label));
        let _ = writeln!(paper_sections, "<section id=\"{id}\">");
        match papers::render(paper, &mine, &dir, beem) {
            Ok(files) => {
                paper_section(&mut paper_sections, paper, &files, out_dir)?;
                written.extend(files);
            }
            Err(e) => {
                let _ = writeln!(
                    paper_sections,
                    "<h2>{paper}</h2><p class=\"error\">its tables could not be rendered from these runs: {}</p>",
                    escape(&format!("{e:#}"))
                );
            }
        }
        let _ = writeln!(paper_sections, "</section>");
    }

    let overview = overview_plots(rows, summary);
    let instances = instance_plots(rows, summary);
    let _ = write!(h, "<nav>");
    let mut links = vec![("overview".to_string(), "Overview".to_string())];
    links.extend(nav);
    links.extend([
        ("instances".into(), "Per instance".into()),
        ("summary".into(), "Summary tables".into()),
        ("runs".into(), "All runs".into()),
    ]);
    for (id, text) in &links {
        let _ = write!(h, "<a href=\"#{id}\">{}</a> ", escape(text));
    }
    let _ = writeln!(h, "</nav>");

    if let Some(t) = &summary.headline {
        let _ = writeln!(h, "<section id=\"headline\">");
        report_table(&mut h, t);
        let _ = writeln!(h, "</section>");
    }
    let _ = writeln!(
        h,
        "<section id=\"overview\"><h2>Overview</h2>\n<div class=\"plots\">{overview}</div></section>"
    );
    h.push_str(&paper_sections);
    let _ = writeln!(
        h,
        "<section id=\"instances\"><h2>Per instance</h2>\n<p>Complete runs only; one colour per configuration and backend (beyond {MAX_SERIES}, per strategy, store, threads and backend), one point per run; hover a point for its configuration.</p>\n{instances}</section>"
    );
    let _ = writeln!(h, "<section id=\"summary\"><h2>Summary tables</h2>");
    for t in &summary.tables {
        report_table(&mut h, t);
    }
    let _ = writeln!(h, "</section>");
    runs_table(&mut h, rows, summary);
    let _ = writeln!(h, "<script>{SCRIPT}</script>\n</body></html>");

    let p = out_dir.join("report.html");
    std::fs::write(&p, h).with_context(|| format!("writing {}", p.display()))?;
    written.insert(0, p);
    Ok(written)
}

/// Quantile plot, stored against visited, time against size, throughput.
fn overview_plots(rows: &[Row], summary: &Summary) -> String {
    let timed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.get("result") == Outcome::Complete.name() && seconds(r).is_some())
        .collect();
    let series: Vec<(String, Vec<f64>)> = by_series(&timed, MAX_SERIES)
        .into_iter()
        .map(|(name, rs)| {
            (
                name,
                rs.iter()
                    .filter_map(|r| seconds(r))
                    .map(|t| t.max(1e-6))
                    .collect(),
            )
        })
        .collect();
    let mut out = plot::quantiles(
        "Quantile plot: search seconds of the complete runs",
        "search seconds",
        &series,
    );
    for p in &summary.plots {
        if p.file == report::MEMORY_PLOT {
            let _ = write!(
                out,
                "<figure class=\"memory\">{}<figcaption>{}</figcaption></figure>",
                p.svg,
                escape(report::MEMORY_NOTE)
            );
        } else {
            out.push_str(&p.svg);
        }
    }
    out
}

/// Per instance: stored % against visited % and seconds against the
/// states reached, one series per configuration (see `report::by_series`).
fn instance_plots(rows: &[Row], summary: &Summary) -> String {
    let mut by_instance: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.get("result") == Outcome::Complete.name())
    {
        by_instance.entry(r.get("instance")).or_default().push(r);
    }
    let mut out = String::new();
    for (i, (inst, runs)) in by_instance.iter().enumerate() {
        let Some(size) = summary.sizes.get(*inst) else {
            continue;
        };
        let mut sv = Vec::new();
        let mut ts = Vec::new();
        for (name, rs) in by_series(runs, MAX_SERIES) {
            let (a, _) = report::instance_series(&name, &rs, &summary.sizes);
            sv.push(a);
            // Against |S| every run of one instance is at one x: plot time
            // against the states the run reached instead.
            let mut t = Series::new(name, Vec::new());
            for r in rs {
                if let (Some(s), Some(secs)) = (r.num("states").or_else(|| visited(r)), seconds(r)) {
                    t.points.push((s.max(1.0), secs.max(1e-6)));
                    t.tips.push(report::run_tip(r));
                }
            }
            ts.push(t);
        }
        sv.retain(|s| !s.points.is_empty());
        ts.retain(|s| !s.points.is_empty());
        let _ = writeln!(
            out,
            "<details{}><summary>{} (|S| = {})</summary><div class=\"plots\">",
            if i < 2 { " open" } else { "" },
            escape(inst),
            fmt_num(Some(*size))
        );
        if !sv.is_empty() {
            let (x, y) = report::stored_visited_axes(&sv);
            out.push_str(&plot::scatter(
                &format!("{inst}: stored against visited"),
                &x,
                &y,
                &sv,
            ));
        }
        if !ts.is_empty() {
            let x = Axis::fit(
                "states reached",
                ts.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
                20.0,
            );
            let y = Axis::fit(
                "search seconds",
                ts.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
                20.0,
            );
            out.push_str(&plot::scatter(
                &format!("{inst}: time against states"),
                &x,
                &y,
                &ts,
            ));
        }
        let _ = writeln!(out, "</div></details>");
    }
    out
}

/// A paper's files: its markdown's title and first paragraph, its CSV
/// tables with the differences from the paper marked, its SVG plots.
fn paper_section(h: &mut String, paper: &str, files: &[PathBuf], out_dir: &Path) -> Result<()> {
    let ext = |f: &PathBuf, e: &str| f.extension().is_some_and(|x| x == e);
    let mut title = paper.to_string();
    let mut intro = String::new();
    if let Some(md) = files.iter().find(|f| ext(f, "md")) {
        let text = std::fs::read_to_string(md).with_context(|| format!("reading {}", md.display()))?;
        let mut lines = text.lines();
        if let Some(t) = lines.next().and_then(|l| l.strip_prefix("# ")) {
            title = t.to_string();
        }
        intro = lines
            .skip_while(|l| l.trim().is_empty())
            .take_while(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join(" ");
    }
    let _ = writeln!(h, "<h2>{}</h2>", escape(&title));
    if !intro.is_empty() {
        let _ = writeln!(h, "<p>{}</p>", escape(&intro.replace('`', "")));
    }
    let rel = |f: &PathBuf| f.strip_prefix(out_dir).unwrap_or(f).display().to_string();
    let _ = writeln!(
        h,
        "<p class=\"files\">Files: {}. A highlighted figure differs from the paper's (in the <code>paper_</code> column beside it; red: by more than 5).</p>",
        files
            .iter()
            .map(|f| format!("<a href=\"{0}\">{0}</a>", escape(&rel(f))))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for f in files.iter().filter(|f| ext(f, "csv")) {
        csv_table(h, f, &rel(f))?;
    }
    let _ = writeln!(h, "<div class=\"plots\">");
    for f in files.iter().filter(|f| ext(f, "svg")) {
        let svg = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
        h.push_str(&svg);
    }
    let _ = writeln!(h, "</div>");
    Ok(())
}

/// How a figure compares with the paper's: equal (None), differs
/// (`near`), or, in a percentage column, differs by more than 5 points
/// (`far`).
fn differs(column: &str, ours: &str, paper: &str) -> Option<&'static str> {
    if paper.is_empty() || ours.is_empty() || paper == "-" {
        return None;
    }
    let num = |s: &str| s.trim_end_matches('%').parse::<f64>().ok();
    match (num(ours), num(paper)) {
        (Some(a), Some(b)) if (a - b).abs() < 1e-9 => None,
        (Some(a), Some(b)) if (a - b).abs() > 5.0 && percent_column(column, ours) => Some("far"),
        _ if ours == paper => None,
        _ => Some("near"),
    }
}

/// The papers' percentages of |S|: the caching paper's S, V, P, L, and any
/// `%` figure.
fn percent_column(column: &str, value: &str) -> bool {
    matches!(column, "S" | "V" | "P" | "L") || column.ends_with("_pct") || value.ends_with('%')
}

/// A paper's CSV as a sortable table; a column `X` with a `paper_X`
/// beside it has its differing cells highlighted.
fn csv_table(h: &mut String, path: &Path, name: &str) -> Result<()> {
    let mut rdr = csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let headers: Vec<String> = rdr
        .headers()
        .with_context(|| format!("reading {}", path.display()))?
        .iter()
        .map(str::to_string)
        .collect();
    let paper_of: Vec<Option<usize>> = headers
        .iter()
        .map(|c| headers.iter().position(|p| *p == format!("paper_{c}")))
        .collect();
    let _ = writeln!(h, "<h3>{}</h3>", escape(name));
    let _ = writeln!(h, "<table class=\"sortable\"><thead><tr>");
    for c in &headers {
        let _ = write!(h, "<th>{}</th>", escape(c));
    }
    let _ = writeln!(h, "</tr></thead><tbody>");
    for rec in rdr.records() {
        let rec = rec.with_context(|| format!("reading {}", path.display()))?;
        h.push_str("<tr>");
        for (i, v) in rec.iter().enumerate() {
            let class = paper_of.get(i).copied().flatten().and_then(|p| {
                let paper = rec.get(p).unwrap_or("");
                differs(&headers[i], v, paper).map(|c| (c, paper))
            });
            match class {
                Some((c, paper)) => {
                    let _ = write!(
                        h,
                        "<td class=\"{c}\" title=\"paper: {}\">{}</td>",
                        escape(paper),
                        escape(v)
                    );
                }
                None => {
                    let _ = write!(h, "<td>{}</td>", escape(v));
                }
            }
        }
        h.push_str("</tr>\n");
    }
    let _ = writeln!(h, "</tbody></table>");
    Ok(())
}

fn report_table(h: &mut String, t: &ReportTable) {
    let _ = writeln!(h, "<h3 id=\"{}\">{}</h3>", t.id, escape(&t.title));
    if !t.intro.is_empty() {
        let _ = writeln!(h, "<p>{}</p>", escape(&t.intro));
    }
    let _ = writeln!(
        h,
        "<input class=\"filter\" data-table=\"t-{0}\" placeholder=\"filter rows\"> <span class=\"count\" id=\"n-t-{0}\"></span>",
        t.id
    );
    let _ = writeln!(h, "<table class=\"sortable\" id=\"t-{}\"><thead><tr>", t.id);
    for c in &t.headers {
        let _ = write!(h, "<th>{}</th>", escape(c));
    }
    let _ = writeln!(h, "</tr></thead><tbody>");
    let numeric: Vec<bool> = (0..t.headers.len()).map(|i| t.numeric(i)).collect();
    for r in &t.rows {
        h.push_str("<tr>");
        for (i, v) in r.iter().enumerate() {
            let class = if numeric[i] {
                " class=\"num\""
            } else if t.code[i] {
                " class=\"code\""
            } else {
                ""
            };
            let _ = write!(h, "<td{class}>{}</td>", escape(v));
        }
        h.push_str("</tr>\n");
    }
    let _ = writeln!(h, "</tbody></table>");
}

/// Every run, one row each.
fn runs_table(h: &mut String, rows: &[Row], summary: &Summary) {
    let _ = writeln!(
        h,
        "<section id=\"runs\"><h2>All runs</h2>\n<p>{} runs. Stored and visited as in the summary; % of |S|. Bytes/state: the store and search structures per stored state; store bytes: the state store.</p>",
        rows.len()
    );
    let _ = writeln!(
        h,
        "<input class=\"filter\" data-table=\"t-runs\" placeholder=\"filter rows, e.g. 'bfs complete'\"> <span class=\"count\" id=\"n-t-runs\"></span>"
    );
    let cols = [
        "matrix",
        "instance",
        "backend",
        "configuration",
        "seed",
        "result",
        "states",
        "transitions",
        "stored %",
        "visited %",
        "search s",
        "states/s",
        "bytes/state",
        "store bytes",
        "peak MiB",
        "message",
    ];
    let _ = writeln!(h, "<table class=\"sortable\" id=\"t-runs\"><thead><tr>");
    for c in cols {
        let _ = write!(h, "<th>{c}</th>");
    }
    let _ = writeln!(h, "</tr></thead><tbody>");
    let pct = |v: Option<f64>, r: &Row| match (v, summary.sizes.get(r.get("instance"))) {
        (Some(v), Some(s)) => format!("{:.1}", 100.0 * v / s),
        _ => String::new(),
    };
    let num = |v: Option<f64>, d: usize| v.map(|x| format!("{x:.d$}")).unwrap_or_default();
    for r in rows {
        let cells = [
            r.get("matrix").to_string(),
            r.get("instance").to_string(),
            r.get("backend").to_string(),
            configuration(r),
            r.get("seed").to_string(),
            r.get("result").to_string(),
            r.get("states").to_string(),
            r.get("transitions").to_string(),
            pct(stored(r), r),
            pct(visited(r), r),
            num(seconds(r), 3),
            num(r.states_per_second(), 0),
            num(bytes_per_state(r), 1),
            num(store_bytes(r), 0),
            num(r.num("peak_mem_bytes").map(|b| b / 1048576.0), 1),
            r.get("message").to_string(),
        ];
        let _ = write!(h, "<tr class=\"{}\">", escape(r.get("result")));
        for (i, v) in cells.iter().enumerate() {
            let class = match i {
                3 => " class=\"code\"",
                6..=14 => " class=\"num\"",
                _ => "",
            };
            let _ = write!(h, "<td{class}>{}</td>", escape(v));
        }
        h.push_str("</tr>\n");
    }
    let _ = writeln!(h, "</tbody></table></section>");
}

const STYLE: &str = r#"
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; } h3 { margin-top: 1.5em; }
nav a { margin-right: 1em; }
.prov, .files { color: #555; font-size: 0.9em; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
.plots svg { border: 1px solid #ddd; }
figure.memory { margin: 0; max-width: 802px; }
figure.memory figcaption { font-size: 0.85em; color: #444; margin-top: 4px; }
#headline table { font-size: 1em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; }
th { background: #f0f0f0; cursor: pointer; position: sticky; top: 0; }
th.asc::after { content: " ▲"; } th.desc::after { content: " ▼"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.code { font-family: monospace; }
td.near { background: #fff3b0; } td.far { background: #f8b4b4; }
tr.crashed td, tr.error td { background: #fde0e0; }
.error { color: #a00; }
input.filter { width: 30em; margin: 0.3em 0; }
details { margin: 0.5em 0; } summary { cursor: pointer; font-weight: bold; }
"#;

/// Sorting (click a header; numbers as numbers) and filtering (every word
/// typed must appear in the row).
const SCRIPT: &str = r#"
function cellKey(td) {
  const t = td.textContent.replace(/[\u202f,%]/g, '').trim();
  const n = parseFloat(t);
  return isNaN(n) || !/^[-+0-9.e]+$/i.test(t) ? [1, t.toLowerCase()] : [0, n];
}
document.querySelectorAll('table.sortable').forEach(table => {
  table.querySelectorAll('th').forEach((th, i) => th.addEventListener('click', () => {
    const asc = !th.classList.contains('asc');
    table.querySelectorAll('th').forEach(x => x.classList.remove('asc', 'desc'));
    th.classList.add(asc ? 'asc' : 'desc');
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = cellKey(a.cells[i] || a), y = cellKey(b.cells[i] || b);
      const c = x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
      return asc ? c : -c;
    });
    rows.forEach(r => body.appendChild(r));
  }));
});
function applyFilter(input) {
  const table = document.getElementById(input.dataset.table);
  const words = input.value.toLowerCase().split(/\s+/).filter(w => w);
  let shown = 0;
  Array.from(table.tBodies[0].rows).forEach(r => {
    const text = r.textContent.toLowerCase();
    const ok = words.every(w => text.includes(w));
    r.style.display = ok ? '' : 'none';
    if (ok) shown++;
  });
  const n = document.getElementById('n-' + input.dataset.table);
  if (n) n.textContent = shown + ' of ' + table.tBodies[0].rows.length + ' rows';
}
document.querySelectorAll('input.filter').forEach(input => {
  input.addEventListener('input', () => applyFilter(input));
  applyFilter(input);
});
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_differs_from_the_papers_by_class() {
        assert_eq!(differs("S", "35", "35"), None);
        assert_eq!(differs("S", "35", "35.0"), None);
        assert_eq!(differs("S", "40", "35"), Some("near"));
        assert_eq!(differs("V", "45.5", "35"), Some("far"));
        assert_eq!(differs("reduction", "12.0%", "5.0%"), Some("far"));
        // A BBFS width of 16 against 4 differs; it is not a percentage.
        assert_eq!(differs("param", "16", "4"), Some("near"));
        assert_eq!(differs("param", "8,4", "8,4"), None);
        assert_eq!(differs("param", "8,1", "8,4"), Some("near"));
        assert_eq!(differs("S", "35", ""), None);
    }
}
