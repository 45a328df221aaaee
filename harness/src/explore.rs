//! `dvemc explore`: the options (the model, budgets, properties and output
//! here; the strategies' from the run layer's table, `table_args`; all
//! checked by `dvemc_run::run::validate`), the run (`dvemc_run::run`) and
//! its report.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::parser::ValueSource;
use clap::{ArgMatches, ValueEnum};
use dvemc_run::algo::check::Checks;
use dvemc_run::engine::progress::Meter;
use dvemc_run::engine::units::parse_duration;
use dvemc_run::engine::Limits;
use dvemc_run::output::record::{MemoryBudget, RunRecord};
use dvemc_run::run::strategy::{parse_count, Strategy};
use dvemc_run::run::{Request, RunError};

use crate::progress::{Ticker, TickerText};
use crate::table_args::TableArgs;
use crate::values::{parse_memory_limit, MemoryArg};
use dvemc_run::run::options::heading;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// Native code generated with Cranelift (the default).
    Jit,
    /// The reference interpreter (the JIT's oracle).
    Interp,
}

impl BackendArg {
    pub fn backend(self) -> dvemc_run::model::backend::Backend {
        match self {
            BackendArg::Jit => dvemc_run::model::backend::Backend::Jit,
            BackendArg::Interp => dvemc_run::model::backend::Backend::Interp,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckArg {
    /// A state with no enabled transition.
    Deadlock,
    /// A failed `assert`.
    Assert,
    /// A run-time error of a transition (e.g. an array index out of range).
    Error,
    /// No state check (explore only).
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceFormat {
    /// Readable text, a step after another.
    Text,
    /// One JSON object.
    Json,
}

/// The options of `explore`. The first paragraph of each doc comment is the
/// one line of `-h`; `--help` and the man page give them all. Options
/// that only tune a choice made by another are left out of `-h`
/// (`hide_short_help`), so that it fits a screen.
#[derive(clap::Args, Debug)]
// Our own help flag, so that it and the model sit under the first heading
// (clap's would open a section of its own, two lines more in `-h`).
// Positionals come last in a section unless told otherwise: the model
// first, the options from 1 on.
#[command(disable_help_flag = true, next_display_order = 1)]
pub struct ExploreArgs {
    /// A .dve file or a BEEM instance (adding.1) [default: the built-in example]
    ///
    /// An instance name is looked up in the BEEM directory (--beem). Without
    /// a model, the built-in example (two dining philosophers) is explored.
    #[arg(display_order = 0, help_heading = heading::MODEL)]
    pub model: Option<PathBuf>,
    /// Search strategy (`dvemc strategies` lists them)
    ///
    /// One of bfs, dfs, bbfs:W, alt:B,D, dbdfs, highway, bbmc, urs, sdrs,
    /// rurs, rsdrs, random-walk; `dvemc strategies` gives what each does,
    /// its paper and the options it takes. bfs and dfs explore every reachable state;
    /// the others are bounded (state caching, depth- or breadth-bounded) or
    /// randomized searches. The headings below name the strategies that
    /// take each group of options.
    #[arg(long, value_name = "SPEC", default_value = "bfs", help_heading = heading::MODEL)]
    pub strategy: Strategy,
    /// Successor generator
    #[arg(long, value_enum, value_name = "NAME", default_value_t = BackendArg::Jit, help_heading = heading::MODEL)]
    pub backend: BackendArg,
    /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
    ///
    /// Without --beem: the environment's BEEM_DIR, else ../shared/beem near
    /// the working directory or the executable.
    #[arg(long, value_name = "DIR", help_heading = heading::MODEL)]
    pub beem: Option<PathBuf>,
    // The strategy options come from the run layer's table (`table_args`):
    // here --seed, --runs, --por, --por-check.
    #[command(flatten)]
    _table0: TableArgs<0>,
    /// Explore the plain system of a model that has a property process
    #[arg(long, hide_short_help = true, help_heading = heading::MODEL)]
    pub ignore_property: bool,
    /// Print help (see more with '--help')
    #[arg(short, long, action = clap::ArgAction::Help, help_heading = heading::MODEL,
        long_help = "Print help (see a summary with '-h')")]
    help: Option<bool>,

    /// Stop (exit 4) when one more state than N would be stored
    ///
    /// The result is `state_limit`.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true, help_heading = heading::BUDGETS)]
    pub max_states: Option<u64>,
    /// Stop (exit 4) after this much wall time: 90, 2.5, 30s, 5m, 1h
    ///
    /// Seconds, or a number with a unit. The result is `time_limit`; the
    /// budget covers loading and compiling the model too.
    #[arg(long, value_name = "SECONDS", value_parser = parse_duration, allow_negative_numbers = true, help_heading = heading::BUDGETS)]
    pub time_limit: Option<Duration>,
    /// Stop (exit 4) before the search's memory passes BYTES: 512M, 4G, none
    ///
    /// The state store and the search structures are kept within BYTES (the
    /// result is `memory_limit`); loading and compiling the model are held
    /// to it too, with some slack. Suffixes: K/M/G/T or KiB/MiB/GiB/TiB
    /// (powers of 1024), KB/MB/GB/TB (powers of 1000). Without this option
    /// the limit is four fifths of the memory available when the run starts
    /// (MemAvailable, and the cgroup's memory.max; $DVEMC_MEMORY_AVAILABLE
    /// replaces both), except with --distributed; `none` lifts it.
    #[arg(long, value_name = "BYTES", value_parser = parse_memory_limit, allow_negative_numbers = true, help_heading = heading::BUDGETS)]
    pub memory_limit: Option<MemoryArg>,

    /// State checks: deadlock, assert, error, none [default: assert]
    ///
    /// Comma-separated: deadlock (a state with no enabled transition),
    /// assert (a failed assert), error (a run-time error of a transition,
    /// e.g. an array index out of range), none. Taken by bfs, dfs, highway
    /// and bbmc; the randomized searches check reachability goals only
    /// (--goal, --property). A violation stops the search with a
    /// counterexample, unless --all-violations.
    // The values are in the line above: clap's list would make it too long.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "assert",
        hide_default_value = true, hide_possible_values = true, help_heading = heading::PROPERTIES)]
    pub check: Vec<CheckArg>,
    /// Stop at a state that satisfies this DVE expression (repeatable)
    ///
    /// A reachability goal over the model's variables and process states
    /// (`P.s`, `P->v`). A goal reached stops the search with a path to it.
    #[arg(long, value_name = "EXPR", help_heading = heading::PROPERTIES)]
    pub goal: Vec<String>,
    /// Check BEEM property N of the instance (properties.csv)
    ///
    /// A reachability goal, or an LTL property through the product
    /// `<instance>.propN.dve`, whose accepting cycles the nested DFS seeks.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32), help_heading = heading::PROPERTIES)]
    pub property: Option<u32>,
    /// Check an LTL formula, e.g. 'G (P_0.wait -> F P_0.CS)'
    ///
    /// Atomic propositions are DVE expressions over the model (`x > 3`,
    /// `P.state`, `P->v`, `a[i]`); operators as `dvemc ltl2ba` takes them.
    /// The automaton of the negated formula becomes the model's property
    /// process and the nested DFS seeks accepting cycles of the product.
    /// For a BEEM instance the names of its family file may be used.
    #[arg(long, value_name = "FORMULA", conflicts_with_all = ["property", "ltl_file"], help_heading = heading::PROPERTIES)]
    pub ltl: Option<String>,
    /// Check a property of a DiVinE .ltl file (`#define NAME expr`, `#property formula`)
    #[arg(long, value_name = "FILE", conflicts_with = "property", hide_short_help = true, help_heading = heading::PROPERTIES)]
    pub ltl_file: Option<PathBuf>,
    /// Which property of --ltl-file, from 1 [default: 1]
    #[arg(long, value_name = "K", requires = "ltl_file", hide_short_help = true,
        value_parser = clap::value_parser!(u32).range(1..), help_heading = heading::PROPERTIES)]
    pub ltl_property: Option<u32>,
    /// Count every violation instead of stopping at the first (bfs, dfs)
    #[arg(long, help_heading = heading::PROPERTIES)]
    pub all_violations: bool,

    /// Print one JSON object on standard output (an error too)
    #[arg(long, help_heading = heading::OUTPUT)]
    pub json: bool,
    /// Also print the statistics of BEEM's stat.xml files (bfs, dfs)
    ///
    /// The BFS level table and the DFS edge classes in the form of BEEM's
    /// stats/*.stat.xml files, compared with them when the model is a BEEM
    /// instance that has one.
    #[arg(long, help_heading = heading::OUTPUT)]
    pub stats: bool,
    /// How to print a counterexample: text or json [default: text]
    ///
    /// text: readable, a step a line, after the summary. json: standard
    /// output holds the counterexample alone, one JSON object (nothing when
    /// none was found), and the summary goes to standard error, so that it
    /// pipes into JSON tools. With --json the counterexample is the
    /// record's `trace`.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = TraceFormat::Text,
        hide_default_value = true, hide_possible_values = true, help_heading = heading::OUTPUT)]
    pub trace_format: TraceFormat,
    /// Write the counterexample to FILE as JSON, for `dvemc simulate --replay`
    ///
    /// The object of --trace-format json, whatever the report's format;
    /// no file when the search found none.
    #[arg(long, value_name = "FILE", hide_short_help = true, help_heading = heading::OUTPUT)]
    pub trace_out: Option<PathBuf>,
    // --export, --export-state-labels, --sample-interval.
    #[command(flatten)]
    _table1: TableArgs<1>,
    #[command(flatten)]
    pub progress_display: crate::progress::ProgressArgs,
    // --store and --threads.
    #[command(flatten)]
    _table2: TableArgs<2>,
    /// Search over the ranks of an MPI job: mpirun -np N dvemc explore --distributed
    ///
    /// Exhaustive bfs, and its checks of deadlocks, assertions, goals and
    /// run-time errors, with every state owned by one rank (by hash) and
    /// stored in that rank's exact or tree store; the same states,
    /// transitions, levels and deadlocks as one process. Rank 0 prints the
    /// one report, with `ranks` and each rank's figures. --max-states is
    /// global, --memory-limit per rank. Needs a dvemc built with
    /// `cargo build --release --features mpi`.
    #[arg(long, hide_short_help = true, help_heading = heading::MODEL)]
    pub distributed: bool,
    /// How --distributed spreads the states over the ranks: whole, local
    ///
    /// `whole` (the default) hashes the whole state: the ranks own nearly
    /// equal shares, and most successors go to another rank. `local` hashes
    /// only the bytes that most transitions leave alone, chosen from a
    /// sample of the state space, or the whole state where no such bytes
    /// spread the sample evenly: most successors stay on their source's
    /// rank (fewer bytes sent, and a state reached twice is looked up twice
    /// on one rank, the second time cheaply), but the shares are only as
    /// even as the sample foretells (each rank's `states` in the report
    /// tells). Cannot be combined with --checkpoint.
    #[arg(long, value_name = "HOW", default_value = "whole", requires = "distributed", hide_short_help = true, help_heading = heading::MODEL)]
    pub partition: dvemc_run::engine::comm::Partitioning,
    // Every other strategy option: --checkpoint, the caching, depth-bounded,
    // breadth-bounded and randomized ones.
    #[command(flatten)]
    _table3: TableArgs<3>,
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
        let params = crate::table_args::params(matches);
        Request {
            model: self.model.clone(),
            beem: self.beem.clone(),
            strategy: Some(self.strategy),
            params,
            limits: Limits {
                max_states: self.max_states,
                time: self.time_limit,
                memory_bytes: match self.memory_limit {
                    Some(MemoryArg::Bytes(b)) => Some(b),
                    _ => None,
                },
            },
            backend: self.backend.backend(),
            goals: self.goal.clone(),
            property: self.property,
            ltl: match (&self.ltl, &self.ltl_file) {
                (Some(text), _) => Some(dve_frontend::ltl::Spec::Formula {
                    text: text.clone(),
                    definitions: Vec::new(),
                }),
                (None, Some(path)) => Some(dve_frontend::ltl::Spec::File {
                    path: path.clone(),
                    index: self.ltl_property.unwrap_or(1) as usize,
                }),
                (None, None) => None,
            },
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
            cluster: None,
        }
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
    if e.kind == dvemc_run::run::ErrorKind::Input && e.line.is_some() {
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
    // MPI lives as long as the run; only rank 0 reports.
    let _mpi = if args.distributed {
        match mpi_cluster(args.partition) {
            Ok((universe, cluster)) => {
                req.cluster = Some(cluster);
                Some(universe)
            }
            Err(e) => return report_error(&e, args.json),
        }
    } else {
        None
    };
    let quiet = req.cluster.as_ref().is_some_and(|c| c.0.rank() != 0);
    // Each rank of a distributed run cannot tell how many share its
    // machine: no default there.
    let memory_default = args.memory_limit.is_none() && !args.distributed;
    if memory_default {
        match dvemc_run::run::memory_budget::default_limit() {
            Ok(limit) => req.limits.memory_bytes = limit,
            Err(e) => return report_error(&RunError::usage(e), args.json),
        }
    }
    let memory_default = memory_default && req.limits.memory_bytes.is_some();
    dvemc_run::run::arm_guard_reports(
        args.json,
        req.limits.memory_bytes,
        memory_default,
        req.limits.time,
    );
    req.default_threads = match dvemc_run::run::default_threads() {
        Ok(t) => Some(t),
        Err(e) => return report_error(&e, args.json),
    };
    dvemc_run::engine::guard::set_memory_cap(
        req.limits
            .memory_bytes
            .map(dvemc_run::run::memory_budget::memory_cap),
    );
    let meter = match req.params.sample_interval {
        Some(s) => Meter::sampling(Duration::from_secs_f64(s)),
        None => Meter::new(),
    };
    req.meter = Some(meter.clone());
    let ticker = (!quiet).then(|| ticker(args, &req, &meter)).flatten();
    let ran = dvemc_run::run::run(&req);
    if let Some(t) = ticker {
        t.finish();
    }
    if quiet {
        return ran.map_or_else(|e| e.exit_code(), |r| r.record.exit_code());
    }
    let mut ran = match ran {
        Ok(r) => r,
        Err(e) => return report_error(&e, args.json),
    };
    ran.record.details.memory_budget = req.limits.memory_bytes.map(|bytes| MemoryBudget {
        bytes,
        default: memory_default,
    });
    for n in &ran.notes {
        eprintln!("dvemc: {n}");
    }
    if let (Some(path), Some(t)) = (&args.trace_out, &ran.trace) {
        let json = dvemc_run::output::counterexample::to_json(&ran.info, t);
        let body = serde_json::to_string_pretty(&json).unwrap_or_default() + "\n";
        if let Err(e) = std::fs::write(path, body) {
            eprintln!("dvemc: error: --trace-out: cannot write {}: {e}", path.display());
            return 3;
        }
    }
    let rec = &ran.record;
    let mut text = Vec::new();
    if args.json {
        let _ = writeln!(text, "{}", serde_json::to_string(rec).unwrap_or_default());
    } else {
        let mut human = Vec::new();
        let _ = rec.write_human(&mut human);
        if args.stats {
            let _ = dvemc_run::output::stat_xml::write(&mut human, rec, ran.reference.as_ref());
        }
        match (&ran.trace, args.trace_format) {
            (Some(t), TraceFormat::Text) => {
                let _ = writeln!(human);
                let _ = dvemc_run::output::counterexample::write_text(&mut human, &ran.info, t);
            }
            (Some(t), TraceFormat::Json) => {
                let json = dvemc_run::output::counterexample::to_json(&ran.info, t);
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
    if let Some(e) = rec.details.expected_omissions {
        eprintln!(
            "dvemc: probabilistic store: about {e:.3e} states expected to be taken for stored ones (the search is exact with probability about {:.6})",
            (-e).exp()
        );
    }
    if code == 4 {
        eprintln!(
            "dvemc: search incomplete ({}){}",
            rec.core.result,
            budget_text(rec, &req.limits)
        );
    }
    code
}

/// The progress line of the run, if one is shown: its third counter's
/// name and the states expected (the budget, or |S| from instances.csv).
fn ticker(args: &ExploreArgs, req: &Request, meter: &Meter) -> Option<Ticker> {
    let expected = req
        .limits
        .max_states
        .or_else(|| {
            let inst = req.model.as_deref()?;
            let (_, name) = dvemc_run::run::resolve_model(inst, req.beem.as_deref()).ok()?;
            dvemc_run::run::known_size(&name?, req.beem.as_deref())
        })
        .filter(|_| req.strategy.is_some_and(|s| s.keeps_visited_set()));
    args.progress_display.display().and_then(|display| {
        Ticker::start(
            meter,
            TickerText {
                // The third counter: a depth-first search's depth, a random
                // search's restarts, any other's BFS level (or queue).
                depth_name: if args.strategy == Strategy::Dfs {
                    "depth"
                } else if args.strategy.family() == dvemc_run::run::strategy::Family::Randomized {
                    "restarts"
                } else {
                    "level"
                },
                expected_states: expected,
            },
            display,
        )
    })
}

/// The ranks of the MPI job this process is one of, the states spread
/// over them by `partitioning`.
#[cfg(feature = "mpi")]
fn mpi_cluster(
    partitioning: dvemc_run::engine::comm::Partitioning,
) -> Result<
    (
        dvemc_run::engine::comm::mpi::Universe,
        dvemc_run::engine::comm::Cluster,
    ),
    RunError,
> {
    let (universe, world) = dvemc_run::engine::comm::mpi::initialize()
        .ok_or_else(|| RunError::usage("--distributed: MPI was initialised already"))?;
    Ok((
        universe,
        dvemc_run::engine::comm::Cluster(std::sync::Arc::new(world), partitioning),
    ))
}

#[cfg(not(feature = "mpi"))]
fn mpi_cluster(
    _: dvemc_run::engine::comm::Partitioning,
) -> Result<((), dvemc_run::engine::comm::Cluster), RunError> {
    Err(RunError::usage(
        "--distributed: this dvemc was built without MPI; build it with `cargo build --release --features mpi` (needs OpenMPI or MPICH, and libclang) and start it with mpirun",
    ))
}

/// What the budget that ended a run was.
fn budget_text(rec: &RunRecord, limits: &Limits) -> String {
    use dvemc_run::engine::Outcome;
    match rec.core.result {
        Outcome::StateLimit => format!(
            ": state limit of {} states reached",
            limits.max_states.unwrap_or(0)
        ),
        Outcome::TimeLimit => format!(
            ": time limit of {} s reached",
            limits.time.map(|d| d.as_secs_f64()).unwrap_or(0.0)
        ),
        Outcome::MemoryLimit => {
            let h = dvemc_run::output::record::human_bytes;
            let limit = h(limits.memory_bytes.unwrap_or(0));
            let mut t = match rec.distributed.as_ref().and_then(|d| d.ranks) {
                Some(n) => format!(": memory limit of {limit} per rank reached ({n} ranks)"),
                None if rec.details.memory_budget.is_some_and(|b| b.default) => format!(
                    ": default memory limit of {limit} reached (four fifths of the memory available at the start; --memory-limit sets another, `none` lifts it)"
                ),
                None => format!(": memory limit of {limit} reached"),
            };
            if let Some(n) = &rec.details.memory_need {
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
