//! What is explored: a model loaded from a `.dve` file, a BEEM instance or
//! the built-in example, and the backend that computes its successors (the
//! Cranelift JIT or the reference interpreter).
//!
//! Uses: `dve_frontend`, `jit` and the engine's statistics types (BEEM's
//! `stat.xml` files are read into them).

pub mod backend;
pub mod beem;
pub mod example;
