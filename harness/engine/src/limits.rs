//! Budgets of a search, checked in one place.
//!
//! [`Limits`] is what the user asked for (states, wall time, memory); a
//! [`Budget`] is those limits for one run, started at a given instant. A
//! search asks it two kinds of question:
//!
//! - before storing a new state or growing a structure ([`Budget::refuse_new`],
//!   [`Budget::refuse_frontier`]): the state and memory budgets, so a search
//!   stops *before* it allocates past the limit;
//! - periodically ([`Budget::poll`], every [`POLL_MASK`]` + 1` expansions,
//!   never per successor): the wall clock and interruption (SIGINT or
//!   SIGTERM, see [`interrupt`]), and the counters shown by the progress
//!   line ([`crate::progress`]).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use crate::outcome::Outcome;
use crate::progress::Meter;
use crate::store::Store;

/// Expansions between two polls of the clock.
pub const POLL_MASK: u64 = 1023;

/// Budgets of a run; `None` = unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Most states to store; the run stops when one more new state is found.
    pub max_states: Option<u64>,
    /// Wall-clock budget of the search.
    pub time: Option<Duration>,
    /// Budget in bytes for the store plus the search structures.
    pub memory_bytes: Option<u64>,
}

/// Why every search of the process must stop at its next [`Budget::poll`]:
/// [`RUNNING`], [`INTERRUPTED`] (the signal handler,
/// [`interrupt::request`]) or [`TIME_UP`] ([`time_up`]).
static STOP: AtomicU8 = AtomicU8::new(RUNNING);
const RUNNING: u8 = 0;
const INTERRUPTED: u8 = 1;
const TIME_UP: u8 = 2;

/// Interruption: SIGINT and SIGTERM end the running search cleanly.
pub mod interrupt {
    use super::*;

    /// Whether an interruption was requested.
    #[inline]
    pub fn requested() -> bool {
        STOP.load(Ordering::Relaxed) == INTERRUPTED
    }

    /// Requests an interruption (what the signal handler does).
    pub fn request() {
        STOP.store(INTERRUPTED, Ordering::Relaxed);
    }

    /// Forgets a request (tests run several searches in one process).
    pub fn clear() {
        STOP.store(RUNNING, Ordering::Relaxed);
        FIRST_SIGNAL_NS.store(0, Ordering::Relaxed);
    }

    /// A signal this soon after the first is the same request sent twice,
    /// not a second Ctrl-C: GNU `timeout -s INT` signals the command and
    /// then its whole process group, which holds the command again (and a
    /// job scheduler may do the same), so the second copy can arrive after
    /// the first was handled. Before, `SA_RESETHAND` let that copy end the
    /// process with no report (exit 130, no JSON) in some runs.
    const REPEAT_WINDOW_NS: u64 = 1_000_000_000;

    /// When the first signal came (`CLOCK_MONOTONIC`, ns; 0 = none yet).
    static FIRST_SIGNAL_NS: AtomicU64 = AtomicU64::new(0);

    fn monotonic_ns() -> u64 {
        // SAFETY: clock_gettime is async-signal-safe and writes only `t`.
        let mut t: libc::timespec = unsafe { std::mem::zeroed() };
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
        (t.tv_sec as u64).saturating_mul(1_000_000_000) + t.tv_nsec as u64
    }

    extern "C" fn on_signal(sig: libc::c_int) {
        // Async-signal-safe: atomics, clock_gettime, signal and raise.
        let now = monotonic_ns().max(1);
        match FIRST_SIGNAL_NS.compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => STOP.store(INTERRUPTED, Ordering::Relaxed),
            Err(first) if now.saturating_sub(first) < REPEAT_WINDOW_NS => {}
            Err(_) => {
                // A second request: the default action, at once. The signal
                // is blocked while its handler runs, so the raised one is
                // delivered (and ends the process) as the handler returns.
                // SAFETY: both are async-signal-safe.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                    libc::raise(sig);
                }
            }
        }
    }

    /// Installs the handler for SIGINT and SIGTERM: the first signal asks
    /// the search to stop at its next poll (it then reports what it has,
    /// with result `interrupted`). A signal a second or more after the
    /// first ends the process at once (say, while a big model is being
    /// compiled and no poll runs); one sooner is the first one repeated
    /// (see [`REPEAT_WINDOW_NS`]) and changes nothing.
    pub fn install() {
        // SAFETY: the handler only uses async-signal-safe calls; the
        // sigaction struct is fully initialised.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
            libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
        }
    }
}

/// The wall clock of the whole run is spent (`crate::guard::Watchdog`):
/// every poll answers `time_limit` from now on.
pub fn time_up() {
    let _ = STOP.compare_exchange(RUNNING, TIME_UP, Ordering::Relaxed, Ordering::Relaxed);
}

/// Forgets [`time_up`] (the run that set it is over).
pub fn time_up_reset() {
    let _ = STOP.compare_exchange(TIME_UP, RUNNING, Ordering::Relaxed, Ordering::Relaxed);
}

/// Whether the run must stop now (interruption, or the wall clock spent),
/// where no [`Budget`] polls: loading and compiling the model.
pub fn stop_requested() -> Option<Outcome> {
    match STOP.load(Ordering::Relaxed) {
        RUNNING => None,
        INTERRUPTED => Some(Outcome::Interrupted),
        _ => Some(Outcome::TimeLimit),
    }
}

/// The limits of one run, from its start.
#[derive(Clone, Debug)]
pub struct Budget {
    max_states: usize,
    deadline: Option<Instant>,
    memory: Option<u64>,
    meter: Option<Meter>,
}

impl Budget {
    pub fn new(limits: &Limits, start: Instant) -> Budget {
        Budget {
            max_states: limits
                .max_states
                .map(|m| m.min(usize::MAX as u64) as usize)
                .unwrap_or(usize::MAX),
            deadline: limits.time.and_then(|t| start.checked_add(t)),
            memory: limits.memory_bytes,
            meter: None,
        }
    }

    /// Publishes the counters of every poll to `meter` (the progress line).
    pub fn with_meter(mut self, meter: Option<Meter>) -> Budget {
        self.meter = meter;
        self
    }

    /// The memory budget in bytes, if any.
    pub fn memory(&self) -> Option<u64> {
        self.memory
    }

    /// The state limit (`usize::MAX` without one).
    pub fn max_states(&self) -> usize {
        self.max_states
    }

    /// Whether storing one more new state is not allowed (state or memory
    /// budget). `frontier` is the search structures' current allocation.
    #[inline]
    pub fn refuse_new(&self, store: &impl Store, frontier: usize) -> Option<Outcome> {
        if store.len() >= self.max_states {
            return Some(Outcome::StateLimit);
        }
        if let Some(mem) = self.memory {
            let grow = store.next_growth_bytes();
            if grow > 0 && (store.bytes_used() + grow + frontier) as u64 > mem {
                return Some(Outcome::MemoryLimit);
            }
        }
        None
    }

    /// Whether the search structures may grow by `extra` bytes.
    #[inline]
    pub fn refuse_frontier(&self, store: &impl Store, frontier: usize, extra: usize) -> bool {
        self.refuse_bytes(store.bytes_used() + frontier + extra)
    }

    /// Whether `bytes` in all (what is allocated and what is about to be)
    /// are over the memory budget.
    #[inline]
    pub fn refuse_bytes(&self, bytes: usize) -> bool {
        matches!(self.memory, Some(mem) if bytes as u64 > mem)
    }

    /// The periodic check: interruption, then the wall clock.
    #[inline]
    pub fn poll(&self) -> Option<Outcome> {
        match STOP.load(Ordering::Relaxed) {
            RUNNING => {}
            INTERRUPTED => return Some(Outcome::Interrupted),
            _ => return Some(Outcome::TimeLimit),
        }
        if matches!(self.deadline, Some(d) if Instant::now() >= d) {
            return Some(Outcome::TimeLimit);
        }
        None
    }

    /// [`poll`](Self::poll), publishing the counters first.
    #[inline]
    pub fn poll_with(&self, states: u64, transitions: u64, depth: u64) -> Option<Outcome> {
        if let Some(m) = &self.meter {
            m.publish(states, transitions, depth);
        }
        self.poll()
    }
}

/// Looks a successor up and stores it if new, unless the budget refuses a
/// new state; `Err(outcome)` then.
#[inline]
pub fn visit<S: Store>(
    store: &mut S,
    budget: &Budget,
    frontier: usize,
    state: &[u8],
    fp: u64,
) -> Result<crate::store::Insert, Outcome> {
    if let Some(stop) = budget.refuse_new(store, frontier) {
        return match store.find(state, fp) {
            Some(id) => Ok(crate::store::Insert::Seen(id)),
            None => Err(stop),
        };
    }
    Ok(store.insert(state, fp))
}
