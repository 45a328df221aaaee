//! What `bench run` shows while it runs: a progress bar or a line per
//! finished cell, with an estimate of the time left.

use crate::experiments::schema::{Row, CRASHED, ERROR};
use crate::experiments::util::human_duration;
use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    Bar,
    Lines,
    Quiet,
}

/// Progress on stderr: an indicatif bar, or one line per finished cell.
pub(crate) struct Progress {
    pub(crate) mode: ProgressMode,
    pub(crate) bar: Option<indicatif::ProgressBar>,
    /// Done, running, failed, and the total as known now (searches change it).
    pub(crate) state: Mutex<(usize, usize, usize, usize)>,
    pub(crate) eta: Mutex<Eta>,
}

/// Cells still to run per (instance, strategy): how many, and their time
/// budget in seconds.
pub(crate) type PendingKinds = HashMap<(String, String), (usize, Option<f64>)>;

/// What the ETA is made of: the wall time of finished cells per (instance,
/// strategy), per strategy and over all, and the last estimate.
#[derive(Default)]
pub(crate) struct Eta {
    pub(crate) by_kind: HashMap<(String, String), (f64, u32)>,
    pub(crate) by_strategy: HashMap<String, (f64, u32)>,
    pub(crate) all: (f64, u32),
    /// Seconds left when last estimated, and when.
    pub(crate) left: Option<(f64, Instant)>,
    /// Unfinished searches were counted in full: the estimate is a bound.
    pub(crate) bound: bool,
}

impl Eta {
    pub(crate) fn record(&mut self, row: &Row) {
        let w = row.num("wall_s").unwrap_or(0.0);
        let add = |e: &mut (f64, u32)| {
            e.0 += w;
            e.1 += 1;
        };
        add(self
            .by_kind
            .entry((row.get("instance").to_string(), row.get("strategy").to_string()))
            .or_default());
        add(self
            .by_strategy
            .entry(row.get("strategy").to_string())
            .or_default());
        add(&mut self.all);
    }

    /// Seconds to run `pending` with `jobs` workers: each cell as long as the
    /// finished cells of its instance and strategy took on average (else of
    /// its strategy, else of all), at most its time budget.
    pub(crate) fn estimate(&self, pending: &PendingKinds, jobs: usize) -> Option<f64> {
        let mean = |e: &(f64, u32)| (e.1 > 0).then(|| e.0 / e.1 as f64);
        let overall = mean(&self.all)?;
        let total: f64 = pending
            .iter()
            .map(|((inst, strategy), (n, budget))| {
                let per = self
                    .by_kind
                    .get(&(inst.clone(), strategy.clone()))
                    .and_then(mean)
                    .or_else(|| self.by_strategy.get(strategy).and_then(mean))
                    .unwrap_or(overall);
                *n as f64 * budget.map_or(per, |b| per.min(b))
            })
            .sum();
        Some(total / jobs.max(1) as f64)
    }
}

impl Progress {
    pub(crate) fn new(mode: ProgressMode, total: usize) -> Progress {
        let bar = (mode == ProgressMode::Bar && total > 0).then(|| {
            let b = indicatif::ProgressBar::with_draw_target(
                Some(total as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            let style = indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} cells  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> ");
            b.set_style(style);
            b.enable_steady_tick(Duration::from_millis(250));
            b
        });
        Progress {
            mode,
            bar,
            state: Mutex::new((0, 0, 0, total)),
            eta: Mutex::new(Eta::default()),
        }
    }

    pub(crate) fn start(&self) {
        let mut s = self.state.lock().unwrap();
        s.1 += 1;
        if let Some(b) = &self.bar {
            b.set_message(format!("{} running, {} failed", s.1, s.2));
        }
    }

    /// Whether the ETA should be estimated again (at most once a second).
    pub(crate) fn eta_due(&self) -> bool {
        self.mode != ProgressMode::Quiet
            && self
                .eta
                .lock()
                .unwrap()
                .left
                .is_none_or(|(_, at)| at.elapsed() >= Duration::from_secs(1))
    }

    /// The time left as last estimated, counted down since.
    pub(crate) fn left_text(&self) -> String {
        let eta = self.eta.lock().unwrap();
        match eta.left {
            Some((left, at)) => format!(
                "{}~{} left",
                if eta.bound { "up to " } else { "" },
                human_duration(Duration::from_secs_f64(
                    (left - at.elapsed().as_secs_f64()).max(0.0)
                ))
            ),
            None => String::new(),
        }
    }

    /// A cell ended; `remaining`: the cells still to run or running;
    /// `pending`: the cells to run by kind, when the ETA is due.
    pub(crate) fn finish(
        &self,
        row: &Row,
        remaining: usize,
        pending: Option<(PendingKinds, bool)>,
        jobs: usize,
    ) {
        {
            let mut eta = self.eta.lock().unwrap();
            eta.record(row);
            if let Some((p, bound)) = pending {
                eta.left = eta.estimate(&p, jobs).map(|l| (l, Instant::now()));
                eta.bound = bound;
            }
        }
        let mut s = self.state.lock().unwrap();
        s.0 += 1;
        s.1 -= 1;
        s.3 = s.0 + remaining;
        let total = s.3;
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
                    b.set_message(format!("{} running, {} failed  {}", s.1, s.2, self.left_text()));
                    b.set_length(total as u64);
                    b.inc(1);
                }
            }
            ProgressMode::Lines => {
                let left = match self.left_text() {
                    t if t.is_empty() || s.0 >= total => String::new(),
                    t => format!(", {t}"),
                };
                let states = row.get("states");
                let mut line = format!(
                    "[{:>w$}/{}] {:<12} {:>9}s {:>11} states  {}  ({} running, {} failed{left})",
                    s.0,
                    total,
                    row.get("result"),
                    format!("{:.2}", row.num("wall_s").unwrap_or(0.0)),
                    if states.is_empty() { "-" } else { states },
                    row.key(),
                    s.1,
                    s.2,
                    w = total.to_string().len()
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

    /// A running cell will not be recorded (interruption).
    pub(crate) fn abandon(&self) {
        self.state.lock().unwrap().1 -= 1;
    }

    pub(crate) fn close(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
