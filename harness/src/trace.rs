//! Printing counterexamples: each step's transition and the variables it
//! changed, as text for people or as JSON for tools.

use crate::check::Trace;
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

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
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
        let what = if step.label.trans == dve_frontend::model::NONE
            && step.label.prop == dve_frontend::model::NONE
        {
            "(no transition)".to_string()
        } else {
            info.label_text(&step.label)
        };
        let err = if step.error {
            "  [run-time error: to the error state]"
        } else {
            ""
        };
        writeln!(out, "  {:>4}. {what}{err}", i + 1)?;
        let ch = changes(info, t.state(i), &step.state);
        if !ch.is_empty() {
            let list: Vec<String> = ch
                .iter()
                .map(|(s, a, b)| format!("{}: {} -> {}", info.slots[*s].name, show(a), show(b)))
                .collect();
            writeln!(out, "        {}", list.join(", "))?;
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
