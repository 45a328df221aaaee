//! Ranks that are threads of one process: [`run`] starts `n` of them, each
//! with its own [`Local`] end of the same hub. The tests of the distributed
//! search use it, so the default build (no MPI) checks the loop itself.

use std::collections::VecDeque;
use std::sync::{Arc, Barrier, Condvar, Mutex};

use super::{Comm, Reduce};

/// What the threads share: one queue of batches per (source,
/// destination) pair, signalled by `arrived`; one slot per rank for
/// reductions and one for broadcasts, between two barriers.
struct Hub {
    size: usize,
    barrier: Barrier,
    mail: Mutex<Vec<Vec<VecDeque<Vec<u8>>>>>,
    arrived: Condvar,
    slots: Mutex<Vec<Vec<u64>>>,
    broadcast: Mutex<Vec<u8>>,
}

/// One rank's end of the hub.
pub struct Local {
    rank: usize,
    hub: Arc<Hub>,
    /// This rank's sends not reclaimed yet (their batches were copied).
    sent: Mutex<VecDeque<Vec<Vec<u8>>>>,
}

/// Runs `f` on `n` ranks, each a thread, and returns their results in rank
/// order.
pub fn run<T: Send>(n: usize, f: impl Fn(Local) -> T + Sync) -> Vec<T> {
    assert!(n > 0, "at least one rank");
    let hub = Arc::new(Hub {
        size: n,
        barrier: Barrier::new(n),
        mail: Mutex::new(vec![vec![VecDeque::new(); n]; n]),
        arrived: Condvar::new(),
        slots: Mutex::new(vec![Vec::new(); n]),
        broadcast: Mutex::new(Vec::new()),
    });
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|rank| {
                let (hub, f) = (hub.clone(), &f);
                s.spawn(move || {
                    f(Local {
                        rank,
                        hub,
                        sent: Mutex::new(VecDeque::new()),
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

impl Local {
    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every rank puts its slot, then every rank reads all of them.
    fn all_slots(&self, v: &[u64]) -> Vec<Vec<u64>> {
        Self::lock(&self.hub.slots)[self.rank] = v.to_vec();
        self.hub.barrier.wait();
        let all = Self::lock(&self.hub.slots).clone();
        // Nobody writes the next round's slot before everyone has read.
        self.hub.barrier.wait();
        all
    }
}

impl Comm for Local {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.hub.size
    }

    fn send(&self, out: Vec<Vec<u8>>) {
        {
            let mut mail = Self::lock(&self.hub.mail);
            for (d, data) in out.iter().enumerate() {
                if d != self.rank {
                    mail[self.rank][d].push_back(data.clone());
                }
            }
        }
        self.hub.arrived.notify_all();
        Self::lock(&self.sent).push_back(out);
    }

    fn receive(&self, inbox: &mut [Vec<u8>]) {
        let mut mail = Self::lock(&self.hub.mail);
        for (src, slot) in inbox.iter_mut().enumerate() {
            slot.clear();
            if src == self.rank {
                continue;
            }
            loop {
                if let Some(data) = mail[src][self.rank].pop_front() {
                    *slot = data;
                    break;
                }
                mail = self.hub.arrived.wait(mail).unwrap_or_else(|e| e.into_inner());
            }
        }
    }

    fn reclaim(&self, _wait: bool) -> Option<Vec<Vec<u8>>> {
        Self::lock(&self.sent).pop_front()
    }

    fn reduce(&self, v: &[u64], op: Reduce) -> Vec<u64> {
        let all = self.all_slots(v);
        (0..v.len())
            .map(|i| {
                let it = all.iter().map(|r| r[i]);
                match op {
                    Reduce::Sum => it.sum(),
                    Reduce::Max => it.max().unwrap_or(0),
                }
            })
            .collect()
    }

    fn broadcast(&self, root: usize, data: Vec<u8>) -> Vec<u8> {
        if self.rank == root {
            *Self::lock(&self.hub.broadcast) = data;
        }
        self.hub.barrier.wait();
        let got = Self::lock(&self.hub.broadcast).clone();
        self.hub.barrier.wait();
        got
    }

    fn gather(&self, v: &[u64]) -> Vec<u64> {
        self.all_slots(v).concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collectives_on_three_ranks() {
        let out = run(3, |c| {
            let r = c.rank() as u8;
            // Two sends in flight before the first is received: they
            // arrive in order.
            for k in 0..2 {
                c.send((0..3).map(|d| vec![r * 10 + d as u8 + k]).collect());
            }
            let mut got = vec![Vec::new(); 3];
            c.receive(&mut got);
            let mut second = vec![Vec::new(); 3];
            c.receive(&mut second);
            let second: Vec<Vec<u8>> = second.iter().map(|v| v.iter().map(|x| x - 1).collect()).collect();
            assert_eq!(second, got, "the second send arrives second");
            assert_eq!(c.reclaim(true).map(|b| b[0][0]), Some(r * 10));
            assert!(c.reclaim(true).is_some() && c.reclaim(false).is_none());
            let sum = c.reduce(&[c.rank() as u64, 1], Reduce::Sum);
            let max = c.reduce(&[c.rank() as u64], Reduce::Max);
            let b = c.broadcast(2, if c.rank() == 2 { vec![7, 8] } else { Vec::new() });
            (got, sum, max, b, c.gather(&[c.rank() as u64 * 2]))
        });
        for (rank, (got, sum, max, b, g)) in out.into_iter().enumerate() {
            let want: Vec<Vec<u8>> = (0..3u8)
                .map(|s| {
                    if s as usize == rank {
                        vec![]
                    } else {
                        vec![s * 10 + rank as u8]
                    }
                })
                .collect();
            assert_eq!(got, want);
            assert_eq!(sum, vec![3, 3]);
            assert_eq!(max, vec![2]);
            assert_eq!(b, vec![7, 8]);
            assert_eq!(g, vec![0, 2, 4]);
        }
    }
}
