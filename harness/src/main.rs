//! `dvemc`: the command line of the DVE model checker.

mod bench;
mod exit_codes;
mod explore;
mod ltl2ba;
mod man;
mod progress;
mod simulate;
mod table_args;
mod values;
mod verify;

/// Counts allocations, so that `--memory-limit` holds outside the search
/// too (loading, compiling): `dvemc_run::engine::guard`.
#[global_allocator]
static ALLOC: dvemc_run::engine::guard::CappedAlloc = dvemc_run::engine::guard::CappedAlloc;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use dvemc_run::engine::units::parse_bytes;
use dvemc_run::run::resolve_model;

pub(crate) const EXIT_OK: u8 = 0;
/// A property was violated (for `verify-beem`: a count differs from BEEM's).
pub(crate) const EXIT_VIOLATED: u8 = 1;
// 2 = usage error, produced by clap itself.
pub(crate) const EXIT_INPUT: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "dvemc",
    version,
    about = "Explicit-state model checker for DVE models (BEEM benchmark suite)",
    max_term_width = 100,
    after_long_help = exit_codes::text(exit_codes::DVEMC)
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

// The commands in the order of use. Each doc comment's first line is the
// command's summary in `dvemc --help`; the rest is in its own `--help`.
// Parsed once per run: the size of the biggest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Explore a model's state space with a search strategy and report what it found
    ///
    /// bfs (the default) and dfs visit every reachable state and check each
    /// one; the other strategies are bounded (state caching, depth- or
    /// breadth-bounded) or randomized searches, which visit part of the
    /// state space within their bounds. The report gives the search's
    /// counters, its verdict and a counterexample when it found one
    /// (--json: one JSON object). `dvemc strategies` lists the strategies
    /// and the options each takes; the headings below name them too.
    #[command(after_long_help = exit_codes::text(exit_codes::EXPLORE))]
    Explore(explore::ExploreArgs),
    /// Parse and check a model; print its size in one line
    ///
    /// The line gives the processes, variables, the state vector's bytes
    /// and the transitions; a malformed model gets an error naming the
    /// file, line and column.
    #[command(after_long_help = exit_codes::text(exit_codes::CHECK))]
    Check {
        /// A .dve file or a BEEM instance name such as adding.1
        model: PathBuf,
        /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Print the Büchi automaton of an LTL formula (HOA format, or text)
    ///
    /// The LTL2BA construction (Gastin and Oddoux, CAV 2001). Like `ltl2ba
    /// -f` and `spin -f`, the automaton accepts the runs where FORMULA
    /// holds; --negate gives the one for its negation, which a check
    /// searches the product with. Transitions read the state they leave.
    #[command(after_long_help = exit_codes::text(exit_codes::LTL2BA))]
    Ltl2ba(ltl2ba::Ltl2baArgs),
    /// Follow one path: random (--random), chosen (--guided) or a file's (--replay)
    #[command(after_long_help = exit_codes::text(exit_codes::SIMULATE))]
    Simulate(simulate::SimulateArgs),
    /// List the search strategies: what each does, its paper, the options it takes
    #[command(after_long_help = exit_codes::text(exit_codes::STRATEGIES))]
    Strategies {
        /// One JSON array of objects (form, family, summary, paper, options)
        #[arg(long)]
        json: bool,
    },
    /// Benchmark matrices: run, list, report, merge, slurm, compare
    ///
    /// A matrix (a TOML file, beem/matrices/) names instances, strategies
    /// and budgets; each cell is a child `dvemc explore --json`, one CSV row
    /// per cell (results/SCHEMA.md).
    #[command(after_long_help = exit_codes::text(exit_codes::BENCH))]
    Bench {
        #[command(subcommand)]
        command: bench::BenchCommand,
    },
    /// Explore BEEM's instances up to a size and compare the state counts with BEEM's
    ///
    /// Every complete instance of at most --max-states states (by BEEM's
    /// count), breadth-first, smallest first, on the interpreter; the
    /// counts are compared with instances.csv and written to a CSV report.
    #[command(after_long_help = exit_codes::text(exit_codes::VERIFY_BEEM))]
    VerifyBeem {
        /// Largest instance to run, by BEEM's state count
        #[arg(long, value_name = "N", default_value_t = 20_000_000)]
        max_states: u64,
        /// The CSV report (instance, expected, got, match, seconds, bytes_per_state, result)
        #[arg(long, value_name = "FILE", default_value = "results/beem-verify.csv")]
        out: PathBuf,
        /// Memory budget of each run (as `explore --memory-limit`)
        #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
        memory_limit: Option<u64>,
        /// The visited set: exact or tree (as `explore --store`)
        #[arg(long, value_name = "NAME", default_value = "exact")]
        store: dvemc_run::engine::StoreKind,
        /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Check every BEEM property with a recorded answer and compare with BEEM's answer
    ///
    /// Reachability by BFS, LTL by nested DFS, on the instances of at most
    /// --max-states states; the answers are compared with properties.csv
    /// and written to a CSV report.
    #[command(after_long_help = exit_codes::text(exit_codes::VERIFY_PROPERTIES))]
    VerifyProperties {
        /// Largest instance to run, by BEEM's state count (also each product's state budget)
        #[arg(long, value_name = "N", default_value_t = 2_000_000)]
        max_states: u64,
        /// The CSV report
        #[arg(long, value_name = "FILE", default_value = "results/properties-verify.csv")]
        out: PathBuf,
        /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Compare the JIT with the interpreter on every BEEM file, state by state
    ///
    /// Every BEEM file (instances and property products): the successor
    /// lists (labels, error flags, states, in order) and the fingerprints of
    /// every reachable state, whole state spaces up to --max-states states.
    #[command(after_long_help = exit_codes::text(exit_codes::VERIFY_JIT))]
    VerifyJit {
        /// Largest state space compared whole
        ///
        /// Larger ones are compared on their first N states (BFS) and
        /// reported as `too_large`.
        #[arg(long, value_name = "N", default_value_t = 200_000)]
        max_states: usize,
        /// Files compared at once
        #[arg(long, value_name = "N", default_value_t = 2)]
        jobs: usize,
        /// The CSV report (model, result, states, transitions, compile_ms, seconds, detail)
        #[arg(long, value_name = "FILE", default_value = "results/jit-verify.csv")]
        out: PathBuf,
        /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Print the generated model of a seed (the differential tests' models)
    ///
    /// The model the generator of `make fuzz` and harness/tests/generated.rs
    /// makes from SEED, so that a failure reported with its seed can be
    /// replayed. Its first lines are comments giving the reachability goal
    /// and the LTL formula the tests check on it.
    #[command(after_long_help = exit_codes::text(exit_codes::GEN))]
    Gen {
        /// The seed (any 64-bit number)
        #[arg(long)]
        seed: u64,
    },
    /// Print the shell completion script of SHELL
    ///
    /// For example `dvemc completions bash > ~/.local/share/bash-completion/completions/dvemc`;
    /// completions/ holds the scripts of bash, zsh and fish.
    #[command(after_long_help = exit_codes::text(exit_codes::COMPLETIONS))]
    Completions {
        /// The shell
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

/// An error that already carries its full message (a model diagnostic).
#[derive(Debug)]
pub(crate) struct Printed(pub(crate) String);

impl std::fmt::Display for Printed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Printed {}

fn main() -> ExitCode {
    dvemc_run::engine::interrupt::install();
    if std::env::args().nth(1).as_deref() == Some("man") {
        return man_cmd();
    }
    let json = std::env::args().skip(1).any(|a| a == "--json");
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            // With --json a usage error is a JSON object too.
            if json && e.use_stderr() {
                let err = dvemc_run::run::RunError::usage(e.kind().to_string());
                let rendered = e.render().to_string();
                // The error line and the indented lines under it (the
                // arguments a "not provided" error names).
                let mut lines = rendered.lines().skip_while(|l| !l.starts_with("error:"));
                let message = match lines.next() {
                    Some(first) => std::iter::once(first.trim_start_matches("error:"))
                        .chain(lines.take_while(|l| l.starts_with(' ')))
                        .map(str::trim)
                        .collect::<Vec<_>>()
                        .join(" "),
                    None => err.message.clone(),
                };
                explore::report_error(&dvemc_run::run::RunError { message, ..err }, true);
                return ExitCode::from(2);
            }
            e.exit()
        }
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Command::Explore(args) = &cli.command {
        let sub = matches.subcommand_matches("explore").expect("explore matches");
        return ExitCode::from(explore::explore(args, sub));
    }
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
        Command::Bench { command } => bench::run(command),
        Command::Check { model, beem } => check(&model, beem.as_deref()),
        Command::Explore(_) => unreachable!("explore is run by main"),
        Command::Simulate(args) => simulate::run(&args),
        Command::Ltl2ba(args) => ltl2ba::run(&args),
        Command::Gen { seed } => {
            let g = dve_gen::generate(seed);
            print!(
                "// dvemc gen --seed {seed}\n// goal: {}\n// ltl: {}\n{}",
                g.goal, g.ltl, g.text
            );
            Ok(EXIT_OK)
        }
        Command::Completions { shell } => {
            man::print_completions(shell, Cli::command()).context("writing the script")?;
            Ok(EXIT_OK)
        }
        Command::Strategies { json } => {
            if json {
                println!("{}", dvemc_run::run::options::registry_json());
            } else {
                print!("{}", dvemc_run::run::options::registry_text());
            }
            Ok(EXIT_OK)
        }
        Command::VerifyProperties {
            max_states,
            out,
            beem,
        } => verify::properties(max_states, &out, beem.as_deref()),
        Command::VerifyJit {
            max_states,
            jobs,
            out,
            beem,
        } => verify::jit(max_states, jobs, &out, beem.as_deref()),
        Command::VerifyBeem {
            max_states,
            out,
            memory_limit,
            store,
            beem,
        } => verify::beem(max_states, &out, memory_limit, store, beem.as_deref()),
    }
}

/// `dvemc man DIR` (`make man`): the man pages. Not a command of [`Cli`],
/// so that neither the help nor the completions offer it.
fn man_cmd() -> ExitCode {
    let cmd = clap::Command::new("man")
        .bin_name("dvemc man")
        .about("Write the man pages of dvemc and its commands into DIR")
        .after_long_help(exit_codes::text(exit_codes::MAN))
        .arg(clap::arg!(<DIR> "Where to write them").value_parser(clap::value_parser!(PathBuf)));
    let matches = cmd.get_matches_from(std::env::args().skip(1));
    let dir = matches.get_one::<PathBuf>("DIR").expect("required");
    match man::write_pages(Cli::command(), dir) {
        Ok(pages) => {
            println!("wrote {} man pages into {}", pages.len(), dir.display());
            ExitCode::from(EXIT_OK)
        }
        Err(e) => {
            eprintln!("dvemc: error: writing the man pages into {}: {e}", dir.display());
            ExitCode::from(EXIT_INPUT)
        }
    }
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
        use dvemc_run::engine::units::parse_duration;
        use std::time::Duration;
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
