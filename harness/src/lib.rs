//! dvemc's harness, in layers; each uses only the layers below it:
//!
//! - [`engine`] (the crate `dvemc-engine`, harness/engine): the one core
//!   every search goes through (stores, the BFS and DFS loops, observers,
//!   budgets, checkpoints, the result vocabulary); it knows models only
//!   through `dve_frontend::model`;
//! - [`algo`] (the crate `dvemc-algo`, harness/algo): the algorithms, each
//!   configuring the engine with what is its own (properties and nested
//!   DFS, the reduction, caching and sweep-line, dbdfs, bbmc, randomized
//!   search);
//! - [`model`]: loading what is explored (backends, BEEM, the example);
//! - [`output`]: the run record and traces, and their printers;
//! - [`run`]: one run of one configuration (the request, the strategy
//!   registry, the dispatch, the families that fill the record: exhaustive,
//!   distributed; simulation and replay);
//! - [`experiments`]: matrices, reports, the papers' tables, verifications;
//! - the command line (`src/bin/`), the only place that knows clap.

pub use dvemc_algo as algo;
pub use dvemc_engine as engine;
pub mod experiments;
pub mod model;
pub mod output;
pub mod run;
