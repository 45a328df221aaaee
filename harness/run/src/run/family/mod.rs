//! One shape for every search family ([`Algorithm`]): its refusals of a
//! request, checked before any model is loaded (every one in its
//! `validate`, after the options' takers, `options::refuse_untaken`), why
//! it runs on one thread, and its run, whose report becomes its part of
//! the record. [`algorithm`] is the table that gives a request its family.

mod caching;
mod depth;
mod exhaustive;
mod randomized;
mod slices;

use exhaustive::distributed_strategy_refusal;

use dve_frontend::model::{ModelInfo, NextState};

use super::ltl_por::Stated;
use super::request::{Request, RunError};
use crate::algo::caching::Independence;
use crate::algo::check::Goal;
use crate::engine::{Limits, StoreKind, Trace};
use crate::model::beem::StatFile;
use crate::output::record::RunRecord;
use crate::run::options;
use crate::run::strategy::{Family, Params, Strategy};

/// A family of strategies: exhaustive, the general algorithm (state
/// caching, sweep-line), depth-bounded, breadth-bounded, randomized.
pub(crate) trait Algorithm: Sync {
    /// Why `strategy` cannot run with these parameters (`given`: the flags
    /// on the command line, without dashes, each one taken by `strategy`),
    /// in the words the command line shows.
    fn validate(&self, strategy: Strategy, given: &[&str], p: &Params) -> Result<(), String>;

    /// Why `strategy` runs on one thread only (`None`: it takes
    /// `--threads N`).
    fn sequential(&self, strategy: Strategy) -> Option<String>;

    /// Why `strategy` cannot search a model with a property process
    /// (`None`: it searches the product for accepting cycles).
    fn product_refusal(&self, strategy: Strategy) -> Option<String>;

    /// Runs the search on the loaded model and writes its report into
    /// `rec`; returns what else it found.
    fn run(&self, search: Search<'_>, rec: &mut RunRecord) -> Result<Found, RunError>;
}

/// A run's loaded model and what the request asks of it.
pub(crate) struct Search<'a> {
    pub model: &'a dyn NextState,
    /// With `--por` and a property process: the system alone, which the
    /// reduced LTL check explores first (`crate::model::backend::Built::system`).
    pub system: Option<&'a dyn NextState>,
    pub ir: &'a dve_frontend::ir::Model,
    pub info: &'a ModelInfo,
    pub strategy: Strategy,
    pub req: &'a Request,
    /// The request's parameters as the run takes them (its default threads).
    pub p: &'a Params,
    pub goals: Vec<Goal>,
    pub has_asserts: bool,
    /// The model's digest, which a checkpoint keeps.
    pub digest: u64,
    pub instance: Option<&'a str>,
    pub stated: Stated<'a>,
    /// The sweep-line measure given (`--sweep-measure`), compiled.
    pub progress_exprs: Vec<dve_frontend::ir::Expr>,
    pub independence: Option<&'a Independence>,
    pub notes: &'a mut Vec<String>,
}

/// What a search found besides its record.
#[derive(Default)]
pub(crate) struct Found {
    pub trace: Option<Trace>,
    /// BEEM's figures of the instance (`--stats`).
    pub reference: Option<StatFile>,
}

/// The family that runs `strategy` with these parameters: bfs and dfs
/// with a caching or sweep-line option run the general algorithm.
pub(crate) fn algorithm(strategy: Strategy, p: &Params) -> &'static dyn Algorithm {
    match strategy.family() {
        Family::Exhaustive if !p.general_algorithm() => &exhaustive::Exhaustive,
        Family::Exhaustive | Family::Caching => &caching::Caching,
        Family::DepthBounded => &depth::DepthBounded,
        Family::BreadthBounded => &slices::Slices,
        Family::Randomized => &randomized::Randomized,
    }
}

/// Checks the options given (`given`: flags without dashes, as in
/// `options::OPTIONS`; others are ignored) against the registry, then
/// the combinations of values, by the strategy's family. The message
/// names the option and says what would be accepted.
pub fn validate(strategy: Strategy, given: &[&str], p: &Params) -> Result<(), String> {
    options::refuse_untaken(strategy, given)?;
    algorithm(strategy, p).validate(strategy, given, p)
}

/// Every refusal of a request before its model is loaded: [`validate`],
/// then those of where it runs (one machine's checkpoint, a distributed
/// search's strategy).
pub(crate) fn validate_request(strategy: Strategy, req: &Request) -> Result<(), RunError> {
    let p = &req.params;
    let given: Vec<&str> = req.given.iter().map(String::as_str).collect();
    validate(strategy, &given, p).map_err(RunError::usage)?;
    match &req.cluster {
        None => match options::checkpoint_refusal(p) {
            Some(why) => Err(RunError::usage(why)),
            None => Ok(()),
        },
        Some(_) => distributed_strategy_refusal(strategy, p),
    }
}

/// `--threads N` above 1: refused where the family is sequential, and
/// with a store the parallel search does not share.
fn threads_refusal(family: &dyn Algorithm, strategy: Strategy, p: &Params) -> Result<(), String> {
    let Some(t) = p.threads.filter(|t| *t > 1) else {
        return Ok(());
    };
    if let Some(why) = family.sequential(strategy) {
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
    Ok(())
}

/// `--por` and `--por-check` with other options of bfs and dfs.
fn por_refusal(p: &Params, given: &[&str]) -> Result<(), String> {
    if !(p.por || p.por_check) {
        return Ok(());
    }
    let flag = if p.por_check { "--por-check" } else { "--por" };
    if let Some(option) = p.general_option() {
        return Err(format!(
            "{flag}: {option} asks for the general algorithm (state caching, sweep-line), which is not reduced; drop one of them"
        ));
    }
    if p.store.is_some_and(|s| s != StoreKind::Exact) {
        return Err(format!(
            "{flag}: the reduced search keeps the exact store (its cycle proviso looks states up); drop --store"
        ));
    }
    if given.contains(&"checkpoint") {
        return Err(format!("{flag} does not take --checkpoint"));
    }
    if given.contains(&"stats") {
        return Err(format!(
            "{flag}: --stats compares with BEEM's figures of the full state space; drop one of them"
        ));
    }
    Ok(())
}

/// Why `--export FILE` cannot be written with the other options given.
fn export_refusal(p: &Params, given: &[&str]) -> Result<(), String> {
    let Some(path) = &p.export else {
        return Ok(());
    };
    if crate::algo::lts::Format::of(path).is_none() {
        return Err(format!(
            "--export {}: the format comes from the extension: .aut (Aldebaran) or .dot (Graphviz)",
            path.display()
        ));
    }
    if p.general_algorithm() {
        return Err(
            "--export: the general algorithm (state caching, sweep-line) forgets states; drop one of them"
                .into(),
        );
    }
    if p.store.is_some_and(|s| s != StoreKind::Exact) {
        return Err("--export numbers the states by the exact store; drop --store".into());
    }
    for flag in [
        "por",
        "por-check",
        "checkpoint",
        "distributed",
        "ltl",
        "ltl-file",
        "ltl-property",
    ] {
        if given.contains(&flag) {
            return Err(format!(
                "--export writes the model's whole state space; it does not take --{flag}"
            ));
        }
    }
    Ok(())
}

/// Why a seeded search runs on one thread: its runs go side by side.
fn runs_side_by_side(strategy: Strategy) -> String {
    format!(
        "each run of {strategy} is sequential, and its --runs go side by side on every core (--threads 1: one at a time)"
    )
}

/// How many of `runs` seeded runs go at once: one a core, or one at a time
/// under `--threads 1` (each run is sequential).
fn workers(p: &Params, runs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    p.threads.unwrap_or(cores).min(runs).max(1)
}

/// The budgets of each of `workers` runs made at once: the memory is
/// shared between them.
fn per_run(limits: &Limits, workers: usize) -> Limits {
    Limits {
        memory_bytes: limits.memory_bytes.map(|m| m / workers.max(1) as u64),
        ..*limits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::caching::CacheSize;
    use crate::run::options::config_text;
    use crate::run::strategy::*;

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
            caching: CachingParams {
                cache: Some(CacheSize::Percent(10.0)),
                ..CachingParams::default()
            },
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
        assert_eq!(shell_word("x + 1,it's"), r"'x + 1,it'\''s'");
    }

    /// `--threads 1` is one thread, which every strategy runs on; more are
    /// refused, with the reason, where the search is sequential.
    #[test]
    fn every_strategy_takes_one_thread_and_only_bfs_dfs_more() {
        for s in Strategy::EXAMPLES {
            let threads = |t| Params {
                threads: Some(t),
                slices: SliceParams {
                    breadth: Some(2),
                    ..SliceParams::default()
                },
                random: RandomParams {
                    memory_states: Some(10),
                    ..RandomParams::default()
                },
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
            caching: CachingParams {
                cache: Some(CacheSize::Percent(10.0)),
                ..CachingParams::default()
            },
            ..Params::default()
        };
        let e = validate(Strategy::Bfs, &["threads", "cache"], &cached).unwrap_err();
        assert!(e.contains("the general algorithm"), "{e}");
    }
}
