//! `bench run`: runs the cells of a matrix (or of one shard of it) with N
//! workers, appends a row per finished cell, shows progress, and prints a
//! summary.

use std::collections::{BTreeMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::exec::{ChildResult, Executor, Termination};
use super::matrix::Cell;
use super::provenance::Provenance;
use super::schema::{build_row, classify, Appender, Row, Table, CRASHED, ERROR};
use super::util::{human_duration, now_utc};

/// What `run_cells` needs besides the cells.
pub struct RunConfig<'a> {
    pub matrix_name: &'a str,
    pub out: &'a Path,
    pub jobs: usize,
    /// Skip cells whose key is in `out` already; without it `out` must be
    /// new or empty.
    pub resume: bool,
    pub provenance: Provenance,
    /// `None`: a bar when stderr is a terminal, else a line per cell.
    pub progress: Option<ProgressMode>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    Bar,
    Lines,
    Quiet,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct RunSummary {
    pub cells: usize,
    pub skipped: usize,
    pub ran: usize,
    /// Rows of the cells of this run (including those found on resume).
    pub rows: Vec<Row>,
    pub wall: Duration,
}

impl RunSummary {
    /// Cells that crashed or could not run (bad options, missing files).
    pub fn failures(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.get("result") == CRASHED || r.get("result") == ERROR)
            .count()
    }
}

/// Runs `cells`, appending rows to `cfg.out`.
pub fn run_cells(cells: &[Cell], exec: &dyn Executor, cfg: &RunConfig) -> Result<RunSummary> {
    let started = Instant::now();
    if !cfg.resume {
        if let Ok(m) = std::fs::metadata(cfg.out) {
            if m.len() > 0 {
                anyhow::bail!(
                    "{} exists; use --resume to add the missing cells, or choose another --out",
                    cfg.out.display()
                );
            }
        }
    }
    let (appender, done_keys) = Appender::open(cfg.out)?;
    let done: HashSet<String> = done_keys.into_iter().collect();
    let pending: Vec<&Cell> = cells.iter().filter(|c| !done.contains(&c.key)).collect();
    let skipped = cells.len() - pending.len();
    let mode = cfg.progress.unwrap_or(if std::io::stderr().is_terminal() {
        ProgressMode::Bar
    } else {
        ProgressMode::Lines
    });
    if skipped > 0 && mode != ProgressMode::Quiet {
        eprintln!(
            "bench: {skipped} of {} cells already in {}; running {}",
            cells.len(),
            cfg.out.display(),
            pending.len()
        );
    }
    let progress = Progress::new(mode, pending.len());
    let appender = Mutex::new(appender);
    let next = AtomicUsize::new(0);
    let write_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let jobs = cfg.jobs.max(1).min(pending.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                if write_error.lock().unwrap().is_some() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(cell) = pending.get(i) else { break };
                progress.start();
                let child = exec.execute(cell).unwrap_or_else(|e| ChildResult {
                    termination: Termination::Exited(-1),
                    stdout: String::new(),
                    stderr: format!("could not start the child: {e}"),
                    wall_s: 0.0,
                    max_rss_bytes: 0,
                    cpu_s: 0.0,
                });
                let outcome = classify(cell, &child);
                let row = build_row(
                    cfg.matrix_name,
                    cell,
                    &child,
                    &outcome,
                    &cfg.provenance,
                    &now_utc(),
                );
                if let Err(e) = appender.lock().unwrap().append(&row) {
                    *write_error.lock().unwrap() = Some(e);
                    break;
                }
                progress.finish(&row);
            });
        }
    });
    progress.close();
    if let Some(e) = write_error.into_inner().unwrap() {
        return Err(e);
    }
    let keys: HashSet<&str> = cells.iter().map(|c| c.key.as_str()).collect();
    let table = Table::read(cfg.out)?;
    let rows: Vec<Row> = table
        .rows
        .into_iter()
        .filter(|r| keys.contains(r.key()))
        .collect();
    Ok(RunSummary {
        cells: cells.len(),
        skipped,
        ran: pending.len(),
        rows,
        wall: started.elapsed(),
    })
}

/// Progress on stderr: an indicatif bar, or one line per finished cell.
struct Progress {
    mode: ProgressMode,
    total: usize,
    bar: Option<indicatif::ProgressBar>,
    state: Mutex<(usize, usize, usize)>, // done, running, failed
    start: Instant,
}

impl Progress {
    fn new(mode: ProgressMode, total: usize) -> Progress {
        let bar = (mode == ProgressMode::Bar && total > 0).then(|| {
            let b = indicatif::ProgressBar::with_draw_target(
                Some(total as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            let style = indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} cells  {msg}  ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> ");
            b.set_style(style);
            b.enable_steady_tick(Duration::from_millis(250));
            b
        });
        Progress {
            mode,
            total,
            bar,
            state: Mutex::new((0, 0, 0)),
            start: Instant::now(),
        }
    }

    fn start(&self) {
        let mut s = self.state.lock().unwrap();
        s.1 += 1;
        if let Some(b) = &self.bar {
            b.set_message(format!("{} running, {} failed", s.1, s.2));
        }
    }

    fn finish(&self, row: &Row) {
        let mut s = self.state.lock().unwrap();
        s.0 += 1;
        s.1 -= 1;
        let failed = row.get("result") == CRASHED || row.get("result") == ERROR;
        if failed {
            s.2 += 1;
        }
        match self.mode {
            ProgressMode::Bar => {
                if let Some(b) = &self.bar {
                    if failed {
                        b.println(format!(
                            "{}: {} {}",
                            row.key(),
                            row.get("result"),
                            row.get("message")
                        ));
                    }
                    b.set_message(format!("{} running, {} failed", s.1, s.2));
                    b.inc(1);
                }
            }
            ProgressMode::Lines => {
                let elapsed = self.start.elapsed();
                let left = if s.0 > 0 && s.0 < self.total {
                    let per = elapsed.as_secs_f64() / s.0 as f64;
                    format!(
                        ", ~{} left",
                        human_duration(Duration::from_secs_f64(per * (self.total - s.0) as f64))
                    )
                } else {
                    String::new()
                };
                let states = row.get("states");
                let mut line = format!(
                    "[{:>w$}/{}] {:<12} {:>9}s {:>11} states  {}  ({} running, {} failed{left})",
                    s.0,
                    self.total,
                    row.get("result"),
                    format!("{:.2}", row.num("wall_s").unwrap_or(0.0)),
                    if states.is_empty() { "-" } else { states },
                    row.key(),
                    s.1,
                    s.2,
                    w = self.total.to_string().len()
                );
                if failed && !row.get("message").is_empty() {
                    line.push_str(&format!("\n    {}", row.get("message")));
                }
                let mut e = std::io::stderr().lock();
                let _ = writeln!(e, "{line}");
            }
            ProgressMode::Quiet => {}
        }
    }

    fn close(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The summary table: per strategy and backend, cells by result, median
/// states per second of the complete runs, summed wall time.
pub fn summary_table(rows: &[Row]) -> String {
    let mut results: Vec<String> = rows.iter().map(|r| r.get("result").to_string()).collect();
    results.sort();
    results.dedup();
    // Fixed order for the usual results, others after.
    let order = [
        "complete",
        "state_limit",
        "time_limit",
        "memory_limit",
        "visit_limit",
        "cache_full",
        "interrupted",
        CRASHED,
        ERROR,
    ];
    let mut cols: Vec<String> = order.iter().map(|s| s.to_string()).collect();
    cols.extend(results.into_iter().filter(|r| !order.contains(&r.as_str())));
    let mut groups: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        groups
            .entry((r.get("strategy").to_string(), r.get("backend").to_string()))
            .or_default()
            .push(r);
    }
    let mut header = vec!["strategy".to_string(), "backend".into(), "cells".into()];
    header.extend(cols.iter().cloned());
    header.push("median states/s".into());
    header.push("wall s".into());
    let mut table: Vec<Vec<String>> = vec![header];
    for ((strategy, backend), rs) in &groups {
        let mut line = vec![strategy.clone(), backend.clone(), rs.len().to_string()];
        for c in &cols {
            let n = rs.iter().filter(|r| r.get("result") == c).count();
            line.push(if n == 0 { ".".into() } else { n.to_string() });
        }
        let mut sps: Vec<f64> = rs
            .iter()
            .filter(|r| r.get("result") == "complete")
            .filter_map(|r| r.states_per_second())
            .collect();
        line.push(
            median(&mut sps)
                .map(|m| format!("{m:.0}"))
                .unwrap_or_else(|| "-".into()),
        );
        let wall: f64 = rs.iter().filter_map(|r| r.num("wall_s")).sum();
        line.push(format!("{wall:.2}"));
        table.push(line);
    }
    let widths: Vec<usize> = (0..table[0].len())
        .map(|i| table.iter().map(|l| l[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (li, l) in table.iter().enumerate() {
        let cells: Vec<String> = l
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if i < 2 {
                    format!("{v:<w$}", w = widths[i])
                } else {
                    format!("{v:>w$}", w = widths[i])
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
        if li == 0 {
            out.push_str(
                &widths
                    .iter()
                    .map(|w| "-".repeat(*w))
                    .collect::<Vec<_>>()
                    .join("  "),
            );
            out.push('\n');
        }
    }
    out
}

pub fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The executable to re-run for cells.
pub fn current_exe() -> Result<PathBuf> {
    std::env::current_exe().map_err(|e| anyhow::anyhow!("locating the dvemc executable: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::matrix::Matrix;

    /// Returns a synthetic report for each cell; crashes one.
    struct Mock;
    impl Executor for Mock {
        fn execute(&self, cell: &Cell) -> std::io::Result<ChildResult> {
            let crash = cell.spec == "dfs";
            Ok(ChildResult {
                termination: if crash {
                    Termination::Signaled(libc::SIGSEGV)
                } else {
                    Termination::Exited(0)
                },
                stdout: if crash {
                    String::new()
                } else {
                    format!(
                        r#"{{"result":"complete","states":{},"time_s":0.5,"states_per_s":2.0,"x":1}}"#,
                        cell.index
                    )
                },
                stderr: String::new(),
                wall_s: 0.5,
                max_rss_bytes: 4096,
                cpu_s: 0.4,
            })
        }
    }

    #[test]
    fn mock_run_resume_and_summary() {
        let dir = std::env::temp_dir().join(format!("dvemc-runner-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for m in ["a", "b", "c"] {
            std::fs::write(dir.join(format!("{m}.dve")), "").unwrap();
        }
        let m = Matrix::parse(
            &dir.join("m.toml"),
            "strategies = [\"bfs\", \"dfs\"]\n[instances]\nnames = [\"a.dve\", \"b.dve\", \"c.dve\"]\n",
        )
        .unwrap();
        let cells = m.expand(None).unwrap();
        let out = dir.join("out.csv");
        let _ = std::fs::remove_file(&out);
        let cfg = RunConfig {
            matrix_name: "m",
            out: &out,
            jobs: 2,
            resume: false,
            provenance: Provenance::gather(),
            progress: Some(ProgressMode::Quiet),
        };
        let s = run_cells(&cells[..4], &Mock, &cfg).unwrap();
        assert_eq!((s.ran, s.rows.len(), s.failures()), (4, 4, 2));
        assert!(
            run_cells(&cells, &Mock, &cfg).is_err(),
            "an existing file needs --resume"
        );
        let cfg = RunConfig { resume: true, ..cfg };
        let s = run_cells(&cells, &Mock, &cfg).unwrap();
        assert_eq!((s.skipped, s.ran, s.rows.len()), (4, 2, 6));
        let t = Table::read(&out).unwrap();
        let bfs_a = t.rows.iter().find(|r| r.key() == "a|interp|bfs|").unwrap();
        assert_eq!(bfs_a.get("extra"), r#"{"x":1}"#);
        assert_eq!(bfs_a.get("peak_mem_bytes"), "4096");
        let crashed = t.rows.iter().find(|r| r.key() == "a|interp|dfs|").unwrap();
        assert_eq!(crashed.get("result"), "crashed");
        assert_eq!(crashed.get("signal"), "SIGSEGV");
        let table = summary_table(&s.rows);
        assert!(table.contains("bfs"), "{table}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
