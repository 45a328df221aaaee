//! What a run reports: the run record (its fields are the columns of the
//! results CSV, `results/SCHEMA.md`) and its human printer, and counterexamples
//! (the engine's traces) printed as text and JSON.
//!
//! Uses: `engine` (the result vocabulary: outcomes, level and DFS
//! statistics) and `algo` (the reports whose columns the record holds).

pub mod counterexample;
pub mod record;
pub mod stat_xml;
pub mod verdicts;
