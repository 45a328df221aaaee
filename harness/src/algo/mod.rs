//! The search algorithms, each a small module that configures the engine
//! with what is its own, and cites the paper and figure it implements.
//!
//! Uses: `engine`, `model`, `output`.

pub mod bbmc;
pub mod caching;
pub mod check;
pub mod dbdfs;
pub mod distributed;
pub mod exhaustive;
pub mod export;
pub mod lasso;
pub mod por;
pub mod random;
pub mod replay;
pub mod simulate;
pub mod system_deadlock;
