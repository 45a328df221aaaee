//! Where `explore` shows its progress: the options (`--quiet`,
//! `--progress-interval`), the choice of display — the live line on a
//! terminal, a plain line at an interval elsewhere (logs, pipes, batch
//! jobs), nothing when asked — and the [`Ticker`] thread that draws the
//! search's [`Meter`] on standard error. The line shows the states, their
//! rate, the transitions, the depth or BFS level, the resident memory, the
//! elapsed time and, when a bound on the states is known (BEEM's count,
//! `--max-states`), an estimate of the time left.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dvemc_run::engine::progress::{Meter, Reading};

use dvemc_run::run::options::heading;

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
    #[arg(long, value_name = "SECONDS", value_parser = dvemc_run::run::options::values::seconds,
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

/// Draws the progress line until finished.
pub struct Ticker {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

/// What the line says besides the counters.
#[derive(Clone, Debug, Default)]
pub struct TickerText {
    /// `depth` or `level`.
    pub depth_name: &'static str,
    /// A bound on the states, for the time left.
    pub expected_states: Option<u64>,
}

/// How the counters reach standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Display {
    /// One line redrawn in place four times a second, erased at the end
    /// (for a terminal: it needs the cursor controls).
    Live,
    /// A plain line, `progress: ...`, every interval (for logs and pipes:
    /// each line stays).
    Lines(Duration),
}

impl Ticker {
    /// Starts writing the counters of `meter` as `display` says (`None`
    /// when the thread cannot start).
    pub fn start(meter: &Meter, text: TickerText, display: Display) -> Option<Ticker> {
        let stop = Arc::new(AtomicBool::new(false));
        let (m, s) = (meter.clone(), stop.clone());
        let handle = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || match display {
                Display::Live => live(&m, &text, &s),
                Display::Lines(every) => lines(&m, &text, &s, every),
            })
            .ok()?;
        Some(Ticker {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the line and erases it.
    pub fn finish(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// Redraws the line until `stop`, then erases it.
fn live(m: &Meter, text: &TickerText, stop: &AtomicBool) {
    let start = Instant::now();
    let mut drawn = false;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(250));
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // A run shorter than a second gets no line at all.
        if start.elapsed() < Duration::from_secs(1) {
            continue;
        }
        let line = render(m, text, start.elapsed());
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r{line}\x1b[K");
        let _ = e.flush();
        drawn = true;
    }
    if drawn {
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[K");
        let _ = e.flush();
    }
}

/// Writes a line every `every` until `stop`; a run shorter than `every`
/// writes none.
fn lines(m: &Meter, text: &TickerText, stop: &AtomicBool, every: Duration) {
    let start = Instant::now();
    // Short naps, so that the end of the run is not held up by a long
    // interval.
    let nap = every.min(Duration::from_millis(100));
    let mut next = every;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(
            nap.min(next.saturating_sub(start.elapsed()))
                .max(Duration::from_millis(1)),
        );
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let elapsed = start.elapsed();
        if elapsed < next {
            continue;
        }
        // The next line on the interval's grid (a slow write skips, not
        // bunches, lines).
        while next <= elapsed {
            next += every;
        }
        let mut e = std::io::stderr().lock();
        let _ = writeln!(e, "progress: {}", render(m, text, elapsed));
        let _ = e.flush();
    }
}

/// The text of the line.
pub fn render(m: &Meter, text: &TickerText, elapsed: Duration) -> String {
    let Reading {
        states,
        transitions,
        depth,
        phase,
    } = m.read();
    let secs = elapsed.as_secs_f64();
    let mem = dvemc_run::engine::process::rss_bytes();
    if states == 0 {
        let phase = if phase.is_empty() {
            "starting".to_string()
        } else {
            phase
        };
        return format!("{phase}  {}  mem {}", clock(secs), bytes(mem));
    }
    let rate = states as f64 / secs.max(1e-9);
    let mut line = format!(
        "{} states ({}/s)  {} transitions  {} {depth}  mem {}  {}",
        count(states),
        count(rate as u64),
        count(transitions),
        if text.depth_name.is_empty() {
            "depth"
        } else {
            text.depth_name
        },
        bytes(mem),
        clock(secs),
    );
    if let Some(total) = text.expected_states.filter(|&t| t > states && rate > 0.0) {
        let left = (total - states) as f64 / rate;
        line.push_str(&format!(
            "  ETA {} ({:.0} %)",
            clock(left),
            100.0 * states as f64 / total as f64
        ));
    }
    line
}

fn count(n: u64) -> String {
    if n >= 10_000_000 {
        format!("{:.1} M", n as f64 / 1e6)
    } else if n >= 10_000 {
        format!("{:.1} k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

fn bytes(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", b >> 20)
    }
}

fn clock(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s / 60) % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{secs:.1}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_counters_and_an_eta() {
        let m = Meter::new();
        let t = TickerText {
            depth_name: "level",
            expected_states: Some(1000),
        };
        m.set_phase("compiling");
        assert!(render(&m, &t, Duration::from_secs(2)).starts_with("compiling"));
        m.publish(250, 900, 7);
        let line = render(&m, &t, Duration::from_secs(5));
        assert!(
            line.starts_with("250 states (50/s)  900 transitions  level 7"),
            "{line}"
        );
        assert!(line.contains("ETA 15.0s (25 %)"), "{line}");
    }
}
