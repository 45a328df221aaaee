//! The JIT against the reference interpreter, state by state: for each
//! state the full successor lists (labels, error flags, state bytes, in
//! order) and the fingerprint must be identical. Used by the differential
//! tests (first states of every BEEM file) and by `dvemc verify-jit`
//! (whole state spaces).

use std::collections::{HashSet, VecDeque};
use std::path::Path;
use std::time::{Duration, Instant};

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{fingerprint, NextState, SuccBuf};

use crate::JitError;

/// What comparing one model found.
#[derive(Debug)]
pub enum Verdict {
    /// Every state compared was identical; `complete` when that was the
    /// whole reachable state space (else it was cut at the state limit).
    Same {
        complete: bool,
    },
    /// The model does not load.
    LoadError(String),
    /// The JIT declines a feature (the interpreter still runs the model).
    Unsupported(String),
    CompileError(String),
    /// The first difference, described.
    Differs(String),
}

/// The outcome of [`compare_file`].
#[derive(Debug)]
pub struct Comparison {
    pub verdict: Verdict,
    /// States compared and successors compared.
    pub states: u64,
    pub transitions: u64,
    pub compile_time: Duration,
    pub time: Duration,
}

/// Renders a successor list for a difference report.
fn render(m: &dyn NextState, out: &SuccBuf) -> String {
    let info = m.info();
    let mut s = String::new();
    for (e, st) in out.iter() {
        s.push_str(&format!(
            "    [{}{}] {:?}\n      {}\n",
            info.label_text(&e.label),
            if e.error { " ERROR" } else { "" },
            e.label,
            info.state_text(st)
        ));
    }
    s
}

/// Compares the successors (into `a` for the interpreter, `b` for the JIT)
/// and the fingerprint of `state`; `Err` describes the first difference.
pub fn compare_state(
    name: &str,
    interp: &Interpreter,
    jit: &dyn NextState,
    state: &[u8],
    a: &mut SuccBuf,
    b: &mut SuccBuf,
) -> Result<(), String> {
    interp.successors(state, a);
    jit.successors(state, b);
    let same = a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y);
    if !same {
        return Err(format!(
            "{name}: successors differ in state\n  {}\n  bytes {:?}\n  interpreter ({}):\n{}  jit ({}):\n{}",
            interp.info().state_text(state),
            state,
            a.len(),
            render(interp, a),
            b.len(),
            render(jit, b)
        ));
    }
    let (fr, fj) = (fingerprint::reference(state), jit.fingerprint(state));
    if fr != fj {
        return Err(format!(
            "{name}: fingerprint differs in state {} (bytes {state:?}): reference {fr:#x}, jit {fj:#x}",
            interp.info().state_text(state)
        ));
    }
    Ok(())
}

/// Loads and compiles `path`, then compares both backends on the states a
/// breadth-first search with the interpreter reaches, up to `max_states`
/// states.
pub fn compare_file(path: &Path, max_states: usize) -> Comparison {
    let start = Instant::now();
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let done = |verdict, states, transitions, compile_time| Comparison {
        verdict,
        states,
        transitions,
        compile_time,
        time: start.elapsed(),
    };
    let model = match dve_frontend::load_file(path) {
        Ok(m) => m,
        Err(e) => return done(Verdict::LoadError(format!("{name}: {e}")), 0, 0, Duration::ZERO),
    };
    let jit = match crate::compile(&model) {
        Ok(j) => j,
        Err(JitError::Unsupported { feature }) => {
            return done(Verdict::Unsupported(feature), 0, 0, Duration::ZERO)
        }
        Err(e) => {
            return done(
                Verdict::CompileError(format!("{name}: {e}")),
                0,
                0,
                Duration::ZERO,
            )
        }
    };
    let compile = jit.compile_time();
    let interp = Interpreter::new(model);
    let product = compare_reachable(&name, &interp, &jit, max_states);
    // The system alone, from the product's code (`JitModel::property_held`).
    let held = match (&product, jit.property_held()) {
        (Ok(_), Some(held)) => {
            let system = Interpreter::new(held.system().clone());
            Some(compare_reachable(
                &format!("{name} (property held)"),
                &system,
                &held,
                max_states,
            ))
        }
        _ => None,
    };
    match (product, held) {
        (Err((msg, states, transitions)), _) | (_, Some(Err((msg, states, transitions)))) => {
            done(Verdict::Differs(msg), states, transitions, compile)
        }
        (Ok((states, transitions, complete)), held) => {
            let (hs, ht, hc) = held.and_then(Result::ok).unwrap_or((0, 0, true));
            done(
                Verdict::Same {
                    complete: complete && hc,
                },
                states + hs,
                transitions + ht,
                compile,
            )
        }
    }
}

/// States and successors compared, and whether that was every reachable
/// state, or the first difference with the counts up to it.
type Reached = Result<(u64, u64, bool), (String, u64, u64)>;

/// Compares `interp` and `jit` on the states a breadth-first search with the
/// interpreter reaches, up to `max_states` states.
fn compare_reachable(name: &str, interp: &Interpreter, jit: &dyn NextState, max_states: usize) -> Reached {
    let len = interp.state_len();
    let (mut a, mut b) = (SuccBuf::new(len), SuccBuf::new(len));
    let init = interp.initial_vec();
    if jit.initial_vec() != init {
        return Err((format!("{name}: initial states differ"), 0, 0));
    }
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut queue = VecDeque::new();
    seen.insert(init.clone());
    queue.push_back(init);
    let (mut states, mut transitions) = (0u64, 0u64);
    let mut complete = true;
    while let Some(s) = queue.pop_front() {
        if let Err(msg) = compare_state(name, interp, jit, &s, &mut a, &mut b) {
            return Err((msg, states, transitions));
        }
        states += 1;
        transitions += a.len() as u64;
        for (_, t) in a.iter() {
            if !seen.contains(t) {
                if seen.len() >= max_states {
                    complete = false;
                    continue;
                }
                seen.insert(t.to_vec());
                queue.push_back(t.to_vec());
            }
        }
    }
    Ok((states, transitions, complete))
}
