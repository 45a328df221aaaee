//! The headings of `explore --help`. A heading that names strategies holds
//! only options the registry (`super::OPTIONS`) gives to those
//! strategies, and every one of them takes one of its options (the tests
//! check both), so a user sees which options belong to the strategy chosen.
pub const MODEL: &str = "Model and strategy";
pub const BUDGETS: &str = "Budgets";
pub const PROPERTIES: &str = "Properties (bfs, dfs, highway, bbmc, randomized)";
pub const OUTPUT: &str = "Output";
pub const STORE: &str = "Store and checkpoints (bfs, dfs, dbdfs)";
pub const CACHING: &str = "State caching and sweep-line (bfs, dfs, bbfs, alt)";
pub const DBDFS: &str = "Depth-bounded DFS (dbdfs)";
pub const BREADTH: &str = "Breadth-bounded (highway, bbmc)";
pub const RANDOMIZED: &str = "Randomized (urs, sdrs, rurs, rsdrs, random-walk)";
