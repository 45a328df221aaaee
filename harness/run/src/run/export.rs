//! `--export FILE` of bfs and dfs: the state space the search recorded
//! (`crate::algo::export`), written when the search saw all of it.

use dve_frontend::model::NextState;

use crate::algo::lts::{EdgeLog, Format};
use crate::output::record::RunRecord;
use crate::run::{Request, RunError};

/// Writes the state space `log` recorded to `path` if the search saw all
/// of it; what was done, as a note.
pub(crate) fn write_export(
    path: &std::path::Path,
    log: EdgeLog,
    model: &dyn NextState,
    req: &Request,
    rec: &RunRecord,
) -> Result<String, RunError> {
    let whole = rec.core.result.is_complete()
        && (rec.core.verdict.as_deref() != Some("violated") || req.all_violations);
    if !whole {
        let why = if rec.core.result.is_complete() {
            "the search stopped at a violation (--check none, or --all-violations, explores every state)"
                .to_string()
        } else {
            format!("the search stopped before its end ({})", rec.core.result)
        };
        return Ok(format!("--export: nothing written to {}: {why}", path.display()));
    }
    let lts = log.finish(&model.initial_vec());
    // Every state and transition the search counted, no more.
    if lts.states as u64 != rec.core.states || lts.edges.len() as u64 != rec.core.transitions {
        return Err(RunError::input(format!(
            "--export: the recorded state space ({} states, {} transitions) is not the search's ({} states, {} transitions); nothing written",
            lts.states,
            lts.edges.len(),
            rec.core.states,
            rec.core.transitions
        )));
    }
    let format = Format::of(path).expect("validated: .aut or .dot");
    lts.write(path, format, model.info()).map_err(RunError::input)?;
    Ok(format!(
        "--export: wrote {} states and {} transitions to {}",
        lts.states,
        lts.edges.len(),
        path.display()
    ))
}
