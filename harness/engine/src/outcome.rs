//! How a search ended: one vocabulary for every strategy.
//!
//! `result` in the JSON of `dvemc explore` and in benchmark rows is one of
//! these names (documented in `results/SCHEMA.md`):
//!
//! | name | meaning |
//! |---|---|
//! | `complete` | the algorithm ran to its own end: every reachable state explored (exhaustive searches), a property decided (a violation found, or none in the whole state space), the last depth bound done (dbdfs), the slices built (highway, bbmc), the step bound or the memory `N` reached (randomized searches) |
//! | `state_limit` | `--max-states`: one more state would have been stored |
//! | `time_limit` | `--time-limit`: the wall-clock budget ran out |
//! | `memory_limit` | `--memory-limit`: the store and search structures would have grown past it |
//! | `visit_limit` | `--max-visits F`: more than `F·|S|` visits (the state-caching paper's "out of time") |
//! | `cache_full` | the state-caching paper's "out of memory": the cache cannot hold the TD-tree, no state can be deleted |
//! | `interrupted` | SIGINT or SIGTERM |
//! | `probabilistic` | ran to its end over a probabilistic store: states may have been omitted |
//!
//! Every value but `complete` means the search stopped early; the counters
//! are those reached.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    #[default]
    Complete,
    StateLimit,
    TimeLimit,
    MemoryLimit,
    VisitLimit,
    CacheFull,
    Interrupted,
    /// The search ran to its end over a probabilistic store (hash
    /// compaction): states may have been omitted.
    Probabilistic,
}

impl Outcome {
    pub const ALL: [Outcome; 8] = [
        Outcome::Complete,
        Outcome::StateLimit,
        Outcome::TimeLimit,
        Outcome::MemoryLimit,
        Outcome::VisitLimit,
        Outcome::CacheFull,
        Outcome::Interrupted,
        Outcome::Probabilistic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Complete => "complete",
            Outcome::StateLimit => "state_limit",
            Outcome::TimeLimit => "time_limit",
            Outcome::MemoryLimit => "memory_limit",
            Outcome::VisitLimit => "visit_limit",
            Outcome::CacheFull => "cache_full",
            Outcome::Interrupted => "interrupted",
            Outcome::Probabilistic => "probabilistic",
        }
    }

    pub fn is_complete(self) -> bool {
        self == Outcome::Complete
    }

    /// Ran to its end (exactly, or over a probabilistic store).
    pub fn ran_to_end(self) -> bool {
        matches!(self, Outcome::Complete | Outcome::Probabilistic)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Outcome {
    type Err = String;
    fn from_str(s: &str) -> Result<Outcome, String> {
        Outcome::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown result `{s}`"))
    }
}
