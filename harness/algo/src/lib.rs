#![doc = include_str!("../README.md")]

pub mod bbmc;
pub mod caching;
pub mod check;
pub mod dbdfs;
pub mod export;
pub mod lasso;
pub mod ltl_reduced;
pub mod lts;
pub mod por;
pub mod random;
pub mod system_deadlock;
