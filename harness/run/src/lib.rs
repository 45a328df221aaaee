#![doc = include_str!("../README.md")]

pub use dvemc_algo as algo;
pub use dvemc_engine as engine;
pub mod experiments;
pub mod model;
pub mod output;
pub mod run;
