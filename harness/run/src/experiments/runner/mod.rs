//! `bench run`: runs the cells of a matrix (or of one shard of it) with N
//! workers, appends a row per finished cell, shows progress, and prints a
//! summary.

mod progress;

pub use progress::ProgressMode;
use progress::{PendingKinds, Progress};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::engine::limits::interrupt;
use crate::engine::Outcome;
use crate::experiments::exec::{ChildResult, Executor, Termination};
use crate::experiments::matrix::Cell;
use crate::experiments::provenance::Provenance;
use crate::experiments::schema::{build_row, classify, Appender, Row, Table, CRASHED, ERROR};
use crate::experiments::util::now_utc;

/// Whether `--retry-failed` runs a recorded cell again: it crashed, was
/// rejected, or reached its time limit (its own, or the runner's deadline)
/// with less than half of it in processor time: stopped or starved by
/// other work, so that the machine, not the configuration, ended it (see
/// `schema::deadline_message`). Budgets are wall-clock time.
/// A time-limited cell that left a checkpoint is run again too: it goes
/// on from it (a matrix with `checkpoints = true`).
fn worth_retrying(r: &Row) -> bool {
    let num = |c: &str| r.get(c).parse::<f64>().ok();
    let starved = r.get("result") == Outcome::TimeLimit.name()
        && matches!((num("cpu_s"), num("budget_time_s")), (Some(cpu), Some(budget)) if cpu < budget / 2.0);
    let goes_on =
        r.get("result") == Outcome::TimeLimit.name() && saved_checkpoint(r).is_some_and(|f| f.is_file());
    starved || goes_on || r.get("result") == CRASHED || r.get("result") == ERROR
}

/// The checkpoint a row's run wrote, if any (in its `extra`).
fn saved_checkpoint(r: &Row) -> Option<std::path::PathBuf> {
    let extra: serde_json::Value = serde_json::from_str(r.get("extra")).ok()?;
    let c = extra.get("checkpoint")?;
    (c.get("saved")? == true).then(|| c.get("file")?.as_str().map(Into::into))?
}

/// Removes the checkpoint of a cell its memory budget stopped: run again
/// under the same matrix it would stop there again, and the file is as
/// large as its store (the census's: up to 19.5 GiB each), so kept it
/// would only fill the disk. The row says so in its `extra` (`saved`
/// false, `removed` why). `explore --checkpoint` alone keeps it: its user
/// may go on with a larger budget.
fn discard_final_checkpoint(row: &mut Row) {
    if row.get("result") != Outcome::MemoryLimit.name() {
        return;
    }
    let Some(file) = saved_checkpoint(row) else {
        return;
    };
    if let Err(e) = std::fs::remove_file(&file) {
        if e.kind() != std::io::ErrorKind::NotFound {
            eprintln!("bench: could not remove {}: {e}", file.display());
            return;
        }
    }
    let mut extra = row.extra();
    if let Some(serde_json::Value::Object(c)) = extra.get_mut("checkpoint") {
        c.insert("saved".into(), false.into());
        c.insert(
            "removed".into(),
            "memory_limit: the same budget would stop it there again".into(),
        );
    }
    row.set("extra", serde_json::Value::Object(extra).to_string());
}

/// What `run_cells` needs besides the cells.
pub struct RunConfig<'a> {
    pub matrix_name: &'a str,
    pub out: &'a Path,
    pub jobs: usize,
    /// Skip cells whose key is in `out` already; without it `out` must be
    /// new or empty.
    pub resume: bool,
    /// With `resume`: run the cells recorded as `crashed` or `error` again
    /// (their rows are dropped from the file first; see `worth_retrying`);
    /// the rows of cells this run does not run stay.
    pub retry_failed: bool,
    /// With `resume`: run every cell of this run again from its start,
    /// whatever its row says (the row and any checkpoint it left dropped
    /// first): a row from an older version, e.g. (the rows of cells this
    /// run does not run stay).
    pub rerun: bool,
    pub provenance: Provenance,
    /// `None`: a bar when stderr is a terminal, else a line per cell.
    pub progress: Option<ProgressMode>,
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
    /// SIGINT or SIGTERM stopped the run: the cells in flight are not
    /// recorded, and `--resume` runs them and the rest.
    pub interrupted: bool,
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
    prepare_out(cells, cfg)?;
    let (appender, _) = Appender::open(cfg.out)?;
    // Results already in the file (--resume): their cells are not run again,
    // and a search replays its steps from them.
    let done: HashMap<String, bool> = Table::read(cfg.out)?
        .rows
        .iter()
        .map(|r| (r.key().to_string(), r.get("result") == Outcome::Complete.name()))
        .collect();
    let schedule = Schedule::new(cells, &done);
    let skipped = cells.iter().filter(|c| done.contains_key(&c.key)).count();
    let mode = cfg.progress.unwrap_or(if std::io::stderr().is_terminal() {
        ProgressMode::Bar
    } else {
        ProgressMode::Lines
    });
    if skipped > 0 && mode != ProgressMode::Quiet {
        eprintln!(
            "bench: {skipped} of {} cells already in {}; running the rest",
            cells.len(),
            cfg.out.display(),
        );
    }
    let progress = Progress::new(mode, schedule.planned());
    let jobs = cfg.jobs.max(1).min(schedule.planned().max(1));
    // --jobs counts cores: a run with --threads T takes T of them (all,
    // if T is more), so that runs measuring a speed-up do not share cores.
    let mut schedule = schedule;
    schedule.cores = cfg.jobs.max(1);
    schedule.ram = physical_memory();
    if mode != ProgressMode::Quiet {
        announce_threads(cells, cfg);
    }
    let pool = Pool {
        schedule: (Mutex::new(schedule), Condvar::new()),
        appender: Mutex::new(appender),
        write_error: Mutex::new(None),
        ran: AtomicUsize::new(0),
        progress,
        exec,
        cfg,
        jobs,
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| pool.work());
        }
    });
    pool.progress.close();
    if let Some(e) = pool.write_error.into_inner().unwrap() {
        return Err(e);
    }
    let ran = pool.ran.into_inner();
    let issued = pool.schedule.0.into_inner().unwrap().issued;
    let interrupted = interrupt::requested();
    // The matrix's plain cells and the steps its searches took.
    let table = Table::read(cfg.out)?;
    let rows: Vec<Row> = table
        .rows
        .into_iter()
        .filter(|r| issued.contains(r.key()))
        .collect();
    Ok(RunSummary {
        cells: cells.len(),
        skipped,
        ran,
        rows,
        wall: started.elapsed(),
        interrupted,
    })
}

/// Checks that `cfg.out` may be written (empty, or `--resume`), and drops
/// the rows `--rerun` or `--retry-failed` runs again.
fn prepare_out(cells: &[Cell], cfg: &RunConfig) -> Result<()> {
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
    if (cfg.retry_failed || cfg.rerun) && cfg.out.exists() {
        // Only the rows of cells this run runs: the others (a run of some
        // instances of the matrix) stay as they are. --rerun drops them
        // all, and the checkpoints they left (from its start, not from what
        // an older run left); --retry-failed those worth retrying.
        let running: std::collections::HashSet<&str> = cells.iter().map(|c| c.key.as_str()).collect();
        let mut t = Table::read(cfg.out)?;
        let before = t.rows.len();
        if cfg.rerun {
            for f in t
                .rows
                .iter()
                .filter(|r| running.contains(r.key()))
                .filter_map(saved_checkpoint)
            {
                let _ = std::fs::remove_file(f);
            }
        }
        t.rows
            .retain(|r| !(running.contains(r.key()) && (cfg.rerun || worth_retrying(r))));
        if t.rows.len() < before {
            t.write(cfg.out)?;
        }
    }
    Ok(())
}

/// Says how runs with several threads take job slots, when there are some.
fn announce_threads(cells: &[Cell], cfg: &RunConfig) {
    let widest = cells.iter().map(Cell::threads).max().unwrap_or(1);
    if widest > 1 {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        eprintln!(
            "bench: a run with --threads T takes T of the {} --jobs slots (up to {widest} threads per run here){}",
            cfg.jobs.max(1),
            if widest > cores {
                format!("; this machine has {cores} cores, so runs with more threads than that share them")
            } else {
                String::new()
            }
        );
    }
}

/// What the job slots of a run share: the schedule, the results file, the
/// first write error, the count of cells run and the progress display.
struct Pool<'a> {
    /// The schedule, and its signal that a cell finished (a search may
    /// then have a next step, or a memory reservation is freed).
    schedule: (Mutex<Schedule<'a>>, Condvar),
    appender: Mutex<Appender>,
    write_error: Mutex<Option<anyhow::Error>>,
    ran: AtomicUsize,
    progress: Progress,
    exec: &'a dyn Executor,
    cfg: &'a RunConfig<'a>,
    jobs: usize,
}

impl Pool<'_> {
    /// One job slot: runs cells until none is left, the run is interrupted,
    /// or a row could not be written.
    fn work(&self) {
        while let Some(cell) = self.next_cell() {
            if !self.run(&cell) {
                return;
            }
        }
    }

    /// The next cell to run, waiting while running cells may still add
    /// some; `None` when there is none, on an interrupt or a write error.
    fn next_cell(&self) -> Option<Cell> {
        let mut sched = self.schedule.0.lock().unwrap();
        loop {
            if self.write_error.lock().unwrap().is_some() {
                return None;
            }
            if interrupt::requested() {
                return None;
            }
            if let Some(c) = sched.next() {
                return Some(c);
            }
            if sched.running == 0 {
                return None;
            }
            sched = self.schedule.1.wait(sched).unwrap();
        }
    }

    /// Runs `cell` and appends its row; false when this slot should stop
    /// (interrupted, or the row could not be written).
    fn run(&self, cell: &Cell) -> bool {
        self.progress.start();
        let child = self.exec.execute(cell).unwrap_or_else(|e| ChildResult {
            termination: Termination::Exited(-1),
            stdout: String::new(),
            stderr: format!("could not start the child: {e}"),
            wall_s: 0.0,
            max_rss_bytes: 0,
            cpu_s: 0.0,
        });
        let outcome = classify(cell, &child);
        let cfg = self.cfg;
        let mut row = build_row(
            cfg.matrix_name,
            cell,
            &child,
            &outcome,
            &cfg.provenance,
            &now_utc(),
        );
        if interrupt::requested() && row.get("result") != Outcome::Complete.name() {
            // Stopped by the same signal, or cut short: run it again
            // on --resume rather than record a partial result.
            self.schedule.0.lock().unwrap().abandon(cell);
            self.schedule.1.notify_all();
            self.progress.abandon();
            return false;
        }
        self.ran.fetch_add(1, Ordering::Relaxed);
        discard_final_checkpoint(&mut row);
        let written = self.appender.lock().unwrap().append(&row);
        let (remaining, pending) = {
            let mut sched = self.schedule.0.lock().unwrap();
            sched.finished(cell, row.get("result") == Outcome::Complete.name());
            (
                sched.planned(),
                self.progress
                    .eta_due()
                    .then(|| (sched.pending_kinds(), sched.searching())),
            )
        };
        if let Err(e) = written {
            *self.write_error.lock().unwrap() = Some(e);
            self.schedule.1.notify_all();
            return false;
        }
        self.schedule.1.notify_all();
        self.progress.finish(&row, remaining, pending, self.jobs);
        true
    }
}

/// The machine's physical memory (`MemTotal` of /proc/meminfo), if known.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Which cell runs next: the plain cells in matrix order, and each search
/// (`matrix::Search`) one value at a time, the next value only once every
/// cell of the current one has ended.
struct Schedule<'a> {
    ready: VecDeque<Cell>,
    searches: Vec<SearchState<'a>>,
    search_of: HashMap<String, usize>,
    /// Results already in the file: key → complete.
    done: &'a HashMap<String, bool>,
    /// Cells started and not yet finished.
    running: usize,
    /// Cores (the --jobs slots), and those the running cells take (a
    /// cell takes its threads, at most all of them).
    cores: usize,
    busy: usize,
    /// Physical memory, and the memory limits of the running cells: a cell
    /// starts beside others only if the limits fit (so two 20 GiB runs on
    /// a 24 GiB machine take turns instead of swapping).
    ram: Option<u64>,
    reserved: u64,
    /// Every cell the schedule issued, run now or found in the file.
    issued: HashSet<String>,
}

struct SearchState<'a> {
    /// The group's cells by the position of their value in the list.
    steps: Vec<Vec<&'a Cell>>,
    step: usize,
    /// Set once a value succeeded and the search bisects below it:
    /// (last value that failed, first that succeeded, the cells at it), in
    /// units of the resolution.
    bisect: Option<(u64, u64, Vec<Cell>)>,
    /// The value being run (bisection), in units of the resolution.
    mid: u64,
    /// Cells of the current value still running, and whether one of the
    /// ended ones is complete.
    outstanding: usize,
    complete: bool,
    over: bool,
    /// The value whose cells were issued last (a cell of another value
    /// that ends now was issued before the search moved on).
    value: f64,
    /// Descending: the cells not run of the smallest value a run
    /// completed at (the search moved on at that run; a smaller value may
    /// make them needless), run when the search ends, so that every cell
    /// of the value found is in the file (its best run over them all).
    parked: Vec<Cell>,
    /// Running the parked cells: the search ends with them.
    finishing: bool,
}

impl<'a> Schedule<'a> {
    fn new(cells: &'a [Cell], done: &'a HashMap<String, bool>) -> Schedule<'a> {
        let mut s = Schedule {
            ready: VecDeque::new(),
            searches: Vec::new(),
            search_of: HashMap::new(),
            done,
            running: 0,
            cores: 1,
            busy: 0,
            ram: None,
            reserved: 0,
            issued: HashSet::new(),
        };
        for c in cells {
            match &c.search {
                None => {
                    s.issued.insert(c.key.clone());
                    if !done.contains_key(&c.key) {
                        s.ready.push_back(c.clone());
                    }
                }
                Some(sr) => {
                    let i = *s.search_of.entry(sr.group.clone()).or_insert_with(|| {
                        s.searches.push(SearchState {
                            steps: Vec::new(),
                            step: 0,
                            bisect: None,
                            mid: 0,
                            outstanding: 0,
                            complete: false,
                            over: false,
                            value: f64::NAN,
                            parked: Vec::new(),
                            finishing: false,
                        });
                        s.searches.len() - 1
                    });
                    let steps = &mut s.searches[i].steps;
                    if steps.len() <= sr.step {
                        steps.resize(sr.step + 1, Vec::new());
                    }
                    steps[sr.step].push(c);
                }
            }
        }
        for i in 0..s.searches.len() {
            s.searches[i].steps.retain(|v| !v.is_empty());
            let first: Vec<Cell> = s.searches[i].steps[0].iter().map(|&c| c.clone()).collect();
            s.issue(i, first, true);
        }
        s
    }

    /// Queues a search's cells for one value (those in the file count at
    /// once), moving on while no cell has to run. The first values queue in
    /// matrix order; later ones go first, so that searches end one by one
    /// and their results are complete sooner.
    fn issue(&mut self, i: usize, cells: Vec<Cell>, initial: bool) {
        let mut fresh = Vec::new();
        if let Some(sr) = cells.first().and_then(|c| c.search.as_ref()) {
            self.searches[i].value = sr.value;
        }
        for c in cells {
            self.issued.insert(c.key.clone());
            match self.done.get(&c.key) {
                Some(&ok) => self.searches[i].complete |= ok,
                None => fresh.push(c),
            }
        }
        if self.moves_on_early(i, fresh.first()) && self.searches[i].complete {
            // A run in the file completed at this value: on to the next.
            self.searches[i].outstanding = 0;
            return self.advance(i, fresh);
        }
        self.searches[i].outstanding = fresh.len();
        if initial {
            self.ready.extend(fresh);
        } else {
            for c in fresh.into_iter().rev() {
                self.ready.push_front(c);
            }
        }
        if self.searches[i].outstanding == 0 {
            self.advance(i, Vec::new());
        }
    }

    /// Whether search `i` (of `cell`) moves on to its next value at the
    /// first complete run of the current one: descending without
    /// bisection, except while it runs its parked cells. The value found
    /// is the same (the first from above where nothing completes is
    /// still run whole, and the one above it at the end).
    fn moves_on_early(&self, i: usize, cell: Option<&Cell>) -> bool {
        let st = &self.searches[i];
        let sr = cell.and_then(|c| c.search.as_ref());
        sr.is_some_and(|sr| sr.descending && sr.bisect.is_none()) && !st.finishing && st.bisect.is_none()
    }

    /// The current value of search `i` has ended (or, descending, one of
    /// its runs completed: `unrun` are its cells not run): the next value,
    /// a bisection step, or the end.
    fn advance(&mut self, i: usize, unrun: Vec<Cell>) {
        let st = &mut self.searches[i];
        let complete = std::mem::take(&mut st.complete);
        let sample = st.steps[st.step.min(st.steps.len() - 1)][0];
        let sr = sample.search.as_ref().expect("a searched cell");
        if st.finishing {
            st.over = true;
            return;
        }
        // Ascending, the search goes on while nothing completed; descending,
        // while something did.
        let go_on = complete == sr.descending;
        if sr.descending && complete {
            // Those of a larger value are needless now.
            st.parked = unrun;
        }
        let next: Option<Vec<Cell>> = match (&mut st.bisect, sr.bisect) {
            (None, _) if go_on => {
                st.step += 1;
                st.steps
                    .get(st.step)
                    .map(|v| v.iter().map(|&c| c.clone()).collect())
            }
            (None, None) => None,
            (None, Some(res)) => {
                let units = |x: f64| (x / res).round() as u64;
                let lo = match st.step {
                    0 => 0,
                    k => units(st.steps[k - 1][0].search.as_ref().expect("searched").value),
                };
                let at: Vec<Cell> = st.steps[st.step].iter().map(|&c| c.clone()).collect();
                st.bisect = Some((lo, units(sr.value), at));
                None
            }
            (Some((lo, hi, _)), _) => {
                if complete {
                    *hi = st.mid;
                } else {
                    *lo = st.mid;
                }
                None
            }
        };
        if let Some(cells) = next {
            return self.issue(i, cells, false);
        }
        let st = &mut self.searches[i];
        if !st.parked.is_empty() {
            st.finishing = true;
            let cells = std::mem::take(&mut st.parked);
            return self.issue(i, cells, false);
        }
        match (&st.bisect, sr.bisect) {
            (Some((lo, hi, at)), Some(res)) if hi - lo > 1 => {
                st.mid = (lo + hi) / 2;
                let value = st.mid as f64 * res;
                let cells = at.iter().map(|c| c.with_search_value(value)).collect();
                self.issue(i, cells, false)
            }
            _ => st.over = true,
        }
    }

    /// The next cell, if there are cores for it (in order: a wide cell
    /// waits for cores rather than be overtaken).
    fn next(&mut self) -> Option<Cell> {
        let front = self.ready.front()?;
        let width = front.threads().min(self.cores);
        if self.busy + width > self.cores {
            return None;
        }
        let mem = front.budgets.memory_limit().unwrap_or(0);
        if self.running > 0 && self.ram.is_some_and(|ram| self.reserved + mem > ram) {
            return None;
        }
        let c = self.ready.pop_front()?;
        self.running += 1;
        self.busy += width;
        self.reserved += mem;
        Some(c)
    }

    /// A started cell that will not be recorded (interrupted).
    fn abandon(&mut self, cell: &Cell) {
        self.running -= 1;
        self.busy -= cell.threads().min(self.cores);
        self.reserved -= cell.budgets.memory_limit().unwrap_or(0);
    }

    fn finished(&mut self, cell: &Cell, complete: bool) {
        self.abandon(cell);
        if let Some(sr) = &cell.search {
            let i = self.search_of[&sr.group];
            let st = &mut self.searches[i];
            if st.over || sr.value != st.value {
                // Issued before its search moved on (it ran beside the run
                // that completed): recorded, and no longer counted.
                return;
            }
            st.complete |= complete;
            st.outstanding -= 1;
            if st.outstanding == 0 {
                self.advance(i, Vec::new());
            } else if complete && self.moves_on_early(i, Some(cell)) {
                let (unrun, rest): (VecDeque<Cell>, VecDeque<Cell>) =
                    std::mem::take(&mut self.ready).into_iter().partition(|c| {
                        c.search
                            .as_ref()
                            .is_some_and(|s| s.group == sr.group && s.value == sr.value)
                    });
                self.ready = rest;
                self.advance(i, unrun.into());
            }
        }
    }

    /// The cells still to run (queued, and the search values not reached
    /// yet), counted per (instance, strategy) with their time budget: what
    /// the ETA is estimated from.
    fn pending_kinds(&self) -> PendingKinds {
        let mut m: PendingKinds = HashMap::new();
        let mut add = |c: &Cell| {
            let e = m
                .entry((c.instance.name.clone(), c.strategy.clone()))
                .or_insert((0, c.budgets.deadline().map(|d| d.as_secs_f64())));
            e.0 += 1;
        };
        self.ready.iter().for_each(&mut add);
        for st in self.searches.iter().filter(|s| !s.over && s.bisect.is_none()) {
            st.steps
                .iter()
                .skip(st.step + 1)
                .flatten()
                .filter(|c| !self.done.contains_key(&c.key))
                .for_each(|c| add(c));
        }
        m
    }

    /// Whether a search may still stop early (its later values are counted
    /// in `planned` and `pending_kinds` in full).
    fn searching(&self) -> bool {
        self.searches.iter().any(|s| !s.over && s.bisect.is_none())
    }

    /// Cells to run as far as known now: those queued or running, and the
    /// values of each search not reached yet (an upper bound).
    fn planned(&self) -> usize {
        let later: usize = self
            .searches
            .iter()
            .filter(|s| !s.over && s.bisect.is_none())
            .map(|s| {
                s.steps
                    .iter()
                    .skip(s.step + 1)
                    .flatten()
                    .filter(|c| !self.done.contains_key(&c.key))
                    .count()
            })
            .sum();
        self.ready.len() + self.running + later
    }
}

/// The summary table: per strategy and backend, cells by result, median
/// states per second of the complete runs, summed wall time.
pub fn summary_table(rows: &[Row]) -> String {
    let mut results: Vec<String> = rows.iter().map(|r| r.get("result").to_string()).collect();
    results.sort();
    results.dedup();
    // Fixed order for the usual results, others after (probabilistic
    // runs are rare: their column only when there are some).
    let mut order: Vec<&str> = (Outcome::ALL.iter())
        .filter(|o| **o != Outcome::Probabilistic)
        .map(|o| o.name())
        .collect();
    order.extend([CRASHED, ERROR]);
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
            .filter(|r| r.get("result") == Outcome::Complete.name())
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
    use super::progress::Eta;
    use super::*;
    use crate::experiments::matrix::Matrix;

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
    fn the_eta_counts_each_pending_cell_by_its_kind_and_budget() {
        let row = |inst: &str, strategy: &str, wall: f64| {
            let mut r = Row::empty();
            r.set("instance", inst);
            r.set("strategy", strategy);
            r.set("wall_s", wall.to_string());
            r
        };
        let mut eta = Eta::default();
        for _ in 0..3 {
            eta.record(&row("a", "bfs", 6.0));
            eta.record(&row("b", "bfs", 0.1));
        }
        eta.record(&row("b", "dfs", 1.0));
        let pending: PendingKinds = [
            (("a".to_string(), "bfs".to_string()), (6, Some(5.0))), // capped by the budget
            (("b".to_string(), "bfs".to_string()), (3, None)),
            (("c".to_string(), "dfs".to_string()), (2, None)), // the strategy's mean
        ]
        .into_iter()
        .collect();
        let left = eta.estimate(&pending, 2).unwrap();
        assert!(
            (left - (6.0 * 5.0 + 3.0 * 0.1 + 2.0 * 1.0) / 2.0).abs() < 1e-9,
            "{left}"
        );
    }

    /// A matrix `text` in a fresh temporary directory `tag` beside empty
    /// model files `models` (`a` for `a.dve`).
    fn matrix_in_temp(tag: &str, models: &[&str], text: &str) -> (std::path::PathBuf, Matrix) {
        let dir = std::env::temp_dir().join(format!("dvemc-runner-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for m in models {
            std::fs::write(dir.join(format!("{m}.dve")), "").unwrap();
        }
        let m = Matrix::parse(&dir.join("m.toml"), text).unwrap();
        (dir, m)
    }

    #[test]
    fn a_run_with_threads_takes_that_many_job_slots() {
        let (dir, m) = matrix_in_temp(
            "threads",
            &["a", "b"],
            "[[strategies]]\nspec = \"bfs\"\nparams = { threads = [1, 2] }\n[instances]\nnames = [\"a.dve\", \"b.dve\"]\n",
        );
        let cells = m.expand(None).unwrap();
        let widths: Vec<usize> = cells.iter().map(Cell::threads).collect();
        assert_eq!(widths, [1, 2, 1, 2]);
        let done = HashMap::new();
        let mut s = Schedule::new(&cells, &done);
        s.cores = 2;
        // Two one-thread runs at once; a two-thread run only alone.
        let a1 = s.next().expect("a, 1 thread");
        assert!(s.next().is_none(), "the 2-thread run waits for the core in use");
        s.finished(&a1, true);
        let a2 = s.next().expect("a, 2 threads");
        assert!(s.next().is_none(), "nothing beside a 2-thread run");
        s.finished(&a2, true);
        let b1 = s.next().expect("b, 1 thread");
        assert!(s.next().is_none());
        s.abandon(&b1);
        assert!(s.next().is_some(), "b, 2 threads, once b's 1-thread run is gone");
        assert_eq!(s.busy, 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn runs_start_beside_others_only_if_their_memory_limits_fit() {
        // Address spaces of 8G: memory limits of 6G each.
        let (dir, m) = matrix_in_temp(
            "mem",
            &["a", "b", "c"],
            "strategies = [\"bfs\"]\n[budgets]\nmemory = \"8G\"\n[instances]\nnames = [\"a.dve\", \"b.dve\", \"c.dve\"]\n",
        );
        let cells = m.expand(None).unwrap();
        let done = HashMap::new();
        let mut s = Schedule::new(&cells, &done);
        s.cores = 3;
        s.ram = Some(13 << 30);
        let a = s.next().expect("a");
        let b = s.next().expect("b: 12G of limits fit in 13G");
        assert!(s.next().is_none(), "c would need 18G");
        s.finished(&a, true);
        let c = s.next().expect("c, once a has ended");
        s.finished(&b, true);
        s.finished(&c, true);
        assert_eq!(s.reserved, 0);
        // Alone, a run starts whatever its limit.
        let mut s2 = Schedule::new(&cells, &done);
        s2.cores = 3;
        s2.ram = Some(1 << 30);
        let first = s2.next().expect("one run at a time");
        assert!(s2.next().is_none());
        s2.finished(&first, true);
        assert!(s2.next().is_some());
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A memory-limited cell's checkpoint is removed and its row says so;
    /// a time-limited cell's stays, to go on from.
    #[test]
    fn a_memory_limited_cells_checkpoint_is_removed() {
        let dir = std::env::temp_dir().join(format!("dvemc-discard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let row_for = |result: &str, file: &std::path::Path| {
            let mut r = Row::empty();
            r.set("result", result);
            r.set(
                "extra",
                serde_json::json!({"checkpoint": {"file": file.display().to_string(), "saved": true}, "threads": 1})
                    .to_string(),
            );
            r
        };
        let (mem, time) = (dir.join("mem.ckpt"), dir.join("time.ckpt"));
        for f in [&mem, &time] {
            std::fs::write(f, b"checkpoint").unwrap();
        }
        let mut r = row_for(Outcome::MemoryLimit.name(), &mem);
        discard_final_checkpoint(&mut r);
        assert!(!mem.exists());
        assert_eq!(saved_checkpoint(&r), None);
        assert!(r.extra()["checkpoint"]["removed"].is_string());
        assert_eq!(r.extra()["threads"], 1);
        let mut r = row_for(Outcome::TimeLimit.name(), &time);
        discard_final_checkpoint(&mut r);
        assert!(time.exists());
        assert_eq!(saved_checkpoint(&r), Some(time.clone()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn retried_are_crashes_errors_and_starved_kills() {
        let row = |result: &str, signal: &str, cpu: &str| {
            let mut r = Row::empty();
            r.set("result", result);
            r.set("signal", signal);
            r.set("cpu_s", cpu);
            r.set("budget_time_s", "600");
            r
        };
        assert!(worth_retrying(&row("crashed", "SIGSEGV", "1")));
        assert!(worth_retrying(&row("error", "", "0")));
        // Killed at the deadline after 0.5 s of processor time: stopped.
        assert!(worth_retrying(&row("time_limit", "SIGKILL", "0.5")));
        // Killed after using its time: a real time_limit.
        assert!(!worth_retrying(&row("time_limit", "SIGKILL", "598")));
        // Ended itself at its limit (its own clock) with 40 % of it in
        // processor time (collision.6 in the census, beside CI): starved.
        assert!(worth_retrying(&row("time_limit", "", "240")));
        assert!(!worth_retrying(&row("time_limit", "", "590")));
        assert!(!worth_retrying(&row("complete", "", "0.5")));
    }

    /// A quiet run of matrix `m` on 2 jobs into `out`, deleted first.
    fn fresh_run(out: &std::path::Path) -> RunConfig<'_> {
        let _ = std::fs::remove_file(out);
        RunConfig {
            matrix_name: "m",
            out,
            jobs: 2,
            resume: false,
            retry_failed: false,
            rerun: false,
            provenance: Provenance::gather(),
            progress: Some(ProgressMode::Quiet),
        }
    }

    #[test]
    fn mock_run_resume_and_summary() {
        let (dir, m) = matrix_in_temp(
            "unit",
            &["a", "b", "c"],
            "strategies = [\"bfs\", \"dfs\"]\n[instances]\nnames = [\"a.dve\", \"b.dve\", \"c.dve\"]\n",
        );
        let cells = m.expand(None).unwrap();
        let out = dir.join("out.csv");
        let cfg = fresh_run(&out);
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
        let bfs_a = t.rows.iter().find(|r| r.key() == "a|jit|bfs|").unwrap();
        assert_eq!(bfs_a.get("extra"), r#"{"x":1}"#);
        assert_eq!(bfs_a.get("peak_mem_bytes"), "4096");
        let crashed = t.rows.iter().find(|r| r.key() == "a|jit|dfs|").unwrap();
        assert_eq!(crashed.get("result"), "crashed");
        assert_eq!(crashed.get("signal"), "SIGSEGV");
        let table = summary_table(&s.rows);
        assert!(table.contains("bfs"), "{table}");
        // --retry-failed runs the three crashed cells again, in place.
        let cfg = RunConfig {
            retry_failed: true,
            ..cfg
        };
        let s = run_cells(&cells, &Mock, &cfg).unwrap();
        assert_eq!((s.ran, s.rows.len(), s.failures()), (3, 6, 3));
        assert_eq!(Table::read(&out).unwrap().rows.len(), 6);
        // A run of some of the cells leaves the others' rows, failed or
        // not, as they are.
        let some: Vec<Cell> = cells
            .iter()
            .filter(|c| c.key.starts_with("b|"))
            .cloned()
            .collect();
        let s = run_cells(&some, &Mock, &cfg).unwrap();
        assert_eq!((s.ran, s.rows.len(), s.failures()), (1, 2, 1));
        let t = Table::read(&out).unwrap();
        assert_eq!(t.rows.len(), 6);
        assert!(t
            .rows
            .iter()
            .any(|r| r.key() == "a|jit|dfs|" && r.get("result") == "crashed"));
        // --rerun runs the cells of this run again whatever they recorded
        // (b's complete bfs row too), the others' rows staying.
        let cfg = RunConfig {
            retry_failed: false,
            rerun: true,
            ..cfg
        };
        let s = run_cells(&some, &Mock, &cfg).unwrap();
        assert_eq!((s.skipped, s.ran, s.rows.len()), (0, 2, 2));
        let t = Table::read(&out).unwrap();
        assert_eq!(t.rows.len(), 6);
        assert_eq!(t.rows.iter().filter(|r| r.key().starts_with("b|")).count(), 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Complete when the cache is at least a threshold that depends on the
    /// replacement (`random`: 23.7 %, `age`: 31 %) and the instance (`b`: never).
    struct Threshold(Mutex<Vec<String>>);
    impl Executor for Threshold {
        fn execute(&self, cell: &Cell) -> std::io::Result<ChildResult> {
            self.0.lock().unwrap().push(cell.key.clone());
            let cache: f64 = cell.params["cache"]
                .as_str()
                .unwrap()
                .trim_end_matches('%')
                .parse()
                .unwrap();
            let need = match cell.params["replacement"].as_str().unwrap() {
                "random" => 23.7,
                _ => 31.0,
            };
            let ok = cell.instance.name == "a" && cache >= need;
            let result = if ok { "complete" } else { "cache_full" };
            Ok(ChildResult {
                termination: Termination::Exited(if ok { 0 } else { 4 }),
                stdout: format!(r#"{{"result":"{result}","states":1,"time_s":0.1}}"#),
                stderr: String::new(),
                wall_s: 0.1,
                max_rss_bytes: 0,
                cpu_s: 0.1,
            })
        }
    }

    #[test]
    fn a_descending_search_stops_at_the_first_value_where_nothing_completes() {
        let (dir, m) = matrix_in_temp(
            "search-down",
            &["a", "b"],
            r#"
            [instances]
            names = ["a.dve", "b.dve"]
            [[strategies]]
            spec = "dfs"
            params = { cache = ["40%", "35%", "30%", "25%", "20%", "15%"], replacement = ["random", "age"], chain_reduction = [false, true] }
            search = { param = "cache", per = ["chain_reduction"], descending = true }
            "#,
        );
        let cells = m.expand(None).unwrap();
        let out = dir.join("out.csv");
        let cfg = fresh_run(&out);
        let exec = Threshold(Mutex::new(Vec::new()));
        let s = run_cells(&cells, &exec, &cfg).unwrap();
        let ran = exec.0.lock().unwrap().clone();
        // a, per CR setting: 40..25 % complete (random, listed first; age
        // from 31 %), 20 % does not. The search moves on at the first
        // complete run of a value, so age runs at 40-30 % only if it ran
        // beside it (two jobs; the next test follows one job exactly);
        // then 20 % whole, then the rest of 25 %; none below.
        let a_cr = |k: &&String| k.starts_with("a|") && k.contains("--chain-reduction");
        let ran_a_cr = |cache: &str, r: &str| {
            ran.iter()
                .filter(a_cr)
                .any(|k| k.contains(&format!("--cache {cache} ")) && k.ends_with(&format!("{r}|")))
        };
        for cache in ["40%", "35%", "30%", "25%", "20%"] {
            assert!(ran_a_cr(cache, "random"), "{cache} {ran:#?}");
        }
        assert!(ran_a_cr("25%", "age") && ran_a_cr("20%", "age"), "{ran:#?}");
        assert!(!ran
            .iter()
            .any(|k| k.starts_with("a|") && k.contains("--cache 15%")));
        let best = s
            .rows
            .iter()
            .filter(|r| r.key().starts_with("a|") && r.get("result") == Outcome::Complete.name())
            .filter_map(|r| r.params_value("cache"))
            .map(|c| c.trim_end_matches('%').parse::<f64>().unwrap())
            .fold(f64::INFINITY, f64::min);
        assert_eq!(best, 25.0);
        // b never completes: only the first value.
        assert_eq!(ran.iter().filter(|k| k.starts_with("b|")).count(), 2 * 2);
        let exec = Threshold(Mutex::new(Vec::new()));
        let s2 = run_cells(&cells, &exec, &RunConfig { resume: true, ..cfg }).unwrap();
        assert_eq!((s2.ran, s2.rows.len()), (0, s.rows.len()));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_descending_search_moves_on_at_a_values_first_complete_run() {
        let (dir, m) = matrix_in_temp(
            "search-early",
            &["a"],
            r#"
            [instances]
            names = ["a.dve"]
            [[strategies]]
            spec = "dfs"
            params = { cache = ["40%", "35%", "30%"], replacement = ["random", "age", "depth-min"] }
            search = { param = "cache", descending = true }
            "#,
        );
        let cells = m.expand(None).unwrap();
        let done = HashMap::new();
        let mut s = Schedule::new(&cells, &done);
        let mut order = Vec::new();
        // Complete: random at 40 and 35 %, age at 35 %; nothing at 30 %.
        while let Some(c) = s.next() {
            let k = c.key.clone();
            let ok = (k.contains("40%") || k.contains("35%"))
                && (k.contains("random") || k.contains("35%") && k.contains("age"));
            order.push(k);
            s.finished(&c, ok);
        }
        let short: Vec<String> = order
            .iter()
            .map(|k| {
                k.split('|')
                    .nth(2)
                    .unwrap()
                    .replace("dfs --cache ", "")
                    .replace(" --replacement", "")
            })
            .collect();
        // 40 %: random completes, on to 35 %: random completes, on to
        // 30 %, run whole (nothing completes), then the rest of 35 %.
        assert_eq!(
            short,
            [
                "40% random",
                "35% random",
                "30% random",
                "30% age",
                "30% depth-min",
                "35% age",
                "35% depth-min"
            ]
        );
        // Resumed from a file holding those runs: nothing runs again.
        let done: HashMap<String, bool> = order
            .iter()
            .map(|k| {
                (
                    k.clone(),
                    (k.contains("40%") || k.contains("35%")) && k.contains("random"),
                )
            })
            .collect();
        let mut s = Schedule::new(&cells, &done);
        assert!(s.next().is_none());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_search_stops_at_the_first_success_then_bisects_and_resumes() {
        let (dir, m) = matrix_in_temp(
            "search",
            &["a", "b"],
            r#"
            [instances]
            names = ["a.dve", "b.dve"]
            [[strategies]]
            spec = "dfs"
            params = { cache = ["5%", "10%", "15%", "20%", "25%", "30%", "35%", "40%"], replacement = ["random", "age"], chain_reduction = [false, true] }
            search = { param = "cache", per = ["chain_reduction"], bisect = "0.1%" }
            "#,
        );
        let cells = m.expand(None).unwrap();
        assert_eq!(cells.len(), 2 * 8 * 2 * 2);
        let out = dir.join("out.csv");
        let cfg = fresh_run(&out);
        let exec = Threshold(Mutex::new(Vec::new()));
        let s = run_cells(&cells, &exec, &cfg).unwrap();
        let ran = exec.0.lock().unwrap().clone();
        let ran_a_cr: Vec<&String> = ran
            .iter()
            .filter(|k| k.starts_with("a|") && k.contains("--chain-reduction"))
            .collect();
        // a, per CR setting: 5 grid values (5..25 %) with both strategies,
        // then bisection between 20 and 25 % to 0.1 % (50 tenths: 6 steps).
        assert_eq!(ran_a_cr.len(), 2 * 5 + 2 * 6, "{ran_a_cr:#?}");
        let best = s
            .rows
            .iter()
            .filter(|r| r.key().starts_with("a|") && r.get("result") == Outcome::Complete.name())
            .filter_map(|r| r.params_value("cache"))
            .map(|c| c.trim_end_matches('%').parse::<f64>().unwrap())
            .fold(f64::INFINITY, f64::min);
        assert_eq!(best, 23.7);
        // b never succeeds: every grid value, no bisection.
        assert_eq!(ran.iter().filter(|k| k.starts_with("b|")).count(), 8 * 2 * 2);
        assert_eq!(s.rows.len(), ran.len());
        // Resuming replays the searches from the file and runs nothing.
        let exec = Threshold(Mutex::new(Vec::new()));
        let s2 = run_cells(&cells, &exec, &RunConfig { resume: true, ..cfg }).unwrap();
        assert_eq!((s2.ran, s2.rows.len()), (0, s.rows.len()));
        std::fs::remove_dir_all(&dir).ok();
    }
}
