//! `dvemc simulate`: a random run that checks what a search checks, a
//! guided run, or the replay of a counterexample file.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use dvemc_run::algo::check::{CheckOptions, Checks, Goal, Search, StateChecks};
use dvemc_run::model::example::{EMBEDDED_NAME, EMBEDDED_SOURCE};
use dvemc_run::run::replay::{self, ReplayError};
use dvemc_run::run::resolve_model;

use crate::explore::CheckArg;
use crate::{Printed, EXIT_INPUT, EXIT_OK, EXIT_VIOLATED};

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["random", "guided", "replay"])))]
pub(crate) struct SimulateArgs {
    /// A .dve file or a BEEM instance name such as adding.1 [default: the built-in example]
    ///
    /// Without a model: the built-in example (two dining philosophers).
    model: Option<PathBuf>,
    /// Take a uniformly random enabled transition at each step
    ///
    /// Reproducible with --seed; the run stops after --steps steps, at a
    /// deadlock, or at the first violation of --check and --goal (exit
    /// code 1, with the path to it).
    #[arg(long)]
    random: bool,
    /// Choose each step: list the enabled transitions, read the choice from standard input
    ///
    /// A line is a transition number, `back` (undo the last step) or `quit`;
    /// the end of the input ends the run too.
    #[arg(long)]
    guided: bool,
    /// Replay a counterexample FILE (explore --trace-format json, --trace-out, --json)
    ///
    /// Step by step on a terminal (Enter for the next step, q to stop),
    /// at once otherwise or with --all. A step the model does not take
    /// from the state before it stops the replay with what the file says
    /// and what the model offers there (exit code 3).
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Replay every step at once, without waiting for Enter (--replay)
    #[arg(long, requires = "replay")]
    all: bool,
    /// Seed of the random choices (--random)
    #[arg(long, value_name = "S", default_value_t = 0, conflicts_with_all = ["guided", "replay"])]
    seed: u64,
    /// Most steps to take (--random)
    #[arg(long, value_name = "N", default_value_t = 100, conflicts_with_all = ["guided", "replay"])]
    steps: u64,
    /// State checks of --random: deadlock, assert, error, none [default: assert]
    ///
    /// As `explore --check`: comma-separated deadlock (a state with no
    /// enabled transition), assert (a failed assert), error (a run-time
    /// error of a transition), none. The first violation ends the run.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "assert",
        hide_default_value = true, hide_possible_values = true, conflicts_with_all = ["guided", "replay"])]
    check: Vec<CheckArg>,
    /// Stop --random at a state that satisfies this DVE expression (repeatable)
    #[arg(long, value_name = "EXPR", conflicts_with_all = ["guided", "replay"])]
    goal: Vec<String>,
    /// Replay in the product with this LTL formula's automaton (--replay)
    ///
    /// The counterexample of `explore --ltl FORMULA` is a run of the model
    /// and the automaton together: replay it with the same formula.
    #[arg(long, value_name = "FORMULA", requires = "replay")]
    ltl: Option<String>,
    /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
    ///
    /// Without --beem: the environment's BEEM_DIR, else ../shared/beem near
    /// the working directory or the executable.
    #[arg(long, value_name = "DIR")]
    beem: Option<PathBuf>,
}

/// `dvemc simulate`: the run written to standard output.
pub(crate) fn run(args: &SimulateArgs) -> Result<u8> {
    if let Some(b) = &args.beem {
        if !b.is_dir() {
            bail!("BEEM directory {} does not exist", b.display());
        }
    }
    let load = dve_frontend::LoadOptions {
        exprs: args.goal.clone(),
        expr_names: (1..=args.goal.len())
            .map(|k| match args.goal.len() {
                1 => "--goal".to_string(),
                _ => format!("--goal #{k}"),
            })
            .collect(),
        formula_name: Some("--ltl".into()),
        ltl: args.ltl.clone().map(|text| dve_frontend::ltl::Spec::Formula {
            text,
            definitions: Vec::new(),
        }),
        ..Default::default()
    };
    let (loaded, display_name) = match &args.model {
        Some(m) => {
            let (path, _) = resolve_model(m, args.beem.as_deref())?;
            let loaded = dve_frontend::load_file_with(&path, &load).map_err(|e| Printed(e.to_string()))?;
            (loaded, path.display().to_string())
        }
        None => (
            dve_frontend::load_str_with(EMBEDDED_NAME, EMBEDDED_SOURCE, &load)
                .map_err(|e| Printed(e.to_string()))?,
            format!("{EMBEDDED_NAME} (built-in)"),
        ),
    };
    let ir = loaded.model;
    let model = dve_frontend::interp::Interpreter::new(ir.clone());
    if let Some(file) = &args.replay {
        return replay_file(&model, &display_name, file, args.all);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.guided {
        let stdin = std::io::stdin();
        // Piped commands are echoed so that the transcript reads as a dialogue.
        let echo = !stdin.is_terminal();
        dvemc_run::run::simulate::guided(&model, &display_name, &mut stdin.lock(), &mut out, echo)
            .map(|_| false)
    } else {
        let opts = CheckOptions {
            search: Search::Dfs,
            checks: Checks {
                deadlock: args.check.contains(&CheckArg::Deadlock),
                assert: args.check.contains(&CheckArg::Assert),
                error: args.check.contains(&CheckArg::Error),
            },
            goals: args
                .goal
                .iter()
                .cloned()
                .zip(loaded.exprs)
                .map(|(text, expr)| Goal { text, expr })
                .collect(),
            all_violations: false,
            limits: Default::default(),
            meter: None,
        };
        let checks = StateChecks::new(&model, &ir, &opts);
        dvemc_run::run::simulate::random_checked(
            &model,
            Some(&checks),
            &display_name,
            args.seed,
            args.steps,
            &mut out,
        )
        .map(|(_, v)| v.is_some())
    };
    match written {
        // A closed pipe (`dvemc simulate ... | head`) is not an error of the run.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(EXIT_OK),
        r => Ok(if r.context("simulating")? {
            EXIT_VIOLATED
        } else {
            EXIT_OK
        }),
    }
}

/// `--replay FILE`: step by step when standard input is a terminal (and
/// not `all`), at once otherwise; a disagreement is an input error.
fn replay_file(
    model: &dyn dve_frontend::model::NextState,
    name: &str,
    file: &PathBuf,
    all: bool,
) -> Result<u8> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let trace = replay::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let stdin = std::io::stdin();
    let interactive = !all && stdin.is_terminal();
    let mut lock = stdin.lock();
    let pause: Option<&mut dyn std::io::BufRead> = if interactive { Some(&mut lock) } else { None };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let file_name = file.display().to_string();
    let result = match replay::replay(model, name, &file_name, &trace, pause, &mut out) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(EXIT_OK),
        r => r.context("replaying")?,
    };
    out.flush().context("replaying")?;
    match result {
        Ok(_) => Ok(EXIT_OK),
        Err(e @ ReplayError::Disagrees { .. }) => {
            let hint = if e.to_string().contains("not a variable of the model") {
                " (an LTL counterexample replays with the --ltl formula it was found with)"
            } else {
                ""
            };
            eprintln!("dvemc: error: {file_name}: the file and the model disagree at {e}{hint}");
            Ok(EXIT_INPUT)
        }
        Err(e) => bail!("{file_name}: {e}"),
    }
}
