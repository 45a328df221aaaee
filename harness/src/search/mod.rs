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
//! Algorithms (`crate::caching`, `crate::dbdfs`, `crate::bbmc`,
//! `crate::random_search`, `crate::check`) configure these pieces and hold
//! only what is their own; every run ends with one [`Outcome`].

pub mod bfs;
pub mod bitstate_store;
pub mod checkpoint;
pub mod compact_store;
pub mod dfs;
pub mod frontier;
pub mod leaf_order;
pub mod limits;
pub mod observer;
pub mod outcome;
pub mod parallel;
pub mod parallel_dfs;
pub mod progress;
pub mod recent_states;
mod recent_subtrees;
pub mod root_set;
pub mod root_tiers;
pub mod shared_store;
pub mod shared_tree_store;
pub mod store;
pub mod trace;
pub mod tree_bfs;
pub mod tree_store;

pub use bfs::{bfs, Bfs, BfsOptions, LevelStats};
pub use bitstate_store::BitstateStore;
pub use compact_store::CompactStore;
pub use dfs::{dfs, Dfs, DfsOptions, DfsStats, Root};
pub use limits::{interrupt, peak_rss_bytes, process_cpu_seconds, visit, Budget, Limits, POLL_MASK};
pub use observer::{Control, Cx, Nothing, Observer, NO_SUCC};
pub use outcome::Outcome;
pub use store::{Insert, StateStore, Store, StoreKind};
pub use trace::{Step, Trace};
pub use tree_store::TreeStore;
