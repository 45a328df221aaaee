//! The counters every search reports, whatever its order or store: how it
//! ended and what it reached. Each loop's report embeds one [`Counters`],
//! so that a report is read, summed and written to a record the same way
//! everywhere.

use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// How the search ended.
    pub result: Outcome,
    /// States in the store at the end.
    pub states: u64,
    /// Successor entries computed by expansions (duplicates, self-loops and
    /// erroneous ones included: BEEM's edges).
    pub transitions: u64,
    /// Expanded states without successors.
    pub deadlocks: u64,
    /// Successor entries raising a run-time error.
    pub error_transitions: u64,
}
