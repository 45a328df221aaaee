//! The words of the process guards (`engine::guard`): what a run that the
//! memory cap or the time limit ends while loading or compiling prints,
//! fixed before the run starts (the process cannot format text while an
//! allocation is failing).

use std::time::Duration;

use crate::engine::guard::{set_report, GuardReports};
use crate::engine::units::human_bytes;
use crate::engine::Outcome;

/// Arms the guards' reports for a run: JSON objects too with `json`, the
/// limits they name (`memory_default`: the limit is the default one, no
/// `--memory-limit`).
pub fn arm_guard_reports(
    json: bool,
    memory_limit: Option<u64>,
    memory_default: bool,
    time_limit: Option<Duration>,
) {
    let secs = time_limit.map_or(0.0, |t| t.as_secs_f64());
    let memory_msg = match memory_limit {
        Some(m) => format!(
            "the {}memory limit of {} was reached outside the search's own accounting (loading or compiling the model, or an allocation the search did not foresee)",
            if memory_default { "default " } else { "" },
            human_bytes(m)
        ),
        None => "the system refused a memory allocation (an address-space limit, or the machine's memory is exhausted)".to_string(),
    };
    let time_msg = format!("the time limit of {secs} s was reached while loading or compiling the model");
    let json_of = |msg: &str, result: Outcome| {
        json.then(|| {
            format!(
                "{{\"result\":\"{result}\",\"message\":{},\"exit_code\":4}}\n",
                serde_json::to_string(msg).unwrap_or_default()
            )
        })
    };
    set_report(GuardReports {
        memory_stdout: json_of(&memory_msg, Outcome::MemoryLimit),
        memory_stderr: format!(
            "dvemc: search incomplete ({}): {memory_msg}\n",
            Outcome::MemoryLimit
        ),
        time_stdout: json_of(&time_msg, Outcome::TimeLimit),
        time_stderr: format!("dvemc: search incomplete ({}): {time_msg}\n", Outcome::TimeLimit),
    });
}
