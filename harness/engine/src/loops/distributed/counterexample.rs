//! The counterexample of a distributed search, rebuilt across ranks: the
//! rank holding a state broadcasts it with its parent's rank and id.

use crate::loops::parallel::Watch;
use crate::loops::parent_links::{parent_link, read_link, PARENT_BYTES};
use crate::store::Store;
use crate::trace::{walk_back, Back, Step, Trace};

use super::{Rank, ROOT};

impl<S: Store, W: Watch> Rank<'_, S, W> {
    /// The counterexample of the violation `key` (every rank takes part).
    pub(super) fn trace(&mut self, key: u64) -> (u8, Trace) {
        let winner = (key % self.n as u64) as usize;
        let len = self.model.state_len();
        let mut msg = Vec::new();
        if self.me == winner {
            let f = self.found.as_ref().expect("the winner's violation");
            msg.push(f.kind);
            msg.extend_from_slice(&f.id.to_le_bytes());
            if let Some((e, s)) = &f.last {
                msg.extend_from_slice(&parent_link(f.id, *e));
                msg.extend_from_slice(s);
            }
        }
        let msg = self.comm.broadcast(winner, msg);
        let kind = msg[0];
        let last = (msg.len() > 5).then(|| Step::new(read_link(&msg[5..]).1, &msg[5 + PARENT_BYTES..]));
        let at = (winner, u32::from_le_bytes(msg[1..5].try_into().expect("4 bytes")));
        let mut scratch = Vec::new();
        // Each link is the holder's, broadcast to every rank.
        let (initial, mut steps) = walk_back(at, |(holder, id)| {
            let mut msg = Vec::new();
            if self.me == holder {
                msg.extend_from_slice(self.store.state(id, &mut scratch));
                let (rank, link) = self.parents[id as usize];
                msg.extend_from_slice(&rank.to_le_bytes());
                msg.extend_from_slice(&link);
            }
            let msg = self.comm.broadcast(holder, msg);
            let rank = u32::from_le_bytes(msg[len..len + 4].try_into().expect("4 bytes"));
            if rank == ROOT {
                return Back::Initial(msg[..len].to_vec());
            }
            let (parent, e) = read_link(&msg[len + 4..]);
            Back::Parent((rank as usize, parent), Step::new(e, &msg[..len]))
        });
        steps.extend(last);
        (kind, Trace::path(initial, steps))
    }
}
