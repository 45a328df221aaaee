//! Where `explore` shows its progress: the options (`--quiet`,
//! `--progress-interval`) and the choice of the engine's display — the
//! live line on a terminal, a plain line at an interval elsewhere (logs,
//! pipes, batch jobs), nothing when asked.

use std::io::IsTerminal;
use std::time::Duration;

use harness::engine::progress::Display;

use crate::explore::heading;

/// Between two progress lines off a terminal when `--progress-interval` is
/// not given: often enough for a log, rare enough not to flood it.
pub const DEFAULT_INTERVAL_S: f64 = 5.0;

#[derive(clap::Args, Debug)]
pub struct ProgressArgs {
    /// No progress on standard error (the result is printed as always)
    #[arg(long, short = 'q', hide_short_help = true, help_heading = heading::OUTPUT)]
    pub quiet: bool,
    /// Seconds between two progress lines when standard error is not a terminal [default: 5]
    ///
    /// On a terminal a live line is redrawn in place; elsewhere (a log, a
    /// pipe, nohup, CI) a plain line `progress: ...` is written every
    /// SECONDS (fractions allowed, e.g. 0.5) with the states, states per
    /// second, transitions, BFS level or DFS depth, memory and elapsed time.
    /// A run shorter than the interval writes none.
    #[arg(long, value_name = "SECONDS", value_parser = crate::explore::seconds,
        allow_negative_numbers = true, hide_short_help = true, help_heading = heading::OUTPUT)]
    pub progress_interval: Option<f64>,
}

impl ProgressArgs {
    /// How to show progress (`None`: not at all); `DVEMC_NO_PROGRESS` in the
    /// environment silences it as `--quiet` does (tests, `bench run`'s cells).
    pub fn display(&self) -> Option<Display> {
        if self.quiet || std::env::var_os("DVEMC_NO_PROGRESS").is_some() {
            return None;
        }
        Some(if std::io::stderr().is_terminal() {
            Display::Live
        } else {
            Display::Lines(Duration::from_secs_f64(
                self.progress_interval.unwrap_or(DEFAULT_INTERVAL_S),
            ))
        })
    }
}
