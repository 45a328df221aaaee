//! The threads of a level-synchronous parallel search other than the
//! calling one, kept from level to level (see `loops::parallel`).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::ScopedJoinHandle;

/// Waits of a thread between levels that spin before it parks.
const SPINS: u32 = 1 << 12;

/// The threads of a search other than the calling one (`1..threads`),
/// kept from level to level: each waits for the next level (spinning, then
/// parked), expands its share of it and says it is done.
pub(crate) struct Pool<T> {
    /// Levels started (a thread works once per increment).
    epoch: AtomicU64,
    /// Threads done with the current level.
    done: AtomicUsize,
    quit: AtomicBool,
    /// Per thread (index `q`), its counters of the last level.
    tallies: Vec<Mutex<T>>,
    /// Per thread, the bytes of its buffers.
    pub(crate) bytes: Vec<AtomicUsize>,
    /// Waits that spin before parking or yielding: none with more threads
    /// than cores (a spinning thread would take a working one's core).
    spins: u32,
}

impl<T: Default> Pool<T> {
    pub(crate) fn new(threads: usize) -> Pool<T> {
        Pool {
            epoch: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            quit: AtomicBool::new(false),
            tallies: (0..threads).map(|_| Mutex::new(T::default())).collect(),
            bytes: (0..threads).map(|_| AtomicUsize::new(0)).collect(),
            spins: if threads <= std::thread::available_parallelism().map_or(1, |n| n.get()) {
                SPINS
            } else {
                0
            },
        }
    }

    /// Thread `q`'s life: at each new epoch, `work` (its share of the
    /// level: its counters and the bytes of its buffers after it), until
    /// [`Close`].
    pub(crate) fn serve(&self, q: usize, mut work: impl FnMut() -> (T, usize)) {
        let mut seen = 0;
        loop {
            let mut spins = 0;
            loop {
                if self.quit.load(Ordering::Acquire) {
                    return;
                }
                let e = self.epoch.load(Ordering::Acquire);
                if e != seen {
                    seen = e;
                    break;
                }
                spins += 1;
                if spins < self.spins {
                    std::hint::spin_loop();
                } else {
                    // `level` unparks every thread after a new epoch.
                    std::thread::park();
                }
            }
            let (t, bytes) = work();
            *self.tallies[q].lock().unwrap_or_else(|e| e.into_inner()) = t;
            self.bytes[q].store(bytes, Ordering::Relaxed);
            self.done.fetch_add(1, Ordering::Release);
        }
    }

    /// Starts a level on every thread, the calling one (thread 0) doing
    /// `mine`; each thread's counters.
    pub(crate) fn level(&self, workers: &[ScopedJoinHandle<'_, ()>], mine: impl FnOnce() -> T) -> Vec<T> {
        self.done.store(0, Ordering::Relaxed);
        self.epoch.fetch_add(1, Ordering::Release);
        for h in workers {
            h.thread().unpark();
        }
        let mut tallies = vec![mine()];
        let mut spins = 0u32;
        while self.done.load(Ordering::Acquire) < workers.len() {
            // A thread that ended (panicked) never says it is done: the
            // scope's join passes its panic on.
            assert!(
                !workers.iter().any(|h| h.is_finished()),
                "a thread of the parallel search stopped"
            );
            spins += 1;
            if spins < self.spins {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        for q in 1..=workers.len() {
            tallies.push(std::mem::take(
                &mut *self.tallies[q].lock().unwrap_or_else(|e| e.into_inner()),
            ));
        }
        tallies
    }

    /// Bytes of the threads' buffers (after a level).
    pub(crate) fn buffer_bytes(&self) -> usize {
        self.bytes.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }
}

/// Ends a pool's threads when dropped.
pub(crate) struct Close<'p, T>(pub(crate) &'p Pool<T>, pub(crate) Vec<std::thread::Thread>);

impl<T> Drop for Close<'_, T> {
    fn drop(&mut self) {
        self.0.quit.store(true, Ordering::Release);
        for t in &self.1 {
            t.unpark();
        }
    }
}
