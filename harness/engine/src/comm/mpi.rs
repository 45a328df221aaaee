//! The ranks of an MPI job (`mpirun -np N dvemc explore --distributed`):
//! [`Comm`] over the world communicator: the batches by non-blocking
//! point-to-point sends, the rest one MPI collective per operation.

use std::collections::VecDeque;
use std::sync::Mutex;

use mpi::collective::SystemOperation;
use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Tag;

use super::{Comm, Reduce};

/// The world communicator of an initialised MPI environment, and the
/// sends under way.
pub struct Mpi {
    world: SimpleCommunicator,
    flights: Mutex<VecDeque<Flight>>,
}

/// One send under way: its batches and their requests.
struct Flight {
    batches: Vec<Vec<u8>>,
    requests: Vec<Request<'static, [u8]>>,
}

/// The tag of the batches (the collectives do not use tags).
const BATCH_TAG: Tag = 48;

// SAFETY: MPI is initialised with `Threading::Serialized` (see
// `initialize`) and the search makes its collective calls from one thread
// at a time; the handle itself is a plain value.
unsafe impl Send for Mpi {}
unsafe impl Sync for Mpi {}

pub use mpi::environment::Universe;

/// Initialises MPI; `None` if it was initialised already. The universe
/// finalises MPI when dropped, so it must outlive every [`Mpi`]. A panic
/// on any rank from now on aborts the whole job (the other ranks would
/// otherwise wait for it in their next collective).
pub fn initialize() -> Option<(Universe, Mpi)> {
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Serialized)?;
    let world = universe.world();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        hook(info);
        SimpleCommunicator::world().abort(70);
    }));
    Some((
        universe,
        Mpi {
            world,
            flights: Mutex::new(VecDeque::new()),
        },
    ))
}

impl Mpi {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Flight>> {
        self.flights.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Comm for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn send(&self, mut out: Vec<Vec<u8>>) {
        let me = self.rank();
        let mut requests = Vec::with_capacity(out.len());
        for (d, v) in out.iter_mut().enumerate() {
            if d == me {
                continue;
            }
            // A Vec<u8> never allocated points at address 1, which OpenMPI
            // reads as MPI_IN_PLACE: give it a real allocation.
            if v.capacity() == 0 {
                v.reserve(1);
            }
            // SAFETY: the batch's heap buffer is neither freed, moved nor
            // written until its request completes: the Vec that owns it is
            // held with the request (`Flight`) and handed back only by
            // `reclaim`, after the wait.
            let data: &'static [u8] = unsafe { std::slice::from_raw_parts(v.as_ptr(), v.len()) };
            let to = self.world.process_at_rank(d as i32);
            requests.push(to.immediate_send_with_tag(StaticScope, data, BATCH_TAG));
        }
        self.lock().push_back(Flight {
            batches: out,
            requests,
        });
    }

    fn receive(&self, inbox: &mut [Vec<u8>]) {
        let me = self.rank();
        for (s, slot) in inbox.iter_mut().enumerate() {
            slot.clear();
            if s == me {
                continue;
            }
            let (msg, status) = self
                .world
                .process_at_rank(s as i32)
                .matched_probe_with_tag(BATCH_TAG);
            let len = status.count(u8::equivalent_datatype()) as usize;
            // Exactly what arrived (the budget counts it), allocated in
            // any case (see `send`).
            slot.reserve_exact(len.max(1));
            slot.resize(len, 0);
            msg.matched_receive_into(&mut slot[..]);
        }
    }

    fn reclaim(&self, wait: bool) -> Option<Vec<Vec<u8>>> {
        let mut flights = self.lock();
        let f = flights.front_mut()?;
        if !wait {
            // `test` hands the request back while it is under way.
            let mut left = Vec::new();
            for r in f.requests.drain(..) {
                if let Err(r) = r.test() {
                    left.push(r);
                }
            }
            f.requests = left;
            if !f.requests.is_empty() {
                return None;
            }
        }
        let f = flights.pop_front().expect("a flight");
        for r in f.requests {
            r.wait_without_status();
        }
        Some(f.batches)
    }

    fn reduce(&self, v: &[u64], op: Reduce) -> Vec<u64> {
        let mut out = vec![0u64; v.len()];
        match op {
            Reduce::Sum => self
                .world
                .all_reduce_into(v, &mut out[..], SystemOperation::sum()),
            Reduce::Max => self
                .world
                .all_reduce_into(v, &mut out[..], SystemOperation::max()),
        }
        out
    }

    fn broadcast(&self, root: usize, mut data: Vec<u8>) -> Vec<u8> {
        let root = self.world.process_at_rank(root as i32);
        let mut len = data.len() as u64;
        root.broadcast_into(&mut len);
        data.resize(len as usize, 0);
        data.reserve(1);
        root.broadcast_into(&mut data[..]);
        data
    }

    fn gather(&self, v: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; v.len() * self.size()];
        self.world.all_gather_into(v, &mut out[..]);
        out
    }
}
