//! The state of each check of a run (`output::verdicts`) from the check's
//! report and the options that asked for it.

use super::request::Request;
use crate::algo::check::{CheckReport, ViolationKind};
use crate::output::verdicts::Checked;
use crate::output::verdicts::{self, CheckState, Found, LtlSource};

/// The state of each check of `checked` after the check `r`.
pub(super) fn of(r: &CheckReport, checked: &Checked, req: &Request) -> Vec<CheckState> {
    let kind = |name: &str| {
        [
            ViolationKind::Deadlock,
            ViolationKind::Assert,
            ViolationKind::Goal,
            ViolationKind::AcceptingCycle,
            ViolationKind::ErrorState,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    };
    let violated = |name: &str| kind(name).is_some_and(|k| r.violated.contains(k));
    let found = Found {
        violated: &violated,
        stopped_by: r.stopped_by.map(ViolationKind::name),
        complete: r.counters.result.is_complete(),
    };
    let ltl = checked.cycles.then_some(match (&req.ltl, req.property) {
        (Some(dve_frontend::ltl::Spec::Formula { .. }), _) => LtlSource::Option("--ltl"),
        (Some(dve_frontend::ltl::Spec::File { .. }), _) => LtlSource::Option("--ltl-file"),
        (None, Some(_)) => LtlSource::Option("--property"),
        (None, None) => LtlSource::Model,
    });
    verdicts::states(checked, &found, ltl)
}
