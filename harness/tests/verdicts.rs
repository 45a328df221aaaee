//! Verdicts that do not hide each other, and lassos that say what they are:
//! a run that checks several properties gives each one's state (violated,
//! holds, not decided with the options that check it alone, unknown) in
//! its text and JSON records; an LTL counterexample that ends in a
//! deadlock prints the stutter as such, with the automaton's guards in the
//! formula's atoms; under a formula, `--check deadlock` reports the
//! system's deadlocks and nothing else. On one thread (nested DFS) and two
//! (CNDFS).

use serde_json::Value;

mod common;
use common::dvemc::{dvemc, json, stderr, stdout, TempFile as Model};

/// `Checker` fails its assertion in `bad`, a deadlock; from `start` it may
/// also go to `ok` and loop there.
const ASSERTS: &str = "byte x;
process Checker {
state start, bad, ok;
init start;
assert bad: x == 0;
trans start -> bad { effect x = 1; },
      start -> ok { },
      ok -> ok { };
}
system async;
";

/// The value of `label:` in a text record.
fn line<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{label}:")))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no `{label}:` in\n{out}"))
}

/// The record's `checks` as (check, state, ended_search, alone).
fn checks(v: &Value) -> Vec<(String, String, bool, Option<String>)> {
    v["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("no checks in {v}"))
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_string(),
                c["state"].as_str().unwrap().to_string(),
                c["ended_search"] == true,
                c["alone"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn check(c: &str, state: &str, ended: bool, alone: Option<&str>) -> (String, String, bool, Option<String>) {
    (c.into(), state.into(), ended, alone.map(str::to_string))
}

#[test]
fn an_assertion_violation_leaves_the_formula_undecided_and_says_how_to_decide_it() {
    let m = Model::new("asserts", ASSERTS);
    for threads in ["1", "2"] {
        let args = ["explore", m.path(), "--ltl", "F Checker.ok", "--threads", threads];
        let o = dvemc(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = stdout(&o);
        assert_eq!(line(&out, "violation kind"), "assert");
        assert_eq!(line(&out, "check assert"), "violated: this ended the search");
        assert_eq!(
            line(&out, "check ltl"),
            "not decided (the search stopped at the assertion violation); run with --check none to check the formula alone"
        );
        let v = json(&dvemc(&[&args[..], &["--json"]].concat()));
        assert_eq!(
            checks(&v),
            [
                check("assert", "violated", true, None),
                check("ltl", "not_decided", false, Some("--check none")),
            ]
        );
        // The option given: the formula alone, decided (the run may stop in
        // `bad` forever, never reaching `ok`).
        let o = dvemc(&[&args[..], &["--check", "none", "--json"]].concat());
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["violation_kind"], "accepting_cycle", "{v}");
        assert_eq!(checks(&v), [check("ltl", "violated", true, None)]);
        // Every violation counted: the search goes on past the assertion
        // and decides the formula too.
        let v = json(&dvemc(&[&args[..], &["--all-violations", "--json"]].concat()));
        assert_eq!(
            checks(&v),
            [
                check("assert", "violated", false, None),
                check("ltl", "violated", true, None)
            ]
        );
    }
}

#[test]
fn a_formula_first_leaves_the_assertions_undecided_and_a_budget_leaves_both_unknown() {
    // The assertion fails only after the lasso in `ok` can be found: DFS
    // takes `start -> ok` first when it is listed first.
    let source = ASSERTS.replace(
        "trans start -> bad { effect x = 1; },\n      start -> ok { },",
        "trans start -> ok { },\n      start -> bad { effect x = 1; },",
    );
    let m = Model::new("formula-first", &source);
    let v = json(&dvemc(&[
        "explore",
        m.path(),
        "--ltl",
        "G !Checker.ok",
        "--threads",
        "1",
        "--json",
    ]));
    assert_eq!(v["violation_kind"], "accepting_cycle", "{v}");
    assert_eq!(
        checks(&v),
        [
            check(
                "assert",
                "not_decided",
                false,
                Some("--check assert without --ltl")
            ),
            check("ltl", "violated", true, None),
        ]
    );
    // A budget ended the search: nothing is said to hold.
    let o = dvemc(&[
        "explore",
        m.path(),
        "--ltl",
        "G !Checker.ok",
        "--max-states",
        "1",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(
        checks(&json(&o)),
        [
            check("assert", "unknown", false, None),
            check("ltl", "unknown", false, None)
        ]
    );
    // A goal reached first: the assertions' options drop the goal.
    let v = json(&dvemc(&["explore", m.path(), "--goal", "Checker.ok", "--json"]));
    assert_eq!(
        checks(&v),
        [
            check(
                "assert",
                "not_decided",
                false,
                Some("--check assert without --goal")
            ),
            check("goal", "violated", true, None),
        ]
    );
}

#[test]
fn a_lasso_through_a_deadlock_prints_the_stutter_and_the_formulas_atoms() {
    let m = Model::new(
        "stutter",
        "process P0 {\nbyte one, two;\nstate s, t;\ninit s;\ntrans s -> t { effect one = 1; };\n}\nsystem async;\n",
    );
    for threads in ["1", "2"] {
        let o = dvemc(&[
            "explore",
            m.path(),
            "--ltl",
            "G (P0.one -> F P0.two)",
            "--threads",
            threads,
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = stdout(&o);
        let cycle: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("  cycle ("))
            .skip(1)
            .take_while(|l| !l.starts_with("  --"))
            .collect();
        assert!(!cycle.is_empty(), "{out}");
        // Every step of the cycle is the stutter of the deadlock in `t`.
        for step in &cycle {
            assert!(
                step.contains(
                    ". deadlock: the run stays in this state forever (the property process moves alone: LTL_property: q"
                ),
                "{out}"
            );
        }
        // The automaton's guards in the formula's terms, not the DVE the
        // product runs.
        assert!(out.contains("{guard !P0.two}"), "{out}");
        assert!(!out.contains("!= 0"), "{out}");
        assert!(!out.contains("not P0"), "{out}");
    }
}

#[test]
fn under_a_formula_the_deadlock_check_sees_the_systems_deadlocks_only() {
    let m = Model::new("deadlock", ASSERTS);
    for threads in ["1", "2"] {
        // The system deadlocks in `bad`; the formula holds.
        let o = dvemc(&[
            "explore",
            m.path(),
            "--ltl",
            "G (x <= 1)",
            "--check",
            "deadlock",
            "--threads",
            threads,
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["violation_kind"], "deadlock", "{v}");
        let last = v["trace"]["steps"]
            .as_array()
            .and_then(|s| s.last())
            .expect("steps");
        assert_eq!(last["state"]["Checker"], "bad", "{v}");
        // The built-in example: the deadlock is the one where each
        // philosopher holds a fork, never a state where only the automaton
        // is stuck (Philosopher1 eating, where `!Philosopher1.eat` fails).
        let o = dvemc(&[
            "explore",
            "--ltl",
            "G F Philosopher1.eat",
            "--check",
            "deadlock",
            "--threads",
            threads,
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["violation_kind"], "deadlock", "{v}");
        let last = v["trace"]["steps"]
            .as_array()
            .and_then(|s| s.last())
            .expect("steps");
        assert_eq!(last["state"]["Philosopher1"], "hungry", "{v}");
        assert_eq!(last["state"]["Philosopher2"], "hungry", "{v}");
    }
    // A deadlock-free system with a formula whose automaton gets stuck:
    // the deadlock check holds.
    let m = Model::new(
        "alive",
        "byte x;\nprocess P { state a; init a; trans a -> a { effect x = 1 - x; }; }\nsystem async;\n",
    );
    let o = dvemc(&[
        "explore",
        m.path(),
        "--ltl",
        "G F (x == 1)",
        "--check",
        "deadlock",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(
        checks(&v),
        [
            check("deadlock", "holds", false, None),
            check("ltl", "holds", false, None)
        ]
    );
}
