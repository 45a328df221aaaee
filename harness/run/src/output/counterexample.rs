//! Printing counterexamples: each step's transition and the variables it
//! changed, as text for people or as JSON for tools.

use crate::engine::trace::Trace;
use dve_frontend::model::{ModelInfo, Slot, SlotKind, Succ, NONE};
use serde_json::{json, Map, Value};
use std::io::Write;

/// A slot's value as shown to people: a control-state name or a number.
fn value(info: &ModelInfo, slot: usize, state: &[u8]) -> Value {
    let s = &info.slots[slot];
    let v = info.slot_value(s, state);
    match s.kind {
        SlotKind::ControlState { process } => match info.processes[process].states.get(v as usize) {
            Some(name) => Value::String(name.clone()),
            None => Value::String("<error>".into()),
        },
        _ => Value::from(v),
    }
}

/// Slots whose value differs between two states.
fn changed_values(info: &ModelInfo, before: &[u8], after: &[u8]) -> Vec<(usize, Value, Value)> {
    (0..info.slots.len())
        .filter_map(|i| {
            let (a, b) = (value(info, i, before), value(info, i, after));
            (a != b).then_some((i, a, b))
        })
        .collect()
}

/// The trace as text: the initial state, then one line per step with the
/// transition and the changed variables; a lasso's stem and cycle apart,
/// each with its length.
pub fn write_text(out: &mut impl Write, info: &ModelInfo, t: &Trace) -> std::io::Result<()> {
    let Some((stem, cycle)) = t.lasso() else {
        writeln!(out, "counterexample (path, {} steps):", t.steps.len())?;
        writeln!(out, "  initial state: {}", info.state_text(&t.initial))?;
        return write_steps(out, info, t, 0..t.steps.len());
    };
    let steps = |n: usize| {
        if n == 1 {
            "1 step".to_string()
        } else {
            format!("{n} steps")
        }
    };
    writeln!(
        out,
        "counterexample (lasso, {}: a stem of {stem}, a cycle of {cycle}):",
        steps(t.steps.len())
    )?;
    writeln!(out, "  initial state: {}", info.state_text(&t.initial))?;
    writeln!(out, "  stem ({}, to the cycle's entry):", steps(stem))?;
    write_steps(out, info, t, 0..stem)?;
    writeln!(out, "  cycle ({}, from the entry back to it):", steps(cycle))?;
    write_steps(out, info, t, stem..t.steps.len())?;
    writeln!(
        out,
        "  -- back to the state after step {stem}: the cycle repeats --"
    )
}

/// Steps `range` of `t`, numbered from 1 at the trace's first.
fn write_steps(
    out: &mut impl Write,
    info: &ModelInfo,
    t: &Trace,
    range: std::ops::Range<usize>,
) -> std::io::Result<()> {
    for i in range {
        let step = &t.steps[i];
        let entry = Succ {
            label: step.label,
            error: step.error,
        };
        let label = step_label(info, entry);
        if is_stutter(entry) {
            writeln!(
                out,
                "  {:>4}. deadlock: the run stays in this state forever (the property process moves alone: {label})",
                i + 1
            )?;
        } else {
            writeln!(out, "  {:>4}. {label}", i + 1)?;
        }
        let ch = changes(info, t.state(i), &step.state);
        if !ch.is_empty() {
            writeln!(out, "        {}", ch.join(", "))?;
        }
    }
    Ok(())
}

/// A state as a JSON object: each variable and control state by name.
pub fn state_object(info: &ModelInfo, state: &[u8]) -> Map<String, Value> {
    let mut m = Map::new();
    for (i, s) in info.slots.iter().enumerate() {
        m.insert(s.name.clone(), value(info, i, state));
    }
    m
}

/// The trace as a JSON value: `initial` (name → value), then the steps
/// (each with `transition`, `error`, `changes` as name → [old, new], and
/// the full `state`): `steps` for a path; `stem` and `cycle` for a lasso,
/// whose `cycle_start` is the stem's length (null for a path).
pub fn to_json(info: &ModelInfo, t: &Trace) -> Value {
    let step = |i: usize| {
        let step = &t.steps[i];
        let mut changed = Map::new();
        for (s, a, b) in changed_values(info, t.state(i), &step.state) {
            changed.insert(info.slots[s].name.clone(), json!([a, b]));
        }
        json!({
            "step": i + 1,
            "transition": info.label_text(&step.label),
            "error": step.error,
            "changes": changed,
            "state": Value::Object(state_object(info, &step.state)),
        })
    };
    let steps = |r: std::ops::Range<usize>| Value::Array(r.map(step).collect());
    match t.lasso() {
        None => json!({
            "initial": Value::Object(state_object(info, &t.initial)),
            "steps": steps(0..t.steps.len()),
            "cycle_start": null,
        }),
        Some((stem, _)) => json!({
            "initial": Value::Object(state_object(info, &t.initial)),
            "stem": steps(0..stem),
            "cycle": steps(stem..t.steps.len()),
            "cycle_start": stem,
        }),
    }
}
/// A step of the property process alone: the system is deadlocked, and
/// the product extends its run by stuttering there (DiVinE's semantics,
/// as LTSmin's self-loop on a deadlock), forever once on a cycle.
pub fn is_stutter(entry: Succ) -> bool {
    entry.label.trans == NONE && entry.label.prop != NONE
}

/// The label of a step, `[error]`-marked when the transition raised a
/// run-time error.
pub fn step_label(info: &ModelInfo, entry: Succ) -> String {
    let mut text = info.label_detail(&entry.label);
    if text.is_empty() {
        text.push_str("(unnamed transition)");
    }
    if entry.error {
        text.push_str("  [run-time error: to the error state]");
    }
    text
}

/// The slots whose values differ between `old` and `new`, as
/// `name: old -> new` in slot order.
pub fn changes(info: &ModelInfo, old: &[u8], new: &[u8]) -> Vec<String> {
    info.slots
        .iter()
        .filter(|slot| info.slot_value(slot, old) != info.slot_value(slot, new))
        .map(|slot| {
            format!(
                "{}: {} -> {}",
                slot.name,
                slot_text(info, slot, old),
                slot_text(info, slot, new)
            )
        })
        .collect()
}

/// The value of one slot as text: a number, or for a control state the
/// state's name (`<error>` for the error state's marker).
pub fn slot_text(info: &ModelInfo, slot: &Slot, state: &[u8]) -> String {
    let v = info.slot_value(slot, state);
    match slot.kind {
        SlotKind::ControlState { process } => match info
            .processes
            .get(process)
            .and_then(|p| usize::try_from(v).ok().and_then(|i| p.states.get(i)))
        {
            Some(name) => name.clone(),
            None => "<error>".to_string(),
        },
        _ => v.to_string(),
    }
}
