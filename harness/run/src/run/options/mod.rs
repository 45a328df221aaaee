//! Which strategies take which option of `explore` ([`OPTIONS`], declared
//! once in [`table`]: flag, help, heading, how a value sets the
//! parameters and how the configuration text shows it), the check of what
//! was given against it and of the combinations ([`validate`]: the
//! takers here, then the strategy's family, `crate::run::family`), and the
//! registry as `dvemc strategies` prints it.

pub mod heading;
mod table;
pub mod values;

pub(crate) use table::MEMORY_BOUNDED;
pub use table::OPTIONS;

use crate::engine::StoreKind;
use crate::run::strategy::*;

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
    /// How the command line declares it, and how its value sets the
    /// [`Params`]; `None`: a general option of `explore` (a property, the
    /// output), which the command line declares with the others.
    pub arg: Option<ArgInfo>,
    /// How the configuration text ([`config_text`]) shows it (`None`: it
    /// does not, or it returns `None` when the option was not given).
    pub show: Option<fn(&Params) -> Option<Shown>>,
}

/// How `explore` declares a strategy option.
#[derive(Clone, Copy, Debug)]
pub struct ArgInfo {
    /// The value's name in the help (`None`: a switch, without value).
    pub value_name: Option<&'static str>,
    /// The line of `-h`; `--help` adds [`ArgInfo::more`].
    pub help: &'static str,
    /// The paragraphs `--help` adds after the line.
    pub more: Option<&'static str>,
    /// The heading of `explore --help` it is listed under.
    pub heading: &'static str,
    /// Listed by `-h` too (else only by `--help`, so that `-h` fits a screen).
    pub short_help: bool,
    /// An older name still accepted.
    pub alias: Option<&'static str>,
    /// Comma-separated values, and the option repeatable.
    pub list: bool,
    /// A value may look like a negative number (so that the parser, not
    /// the command line, says what is wrong with it).
    pub negative: bool,
    /// A value may start with a hyphen.
    pub hyphen: bool,
    /// The option is taken only with this one (a flag without dashes).
    pub requires: Option<&'static str>,
    pub set: Set,
}

/// How an option sets the parameters.
#[derive(Clone, Copy, Debug)]
pub enum Set {
    /// A switch, given.
    Switch(fn(&mut Params)),
    /// A value (for a list: one of its values), or why it is not one.
    Value(fn(&mut Params, &str) -> Result<(), String>),
    /// A file name (any bytes the system takes).
    Path(fn(&mut Params, std::path::PathBuf)),
}

/// An option as the configuration text shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Switch,
    Value(String),
}

impl OptionInfo {
    /// The option's help with `--help`: the line, then the paragraphs.
    pub fn long_help(&self) -> Option<String> {
        let a = self.arg.as_ref()?;
        a.more.map(|more| format!("{}\n\n{more}", a.help))
    }
}

/// The normalised configuration: the strategy, then its parameters as
/// flags in the order of the option table, each value a shell word (the
/// start of what reports carry in `config`).
pub fn config_text(strategy: Strategy, p: &Params) -> String {
    let mut parts = vec![strategy.to_string()];
    for o in OPTIONS {
        match o.show.and_then(|show| show(p)) {
            Some(Shown::Switch) => parts.push(format!("--{}", o.flag)),
            Some(Shown::Value(v)) => parts.push(format!("--{} {}", o.flag, shell_word(&v))),
            None => {}
        }
    }
    parts.join(" ")
}

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
/// Why a search on one machine cannot write the checkpoint `p` asks for
/// (`None`: it can, or there is none); a distributed one says its own.
pub fn checkpoint_refusal(p: &Params) -> Option<String> {
    (p.checkpoint.is_some() && (p.store != Some(StoreKind::CTree) || p.threads.is_some_and(|t| t > 1))).then(|| {
        "--checkpoint: the breadth-first search of the ctree store on one thread writes checkpoints (--store ctree), and so does --distributed".into()
    })
}

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
    if !p.caching.progress.is_empty() && p.caching.progress_level.is_some() {
        return Err("give --sweep-measure or --sweep-level, not both".into());
    }
    if p.caching.progress_derivation.is_some() && p.caching.progress_level.is_none() {
        return Err(
            "--sweep-derivation chooses how --sweep-level derives its measure: give --sweep-level too".into(),
        );
    }
    if p.caching.replacement.is_some() && p.caching.cache.is_none() {
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
    if p.por || p.por_check {
        let flag = if p.por_check { "--por-check" } else { "--por" };
        if let Some(option) = p.general_option() {
            return Err(format!(
                "{flag}: {option} asks for the general algorithm (state caching, sweep-line), which is not reduced; drop one of them"
            ));
        }
        if p.store.is_some_and(|s| s != crate::engine::StoreKind::Exact) {
            return Err(format!(
                "{flag}: the reduced search keeps the exact store (its cycle proviso looks states up); drop --store"
            ));
        }
        if has("checkpoint") {
            return Err(format!("{flag} does not take --checkpoint"));
        }
        if has("stats") {
            return Err(format!(
                "{flag}: --stats compares with BEEM's figures of the full state space; drop one of them"
            ));
        }
    }
    if let Some(path) = &p.export {
        export_refusal(path, p, &has)?;
    }
    if let Some(x) = p.random.mixing {
        if !(0.0..=1.0).contains(&x) {
            return Err("--mixing must be between 0 and 1".into());
        }
    }
    if let Some(f) = p.caching.max_visits {
        if !(f > 0.0 && f.is_finite()) {
            return Err("--max-visits must be a positive number".into());
        }
    }
    if matches!(strategy, Strategy::Highway | Strategy::Bbmc) && p.slices.breadth.is_none() {
        return Err(format!(
            "--strategy {strategy} needs a breadth bound: --breadth N"
        ));
    }
    if MEMORY_BOUNDED.contains(&strategy.name()) && p.random.memory_states.is_none() {
        return Err(format!(
            "--strategy {strategy} needs a memory bound: --memory-states N"
        ));
    }
    if p.random.stop_when_covered && p.random.cover_targets.is_empty() {
        return Err("--stop-when-covered needs --cover-targets".into());
    }
    if p.random.cover_targets.iter().any(|&t| !(t > 0.0 && t <= 100.0)) {
        return Err("--cover-targets: each level is a percentage of |S| above 0 and at most 100".into());
    }
    if p.general_algorithm() && p.store.is_some_and(|s| s != crate::engine::StoreKind::Exact) {
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
        if let Some(why) = p.store.and_then(crate::algo::dbdfs::store_refusal) {
            return Err(why);
        }
    }
    if strategy == Strategy::Dfs && p.store == Some(crate::engine::StoreKind::CTree) {
        return Err(
            "--store ctree: its states have no number, so it serves bfs only (its queue holds them); dfs takes --store tree".into(),
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
pub(crate) fn sequential(strategy: Strategy, p: &Params) -> Option<String> {
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

/// Why `--export FILE` cannot be written with the other options given.
fn export_refusal(path: &std::path::Path, p: &Params, has: &dyn Fn(&str) -> bool) -> Result<(), String> {
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
        if has(flag) {
            return Err(format!(
                "--export writes the model's whole state space; it does not take --{flag}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::caching::CacheSize;

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
