//! Goals and assertions are state functions of the backend: the JIT
//! compiles them, the interpreter evaluates the IR. On every BEEM instance
//! with a reachability property (its formula) or assertions, both give the
//! same value (or the same run-time error) for every state function on the
//! first states of a BFS.

mod common;
use common::beem;

use dve_frontend::model::SuccBuf;
use dvemc_run::algo::check::{state_functions, Goal};
use dvemc_run::model::backend::{build_with, Backend};
use dvemc_run::model::beem::PropertyKind;
use std::collections::{BTreeMap, HashSet, VecDeque};

const STATES: usize = 5_000;

#[test]
fn jit_and_interpreter_agree_on_goals_and_assertions() {
    let beem = beem();
    let mut goals: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in beem.properties().expect("properties.csv") {
        if p.kind == PropertyKind::Reachability {
            goals.entry(p.instance).or_default().push(p.formula);
        }
    }
    // Instances with assertions, too (a few families have them).
    for r in beem.instances().expect("instances.csv") {
        goals.entry(r.instance).or_default();
    }
    let mut compared = 0usize;
    let mut functions = 0usize;
    let mut problems = Vec::new();
    for (inst, formulas) in &goals {
        let opts = dve_frontend::LoadOptions {
            exprs: formulas.clone(),
            ..Default::default()
        };
        let Ok(loaded) = dve_frontend::load_file_with(&beem.model_path(inst), &opts) else {
            continue;
        };
        let goals: Vec<Goal> = formulas
            .iter()
            .zip(&loaded.exprs)
            .map(|(t, e)| Goal {
                text: t.clone(),
                expr: e.clone(),
            })
            .collect();
        let fns = state_functions(&loaded.model, &goals);
        if fns.is_empty() {
            continue;
        }
        let jit = build_with(loaded.model.clone(), Backend::Jit, fns.clone());
        assert_eq!(jit.backend, Backend::Jit, "{inst}: {:?}", jit.fallback);
        let interp = build_with(loaded.model.clone(), Backend::Interp, fns.clone());
        let (a, b) = (jit.model(), interp.model());
        assert_eq!(a.state_functions(), fns.len());
        functions += fns.len();
        // The first states of a BFS.
        let mut seen = HashSet::new();
        let mut queue = VecDeque::from([a.initial_vec()]);
        let mut buf = SuccBuf::new(a.state_len());
        while let Some(s) = queue.pop_front() {
            if !seen.insert(s.clone()) || seen.len() > STATES {
                continue;
            }
            for i in 0..fns.len() {
                let (x, y) = (a.state_function(i, &s), b.state_function(i, &s));
                if x != y {
                    problems.push(format!("{inst}: function {i}: jit {x:?}, interp {y:?}"));
                }
            }
            compared += 1;
            a.successors(&s, &mut buf);
            for (_, t) in buf.iter() {
                queue.push_back(t.to_vec());
            }
        }
    }
    assert!(functions > 100, "{functions} state functions");
    assert!(compared > 100_000, "{compared} states");
    problems.truncate(20);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
