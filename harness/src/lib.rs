//! dvemc's harness, in layers; each uses only the layers below it:
//!
//! - [`engine`]: the one core every search goes through (stores, the BFS
//!   and DFS loops, observers, budgets, progress, checkpoints, the result
//!   vocabulary); it knows models only through `dve_frontend::model`;
//! - [`model`]: loading what is explored (backends, BEEM, the example);
//! - [`output`]: the run record and traces, and their printers;
//! - [`algo`]: the algorithms, each configuring the engine with what is
//!   its own (exhaustive, properties and nested DFS, caching and
//!   sweep-line, dbdfs, bbmc, randomized search, simulation);
//! - [`run`]: one run of one configuration (the request, the strategy
//!   registry, the dispatch);
//! - [`experiments`]: matrices, reports, the papers' tables, verifications;
//! - the command line (`src/bin/`), the only place that knows clap.

pub use dvemc_algo as algo;
pub use dvemc_engine as engine;
pub mod experiments;
pub mod model;
pub mod output;
pub mod run;
