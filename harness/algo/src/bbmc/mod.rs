//! Breadth-bounded exploration and Breadth-Bounded Model Checking (BBMC).
//!
//! Reference: M. G. Meulen, F. P. M. Stappers, T. A. C. Willemse,
//! "Breadth-Bounded Model Checking" (`../shared/papers/`). Names follow the
//! paper: the *breadth bound* `N`, the *queues* `Q_d`, the *visited set* `V`,
//! the *graceful degradation depth* `D`, and the three kinds of transitions
//! of a slice: *single steps* (`Q_i -> Q_{i+1}`), *back edges*
//! (`Q_i -> Q_j`, `j <= i`) and *jumps* (`Q_i -> Q_{i+j}`, `j > 1`).
//!
//! **Algorithms** ([`build_slice`]):
//!
//! - *Highway simulation* (Algorithm 1): `R := succ(Q_d) \ V`; the next queue
//!   is a uniformly random `N`-close subset of `R` (`min(|R|, N)` states).
//! - *Bounded breadth-first exploration* (Algorithm 2): the same, but the
//!   next queue must give every non-sink state of `Q_d` at least one
//!   successor in `Q_{d+1} ∪ V`, so the slice has no sink that is not a
//!   deadlock of the model (Proposition 1). The paper chooses uniformly among
//!   all admissible `N`-close subsets; so do we, by rejection (a uniform
//!   subset, kept if admissible). Counting admissible subsets is a
//!   hitting-set count, so after 1,000 rejections we build one instead (the
//!   needy states served by random successors, the rest uniform) and count
//!   the queue in `biased_queues`.
//! - *Graceful degradation* (Algorithm 3): below depth `D` as Algorithm 2;
//!   from depth `D` on, only the states of `Q_d` that have no successor in
//!   `V` (and are not sinks) are continued: the next queue is an `|R|`-close
//!   subset of their successors serving each of them.
//!
//! The slice's transitions are `V² ∩ →` (every model transition, label
//! included, between two states of `V`; duplicates counted like BEEM's
//! edges). Single steps and back edges are recorded while a queue is
//! expanded; transitions to states not chosen at that point are kept aside
//! and become jumps, a posteriori, if their target enters `V` later.
//!
//! **Checking** ([`find_witness`]): on the slice, a reachability goal (a
//! state satisfying it), a deadlock (a state without successors in the
//! model) and, for a model with a property process, an accepting cycle (a
//! non-trivial strongly connected component of the slice holding an
//! accepting state, found with Tarjan's algorithm). The slice is simulated
//! by the full state space (Theorem 2), so every witness found is a real
//! counterexample; its trace is a path of the slice.
//!
//! **BMC** ([`bmc`]): the paper compares with an explicit bounded model
//! checker, a BFS that stops at the first witness; its figure is the number
//! of states stored at that moment (for a goal, when the goal state is
//! stored; for a deadlock, when the deadlocked state is expanded; for an
//! accepting cycle, after the fewest BFS expansions whose transitions close
//! an accepting cycle).
//!
//! **Repetition** ([`run_many`]): run `r` of a series with seed `S` uses the
//! `r`-th 64-bit output of the project RNG seeded with `S` ([`run_seeds`]),
//! so every run is reproducible on its own.

mod bmc;
mod export;
mod graph;
mod runs;
mod slice;
mod witness;

pub use crate::check::{goal_predicate, GoalFn};
pub use bmc::*;
pub use dvemc_engine::rng::run_seeds;
pub use export::*;
pub use graph::*;
pub use runs::*;
pub use slice::*;
pub use witness::*;
