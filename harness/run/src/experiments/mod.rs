//! Experiments over many runs: benchmark matrices (`dvemc bench`), their
//! reports and the papers' tables, the census, and the BEEM verifications.
//!
//! - [`matrix`]: TOML matrices expanded into cells (one `dvemc explore` run
//!   each) with stable keys `instance|backend|spec args|seed`.
//! - [`exec`]: one cell as a child process (address-space limit, deadline
//!   kill, rusage).
//! - [`schema`]: the one CSV schema of results (`results/SCHEMA.md`), the
//!   classification of a finished child, durable appends; [`merge`].
//! - [`runner`]: N workers, resume, progress, summary; [`slurm`]: an
//!   array-job script, one shard per task.
//! - [`report`] (markdown and HTML), [`plot`]: markdown, HTML and SVG reports;
//!   [`papers`]: each paper's tables from the rows of its matrix;
//!   [`census`]: the whole-suite census.
//! - [`compare`]: a run against a baseline (`make check-regressions`).
//! - [`verify`]: every BEEM instance and property against BEEM's figures.
//!
//! Uses every layer below: `run`, `algo`, `output`, `model`, `engine`.

pub mod census;
pub mod compare;
pub mod exec;
pub mod matrix;
pub mod merge;
pub mod papers;
pub mod plot;
pub mod provenance;
pub mod report;
pub mod runner;
pub mod schema;
pub mod slurm;
pub mod util;
pub mod verify;
