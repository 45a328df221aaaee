//! How the ranks of a distributed search talk: the few collective
//! operations the distributed loop (`engine::loops::distributed`) needs,
//! behind one trait, so that the loop is the same over MPI ([`mpi`], the
//! cargo feature `mpi`) and over ranks that are threads of one process
//! ([`local`], which the default build tests it with).
//!
//! Every operation but [`Comm::send`], [`Comm::receive`] and
//! [`Comm::reclaim`] is collective: every rank calls it, in the same order.

pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi;

/// An element-wise reduction over the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Max,
}

/// The ranks of a distributed search, seen from one of them.
///
/// The batches of states travel by [`send`](Comm::send) and
/// [`receive`](Comm::receive), which do not wait for each other: a rank
/// sends a round's batches and goes on expanding while they travel.
/// Every rank sends as many times as it receives, and as many times as
/// every other rank; a rank's sends reach each other rank in order.
pub trait Comm: Send + Sync {
    /// This rank, `0..size()`.
    fn rank(&self) -> usize;
    /// How many ranks there are.
    fn size(&self) -> usize;
    /// Starts sending `out[d]` to every other rank `d` (`out[rank()]` is
    /// not sent) and returns without waiting; the buffers stay here until
    /// [`reclaim`](Comm::reclaim) gives them back.
    fn send(&self, out: Vec<Vec<u8>>);
    /// Waits for the oldest send of every other rank `s` not received yet,
    /// and puts it in `inbox[s]` (`inbox[rank()]` is left empty).
    fn receive(&self, inbox: &mut [Vec<u8>]);
    /// The buffers of this rank's oldest send still held, once every rank
    /// has received it: waiting for that with `wait`, else only if it is
    /// so already. `None` when none is held. Every send is reclaimed
    /// before the rank ends.
    fn reclaim(&self, wait: bool) -> Option<Vec<Vec<u8>>>;
    /// `v` reduced element-wise over every rank, on every rank.
    fn reduce(&self, v: &[u64], op: Reduce) -> Vec<u64>;
    /// `data` as rank `root` gave it, on every rank.
    fn broadcast(&self, root: usize, data: Vec<u8>) -> Vec<u8>;
    /// Every rank's `v` (all of one length), in rank order, on every rank.
    fn gather(&self, v: &[u64]) -> Vec<u64>;
}

/// The ranks of a distributed run, as a request carries them.
#[derive(Clone)]
pub struct Cluster(pub std::sync::Arc<dyn Comm>, pub Partitioning);

/// How a distributed search spreads the states over the ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, strum::EnumString, strum::VariantNames)]
#[strum(serialize_all = "lowercase", parse_err_ty = String, parse_err_fn = unknown_partitioning)]
pub enum Partitioning {
    /// By a hash of the whole state: even, and most successors move.
    #[default]
    Whole,
    /// By a hash of the bytes most transitions leave alone, chosen from a
    /// sample: most successors stay, the spread is only as even as the
    /// sample foretells.
    Local,
}

fn unknown_partitioning(s: &str) -> String {
    use strum::VariantNames;
    format!(
        "--partition {s}: {}",
        crate::names::either(Partitioning::VARIANTS)
    )
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cluster(rank {} of {})", self.0.rank(), self.0.size())
    }
}

/// The rank that owns a state of fingerprint `fp` among `ranks`: from the
/// fingerprint's low 32 bits, which the stores' tables do not index by
/// (they use the high ones), so that every rank's table stays uniform.
#[inline]
pub fn owner(fp: u64, ranks: usize) -> usize {
    (((fp & 0xffff_ffff) * ranks as u64) >> 32) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_in_range_and_spread() {
        for ranks in 1..=5 {
            let mut count = vec![0u32; ranks];
            for i in 0..10_000u64 {
                let fp = dve_frontend::model::fingerprint::reference(&i.to_le_bytes());
                count[owner(fp, ranks)] += 1;
            }
            let even = 10_000 / ranks as u32;
            assert!(
                count.iter().all(|&c| c > even * 9 / 10),
                "{ranks} ranks: {count:?}"
            );
        }
    }
}
