//! Printing counterexamples: each step's transition and the variables it
//! changed, as text for people or as JSON for tools.

use crate::engine::trace::Trace;
use dve_frontend::model::{ModelInfo, Slot, SlotKind, Succ};
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
/// transition and the changed variables.
pub fn write_text(out: &mut impl Write, info: &ModelInfo, t: &Trace) -> std::io::Result<()> {
    let kind = if t.cycle_start.is_some() { "lasso" } else { "path" };
    writeln!(out, "counterexample ({kind}, {} steps):", t.steps.len())?;
    writeln!(out, "  initial state: {}", info.state_text(&t.initial))?;
    for (i, step) in t.steps.iter().enumerate() {
        if t.cycle_start == Some(i) {
            writeln!(out, "  -- the cycle starts here --")?;
        }
        let entry = dve_frontend::model::Succ {
            label: step.label,
            error: step.error,
        };
        writeln!(out, "  {:>4}. {}", i + 1, step_label(info, entry))?;
        let ch = changes(info, t.state(i), &step.state);
        if !ch.is_empty() {
            writeln!(out, "        {}", ch.join(", "))?;
        }
    }
    if let Some(c) = t.cycle_start {
        writeln!(out, "  -- back to the state after step {c}: the cycle repeats --")?;
    }
    Ok(())
}

fn state_object(info: &ModelInfo, state: &[u8]) -> Value {
    let mut m = Map::new();
    for (i, s) in info.slots.iter().enumerate() {
        m.insert(s.name.clone(), value(info, i, state));
    }
    Value::Object(m)
}

/// The trace as a JSON value: `initial` (name → value), `steps` (each with
/// `transition`, `error`, `changes` as name → [old, new], and the full
/// `state`) and `cycle_start` for lassos.
pub fn to_json(info: &ModelInfo, t: &Trace) -> Value {
    let steps: Vec<Value> = t
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let mut changed = Map::new();
            for (s, a, b) in changed_values(info, t.state(i), &step.state) {
                changed.insert(info.slots[s].name.clone(), json!([a, b]));
            }
            json!({
                "step": i + 1,
                "transition": info.label_text(&step.label),
                "error": step.error,
                "changes": changed,
                "state": state_object(info, &step.state),
            })
        })
        .collect();
    json!({
        "initial": state_object(info, &t.initial),
        "steps": steps,
        "cycle_start": t.cycle_start,
    })
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
