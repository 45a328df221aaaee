//! The strategy registry: every search `dvemc explore` runs, the options
//! each one takes, and their validation — in one place, so every strategy
//! rejects what it does not take with the same message, before any model
//! is loaded.
//!
//! A strategy is named by `--strategy` ([`Strategy`]: `bfs`, `dfs`,
//! `bbfs:W`, `alt:B,D`, `dbdfs`, `highway`, `bbmc`, `urs`, `sdrs`, `rurs`,
//! `rsdrs`, `random-walk`); its parameters are options ([`Params`], one
//! field per option). [`OPTIONS`] says which strategies take which option;
//! [`validate`] checks what was given against it and checks the
//! combinations; [`config_text`] prints the normalised configuration
//! (strategy and parameters as flags) that reports carry, so a row can
//! always be re-run.
//!
//! Budgets (`--max-states`, `--time-limit`, `--memory-limit`) and the
//! general options (`--backend`, `--json`, `--beem`, `--ignore-property`)
//! apply to every strategy.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::caching::{CacheSize, Derivation, Replacement};
use crate::dbdfs::{FrontierKind, Variant};
use crate::random_search::{Restart, SuccessorChoice};
use crate::search::StoreKind;

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
    /// As written in `--strategy` (`bbfs:W` with its parameters).
    pub form: &'static str,
    pub family: Family,
    pub summary: &'static str,
    /// The paper in `../shared/papers/` it implements (empty for BFS, DFS).
    pub paper: &'static str,
}

/// The registry, in the order `--help` lists it.
pub const REGISTRY: &[StrategyInfo] = &[
    StrategyInfo {
        form: "bfs",
        family: Family::Exhaustive,
        summary: "breadth-first search: every reachable state, shortest counterexamples",
        paper: "",
    },
    StrategyInfo {
        form: "dfs",
        family: Family::Exhaustive,
        summary: "depth-first search: every reachable state; nested DFS for LTL",
        paper: "",
    },
    StrategyInfo {
        form: "bbfs:W",
        family: Family::Caching,
        summary: "bounded-width BFS (W states per level; a number or inf)",
        paper: "search-order-independent-state-caching-evangelista-kristensen",
    },
    StrategyInfo {
        form: "alt:B,D",
        family: Family::Caching,
        summary: "B levels breadth-first, then D depth-first, and again",
        paper: "search-order-independent-state-caching-evangelista-kristensen",
    },
    StrategyInfo {
        form: "dbdfs",
        family: Family::DepthBounded,
        summary: "iterative depth-bounded DFS with thresholds and frontier trees",
        paper: "depth-bounded-dfs-udupa-desai-rajamani",
    },
    StrategyInfo {
        form: "highway",
        family: Family::BreadthBounded,
        summary: "highway simulation: at most N random states per level",
        paper: "breadth-bounded-model-checking-meulen-stappers-willemse",
    },
    StrategyInfo {
        form: "bbmc",
        family: Family::BreadthBounded,
        summary: "breadth-bounded model checking: total slices of at most N states per level",
        paper: "breadth-bounded-model-checking-meulen-stappers-willemse",
    },
    StrategyInfo {
        form: "urs",
        family: Family::Randomized,
        summary: "uniform random search with a memory of N states",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "sdrs",
        family: Family::Randomized,
        summary: "simplified deep random search with a memory of N states",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "rurs",
        family: Family::Randomized,
        summary: "URS restarted when the memory is full",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "rsdrs",
        family: Family::Randomized,
        summary: "SDRS restarted when the memory is full",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
    StrategyInfo {
        form: "random-walk",
        family: Family::Randomized,
        summary: "random walk, restarting at deadlocks",
        paper: "resource-aware-randomized-exploration-abed-tripakis-vincent",
    },
];

impl Strategy {
    /// The names `--strategy` accepts, for messages.
    pub const FORMS: &'static str =
        "bfs, dfs, bbfs:W, alt:B,D, dbdfs, highway, bbmc, urs, sdrs, rurs, rsdrs, random-walk";

    /// One strategy of each registry line (for tables of tests).
    pub const EXAMPLES: [Strategy; 12] = [
        Strategy::Bfs,
        Strategy::Dfs,
        Strategy::Bbfs(Some(4)),
        Strategy::Alt(Some(2), Some(2)),
        Strategy::Dbdfs,
        Strategy::Highway,
        Strategy::Bbmc,
        Strategy::Urs,
        Strategy::Sdrs,
        Strategy::Rurs,
        Strategy::Rsdrs,
        Strategy::RandomWalk,
    ];

    /// The name without parameters.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Bfs => "bfs",
            Strategy::Dfs => "dfs",
            Strategy::Bbfs(_) => "bbfs",
            Strategy::Alt(..) => "alt",
            Strategy::Dbdfs => "dbdfs",
            Strategy::Highway => "highway",
            Strategy::Bbmc => "bbmc",
            Strategy::Urs => "urs",
            Strategy::Sdrs => "sdrs",
            Strategy::Rurs => "rurs",
            Strategy::Rsdrs => "rsdrs",
            Strategy::RandomWalk => "random-walk",
        }
    }

    pub fn info(self) -> &'static StrategyInfo {
        let name = self.name();
        REGISTRY
            .iter()
            .find(|i| i.form.split(':').next() == Some(name))
            .expect("every strategy is in the registry")
    }

    pub fn family(self) -> Family {
        self.info().family
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
        match name {
            "bfs" => no_params(Strategy::Bfs),
            "dfs" => no_params(Strategy::Dfs),
            "bbfs" => {
                let p = params.ok_or("strategy `bbfs` needs a width: bbfs:W (a number or inf)")?;
                match parse_bound(p)? {
                    Some(0) => Err("the width of bbfs must be at least 1".into()),
                    w => Ok(Strategy::Bbfs(w)),
                }
            }
            "alt" => {
                let p = params.ok_or("strategy `alt` needs two depths: alt:B,D (numbers or inf)")?;
                let (b, d) = p
                    .split_once(',')
                    .ok_or_else(|| format!("`{s}`: expected alt:B,D"))?;
                Ok(Strategy::Alt(parse_bound(b)?, parse_bound(d)?))
            }
            "dbdfs" => no_params(Strategy::Dbdfs),
            "highway" => no_params(Strategy::Highway),
            "bbmc" => no_params(Strategy::Bbmc),
            "urs" => no_params(Strategy::Urs),
            "sdrs" => no_params(Strategy::Sdrs),
            "rurs" => no_params(Strategy::Rurs),
            "rsdrs" => no_params(Strategy::Rsdrs),
            "random-walk" => no_params(Strategy::RandomWalk),
            _ => Err(format!(
                "unknown strategy `{s}` (expected one of: {})",
                Strategy::FORMS
            )),
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
/// (`None` / `false` / empty: not given).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    // The general state exploring algorithm (state caching, sweep-line).
    pub cache: Option<CacheSize>,
    pub replacement: Option<Replacement>,
    pub chain_reduction: bool,
    pub edge_lean: bool,
    pub max_visits: Option<f64>,
    pub progress: Vec<String>,
    pub progress_level: Option<u8>,
    pub progress_derivation: Option<Derivation>,
    // Seeded randomness (replacement, slices, randomized searches).
    pub seed: Option<u64>,
    // Depth-bounded DFS.
    pub depth_cutoff: Option<u32>,
    pub increment: Option<u32>,
    pub dbdfs: Option<Variant>,
    pub frontier: Option<FrontierKind>,
    // Breadth-bounded and randomized searches.
    pub breadth: Option<u64>,
    pub degrade_depth: Option<u32>,
    pub runs: Option<u64>,
    pub export_lts: Option<PathBuf>,
    pub memory_states: Option<u64>,
    pub steps: Option<u64>,
    pub mixing: Option<f64>,
    pub restart: Option<Restart>,
    /// Randomized searches: a uniform successor state (default) or transition.
    pub successor_choice: Option<SuccessorChoice>,
    /// Randomized searches: coverage levels (% of |S|) whose cover times
    /// are measured; stop at the last one.
    pub cover_targets: Vec<f64>,
    pub stop_when_covered: bool,
    /// Keep the counters over time at this interval (seconds).
    pub sample_interval: Option<f64>,
    /// The visited set of exhaustive BFS and DFS.
    pub store: Option<crate::search::StoreKind>,
    /// Threads of exhaustive BFS (1: the sequential search).
    pub threads: Option<usize>,
    /// Where the ctree store's BFS keeps its checkpoint
    /// (`search::checkpoint`).
    pub checkpoint: Option<PathBuf>,
}

impl Params {
    /// Whether a caching or sweep-line option turns bfs/dfs into the general
    /// algorithm.
    pub fn general_algorithm(&self) -> bool {
        self.cache.is_some()
            || self.replacement.is_some()
            || self.chain_reduction
            || self.edge_lean
            || self.max_visits.is_some()
            || self.sweep_line()
    }

    /// Whether the sweep-line method is asked for.
    pub fn sweep_line(&self) -> bool {
        !self.progress.is_empty() || self.progress_level.is_some()
    }
}

/// Which strategies take an option.
#[derive(Clone, Copy, Debug)]
pub enum Takers {
    /// Every strategy.
    All,
    /// These strategy names.
    Only(&'static [&'static str]),
}

impl Takers {
    pub fn take(self, s: Strategy) -> bool {
        match self {
            Takers::All => true,
            Takers::Only(names) => names.contains(&s.name()),
        }
    }
}

/// One option of `explore` and the strategies that take it.
#[derive(Clone, Copy, Debug)]
pub struct OptionInfo {
    /// The flag without dashes (`cache`).
    pub flag: &'static str,
    pub takers: Takers,
}

const CACHING: &[&str] = &["bfs", "dfs", "bbfs", "alt"];
const SWEEP: &[&str] = &["bfs", "dfs"];
const SEEDED: &[&str] = &[
    "bfs",
    "dfs",
    "bbfs",
    "alt",
    "highway",
    "bbmc",
    "urs",
    "sdrs",
    "rurs",
    "rsdrs",
    "random-walk",
];
const DBDFS: &[&str] = &["dbdfs"];
const SLICES: &[&str] = &["highway", "bbmc"];
const REPEATED: &[&str] = &["highway", "bbmc", "urs", "sdrs", "rurs", "rsdrs", "random-walk"];
const MEMORY_BOUNDED: &[&str] = &["urs", "sdrs", "rurs", "rsdrs"];
const STEPPED: &[&str] = &["urs", "sdrs", "rurs", "rsdrs", "random-walk"];
const SAMPLED: &[&str] = &["bfs", "dfs", "urs", "sdrs", "rurs", "rsdrs", "random-walk"];
const PROPERTIES: &[&str] = &[
    "bfs",
    "dfs",
    "highway",
    "bbmc",
    "urs",
    "sdrs",
    "rurs",
    "rsdrs",
    "random-walk",
];

/// Every strategy option of `explore` (budgets and general options apply to
/// every strategy and are not listed).
pub const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        flag: "store",
        takers: Takers::Only(&["bfs", "dfs", "dbdfs"]),
    },
    // Every strategy runs on one thread; `validate` says which take more.
    OptionInfo {
        flag: "threads",
        takers: Takers::All,
    },
    OptionInfo {
        flag: "checkpoint",
        takers: Takers::Only(&["bfs"]),
    },
    OptionInfo {
        flag: "cache",
        takers: Takers::Only(CACHING),
    },
    OptionInfo {
        flag: "replacement",
        takers: Takers::Only(CACHING),
    },
    OptionInfo {
        flag: "chain-reduction",
        takers: Takers::Only(CACHING),
    },
    OptionInfo {
        flag: "edge-lean",
        takers: Takers::Only(CACHING),
    },
    OptionInfo {
        flag: "max-visits",
        takers: Takers::Only(CACHING),
    },
    OptionInfo {
        flag: "progress",
        takers: Takers::Only(SWEEP),
    },
    OptionInfo {
        flag: "progress-level",
        takers: Takers::Only(SWEEP),
    },
    OptionInfo {
        flag: "progress-derivation",
        takers: Takers::Only(SWEEP),
    },
    OptionInfo {
        flag: "seed",
        takers: Takers::Only(SEEDED),
    },
    OptionInfo {
        flag: "depth-cutoff",
        takers: Takers::Only(DBDFS),
    },
    OptionInfo {
        flag: "increment",
        takers: Takers::Only(DBDFS),
    },
    OptionInfo {
        flag: "dbdfs",
        takers: Takers::Only(DBDFS),
    },
    OptionInfo {
        flag: "frontier",
        takers: Takers::Only(DBDFS),
    },
    OptionInfo {
        flag: "breadth",
        takers: Takers::Only(SLICES),
    },
    OptionInfo {
        flag: "degrade-depth",
        takers: Takers::Only(&["bbmc"]),
    },
    OptionInfo {
        flag: "export-lts",
        takers: Takers::Only(SLICES),
    },
    OptionInfo {
        flag: "runs",
        takers: Takers::Only(REPEATED),
    },
    OptionInfo {
        flag: "memory-states",
        takers: Takers::Only(MEMORY_BOUNDED),
    },
    OptionInfo {
        flag: "steps",
        takers: Takers::Only(STEPPED),
    },
    OptionInfo {
        flag: "mixing",
        takers: Takers::Only(&["urs", "rurs"]),
    },
    OptionInfo {
        flag: "restart",
        takers: Takers::Only(&["rurs", "rsdrs"]),
    },
    OptionInfo {
        flag: "successor-choice",
        takers: Takers::Only(STEPPED),
    },
    OptionInfo {
        flag: "cover-targets",
        takers: Takers::Only(STEPPED),
    },
    OptionInfo {
        flag: "stop-when-covered",
        takers: Takers::Only(STEPPED),
    },
    OptionInfo {
        flag: "sample-interval",
        takers: Takers::Only(SAMPLED),
    },
    OptionInfo {
        flag: "goal",
        takers: Takers::Only(PROPERTIES),
    },
    OptionInfo {
        flag: "property",
        takers: Takers::Only(PROPERTIES),
    },
    OptionInfo {
        flag: "check",
        takers: Takers::Only(&["bfs", "dfs", "highway", "bbmc"]),
    },
    OptionInfo {
        flag: "all-violations",
        takers: Takers::Only(SWEEP),
    },
    OptionInfo {
        flag: "trace-format",
        takers: Takers::Only(PROPERTIES),
    },
    OptionInfo {
        flag: "stats",
        takers: Takers::Only(SWEEP),
    },
];

/// The registry as `dvemc strategies` prints it: a paragraph a strategy
/// (its form, family and summary, the paper it implements, the options it
/// takes), so that `--help`'s list of names has the details one command
/// away.
pub fn registry_text() -> String {
    let mut out = String::new();
    for (info, s) in REGISTRY.iter().zip(Strategy::EXAMPLES) {
        out += &format!("{:<12} {} ({})\n", info.form, info.summary, info.family.name());
        if !info.paper.is_empty() {
            out += &format!("{:<12} paper: {}\n", "", info.paper);
        }
        out += &format!("{:<12} options: {}\n", "", options_of(s).join(" "));
    }
    out + "Every strategy also takes --backend, the budgets --max-states, --time-limit and\n\
           --memory-limit, and --json (`dvemc explore --help` says what each option does).\n"
}

/// The registry as JSON: one object a strategy (`form`, `family`,
/// `summary`, `paper`, `options`).
pub fn registry_json() -> serde_json::Value {
    REGISTRY
        .iter()
        .zip(Strategy::EXAMPLES)
        .map(|(info, s)| {
            serde_json::json!({
                "form": info.form,
                "family": info.family.name(),
                "summary": info.summary,
                "paper": info.paper,
                "options": options_of(s),
            })
        })
        .collect()
}

/// The options `strategy` takes, as `--flag` texts.
pub fn options_of(strategy: Strategy) -> Vec<String> {
    OPTIONS
        .iter()
        .filter(|o| o.takers.take(strategy))
        .map(|o| format!("--{}", o.flag))
        .collect()
}

/// Checks the options given (`given`: flags without dashes, as in
/// [`OPTIONS`]; others are ignored) against the registry, then the
/// combinations of values. The message names the option and says what
/// would be accepted.
pub fn validate(strategy: Strategy, given: &[&str], p: &Params) -> Result<(), String> {
    for flag in given {
        let Some(o) = OPTIONS.iter().find(|o| o.flag == *flag) else {
            continue;
        };
        if !o.takers.take(strategy) {
            let takes = options_of(strategy);
            let takes = if takes.is_empty() {
                "no strategy options".to_string()
            } else {
                takes.join(", ")
            };
            let takers = match o.takers {
                Takers::All => String::new(),
                Takers::Only(names) => names.join(", "),
            };
            return Err(format!(
                "--{flag} is not an option of --strategy {strategy} (it is one of: {takers}); {strategy} takes {takes}, and the budgets --max-states, --time-limit, --memory-limit"
            ));
        }
    }
    let has = |f: &str| given.contains(&f);
    let plain_exhaustive = matches!(strategy, Strategy::Bfs | Strategy::Dfs) && !p.general_algorithm();
    if has("seed") && plain_exhaustive {
        return Err(format!(
            "--seed: exhaustive {strategy} makes no random choice (the seed drives the cache replacement: give --cache)"
        ));
    }
    if !p.progress.is_empty() && p.progress_level.is_some() {
        return Err("give --progress or --progress-level, not both".into());
    }
    if p.progress_derivation.is_some() && p.progress_level.is_none() {
        return Err(
            "--progress-derivation chooses how --progress-level derives its measure: give --progress-level too".into(),
        );
    }
    if p.replacement.is_some() && p.cache.is_none() {
        return Err("--replacement needs --cache".into());
    }
    if p.general_algorithm() && matches!(strategy, Strategy::Bfs | Strategy::Dfs) {
        for f in ["goal", "property", "all-violations", "stats"] {
            if has(f) {
                return Err(format!(
                    "--{f}: the general algorithm (state caching, sweep-line) explores only; drop the caching options to check properties"
                ));
            }
        }
        if has("check") {
            return Err(
                "--check: the general algorithm (state caching, sweep-line) explores only; drop the caching options to check properties".into(),
            );
        }
    }
    if let Some(path) = &p.export_lts {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext != "aut" && ext != "dot" {
            return Err(format!(
                "--export-lts {}: the format comes from the extension, .aut or .dot",
                path.display()
            ));
        }
    }
    if let Some(x) = p.mixing {
        if !(0.0..=1.0).contains(&x) {
            return Err("--mixing must be between 0 and 1".into());
        }
    }
    if let Some(f) = p.max_visits {
        if !(f > 0.0 && f.is_finite()) {
            return Err("--max-visits must be a positive number".into());
        }
    }
    if matches!(strategy, Strategy::Highway | Strategy::Bbmc) && p.breadth.is_none() {
        return Err(format!(
            "--strategy {strategy} needs a breadth bound: --breadth N"
        ));
    }
    if MEMORY_BOUNDED.contains(&strategy.name()) && p.memory_states.is_none() {
        return Err(format!(
            "--strategy {strategy} needs a memory bound: --memory-states N"
        ));
    }
    if p.stop_when_covered && p.cover_targets.is_empty() {
        return Err("--stop-when-covered needs --cover-targets".into());
    }
    if p.cover_targets.iter().any(|&t| !(t > 0.0 && t <= 100.0)) {
        return Err("--cover-targets: each level is a percentage of |S| above 0 and at most 100".into());
    }
    if p.general_algorithm() && p.store.is_some_and(|s| s != crate::search::StoreKind::Exact) {
        return Err(
            "--store: the general algorithm (state caching, sweep-line) keeps its own cache; --store applies to exhaustive bfs and dfs, and dbdfs".into(),
        );
    }
    if strategy == Strategy::Dfs && p.store.is_some_and(|s| s.is_probabilistic()) {
        return Err(
            "--store compact: hash compaction keeps only the states still to expand, so it serves bfs (a DFS stack goes back to old states)".into(),
        );
    }
    if strategy == Strategy::Dbdfs {
        if let Some(why) = p.store.and_then(crate::dbdfs::store_refusal) {
            return Err(why);
        }
    }
    if strategy == Strategy::Dfs && p.store == Some(crate::search::StoreKind::CTree) {
        return Err(
            "--store ctree: its states have no number, so it serves bfs only (its queue holds them); dfs takes --store tree".into(),
        );
    }
    if p.checkpoint.is_some() && (p.store != Some(StoreKind::CTree) || p.threads.is_some_and(|t| t > 1)) {
        return Err(
            "--checkpoint: the breadth-first search of the ctree store on one thread writes checkpoints (--store ctree)".into(),
        );
    }
    if let Some(t) = p.threads.filter(|t| *t > 1) {
        if let Some(why) = sequential(strategy, p) {
            return Err(format!("--threads {t}: {why}: give --threads 1 or leave it out"));
        }
        if let Some(s) = p
            .store
            .filter(|s| !matches!(s, StoreKind::Exact | StoreKind::Tree))
        {
            return Err(format!(
                "--threads {t}: the parallel search shares the exact store or the tree store (--store exact or tree), not --store {s}"
            ));
        }
    }
    if p.general_algorithm() && has("sample-interval") {
        return Err(
            "--sample-interval: the general algorithm (state caching, sweep-line) does not sample".into(),
        );
    }
    if strategy.family() == Family::Randomized && has("check") {
        return Err(
            "--check: the randomized searches check reachability goals only (--goal, --property), not deadlocks".into(),
        );
    }
    Ok(())
}

/// Why `strategy` runs on one thread only (`None`: exhaustive bfs and dfs,
/// which take `--threads N`).
fn sequential(strategy: Strategy, p: &Params) -> Option<String> {
    if p.general_algorithm() || strategy.family() == Family::Caching {
        return Some("the general algorithm (state caching, sweep-line) is sequential".into());
    }
    Some(match strategy.family() {
        Family::Exhaustive => return None,
        Family::DepthBounded => format!("{strategy} is sequential, each iteration one depth-first search"),
        _ => format!(
            "each run of {strategy} is sequential, and its --runs go side by side on every core (--threads 1: one at a time)"
        ),
    })
}

/// The normalised configuration: the strategy, then its parameters as
/// flags in the order of [`OPTIONS`] (what reports carry in `config`).
pub fn config_text(strategy: Strategy, p: &Params) -> String {
    let mut parts = vec![strategy.to_string()];
    let mut flag = |name: &str, value: Option<String>| {
        parts.push(match value {
            Some(v) => format!("--{name} {v}"),
            None => format!("--{name}"),
        })
    };
    if let Some(s) = p.store.filter(|s| *s != crate::search::StoreKind::Exact) {
        flag("store", Some(s.to_string()));
    }
    if let Some(t) = p.threads.filter(|t| *t > 1) {
        flag("threads", Some(t.to_string()));
    }
    if let Some(c) = p.cache {
        flag("cache", Some(c.to_string()));
    }
    if let Some(r) = p.replacement {
        flag("replacement", Some(r.to_string()));
    }
    if p.chain_reduction {
        flag("chain-reduction", None);
    }
    if p.edge_lean {
        flag("edge-lean", None);
    }
    if let Some(v) = p.max_visits {
        flag("max-visits", Some(v.to_string()));
    }
    if !p.progress.is_empty() {
        flag("progress", Some(p.progress.join(",")));
    }
    if let Some(l) = p.progress_level {
        flag("progress-level", Some(l.to_string()));
    }
    if let Some(d) = p.progress_derivation {
        flag("progress-derivation", Some(d.to_string()));
    }
    if let Some(s) = p.seed {
        flag("seed", Some(s.to_string()));
    }
    if let Some(d) = p.depth_cutoff {
        flag("depth-cutoff", Some(d.to_string()));
    }
    if let Some(i) = p.increment {
        flag("increment", Some(i.to_string()));
    }
    if let Some(v) = p.dbdfs {
        flag("dbdfs", Some(v.to_string()));
    }
    if let Some(f) = p.frontier {
        flag("frontier", Some(f.to_string()));
    }
    if let Some(b) = p.breadth {
        flag("breadth", Some(b.to_string()));
    }
    if let Some(d) = p.degrade_depth {
        flag("degrade-depth", Some(d.to_string()));
    }
    if let Some(r) = p.runs {
        flag("runs", Some(r.to_string()));
    }
    if let Some(m) = p.memory_states {
        flag("memory-states", Some(m.to_string()));
    }
    if let Some(s) = p.steps {
        flag("steps", Some(s.to_string()));
    }
    if let Some(x) = p.mixing {
        flag("mixing", Some(x.to_string()));
    }
    if let Some(r) = p.restart {
        flag("restart", Some(r.name().to_string()));
    }
    if let Some(c) = p.successor_choice {
        flag("successor-choice", Some(c.name().to_string()));
    }
    if !p.cover_targets.is_empty() {
        let t: Vec<String> = p.cover_targets.iter().map(f64::to_string).collect();
        flag("cover-targets", Some(t.join(",")));
    }
    if p.stop_when_covered {
        flag("stop-when-covered", None);
    }
    if let Some(s) = p.sample_interval {
        flag("sample-interval", Some(s.to_string()));
    }
    parts.join(" ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        for s in [
            "bfs",
            "dfs",
            "dbdfs",
            "bbfs:4",
            "bbfs:inf",
            "alt:8,4",
            "alt:inf,0",
            "alt:0,inf",
            "highway",
            "bbmc",
            "urs",
            "sdrs",
            "rurs",
            "rsdrs",
            "random-walk",
        ] {
            assert_eq!(s.parse::<Strategy>().unwrap().to_string(), s);
        }
        assert!("bfs:3".parse::<Strategy>().unwrap_err().contains("no parameters"));
        assert!("nope"
            .parse::<Strategy>()
            .unwrap_err()
            .contains("unknown strategy"));
    }

    #[test]
    fn every_strategy_is_registered_and_options_are_checked() {
        for s in Strategy::EXAMPLES {
            assert_eq!(s.info().form.split(':').next(), Some(s.name()));
        }
        // `registry_text` and `registry_json` pair them by position.
        assert_eq!(REGISTRY.len(), Strategy::EXAMPLES.len());
        for (info, s) in REGISTRY.iter().zip(Strategy::EXAMPLES) {
            assert_eq!(s.info().form, info.form);
        }
        let p = Params::default();
        let e = validate(Strategy::Dbdfs, &["cache"], &p).unwrap_err();
        assert!(
            e.starts_with("--cache is not an option of --strategy dbdfs"),
            "{e}"
        );
        assert!(e.contains("--depth-cutoff"), "{e}");
        assert!(validate(Strategy::Dbdfs, &["increment"], &p).is_ok());
        let e = validate(Strategy::Highway, &["degrade-depth"], &p).unwrap_err();
        assert!(e.contains("not an option of --strategy highway"), "{e}");
        let e = validate(Strategy::Bfs, &["seed"], &p).unwrap_err();
        assert!(e.contains("no random choice"), "{e}");
        let cached = Params {
            cache: Some(CacheSize::Percent(10.0)),
            ..Params::default()
        };
        assert!(validate(Strategy::Bfs, &["seed", "cache"], &cached).is_ok());
        assert!(validate(Strategy::Bfs, &["goal", "cache"], &cached).is_err());
        assert!(validate(Strategy::Urs, &[], &p)
            .unwrap_err()
            .contains("--memory-states"));
        assert_eq!(parse_count("-5").unwrap_err(), "must be a non-negative integer");
        assert_eq!(parse_count("1_000").unwrap(), 1000);
        assert_eq!(parse_positive("0").unwrap_err(), "must be at least 1");
        assert_eq!(config_text(Strategy::Bfs, &cached), "bfs --cache 10%");
    }

    /// `--threads 1` is one thread, which every strategy runs on; more are
    /// refused, with the reason, where the search is sequential.
    #[test]
    fn every_strategy_takes_one_thread_and_only_bfs_dfs_more() {
        for s in Strategy::EXAMPLES {
            let threads = |t| Params {
                threads: Some(t),
                breadth: Some(2),
                memory_states: Some(10),
                ..Params::default()
            };
            assert_eq!(validate(s, &["threads"], &threads(1)), Ok(()), "{s}");
            let more = validate(s, &["threads"], &threads(2));
            if matches!(s, Strategy::Bfs | Strategy::Dfs) {
                assert_eq!(more, Ok(()), "{s}");
            } else {
                let e = more.unwrap_err();
                assert!(
                    e.starts_with("--threads 2: ") && e.contains("sequential"),
                    "{s}: {e}"
                );
            }
        }
        let cached = Params {
            threads: Some(2),
            cache: Some(CacheSize::Percent(10.0)),
            ..Params::default()
        };
        let e = validate(Strategy::Bfs, &["threads", "cache"], &cached).unwrap_err();
        assert!(e.contains("the general algorithm"), "{e}");
    }
}
