//! Simulation: following one path through a model's state space.
//!
//! Dwyer, Hatcliff and Robby (ch. 1.3) describe the two modes of a model
//! checker's simulator, which differ only in how the next transition is
//! chosen where several are enabled:
//!
//! - [`random`]: the simulator picks one successor uniformly at random, with
//!   the seeded [`Rng`], so a seed always reproduces the same run;
//! - [`guided`]: the simulator lists the enabled transitions and the user
//!   picks one (and may step back).
//!
//! Both write plain text to any [`Write`] and the guided mode reads its
//! commands from any [`BufRead`], so they run the same under the `dvemc
//! simulate` command, with piped input, and in tests.
//!
//! A step is shown as its transition label ([`ModelInfo::label_text`]) and
//! the slots it changed, `name: old -> new`, control states by their names.
//! A transition that raised a run-time error is marked `[error]`; its
//! successor is the model's error state, which is expanded like any other.

use std::io::{self, BufRead, Write};

use dve_frontend::model::{ModelInfo, NextState, SuccBuf};

use crate::algo::check::{StateChecks, Violation, ViolationKind};
use crate::engine::rng::Rng;
use crate::engine::trace::{Step, Trace};
use crate::output::counterexample::{changes, step_label, write_text};

/// How a random simulation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomRun {
    /// Transitions taken.
    pub steps: u64,
    /// The run stopped in a state with no enabled transition (otherwise it
    /// stopped after the requested number of steps).
    pub deadlock: bool,
}

/// Runs a random simulation of at most `steps` steps from the initial
/// state, choosing each successor uniformly with a generator seeded by
/// `seed`, and writes the run to `out`: the model `name` and the seed, the
/// full initial state, then per step its number, label and changes. Stops
/// early at a deadlock, printing `deadlock: no enabled transition` and the
/// state. The same model, seed and step count always give the same output.
pub fn random<M, W>(model: &M, name: &str, seed: u64, steps: u64, out: &mut W) -> io::Result<RandomRun>
where
    M: NextState + ?Sized,
    W: Write,
{
    random_checked(model, None, name, seed, steps, out).map(|(run, _)| run)
}

/// [`random`] checking every state of the run with `checks` (goals,
/// assertions; deadlocks and run-time errors when asked), as a search
/// checks them: the first violation stops the run, which then ends with
/// the violation and the path to it printed as `dvemc explore` prints a
/// counterexample; the violation is returned too.
pub fn random_checked<M, W>(
    model: &M,
    checks: Option<&StateChecks<'_>>,
    name: &str,
    seed: u64,
    steps: u64,
    out: &mut W,
) -> io::Result<(RandomRun, Option<Violation>)>
where
    M: NextState + ?Sized,
    W: Write,
{
    let info = model.info();
    let mut rng = Rng::seeded(seed);
    let mut state = model.initial_vec();
    let mut succs = SuccBuf::new(model.state_len());
    // The path so far, kept only when something is checked (a violation
    // prints it).
    let mut trace = Trace {
        initial: state.clone(),
        steps: Vec::new(),
        cycle_start: None,
    };
    let asked = checks.map(StateChecks::checks).unwrap_or_default();
    let found = |kind, detail: String, trace: &Trace| {
        let v = Violation {
            kind,
            detail,
            trace: trace.clone(),
        };
        Some(checks.map_or(v.clone(), |c| c.explain(v)))
    };

    writeln!(out, "model: {name}")?;
    writeln!(out, "random simulation: seed {seed}, at most {steps} steps")?;
    writeln!(out, "initial state: {}", info.state_text(&state))?;
    let mut violation = checks
        .and_then(|c| c.state(&state))
        .and_then(|(kind, detail)| found(kind, detail, &trace));
    let mut taken = 0;
    let mut deadlock = false;
    while taken < steps && violation.is_none() {
        model.successors(&state, &mut succs);
        if succs.is_empty() {
            deadlock = true;
            break;
        }
        let k = rng.below(succs.len());
        let entry = succs.entry(k);
        let next = succs.state(k);
        taken += 1;
        writeln!(
            out,
            "step {taken}: {}  (choice {} of {})",
            step_label(info, entry),
            k + 1,
            succs.len()
        )?;
        let changes = changes(info, &state, next);
        if changes.is_empty() {
            writeln!(out, "    (no change)")?;
        }
        for c in changes {
            writeln!(out, "    {c}")?;
        }
        state.copy_from_slice(next);
        if let Some(c) = checks {
            trace.steps.push(Step::new(entry, next));
            violation = if entry.error && asked.error {
                found(ViolationKind::ErrorState, "run-time error".into(), &trace)
            } else {
                c.state(&state)
                    .and_then(|(kind, detail)| found(kind, detail, &trace))
            };
        }
    }
    if !deadlock && violation.is_none() {
        // A deadlock right after the last step is still worth reporting.
        model.successors(&state, &mut succs);
        deadlock = succs.is_empty();
    }
    if deadlock && asked.deadlock && violation.is_none() {
        violation = found(ViolationKind::Deadlock, "deadlock".into(), &trace);
    }
    if let Some(v) = &violation {
        writeln!(out, "violation kind: {}", v.kind.name())?;
        writeln!(out, "violation: {}", v.detail)?;
    } else if deadlock {
        writeln!(out, "deadlock: no enabled transition")?;
    } else {
        writeln!(out, "stopped after {}", steps_text(taken))?;
    }
    writeln!(out, "state: {}", info.state_text(&state))?;
    if is_error_state(info, &state) {
        writeln!(out, "{ERROR_STATE_NOTE}")?;
    }
    if let Some(v) = &violation {
        writeln!(out)?;
        write_text(out, info, &v.trace)?;
    }
    out.flush()?;
    let run = RandomRun {
        steps: taken,
        deadlock,
    };
    Ok((run, violation))
}

/// One command of the guided mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command {
    /// Take the transition with this 1-based number.
    Take(usize),
    Back,
    Quit,
    /// Anything that is not a command.
    Unknown,
}

fn parse_command(line: &str) -> Command {
    let word = line.trim();
    if word.eq_ignore_ascii_case("back") {
        Command::Back
    } else if word.eq_ignore_ascii_case("quit") {
        Command::Quit
    } else {
        match word.parse::<usize>() {
            Ok(n) => Command::Take(n),
            Err(_) => Command::Unknown,
        }
    }
}

/// Runs a guided simulation: shows the current state and its enabled
/// transitions numbered 1..k (each with the changes it would make), then
/// reads one line from `input`:
///
/// - a number takes that transition;
/// - `back` undoes the last step (at the initial state it says so and stays);
/// - `quit`, or the end of the input, ends the simulation;
/// - anything else is answered with a message, and the prompt repeats.
///
/// With `echo`, every line read is written after the prompt, so that a
/// transcript made from piped (not typed) input reads as a dialogue.
/// Returns the number of steps on the path when the simulation ended.
pub fn guided<M, R, W>(model: &M, name: &str, input: &mut R, out: &mut W, echo: bool) -> io::Result<usize>
where
    M: NextState + ?Sized,
    R: BufRead,
    W: Write,
{
    let info = model.info();
    // The path from the initial state to the current state (the last one).
    let mut path: Vec<Vec<u8>> = vec![model.initial_vec()];
    let mut succs = SuccBuf::new(model.state_len());
    let mut line = Vec::new();

    writeln!(out, "model: {name}")?;
    writeln!(
        out,
        "guided simulation: enter a transition number, `back` to undo the last step, `quit` to end"
    )?;
    // Show the state and its transitions only when the state changed, not
    // after a message about a bad command.
    let mut show = true;
    loop {
        let depth = path.len() - 1;
        let state = &path[depth];
        model.successors(state, &mut succs);
        if show {
            writeln!(out)?;
            writeln!(out, "state {depth}: {}", info.state_text(state))?;
            if is_error_state(info, state) {
                writeln!(out, "{ERROR_STATE_NOTE}")?;
            }
            if succs.is_empty() {
                writeln!(out, "deadlock: no enabled transition")?;
            } else {
                writeln!(out, "enabled transitions:")?;
                for (i, (entry, next)) in succs.iter().enumerate() {
                    let changes = changes(info, state, next);
                    let changes = if changes.is_empty() {
                        "no change".to_string()
                    } else {
                        changes.join(", ")
                    };
                    writeln!(out, "  {}. {}  [{changes}]", i + 1, step_label(info, entry))?;
                }
            }
        }
        show = false;
        let choices = match succs.len() {
            0 => "back, quit".to_string(),
            1 => "1, back, quit".to_string(),
            k => format!("1-{k}, back, quit"),
        };
        write!(out, "choose ({choices})> ")?;
        out.flush()?;

        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            writeln!(out)?;
            writeln!(
                out,
                "end of input: simulation ended after {}",
                steps_text(depth as u64)
            )?;
            break;
        }
        let text = String::from_utf8_lossy(&line);
        if echo {
            writeln!(out, "{}", text.trim_end_matches(['\n', '\r']))?;
        }
        match parse_command(&text) {
            Command::Quit => {
                writeln!(out, "simulation ended after {}", steps_text(depth as u64))?;
                break;
            }
            Command::Back => {
                if depth == 0 {
                    writeln!(out, "already at the initial state: nothing to undo")?;
                } else {
                    path.pop();
                    writeln!(out, "back to state {}", depth - 1)?;
                    show = true;
                }
            }
            Command::Take(n) if (1..=succs.len()).contains(&n) => {
                let entry = succs.entry(n - 1);
                writeln!(out, "step {}: {}", depth + 1, step_label(info, entry))?;
                path.push(succs.state(n - 1).to_vec());
                show = true;
            }
            Command::Take(n) if succs.is_empty() => {
                writeln!(
                    out,
                    "there is no transition {n}: the state is a deadlock; enter `back` or `quit`"
                )?;
            }
            Command::Take(n) => {
                writeln!(
                    out,
                    "there is no transition {n}: enter a number from 1 to {}, `back` or `quit`",
                    succs.len()
                )?;
            }
            Command::Unknown => {
                let shown = text.trim();
                writeln!(
                    out,
                    "not a command: `{shown}`; enter a transition number, `back` or `quit`"
                )?;
            }
        }
    }
    out.flush()?;
    Ok(path.len() - 1)
}

const ERROR_STATE_NOTE: &str = "(this is the error state: a transition raised a run-time error)";

/// True for the model's error state, which marks process 0's control state
/// with a value that names no state.
pub fn is_error_state(info: &ModelInfo, state: &[u8]) -> bool {
    info.processes
        .first()
        .is_some_and(|p| usize::from(info.control_state(0, state)) >= p.states.len())
}

/// `1 step`, `2 steps`.
fn steps_text(n: u64) -> String {
    if n == 1 {
        "1 step".to_string()
    } else {
        format!("{n} steps")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_command("3\n"), Command::Take(3));
        assert_eq!(parse_command("  12 \r\n"), Command::Take(12));
        assert_eq!(parse_command("BACK"), Command::Back);
        assert_eq!(parse_command("quit\n"), Command::Quit);
        assert_eq!(parse_command("-1"), Command::Unknown);
        assert_eq!(parse_command(""), Command::Unknown);
        assert_eq!(parse_command("99999999999999999999999"), Command::Unknown);
    }
}
