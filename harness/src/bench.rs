//! The `dvemc bench` subcommands.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use dvemc_run::experiments::exec::ProcessExecutor;
use dvemc_run::experiments::matrix::{only_instances, parse_shard, shard, Cell, Matrix};
use dvemc_run::experiments::provenance::Provenance;
use dvemc_run::experiments::runner::{run_cells, summary_table, ProgressMode, RunConfig};
use dvemc_run::experiments::schema::Table;
use dvemc_run::experiments::util::human_duration;
use dvemc_run::model::beem::Beem;

use crate::exit_codes;

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Run a matrix, or a shard or slice of it, into a results CSV
    ///
    /// Every cell runs as a child `dvemc explore --json`; each finished
    /// cell adds one CSV row (results/SCHEMA.md). Every cell's command line
    /// is checked as explore would before any runs.
    #[command(after_long_help = exit_codes::text(exit_codes::BENCH_RUN))]
    Run(RunArgs),
    /// Print the cells of a matrix: key, then the command line
    #[command(after_long_help = exit_codes::text(exit_codes::BENCH_FILES))]
    List {
        /// The matrix: a TOML file, or a name in beem/matrices (e.g. quick)
        matrix: PathBuf,
        /// Only shard K of N
        #[arg(long, value_name = "K/N", value_parser = parse_shard)]
        shard: Option<(usize, usize)>,
        /// Only the cells on these instances (comma-separated)
        #[arg(long, value_name = "NAMES", value_delimiter = ',')]
        instances: Vec<String>,
        /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Write markdown tables and SVG plots of results files (--html: one page)
    #[command(after_long_help = exit_codes::text(exit_codes::BENCH_FILES))]
    Report {
        /// Results CSVs (several: one report of all their runs)
        ///
        /// For example the matrices of `make bench`.
        #[arg(required = true)]
        csv: Vec<PathBuf>,
        /// Also write report.html, one self-contained page
        ///
        /// Sortable, filterable tables, plots, and the tables of every paper
        /// whose reproduction matrix is among the runs beside the paper's
        /// figures.
        #[arg(long, conflicts_with = "paper")]
        html: bool,
        /// Output directory [default: the CSV's directory]
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Also split the best-run groups by this grid parameter (repeatable)
        ///
        /// For example chain_reduction.
        #[arg(long, value_name = "PARAM")]
        by: Vec<String>,
        /// Render this paper's tables instead (from a run of its reproduction matrix)
        ///
        /// evangelista-table2, evangelista-table3, udupa-dbdfs, meulen-bbmc,
        /// abed-random.
        #[arg(long, value_name = "NAME")]
        paper: Option<String>,
        /// BEEM directory (for --paper, --html) [default: $BEEM_DIR, else ../shared/beem]
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Merge results files (e.g. shards): one row per cell key, sorted
    #[command(after_long_help = exit_codes::text(exit_codes::BENCH_FILES))]
    Merge {
        /// Results CSVs
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The merged CSV (may be one of the inputs)
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Write a Slurm array-job script: one shard per task, then a merge
    #[command(after_long_help = exit_codes::text(exit_codes::BENCH_FILES))]
    Slurm {
        /// The matrix: a TOML file, or a name in beem/matrices (e.g. quick)
        matrix: PathBuf,
        /// Number of shards (array tasks)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        shards: u32,
        /// Workers per task (`--jobs` of each shard, `--cpus-per-task`)
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        jobs: u32,
        /// Where the script is written [default: standard output]
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Directory of shard files, logs, merged CSV and report [default: results/runs/slurm-<matrix name>]
        #[arg(long, value_name = "DIR")]
        results: Option<PathBuf>,
        /// Slurm time limit of each task (`#SBATCH --time`, e.g. 04:00:00)
        #[arg(long, value_name = "TIME")]
        time: Option<String>,
        /// Slurm memory of each task (`#SBATCH --mem`, e.g. 16G)
        #[arg(long, value_name = "SIZE")]
        mem: Option<String>,
        /// Slurm partition
        #[arg(long, value_name = "NAME")]
        partition: Option<String>,
        /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
        #[arg(long, value_name = "DIR")]
        beem: Option<PathBuf>,
    },
    /// Compare a results file with a baseline: the same counters, no slower speed ratios
    ///
    /// Deterministic counters must be equal; speed ratios between backends
    /// measured in one run must not fall more than the tolerance below the
    /// baseline's.
    #[command(after_long_help = exit_codes::text(exit_codes::BENCH_COMPARE))]
    Compare {
        /// The results of this run
        current: PathBuf,
        /// The baseline (e.g. results/baseline/regressions.csv)
        baseline: PathBuf,
        /// Largest allowed relative drop of a speed ratio
        #[arg(long, value_name = "F", default_value_t = 0.30)]
        speed_tolerance: f64,
    },
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The matrix: a TOML file, or a name in beem/matrices (e.g. quick)
    pub matrix: PathBuf,
    /// The results CSV (appended to; created with its header)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Cells run at the same time
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: u32,
    /// Skip the cells already in --out (after an interruption)
    #[arg(long)]
    pub resume: bool,
    /// With --resume: run the failed cells again
    ///
    /// The cells recorded as `crashed` or `error`, the `time_limit` ones
    /// with less than half their time budget in processor time (stopped or
    /// starved by other work), and the `time_limit` ones that left a
    /// checkpoint (they go on from it); the rows of cells outside this run
    /// (--instances, --shard) stay.
    #[arg(long, requires = "resume")]
    pub retry_failed: bool,
    /// With --resume: run every cell of this run again from its start
    ///
    /// The cells of this run (--instances, --shard) run again whatever
    /// their rows say (the rows and their checkpoints dropped first), e.g.
    /// rows from an older version.
    #[arg(long, requires = "resume")]
    pub rerun: bool,
    /// Run only shard K of N (every N-th cell from the K-th)
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Only the cells on these instances (comma-separated)
    ///
    /// A slice of the matrix, e.g. a few instances of a paper's experiment.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub instances: Vec<String>,
    /// No progress output
    #[arg(long)]
    pub quiet: bool,
    /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
    #[arg(long, value_name = "DIR")]
    pub beem: Option<PathBuf>,
}

/// Loads, expands and shards a matrix; also returns the BEEM directory
/// passed to the children (when one is found).
fn cells_of(
    matrix: &Path,
    beem: Option<&Path>,
    shard_of: Option<(usize, usize)>,
    instances: &[String],
) -> Result<(Matrix, Vec<Cell>, Option<PathBuf>)> {
    let m = Matrix::load(matrix)?;
    let located = if m.needs_beem() || beem.is_some() {
        Some(Beem::locate(beem)?)
    } else {
        Beem::locate(None).ok()
    };
    let mut cells = m.expand(located.as_ref())?;
    if !instances.is_empty() {
        cells = only_instances(cells, instances).with_context(|| format!("matrix {}", matrix.display()))?;
    }
    let beem_dir = located.map(|b| b.root().to_path_buf());
    validate_cells(&m, &cells, beem_dir.as_deref())?;
    if let Some((k, n)) = shard_of {
        cells = shard(cells, k, n);
    }
    Ok((m, cells, beem_dir))
}

/// Checks every cell's command line as `explore` would (the options, the
/// strategy registry) before anything runs, so a typo in a matrix is found
/// at once rather than as `error` rows.
fn validate_cells(m: &Matrix, cells: &[Cell], beem: Option<&Path>) -> Result<()> {
    use clap::{CommandFactory, FromArgMatches};
    let mut problems = Vec::new();
    // Cells that differ only in their instance have the same options: check
    // each command line once (a search matrix has 100,000 cells).
    let mut seen = std::collections::HashSet::new();
    for c in cells {
        if !seen.insert((
            c.backend.as_str(),
            c.spec_with_args(),
            c.seed,
            format!("{:?}", c.budgets),
        )) {
            continue;
        }
        let argv = std::iter::once("dvemc".to_string()).chain(c.argv(beem));
        let checked = crate::Cli::command()
            .try_get_matches_from(argv)
            .map_err(|e| {
                let text = e.render().to_string();
                text.lines()
                    .find(|l| l.starts_with("error:"))
                    .unwrap_or(&text)
                    .trim_start_matches("error: ")
                    .to_string()
            })
            .and_then(|matches| {
                let cli = crate::Cli::from_arg_matches(&matches).map_err(|e| e.to_string())?;
                let crate::Command::Explore(args) = cli.command else {
                    return Err("not an explore command".into());
                };
                let sub = matches.subcommand_matches("explore").expect("explore matches");
                let req = args.request(sub);
                let given: Vec<&str> = req.given.iter().map(String::as_str).collect();
                dvemc_run::run::validate(args.strategy, &given, &req.params)
            });
        if let Err(e) = checked {
            problems.push(format!("{}: {e}", c.key));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let shown: Vec<&String> = problems.iter().take(5).collect();
    anyhow::bail!(
        "matrix {}: {} of {} cells would be rejected by explore:\n  {}{}",
        m.name,
        problems.len(),
        cells.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  "),
        if problems.len() > shown.len() {
            "\n  ..."
        } else {
            ""
        }
    )
}

/// Runs a `dvemc bench` subcommand; returns the exit code.
pub fn run(cmd: BenchCommand) -> Result<u8> {
    match cmd {
        BenchCommand::Run(a) => run_matrix(a),
        BenchCommand::List {
            matrix,
            shard,
            instances,
            beem,
        } => list(&matrix, shard, &instances, beem.as_deref()),
        BenchCommand::Report {
            csv,
            html,
            out,
            by,
            paper,
            beem,
        } => report(&csv, html, out, &by, paper, beem.as_deref()),
        BenchCommand::Merge { inputs, out } => merge(&inputs, &out),
        BenchCommand::Slurm {
            matrix,
            shards,
            jobs,
            out,
            results,
            time,
            mem,
            partition,
            beem,
        } => {
            let (m, cells, beem) = cells_of(&matrix, beem.as_deref(), None, &[])?;
            let paths = SlurmPaths::of(&m, results, beem)?;
            let text = dvemc_run::experiments::slurm::script(&dvemc_run::experiments::slurm::SlurmOptions {
                dvemc: &paths.exe,
                matrix: &paths.matrix,
                matrix_name: &m.name,
                cells: cells.len(),
                shards: shards as usize,
                jobs: jobs as usize,
                results: &paths.results,
                beem: paths.beem.as_deref(),
                time: time.as_deref(),
                mem: mem.as_deref(),
                partition: partition.as_deref(),
            });
            write_slurm(out.as_deref(), &text, cells.len(), shards)
        }
        BenchCommand::Compare {
            current,
            baseline,
            speed_tolerance,
        } => compare(&current, &baseline, speed_tolerance),
    }
}

/// `bench run`: runs the cells, then prints the summary (or how to resume).
fn run_matrix(a: RunArgs) -> Result<u8> {
    let (m, cells, beem) = cells_of(&a.matrix, a.beem.as_deref(), a.shard, &a.instances)?;
    let exec = ProcessExecutor {
        exe: dvemc_run::experiments::runner::current_exe()?,
        beem,
        checkpoints: m
            .checkpoints()
            .then(|| dvemc_run::experiments::exec::checkpoint_dir(&a.out)),
    };
    let cfg = RunConfig {
        matrix_name: &m.name,
        out: &a.out,
        jobs: a.jobs as usize,
        resume: a.resume,
        retry_failed: a.retry_failed,
        rerun: a.rerun,
        provenance: Provenance::gather(),
        progress: a.quiet.then_some(ProgressMode::Quiet),
    };
    let shard_text = a
        .shard
        .map(|(k, n)| format!(" (shard {k}/{n})"))
        .unwrap_or_default();
    if !a.quiet {
        eprintln!(
            "bench: matrix {}{shard_text}: {} cells, {} jobs -> {}",
            m.name,
            cells.len(),
            a.jobs,
            a.out.display()
        );
    }
    // Ctrl-C (main installed the handler): no new cells; those in
    // flight end (they get the signal too) and are left for --resume.
    let s = run_cells(&cells, &exec, &cfg)?;
    if s.interrupted {
        eprintln!(
            "bench: interrupted after {} cells ({} recorded in {}); the rest runs with\n    {}",
            s.ran,
            s.rows.len(),
            a.out.display(),
            resume_command(&a)
        );
        return Ok(130);
    }
    println!(
        "matrix {}{shard_text}: {} cells ({} run now, {} already in the file) in {}; results: {}",
        m.name,
        s.cells,
        s.ran,
        s.skipped,
        human_duration(s.wall),
        a.out.display()
    );
    print!("{}", summary_table(&s.rows));
    let failures = s.failures();
    if failures > 0 {
        println!("{failures} cells crashed or could not run (result `crashed` or `error`; see `message`)");
        return Ok(1);
    }
    Ok(0)
}

/// The command that resumes an interrupted `bench run`, shell-quoted.
fn resume_command(a: &RunArgs) -> String {
    let mut again = vec![
        "dvemc".to_string(),
        "bench".into(),
        "run".into(),
        a.matrix.display().to_string(),
        "--out".into(),
        a.out.display().to_string(),
        "--resume".into(),
    ];
    if a.jobs != 1 {
        again.extend(["--jobs".into(), a.jobs.to_string()]);
    }
    if let Some((k, n)) = a.shard {
        again.extend(["--shard".into(), format!("{k}/{n}")]);
    }
    if let Some(b) = &a.beem {
        again.extend(["--beem".into(), b.display().to_string()]);
    }
    again
        .iter()
        .map(|x| dvemc_run::experiments::util::shell_quote(x))
        .collect::<Vec<String>>()
        .join(" ")
}

/// `bench list`: each cell's key and command line.
fn list(
    matrix: &Path,
    shard: Option<(usize, usize)>,
    instances: &[String],
    beem: Option<&Path>,
) -> Result<u8> {
    let (_, cells, beem) = cells_of(matrix, beem, shard, instances)?;
    let exe = dvemc_run::experiments::runner::current_exe()?
        .display()
        .to_string();
    let mut out = std::io::stdout().lock();
    for c in &cells {
        match writeln!(out, "{}\t{}", c.key, c.command_line(&exe, beem.as_deref())) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(0),
            r => r.context("writing the list")?,
        }
    }
    Ok(0)
}

/// `bench report`: a paper's tables, or the report of the results files.
fn report(
    csv: &[PathBuf],
    html: bool,
    out: Option<PathBuf>,
    by: &[String],
    paper: Option<String>,
    beem: Option<&Path>,
) -> Result<u8> {
    let out = out.unwrap_or_else(|| match csv[0].parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    });
    let written = match paper {
        Some(p) => {
            let mut rows = Vec::new();
            for c in csv {
                rows.extend(Table::read(c)?.rows);
            }
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            let beem = Beem::locate(beem).ok();
            dvemc_run::experiments::papers::render(&p, &rows, &out, beem.as_ref())?
        }
        None => {
            let beem = if html { Beem::locate(beem).ok() } else { None };
            dvemc_run::experiments::report::report(csv, &out, by, html, beem.as_ref())?
        }
    };
    for f in written {
        println!("wrote {}", f.display());
    }
    Ok(0)
}

/// `bench merge`: one row per cell key.
fn merge(inputs: &[PathBuf], out: &Path) -> Result<u8> {
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let s = dvemc_run::experiments::merge::merge(&refs, out)?;
    println!(
        "merged {} files: {} rows ({} duplicate keys dropped) -> {}",
        inputs.len(),
        s.rows,
        s.duplicates,
        out.display()
    );
    for k in &s.conflicts {
        eprintln!("bench merge: warning: {k}: inputs disagree on deterministic counters; kept the first");
    }
    Ok(0)
}

/// The absolute paths a Slurm script names.
struct SlurmPaths {
    exe: PathBuf,
    matrix: PathBuf,
    results: PathBuf,
    beem: Option<PathBuf>,
}

impl SlurmPaths {
    fn of(m: &Matrix, results: Option<PathBuf>, beem: Option<PathBuf>) -> Result<SlurmPaths> {
        let abs = |p: &Path| -> Result<PathBuf> {
            Ok(if p.is_absolute() {
                p.to_path_buf()
            } else {
                std::env::current_dir()?.join(p)
            })
        };
        let results =
            abs(&results.unwrap_or_else(|| PathBuf::from(format!("results/runs/slurm-{}", m.name))))?;
        let exe = dvemc_run::experiments::runner::current_exe()?;
        let exe = exe.canonicalize().unwrap_or(exe);
        let matrix = m.path.canonicalize().unwrap_or(abs(&m.path)?);
        let beem = beem.map(|b| b.canonicalize().unwrap_or(b));
        Ok(SlurmPaths {
            exe,
            matrix,
            results,
            beem,
        })
    }
}

/// Writes the Slurm script to `out` (executable), or prints it.
fn write_slurm(out: Option<&Path>, text: &str, cells: usize, shards: u32) -> Result<u8> {
    match out {
        Some(p) => {
            dvemc_run::experiments::util::write_atomically(p, text.as_bytes())
                .with_context(|| format!("writing {}", p.display()))?;
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755));
            eprintln!(
                "wrote {} ({cells} cells in {shards} shards); submit with: bash {}",
                p.display(),
                p.display()
            );
        }
        None => print!("{text}"),
    }
    Ok(0)
}

/// `bench compare`: the differences from a baseline; 1 if any.
fn compare(current: &Path, baseline: &Path, speed_tolerance: f64) -> Result<u8> {
    let cur = Table::read(current)?;
    let base = Table::read(baseline)?;
    let c = dvemc_run::experiments::compare::compare(&cur, &base, speed_tolerance);
    for l in &c.ratio_lines {
        println!("{l}");
    }
    for p in &c.problems {
        println!("REGRESSION {p}");
    }
    let ratios = if c.ratios == 0 {
        "no speed ratios (one backend)".to_string()
    } else {
        format!("{} speed ratios", c.ratios)
    };
    if c.ok() {
        println!("ok: {} cells match {} ({ratios})", c.cells, baseline.display());
        Ok(0)
    } else {
        println!(
            "{} differences from {} ({} cells, {ratios})",
            c.problems.len(),
            baseline.display(),
            c.cells
        );
        Ok(1)
    }
}
