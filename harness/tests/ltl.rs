//! LTL formulas over BEEM's models: every LTL formula of properties.csv, as
//! written there, parses and its atoms resolve against its instance (BEEM's
//! family propositions such as elevator2's `p1` included); checked through
//! its own automaton, it gives BEEM's answer and the answer of BEEM's
//! property process, on one thread (nested DFS) and on two (CNDFS), and
//! each counterexample is a lasso that replays;
//! `dvemc ltl2ba` prints automata.

mod common;

use dve_frontend::interp::Interpreter;
use dve_frontend::ltl::{self, Spec};
use dve_frontend::LoadOptions;
use dvemc_run::algo::check::{check_threads, Search, Verdict};
use dvemc_run::model::beem::{Answer, PropertyKind};

use common::beem::{assert_none, check_options, properties_up_to};
use common::dvemc::{dvemc, json, stderr, stdout, TempDir};
use common::{beem, check_lasso, problems_on_two_threads};

#[test]
fn every_beem_formula_parses_against_its_instance() {
    let beem = beem();
    let rows: Vec<_> = beem
        .properties()
        .expect("properties.csv")
        .into_iter()
        .filter(|r| r.kind == PropertyKind::Ltl)
        .collect();
    let mut failures = Vec::new();
    let mut atoms = 0;
    for r in &rows {
        let defs = beem.family_propositions(&r.family).expect("family file");
        let spec = Spec::Formula {
            text: r.formula.clone(),
            definitions: defs,
        };
        match ltl::load(&beem.model_path(&r.instance), &spec) {
            Ok(l) => {
                assert_eq!(l.atoms.len(), l.property.atoms.len());
                atoms += l.atoms.len();
            }
            Err(e) => failures.push(format!("{} prop {}: {e}", r.instance, r.prop_id)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 374 LTL rows in properties.csv.
    assert_eq!(rows.len(), 374);
    assert!(atoms >= rows.len());
}

/// A HOA state: its number, whether it accepts, its (label, target) edges.
type HoaState = (usize, bool, Vec<(String, usize)>);

/// The states of a HOA body.
fn hoa_states(hoa: &str) -> Vec<HoaState> {
    let body = hoa.split("--BODY--").nth(1).expect("a body");
    let mut states: Vec<HoaState> = Vec::new();
    for line in body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "--END--")
    {
        if let Some(rest) = line.strip_prefix("State: ") {
            let n = rest.split(' ').next().unwrap().parse().unwrap();
            states.push((n, rest.contains("{0}"), Vec::new()));
        } else {
            let (label, to) = line.rsplit_once("] ").expect("an edge");
            let to = to.parse().unwrap();
            states
                .last_mut()
                .unwrap()
                .2
                .push((label.trim_start_matches('[').to_string(), to));
        }
    }
    states
}

#[test]
fn ltl2ba_prints_hoa_and_text() {
    let o = dvemc(&["ltl2ba", "--negate", "G (p -> F q)"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let hoa = stdout(&o);
    assert!(
        hoa.starts_with("HOA: v1\nname: \"!(G (p -> F q))\"\nStates: 2\nStart: 0\nAP: 2 \"p\" \"q\"\n"),
        "{hoa}"
    );
    assert!(hoa.contains("Acceptance: 1 Inf(0)"), "{hoa}");
    // F (p && G !q): wait in 0, then stay in the accepting state while !q.
    let states = hoa_states(&hoa);
    assert_eq!(states.len(), 2);
    let accepting: Vec<bool> = states.iter().map(|s| s.1).collect();
    assert_eq!(accepting, [false, true]);
    assert!(states[0].2.contains(&("t".into(), 0)), "{hoa}");
    assert!(states[0].2.contains(&("0 & !1".into(), 1)), "{hoa}");
    assert_eq!(states[1].2, [("!1".to_string(), 1)], "{hoa}");

    let o = dvemc(&["ltl2ba", "--format", "text", "G (p -> F q)"]);
    assert_eq!(o.status.code(), Some(0));
    let t = stdout(&o);
    assert!(
        t.starts_with(
            "automaton of G (p -> F q)\nformula: G (p0 -> F p1)\n  p0 = p\n  p1 = q\n2 states, 4 transitions"
        ),
        "{t}"
    );
    // Two labels to one target are one edge with their disjunction.
    assert!(t.contains("  !p || q -> 0\n"), "{t}");
}

#[test]
fn ltl2ba_checks_atoms_against_a_model() {
    // elevator2's family file defines p1; BEEM glues U to it.
    let f = "G((req[0]==1)->(!p1U(p1U((p==1)&& (cabin.open)))))";
    let o = dvemc(&[
        "ltl2ba",
        "--negate",
        "--format",
        "text",
        "--model",
        "elevator2.1",
        f,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("(p == 1) && !cabin.open"), "{}", stdout(&o));
    let o = dvemc(&["ltl2ba", "--model", "adding.1", "G (c > 1 && y == 2)"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).starts_with("<formula>:1:13: error: unknown variable `y`"),
        "{}",
        stderr(&o)
    );
    let o = dvemc(&["ltl2ba", "G (p U)"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).starts_with("<formula>:1:7: error: expected a formula, found `)`"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

/// Instances of at most this many states (BEEM's count) are checked by default.
const MAX_STATES: u64 = 50_000;

/// The largest instance checked: [`MAX_STATES`], or `DVEMC_LTL_MAX_STATES`
/// (`make verify-ltl` checks every instance up to 1,000,000 states).
fn max_states() -> u64 {
    std::env::var("DVEMC_LTL_MAX_STATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MAX_STATES)
}

/// What a search for accepting cycles found: its verdict, states and
/// transitions.
type Found = (Verdict, u64, u64);

/// Nested DFS on the model at `path`, and CNDFS on two threads, after
/// checking their counterexamples: a violation has one, a lasso that
/// replays ([`check_lasso`]).
fn searches(path: &std::path::Path, opts: &LoadOptions) -> Result<[Found; 2], String> {
    let model = dve_frontend::load_file_with(path, opts)
        .map_err(|e| e.to_string())?
        .model;
    let m = Interpreter::new(model.clone());
    let check_opts = check_options(Search::Ndfs);
    let mut found = [(Verdict::Unknown, 0, 0); 2];
    for (i, threads) in [1, 2].into_iter().enumerate() {
        let r = check_threads(&m, &model, &check_opts, threads);
        match (&r.first, r.verdict) {
            (Some(v), Verdict::Violated) => {
                check_lasso(&m, &v.trace).map_err(|e| format!("{threads} threads: {e}"))?
            }
            (None, Verdict::Holds | Verdict::Unknown) => {}
            (v, verdict) => {
                return Err(format!(
                    "{threads} threads: {verdict:?} with counterexample {v:?}"
                ))
            }
        }
        found[i] = (r.verdict, r.counters.states, r.counters.transitions);
    }
    Ok(found)
}

#[test]
fn ltl_formulas_give_beems_answers() {
    let beem = beem();
    let rows = properties_up_to(&beem, PropertyKind::Ltl, max_states());
    let n = rows.len();
    let problems = problems_on_two_threads(&rows, |p| {
        let name = format!("{} #{}", p.instance, p.prop_id);
        let defs = beem.family_propositions(&p.family).expect("family file");
        let opts = LoadOptions {
            ltl: Some(Spec::Formula {
                text: p.formula.clone(),
                definitions: defs,
            }),
            ..Default::default()
        };
        let ours = searches(&beem.model_path(&p.instance), &opts);
        let theirs = searches(
            &beem.property_model_path(&p.instance, p.prop_id),
            &LoadOptions::default(),
        );
        let mut out = Vec::new();
        match (ours, theirs) {
            (Ok(a), Ok(b)) => {
                // BEEM's "no": the formula does not hold, an accepting cycle.
                let want = p.beem_answer == Answer::No;
                if (a[0].0 == Verdict::Violated) != want || a[0].0 == Verdict::Unknown {
                    out.push(format!("{name}: --ltl {:?}, BEEM {:?}", a[0].0, p.beem_answer));
                }
                if a[0].0 != b[0].0 {
                    out.push(format!("{name}: --ltl {:?}, --property {:?}", a[0].0, b[0].0));
                }
                // Two threads: the same verdict, and when the formula
                // holds the same states and transitions.
                for (what, [one, two]) in [("--ltl", a), ("--property", b)] {
                    if two.0 != one.0 || (one.0 == Verdict::Holds && two != one) {
                        out.push(format!("{name}: {what}: 2 threads {two:?}, 1 thread {one:?}"));
                    }
                }
            }
            (a, b) => out.push(format!("{name}: {a:?} / {b:?}")),
        }
        out
    });
    assert_none(&problems, n);
    // The LTL properties with an answer on instances up to 50,000 states.
    assert!(n >= 60, "only {n} properties");
    eprintln!(
        "{n} LTL properties on instances up to {} states agree with BEEM and with --property, on 1 and 2 threads",
        max_states()
    );
}

#[test]
fn explore_with_ltl_runs_the_product() {
    let f = "G ((P_0.p1 or P_0.p2 or P_0.p3) -> F ((P_0.CS)) )";
    let o = dvemc(&["explore", "anderson.1", "--ltl", f, "--json"]);
    // BEEM: the formula does not hold on anderson.1 (exit 1: a counterexample).
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // A lasso: its stem and cycle apart, in the record and in the trace.
    let v = json(&o);
    let (stem, cycle) = (&v["stem_length"], &v["cycle_length"]);
    assert!(cycle.as_u64() >= Some(1), "{v}");
    assert_eq!(
        stem.as_u64().map(|s| s + cycle.as_u64().unwrap()),
        v["cex_length"].as_u64()
    );
    assert_eq!(
        v["trace"]["stem"].as_array().map(Vec::len),
        stem.as_u64().map(|s| s as usize)
    );
    assert_eq!(
        v["trace"]["cycle"].as_array().map(Vec::len),
        cycle.as_u64().map(|c| c as usize)
    );
    assert_eq!(v["trace"]["cycle_start"], *stem);
    let o = dvemc(&["explore", "anderson.1", "--ltl", f]);
    let out = stdout(&o);
    let header = format!(
        "counterexample (lasso, {} steps: a stem of {stem}, a cycle of {cycle}):",
        v["cex_length"]
    );
    assert!(out.contains(&header), "{out}");
    assert!(out.contains(", from the entry back to it):"), "{out}");
    let o = dvemc(&["explore", "anderson.1", "--ltl", "G (P_0.nope)"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("--ltl:1:8: error: process `P_0` has no state `nope`"),
        "{}",
        stderr(&o)
    );
    let o = dvemc(&["explore", "anderson.1", "--ltl", f, "--property", "2"]);
    assert_eq!(o.status.code(), Some(2));
}

/// CNDFS keeps the budgets: a state limit ends it exactly there, unknown
/// (exit 4), and a time limit too; with room it holds, as one thread.
#[test]
fn two_threads_keep_the_budgets() {
    // lifts.6 property 2 holds (BEEM): a million product states.
    let args = [
        "explore",
        "lifts.6",
        "--property",
        "2",
        "--threads",
        "2",
        "--json",
    ];
    let o = dvemc(&[&args[..], &["--max-states", "5000"]].concat());
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["result"], "state_limit", "{v}");
    assert_eq!(v["verdict"], "unknown", "{v}");
    assert_eq!(v["states"], 5000, "{v}");
    assert_eq!(v["strategy"], "cndfs", "{v}");
    let o = dvemc(&[&args[..], &["--time-limit", "0.05"]].concat());
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["result"], "time_limit", "{v}");
    let o = dvemc(&[
        "explore",
        "fischer.1",
        "--ltl",
        "G !(P_0.CS && P_1.CS)",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let two = json(&o);
    let o = dvemc(&["explore", "fischer.1", "--ltl", "G !(P_0.CS && P_1.CS)", "--json"]);
    let one = json(&o);
    for key in ["verdict", "states", "transitions", "deadlocks"] {
        assert_eq!(two[key], one[key], "{key}");
    }
}

#[test]
fn explore_with_an_ltl_file() {
    let dir = TempDir::new("ltl");
    let file = dir.join("fischer.ltl");
    // fischer.1: P_0 may wait forever (BEEM's property 2 does not hold), and
    // mutual exclusion holds.
    std::fs::write(
        &file,
        "#define try P_0.try\n#define cs P_0.CS\n#property G (try -> F cs)\n#property G !(P_0.CS && P_1.CS)\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let o = dvemc(&["explore", "fischer.1", "--ltl-file", f]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = dvemc(&["explore", "fischer.1", "--ltl-file", f, "--ltl-property", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = dvemc(&["explore", "fischer.1", "--ltl-file", f, "--ltl-property", "3"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("there is no property 3 (the file states 2"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&file, "#define try P_0.tr\n#property G (try -> F P_0.CS)\n").unwrap();
    let o = dvemc(&["explore", "fischer.1", "--ltl-file", f]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("fischer.ltl:1:17: error: process `P_0` has no state `tr`"),
        "{}",
        stderr(&o)
    );
}

/// An atom holds when its value is not 0, wherever it stands in a label
/// (DVE's `and` tests its right operand with `> 0`); a synchronous system
/// is refused.
#[test]
fn atoms_hold_when_not_zero_and_sync_systems_are_refused() {
    let dir = TempDir::new("ltl-atoms");
    let model = dir.join("negative.dve");
    std::fs::write(
        &model,
        "int x = -1; byte y = 1;\nprocess P { state a; init a; trans a -> a { }; }\nsystem async;\n",
    )
    .unwrap();
    let m = model.to_str().unwrap();
    for (formula, code) in [("G x", 0), ("G !(y && x)", 1), ("G !(x && y)", 1), ("F !x", 1)] {
        let o = dvemc(&["explore", m, "--ltl", formula]);
        assert_eq!(o.status.code(), Some(code), "{formula}: {}", stderr(&o));
    }
    std::fs::write(
        &model,
        "byte x;\nprocess P { state a; init a; trans a -> a { }; }\nsystem sync;\n",
    )
    .unwrap();
    let o = dvemc(&["explore", m, "--ltl", "F x"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("`system async` models only"),
        "{}",
        stderr(&o)
    );
}
