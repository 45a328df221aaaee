//! Printing counterexamples: each step's transition and the variables it
//! changed, as text for people or as JSON for tools.

use crate::search::trace::Trace;
use dve_frontend::model::{ModelInfo, SlotKind};
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
fn changes(info: &ModelInfo, before: &[u8], after: &[u8]) -> Vec<(usize, Value, Value)> {
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
        writeln!(
            out,
            "  {:>4}. {}",
            i + 1,
            crate::simulate::step_label(info, entry)
        )?;
        let ch = crate::simulate::changes(info, t.state(i), &step.state);
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
            for (s, a, b) in changes(info, t.state(i), &step.state) {
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
