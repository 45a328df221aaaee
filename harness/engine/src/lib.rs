#![doc = include_str!("../README.md")]

pub mod checkpoint;
pub mod comm;
pub mod counters;
pub mod frontier;
pub mod guard;
pub mod limits;
pub mod loops;
pub mod names;
pub mod observer;
pub mod outcome;
pub mod process;
pub mod progress;
pub mod reduce;
pub mod rng;
pub mod store;
pub mod trace;
pub mod units;

pub use counters::Counters;
pub use limits::{interrupt, visit, Budget, Limits, POLL_MASK};
pub use loops::bfs::{bfs, Bfs, BfsOptions, LevelStats};
pub use loops::dfs::{dfs, Dfs, DfsOptions, DfsStats, Root};
pub use observer::{Control, Cx, Nothing, Observer, NO_SUCC};
pub use outcome::Outcome;
pub use process::{peak_rss_bytes, process_cpu_seconds};
pub use reduce::{Proviso, Reduce};
pub use store::bitstate::BitstateStore;
pub use store::compact::CompactStore;
pub use store::tree::TreeStore;
pub use store::{Insert, StateStore, Store, StoreKind};
pub use trace::{Step, Trace};
