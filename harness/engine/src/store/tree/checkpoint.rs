//! The tree store in a checkpoint ([`crate::checkpoint`]).

use super::pair_table::*;
use super::shape::*;
use super::TreeStore;
use crate::checkpoint::{Loader, Saver};

/// Checkpoints ([`crate::checkpoint`]): the leaf order and every table,
/// index included (rebuilding the indices would cost a pass over every
/// pair); the remembered trees and the memo start empty (they are exact
/// whatever they hold).
impl TreeStore {
    /// The words in the tree's leaf order.
    pub(crate) fn leaves(&self) -> Vec<usize> {
        leaves_under(&self.nodes, Child::Node(self.nodes.len() - 1))
    }

    pub(crate) fn save(&self, w: &mut Saver) -> crate::checkpoint::Result<()> {
        w.u64(self.state_len as u64)?;
        w.u64s(&self.leaves().iter().map(|&l| l as u64).collect::<Vec<_>>())?;
        for t in &self.tables {
            w.u64(t.len as u64)?;
            w.u64(t.bits as u64)?;
            w.u32s(&t.index)?;
            w.u64(t.chunks.len() as u64)?;
            for c in &t.chunks {
                w.u64(c.wl as u64)?;
                w.u64(c.wr as u64)?;
                w.u64(c.len as u64)?;
                w.u64(c.cap as u64)?;
                w.bytes(&c.bytes)?;
            }
        }
        Ok(())
    }

    /// The store `save` wrote, for states of `state_len` bytes.
    pub(crate) fn load(r: &mut Loader, state_len: usize) -> crate::checkpoint::Result<TreeStore> {
        let damaged = |what: &str| crate::checkpoint::CheckpointError::damaged(what);
        if r.u64()? != state_len as u64 {
            return Err(damaged("another state length"));
        }
        let leaves: Vec<usize> = r.u64s()?.into_iter().map(|l| l as usize).collect();
        let mut sorted = leaves.clone();
        sorted.sort_unstable();
        if !sorted.iter().copied().eq(0..TreeStore::words_for(state_len)) {
            return Err(damaged("a leaf order"));
        }
        let mut store = TreeStore::with_leaves(state_len, &leaves);
        for t in store.tables.iter_mut() {
            t.len = r.below(u32::MAX as u64, "a table's length")? as usize;
            t.bits = r.below(33, "a table's bits")? as u32;
            t.index = r.u32s()?;
            if t.index.len() < MIN_INDEX || t.len > t.index.len() || index_bits(t.index.len()) != t.bits {
                return Err(damaged("a table's index"));
            }
            let chunks = r.below(1 << 32, "a table's chunks")? as usize;
            t.chunks = Vec::with_capacity(chunks);
            for _ in 0..chunks {
                let wl = r.below(33, "a chunk's width")? as u32;
                let wr = r.below(33, "a chunk's width")? as u32;
                let len = r.below(CHUNK as u64 + 1, "a chunk's length")? as usize;
                let cap = r.below(CHUNK as u64 + 1, "a chunk's size")? as usize;
                let bytes = r.bytes()?;
                if len > cap || bytes.len() != Packed::size(cap, wl + wr) {
                    return Err(damaged("a chunk"));
                }
                t.chunks.push(Packed {
                    wl,
                    wr,
                    len,
                    cap,
                    bytes,
                });
            }
            let full = t.chunks.len().saturating_sub(1) * CHUNK + t.chunks.last().map_or(0, |c| c.len);
            if full != t.len || t.chunks.iter().rev().skip(1).any(|c| c.len != CHUNK) {
                return Err(damaged("a table's chunks"));
            }
            t.alloc = t.chunks.iter().map(|c| c.bytes.len()).sum::<usize>() + t.index.len() * 4;
            t.growth = t.next_growth();
        }
        store.bytes = store.tables.iter().map(PairTable::bytes).sum();
        store.growth = store.tables.iter().map(PairTable::growth_bytes).sum();
        Ok(store)
    }
}
