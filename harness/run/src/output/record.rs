//! The run record: what one run of `dvemc explore` reports, whatever the
//! strategy. `explore --json` prints it as one JSON object; `dvemc bench`
//! turns the same object into one CSV row whose columns are its fields
//! ([`FIELDS`], documented in `results/SCHEMA.md`), so the two cannot
//! drift apart.
//!
//! Fields that do not apply to a strategy are absent from the JSON and
//! empty in the row. The papers' metrics carry the papers' names: `S`, `V`,
//! `P`, `L` (Evangelista and Kristensen, in % of |S|), `revisits`
//! (Udupa et al.), `witness_rate` (Meulen et al.), `covered`, `redundancy`
//! and cover times (Abed et al.).

use std::io::Write;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::algo::por::PorReport;
pub use crate::engine::units::{human_bytes, human_secs};
use crate::engine::{Counters, LevelStats, Outcome};
use crate::output::verdicts::{self, CheckState, Checked};

/// One run: what every strategy reports ([`Core`], [`Cost`]) and the
/// metrics of the family that ran (see the module documentation).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RunRecord {
    #[serde(flatten)]
    pub core: Core,
    #[serde(flatten)]
    pub bfs: Option<BfsMetrics>,
    #[serde(flatten)]
    pub dfs: Option<DfsMetrics>,
    #[serde(flatten)]
    pub caching: Option<CachingMetrics>,
    #[serde(flatten)]
    pub dbdfs: Option<DbdfsMetrics>,
    #[serde(flatten)]
    pub slices: Option<SliceMetrics>,
    #[serde(flatten)]
    pub random: Option<RandomMetrics>,
    #[serde(flatten)]
    pub distributed: Option<DistributedMetrics>,
    #[serde(flatten)]
    pub por: Option<PorMetrics>,
    #[serde(flatten)]
    pub cost: Cost,
    #[serde(flatten)]
    pub details: Details,

    /// What the run checked (the human report's wording; not in the JSON,
    /// where `config` gives the options).
    #[serde(skip)]
    pub checked: Checked,
}

/// What ran, how it ended, and the counters of every search.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Core {
    // ---- What ran.
    /// The model file as given (resolved against the BEEM directory for an
    /// instance name), or `phils2.dve (built-in)`.
    pub model: String,
    /// The BEEM instance, when the model is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The normalised strategy (`bbfs:4`).
    pub strategy: String,
    /// The strategy with its parameters and the properties checked as
    /// flags: `dvemc explore MODEL --strategy CONFIG` re-runs the search.
    pub config: String,
    pub backend: String,
    /// The visited set: `exact` or `tree`.
    pub store: String,
    pub state_len: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,

    // ---- How it ended.
    pub result: Outcome,
    /// `holds`, `violated`, `unknown` (checks), `no_witness` (slices and
    /// randomized searches that found none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation_kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violations: Option<u64>,
    /// Transitions of the counterexample (stem plus cycle for a lasso).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cex_length: Option<u64>,
    /// For a lasso: the transitions of its stem (the initial state to the
    /// cycle's entry) and of its cycle (the entry back to itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stem_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_length: Option<u64>,

    // ---- Counters of every search.
    /// Distinct states reached (stored, explored, covered); for strategies
    /// with several runs, summed over the runs.
    pub states: u64,
    /// Successor entries computed by expansions (duplicates, self-loops and
    /// erroneous ones included: BEEM's edges).
    pub transitions: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlocks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_transitions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expansions: Option<u64>,
    /// Insertions of states into the open set (caching), new and again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visits: Option<u64>,
    /// Visits or explorations of a state seen before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revisits: Option<u64>,
    /// Deepest bound fully explored (dbdfs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u64>,

    // ---- Of several families (caching, slices, randomized searches).
    /// The variant that ran: state-caching, sweep-line (the general
    /// algorithm); highway, bounded, graceful_degradation; urs, sdrs, random-walk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// Most states held at once (caching: largest |O| + |C|; slices and
    /// randomized searches: the largest run's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_peak: Option<u64>,
    /// Seeded runs (slices, randomized searches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<u64>,
    /// Runs whose slice (or walk) holds a witness, and their share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness_found: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness_kind: Option<String>,
}

/// Breadth-first search (BEEM's `<bfs-info>`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BfsMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub back_level_edges: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_back_level_edge: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_level_states: Option<u64>,
}

/// Depth-first search (BEEM's `<dfs-info>`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DfsMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dfs_max_stack: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dfs_front_edges: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dfs_back_edges: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dfs_cross_edges: Option<u64>,
}

/// State caching and sweep-line (Evangelista, Kristensen).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CachingMetrics {
    /// |S|, when known (instances.csv or an exhaustive run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_space_size: Option<u64>,
    /// The cache size in states (none: unlimited).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_reduction: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_lean: Option<bool>,
    /// Largest TD-tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub td_peak: Option<u64>,
    /// Events executed, and events skipped by the edge-lean reduction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pruned_events: Option<u64>,
    /// States deleted by the replacement strategy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evictions: Option<u64>,
    /// Sweep-line: persistent states at the end, largest class in memory,
    /// progress classes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub largest_class: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress_classes: Option<u64>,
    /// The paper's S: states stored, in % of |S| — the cache size when there
    /// is a cache (Table 2: "the number of stored states, i.e., the cache
    /// size"), else the peak of stored states (SL).
    #[serde(rename = "S", skip_serializing_if = "Option::is_none")]
    pub s_pct: Option<f64>,
    /// The paper's V: visits in % of |S|.
    #[serde(rename = "V", skip_serializing_if = "Option::is_none")]
    pub v_pct: Option<f64>,
    /// The paper's P: persistent states at the end, in % of |S|.
    #[serde(rename = "P", skip_serializing_if = "Option::is_none")]
    pub p_pct: Option<f64>,
    /// The paper's L: the largest progress class in memory at once, in % of |S|.
    #[serde(rename = "L", skip_serializing_if = "Option::is_none")]
    pub l_pct: Option<f64>,
    /// A derived progress measure's (`--sweep-level`) regress
    /// transitions, in % of the transitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regress_pct: Option<f64>,
}

/// Depth-bounded DFS (Udupa, Desai, Rajamani).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DbdfsMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dbdfs: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontier: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_cutoff: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub increment: Option<u64>,
    /// The last frontier was empty: every reachable state was explored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_space_exhausted: Option<bool>,
    /// Time spent rebuilding frontier states (the paper's getState()).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub get_state_time_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_steps: Option<u64>,
}

/// Breadth-bounded model checking (Meulen, Stappers, Willemse); means
/// over the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SliceMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breadth: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degrade_depth: Option<u64>,
    /// Runs a budget cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete_runs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slice_states: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slice_transitions: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub single_steps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub back_edges: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jumps: Option<f64>,
    /// Queues not drawn uniformly among the admissible subsets (the
    /// rejection sampler gave up), mean over the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub biased_queues: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queues: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_slice_states: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub introduced_sinks: Option<f64>,
    /// Mean length of the witnesses found, in transitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness_length: Option<f64>,
    /// The BMC baseline: states stored at its first witness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bmc_states: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bmc_kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bmc_result: Option<String>,
}

/// Randomized searches (Abed, Tripakis, Vincent); means over the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RandomMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_states: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixing: Option<f64>,
    /// Randomized searches: `state` or `transition` (`--successor-choice`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor_choice: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps_bound: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restarts: Option<f64>,
    /// Distinct states ever visited (mean over the runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covered: Option<f64>,
    /// `(n - k) / n`: steps that covered nothing new.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redundancy: Option<f64>,
    /// Why a single run stopped: steps, memory_full, covered, goal,
    /// time_limit, exhausted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goal_step: Option<u64>,
}

/// A distributed search (`--distributed`): totals over the ranks (each
/// rank's own figures are in [`Details::rank_figures`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DistributedMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u64>,
    /// Exchanges of successor batches between the ranks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u64>,
    /// Batches sent, over all ranks (one per destination per round at most).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages_sent: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_sent: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages_per_state: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_sent_per_state: Option<f64>,
    /// The longest time a rank spent in exchanges and reductions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_s: Option<f64>,
}

/// Partial-order reduction (`--por`): the counters describe the reduced
/// graph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PorMetrics {
    /// States whose successors were all kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_full: Option<u64>,
    /// `por_full` over the states expanded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_full_share: Option<f64>,
    /// States expanded fully because the cycle proviso refused the cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_proviso: Option<u64>,
    /// Seconds spent choosing the stubborn sets, summed over the threads
    /// (estimated from one expanded state in 16).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_select_s: Option<f64>,
    /// The model's transition groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_groups: Option<u64>,
    /// Groups the analysis could not prove free of run-time errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_groups_may_err: Option<u64>,
    /// Those groups, named with what part of them may err (each joins
    /// every set whose key it may be co-enabled with).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_may_err: Option<String>,
    /// Variables that every process reads or writes and several write:
    /// a set that holds one process then holds them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_shared: Option<String>,
    /// When choosing the sets took most of the run: the reduction may
    /// cost more than it saves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_warning: Option<String>,
    /// Why no state was reduced, when none could be (the model, or the
    /// property, or a full search that settled the question first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_not_reduced: Option<String>,
    /// `--por-check`: `agree`, or how the reduced and the full search
    /// differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_check: Option<String>,
    /// `--por-check`: the full search's states, transitions and seconds
    /// (the record's own counters are the reduced search's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_check_full_states: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_check_full_transitions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub por_check_full_s: Option<f64>,
}

impl PorMetrics {
    /// The columns of a reducer's report.
    pub fn of(r: &PorReport) -> PorMetrics {
        let s = &r.stats;
        PorMetrics {
            por_full: Some(s.full()),
            por_full_share: (s.expanded > 0).then(|| s.full() as f64 / s.expanded as f64),
            por_proviso: Some(s.proviso),
            por_select_s: Some(s.select_ns as f64 * 1e-9),
            por_groups: Some(s.groups),
            por_groups_may_err: Some(s.groups_may_err),
            por_not_reduced: r.not_reduced.clone(),
            por_may_err: r.may_err.clone(),
            por_shared: r.shared.clone(),
            ..PorMetrics::default()
        }
    }
}

/// Structured details and the thread count: in the JSON, not columns (rows
/// keep them in `extra`, but for `trace` and `beem_reference`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Details {
    /// Threads of the search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u64>,
    /// A check: the state of each property checked (see
    /// [`crate::output::verdicts`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<CheckState>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level_table: Option<Vec<LevelStats>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontier_sizes: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Vec<String>>,
    /// Randomized searches with `--cover-targets`: per coverage level,
    /// `{percent, states, reached, mean_steps, mean_time_s}` over the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cover: Option<Value>,
    /// With `--sample-interval`: the counters over time (run 0's for
    /// several runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beem_reference: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Value>,
    /// `--store compact`: the states expected to have been omitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_omissions: Option<f64>,
    /// `--store ctree`: the root set's tables, more than one once a
    /// doubling did not fit in the memory budget (`engine::store::tree::root_tiers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_tables: Option<u64>,
    /// `--store ctree` stopped for memory: the bytes it had and what its
    /// next batch could have needed, by part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_need: Option<crate::engine::loops::tree_bfs::MemoryNeed>,
    /// `--checkpoint`: the file, the parts of the search before this one
    /// and their seconds, and whether this run wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<crate::engine::checkpoint::CheckpointInfo>,
    /// `--distributed`: each rank's states, bytes, messages and waiting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_figures: Option<Vec<crate::engine::loops::distributed::RankFigures>>,
    /// The memory budget the run had, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_budget: Option<MemoryBudget>,
}

/// A run's memory budget: its bytes, and whether it was the default (no
/// `--memory-limit`: a share of the memory available at the start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryBudget {
    pub bytes: u64,
    pub default: bool,
}

/// Time and memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cost {
    pub time_s: f64,
    pub states_per_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compile_ms: Option<f64>,
    /// Bytes allocated by the visited set at the end (none: not measured,
    /// as for the slices and the randomized searches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_bytes: Option<u64>,
    /// Largest allocation of the search structures (queue, stack, frontier,
    /// tables beside the store).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontier_bytes: Option<u64>,
    /// (store + search structures) / states, where the store was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_state: Option<f64>,
    /// Peak resident set size of the process (0 if unknown).
    pub peak_rss_bytes: u64,
    /// Peak resident set size once the model was loaded and compiled,
    /// before the search (0 if unknown).
    pub setup_rss_bytes: u64,
}

/// The scalar fields, in order: the record's columns in a results row, read
/// off [`Core`], each family's metrics and [`Cost`], as the JSON has them.
pub static FIELDS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    use serde_aux::serde_introspection::serde_introspect as fields;
    [
        fields::<Core>(),
        fields::<BfsMetrics>(),
        fields::<DfsMetrics>(),
        fields::<CachingMetrics>(),
        fields::<DbdfsMetrics>(),
        fields::<SliceMetrics>(),
        fields::<RandomMetrics>(),
        fields::<DistributedMetrics>(),
        fields::<PorMetrics>(),
        fields::<Cost>(),
    ]
    .concat()
});

/// The structured fields (see [`Details`]).
pub static STRUCTURED: std::sync::LazyLock<&'static [&'static str]> =
    std::sync::LazyLock::new(serde_aux::serde_introspection::serde_introspect::<Details>);

impl CachingMetrics {
    /// `x` in % of |S|, when |S| is known.
    pub fn pct(&self, x: u64) -> Option<f64> {
        self.state_space_size
            .filter(|&s| s > 0)
            .map(|s| 100.0 * x as f64 / s as f64)
    }
}

/// A search's counters in a record: the one place they are copied (the
/// record keeps its own fields, not a flattened [`Counters`], so that its
/// columns stay in their order).
impl From<&Counters> for Core {
    fn from(c: &Counters) -> Core {
        let mut core = Core::default();
        core.set_counters(c);
        core
    }
}

impl Core {
    /// Sets the result and counters from a search's.
    pub fn set_counters(&mut self, c: &Counters) {
        self.result = c.result;
        self.states = c.states;
        self.transitions = c.transitions;
        self.deadlocks = Some(c.deadlocks);
        self.error_transitions = Some(c.error_transitions);
    }
}

impl DfsMetrics {
    pub fn of(s: &crate::engine::DfsStats) -> DfsMetrics {
        DfsMetrics {
            dfs_max_stack: Some(s.max_stack),
            dfs_front_edges: Some(s.front_edges),
            dfs_back_edges: Some(s.back_edges),
            dfs_cross_edges: Some(s.cross_edges),
        }
    }
}

/// Runs shorter than this get no warning about the reduction's cost.
const POR_WARN_MIN_S: f64 = 0.1;

impl RunRecord {
    /// Sets `por_warning` when the reduction cost more than it can have
    /// saved: with `--por-check`, the reduced search took longer than the
    /// full one; otherwise choosing the sets took at least half of the run.
    pub fn warn_por_cost(&mut self) {
        let time = self.cost.time_s;
        let threads = self.details.threads.unwrap_or(1).max(1) as f64;
        let Some(por) = &mut self.por else { return };
        if time < POR_WARN_MIN_S {
            return;
        }
        por.por_warning = match (por.por_check_full_s, por.por_select_s) {
            (Some(full), _) => (time > full).then(|| {
                format!(
                    "the reduced search took {} against the full search's {}: on this model --por costs more than it saves",
                    human_secs(time),
                    human_secs(full)
                )
            }),
            (None, Some(select)) => (select / threads >= 0.5 * time).then(|| {
                format!(
                    "choosing the stubborn sets took {} of the run's {}: the full search may well be faster here (--por-check compares the two)",
                    human_secs(select / threads),
                    human_secs(time)
                )
            }),
            (None, None) => None,
        };
    }

    /// BEEM's `<dfs-info>` counters of a DFS run.
    pub fn dfs_stats(&self) -> Option<crate::engine::DfsStats> {
        let d = self.dfs.as_ref()?;
        Some(crate::engine::DfsStats {
            max_stack: d.dfs_max_stack?,
            front_edges: d.dfs_front_edges?,
            back_edges: d.dfs_back_edges?,
            cross_edges: d.dfs_cross_edges?,
        })
    }

    /// Sets `time_s`, `states_per_s` and `bytes_per_state`.
    pub fn finish_rates(&mut self, time_s: f64) {
        let states = self.core.states;
        let c = &mut self.cost;
        c.time_s = time_s;
        c.states_per_s = if time_s > 0.0 { states as f64 / time_s } else { 0.0 };
        c.bytes_per_state = c.store_bytes.map(|store| {
            if states > 0 {
                (store + c.frontier_bytes.unwrap_or(0)) as f64 / states as f64
            } else {
                0.0
            }
        });
    }

    /// The exit code of `explore`: 5 when `--por-check` found the reduced
    /// and the full search differ, 1 when a property is violated (a
    /// witness found), 4 when a budget or an interruption ended the run
    /// early, else 0.
    pub fn exit_code(&self) -> u8 {
        let por_check = self.por.as_ref().and_then(|p| p.por_check.as_deref());
        if por_check.is_some_and(|c| c != "agree") {
            5
        } else if self.core.verdict.as_deref() == Some("violated") {
            1
        } else if self.core.result.ran_to_end() {
            0
        } else {
            4
        }
    }

    /// The record as the human-readable report of `explore`: one line per
    /// field present, in the order of [`FIELDS`].
    pub fn write_human(&self, out: &mut impl Write) -> std::io::Result<()> {
        let Value::Object(map) = serde_json::to_value(self).unwrap_or(Value::Null) else {
            return Ok(());
        };
        for key in FIELDS.iter() {
            let Some(v) = map.get(*key) else { continue };
            let text = match (*key, v) {
                (_, Value::Null) => continue,
                ("verdict", Value::String(s)) => self.checked.verdict_text(
                    s,
                    self.core
                        .violation_kind
                        .as_deref()
                        .or(self.core.witness_kind.as_deref()),
                ),
                // Under a property process the system's deadlocks stutter:
                // what is counted are the product's dead ends.
                ("deadlocks", Value::Number(n)) if self.checked.cycles => {
                    if self.checked.deadlock {
                        format!("{n} (product states without successors)")
                    } else {
                        format!("{n} (product states without successors; not checked: --check deadlock checks the system's deadlocks)")
                    }
                }
                ("deadlocks", Value::Number(n)) if !self.checked.deadlock => unchecked(n, "deadlock"),
                ("error_transitions", Value::Number(n)) if !self.checked.error => unchecked(n, "error"),
                ("time_s" | "get_state_time_s" | "por_check_full_s" | "por_select_s", Value::Number(n)) => {
                    human_secs(n.as_f64().unwrap_or(0.0))
                }
                ("states_per_s", Value::Number(n)) => format!("{:.0}", n.as_f64().unwrap_or(0.0)),
                ("bytes_per_state", Value::Number(n)) => format!("{:.1}", n.as_f64().unwrap_or(0.0)),
                ("compile_ms", Value::Number(n)) => format!("{:.1} ms", n.as_f64().unwrap_or(0.0)),
                ("S" | "V" | "P" | "L", Value::Number(n)) => {
                    format!("{:.2} % of |S|", n.as_f64().unwrap_or(0.0))
                }
                (
                    "peak_rss_bytes" | "setup_rss_bytes" | "store_bytes" | "frontier_bytes",
                    Value::Number(n),
                ) => human_bytes(n.as_u64().unwrap_or(0)),
                ("witness_rate" | "redundancy", Value::Number(n)) => {
                    format!("{:.4}", n.as_f64().unwrap_or(0.0))
                }
                // Far below one: two decimals would print 0.00.
                ("messages_per_state", Value::Number(n)) => format!("{:.2e}", n.as_f64().unwrap_or(0.0)),
                (_, Value::Number(n)) if n.is_f64() => {
                    let x = n.as_f64().unwrap_or(0.0);
                    if x.fract() == 0.0 {
                        format!("{x:.0}")
                    } else {
                        format!("{x:.2}")
                    }
                }
                (_, Value::String(s)) => s.clone(),
                (_, other) => other.to_string(),
            };
            writeln!(out, "{:<22}{text}", format!("{}:", label(key)))?;
            // Where more than one property was checked, each one's state
            // after the verdict's lines.
            if *key == "violations" {
                if let Some(checks) = self.details.checks.as_ref().filter(|c| c.len() > 1) {
                    for (label, text) in verdicts::lines(checks) {
                        writeln!(out, "{:<22}{text}", format!("{label}:"))?;
                    }
                }
            }
        }
        if let Some(p) = &self.details.progress {
            writeln!(out, "{:<22}({})", "progress measure:", p.join(", "))?;
        }
        if let Some(f) = &self.details.frontier_sizes {
            let sizes: Vec<String> = f.iter().map(u64::to_string).collect();
            writeln!(out, "{:<22}{}", "frontier sizes:", sizes.join(" "))?;
        }
        for r in self.details.rank_figures.iter().flatten() {
            writeln!(
                out,
                "{:<22}{} states, store {}, frontier {}, peak resident {}, {} messages ({}) sent, waited {}",
                format!("rank {}:", r.rank),
                r.states,
                human_bytes(r.store_bytes),
                human_bytes(r.frontier_bytes),
                human_bytes(r.peak_rss_bytes),
                r.messages_sent,
                human_bytes(r.bytes_sent),
                human_secs(r.wait_s)
            )?;
        }
        Ok(())
    }
}

/// A count of things the run found without checking them: not violations,
/// so the report names the option that makes them ones.
fn unchecked(n: &serde_json::Number, check: &str) -> String {
    match n.as_u64() {
        Some(k) if k > 0 => format!("{k} (not checked: --check {check} checks them)"),
        _ => n.to_string(),
    }
}

/// How a field is called in the human-readable report.
fn label(key: &str) -> String {
    match key {
        "S" => "S (stored)".into(),
        "V" => "V (visited)".into(),
        "P" => "P (persistent)".into(),
        "L" => "L (largest class)".into(),
        "state_len" => "state vector bytes".into(),
        "states_per_s" => "states/s".into(),
        "bytes_per_state" => "bytes/state".into(),
        "peak_rss_bytes" => "peak resident mem".into(),
        "setup_rss_bytes" => "resident after setup".into(),
        "time_s" => "time".into(),
        "por_check_full_states" => "full states".into(),
        "por_check_full_transitions" => "full transitions".into(),
        "por_check_full_s" => "full time".into(),
        "por_select_s" => "por select cpu".into(),
        "por_may_err" => "por may err".into(),
        "state_space_size" => "|S|".into(),
        other => other.replace('_', " "),
    }
}

/// An error of `explore`, as the JSON object printed with `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorRecord {
    /// `usage` (a bad option, exit 2) or `input` (a missing file, a
    /// malformed model, exit 3).
    pub error: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    pub exit_code: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record with every optional field set serialises to exactly
    /// [`FIELDS`] then [`STRUCTURED`], in order.
    #[test]
    fn fields_list_every_column_in_order() {
        let full: RunRecord = serde_json::from_value(Value::Object(
            FIELDS
                .iter()
                .chain(STRUCTURED.iter())
                .map(|k| {
                    let v = match *k {
                        "result" => Value::from("complete"),
                        "checks" | "level_table" | "frontier_sizes" | "progress" | "rank_figures" => Value::Array(vec![]),
                        "chain_reduction" | "edge_lean" | "state_space_exhausted" => Value::from(true),
                        "model" | "strategy" | "config" | "backend" | "store" | "verdict"
                        | "violation_kind" | "violation" | "replacement" | "dbdfs" | "frontier"
                        | "algorithm" | "witness_kind" | "bmc_kind" | "bmc_result" | "restart" | "stop"
                        | "successor_choice" | "instance" | "por_check" | "por_not_reduced" | "por_may_err"
                        | "por_shared" | "por_warning" => Value::from("x"),
                        "iterations" | "beem_reference" | "trace" | "cover" | "samples" => Value::from(1),
                        "checkpoint" => serde_json::json!({"file": "x", "resumed_parts": 1, "prior_cpu_s": 1.0, "prior_wall_s": 1.0, "saved": true}),
                        "memory_need" => serde_json::to_value(crate::engine::loops::tree_bfs::MemoryNeed::default()).unwrap(),
                        "memory_budget" => serde_json::json!({"bytes": 1, "default": true}),
                        _ => Value::from(1),
                    };
                    (k.to_string(), v)
                })
                .collect(),
        ))
        .expect("a full record");
        // serde_json's maps are sorted: read the order off the text.
        let text = serde_json::to_string(&full).unwrap();
        let mut keys: Vec<(usize, &str)> = FIELDS
            .iter()
            .chain(STRUCTURED.iter())
            .map(|k| {
                (
                    text.find(&format!("\"{k}\":"))
                        .unwrap_or_else(|| panic!("no {k}")),
                    *k,
                )
            })
            .collect();
        keys.sort();
        let keys: Vec<&str> = keys.into_iter().map(|(_, k)| k).collect();
        let top = serde_json::from_str::<serde_json::Map<String, Value>>(&text).unwrap();
        assert_eq!(top.len(), keys.len(), "a field not listed");
        let want: Vec<&str> = FIELDS.iter().chain(STRUCTURED.iter()).copied().collect();
        assert_eq!(keys, want);
    }

    #[test]
    fn a_reduction_that_costs_more_than_it_saves_is_warned_of() {
        let run = |time_s: f64, select: f64, threads: u64, full: Option<f64>| {
            let mut r = RunRecord::default();
            r.cost.time_s = time_s;
            r.details.threads = Some(threads);
            r.por = Some(PorMetrics {
                por_select_s: Some(select),
                por_check_full_s: full,
                ..PorMetrics::default()
            });
            r.warn_por_cost();
            r.por.and_then(|p| p.por_warning)
        };
        assert!(run(2.0, 1.5, 1, None).is_some_and(|w| w.contains("1.50 s of the run's 2.00 s")));
        // Summed over two threads: 0.75 s of wall time each, under half.
        assert_eq!(run(2.0, 1.5, 2, None), None);
        assert_eq!(run(2.0, 0.5, 1, None), None);
        // Too short to say.
        assert_eq!(run(0.05, 0.05, 1, None), None);
        // With --por-check, the two searches' times decide.
        assert!(run(2.0, 0.1, 1, Some(1.0)).is_some_and(|w| w.contains("full search's 1.00 s")));
        assert_eq!(run(2.0, 1.9, 1, Some(3.0)), None);
    }
}
