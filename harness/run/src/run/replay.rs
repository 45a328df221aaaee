//! Replaying a counterexample file against a model (`dvemc simulate
//! --replay`), as SPIN's `spin -t` replays a trail.
//!
//! The file is what `dvemc explore --trace-format json` (or `--trace-out`)
//! writes: the `initial` state, then `steps` (a path) or `stem` and `cycle`
//! (a lasso), each step with its `transition` and the full `state` after
//! it; the record of `--json`, whose `trace` is that object, is read too.
//! A step agrees with the model when one of the model's enabled
//! transitions has the step's label and error mark and leads to the
//! step's state, every variable and control state compared by name.
//! The first step that does not is reported with what the file says and
//! what the model offers there.

use std::io::{self, BufRead, Write};

use dve_frontend::model::{ModelInfo, NextState, SuccBuf};
use serde_json::{Map, Value};

use crate::output::counterexample::{changes, state_object, step_label};

/// One step of a counterexample file.
#[derive(Clone, Debug)]
pub struct FileStep {
    pub transition: String,
    pub error: bool,
    pub state: Map<String, Value>,
}

/// A counterexample file, read.
#[derive(Clone, Debug)]
pub struct FileTrace {
    pub initial: Map<String, Value>,
    pub steps: Vec<FileStep>,
    /// For a lasso, the stem's length.
    pub cycle_start: Option<usize>,
}

/// Why a replay stopped before the file's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The file is not a counterexample: the message names the field.
    Format(String),
    /// Step `step` of the file (0: its initial state) is not what the model
    /// does there.
    Disagrees { step: usize, message: String },
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Format(m) => f.write_str(m),
            ReplayError::Disagrees { step: 0, message } => write!(f, "the initial state: {message}"),
            ReplayError::Disagrees { step, message } => write!(f, "step {step}: {message}"),
        }
    }
}

impl std::error::Error for ReplayError {}

fn object(v: &Value, what: &str) -> Result<Map<String, Value>, ReplayError> {
    v.as_object()
        .cloned()
        .ok_or_else(|| ReplayError::Format(format!("`{what}` is not an object of variable values")))
}

fn steps(v: &Value, field: &str, first: usize) -> Result<Vec<FileStep>, ReplayError> {
    let list = v
        .as_array()
        .ok_or_else(|| ReplayError::Format(format!("`{field}` is not a list of steps")))?;
    list.iter()
        .enumerate()
        .map(|(i, s)| {
            let n = first + i + 1;
            let transition = s
                .get("transition")
                .and_then(Value::as_str)
                .ok_or_else(|| ReplayError::Format(format!("step {n}: no `transition` text")))?;
            let state = s
                .get("state")
                .ok_or_else(|| ReplayError::Format(format!("step {n}: no `state`")))?;
            Ok(FileStep {
                transition: transition.to_string(),
                error: s.get("error").and_then(Value::as_bool).unwrap_or(false),
                state: object(state, &format!("step {n}: state"))?,
            })
        })
        .collect()
}

/// Reads a counterexample file's text (see the module documentation).
pub fn parse(text: &str) -> Result<FileTrace, ReplayError> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        ReplayError::Format(format!(
            "not JSON: {e} (a counterexample from `dvemc explore --trace-format json` is)"
        ))
    })?;
    // The record of `--json` holds the counterexample as `trace`.
    let v = match v.get("trace") {
        Some(t) if v.get("initial").is_none() => t,
        _ => &v,
    };
    let initial = v
        .get("initial")
        .ok_or_else(|| ReplayError::Format("no `initial` state: not a counterexample".into()))?;
    let initial = object(initial, "initial")?;
    let (steps, cycle_start) = match (v.get("steps"), v.get("stem"), v.get("cycle")) {
        (Some(s), _, _) => (steps(s, "steps", 0)?, None),
        (None, Some(stem), Some(cycle)) => {
            let mut all = steps(stem, "stem", 0)?;
            let n = all.len();
            all.extend(steps(cycle, "cycle", n)?);
            (all, Some(n))
        }
        _ => {
            return Err(ReplayError::Format(
                "no `steps` (a path) nor `stem` and `cycle` (a lasso)".into(),
            ))
        }
    };
    Ok(FileTrace {
        initial,
        steps,
        cycle_start,
    })
}

/// The variables where the file's state and the model's differ, as
/// `name: file V, model W`.
fn differences(file: &Map<String, Value>, model: &Map<String, Value>) -> Vec<String> {
    let mut out: Vec<String> = model
        .iter()
        .filter(|(k, v)| file.get(*k) != Some(v))
        .map(|(k, v)| match file.get(k) {
            Some(f) => format!("{k}: file {f}, model {v}"),
            None => format!("{k}: not in the file, model {v}"),
        })
        .collect();
    out.extend(
        file.keys()
            .filter(|k| !model.contains_key(*k))
            .map(|k| format!("{k}: in the file, not a variable of the model")),
    );
    out
}

/// How a replay ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub steps: usize,
    /// The last state has no enabled transition.
    pub deadlock: bool,
}

/// Replays `file` on `model`, writing each step as `dvemc simulate` does
/// (label and changes). With `pause`, waits for a line of it before each
/// step (`q` ends the replay there; the end of its input goes on at once).
/// Returns at the first step where the file and the model disagree.
pub fn replay<M, W>(
    model: &M,
    name: &str,
    file_name: &str,
    file: &FileTrace,
    mut pause: Option<&mut dyn BufRead>,
    out: &mut W,
) -> io::Result<Result<Replayed, ReplayError>>
where
    M: NextState + ?Sized,
    W: Write,
{
    let info = model.info();
    let mut state = model.initial_vec();
    let here = state_object(info, &state);
    let diff = differences(&file.initial, &here);
    if !diff.is_empty() {
        return Ok(Err(ReplayError::Disagrees {
            step: 0,
            message: format!("not the model's initial state: {}", diff.join("; ")),
        }));
    }
    writeln!(out, "model: {name}")?;
    writeln!(out, "replay of {file_name}: {}", steps_text(file.steps.len()))?;
    writeln!(out, "initial state: {}", info.state_text(&state))?;
    let mut succs = SuccBuf::new(model.state_len());
    let mut cycle_entry = None;
    for (i, step) in file.steps.iter().enumerate() {
        if file.cycle_start == Some(i) {
            writeln!(out, "-- the cycle starts here --")?;
            cycle_entry = Some(state.clone());
        }
        if let Some(input) = pause.as_mut() {
            write!(out, "press Enter for step {} (q to stop)> ", i + 1)?;
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(out)?;
                pause = None;
            } else if line.trim().eq_ignore_ascii_case("q") {
                writeln!(out, "replay stopped before step {}", i + 1)?;
                out.flush()?;
                return Ok(Ok(Replayed {
                    steps: i,
                    deadlock: false,
                }));
            }
        }
        model.successors(&state, &mut succs);
        let next = match find_step(info, &succs, step) {
            Ok(k) => k,
            Err(message) => {
                out.flush()?;
                return Ok(Err(ReplayError::Disagrees { step: i + 1, message }));
            }
        };
        let entry = succs.entry(next);
        writeln!(out, "step {}: {}", i + 1, step_label(info, entry))?;
        let changes = changes(info, &state, succs.state(next));
        if changes.is_empty() {
            writeln!(out, "    (no change)")?;
        }
        for c in changes {
            writeln!(out, "    {c}")?;
        }
        state.copy_from_slice(succs.state(next));
    }
    if let (Some(entry), Some(stem)) = (&cycle_entry, file.cycle_start) {
        if *entry != state {
            return Ok(Err(ReplayError::Disagrees {
                step: file.steps.len(),
                message: format!("the cycle does not close: the state is not the one after step {stem}"),
            }));
        }
        writeln!(
            out,
            "-- back to the state after step {stem}: the cycle repeats --"
        )?;
    }
    model.successors(&state, &mut succs);
    let deadlock = succs.is_empty();
    writeln!(
        out,
        "replayed {}: the file agrees with the model",
        steps_text(file.steps.len())
    )?;
    writeln!(out, "state: {}", info.state_text(&state))?;
    if deadlock {
        writeln!(out, "deadlock: no enabled transition")?;
    }
    out.flush()?;
    Ok(Ok(Replayed {
        steps: file.steps.len(),
        deadlock,
    }))
}

/// The successor that `step` names, or what the file says and what the
/// model offers.
fn find_step(info: &ModelInfo, succs: &SuccBuf, step: &FileStep) -> Result<usize, String> {
    let same_label: Vec<usize> = (0..succs.len())
        .filter(|&k| {
            let e = succs.entry(k);
            info.label_text(&e.label) == step.transition && e.error == step.error
        })
        .collect();
    let mut closest = None;
    for &k in &same_label {
        let diff = differences(&step.state, &state_object(info, succs.state(k)));
        if diff.is_empty() {
            return Ok(k);
        }
        closest.get_or_insert(diff);
    }
    if let Some(diff) = closest {
        return Err(format!(
            "the file's transition `{}` is enabled, but leads elsewhere: {}",
            step.transition,
            diff.join("; ")
        ));
    }
    let offered: Vec<String> = succs
        .iter()
        .map(|(e, _)| format!("`{}`", info.label_text(&e.label)))
        .collect();
    let error = if step.error { " (marked error)" } else { "" };
    Err(if offered.is_empty() {
        format!(
            "the file says `{}`{error}, but the state is a deadlock: the model offers no transition",
            step.transition
        )
    } else {
        format!(
            "the file says `{}`{error}, which is not enabled here; the model offers {}",
            step.transition,
            offered.join(", ")
        )
    })
}

/// `1 step`, `2 steps`.
fn steps_text(n: usize) -> String {
    if n == 1 {
        "1 step".to_string()
    } else {
        format!("{n} steps")
    }
}
