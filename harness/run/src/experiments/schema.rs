//! The one CSV schema of benchmark results (documented in
//! `results/SCHEMA.md`; a test keeps the two in step).
//!
//! A row is a cell's coordinates, its outcome, the counters of the child's
//! JSON report (the known ones as columns, any other key in the final
//! `extra` column as JSON), the runner's own measurements and provenance.
//! Every row is one physical line (no field holds a newline), so a file cut
//! short by a crash loses at most its unfinished last line.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{Map, Value};

use super::exec::{signal_name, ChildResult, Termination};
use super::matrix::{params_json, Cell};
use super::provenance::Provenance;
use crate::engine::Outcome as SearchEnd;

/// The layout of the columns (results/SCHEMA.md says what changed with each).
pub const SCHEMA_VERSION: u32 = 5;

/// The cell's coordinates and the runner's verdict on it, first.
const LEADING: &[&str] = &[
    // cell coordinates
    "key",
    "matrix",
    "instance",
    "family",
    "model",
    "backend",
    "strategy",
    "spec",
    "args",
    "params",
    "seed",
    "budget_time_s",
    "budget_memory_bytes",
    "budget_max_states",
    "budget_max_visits",
    "manifest_states",
    "manifest_complete",
    // outcome
    "result",
    "exit_code",
    "signal",
    "message",
];

/// The runner's measurements, provenance, and the rest of the report.
const TRAILING: &[&str] = &[
    "wall_s",
    "cpu_s",
    "peak_mem_bytes",
    "schema_version",
    "dvemc_version",
    "git_commit",
    "host",
    "cpu",
    "date_utc",
    // every other key of the child's report, as a JSON object
    "extra",
];

/// Fields of the run record that the cell's coordinates already give (the
/// cell's value is the column's).
const FROM_CELL: &[&str] = &["model", "instance", "strategy", "backend", "seed", "result"];

/// The columns, in order: [`LEADING`], the run record's fields
/// (`crate::output::record::FIELDS`, but those in [`FROM_CELL`]), [`TRAILING`].
pub static COLUMNS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    LEADING
        .iter()
        .copied()
        .chain(
            crate::output::record::FIELDS
                .iter()
                .copied()
                .filter(|f| !FROM_CELL.contains(f)),
        )
        .chain(TRAILING.iter().copied())
        .collect()
});

/// Report keys not copied: coordinates, and the trace (too large for a row).
const DROPPED: &[&str] = &[
    "model",
    "instance",
    "strategy",
    "backend",
    "seed",
    "result",
    "trace",
    "beem_reference",
];

/// Columns that must be equal between two runs of the same cell on any
/// machine (what `bench compare` checks): the counters.
pub const DETERMINISTIC: &[&str] = &[
    "result",
    "verdict",
    "violation_kind",
    "violations",
    "cex_length",
    "stem_length",
    "cycle_length",
    "state_len",
    "states",
    "transitions",
    "deadlocks",
    "error_transitions",
    "expansions",
    "visits",
    "revisits",
    "max_depth",
    "levels",
    "back_level_edges",
    "max_back_level_edge",
    "max_level_states",
    "dfs_max_stack",
    "dfs_front_edges",
    "dfs_back_edges",
    "dfs_cross_edges",
    "state_space_size",
    "cache_size",
    "stored_peak",
    "td_peak",
    "events",
    "pruned_events",
    "evictions",
    "persistent",
    "largest_class",
    "progress_classes",
    "state_space_exhausted",
    "replay_steps",
    "slice_states",
    "slice_transitions",
    "witness_found",
    "bmc_states",
    "covered",
    "steps",
    "restarts",
    "ranks",
];

/// Columns that differ from run to run by nature (timing, memory measured
/// by the OS, provenance).
pub const VOLATILE: &[&str] = &[
    "time_s",
    "states_per_s",
    "compile_ms",
    "get_state_time_s",
    "wait_s",
    "wall_s",
    "cpu_s",
    "peak_mem_bytes",
    "peak_rss_bytes",
    "setup_rss_bytes",
    "dvemc_version",
    "git_commit",
    "host",
    "cpu",
    "date_utc",
];

/// Index of a column.
pub fn col(name: &str) -> usize {
    COLUMNS
        .iter()
        .position(|c| *c == name)
        .unwrap_or_else(|| panic!("no column `{name}`"))
}

/// A row: one value per column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row(pub Vec<String>);

impl Row {
    pub fn empty() -> Row {
        Row(vec![String::new(); COLUMNS.len()])
    }
    pub fn get(&self, name: &str) -> &str {
        &self.0[col(name)]
    }
    pub fn set(&mut self, name: &str, v: impl Into<String>) {
        self.0[col(name)] = one_line(&v.into());
    }
    pub fn key(&self) -> &str {
        self.get("key")
    }
    pub fn num(&self, name: &str) -> Option<f64> {
        self.get(name).parse().ok()
    }
    /// States per second: the `states_per_s` counter, else `states / time_s`.
    pub fn states_per_second(&self) -> Option<f64> {
        self.num("states_per_s").or_else(|| {
            let (n, t) = (self.num("states")?, self.num("time_s")?);
            (t > 0.0).then(|| n / t)
        })
    }
    /// A value of the `params` column (the cell's grid point) as text:
    /// strings as they are, other values as JSON.
    pub fn params_value(&self, key: &str) -> Option<String> {
        let params: Map<String, Value> = serde_json::from_str(self.get("params")).ok()?;
        Some(match params.get(key)? {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }
    /// The `extra` object (empty if none).
    pub fn extra(&self) -> Map<String, Value> {
        serde_json::from_str(self.get("extra")).unwrap_or_default()
    }
    /// The row as one CSV line, newline included.
    pub fn to_line(&self) -> Vec<u8> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(&self.0).expect("writing to memory");
        w.into_inner().expect("flushing to memory")
    }
}

/// The header line.
pub fn header_line() -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    w.write_record(COLUMNS.iter()).expect("writing to memory");
    w.into_inner().expect("flushing to memory")
}

fn one_line(s: &str) -> String {
    if s.contains(['\n', '\r']) {
        s.replace("\r\n", " | ").replace(['\n', '\r'], " | ")
    } else {
        s.to_string()
    }
}

/// What became of a cell, decided from how the child ended and what it printed.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub result: String,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub message: String,
    pub report: Option<Map<String, Value>>,
}

/// Result values the runner itself assigns (besides the search's own:
/// [`SearchEnd`]).
pub const CRASHED: &str = "crashed";
pub const ERROR: &str = "error";

fn memory_exhausted(stderr: &str) -> Option<String> {
    const SIGNS: &[&str] = &[
        "memory allocation of",
        "out of memory",
        "Cannot allocate memory",
        "failed to allocate",
        "capacity overflow",
        "std::bad_alloc",
    ];
    stderr
        .lines()
        .find(|l| SIGNS.iter().any(|s| l.contains(s)))
        .map(|l| l.trim().to_string())
}

fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(n);
    let mut m = lines[from..].join(" | ");
    if m.len() > 400 {
        let mut cut = 400;
        while !m.is_char_boundary(cut) {
            cut -= 1;
        }
        m.truncate(cut);
        m.push('…');
    }
    m
}

/// The last line of stdout that is a JSON object.
fn json_report(stdout: &str) -> Option<Map<String, Value>> {
    stdout
        .lines()
        .rev()
        .filter(|l| l.trim_start().starts_with('{'))
        .find_map(|l| serde_json::from_str::<Map<String, Value>>(l).ok())
}

/// Why a child killed at the deadline was: a run ends itself at its time
/// limit, so one the runner kills either hung or did not get the processor
/// (stopped, or starved by other work). A one-thread run that used less
/// than half of its deadline in processor time is the second kind: its
/// `time_limit` says nothing of the configuration, and the message says so.
fn deadline_message(deadline_s: f64, cpu_s: f64) -> String {
    let starved = if cpu_s < deadline_s / 2.0 {
        format!(
            "; only {cpu_s:.1} s of processor time: the run was stopped or starved, \
             not slow (run it again)"
        )
    } else {
        String::new()
    };
    format!("killed by the runner at the deadline ({deadline_s:.1} s{starved})")
}

/// Classifies a finished child.
pub fn classify(cell: &Cell, child: &ChildResult) -> Outcome {
    let report = json_report(&child.stdout);
    let mut o = Outcome {
        result: String::new(),
        exit_code: None,
        signal: None,
        message: String::new(),
        report: None,
    };
    match child.termination {
        Termination::Deadline => {
            o.result = SearchEnd::TimeLimit.to_string();
            o.signal = Some("SIGKILL".into());
            o.message = deadline_message(
                cell.budgets.deadline().map(|d| d.as_secs_f64()).unwrap_or(0.0),
                child.cpu_s,
            );
        }
        Termination::Signaled(sig) => {
            o.signal = Some(signal_name(sig).to_string());
            if let Some(line) = memory_exhausted(&child.stderr) {
                o.result = SearchEnd::MemoryLimit.to_string();
                o.message = line;
            } else if sig == libc::SIGKILL && cell.budgets.memory.is_some() {
                o.result = SearchEnd::MemoryLimit.to_string();
                o.message = "killed by SIGKILL, not by the runner (out of memory?)".into();
            } else {
                o.result = CRASHED.into();
                let tail = last_lines(&child.stderr, 3);
                o.message = if tail.is_empty() {
                    format!("killed by {}", signal_name(sig))
                } else {
                    format!("killed by {}: {tail}", signal_name(sig))
                };
            }
        }
        Termination::Exited(code) => {
            o.exit_code = Some(code);
            match (code, &report) {
                (0 | 1 | 4, Some(r)) => {
                    o.result = match r.get("result") {
                        Some(Value::String(s)) => s.clone(),
                        _ if code == 0 || code == 1 => SearchEnd::Complete.to_string(),
                        _ => "budget".into(),
                    };
                    o.report = report.clone();
                }
                (2 | 3, _) => {
                    o.result = ERROR.into();
                    o.message = last_lines(&child.stderr, 4);
                }
                _ => {
                    if let Some(line) = memory_exhausted(&child.stderr) {
                        o.result = SearchEnd::MemoryLimit.to_string();
                        o.message = line;
                    } else {
                        o.result = CRASHED.into();
                        let tail = last_lines(&child.stderr, 3);
                        o.message = if report.is_none() && (code == 0 || code == 1 || code == 4) {
                            format!("exit {code} without a JSON report on stdout {tail}")
                                .trim()
                                .to_string()
                        } else {
                            format!("exit {code}: {tail}")
                        };
                    }
                }
            }
        }
    }
    o
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// Splits a report (a run record) into its columns and the rest (`extra`).
pub fn flatten(report: &Map<String, Value>) -> (BTreeMap<&'static str, String>, Map<String, Value>) {
    let mut cols = BTreeMap::new();
    let mut rest = Map::new();
    for (k, v) in report {
        if DROPPED.contains(&k.as_str()) {
            continue;
        }
        match COLUMNS.iter().find(|c| **c == k.as_str()) {
            Some(c) if !matches!(v, Value::Object(_) | Value::Array(_)) => {
                cols.insert(*c, value_text(v));
            }
            _ => {
                rest.insert(k.clone(), v.clone());
            }
        }
    }
    (cols, rest)
}

/// The row of a finished cell.
pub fn build_row(
    matrix: &str,
    cell: &Cell,
    child: &ChildResult,
    outcome: &Outcome,
    prov: &Provenance,
    date_utc: &str,
) -> Row {
    let mut r = Row::empty();
    let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    r.set("key", cell.key.clone());
    r.set("matrix", matrix);
    r.set("instance", cell.instance.name.clone());
    r.set("family", cell.instance.family.clone());
    r.set("model", cell.instance.model_display.clone());
    r.set("backend", cell.backend.clone());
    r.set("strategy", cell.strategy.clone());
    r.set("spec", cell.spec.clone());
    r.set("args", cell.args_text());
    r.set("params", params_json(cell));
    r.set("seed", opt(cell.seed));
    r.set(
        "budget_time_s",
        cell.budgets
            .time
            .map(|t| t.as_secs_f64().to_string())
            .unwrap_or_default(),
    );
    r.set("budget_memory_bytes", opt(cell.budgets.memory));
    r.set("budget_max_states", opt(cell.budgets.max_states));
    r.set(
        "budget_max_visits",
        cell.budgets.max_visits.clone().unwrap_or_default(),
    );
    r.set("manifest_states", opt(cell.instance.manifest_states));
    r.set(
        "manifest_complete",
        match cell.instance.manifest_complete {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        },
    );
    r.set("result", outcome.result.clone());
    r.set(
        "exit_code",
        outcome.exit_code.map(|c| c.to_string()).unwrap_or_default(),
    );
    r.set("signal", outcome.signal.clone().unwrap_or_default());
    r.set("message", outcome.message.clone());
    let mut extra = Map::new();
    if let Some(rep) = &outcome.report {
        let (cols, rest) = flatten(rep);
        for (c, v) in cols {
            r.set(c, v);
        }
        extra = rest;
        // The default memory limit is what was free when the cell started:
        // it would make two runs of one cell differ. A cell it stopped says
        // so in `result`.
        if extra
            .get("memory_budget")
            .is_some_and(|b| b.get("default") == Some(&Value::Bool(true)))
        {
            extra.remove("memory_budget");
        }
    }
    // A search gone on from a checkpoint: the parts before count too.
    let prior = |k: &str| {
        outcome
            .report
            .as_ref()
            .and_then(|rep| rep.get("checkpoint")?.get(k)?.as_f64())
            .unwrap_or(0.0)
    };
    r.set("wall_s", format!("{:.6}", child.wall_s + prior("prior_wall_s")));
    r.set("cpu_s", format!("{:.6}", child.cpu_s + prior("prior_cpu_s")));
    r.set(
        "peak_mem_bytes",
        if child.max_rss_bytes > 0 {
            child.max_rss_bytes.to_string()
        } else {
            String::new()
        },
    );
    r.set("schema_version", SCHEMA_VERSION.to_string());
    r.set("dvemc_version", prov.version.clone());
    r.set("git_commit", prov.git_commit.clone());
    r.set("host", prov.host.clone());
    r.set("cpu", prov.cpu.clone());
    r.set("date_utc", date_utc);
    r.set(
        "extra",
        if extra.is_empty() {
            String::new()
        } else {
            Value::Object(extra).to_string()
        },
    );
    r
}

/// A results file read back.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub rows: Vec<Row>,
}

impl Table {
    /// Reads a results file; its header must be [`COLUMNS`].
    ///
    /// A file of an older or newer layout is read by column name: a column
    /// it lacks stays empty, a column this dvemc does not know goes into
    /// `extra`. (Only appending needs the exact layout.)
    pub fn read(path: &Path) -> Result<Table> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_path(path)
            .with_context(|| format!("reading {}", path.display()))?;
        let header: Vec<String> = rdr
            .headers()
            .with_context(|| format!("reading {}", path.display()))?
            .iter()
            .map(str::to_string)
            .collect();
        let exact = header.iter().map(String::as_str).eq(COLUMNS.iter().copied());
        if !exact && !header.iter().any(|h| h == "key") {
            bail!("{} is not a results file (no `key` column)", path.display());
        }
        let slots: Vec<Option<usize>> = header
            .iter()
            .map(|h| COLUMNS.iter().position(|c| c == h))
            .collect();
        let mut rows = Vec::new();
        for rec in rdr.records() {
            let rec = rec.with_context(|| format!("reading {}", path.display()))?;
            if exact {
                rows.push(Row(rec.iter().map(str::to_string).collect()));
                continue;
            }
            let mut row = Row::empty();
            let mut unknown = Map::new();
            for (i, v) in rec.iter().enumerate() {
                match slots.get(i).copied().flatten() {
                    Some(c) => row.0[c] = v.to_string(),
                    None if !v.is_empty() => {
                        unknown.insert(
                            header.get(i).cloned().unwrap_or_default(),
                            Value::String(v.to_string()),
                        );
                    }
                    None => {}
                }
            }
            if !unknown.is_empty() {
                let mut extra = row.extra();
                extra.extend(unknown);
                row.set("extra", Value::Object(extra).to_string());
            }
            rows.push(row);
        }
        Ok(Table { rows })
    }

    pub fn by_key(&self) -> HashMap<&str, &Row> {
        self.rows.iter().map(|r| (r.key(), r)).collect()
    }

    /// Writes the whole table (header and rows) atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        let mut buf = header_line();
        for r in &self.rows {
            buf.extend_from_slice(&r.to_line());
        }
        super::util::write_atomically(path, &buf).with_context(|| format!("writing {}", path.display()))
    }
}

fn check_header(path: &Path, header_line_text: &str) -> Result<()> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(header_line_text.as_bytes());
    let header: Vec<String> = match rdr.records().next() {
        Some(Ok(r)) => r.iter().map(str::to_string).collect(),
        _ => Vec::new(),
    };
    if header.iter().map(String::as_str).ne(COLUMNS.iter().copied()) {
        bail!(
            "{} has another column layout than this dvemc's (results/SCHEMA.md), so rows cannot be \
             appended to it; `dvemc bench merge {} --out NEW.csv` rewrites it in the current layout",
            path.display(),
            path.display()
        );
    }
    Ok(())
}

/// An append-only results file: the header once, then one whole line per
/// row, each written with a single `write` and made durable with `fsync`.
pub struct Appender {
    file: std::fs::File,
}

impl Appender {
    /// Opens `path` for appending. A new or empty file gets the header. An
    /// existing file must have the header; a last line cut short (no
    /// newline) is removed. Returns the keys already present.
    pub fn open(path: &Path) -> Result<(Appender, Vec<String>)> {
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        let len = file.metadata()?.len();
        let mut keys = Vec::new();
        if len == 0 {
            file.write_all(&header_line())?;
            file.sync_all()?;
        } else {
            let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            let keep = match bytes.iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => 0,
            };
            if keep < bytes.len() {
                eprintln!(
                    "bench: {}: dropping an unfinished last line ({} bytes)",
                    path.display(),
                    bytes.len() - keep
                );
                file.set_len(keep as u64)?;
                file.sync_all()?;
            }
            if keep == 0 {
                file.write_all(&header_line())?;
                file.sync_all()?;
            } else {
                let text = String::from_utf8_lossy(&bytes[..keep]);
                check_header(path, text.lines().next().unwrap_or(""))?;
                let table = Table::read(path)?;
                keys = table.rows.iter().map(|r| r.key().to_string()).collect();
            }
        }
        Ok((Appender { file }, keys))
    }

    /// Appends one row durably.
    pub fn append(&mut self, row: &Row) -> Result<()> {
        let line = row.to_line();
        self.file
            .write_all(&line)
            .map_err(|e| anyhow!("appending a row: {e}"))?;
        self.file
            .sync_data()
            .map_err(|e| anyhow!("syncing the results file: {e}"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_fields_are_columns_and_the_rest_goes_to_extra() {
        let rep: Map<String, Value> = serde_json::from_str(
            r#"{"states":10,"transitions":14,"dfs_max_stack":4,"stored_peak":7,"S":12.5,"model":"x",
                "strategy":"dfs","result":"complete","new_counter":3,"levels":null,"trace":[1,2],
                "frontier_sizes":[1,2]}"#,
        )
        .unwrap();
        let (cols, extra) = flatten(&rep);
        assert_eq!(cols["states"], "10");
        assert_eq!(cols["dfs_max_stack"], "4");
        assert_eq!(cols["stored_peak"], "7");
        assert_eq!(cols["S"], "12.5");
        assert_eq!(cols["levels"], "");
        assert!(!cols.contains_key("model"));
        assert_eq!(
            Value::Object(extra).to_string(),
            r#"{"frontier_sizes":[1,2],"new_counter":3}"#
        );
    }

    #[test]
    fn every_listed_column_exists() {
        for c in DETERMINISTIC.iter().chain(VOLATILE) {
            col(c);
        }
        let mut sorted = COLUMNS.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), COLUMNS.len());
    }

    #[test]
    fn a_run_killed_without_its_processor_time_says_so() {
        assert_eq!(
            deadline_message(605.0, 590.0),
            "killed by the runner at the deadline (605.0 s)"
        );
        let m = deadline_message(605.0, 0.5);
        assert!(m.contains("only 0.5 s of processor time"), "{m}");
        assert!(m.contains("run it again"), "{m}");
    }

    #[test]
    fn rows_are_single_lines() {
        let mut r = Row::empty();
        r.set("message", "a\nb, \"c\"");
        let line = r.to_line();
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
    }
}
