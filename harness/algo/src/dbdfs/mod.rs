//! Iterative depth-bounded depth-first search, after Udupa, Desai and
//! Rajamani, "Depth Bounded Explicit-State Model Checking" (SPIN 2011;
//! `../shared/papers/depth-bounded-dfs-udupa-desai-rajamani.md`).
//!
//! The outer loop is the paper's Fig. 2 (`IterBoundedDfs`): starting from the
//! frontier `{initial state}`, run a bounded DFS from every frontier state with
//! the bound `inc`, `2 inc`, ... up to the depth cutoff; the states reached
//! exactly at the bound form the next frontier. It stops when a frontier is
//! empty (every reachable state has been explored: the paper's `true`) or
//! after the iteration whose bound is the cutoff. Depths are absolute (from
//! the initial state). When the increment does not divide the cutoff, the
//! last bound is the cutoff.
//!
//! Three interchangeable bounded DFS procedures ([`Variant`]):
//!
//! - **naive unsound** (Fig. 3): a state is explored once; reached again it is
//!   skipped, whatever the depth. It can miss states within the bound
//!   (`beem/examples/fig4.dve` is the paper's Fig. 4).
//! - **naive sound** (Fig. 5): `DoneStates` keeps the least depth at which each
//!   state was explored; a state reached at a smaller depth is explored again
//!   (a *revisit*) and removed from `outFrontier`.
//! - **threshold** (Fig. 6): `Threshold` keeps, per state, the depth below
//!   which a revisit can find anything new: on return from a state it is the
//!   largest threshold of its successors minus one (a frontier successor
//!   counts with its depth, a skipped one with its own threshold).
//!
//! Thresholds are stored clamped at 0: the paper's `-1` (no successor needs
//! a revisit) and `0` both mean "never re-explore", since depths are
//! non-negative, and propagate identically.
//!
//! Three frontier representations ([`FrontierKind`]):
//!
//! - **states**: full state vectors, packed in one byte area;
//! - **traces**: the path from the initial state, as successor indices (the
//!   position of the successor in the model's successor list), replayed
//!   from the initial state to rebuild the state (`getState`);
//! - **tree** (Fig. 8 and 9): one frontier-tree node per frontier state, with
//!   its parent (the frontier state of the previous iteration its DFS started
//!   from) and the trace from the parent. The state of the next frontier node
//!   is rebuilt from the lowest common ancestor with the previous one: the
//!   states along the current root-to-node path are kept (DVE transitions
//!   are not invertible, so this is the "undo log"), unwinding is popping
//!   them, and only the traces below the ancestor are replayed.
//!
//! Traces are bytes: an index below 255 is one byte, a larger one is 255
//! followed by the index as 4 little-endian bytes.
//!
//! Bookkeeping is memory-light: the visited set is a [`Store`] (every state
//! reached, including those seen only at the bound; the exact
//! [`StateStore`], or with `--store tree` the tree-compressed one, whose
//! states keep their numbers as the search's tables need), with a
//! parallel `Vec<u32>` holding `DoneStates`/`Threshold` per id (`u32::MAX`:
//! absent) and a bit per id for membership in the `outFrontier` being built.
//! Nothing is allocated per state. Removal from `outFrontier` clears the bit;
//! the frontier is compacted at the end of the iteration.
//!
//! Metrics, under the paper's names: distinct states explored (`states`:
//! every state reached, which for a finished bound `b` are exactly the states
//! at distance at most `b`), revisits (`revisits`: explorations of a state
//! that had been explored before), the largest depth fully explored
//! (`max_depth_explored`: the bound of the last finished iteration), the
//! size of `outFrontier` per iteration (`frontier_sizes`), the time spent in
//! `getState` (`get_state_time_s`) with the number of transitions replayed
//! (`replay_steps`), execution time (`time_s`) and peak memory
//! (`peak_rss_bytes`).

mod config;
mod report;
mod search;

pub use config::*;
pub use report::*;
pub use search::*;
