//! BEEM's property answers: every reachability property (BFS, goal) and
//! every LTL property (nested DFS over the product with the property
//! process) whose instance has at most 300,000 states must give BEEM's
//! recorded answer, and every counterexample is replayed by an independent
//! checker: each step is an enabled transition, and the last state violates
//! the property (a lasso returns to its cycle start through an accepting
//! state).

mod common;

use common::beem::{assert_none, check_options, properties_up_to};
use common::{beem, check_lasso, problems_on_two_threads, replay};
use dve_frontend::interp::Interpreter;
use dve_frontend::LoadOptions;
use dvemc_run::algo::check::{check, check_threads, CheckOptions, Goal, Search, Verdict, ViolationKind};
use dvemc_run::model::beem::{Answer, PropertyKind};

const MAX_STATES: u64 = 300_000;

#[test]
fn reachability_answers_match_beem() {
    let beem = beem();
    let props = properties_up_to(&beem, PropertyKind::Reachability, MAX_STATES);
    assert!(props.len() >= 50, "only {} properties", props.len());
    let problems = problems_on_two_threads(&props, |p| {
        let name = format!("{} #{}", p.instance, p.prop_id);
        let opts = LoadOptions {
            exprs: vec![p.formula.clone()],
            ..Default::default()
        };
        let loaded = match dve_frontend::load_file_with(&beem.model_path(&p.instance), &opts) {
            Ok(l) => l,
            Err(e) => return vec![format!("{name}: {e}")],
        };
        let goal = Goal {
            text: p.formula.clone(),
            expr: loaded.exprs[0].clone(),
        };
        let m = Interpreter::new(loaded.model.clone());
        let opts = CheckOptions {
            goals: vec![goal.clone()],
            ..check_options(Search::Bfs)
        };
        let r = check(&m, &loaded.model, &opts);
        let found = r.verdict == Verdict::Violated;
        let mut out = Vec::new();
        if p.family == "brp2" && p.prop_id == 1 {
            // properties.csv parenthesises the atomic proposition `rb1`, but
            // BEEM substituted it textually into `rfsf && (not rb1)`, where
            // `not` binds tighter than `==`: the goal BEEM checked is never
            // true. Check both readings, so this explanation stays tested.
            if !found {
                out.push(format!("{name}: the parenthesised goal should be reachable"));
            }
            let beem_text = "Receiver.first_safe_frame && (not (Receiver->triple & 4) == 4)";
            let opts = LoadOptions {
                exprs: vec![beem_text.into()],
                ..Default::default()
            };
            let l = dve_frontend::load_file_with(&beem.model_path(&p.instance), &opts).expect("loads");
            let o = CheckOptions {
                goals: vec![Goal {
                    text: beem_text.into(),
                    expr: l.exprs[0].clone(),
                }],
                ..check_options(Search::Bfs)
            };
            if check(&m, &l.model, &o).verdict != Verdict::Holds {
                out.push(format!("{name}: BEEM's textual reading should be unreachable"));
            }
            return out;
        }
        if r.verdict == Verdict::Unknown || found != (p.beem_answer == Answer::Yes) {
            out.push(format!("{name}: {:?}, BEEM {:?}", r.verdict, p.beem_answer));
        }
        // The parallel check (three threads, more than the cores) gives the
        // same answer and a counterexample as short, which replays.
        let par = check_threads(&m, &loaded.model, &opts, 3);
        if par.verdict != r.verdict || par.cex_length != r.cex_length {
            out.push(format!(
                "{name}: 3 threads {:?} (cex {:?}), 1 thread {:?} (cex {:?})",
                par.verdict, par.cex_length, r.verdict, r.cex_length
            ));
        }
        if par.verdict == Verdict::Holds && par.counters.states != r.counters.states {
            out.push(format!(
                "{name}: 3 threads stored {} states, 1 thread {}",
                par.counters.states, r.counters.states
            ));
        }
        // The depth-first-like order on three threads: the same answer,
        // a counterexample that replays (a path of the search, so no
        // length is promised).
        let dfs_opts = CheckOptions {
            search: Search::Dfs,
            ..opts.clone()
        };
        let pdfs = check_threads(&m, &loaded.model, &dfs_opts, 3);
        if pdfs.verdict != r.verdict {
            out.push(format!(
                "{name}: dfs on 3 threads {:?}, bfs {:?}",
                pdfs.verdict, r.verdict
            ));
        }
        if pdfs.verdict == Verdict::Holds && pdfs.counters.states != r.counters.states {
            out.push(format!(
                "{name}: dfs on 3 threads stored {} states, bfs {}",
                pdfs.counters.states, r.counters.states
            ));
        }
        if let Some(v) = &pdfs.first {
            if let Err(e) = replay(&m, &v.trace) {
                out.push(format!("{name}: dfs on 3 threads: {e}"));
            }
            let last = v.trace.state(v.trace.steps.len());
            if !matches!(dve_frontend::interp::eval(&goal.expr, last), Ok(x) if x != 0) {
                out.push(format!(
                    "{name}: dfs on 3 threads: the last state does not satisfy the goal"
                ));
            }
        }
        for v in r.first.iter().chain(&par.first) {
            if let Err(e) = replay(&m, &v.trace) {
                out.push(format!("{name}: {e}"));
            }
            let last = v.trace.state(v.trace.steps.len());
            if !matches!(dve_frontend::interp::eval(&goal.expr, last), Ok(x) if x != 0) {
                out.push(format!("{name}: the last state does not satisfy the goal"));
            }
            // BFS counterexamples are shortest: never longer than BEEM's.
            if let Some(len) = p.cex_length.filter(|&l| l > 0) {
                if v.trace.steps.len() as u64 > len {
                    out.push(format!(
                        "{name}: counterexample of {} steps, BEEM found {len}",
                        v.trace.steps.len()
                    ));
                }
            }
        }
        out
    });
    assert_none(&problems, props.len());
}

#[test]
fn ltl_answers_match_beem() {
    let beem = beem();
    let props = properties_up_to(&beem, PropertyKind::Ltl, MAX_STATES);
    assert!(props.len() >= 100, "only {} properties", props.len());
    let problems = problems_on_two_threads(&props, |p| {
        let name = format!("{} #{}", p.instance, p.prop_id);
        let model = match dve_frontend::load_file(&beem.property_model_path(&p.instance, p.prop_id)) {
            Ok(m) => m,
            Err(e) => return vec![format!("{name}: {e}")],
        };
        let m = Interpreter::new(model.clone());
        let r = check(&m, &model, &check_options(Search::Ndfs));
        let mut out = Vec::new();
        // BEEM's answer is whether the formula holds: "no" = accepting cycle.
        let violated = r.verdict == Verdict::Violated;
        if r.verdict == Verdict::Unknown || violated != (p.beem_answer == Answer::No) {
            out.push(format!("{name}: {:?}, BEEM {:?}", r.verdict, p.beem_answer));
        }
        if let Some(v) = &r.first {
            assert_eq!(v.kind, ViolationKind::AcceptingCycle);
            if let Err(e) = check_lasso(&m, &v.trace) {
                out.push(format!("{name}: {e}"));
            }
        }
        out
    });
    assert_none(&problems, props.len());
}
