//! The search algorithms, each a small module that configures the engine
//! with what is its own, and cites the paper and figure it implements.
//!
//! Uses: `engine`, `model`, `output`.

pub mod bbmc;
pub mod caching;
pub mod check;
pub mod dbdfs;
pub mod export;
pub mod lasso;
pub mod ltl_reduced;
pub mod lts;
pub mod por;
pub mod property;
pub mod random;
pub mod system_deadlock;
