//! The header in front of every batch a rank sends: what the ranks agree
//! on after each exchange without a reduction of their own.

use crate::outcome::Outcome;

/// Numbers in the header of every batch.
pub(super) const HEAD: usize = 9;
pub(super) const HEAD_BYTES: usize = HEAD * 8;

/// Every rank's header of a round, combined: what the ranks agree on
/// without a reduction of their own. Taken when the round was sent, before
/// the round before it was stored, so `states` lags by up to two rounds.
#[derive(Clone, Copy, Default)]
pub(super) struct Heads {
    /// A rank has states of the level left.
    pub(super) left: bool,
    /// The strongest stop ([`stop_code`]).
    pub(super) stop: u64,
    /// `u64::MAX` minus the least violation key, 0 for none.
    pub(super) key: u64,
    pub(super) states: u64,
    pub(super) transitions: u64,
    /// States of the current level.
    pub(super) level_states: u64,
    /// Edges and back-level edges of the level before.
    pub(super) prev_edges: u64,
    pub(super) prev_back: u64,
    /// A rank's store will grow soon ([`Rank::grow_ahead`]).
    pub(super) grow: bool,
}

impl Heads {
    pub(super) fn of(h: &[u64; HEAD]) -> Heads {
        Heads {
            left: h[0] > 0,
            stop: h[1],
            key: h[2],
            states: h[3],
            transitions: h[4],
            level_states: h[5],
            prev_edges: h[6],
            prev_back: h[7],
            grow: h[8] > 0,
        }
    }

    pub(super) fn add(&mut self, o: &Heads) {
        self.left |= o.left;
        self.stop = self.stop.max(o.stop);
        self.key = self.key.max(o.key);
        self.states += o.states;
        self.transitions += o.transitions;
        self.level_states += o.level_states;
        self.prev_edges += o.prev_edges;
        self.prev_back += o.prev_back;
        self.grow |= o.grow;
    }
}

/// A stop's code in the headers; the ranks take the largest. Memory is the
/// strongest: a rank stopped for memory dropped states, so the run must
/// not end as one a checkpoint goes on from.
pub(super) fn stop_code(o: Option<Outcome>) -> u64 {
    match o {
        None => 0,
        Some(Outcome::StateLimit) => 1,
        Some(Outcome::TimeLimit) => 2,
        Some(Outcome::MemoryLimit) => 4,
        Some(_) => 3,
    }
}

pub(super) fn outcome_of(code: u64) -> Outcome {
    match code {
        0 => Outcome::Complete,
        1 => Outcome::StateLimit,
        2 => Outcome::TimeLimit,
        3 => Outcome::Interrupted,
        _ => Outcome::MemoryLimit,
    }
}
