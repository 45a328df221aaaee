//! `dvemc`: the command line of the DVE model checker.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use harness::bench::util::{parse_bytes, parse_duration};
use harness::check::{CheckOptions, Checks, Goal, Search, Verdict};
use harness::explore::{self, ExploreOptions, Limits, Outcome, Report, Strategy};
use harness::manifest::{Beem, PropertyKind, StatFile};
use harness::spec::Spec;

/// The model explored when `explore` is given no MODEL.
const EMBEDDED_NAME: &str = "phils2.dve";
const EMBEDDED_SOURCE: &str = include_str!("../../../beem/examples/phils2.dve");

const EXIT_OK: u8 = 0;
/// A property was violated (for `verify-beem`: a count differs from BEEM's).
const EXIT_VIOLATED: u8 = 1;
// 2 = usage error, produced by clap itself.
const EXIT_INPUT: u8 = 3;
const EXIT_BUDGET: u8 = 4;

const EXIT_CODES: &str = "\
Exit codes:
  0  run complete (explore) / model ok (check)
  1  a property was violated (verify-beem: some count differs from BEEM)
  2  usage error (unknown option, bad value)
  3  input error: missing or unreadable file, malformed model, BEEM directory not found
  4  budget exhausted: the state, time or memory limit stopped the run";

#[derive(Parser, Debug)]
#[command(
    name = "dvemc",
    version,
    about = "Explicit-state model checker for DVE models (BEEM benchmark suite)",
    after_long_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of the biggest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Benchmark matrices: run (with resume and shards), list, report,
    /// merge, slurm, compare (see results/SCHEMA.md).
    Bench {
        #[command(subcommand)]
        command: harness::bench::cli::BenchCommand,
    },
    /// Parse and check a model; print a one-line summary.
    #[command(after_long_help = EXIT_CODES)]
    Check {
        /// A .dve file, or a BEEM instance name such as `adding.1`.
        model: PathBuf,
        /// BEEM directory (for instance names); default: $BEEM_DIR or ../shared/beem.
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Explore the whole state space and print statistics.
    #[command(after_long_help = EXIT_CODES)]
    Explore(ExploreArgs),
    /// Follow one path through the state space: seeded random choices
    /// (--random) or choices read from standard input (--guided).
    #[command(after_long_help = EXIT_CODES)]
    Simulate(SimulateArgs),
    /// Explore every complete BEEM instance up to a size (BFS) and compare
    /// its state count with instances.csv; write a CSV report.
    #[command(after_long_help = EXIT_CODES)]
    /// Check every BEEM property with a recorded answer (reachability by
    /// BFS, LTL by nested DFS) whose instance has at most N states; compare
    /// with properties.csv and write a CSV report.
    #[command(after_long_help = EXIT_CODES)]
    VerifyProperties {
        /// Largest instance to run, by BEEM's state count (also the state
        /// budget of each product).
        #[arg(long, value_name = "N", default_value_t = 2_000_000)]
        max_states: u64,
        /// The CSV report.
        #[arg(long, value_name = "FILE", default_value = "results/properties-verify.csv")]
        out: PathBuf,
        /// BEEM directory; default: $BEEM_DIR, else ../shared/beem.
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Compare the JIT with the interpreter on every BEEM file (instances and
    /// property products): successor lists (labels, error flags, states, in
    /// order) and fingerprints of every reachable state, whole state spaces
    /// up to a size.
    VerifyJit {
        /// Largest state space compared whole; larger ones are compared on
        /// their first N states (BFS) and reported as `too_large`.
        #[arg(long, value_name = "N", default_value_t = 200_000)]
        max_states: usize,
        /// Files compared at once.
        #[arg(long, value_name = "N", default_value_t = 2)]
        jobs: usize,
        /// The CSV report (model, result, states, transitions, compile_ms, seconds, detail).
        #[arg(long, value_name = "FILE", default_value = "results/jit-verify.csv")]
        out: PathBuf,
        /// BEEM directory; default: $BEEM_DIR, else ../shared/beem.
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    VerifyBeem {
        /// Largest instance to run, by BEEM's state count.
        #[arg(long, value_name = "N", default_value_t = 20_000_000)]
        max_states: u64,
        /// The CSV report (instance, expected, got, match, seconds, bytes_per_state, result).
        #[arg(long, value_name = "FILE", default_value = "results/beem-verify.csv")]
        out: PathBuf,
        /// Memory budget of each run (same suffixes as `explore --memory-limit`).
        #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
        memory_limit: Option<u64>,
        /// BEEM directory; default: $BEEM_DIR, else ../shared/beem.
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    /// Native code generated with Cranelift (the default).
    Jit,
    /// The reference interpreter (the JIT's oracle).
    Interp,
}

impl BackendArg {
    fn backend(self) -> harness::backend::Backend {
        match self {
            BackendArg::Jit => harness::backend::Backend::Jit,
            BackendArg::Interp => harness::backend::Backend::Interp,
        }
    }
}

/// Builds the chosen successor generator; says so when the JIT declines.
fn make_model(ir: dve_frontend::ir::Model, arg: BackendArg) -> harness::backend::Built {
    let built = harness::backend::build(ir, arg.backend());
    if let Some(why) = &built.fallback {
        eprintln!("dvemc: the JIT declined this model ({why}); using the interpreter");
    }
    built
}

#[derive(clap::Args, Debug)]
struct ExploreArgs {
    /// A .dve file, or a BEEM instance name such as `adding.1`; without it,
    /// the built-in example (two dining philosophers).
    model: Option<PathBuf>,
    /// Search strategy: bfs, dfs, bbfs:W, alt:B,D, dbdfs, highway, bbmc,
    /// urs, sdrs, rurs, rsdrs or random-walk (see the README for each
    /// algorithm's parameters).
    #[arg(long, value_name = "SPEC", default_value = "bfs")]
    strategy: Spec,
    /// Successor generator.
    #[arg(long, value_enum, default_value_t = BackendArg::Jit)]
    backend: BackendArg,
    /// Stop (exit 4) when one more state than N would be stored.
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Stop (exit 4) after this much wall time: seconds, or with a unit
    /// (`90`, `2.5`, `30s`, `5m`, `1h`).
    #[arg(long, value_name = "SECONDS", value_parser = parse_duration)]
    time_limit: Option<Duration>,
    /// Stop (exit 4) before the state store and search stack would grow past
    /// this many bytes. Suffixes: K/M/G/T or KiB/MiB/GiB/TiB (powers of 1024),
    /// KB/MB/GB/TB (powers of 1000).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    memory_limit: Option<u64>,
    /// Also print the BFS level table and the DFS edge classes in the form
    /// of BEEM's stats/*.stat.xml files (and compare with them when the
    /// model is a BEEM instance that has one).
    #[arg(long)]
    stats: bool,
    /// Print exactly one JSON object on standard output.
    #[arg(long)]
    json: bool,
    /// BEEM directory; default: $BEEM_DIR, else ../shared/beem near the
    /// working directory or the executable.
    #[arg(long, value_name = "DIR")]
    beem: Option<PathBuf>,
    /// A reachability goal: a DVE expression over the model's variables and
    /// process states (`P.s`, `P->v`); the search stops when a state
    /// satisfies it. May be repeated.
    #[arg(long, value_name = "EXPR")]
    goal: Vec<String>,
    /// Check BEEM property N of this instance (properties.csv): a
    /// reachability goal, or an LTL property through `<instance>.propN.dve`.
    #[arg(long, value_name = "N")]
    property: Option<u32>,
    /// State checks: any of deadlock, assert, error (run-time errors), none.
    /// Assertions are checked by default.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "assert")]
    check: Vec<CheckArg>,
    /// Count every violation instead of stopping at the first.
    #[arg(long)]
    all_violations: bool,
    /// Explore the plain system of a model with a property process.
    #[arg(long)]
    ignore_property: bool,
    /// How to print a counterexample.
    #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
    trace_format: TraceFormat,
    /// dbdfs: the depth cutoff (the last bound); default: go on until the
    /// frontier is empty.
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..))]
    depth_cutoff: Option<u32>,
    /// dbdfs: the depth increment between iterations [default: 50].
    #[arg(long, value_name = "I", value_parser = clap::value_parser!(u32).range(1..))]
    increment: Option<u32>,
    /// dbdfs: the bounded DFS of each iteration: naive-unsound, naive-sound
    /// or threshold [default: threshold].
    #[arg(long, value_name = "VARIANT")]
    dbdfs: Option<harness::dbdfs::Variant>,
    /// dbdfs: how frontier states are kept: states, traces or tree
    /// [default: tree].
    #[arg(long, value_name = "REPR")]
    frontier: Option<harness::dbdfs::FrontierKind>,
    /// State caching (bbfs:W, alt:B,D, and bfs/dfs with these options).
    #[command(flatten)]
    caching: harness::caching::cli::CachingArgs,
    /// Breadth-bounded (highway, bbmc) and randomized (urs, sdrs, rurs,
    /// rsdrs, random-walk) strategies.
    #[command(flatten)]
    bounded: harness::bbmc::cli::BoundedArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum CheckArg {
    Deadlock,
    Assert,
    Error,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    Text,
    Json,
}

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["random", "guided"])))]
struct SimulateArgs {
    /// A .dve file, or a BEEM instance name such as `adding.1`; without it,
    /// the built-in example (two dining philosophers).
    model: Option<PathBuf>,
    /// Take a uniformly random enabled transition at each step (reproducible
    /// with --seed); stop after --steps steps or at a deadlock.
    #[arg(long)]
    random: bool,
    /// At each step list the enabled transitions and read a line from
    /// standard input: a transition number, `back` (undo) or `quit`.
    #[arg(long)]
    guided: bool,
    /// Seed of the random choices (--random only).
    #[arg(long, value_name = "S", default_value_t = 0, conflicts_with = "guided")]
    seed: u64,
    /// Most steps to take (--random only).
    #[arg(long, value_name = "N", default_value_t = 100, conflicts_with = "guided")]
    steps: u64,
    /// BEEM directory (for instance names); default: $BEEM_DIR, else
    /// ../shared/beem near the working directory or the executable.
    #[arg(long, value_name = "DIR")]
    beem: Option<PathBuf>,
}

/// An error that already carries its full message (a model diagnostic).
#[derive(Debug)]
struct Printed(String);

impl std::fmt::Display for Printed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Printed {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if let Some(p) = e.downcast_ref::<Printed>() {
                eprintln!("{p}");
            } else {
                eprintln!("dvemc: error: {e:#}");
            }
            ExitCode::from(EXIT_INPUT)
        }
    }
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Bench { command } => harness::bench::cli::run(command),
        Command::Check { model, beem } => check(&model, beem.as_deref()),
        Command::Explore(args) => explore_cmd(&args),
        Command::Simulate(args) => simulate_cmd(&args),
        Command::VerifyProperties {
            max_states,
            out,
            beem,
        } => {
            let beem = Beem::locate(beem.as_deref())?;
            let rows = harness::verify::verify_properties(&beem, max_states, &out, |r| {
                eprintln!(
                    "{:<24} #{:<2} {:<12} BEEM {:<3} ours {:<7} {:<5} cex {:>5} / BEEM {:>5} {:>8.2} s",
                    r.instance,
                    r.prop_id,
                    r.kind,
                    r.beem_answer,
                    r.answer,
                    if r.matches { "ok" } else { "DIFF" },
                    r.cex_length.map(|c| c.to_string()).unwrap_or("-".into()),
                    r.beem_cex_length.map(|c| c.to_string()).unwrap_or("-".into()),
                    r.seconds
                );
            })?;
            let matched = rows.iter().filter(|r| r.matches).count();
            let by = |k: &str| rows.iter().filter(|r| r.kind == k).count();
            println!(
                "{matched} of {} properties match BEEM ({} reachability, {} LTL; instances up to {max_states} states)",
                rows.len(),
                by("reachability"),
                by("LTL")
            );
            for r in rows.iter().filter(|r| !r.matches) {
                let note = if r.note.is_empty() {
                    "UNEXPLAINED".to_string()
                } else {
                    r.note.clone()
                };
                println!(
                    "differs: {} #{} ({}): BEEM {}, ours {}: {note}",
                    r.instance, r.prop_id, r.kind, r.beem_answer, r.answer
                );
            }
            println!("report: {}", out.display());
            Ok(if rows.iter().any(|r| r.unexplained()) {
                EXIT_VIOLATED
            } else {
                EXIT_OK
            })
        }
        Command::VerifyJit {
            max_states,
            jobs,
            out,
            beem,
        } => {
            let beem = Beem::locate(beem.as_deref())?;
            let rows = harness::verify::verify_jit(&beem, max_states, jobs, &out, |r| {
                eprintln!(
                    "{:<32} {:<13} {:>10} states {:>11} transitions {:>8.1} ms {:>8.2} s",
                    r.model, r.result, r.states, r.transitions, r.compile_ms, r.seconds
                );
                if !r.detail.is_empty() && r.result != "unsupported" {
                    eprintln!("{}", r.detail);
                }
            })?;
            let count = |what: &str| rows.iter().filter(|r| r.result == what).count();
            let (states, transitions) = rows
                .iter()
                .fold((0, 0), |(s, t), r| (s + r.states, t + r.transitions));
            let mut ms: Vec<f64> = rows
                .iter()
                .filter(|r| r.result == "same" || r.result == "too_large")
                .map(|r| r.compile_ms)
                .collect();
            ms.sort_by(f64::total_cmp);
            println!(
                "{} files: {} identical on their whole state space (up to {max_states} states), {} identical on their first {max_states} states, {} differ, {} unsupported, {} failed to load or compile; {states} states and {transitions} transitions compared",
                rows.len(),
                count("same"),
                count("too_large"),
                count("differs"),
                count("unsupported"),
                count("load_error") + count("compile_error"),
            );
            if let (Some(max), false) = (ms.last(), ms.is_empty()) {
                println!(
                    "compile time: median {:.1} ms, max {:.1} ms",
                    ms[ms.len() / 2],
                    max
                );
            }
            println!("report: {}", out.display());
            let bad = rows.len() - count("same") - count("too_large");
            Ok(if bad == 0 { EXIT_OK } else { EXIT_VIOLATED })
        }
        Command::VerifyBeem {
            max_states,
            out,
            memory_limit,
            beem,
        } => {
            let beem = Beem::locate(beem.as_deref())?;
            let summary = harness::verify::verify_beem(&beem, max_states, memory_limit, &out, |r| {
                eprintln!(
                    "{:<28} {:>10} {:>10} {:<5} {:>8.2} s",
                    r.instance,
                    r.expected,
                    r.got,
                    if r.matches { "ok" } else { "FAIL" },
                    r.seconds
                );
            })?;
            harness::verify::print_summary(&mut std::io::stdout().lock(), &summary, max_states)?;
            println!("report: {}", out.display());
            Ok(if summary.matched() == summary.rows.len() {
                EXIT_OK
            } else {
                EXIT_VIOLATED
            })
        }
    }
}

/// A BEEM instance name (no directory part, no extension, not an existing file).
fn is_instance_name(p: &Path) -> bool {
    let s = p.to_string_lossy();
    !p.exists() && !s.contains('/') && !s.ends_with(".dve") && !s.is_empty()
}

/// Resolves MODEL: an existing path as it is; a bare BEEM instance name to
/// `dve/<name>.dve` in the BEEM directory. Returns the path and the BEEM
/// instance name when the model is one.
fn resolve_model(model: &Path, beem: Option<&Path>) -> Result<(PathBuf, Option<String>)> {
    if is_instance_name(model) {
        let name = model.to_string_lossy().into_owned();
        if let Ok(b) = Beem::locate(beem) {
            let path = b.model_path(&name);
            if path.is_file() {
                return Ok((path, Some(name)));
            }
        }
        return Ok((model.to_path_buf(), None));
    }
    let instance = model
        .file_name()
        .and_then(|f| f.to_str())
        .and_then(|f| f.strip_suffix(".dve"))
        .filter(|stem| !stem.contains(".prop"))
        .map(str::to_string);
    Ok((model.to_path_buf(), instance))
}

fn load_model(path: &Path) -> Result<dve_frontend::ir::Model> {
    dve_frontend::load_file(path).map_err(|e| Printed(e.to_string()).into())
}

fn check(model: &Path, beem: Option<&Path>) -> Result<u8> {
    let (path, _) = resolve_model(model, beem)?;
    let m = load_model(&path)?;
    println!(
        "{}: ok: {} processes, {} variables, {}-byte state vector, {} transitions",
        path.display(),
        m.processes.len(),
        m.vars.len(),
        m.state_len,
        m.transitions.len()
    );
    Ok(EXIT_OK)
}

fn explore_cmd(args: &ExploreArgs) -> Result<u8> {
    if let Some(b) = &args.beem {
        if !b.is_dir() {
            bail!("BEEM directory {} does not exist", b.display());
        }
    }
    if let Spec::Dbdfs = args.strategy {
        return dbdfs_cmd(args);
    }
    if harness::caching::cli::wanted(&args.strategy, &args.caching) {
        if !args.goal.is_empty() || args.property.is_some() || args.all_violations {
            usage_error("the caching algorithms explore only: --goal, --property and --all-violations are not supported");
        }
        let input = harness::caching::cli::Input {
            model: args.model.as_deref(),
            beem: args.beem.as_deref(),
            strategy: &args.strategy,
            time_limit: args.time_limit,
            json: args.json,
            ignore_property: args.ignore_property,
            embedded: (EMBEDDED_NAME, EMBEDDED_SOURCE),
            caching: &args.caching,
            backend: args.backend.backend(),
        };
        return match harness::caching::cli::explore(&input) {
            Ok(code) => Ok(code),
            Err(harness::caching::cli::CliError::Usage(m)) => usage_error(&m),
            Err(harness::caching::cli::CliError::Input(e)) => Err(e),
        };
    }
    if args.depth_cutoff.is_some()
        || args.increment.is_some()
        || args.dbdfs.is_some()
        || args.frontier.is_some()
    {
        usage_error("--depth-cutoff, --increment, --dbdfs and --frontier need --strategy dbdfs");
    }
    let mut goals = args.goal.clone();
    let mut model_path = match &args.model {
        Some(m) => Some(resolve_model(m, args.beem.as_deref())?),
        None => None,
    };
    if let Some(n) = args.property {
        let Some((_, Some(instance))) = model_path.clone() else {
            bail!("--property needs a BEEM instance as MODEL (such as `adding.1` or a path to dve/adding.1.dve)");
        };
        let beem = Beem::locate(args.beem.as_deref())?;
        let row = beem
            .properties()?
            .into_iter()
            .find(|p| p.instance == instance && p.prop_id == n)
            .with_context(|| format!("properties.csv has no property {n} for {instance}"))?;
        match row.kind {
            PropertyKind::Reachability => goals.push(row.formula.clone()),
            PropertyKind::Ltl => {
                let prop_path = beem.property_model_path(&instance, n);
                if !prop_path.is_file() {
                    bail!(
                        "{} (the model of LTL property {n}) does not exist",
                        prop_path.display()
                    );
                }
                model_path = Some((prop_path, None));
            }
        }
        let kind = if row.kind == PropertyKind::Ltl {
            "LTL"
        } else {
            "reachability"
        };
        eprintln!("dvemc: property {n} of {instance} ({kind}): {}", row.formula);
    }
    let load_opts = dve_frontend::LoadOptions {
        ignore_property: args.ignore_property,
        exprs: goals.clone(),
    };
    let (loaded, instance, display_name) = match &model_path {
        Some((path, instance)) => (
            dve_frontend::load_file_with(path, &load_opts).map_err(|e| Printed(e.to_string()))?,
            instance.clone(),
            path.display().to_string(),
        ),
        None => (
            dve_frontend::load_str_with(EMBEDDED_NAME, EMBEDDED_SOURCE, &load_opts)
                .map_err(|e| Printed(e.to_string()))?,
            None,
            format!("{EMBEDDED_NAME} (built-in)"),
        ),
    };
    let checks = Checks {
        deadlock: args.check.contains(&CheckArg::Deadlock),
        assert: args.check.contains(&CheckArg::Assert),
        error: args.check.contains(&CheckArg::Error),
    };
    if harness::bbmc::cli::wanted(&args.strategy) {
        use harness::bbmc::cli;
        let goals = goals.iter().cloned().zip(loaded.exprs.iter().cloned());
        let input = cli::Input {
            strategy: &args.strategy,
            model: &loaded.model,
            goals: goals.map(|(text, expr)| Goal { text, expr }).collect(),
            display_name: &display_name,
            deadlock: checks.deadlock,
            json: args.json,
            trace_json: args.trace_format == TraceFormat::Json,
            max_states: args.max_states,
            time_limit: args.time_limit,
            seed: args.caching.seed,
            args: &args.bounded,
            backend: args.backend.backend(),
        };
        return match cli::run(&input) {
            Ok(code) => Ok(code),
            Err(cli::CliError::Usage(m)) => usage_error(&m),
            Err(cli::CliError::Input(e)) => Err(e),
        };
    } else if args.bounded.any() {
        usage_error("--breadth, --degrade-depth, --memory-states, --steps, --runs, --mixing, --restart and --export-lts need --strategy highway, bbmc, urs, sdrs, rurs, rsdrs or random-walk");
    }
    let has_asserts = loaded.model.processes.iter().any(|p| !p.asserts.is_empty());
    let ltl = loaded.model.property.is_some();
    if ltl || !goals.is_empty() || checks.deadlock || checks.error || (checks.assert && has_asserts) {
        return check_cmd(args, loaded, goals, checks, &display_name);
    }
    let ir = loaded.model;
    let built = make_model(ir, args.backend);
    let compile_ms = built.compile_ms;
    let model = built.model;
    let opts = ExploreOptions {
        strategy: match &args.strategy {
            Spec::Bfs => Strategy::Bfs,
            Spec::Dfs => Strategy::Dfs,
            Spec::Dbdfs => unreachable!("dbdfs is run by dbdfs_cmd"),
            Spec::Bbfs(_) | Spec::Alt(..) => unreachable!("run by harness::caching"),
            Spec::Highway
            | Spec::Bbmc
            | Spec::Urs
            | Spec::Sdrs
            | Spec::Rurs
            | Spec::Rsdrs
            | Spec::RandomWalk => {
                unreachable!("run by harness::bbmc::cli")
            }
        },
        limits: Limits {
            max_states: args.max_states,
            time: args.time_limit,
            memory_bytes: args.memory_limit,
        },
        level_table: args.stats,
    };
    let mut report = explore::explore(model.as_ref(), &opts);
    report.backend = built.backend.name().to_string();
    if report.model.is_empty() {
        report.model = display_name.clone();
    }

    // The reference figures, when asked for and available.
    let reference = match (&instance, args.stats) {
        (Some(inst), true) => Beem::locate(args.beem.as_deref())
            .ok()
            .and_then(|b| b.stats(inst).ok().flatten()),
        _ => None,
    };

    let text = if args.json {
        let mut v = serde_json::to_value(&report).context("serialising the report")?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert("compile_ms".into(), compile_ms.into());
            if let Some(r) = &reference {
                obj.insert("beem_reference".into(), serde_json::to_value(r)?);
            }
        }
        format!("{}\n", serde_json::to_string(&v)?)
    } else {
        let mut buf = Vec::new();
        print_human(&mut buf, &display_name, &report)?;
        if args.stats {
            print_stats(&mut buf, &report, reference.as_ref())?;
        }
        String::from_utf8(buf).context("report text")?
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // A closed pipe (`dvemc ... | head`) is not an error of the run.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing the report")?,
    }

    match report.result {
        Outcome::Complete => Ok(EXIT_OK),
        r => {
            let why = match r {
                Outcome::StateLimit => {
                    format!("state limit of {} states reached", args.max_states.unwrap_or(0))
                }
                Outcome::TimeLimit => format!(
                    "time limit of {} s reached",
                    args.time_limit.map(|d| d.as_secs_f64()).unwrap_or(0.0)
                ),
                Outcome::MemoryLimit => format!(
                    "memory limit of {} reached",
                    args.memory_limit.map(human_bytes).unwrap_or_default()
                ),
                other => other.name().replace('_', " "),
            };
            eprintln!("dvemc: search incomplete ({}): {why}", r.name());
            Ok(EXIT_BUDGET)
        }
    }
}

/// `dvemc simulate`: a random or guided run, written to standard output.
fn simulate_cmd(args: &SimulateArgs) -> Result<u8> {
    use std::io::IsTerminal;
    if let Some(b) = &args.beem {
        if !b.is_dir() {
            bail!("BEEM directory {} does not exist", b.display());
        }
    }
    let (ir, display_name) = match &args.model {
        Some(m) => {
            let (path, _) = resolve_model(m, args.beem.as_deref())?;
            (load_model(&path)?, path.display().to_string())
        }
        None => (
            dve_frontend::load_str(EMBEDDED_NAME, EMBEDDED_SOURCE).map_err(|e| Printed(e.to_string()))?,
            format!("{EMBEDDED_NAME} (built-in)"),
        ),
    };
    let model = dve_frontend::interp::Interpreter::new(ir);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.guided {
        let stdin = std::io::stdin();
        // Piped commands are echoed so that the transcript reads as a dialogue.
        let echo = !stdin.is_terminal();
        harness::simulate::guided(&model, &display_name, &mut stdin.lock(), &mut out, echo).map(|_| ())
    } else {
        harness::simulate::random(&model, &display_name, args.seed, args.steps, &mut out).map(|_| ())
    };
    match written {
        // A closed pipe (`dvemc simulate ... | head`) is not an error of the run.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("simulating")?,
    }
    Ok(EXIT_OK)
}

fn print_human(out: &mut impl Write, name: &str, r: &Report) -> std::io::Result<()> {
    writeln!(out, "model:               {name}")?;
    writeln!(out, "strategy:            {} ({} backend)", r.strategy, r.backend)?;
    writeln!(out, "result:              {}", r.result)?;
    writeln!(out, "state vector:        {} bytes", r.state_len)?;
    writeln!(out, "states:              {}", r.states)?;
    writeln!(out, "transitions:         {}", r.transitions)?;
    writeln!(out, "deadlock states:     {}", r.deadlocks)?;
    if r.error_transitions > 0 {
        writeln!(out, "error transitions:   {}", r.error_transitions)?;
    }
    if let Some(l) = r.levels {
        writeln!(out, "BFS levels:          {l}")?;
    }
    if let Some(d) = &r.dfs {
        writeln!(out, "DFS max stack:       {}", d.max_stack)?;
    }
    writeln!(out, "time:                {}", human_secs(r.time_s))?;
    writeln!(out, "states/s:            {:.0}", r.states_per_s)?;
    writeln!(out, "bytes/stored state:  {:.1}", r.bytes_per_state)?;
    if r.peak_rss_bytes > 0 {
        writeln!(out, "peak resident mem:   {}", human_bytes(r.peak_rss_bytes))?;
    } else {
        writeln!(out, "peak resident mem:   unknown")?;
    }
    Ok(())
}

/// The statistics in the element form of BEEM's stat.xml files; with a
/// reference, mismatching values are flagged.
fn print_stats(out: &mut impl Write, r: &Report, reference: Option<&StatFile>) -> std::io::Result<()> {
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
    if let Some(d) = &r.dfs {
        let rd = reference.and_then(|s| s.dfs);
        writeln!(out, "<dfs-info>")?;
        writeln!(
            out,
            "<max-stack>{}</max-stack>{}",
            d.max_stack,
            cmp(d.max_stack, rd.map(|x| x.max_stack))
        )?;
        writeln!(
            out,
            "<front-edges>{}</front-edges>{}",
            d.front_edges,
            cmp(d.front_edges, rd.map(|x| x.front_edges))
        )?;
        writeln!(
            out,
            "<back-edges>{}</back-edges>{}",
            d.back_edges,
            cmp(d.back_edges, rd.map(|x| x.back_edges))
        )?;
        writeln!(
            out,
            "<cross-edges>{}</cross-edges>{}",
            d.cross_edges,
            cmp(d.cross_edges, rd.map(|x| x.cross_edges))
        )?;
        writeln!(out, "</dfs-info>")?;
    }
    Ok(())
}

fn human_secs(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// `explore` with properties: goals, state checks, or the LTL property of a
/// property process (nested DFS).
fn check_cmd(
    args: &ExploreArgs,
    loaded: dve_frontend::Loaded,
    goal_texts: Vec<String>,
    checks: Checks,
    display_name: &str,
) -> Result<u8> {
    let ir = loaded.model;
    let goals: Vec<Goal> = goal_texts
        .into_iter()
        .zip(loaded.exprs)
        .map(|(text, expr)| Goal { text, expr })
        .collect();
    // A property process means an LTL property: accepting cycles need
    // nested DFS, whatever the search order asked for.
    let search = if ir.property.is_some() {
        Search::Ndfs
    } else {
        match &args.strategy {
            Spec::Bfs => Search::Bfs,
            Spec::Dfs => Search::Dfs,
            Spec::Dbdfs => unreachable!("dbdfs is run by dbdfs_cmd"),
            Spec::Bbfs(_) | Spec::Alt(..) => unreachable!("run by harness::caching"),
            Spec::Highway
            | Spec::Bbmc
            | Spec::Urs
            | Spec::Sdrs
            | Spec::Rurs
            | Spec::Rsdrs
            | Spec::RandomWalk => {
                unreachable!("run by harness::bbmc::cli")
            }
        }
    };
    let built = make_model(ir.clone(), args.backend);
    let model = built.model;
    let opts = CheckOptions {
        search,
        checks,
        goals,
        all_violations: args.all_violations,
        limits: Limits {
            max_states: args.max_states,
            time: args.time_limit,
            memory_bytes: args.memory_limit,
        },
    };
    let report = harness::check::check(model.as_ref(), &ir, &opts);
    let info = model.info();
    let mut text = Vec::new();
    if args.json {
        let mut v = serde_json::to_value(&report).context("serialising the report")?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert("backend".into(), built.backend.name().into());
            obj.insert("compile_ms".into(), built.compile_ms.into());
            obj.insert("state_len".into(), model.state_len().into());
            if let Some(f) = &report.first {
                obj.insert("trace".into(), harness::trace::to_json(info, &f.trace));
            }
        }
        writeln!(text, "{}", serde_json::to_string(&v)?)?;
    } else {
        writeln!(text, "model:               {display_name}")?;
        writeln!(
            text,
            "strategy:            {} ({} backend)",
            report.strategy.name(),
            built.backend.name()
        )?;
        writeln!(text, "result:              {}", report.result)?;
        let verdict = match report.verdict {
            Verdict::Holds => "holds".to_string(),
            Verdict::Unknown => "unknown (the search did not finish)".to_string(),
            Verdict::Violated => format!(
                "violated: {} ({})",
                report.violation_kind.map(|k| k.name()).unwrap_or(""),
                report.violation.clone().unwrap_or_default()
            ),
        };
        writeln!(text, "verdict:             {verdict}")?;
        if args.all_violations {
            writeln!(text, "violations:          {}", report.violations)?;
        }
        writeln!(text, "states:              {}", report.states)?;
        writeln!(text, "transitions:         {}", report.transitions)?;
        writeln!(text, "time:                {}", human_secs(report.time_s))?;
        writeln!(text, "states/s:            {:.0}", report.states_per_s)?;
        writeln!(text, "bytes/stored state:  {:.1}", report.bytes_per_state)?;
        if let Some(f) = &report.first {
            writeln!(text)?;
            match args.trace_format {
                TraceFormat::Text => harness::trace::write_text(&mut text, info, &f.trace)?,
                TraceFormat::Json => writeln!(
                    text,
                    "{}",
                    serde_json::to_string_pretty(&harness::trace::to_json(info, &f.trace))?
                )?,
            }
        }
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(&text).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing the report")?,
    }
    Ok(match report.verdict {
        Verdict::Violated => EXIT_VIOLATED,
        Verdict::Holds => EXIT_OK,
        Verdict::Unknown => {
            eprintln!("dvemc: search incomplete ({})", report.result.name());
            EXIT_BUDGET
        }
    })
}

/// Exits with clap's usage error (exit code 2).
fn usage_error(msg: &str) -> ! {
    use clap::CommandFactory;
    Cli::command()
        .error(clap::error::ErrorKind::ArgumentConflict, msg)
        .exit()
}

/// `explore --strategy dbdfs`: iterative depth-bounded DFS (`harness::dbdfs`).
fn dbdfs_cmd(args: &ExploreArgs) -> Result<u8> {
    use harness::dbdfs;
    if !args.goal.is_empty() || args.property.is_some() || args.all_violations {
        usage_error(
            "--strategy dbdfs explores only: --goal, --property and --all-violations are not supported",
        );
    }
    if args.stats {
        usage_error("--stats is not supported with --strategy dbdfs");
    }
    let (path, display_name) = match &args.model {
        Some(m) => {
            let (path, _) = resolve_model(m, args.beem.as_deref())?;
            let name = path.display().to_string();
            (Some(path), name)
        }
        None => (None, format!("{EMBEDDED_NAME} (built-in)")),
    };
    let load_opts = dve_frontend::LoadOptions {
        ignore_property: args.ignore_property,
        exprs: Vec::new(),
    };
    let loaded = match &path {
        Some(p) => dve_frontend::load_file_with(p, &load_opts),
        None => dve_frontend::load_str_with(EMBEDDED_NAME, EMBEDDED_SOURCE, &load_opts),
    }
    .map_err(|e| Printed(e.to_string()))?;
    if loaded.model.property.is_some() {
        usage_error(
            "--strategy dbdfs does not check LTL properties (use --ignore-property to explore the system)",
        );
    }
    let built = make_model(loaded.model, args.backend);
    let model = built.model;
    let opts = dbdfs::Options {
        depth_cutoff: args.depth_cutoff,
        increment: args.increment.unwrap_or(50),
        variant: args.dbdfs.unwrap_or(dbdfs::Variant::Threshold),
        frontier: args.frontier.unwrap_or(dbdfs::FrontierKind::Tree),
        limits: Limits {
            max_states: args.max_states,
            time: args.time_limit,
            memory_bytes: args.memory_limit,
        },
        record_frontiers: false,
        verify_rebuild: false,
    };
    let mut r = dbdfs::dbdfs(model.as_ref(), &opts);
    r.backend = built.backend.name().to_string();
    if r.model.is_empty() {
        r.model = display_name.clone();
    }
    let text = if args.json {
        format!(
            "{}\n",
            serde_json::to_string(&r).context("serialising the report")?
        )
    } else {
        let mut t = String::new();
        use std::fmt::Write as _;
        let cutoff = r
            .depth_cutoff
            .map(|d| d.to_string())
            .unwrap_or_else(|| "none".into());
        let _ = writeln!(t, "model:               {display_name}");
        let _ = writeln!(
            t,
            "strategy:            dbdfs ({}, frontier {}, increment {}, depth cutoff {cutoff}; {} backend)",
            r.dbdfs, r.frontier, r.increment, r.backend
        );
        let _ = writeln!(t, "result:              {}", r.result);
        let _ = writeln!(
            t,
            "state space:         {}",
            if r.state_space_exhausted {
                "exhausted (the last frontier is empty)"
            } else {
                "not exhausted"
            }
        );
        let _ = writeln!(t, "state vector:        {} bytes", r.state_len);
        let _ = writeln!(t, "states:              {}", r.states);
        let _ = writeln!(t, "max depth explored:  {}", r.max_depth_explored);
        let _ = writeln!(t, "explorations:        {}", r.expansions);
        let _ = writeln!(t, "revisits:            {}", r.revisits);
        let _ = writeln!(t, "transitions:         {}", r.transitions);
        let sizes: Vec<String> = r.frontier_sizes.iter().map(|f| f.to_string()).collect();
        let _ = writeln!(t, "frontier sizes:      {}", sizes.join(" "));
        let _ = writeln!(
            t,
            "getState time:       {} ({} transitions replayed)",
            human_secs(r.get_state_time_s),
            r.replay_steps
        );
        let _ = writeln!(t, "time:                {}", human_secs(r.time_s));
        let _ = writeln!(t, "states/s:            {:.0}", r.states_per_s);
        let _ = writeln!(t, "bytes/stored state:  {:.1}", r.bytes_per_state);
        let _ = writeln!(t, "frontier memory:     {}", human_bytes(r.frontier_bytes));
        if r.peak_rss_bytes > 0 {
            let _ = writeln!(t, "peak resident mem:   {}", human_bytes(r.peak_rss_bytes));
        } else {
            let _ = writeln!(t, "peak resident mem:   unknown");
        }
        t
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        res => res.context("writing the report")?,
    }
    match r.result {
        Outcome::Complete => Ok(EXIT_OK),
        other => {
            eprintln!("dvemc: search incomplete ({})", other.name());
            Ok(EXIT_BUDGET)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes() {
        assert_eq!(parse_bytes("123"), Ok(123));
        assert_eq!(parse_bytes("1K"), Ok(1024));
        assert_eq!(parse_bytes("2MiB"), Ok(2 << 20));
        assert_eq!(parse_bytes("1.5G"), Ok(3 << 29));
        assert_eq!(parse_bytes("1GB"), Ok(1_000_000_000));
        assert!(parse_bytes("12X").is_err());
        assert!(parse_bytes("").is_err());
        assert!(parse_bytes("-5").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert!(parse_duration("abc").is_err());
    }

    #[test]
    fn cli_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
