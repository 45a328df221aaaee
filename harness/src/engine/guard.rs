//! Process guards: budgets that hold where no search polls.
//!
//! A search checks its budgets itself (`engine::limits`) and ends with
//! `memory_limit` or `time_limit` and its counters. Loading a model,
//! compiling it, or an allocation the search did not foresee happen
//! outside those checks; the guards cover them:
//!
//! - [`CappedAlloc`], the global allocator of the `dvemc` binary, counts the
//!   bytes allocated. With a cap ([`set_memory_cap`]: `--memory-limit` plus
//!   a slack for what the search's own accounting does not see), an
//!   allocation past it — or one the system refuses — ends the process
//!   with a one-line report (a JSON object with `--json`) and exit code 4,
//!   instead of Rust's abort.
//! - The [`Watchdog`] of a run ends it the same way when its time budget is
//!   spent and the run is still loading or compiling a second later (a
//!   search would have stopped at its next poll).
//!
//! What these reports say is fixed when the run starts ([`set_report`]):
//! the process cannot format text while an allocation is failing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::engine::Outcome;

/// Bytes currently allocated through [`CappedAlloc`].
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
/// The cap (`usize::MAX`: none).
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Print reports as JSON objects on standard output.
static JSON: AtomicBool = AtomicBool::new(false);
/// Whether a search is running (it polls its own budgets).
static PHASE: AtomicU8 = AtomicU8::new(SETTING_UP);
const SETTING_UP: u8 = 0;
const SEARCHING: u8 = 1;

/// The counting allocator (see the module documentation).
pub struct CappedAlloc;

// SAFETY: every method forwards to the system allocator with the same
// layout; the counting and the cap only decide whether to call it.
unsafe impl GlobalAlloc for CappedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !reserve(layout.size()) {
            fail(layout.size());
        }
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            ALLOCATED.fetch_sub(layout.size(), Ordering::Relaxed);
            fail(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !reserve(layout.size()) {
            fail(layout.size());
        }
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            ALLOCATED.fetch_sub(layout.size(), Ordering::Relaxed);
            fail(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) };
        ALLOCATED.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !reserve(new_size - old) {
            fail(new_size);
        }
        // SAFETY: forwarded as is.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            if new_size > old {
                ALLOCATED.fetch_sub(new_size - old, Ordering::Relaxed);
            }
            fail(new_size);
        }
        if new_size < old {
            ALLOCATED.fetch_sub(old - new_size, Ordering::Relaxed);
        }
        p
    }
}

/// Counts `size` more bytes unless that passes the cap.
#[inline]
fn reserve(size: usize) -> bool {
    let before = ALLOCATED.fetch_add(size, Ordering::Relaxed);
    if before.saturating_add(size) > CAP.load(Ordering::Relaxed) {
        ALLOCATED.fetch_sub(size, Ordering::Relaxed);
        return false;
    }
    true
}

/// Bytes allocated now (0 when the binary does not use [`CappedAlloc`]).
pub fn allocated() -> usize {
    ALLOCATED.load(Ordering::Relaxed)
}

/// Caps the bytes the process may allocate (`None`: no cap).
pub fn set_memory_cap(cap: Option<u64>) {
    let cap = cap.map_or(usize::MAX, |c| c.min(usize::MAX as u64) as usize);
    CAP.store(cap, Ordering::Relaxed);
}

/// What the watchdog prints when it ends the process, fixed in advance.
struct Report {
    time_json: Vec<u8>,
    time_text: Vec<u8>,
}

static REPORT: Mutex<Option<Report>> = Mutex::new(None);
/// What the allocator prints when it ends the process, readable without
/// locking or allocating: (pointer, length) of byte strings set once and
/// never freed.
static MEMORY_JSON: AtomicUsize = AtomicUsize::new(0);
static MEMORY_JSON_LEN: AtomicUsize = AtomicUsize::new(0);
static MEMORY_TEXT: AtomicUsize = AtomicUsize::new(0);
static MEMORY_TEXT_LEN: AtomicUsize = AtomicUsize::new(0);

/// Fixes the reports of the guards for a run: whether they are JSON, and
/// the limits they name.
/// `memory_default`: the limit is the default one (no `--memory-limit`).
pub fn set_report(json: bool, memory_limit: Option<u64>, memory_default: bool, time_limit: Option<Duration>) {
    JSON.store(json, Ordering::Relaxed);
    let secs = time_limit.map_or(0.0, |t| t.as_secs_f64());
    let memory_msg = match memory_limit {
        Some(m) => format!(
            "the {}memory limit of {} was reached outside the search's own accounting (loading or compiling the model, or an allocation the search did not foresee)",
            if memory_default { "default " } else { "" },
            crate::engine::units::human_bytes(m)
        ),
        None => "the system refused a memory allocation (an address-space limit, or the machine's memory is exhausted)".to_string(),
    };
    let time_msg = format!("the time limit of {secs} s was reached while loading or compiling the model");
    let json_of = |msg: &str, result: Outcome| {
        format!(
            "{{\"result\":\"{result}\",\"message\":{},\"exit_code\":4}}\n",
            serde_json::to_string(msg).unwrap_or_default()
        )
        .into_bytes()
    };
    let r = Report {
        time_json: json_of(&time_msg, Outcome::TimeLimit),
        time_text: format!("dvemc: search incomplete ({}): {time_msg}\n", Outcome::TimeLimit).into_bytes(),
    };
    // Leaked on purpose: the allocator reads them when it cannot allocate.
    let mj: &'static [u8] = Box::leak(json_of(&memory_msg, Outcome::MemoryLimit).into_boxed_slice());
    let mt: &'static [u8] = Box::leak(
        format!(
            "dvemc: search incomplete ({}): {memory_msg}\n",
            Outcome::MemoryLimit
        )
        .into_bytes()
        .into_boxed_slice(),
    );
    MEMORY_JSON.store(mj.as_ptr() as usize, Ordering::Relaxed);
    MEMORY_JSON_LEN.store(mj.len(), Ordering::Relaxed);
    MEMORY_TEXT.store(mt.as_ptr() as usize, Ordering::Relaxed);
    MEMORY_TEXT_LEN.store(mt.len(), Ordering::Relaxed);
    if let Ok(mut g) = REPORT.lock() {
        *g = Some(r);
    }
}

/// Writes `len` bytes at `ptr` to file descriptor `fd` (no allocation).
fn write_raw(fd: i32, ptr: usize, len: usize) {
    if ptr != 0 {
        // SAFETY: `ptr..ptr + len` is a leaked, never freed byte slice.
        unsafe { libc::write(fd, ptr as *const libc::c_void, len) };
    }
}

/// An allocation of `size` bytes could not be made: report and exit 4.
#[cold]
fn fail(size: usize) -> ! {
    if MEMORY_TEXT.load(Ordering::Relaxed) == 0 {
        // No run set a report up (a library user, a test): Rust's own
        // message, then abort as Rust would.
        let msg = b"memory allocation failed (the memory cap or the system refused it)\n";
        // SAFETY: a static byte string.
        unsafe { libc::write(2, msg.as_ptr() as *const libc::c_void, msg.len()) };
        let _ = size;
        std::process::abort();
    }
    if JSON.load(Ordering::Relaxed) {
        write_raw(
            1,
            MEMORY_JSON.load(Ordering::Relaxed),
            MEMORY_JSON_LEN.load(Ordering::Relaxed),
        );
    }
    write_raw(
        2,
        MEMORY_TEXT.load(Ordering::Relaxed),
        MEMORY_TEXT_LEN.load(Ordering::Relaxed),
    );
    // SAFETY: ends the process at once, without unwinding or allocating.
    unsafe { libc::_exit(4) }
}

/// Marks that a search runs now: it polls its own budgets, so the
/// watchdog leaves the time limit to it.
pub fn searching() {
    PHASE.store(SEARCHING, Ordering::Relaxed);
}

/// The wall-clock budget of a whole run, whatever it does (loading,
/// compiling, derived runs, several seeded runs, baselines): when it is
/// spent, every poll of the process answers `time_limit`
/// (`engine::limits`), and if the run is still setting up a second later
/// (no search polls yet), the watchdog reports and ends the process.
/// Dropping the watchdog cancels it.
pub struct Watchdog {
    cancel: Arc<AtomicBool>,
}

impl Watchdog {
    /// Starts a watchdog for `time` from now (none without a time).
    pub fn start(time: Option<Duration>) -> Option<Watchdog> {
        let time = time?;
        let cancel = Arc::new(AtomicBool::new(false));
        let c = cancel.clone();
        let deadline = Instant::now() + time;
        let grace = deadline + Duration::from_secs(1);
        std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(move || loop {
                let now = Instant::now();
                if c.load(Ordering::Relaxed) {
                    return;
                }
                if now >= deadline {
                    crate::engine::limits::time_up();
                }
                if now >= grace {
                    if PHASE.load(Ordering::Relaxed) == SETTING_UP && !c.load(Ordering::Relaxed) {
                        if let Ok(g) = REPORT.lock() {
                            if let Some(r) = g.as_ref() {
                                use std::io::Write;
                                if JSON.load(Ordering::Relaxed) {
                                    let _ = std::io::stdout().write_all(&r.time_json);
                                    let _ = std::io::stdout().flush();
                                }
                                let _ = std::io::stderr().write_all(&r.time_text);
                                // SAFETY: ends the process at once.
                                unsafe { libc::_exit(4) }
                            }
                        }
                    }
                    return;
                }
                let next = if now < deadline { deadline } else { grace };
                std::thread::sleep((next - now).min(Duration::from_millis(50)));
            })
            .ok()?;
        Some(Watchdog { cancel })
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        crate::engine::limits::time_up_reset();
    }
}
