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

use serde::{Deserialize, Serialize};

#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", parse_err_ty = String, parse_err_fn = unknown_result)]
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
    /// Every outcome, in the order of declaration.
    pub const ALL: &'static [Outcome] = <Outcome as strum::VariantArray>::VARIANTS;

    /// The name in records and rows (`result`).
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn is_complete(self) -> bool {
        self == Outcome::Complete
    }

    /// Ran to its end (exactly, or over a probabilistic store).
    pub fn ran_to_end(self) -> bool {
        matches!(self, Outcome::Complete | Outcome::Probabilistic)
    }
}

fn unknown_result(s: &str) -> String {
    format!("unknown result `{s}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names parse back, are the JSON's, and an unknown one is named.
    #[test]
    fn names_parse_back_and_are_the_records() {
        assert_eq!(Outcome::ALL.len(), 8);
        for &o in Outcome::ALL {
            assert_eq!(o.name().parse::<Outcome>(), Ok(o));
            assert_eq!(serde_json::to_value(o).unwrap(), o.name());
        }
        assert_eq!(Outcome::CacheFull.to_string(), "cache_full");
        assert_eq!(
            "done".parse::<Outcome>(),
            Err("unknown result `done`".to_string())
        );
    }
}
