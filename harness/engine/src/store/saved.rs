//! Stores in a checkpoint ([`crate::checkpoint`]): what a search
//! that goes on from one needs of its store, ids included (a breadth-first
//! search's queue is its ids).

use super::tree::TreeStore;
use super::{StateStore, Store, MIN_TABLE};
use crate::checkpoint::{Loader, Saver};

/// A store that a checkpoint can hold.
pub trait Saved: Store + Sized {
    /// Which store it is, in the checkpoint (another is refused).
    const KIND: u64;
    fn save(&self, w: &mut Saver) -> crate::checkpoint::Result<()>;
    /// The store `save` wrote, for states of `state_len` bytes.
    fn load(r: &mut Loader, state_len: usize) -> crate::checkpoint::Result<Self>;
}

/// The arena and the index as they are (rebuilding the index would
/// fingerprint every state again).
impl Saved for StateStore {
    const KIND: u64 = 0;

    fn save(&self, w: &mut Saver) -> crate::checkpoint::Result<()> {
        w.u64(self.state_len as u64)?;
        w.u64(self.len as u64)?;
        w.u64s(&self.table)?;
        w.u64(self.chunks.len() as u64)?;
        for c in &self.chunks {
            w.bytes(c)?;
        }
        Ok(())
    }

    fn load(r: &mut Loader, state_len: usize) -> crate::checkpoint::Result<StateStore> {
        let damaged = |what: &str| crate::checkpoint::CheckpointError::damaged(what);
        if r.u64()? != state_len as u64 {
            return Err(damaged("another state length"));
        }
        let mut s = StateStore::new(state_len);
        s.len = r.below(super::MAX_STATES as u64 + 1, "the store's length")? as usize;
        s.table = r.u64s()?;
        let slots = s.table.len();
        if slots < MIN_TABLE || !slots.is_power_of_two() || s.len * 10 > slots * 7 {
            return Err(damaged("the store's index"));
        }
        s.table_bits = slots.trailing_zeros();
        let chunks = r.below(1 << 32, "the store's chunks")? as usize;
        let per = s.chunk_bytes();
        for i in 0..chunks {
            let c = r.bytes()?;
            let full = i + 1 < chunks;
            if c.len() % state_len.max(1) != 0 || c.len() > per || (full && c.len() != per) {
                return Err(damaged("the store's chunks"));
            }
            let mut chunk = Vec::with_capacity(if full { per } else { c.capacity() });
            chunk.extend_from_slice(&c);
            s.chunks.push(chunk);
        }
        let held: usize = s.chunks.iter().map(Vec::len).sum();
        if held != s.len * state_len || s.table.iter().any(|&e| e != 0 && (e as u32) as usize > s.len) {
            return Err(damaged("the store's states"));
        }
        Ok(s)
    }
}

impl Saved for TreeStore {
    const KIND: u64 = 1;

    fn save(&self, w: &mut Saver) -> crate::checkpoint::Result<()> {
        TreeStore::save(self, w)
    }

    fn load(r: &mut Loader, state_len: usize) -> crate::checkpoint::Result<TreeStore> {
        TreeStore::load(r, state_len)
    }
}
