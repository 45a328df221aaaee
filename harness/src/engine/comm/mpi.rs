//! The ranks of an MPI job (`mpirun -np N dvemc explore --distributed`):
//! [`Comm`] over the world communicator, one MPI collective per operation.

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

use super::{Comm, Reduce};

/// The world communicator of an initialised MPI environment.
pub struct Mpi {
    world: SimpleCommunicator,
}

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
    Some((universe, Mpi { world }))
}

fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

impl Comm for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, out: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let me = self.rank();
        let counts: Vec<Count> = out
            .iter()
            .enumerate()
            .map(|(d, v)| {
                if d == me {
                    0
                } else {
                    Count::try_from(v.len()).expect("batch under 2 GiB")
                }
            })
            .collect();
        let mut got_counts = vec![0 as Count; out.len()];
        self.world.all_to_all_into(&counts[..], &mut got_counts[..]);
        let mut send: Vec<u8> = out
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != me)
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        let mut got = vec![0u8; got_counts.iter().map(|&c| c as usize).sum()];
        // An empty Vec<u8> points at address 1, which OpenMPI reads as
        // MPI_IN_PLACE: give both buffers a real allocation.
        send.reserve(1);
        got.reserve(1);
        {
            let sent = Partition::new(&send[..], &counts[..], displacements(&counts));
            let displs = displacements(&got_counts);
            let mut recv = PartitionMut::new(&mut got[..], &got_counts[..], displs);
            self.world.all_to_all_varcount_into(&sent, &mut recv);
        }
        let mut at = 0;
        got_counts
            .iter()
            .map(|&c| {
                let part = got[at..at + c as usize].to_vec();
                at += c as usize;
                part
            })
            .collect()
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
