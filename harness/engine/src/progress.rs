//! The counters of a running search, for its progress line and samples.
//!
//! The search never talks to the terminal: at every poll it publishes its
//! counters to a [`Meter`] (three relaxed atomic stores); whoever shows
//! progress reads them ([`Meter::read`]) on its own thread (the command
//! line's progress line).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct Counters {
    states: AtomicU64,
    transitions: AtomicU64,
    depth: AtomicU64,
    /// What the run is doing when it is not exploring (`compiling`, ...).
    phase: Mutex<String>,
    /// With a sampling interval: the counters over time (`--sample-interval`).
    sampling: Mutex<Option<Sampling>>,
}

/// Samples of the counters over time.
#[derive(Debug)]
struct Sampling {
    start: Instant,
    every: Duration,
    last: Option<Instant>,
    samples: Vec<Sample>,
}

/// The counters at one moment of a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Sample {
    pub time_s: f64,
    pub states: u64,
    pub transitions: u64,
}

/// Counters a search publishes and the progress line reads.
#[derive(Clone, Debug, Default)]
pub struct Meter(Arc<Counters>);

impl Meter {
    pub fn new() -> Meter {
        Meter::default()
    }

    /// A meter that also keeps the counters every `every` (at the
    /// search's polls, so at most that often).
    pub fn sampling(every: Duration) -> Meter {
        let m = Meter::default();
        if let Ok(mut s) = m.0.sampling.lock() {
            *s = Some(Sampling {
                start: Instant::now(),
                every,
                last: None,
                samples: Vec::new(),
            });
        }
        m
    }

    #[inline]
    pub fn publish(&self, states: u64, transitions: u64, depth: u64) {
        self.0.states.store(states, Ordering::Relaxed);
        self.0.transitions.store(transitions, Ordering::Relaxed);
        self.0.depth.store(depth, Ordering::Relaxed);
        if let Ok(mut g) = self.0.sampling.lock() {
            if let Some(s) = g.as_mut() {
                let now = Instant::now();
                if s.last.is_none_or(|l| now - l >= s.every) {
                    s.last = Some(now);
                    s.samples.push(Sample {
                        time_s: (now - s.start).as_secs_f64(),
                        states,
                        transitions,
                    });
                }
            }
        }
    }

    /// The samples kept, with a last one of the final counters (empty
    /// without sampling).
    pub fn samples(&self, states: u64, transitions: u64) -> Vec<Sample> {
        let Ok(mut g) = self.0.sampling.lock() else {
            return Vec::new();
        };
        let Some(s) = g.as_mut() else {
            return Vec::new();
        };
        let mut v = s.samples.clone();
        v.push(Sample {
            time_s: s.start.elapsed().as_secs_f64(),
            states,
            transitions,
        });
        v
    }

    /// Names a phase shown instead of the counters until the first publish
    /// (empty: none).
    pub fn set_phase(&self, phase: &str) {
        if let Ok(mut p) = self.0.phase.lock() {
            p.clear();
            p.push_str(phase);
        }
    }
}

/// What a [`Meter`] holds at one moment, for whoever shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    pub states: u64,
    pub transitions: u64,
    pub depth: u64,
    /// The phase named before the first publish (empty: none).
    pub phase: String,
}

impl Meter {
    /// The counters now.
    pub fn read(&self) -> Reading {
        Reading {
            states: self.0.states.load(Ordering::Relaxed),
            transitions: self.0.transitions.load(Ordering::Relaxed),
            depth: self.0.depth.load(Ordering::Relaxed),
            phase: self.0.phase.lock().map(|p| p.clone()).unwrap_or_default(),
        }
    }
}
