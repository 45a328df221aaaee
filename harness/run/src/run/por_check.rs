//! `--por-check`: the reduced and the full search of one model side by
//! side (as LTSmin's `--check`), so that a user can trust the reduction on
//! their own model. Both searches run to their end (every violation
//! counted), and must agree on the deadlock states (as sets of state
//! vectors) and the verdict; the reduced search's counterexample must be a
//! path of the full model.

use std::collections::HashSet;
use std::sync::Mutex;

use dve_frontend::ir;
use dve_frontend::model::{NextState, SuccBuf};

use crate::algo::check::{check_reduced, CheckOptions, CheckReport};
use crate::algo::por::{Reducer, Tap, Tapped};
use crate::output::verdicts::Checked;

/// Records the states without successors it sees.
struct Deadlocks(Mutex<HashSet<Vec<u8>>>);

impl Tap for Deadlocks {
    fn tap(&self, src: &[u8], out: &mut SuccBuf) {
        // A reduction keeps a successor wherever there is one, so the
        // states without one are the reduced graph's deadlocks too.
        if out.is_empty() {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(src.to_vec());
        }
    }
}

/// The two searches and how they differ.
pub struct Comparison {
    pub full: CheckReport,
    pub reduced: CheckReport,
    /// Deadlock states of the full search.
    pub deadlocks: usize,
    /// Something was checked (else the verdicts say nothing).
    pub checked: bool,
    /// What the run checked, for the verdict's words.
    words: Checked,
    /// Every difference found (none: the searches agree).
    pub differences: Vec<String>,
}

impl Comparison {
    /// The comparison in a few lines.
    pub fn lines(&self) -> Vec<String> {
        let (f, r) = (&self.full, &self.reduced);
        let share = if f.counters.states > 0 {
            r.counters.states as f64 / f.counters.states as f64
        } else {
            1.0
        };
        // Two searches that meet different kinds of violation first (a
        // goal, a deadlock) agree on the verdict, which is then named
        // plainly.
        let same = f.violation_kind == r.violation_kind;
        let verdict = |r: &CheckReport| {
            if self.checked {
                format!(", verdict {}", verdict(r, &self.words, same))
            } else {
                String::new()
            }
        };
        let mut out = vec![
            format!(
                "por-check: full search {} states, {} transitions{}",
                f.counters.states,
                f.counters.transitions,
                verdict(f)
            ),
            format!(
                "por-check: reduced search {} states ({:.3} of full), {} transitions{}",
                r.counters.states,
                share,
                r.counters.transitions,
                verdict(r)
            ),
        ];
        if self.differences.is_empty() {
            out.push(format!(
                "por-check: agree: the same {} deadlock states{}{}",
                self.deadlocks,
                if self.checked { " and verdict" } else { "" },
                if r.first.is_some() {
                    ", and the reduced counterexample replays in the full model"
                } else {
                    ""
                }
            ));
        } else {
            out.extend(self.differences.iter().map(|d| format!("por-check: DIFFER: {d}")));
        }
        out
    }
}

/// `r`'s verdict in the run record's words; by the kind of its first
/// violation if `by_kind` (a goal found is `reached`).
fn verdict(r: &CheckReport, words: &Checked, by_kind: bool) -> String {
    let v = r.verdict.name();
    words.verdict_text(v, r.violation_kind.filter(|_| by_kind).map(|k| k.name()))
}

/// Runs the full search of `model` and the one reduced by `reducer` (built
/// for the same goals and assertions) with `opts`, every violation counted,
/// and compares them; `words` is what the run checks (the verdicts are
/// named as its record names them).
pub fn compare(
    model: &dyn NextState,
    ir: &ir::Model,
    opts: &CheckOptions,
    threads: usize,
    reducer: &Reducer,
    words: Checked,
) -> Comparison {
    let opts = CheckOptions {
        all_violations: true,
        ..opts.clone()
    };
    let run = |reducer: Option<&Reducer>| {
        let rec = Tapped {
            inner: model,
            tap: Deadlocks(Mutex::new(HashSet::new())),
        };
        let r = check_reduced(&rec, ir, &opts, threads, reducer);
        (r, rec.tap.0.into_inner().unwrap_or_else(|e| e.into_inner()))
    };
    let (full, full_dl) = run(None);
    let (reduced, reduced_dl) = run(Some(reducer));
    let mut differences = Vec::new();
    if full.counters.result != reduced.counters.result {
        differences.push(format!(
            "the full search ended {}, the reduced one {}",
            full.counters.result.name(),
            reduced.counters.result.name()
        ));
    }
    if full.verdict != reduced.verdict {
        differences.push(format!(
            "verdict {} in the full search, {} in the reduced one",
            verdict(&full, &words, true),
            verdict(&reduced, &words, true)
        ));
    }
    let missing = full_dl.difference(&reduced_dl).count();
    let extra = reduced_dl.difference(&full_dl).count();
    if missing + extra > 0 {
        differences.push(format!(
            "deadlock states: {missing} of the full search's {} missing from the reduced one, {extra} not in the full one",
            full_dl.len()
        ));
    }
    if let Some(v) = &reduced.first {
        if let Err(why) = v.trace.replay(model) {
            differences.push(format!(
                "the reduced search's counterexample does not replay in the full model: {why}"
            ));
        }
    }
    let asserts = ir.processes.iter().any(|p| !p.asserts.is_empty());
    Comparison {
        full,
        reduced,
        deadlocks: full_dl.len(),
        checked: opts.checks.deadlock
            || opts.checks.error
            || (opts.checks.assert && asserts)
            || !opts.goals.is_empty(),
        words,
        differences,
    }
}
