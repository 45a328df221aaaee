//! The search loops: breadth-first and depth-first, on one thread or
//! several, and the tree-compressed breadth-first search with checkpoints.

pub mod bfs;
pub mod cndfs;
pub mod dfs;
pub mod distributed;
pub mod parallel;
pub mod parallel_dfs;
pub mod parent_links;
pub mod pool;
pub mod tree_bfs;
