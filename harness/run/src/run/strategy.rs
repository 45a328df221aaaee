//! The strategy registry: every search `dvemc explore` runs, the options
//! each one takes, and their validation — in one place, so every strategy
//! rejects what it does not take with the same message, before any model
//! is loaded.
//!
//! A strategy is named by `--strategy` ([`Strategy`]: `bfs`, `dfs`,
//! `bbfs:W`, `alt:B,D`, `dbdfs`, `highway`, `bbmc`, `urs`, `sdrs`, `rurs`,
//! `rsdrs`, `random-walk`); its parameters are options ([`Params`], one
//! field per option). `options::OPTIONS` declares each option once: which
//! strategies take it, its help, how its value sets the parameters;
//! `run::validate` checks what was given against it, then the
//! combinations by the strategy's family (`run::family`);
//! `options::config_text` prints the normalised configuration (strategy
//! and parameters as flags) that starts the reports' `config`, so a row
//! can always be re-run.
//!
//! Budgets (`--max-states`, `--time-limit`, `--memory-limit`) and the
//! general options (`--backend`, `--json`, `--beem`, `--ignore-property`)
//! apply to every strategy.

use crate::run::exhaustive::Traversal;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::algo::caching::{CacheSize, Derivation, Replacement};
use crate::algo::dbdfs::{FrontierKind, Variant};
use crate::algo::random::{Restart, SuccessorChoice};

/// `None` = ∞.
pub type Bound = Option<u64>;

/// A search strategy (the value of `--strategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Exhaustive breadth-first search (with caching options: the general
    /// algorithm of the state-caching paper with a queue).
    Bfs,
    /// Exhaustive depth-first search (with caching options: the general
    /// algorithm with a stack).
    Dfs,
    /// Bounded-width BFS of the state-caching paper (`bbfs:W`).
    Bbfs(Bound),
    /// Alternation of BFS and DFS, Alt(b, d) (`alt:B,D`).
    Alt(Bound, Bound),
    /// Iterative depth-bounded DFS (Udupa, Desai, Rajamani).
    Dbdfs,
    /// Highway simulation (Meulen, Stappers, Willemse, Algorithm 1).
    Highway,
    /// Breadth-bounded model checking (Algorithms 2 and 3).
    Bbmc,
    /// Uniform Random Search with a memory of N states (Abed, Tripakis,
    /// Vincent); stops when the memory is full.
    Urs,
    /// Simplified Deep Random Search; stops when the memory is full.
    Sdrs,
    /// URS re-initialized when the memory is full.
    Rurs,
    /// SDRS re-initialized when the memory is full.
    Rsdrs,
    /// Plain random walk, restarting from the initial state at deadlocks.
    RandomWalk,
}

/// What kind of search a strategy is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Every reachable state, once (BFS, DFS; with caching options the
    /// general algorithm).
    Exhaustive,
    /// The general state exploring algorithm with an open set of levels.
    Caching,
    /// Depth-bounded iterations.
    DepthBounded,
    /// Slices of at most N states per level.
    BreadthBounded,
    /// Randomized, memory-bounded.
    Randomized,
}

impl Family {
    /// As `dvemc strategies` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Exhaustive => "exhaustive",
            Family::Caching => "state caching",
            Family::DepthBounded => "depth-bounded",
            Family::BreadthBounded => "breadth-bounded",
            Family::Randomized => "randomized",
        }
    }
}

/// One line of the registry.
#[derive(Clone, Copy, Debug)]
pub struct StrategyInfo {
    /// As written in `--strategy` (`bbfs:W` with its parameters): the
    /// name up to the `:` is the only spelling of the strategy's name.
    pub form: &'static str,
    /// A strategy of the line, as tests and tables take one (`bbfs:4`).
    pub example: Strategy,
    pub family: Family,
    pub summary: &'static str,
    /// The paper in `../shared/papers/` it implements (empty for BFS, DFS).
    pub paper: &'static str,
}

/// The registry, in the order `--help` lists it.
pub const REGISTRY: &[StrategyInfo] = &[
    StrategyInfo {
        form: "bfs",
        example: Strategy::Bfs,
        family: Family::Exhaustive,
        summary: "breadth-first search: every reachable state, shortest counterexamples",
        paper: "",
    },
    StrategyInfo {
        form: "dfs",
        example: Strategy::Dfs,
        family: Family::Exhaustive,
        summary: "depth-first search: every reachable state; nested DFS for LTL",
        paper: "",
    },
    StrategyInfo {
        form: "bbfs:W",
        example: Strategy::Bbfs(Some(4)),
        family: Family::Caching,
        summary: "bounded-width BFS (W states per level; a number or inf)",
        paper: "search-order-independent-state-caching-evangelista-kristensen",
    },
    StrategyInfo {
        form: "alt:B,D",
        example: Strategy::Alt(Some(2), Some(2)),
        family: Family::Caching,
        summary: "B levels breadth-first, then D depth-first, and again",
        paper: "search-order-independent-state-caching-evangelista-kristensen",
    },
    StrategyInfo {
        form: "dbdfs",
        example: Strategy::Dbdfs,
        family: Family::DepthBounded,
        summary: "iterative depth-bounded DFS with thresholds and frontier trees",
        paper: "depth-bounded-dfs-udupa-desai-rajamani",
    },
    StrategyInfo {
        form: "highway",
        example: Strategy::Highway,
        family: Family::BreadthBounded,
        summary: "highway simulation: at most N random states per level",
        paper: "breadth-bounded-model-checking-meulen-stappers-willemse",
    },
    StrategyInfo {
        form: "bbmc",
        example: Strategy::Bbmc,
        family: Family::BreadthBounded,
        summary: "breadth-bounded model checking: total slices of at most N states per level",
        paper: "breadth-bounded-model-checking-meulen-stappers-willemse",
    },
    StrategyInfo {
        form: "urs",
        example: Strategy::Urs,
        family: Family::Randomized,
        summary: "uniform random search with a memory of N states",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "sdrs",
        example: Strategy::Sdrs,
        family: Family::Randomized,
        summary: "simplified deep random search with a memory of N states",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "rurs",
        example: Strategy::Rurs,
        family: Family::Randomized,
        summary: "URS restarted when the memory is full",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "rsdrs",
        example: Strategy::Rsdrs,
        family: Family::Randomized,
        summary: "SDRS restarted when the memory is full",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "random-walk",
        example: Strategy::RandomWalk,
        family: Family::Randomized,
        summary: "random walk, restarting at deadlocks",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
];

impl StrategyInfo {
    /// The strategy's name, without parameters.
    pub fn name(&self) -> &'static str {
        self.form.split(':').next().unwrap_or(self.form)
    }
}

impl Strategy {
    /// One strategy of each registry line, in its order.
    pub const EXAMPLES: [Strategy; REGISTRY.len()] = {
        let mut all = [Strategy::Bfs; REGISTRY.len()];
        let mut i = 0;
        while i < REGISTRY.len() {
            all[i] = REGISTRY[i].example;
            i += 1;
        }
        all
    };

    /// The forms `--strategy` accepts, for messages.
    pub fn forms() -> String {
        let forms: Vec<&str> = REGISTRY.iter().map(|i| i.form).collect();
        forms.join(", ")
    }

    /// The name without parameters.
    pub fn name(self) -> &'static str {
        self.info().name()
    }

    pub fn info(self) -> &'static StrategyInfo {
        REGISTRY
            .iter()
            .find(|i| std::mem::discriminant(&i.example) == std::mem::discriminant(&self))
            .expect("every strategy is in the registry")
    }

    pub fn family(self) -> Family {
        self.info().family
    }

    /// The order of an exhaustive strategy (`bfs`, `dfs`); `None` for the others.
    pub fn traversal(self) -> Option<Traversal> {
        match self {
            Strategy::Bfs => Some(Traversal::Bfs),
            Strategy::Dfs => Some(Traversal::Dfs),
            _ => None,
        }
    }

    /// Whether the strategy keeps a visited set that exact exploration
    /// fills (every strategy but the slices and the randomized searches).
    pub fn keeps_visited_set(self) -> bool {
        matches!(
            self.family(),
            Family::Exhaustive | Family::Caching | Family::DepthBounded
        )
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Strategy, String> {
        let (name, params) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        let no_params = |st: Strategy| match params {
            None => Ok(st),
            Some(_) => Err(format!("strategy `{name}` takes no parameters")),
        };
        let info = REGISTRY
            .iter()
            .find(|i| i.name() == name)
            .ok_or_else(|| format!("unknown strategy `{s}` (expected one of: {})", Strategy::forms()))?;
        match info.example {
            Strategy::Bbfs(_) => {
                let p = params.ok_or("strategy `bbfs` needs a width: bbfs:W (a number or inf)")?;
                match parse_bound(p)? {
                    Some(0) => Err("the width of bbfs must be at least 1".into()),
                    w => Ok(Strategy::Bbfs(w)),
                }
            }
            Strategy::Alt(..) => {
                let p = params.ok_or("strategy `alt` needs two depths: alt:B,D (numbers or inf)")?;
                let (b, d) = p
                    .split_once(',')
                    .ok_or_else(|| format!("`{s}`: expected alt:B,D"))?;
                Ok(Strategy::Alt(parse_bound(b)?, parse_bound(d)?))
            }
            other => no_params(other),
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Bbfs(w) => write!(f, "bbfs:{}", bound_text(*w)),
            Strategy::Alt(b, d) => write!(f, "alt:{},{}", bound_text(*b), bound_text(*d)),
            other => f.write_str(other.name()),
        }
    }
}

/// A number or `inf` (`None`).
pub fn parse_bound(p: &str) -> Result<Bound, String> {
    match p.trim() {
        "inf" | "∞" => Ok(None),
        t => t
            .parse::<u64>()
            .map(Some)
            .map_err(|_| format!("`{p}` is not a number or `inf`")),
    }
}

pub fn bound_text(b: Bound) -> String {
    b.map_or_else(|| "inf".to_string(), |v| v.to_string())
}

/// The parameters of a strategy, one field per option of `explore`
/// (`None` / `false` / empty: not given): those of several families here,
/// each family's in its own struct.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    pub caching: CachingParams,
    pub dbdfs: DbdfsParams,
    pub slices: SliceParams,
    pub random: RandomParams,
    /// Seeded randomness (replacement, slices, randomized searches).
    pub seed: Option<u64>,
    /// Seeded runs of the slices and the randomized searches.
    pub runs: Option<u64>,
    /// Keep the counters over time at this interval (seconds).
    pub sample_interval: Option<f64>,
    /// The visited set of exhaustive BFS and DFS, and of dbdfs.
    pub store: Option<crate::engine::StoreKind>,
    /// Threads (1: the sequential search).
    pub threads: Option<usize>,
    /// Where the ctree store's BFS keeps its checkpoint
    /// (`engine::checkpoint`).
    pub checkpoint: Option<PathBuf>,
    /// Partial-order reduction (`algo::por`) of exhaustive bfs and dfs.
    pub por: bool,
    /// The reduced and the full search side by side, compared.
    pub por_check: bool,
    /// Write the state space explored to this file (bfs, dfs: all of it;
    /// highway, bbmc: the first run's slice).
    pub export: Option<PathBuf>,
    /// Label the states of a DOT export with their variables.
    pub export_state_labels: bool,
}

/// The general state exploring algorithm (state caching, sweep-line).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CachingParams {
    pub cache: Option<CacheSize>,
    pub replacement: Option<Replacement>,
    pub chain_reduction: bool,
    pub edge_lean: bool,
    pub max_visits: Option<f64>,
    pub progress: Vec<String>,
    pub progress_level: Option<u8>,
    pub progress_derivation: Option<Derivation>,
}

/// Depth-bounded DFS.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DbdfsParams {
    pub depth_cutoff: Option<u32>,
    pub increment: Option<u32>,
    /// `--dbdfs`: the bounded DFS.
    pub variant: Option<Variant>,
    pub frontier: Option<FrontierKind>,
}

/// Breadth-bounded model checking (highway, bbmc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SliceParams {
    pub breadth: Option<u64>,
    pub degrade_depth: Option<u32>,
}

/// Randomized searches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RandomParams {
    pub memory_states: Option<u64>,
    pub steps: Option<u64>,
    pub mixing: Option<f64>,
    pub restart: Option<Restart>,
    /// A uniform successor state (default) or transition.
    pub successor_choice: Option<SuccessorChoice>,
    /// Coverage levels (% of |S|) whose cover times are measured; stop at
    /// the last one.
    pub cover_targets: Vec<f64>,
    pub stop_when_covered: bool,
}

impl Params {
    /// Whether a caching or sweep-line option turns bfs/dfs into the general
    /// algorithm.
    pub fn general_algorithm(&self) -> bool {
        self.general_option().is_some()
    }

    /// The first option given that asks for the general algorithm, as
    /// the command line spells it.
    pub fn general_option(&self) -> Option<&'static str> {
        let c = &self.caching;
        [
            (c.cache.is_some(), "--cache"),
            (c.replacement.is_some(), "--replacement"),
            (c.chain_reduction, "--chain-reduction"),
            (c.edge_lean, "--edge-lean"),
            (c.max_visits.is_some(), "--max-visits"),
            (!c.progress.is_empty(), "--sweep-measure"),
            (c.progress_level.is_some(), "--sweep-level"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }
}

/// `s` as one word of a POSIX shell command line: as it is when the shell
/// reads none of its characters specially, else single-quoted.
pub fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-+.,:%=/@".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A count option's value: a non-negative integer.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err("must be a non-negative integer".into());
    }
    t.replace('_', "")
        .parse::<u64>()
        .map_err(|_| "must be a non-negative integer".into())
}

/// A count option's value that must be at least 1.
pub fn parse_positive(s: &str) -> Result<u64, String> {
    match parse_count(s)? {
        0 => Err("must be at least 1".into()),
        n => Ok(n),
    }
}

/// A depth-like value: an integer from 1 to 2^32 - 2.
pub fn parse_depth(s: &str) -> Result<u32, String> {
    let n = parse_positive(s)?;
    u32::try_from(n)
        .ok()
        .filter(|&v| v < u32::MAX)
        .ok_or_else(|| format!("must be at most {}", u32::MAX - 1))
}
