//! The state of each check a run made, so that one verdict does not hide
//! another: a check stops at the first violation, and the checks it did not
//! get to decide are said to be undecided, with the options that check one
//! alone, rather than left out or said to hold.
//!
//! [`Checked`] says what a run checked and names its verdict in words.

use serde::{Deserialize, Serialize};

/// The properties a run checked: what its verdict is about. A deadlock or a
/// run-time error the run counted without checking is no violation, and the
/// report says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    pub deadlock: bool,
    /// Assertions, of a model that has some.
    pub assert: bool,
    /// Run-time errors.
    pub error: bool,
    /// Reachability goals.
    pub goals: bool,
    /// Accepting cycles of a property process (LTL).
    pub cycles: bool,
}

impl Checked {
    /// The verdict as people read it: what holds when it holds; a goal
    /// found is `reached` and one that cannot be is `unreachable` (BEEM's
    /// "reachable: yes/no"), whatever else was checked beside it. `kind`
    /// is the violation's (or witness's) kind.
    pub fn verdict_text(&self, verdict: &str, kind: Option<&str>) -> String {
        let c = self;
        let what: Vec<&str> = [
            (c.assert, "assertions"),
            (c.deadlock, "no deadlock"),
            (c.error, "no run-time error"),
            (c.cycles, "no accepting cycle"),
        ]
        .into_iter()
        .filter_map(|(on, what)| on.then_some(what))
        .collect();
        match verdict {
            "violated" if kind == Some("goal") => "reached".into(),
            "holds" if what.is_empty() && c.goals => "unreachable".into(),
            "holds" if !what.is_empty() => {
                let goals = if c.goals { "; goal unreachable" } else { "" };
                format!("holds ({}){goals}", what.join(", "))
            }
            _ => verdict.to_string(),
        }
    }
}

/// One check of a run: `assert`, `deadlock`, `error`, `goal` (the goals
/// together) or `ltl` (accepting cycles of the property process).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckState {
    pub check: String,
    pub state: State,
    /// This check's violation ended the search.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ended_search: bool,
    /// For a check not decided: the options that check it alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alone: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// A violation found (a goal reached).
    Violated,
    /// The search ran to its end without one (a goal unreachable).
    Holds,
    /// Another check's violation ended the search first.
    NotDecided,
    /// A budget or an interruption ended the search first.
    Unknown,
}

/// The checks in the order they are reported, with the `violation_kind`
/// that violates each.
const CHECKS: [(&str, &str); 5] = [
    ("assert", "assert"),
    ("deadlock", "deadlock"),
    ("error", "error_state"),
    ("goal", "goal"),
    ("ltl", "accepting_cycle"),
];

/// How the LTL property was given, for the options that drop it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtlSource<'a> {
    /// An option (`--ltl`, `--ltl-file`, `--property`) that can be left out.
    Option(&'a str),
    /// The model's own property process (`--ignore-property` drops it).
    Model,
}

/// What a run found, for [`states`].
pub struct Found<'a> {
    /// Whether a violation of this `violation_kind` was counted.
    pub violated: &'a dyn Fn(&str) -> bool,
    /// The `violation_kind` that ended the search, if one did.
    pub stopped_by: Option<&'a str>,
    /// The search reached its end (no budget stopped it).
    pub complete: bool,
}

/// The state of every check in `checked`.
pub fn states(checked: &Checked, found: &Found, ltl: Option<LtlSource>) -> Vec<CheckState> {
    let on = |check: &str| match check {
        "assert" => checked.assert,
        "deadlock" => checked.deadlock,
        "error" => checked.error,
        "goal" => checked.goals,
        _ => checked.cycles,
    };
    CHECKS
        .iter()
        .filter(|(check, _)| on(check))
        .map(|&(check, kind)| {
            let state = if (found.violated)(kind) {
                State::Violated
            } else if found.stopped_by.is_some() {
                State::NotDecided
            } else if found.complete {
                State::Holds
            } else {
                State::Unknown
            };
            CheckState {
                check: check.to_string(),
                state,
                ended_search: found.stopped_by == Some(kind),
                alone: (state == State::NotDecided).then(|| alone(check, checked, ltl)),
            }
        })
        .collect()
}

/// The options that check `check` alone: the safety checks narrowed to it,
/// the goals and the LTL property left out unless it is one of them.
fn alone(check: &str, checked: &Checked, ltl: Option<LtlSource>) -> String {
    let mut out = match check {
        "goal" | "ltl" => "--check none".to_string(),
        c => format!("--check {c}"),
    };
    let mut without = Vec::new();
    if check != "goal" && checked.goals {
        without.push("--goal");
    }
    if check != "ltl" {
        match ltl {
            Some(LtlSource::Option(o)) => without.push(o),
            Some(LtlSource::Model) => out += " --ignore-property",
            None => {}
        }
    }
    if !without.is_empty() {
        out += &format!(" without {}", without.join(" and "));
    }
    out
}

/// A check's violation, as the text names what stopped the search.
fn violation_name(check: &str) -> &'static str {
    match check {
        "assert" => "assertion violation",
        "deadlock" => "deadlock",
        "error" => "run-time error",
        "goal" => "goal",
        _ => "accepting cycle",
    }
}

/// What a check is about, as in "check ... alone".
fn subject(check: &str) -> &'static str {
    match check {
        "assert" => "the assertions",
        "deadlock" => "deadlocks",
        "error" => "run-time errors",
        "goal" => "the goal",
        _ => "the formula",
    }
}

/// The human report's lines, `(label, text)`: one per check.
pub fn lines(checks: &[CheckState]) -> Vec<(String, String)> {
    let stopper = checks.iter().find(|c| c.ended_search).map(|c| c.check.as_str());
    checks
        .iter()
        .map(|c| {
            let goal = c.check == "goal";
            let text = match c.state {
                State::Violated if goal => "reached".to_string(),
                State::Violated => "violated".to_string(),
                State::Holds if goal => "unreachable".to_string(),
                State::Holds => "holds".to_string(),
                State::Unknown => "unknown (the search stopped before it could tell)".to_string(),
                State::NotDecided => format!(
                    "not decided (the search stopped at the {}); run with {} to check {} alone",
                    stopper.map_or("first violation", violation_name),
                    c.alone.as_deref().unwrap_or("--check none"),
                    subject(&c.check)
                ),
            };
            let text = if c.ended_search {
                format!("{text}: this ended the search")
            } else {
                text
            };
            (format!("check {}", c.check), text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(checked: Checked, violated: &[&str], stopped_by: Option<&str>, complete: bool) -> Vec<CheckState> {
        let v = |k: &str| violated.contains(&k);
        let found = Found {
            violated: &v,
            stopped_by,
            complete,
        };
        states(&checked, &found, Some(LtlSource::Option("--ltl")))
    }

    #[test]
    fn an_assertion_violation_leaves_the_formula_undecided() {
        let checked = Checked {
            assert: true,
            cycles: true,
            ..Checked::default()
        };
        let s = run(checked, &["assert"], Some("assert"), true);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].state, s[0].ended_search), (State::Violated, true));
        assert_eq!(
            (s[1].state, s[1].alone.as_deref()),
            (State::NotDecided, Some("--check none"))
        );
        let text = lines(&s);
        assert_eq!(
            text[0],
            ("check assert".into(), "violated: this ended the search".into())
        );
        assert_eq!(
            text[1].1,
            "not decided (the search stopped at the assertion violation); run with --check none to check the formula alone"
        );
        // A lasso first: the assertions are the undecided ones.
        let s = run(checked, &["accepting_cycle"], Some("accepting_cycle"), true);
        assert_eq!(s[0].alone.as_deref(), Some("--check assert without --ltl"));
        // Every violation counted and the search at its end: both decided.
        let s = run(checked, &["assert"], None, true);
        assert_eq!([s[0].state, s[1].state], [State::Violated, State::Holds]);
        // A budget: what was not found is unknown, never holds.
        let s = run(checked, &[], None, false);
        assert_eq!([s[0].state, s[1].state], [State::Unknown, State::Unknown]);
    }

    #[test]
    fn the_options_that_check_one_alone_drop_the_others() {
        let checked = Checked {
            deadlock: true,
            assert: true,
            goals: true,
            cycles: true,
            ..Checked::default()
        };
        assert_eq!(
            alone("deadlock", &checked, Some(LtlSource::Model)),
            "--check deadlock --ignore-property without --goal"
        );
        assert_eq!(
            alone("goal", &checked, Some(LtlSource::Option("--property"))),
            "--check none without --property"
        );
        assert_eq!(alone("ltl", &checked, None), "--check none without --goal");
    }
}
