//! dvemc's harness: state store, exploration algorithms, the BEEM manifest
//! and the command line (`src/bin/dvemc.rs`).

pub mod backend;
pub mod bbmc;
pub mod bench;
pub mod caching;
pub mod check;
pub mod dbdfs;
pub mod explore;
pub mod manifest;
pub mod random_search;
pub mod rng;
pub mod search;
pub mod simulate;
pub mod spec;
pub mod trace;
pub mod verify;
