//! dvemc's harness, in layers (each uses only those above it):
//!
//! - the model boundary (`dve_frontend::model`) and the backends
//!   ([`backend`]: JIT or interpreter);
//! - the engine ([`search`]: stores, the BFS and DFS loops, observers,
//!   budgets, progress, the one result vocabulary);
//! - the algorithms, each a small module configuring the engine with what
//!   is its own: [`check`] (properties, nested DFS), [`caching`] (the
//!   general state exploring algorithm, state caching, sweep-line),
//!   [`dbdfs`], [`bbmc`], [`random_search`];
//! - one run of one configuration ([`strategy`]: the registry; [`run`];
//!   [`record`]: the run record);
//! - experiments ([`bench`]: matrices, rows, reports; [`verify`]);
//! - the command line (`src/bin/`), the only place that knows clap.

pub mod backend;
pub mod bbmc;
pub mod bench;
pub mod caching;
pub mod check;
pub mod dbdfs;
pub mod explore;
pub mod guard;
pub mod manifest;
pub mod random_search;
pub mod record;
pub mod rng;
pub mod run;
pub mod search;
pub mod simulate;
pub mod strategy;
pub mod trace;
pub mod verify;
