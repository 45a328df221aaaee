//! `dvemc explore`: the options (every strategy's, checked by the registry,
//! `harness::strategy`), the run (`harness::run`) and its report.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::parser::ValueSource;
use clap::{ArgMatches, ValueEnum};
use harness::bench::util::{parse_bytes, parse_duration};
use harness::caching::{CacheSize, Derivation, Replacement};
use harness::check::Checks;
use harness::dbdfs::{FrontierKind, Variant};
use harness::manifest::StatFile;
use harness::random_search::{Restart, SuccessorChoice};
use harness::record::RunRecord;
use harness::run::{Request, RunError};
use harness::search::progress::{Meter, Ticker, TickerText};
use harness::search::Limits;
use harness::strategy::{parse_count, parse_depth, parse_positive, Params, Strategy};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// Native code generated with Cranelift (the default).
    Jit,
    /// The reference interpreter (the JIT's oracle).
    Interp,
}

impl BackendArg {
    pub fn backend(self) -> harness::backend::Backend {
        match self {
            BackendArg::Jit => harness::backend::Backend::Jit,
            BackendArg::Interp => harness::backend::Backend::Interp,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckArg {
    Deadlock,
    Assert,
    Error,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceFormat {
    Text,
    Json,
}

fn fraction(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| "must be a number from 0 to 1".to_string())?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err("must be a number from 0 to 1".into())
    }
}
fn factor(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| "must be a positive number".to_string())?;
    if x > 0.0 && x.is_finite() {
        Ok(x)
    } else {
        Err("must be a positive number".into())
    }
}
fn percent(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| "must be a percentage above 0 and at most 100".to_string())?;
    if x > 0.0 && x <= 100.0 {
        Ok(x)
    } else {
        Err("must be a percentage above 0 and at most 100".into())
    }
}
fn seconds(s: &str) -> Result<f64, String> {
    let x = factor(s).map_err(|_| "must be a positive number of seconds".to_string())?;
    Duration::try_from_secs_f64(x)
        .map(|_| x)
        .map_err(|_| "is too long a duration".to_string())
}
fn level(s: &str) -> Result<u8, String> {
    match parse_count(s) {
        Ok(l) if l <= 5 => Ok(l as u8),
        _ => Err("must be a level from 0 to 5".into()),
    }
}

/// The options of `explore`.
#[derive(clap::Args, Debug)]
pub struct ExploreArgs {
    /// A .dve file, or a BEEM instance name such as `adding.1`; without it,
    /// the built-in example (two dining philosophers).
    pub model: Option<PathBuf>,
    /// Search strategy: bfs, dfs, bbfs:W, alt:B,D, dbdfs, highway, bbmc,
    /// urs, sdrs, rurs, rsdrs or random-walk (`dvemc strategies` lists
    /// them with the options each takes).
    #[arg(long, value_name = "SPEC", default_value = "bfs")]
    pub strategy: Strategy,
    /// Successor generator.
    #[arg(long, value_enum, default_value_t = BackendArg::Jit)]
    pub backend: BackendArg,
    /// Stop (exit 4, result state_limit) when one more state than N would be
    /// stored.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true)]
    pub max_states: Option<u64>,
    /// Stop (exit 4, result time_limit) after this much wall time: seconds,
    /// or with a unit (`90`, `2.5`, `30s`, `5m`, `1h`).
    #[arg(long, value_name = "SECONDS", value_parser = parse_duration, allow_negative_numbers = true)]
    pub time_limit: Option<Duration>,
    /// Stop (exit 4, result memory_limit) before the state store and search
    /// structures would grow past this many bytes. Suffixes: K/M/G/T or
    /// KiB/MiB/GiB/TiB (powers of 1024), KB/MB/GB/TB (powers of 1000).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, allow_negative_numbers = true)]
    pub memory_limit: Option<u64>,
    /// Also print the BFS level table and the DFS edge classes in the form
    /// of BEEM's stats/*.stat.xml files (and compare with them when the
    /// model is a BEEM instance that has one).
    #[arg(long)]
    pub stats: bool,
    /// Print exactly one JSON object on standard output (an error too).
    #[arg(long)]
    pub json: bool,
    /// BEEM directory; default: $BEEM_DIR, else ../shared/beem near the
    /// working directory or the executable.
    #[arg(long, value_name = "DIR")]
    pub beem: Option<PathBuf>,
    /// A reachability goal: a DVE expression over the model's variables and
    /// process states (`P.s`, `P->v`); the search stops when a state
    /// satisfies it. May be repeated.
    #[arg(long, value_name = "EXPR")]
    pub goal: Vec<String>,
    /// Check BEEM property N of this instance (properties.csv): a
    /// reachability goal, or an LTL property through `<instance>.propN.dve`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32))]
    pub property: Option<u32>,
    /// State checks: any of deadlock, assert, error (run-time errors), none.
    /// Assertions are checked by default.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "assert")]
    pub check: Vec<CheckArg>,
    /// Count every violation instead of stopping at the first.
    #[arg(long)]
    pub all_violations: bool,
    /// Explore the plain system of a model with a property process.
    #[arg(long)]
    pub ignore_property: bool,
    /// How to print a counterexample: text (after the summary) or json
    /// (standard output holds the counterexample alone, one JSON object,
    /// nothing when none was found; the summary goes to standard error).
    /// With --json the counterexample is the record's `trace`.
    #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
    pub trace_format: TraceFormat,

    /// The visited set of exhaustive bfs and dfs, and of dbdfs (exact or
    /// tree): exact (every state whole),
    /// tree (exact, tree-compressed: long state vectors that share parts
    /// cost a fraction of their length), ctree (bfs only; exact, the tree
    /// with its roots in a compact set: the fewest bytes per state; its
    /// states have no number, so back-level edges are not counted),
    /// compact[:BITS] (bfs only; hash
    /// compaction, probabilistic: a BITS-bit fingerprint per state, 64 by
    /// default, so states may be omitted; the result is `probabilistic`
    /// with `expected_omissions`) or bitstate[:LOG2M[,K]] (bfs only;
    /// probabilistic: 2^LOG2M bits, K set per state; default 2^30 bits,
    /// 3) [default: exact].
    #[arg(long, value_name = "NAME")]
    pub store: Option<harness::search::StoreKind>,
    /// Threads of exhaustive bfs (level-synchronous over a shared exact
    /// or tree store; same states, transitions, levels and deadlocks as one
    /// thread) and dfs (a stack per thread over the shared store, in a
    /// depth-first-like order; same states, transitions and deadlocks,
    /// no edge classes), their checks of deadlocks, assertions, goals and
    /// run-time errors included (bfs: a shortest counterexample, as with
    /// one thread; dfs: a path of the search); accepting cycles
    /// (--property) are searched by the sequential nested DFS. 1: the
    /// sequential search [default for bfs in the exact store: every core,
    /// or the environment's DVEMC_THREADS; otherwise 1: the shared tree
    /// store takes about twice the sequential one's bytes per state].
    /// Every other strategy is sequential and takes 1 only (highway, bbmc
    /// and the randomized searches then make their --runs one at a time
    /// rather than side by side on every core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// bfs --store ctree: go on from the checkpoint FILE if it exists, and
    /// write one there if the search stops for time, memory or Ctrl-C
    /// (result time_limit, memory_limit or interrupted, exit 4), so that
    /// the same command run again goes on where it stopped; a search that
    /// ends removes it (one stopped by --max-states leaves it as it was).
    /// The record's `checkpoint` gives the parts and the seconds before
    /// this one; rates count every part.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// State caching (bfs, dfs, bbfs:W, alt:B,D): keep at most SIZE states
    /// in memory, or P% of the state space (0 < P <= 100; |S| from
    /// instances.csv, else from an exhaustive run first).
    #[arg(long, value_name = "SIZE|P%", allow_hyphen_values = true)]
    pub cache: Option<CacheSize>,
    /// Cache replacement strategy: random, depth-min, depth-max, indegree,
    /// outdegree, visits, stratified[:K], age, indegree-max, outdegree-max,
    /// visits-max, newest, or FIRST+THEN (a first key, ties broken by
    /// random, newest, depth, indegree, outdegree or visits; e.g.
    /// depth-max+random) [default: random].
    #[arg(long, value_name = "NAME")]
    pub replacement: Option<Replacement>,
    /// Single-successor chain reduction (state-caching paper, Sect. 4.1).
    #[arg(long)]
    pub chain_reduction: bool,
    /// Edge-lean reduction with static transition independence.
    #[arg(long)]
    pub edge_lean: bool,
    /// End the run (result visit_limit) when visits exceed F × |S| [default: 5].
    #[arg(long, value_name = "F", value_parser = factor, allow_negative_numbers = true)]
    pub max_visits: Option<f64>,
    /// Sweep-line method (bfs, dfs) with this progress measure: DVE
    /// expressions compared lexicographically (comma-separated or repeated).
    #[arg(long, value_name = "EXPR", value_delimiter = ',')]
    pub progress: Vec<String>,
    /// Sweep-line method with the automatic progress measure of level L
    /// (0: no regress transition; 1-5: at most 1, 2, 5, 10, 20 %), derived
    /// from an exhaustive run first.
    #[arg(long, value_name = "L", value_parser = level, allow_negative_numbers = true)]
    pub progress_level: Option<u8>,
    /// How the automatic measure is derived: `projection` (our
    /// reconstruction of Sect. 5.2: the components that each decrease on at
    /// most the level's share of the transitions changing them) or `greedy`
    /// (refined while the whole vector's regress transitions stay within the
    /// level's share) [default: projection].
    #[arg(long, value_name = "HOW")]
    pub progress_derivation: Option<Derivation>,
    /// Seed of the random choices (cache replacement, slices, randomized
    /// searches) [default: 0].
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// dbdfs: the depth cutoff (the last bound); default: go on until the
    /// frontier is empty.
    #[arg(long, value_name = "D", value_parser = parse_depth, allow_negative_numbers = true)]
    pub depth_cutoff: Option<u32>,
    /// dbdfs: the depth increment between iterations [default: 50].
    #[arg(long, value_name = "I", value_parser = parse_depth, allow_negative_numbers = true)]
    pub increment: Option<u32>,
    /// dbdfs: the bounded DFS of each iteration: naive-unsound, naive-sound
    /// or threshold [default: threshold].
    #[arg(long, value_name = "VARIANT")]
    pub dbdfs: Option<Variant>,
    /// dbdfs: how frontier states are kept: states, traces or tree
    /// [default: tree].
    #[arg(long, value_name = "REPR")]
    pub frontier: Option<FrontierKind>,

    /// highway, bbmc: the breadth bound N (most states per queue).
    #[arg(long, value_name = "N", value_parser = parse_positive, allow_negative_numbers = true)]
    pub breadth: Option<u64>,
    /// bbmc: graceful degradation from depth D on (Algorithm 3).
    #[arg(long, value_name = "D", value_parser = parse_depth, allow_negative_numbers = true)]
    pub degrade_depth: Option<u32>,
    /// highway, bbmc: write the slice of the first run as Aldebaran (.aut)
    /// or Graphviz (.dot, small slices) by the file's extension.
    #[arg(long, value_name = "FILE")]
    pub export_lts: Option<PathBuf>,
    /// highway, bbmc and the randomized searches: repeat the seeded run R
    /// times (seeds drawn from --seed) and report means and the witness
    /// rate [default: 1].
    #[arg(long, value_name = "R", value_parser = parse_positive, allow_negative_numbers = true)]
    pub runs: Option<u64>,
    /// urs, sdrs, rurs, rsdrs: the memory bound N (most states stored).
    #[arg(long, value_name = "N", value_parser = parse_positive, allow_negative_numbers = true)]
    pub memory_states: Option<u64>,
    /// urs, sdrs, rurs, rsdrs, random-walk: most steps [default: 1000000].
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true)]
    pub steps: Option<u64>,
    /// urs, rurs: the mixing parameter X in [0, 1], the probability of
    /// selecting a leaf (a stored state not selected yet) rather than an
    /// internal node [default: uniform over the memory].
    #[arg(long, value_name = "X", value_parser = fraction, allow_negative_numbers = true)]
    pub mixing: Option<f64>,
    /// rurs, rsdrs: where to restart when the memory is full: initial or
    /// random [default: initial].
    #[arg(long, value_name = "FROM")]
    pub restart: Option<Restart>,
    /// urs, sdrs, rurs, rsdrs, random-walk: how a step chooses among the
    /// successors: `state` (a uniformly random successor state, the paper's
    /// choice) or `transition` (a uniformly random transition: a state
    /// reached by several transitions is more likely) [default: state].
    #[arg(long, value_name = "HOW")]
    pub successor_choice: Option<SuccessorChoice>,
    /// urs, sdrs, rurs, rsdrs, random-walk: measure the cover times of
    /// these coverage levels, in % of |S| (e.g. 60,70,80,90,100; |S| from
    /// instances.csv).
    #[arg(long, value_name = "P,...", value_delimiter = ',', value_parser = percent)]
    pub cover_targets: Vec<f64>,
    /// Stop a run when it reaches the last --cover-targets level.
    #[arg(long)]
    pub stop_when_covered: bool,
    /// bfs, dfs and the randomized searches: keep the counters (states,
    /// transitions or steps) every SECONDS, in the record's `samples`.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub sample_interval: Option<f64>,
}

impl ExploreArgs {
    /// The request, with the options given on the command line (from
    /// `matches`, the subcommand's) for the registry's checks.
    pub fn request(&self, matches: &ArgMatches) -> Request {
        let given: Vec<String> = matches
            .ids()
            .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
            .map(|id| id.as_str().replace('_', "-"))
            .collect();
        let params = Params {
            cache: self.cache,
            replacement: self.replacement,
            chain_reduction: self.chain_reduction,
            edge_lean: self.edge_lean,
            max_visits: self.max_visits,
            progress: self.progress.clone(),
            progress_level: self.progress_level,
            progress_derivation: self.progress_derivation,
            seed: self.seed,
            depth_cutoff: self.depth_cutoff,
            increment: self.increment,
            dbdfs: self.dbdfs,
            frontier: self.frontier,
            breadth: self.breadth,
            degrade_depth: self.degrade_depth,
            runs: self.runs,
            export_lts: self.export_lts.clone(),
            memory_states: self.memory_states,
            steps: self.steps,
            mixing: self.mixing,
            successor_choice: self.successor_choice,
            restart: self.restart,
            cover_targets: self.cover_targets.clone(),
            stop_when_covered: self.stop_when_covered,
            sample_interval: self.sample_interval,
            store: self.store,
            threads: self.threads.map(|t| t as usize),
            checkpoint: self.checkpoint.clone(),
        };
        Request {
            model: self.model.clone(),
            beem: self.beem.clone(),
            strategy: Some(self.strategy),
            params,
            limits: Limits {
                max_states: self.max_states,
                time: self.time_limit,
                memory_bytes: self.memory_limit,
            },
            backend: self.backend.backend(),
            goals: self.goal.clone(),
            property: self.property,
            checks: Checks {
                deadlock: self.check.contains(&CheckArg::Deadlock),
                assert: self.check.contains(&CheckArg::Assert),
                error: self.check.contains(&CheckArg::Error),
            },
            all_violations: self.all_violations,
            ignore_property: self.ignore_property,
            stats: self.stats,
            given,
            meter: None,
            default_threads: None,
        }
    }
}

/// The threads of an exhaustive breadth-first run without --threads: the
/// environment's `DVEMC_THREADS` (the bench runner sets 1 for its
/// children), else every core.
fn default_threads() -> Result<usize, RunError> {
    match std::env::var("DVEMC_THREADS") {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(t) if (1..=1024).contains(&t) => Ok(t),
            _ => Err(RunError::usage(format!(
                "DVEMC_THREADS={v}: must be a number of threads from 1 to 1024"
            ))),
        },
        Err(_) => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Writes `text` to standard output; a closed pipe (`dvemc ... | head`) is
/// not an error of the run.
pub fn write_stdout(text: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Reports an error: with `--json` as a JSON object on standard output,
/// else on standard error; returns the exit code.
pub fn report_error(e: &RunError, json: bool) -> u8 {
    if json {
        let text = serde_json::to_string(&e.to_record()).unwrap_or_default();
        let _ = write_stdout(format!("{text}\n").as_bytes());
    }
    if e.kind == harness::run::ErrorKind::Input && e.line.is_some() {
        // A model diagnostic: it already names file, line and column.
        eprintln!("{}", e.message);
    } else {
        eprintln!("dvemc: error: {}", e.message);
    }
    e.exit_code()
}

/// Runs `explore`; returns the exit code.
pub fn explore(args: &ExploreArgs, matches: &ArgMatches) -> u8 {
    let mut req = args.request(matches);
    harness::guard::set_report(args.json, req.limits.memory_bytes, req.limits.time);
    req.default_threads = match default_threads() {
        Ok(t) => Some(t),
        Err(e) => return report_error(&e, args.json),
    };
    harness::guard::set_memory_cap(req.limits.memory_bytes.map(memory_cap));
    let meter = match args.sample_interval {
        Some(s) => Meter::sampling(Duration::from_secs_f64(s)),
        None => Meter::new(),
    };
    req.meter = Some(meter.clone());
    let expected = req
        .limits
        .max_states
        .or_else(|| {
            let inst = req.model.as_deref()?;
            let (_, name) = harness::run::resolve_model(inst, req.beem.as_deref());
            harness::run::known_size(&name?, req.beem.as_deref())
        })
        .filter(|_| req.strategy.is_some_and(|s| s.keeps_visited_set()));
    let ticker = Ticker::start(
        &meter,
        TickerText {
            // The third counter: a depth-first search's depth, a random
            // search's restarts, any other's BFS level (or queue).
            depth_name: if args.strategy == Strategy::Dfs {
                "depth"
            } else if args.strategy.family() == harness::strategy::Family::Randomized {
                "restarts"
            } else {
                "level"
            },
            expected_states: expected,
        },
    );
    let ran = harness::run::run(&req);
    if let Some(t) = ticker {
        t.finish();
    }
    let ran = match ran {
        Ok(r) => r,
        Err(e) => return report_error(&e, args.json),
    };
    for n in &ran.notes {
        eprintln!("dvemc: {n}");
    }
    let rec = &ran.record;
    let mut text = Vec::new();
    if args.json {
        let _ = writeln!(text, "{}", serde_json::to_string(rec).unwrap_or_default());
    } else {
        let mut human = Vec::new();
        let _ = rec.write_human(&mut human);
        if args.stats {
            let _ = print_stats(&mut human, rec, ran.reference.as_ref());
        }
        match (&ran.trace, args.trace_format) {
            (Some(t), TraceFormat::Text) => {
                let _ = writeln!(human);
                let _ = harness::trace::write_text(&mut human, &ran.info, t);
            }
            (Some(t), TraceFormat::Json) => {
                let json = harness::trace::to_json(&ran.info, t);
                let _ = writeln!(
                    text,
                    "{}",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                );
            }
            (None, _) => {}
        }
        // A JSON trace owns standard output, so that it pipes into JSON
        // tools; the summary is for the person watching.
        if args.trace_format == TraceFormat::Json {
            let _ = std::io::stderr().write_all(&human);
        } else {
            text = human;
        }
    }
    if let Err(e) = write_stdout(&text) {
        eprintln!("dvemc: error: writing the report: {e}");
        return 3;
    }
    let code = rec.exit_code();
    if let Some(e) = rec.expected_omissions {
        eprintln!(
            "dvemc: probabilistic store: about {e:.3e} states expected to be taken for stored ones (the search is exact with probability about {:.6})",
            (-e).exp()
        );
    }
    if code == 4 {
        eprintln!(
            "dvemc: search incomplete ({}){}",
            rec.result,
            budget_text(rec, &req.limits)
        );
    }
    code
}

/// The heap the process may use under `--memory-limit L`: L plus a slack
/// for what the search's own accounting does not count (successor
/// buffers, the model, the compiler's working memory): a quarter of L, at
/// least 64 MiB.
pub fn memory_cap(limit: u64) -> u64 {
    limit.saturating_add((limit / 4).max(64 << 20))
}

/// What the budget that ended a run was.
fn budget_text(rec: &RunRecord, limits: &Limits) -> String {
    use harness::search::Outcome;
    match rec.result {
        Outcome::StateLimit => format!(
            ": state limit of {} states reached",
            limits.max_states.unwrap_or(0)
        ),
        Outcome::TimeLimit => format!(
            ": time limit of {} s reached",
            limits.time.map(|d| d.as_secs_f64()).unwrap_or(0.0)
        ),
        Outcome::MemoryLimit => {
            let h = harness::record::human_bytes;
            let mut t = format!(
                ": memory limit of {} reached",
                h(limits.memory_bytes.unwrap_or(0))
            );
            if let Some(n) = &rec.memory_need {
                t += &format!(
                    " ({} allocated, {} of queues; the next batch could add {} to the root set, {} to the inner tables, {} to the next level's queue)",
                    h(n.store),
                    h(n.queues),
                    h(n.root_set_growth),
                    h(n.tables_growth),
                    h(n.queue_growth)
                );
            }
            t
        }
        Outcome::Interrupted => ": interrupted".into(),
        _ => String::new(),
    }
}

/// The statistics in the element form of BEEM's stat.xml files; with a
/// reference, mismatching values are flagged.
fn print_stats(out: &mut impl Write, r: &RunRecord, reference: Option<&StatFile>) -> std::io::Result<()> {
    fn cmp(ours: u64, theirs: Option<u64>) -> String {
        match theirs {
            Some(t) if t == ours => "  <!-- = BEEM -->".to_string(),
            Some(t) => format!("  <!-- BEEM: {t} -->"),
            None => String::new(),
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "<states>{}</states>{}",
        r.states,
        cmp(r.states, reference.map(|s| s.states))
    )?;
    writeln!(
        out,
        "<edges>{}</edges>{}",
        r.transitions,
        cmp(r.transitions, reference.map(|s| s.edges))
    )?;
    if let Some(levels) = r.levels {
        writeln!(out, "<bfs-info>")?;
        writeln!(
            out,
            " <levels>{levels}</levels>{}",
            cmp(levels, reference.map(|s| s.levels))
        )?;
        if let Some(m) = r.max_level_states {
            writeln!(
                out,
                "<max-level>{m}</max-level>{}",
                cmp(m, reference.and_then(|s| s.max_level))
            )?;
        }
        if let Some(b) = r.back_level_edges {
            writeln!(
                out,
                "<back-level-edges>{b}</back-level-edges>{}",
                cmp(b, reference.map(|s| s.back_level_edges))
            )?;
        }
        if let Some(m) = r.max_back_level_edge {
            writeln!(
                out,
                "<max-back-level-edge>{m}</max-back-level-edge>{}",
                cmp(m, reference.and_then(|s| s.max_back_level_edge))
            )?;
        }
        if let Some(table) = &r.level_table {
            writeln!(out, "<bfs-levels>")?;
            for l in table {
                let theirs = reference.and_then(|s| s.bfs_levels.get(l.level as usize));
                let note = match theirs {
                    Some(t) if t.states == l.states && t.edges == l.edges => String::new(),
                    Some(t) => format!("  <!-- BEEM: {} states, {} edges -->", t.states, t.edges),
                    None if reference.is_some() => "  <!-- BEEM: no such level -->".to_string(),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "<level id=\"{}\"><states>{}</states><edges>{}</edges><back-level-edges>{}</back-level-edges></level>{note}",
                    l.level, l.states, l.edges, l.back_level_edges
                )?;
            }
            writeln!(out, "</bfs-levels>")?;
        }
        writeln!(out, "</bfs-info>")?;
    }
    if let (Some(max_stack), Some(front), Some(back), Some(cross)) = (
        r.dfs_max_stack,
        r.dfs_front_edges,
        r.dfs_back_edges,
        r.dfs_cross_edges,
    ) {
        let rd = reference.and_then(|s| s.dfs);
        writeln!(out, "<dfs-info>")?;
        writeln!(
            out,
            "<max-stack>{max_stack}</max-stack>{}",
            cmp(max_stack, rd.map(|x| x.max_stack))
        )?;
        writeln!(
            out,
            "<front-edges>{front}</front-edges>{}",
            cmp(front, rd.map(|x| x.front_edges))
        )?;
        writeln!(
            out,
            "<back-edges>{back}</back-edges>{}",
            cmp(back, rd.map(|x| x.back_edges))
        )?;
        writeln!(
            out,
            "<cross-edges>{cross}</cross-edges>{}",
            cmp(cross, rd.map(|x| x.cross_edges))
        )?;
        writeln!(out, "</dfs-info>")?;
    }
    Ok(())
}
