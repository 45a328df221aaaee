//! An LTL property under `--por`: whether the reduction may take it (a
//! formula without next-time), and the check in its passes — the full
//! product's first states, then the reduced system and the product cut
//! as it was (`crate::algo::ltl_reduced`).

use dve_frontend::model::NextState;

use crate::algo::check::{self, CheckOptions, Verdict};
use crate::algo::ltl_reduced::{self, System};
use crate::algo::por::Reducer;
use crate::engine::Outcome;
use crate::run::strategy::Params;
use crate::run::{Request, RunError};
use dve_frontend::property::system_view;

/// The LTL property as stated: BEEM's formula of `--property N`
/// (properties.csv) and the one given by `--ltl` or `--ltl-file`, as
/// parsed when the model was loaded.
pub(super) type Stated<'a> = (Option<&'a str>, Option<&'a dve_frontend::ltl::Property>);

/// Why `--por` cannot reduce the product with this LTL property, if so:
/// the reduction preserves properties that do not see stuttering, which a
/// formula without next-time is; a property process given as a model says
/// no formula.
pub(super) fn ltl_reduction_refusal(
    req: &Request,
    p: &Params,
    (beem_ltl, parsed): Stated<'_>,
) -> Result<(), RunError> {
    if p.por_check {
        return Err(RunError::usage(
            "--por-check compares deadlock states and safety verdicts; it does not take an LTL property (use --por, or drop the property)",
        ));
    }
    // Where the property uses X, as `file:line:column`, if it does.
    let has_next =
        |text: &str| parsed.map_or_else(|| next_position(text).is_some(), |f| f.formula.has_next());
    let next_at = match (&req.ltl, req.property) {
        (Some(dve_frontend::ltl::Spec::Formula { text, .. }), _) => {
            has_next(text).then(|| at("--ltl", next_position(text)))
        }
        (Some(dve_frontend::ltl::Spec::File { path, .. }), _) => {
            let text = parsed.map(|f| f.source.clone()).unwrap_or_default();
            has_next(&text).then(|| at(&path.display().to_string(), next_position(&text)))
        }
        (None, Some(n)) => match beem_ltl {
            None => Some(format!("property {n} (its formula is not in properties.csv)")),
            Some(f) => next_position(f).map(|pos| at(&format!("property {n} `{f}`"), Some(pos))),
        },
        (None, None) => {
            return Err(RunError::usage(
                "--por: the model has its own property process, whose formula dvemc cannot see (a reduction preserves only properties without next-time): give the formula with --ltl, or --ignore-property",
            ))
        }
    };
    if let Some(at) = next_at {
        return Err(RunError::usage(format!(
            "{at}: --por: the LTL property uses X (next-time), which a partial-order reduction does not preserve: drop --por"
        )));
    }
    Ok(())
}

/// `file:line:column`, or `file` without a position.
fn at(file: &str, pos: Option<(usize, usize)>) -> String {
    match pos {
        Some((line, col)) => format!("{file}:{line}:{col}"),
        None => file.to_string(),
    }
}

/// The line and column (from 1) of the first X of `text` that may be
/// next-time: in a word of the operators G, F and X (BEEM glues them:
/// `GX`, `XF`).
fn next_position(text: &str) -> Option<(usize, usize)> {
    let mut start = 0;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        if c.is_ascii_alphanumeric() || c == '_' {
            continue;
        }
        let word = &text[start..i];
        if word.contains('X') && word.chars().all(|c| matches!(c, 'G' | 'F' | 'X')) {
            let x = start + word.find('X').unwrap_or(0);
            let line = text[..x].matches('\n').count() + 1;
            let col = text[..x].rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            return Some((line, col));
        }
        start = i + c.len_utf8();
    }
    None
}

/// Product states searched in full before an LTL property is reduced
/// ([`check_ltl_reduced`]).
const LTL_PROBE_STATES: u64 = 1 << 16;

/// An LTL check under `--por` (see [`ltl_reduced`]), with a note on each pass,
/// and why nothing was reduced when the first, full pass settled the
/// question.
pub(super) fn check_ltl_reduced(
    model: &dyn NextState,
    ir: &dve_frontend::ir::Model,
    opts: &CheckOptions,
    threads: usize,
    system: Option<&dyn NextState>,
    reducer: &Reducer,
    notes: &mut Vec<String>,
) -> (check::CheckReport, Option<String>) {
    // The reduced product is searched only once the whole reduced system
    // is: a counterexample near the initial state, which the full search
    // meets at once, would wait for that. The full product's first states
    // are searched first; a lasso found there, or a product no larger,
    // settles the question.
    let mut probe = opts.clone();
    probe.limits.max_states = Some(
        opts.limits
            .max_states
            .map_or(LTL_PROBE_STATES, |m| m.min(LTL_PROBE_STATES)),
    );
    let first = check::check_threads(model, ir, &probe, threads);
    let settled = match (first.verdict, first.counters.result) {
        (Verdict::Violated, _) => Some(format!(
            "the {} lies in the full product's first {} states, searched before reducing",
            match first.violation_kind {
                Some(check::ViolationKind::AcceptingCycle) | None => "lasso",
                Some(check::ViolationKind::Deadlock) => "deadlock",
                Some(check::ViolationKind::ErrorState) => "run-time error",
                Some(check::ViolationKind::Assert) => "assertion violation",
                Some(check::ViolationKind::Goal) => "goal",
            },
            first.counters.states
        )),
        (_, Outcome::Complete) => Some(format!(
            "the full product ({} states) was searched whole before reducing",
            first.counters.states
        )),
        (_, Outcome::StateLimit) => None,
        // A budget or an interruption: the run ends here.
        (_, ended) => Some(format!(
            "the run ended ({}) in the full product's first pass, before reducing",
            ended.name()
        )),
    };
    if settled.is_some() {
        return (first, settled);
    }
    let (Some(system_ir), Some(system)) = (system_view(ir), system) else {
        // Only a property without a transition has no system view.
        let why = "the property has no transition: its product is the initial state alone".into();
        return (first, Some(why));
    };
    let system = System {
        ir: &system_ir,
        model: system,
    };
    let mut r = ltl_reduced::check(model, ir, system, opts, threads, reducer);
    r.report.add_time(first.time_s);
    notes.push(match r.system_states {
        Some(n) => format!(
            "--por: the reduced system has {n} states (a first, depth-first pass); the product was searched on it"
        ),
        None => "--por: the first pass (the reduced system, depth-first) did not finish; the product was not searched".into(),
    });
    (r.report, None)
}
