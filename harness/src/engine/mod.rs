//! The search engine: the one core every exploration goes through.
//!
//! A search is a model ([`NextState`](dve_frontend::model::NextState), the
//! boundary), a [`Store`] of visited states (exact, or tree-compressed:
//! [`TreeStore`]), an order (the fast
//! breadth-first [`bfs`] and depth-first [`dfs`] loops, or the open sets of
//! [`frontier`] — stack, queue, BBFS(w), Alt(b, d), the sweep-line's
//! priority queue — for the general state exploring algorithm of the
//! caching paper), an [`Observer`] that turns it into a check or an algorithm's
//! bookkeeping, and a [`Budget`] checked in one place (states, memory, wall
//! time, interruption) that also feeds the live progress line.
//!
//! Algorithms (`crate::algo::caching`, `crate::algo::dbdfs`, `crate::algo::bbmc`,
//! `crate::algo::random`, `crate::algo::check`) configure these pieces and hold
//! only what is their own; every run ends with one [`Outcome`].
//!
//! Uses: nothing of the crate above it; models only through
//! `dve_frontend::model`.

pub mod checkpoint;
pub mod comm;
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
