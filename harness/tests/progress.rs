//! Progress off a terminal: plain lines on standard error at the interval
//! asked (`--progress-interval`), none with `--quiet`, a usage error for a
//! bad interval; and the sweep-line measure's options under their names
//! (`--sweep-measure`, `--sweep-level`, `--sweep-derivation`) and their
//! former ones.

use std::process::Output;

mod common;
use common::dvemc::{example, stderr, stdout, Dvemc};

/// `dvemc args` with standard error a pipe (not a terminal), so the
/// progress, if any, comes as plain lines.
fn with_progress(args: &[&str]) -> Output {
    Dvemc::new().args(args).env_remove("DVEMC_NO_PROGRESS").run()
}

fn progress_lines(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .map(str::to_string)
        .collect()
}

/// A run of a second or so (three million states of anderson.6, one
/// thread; it ends at the budget, exit 4), with `extra` options.
fn long_run(extra: &[&str]) -> Output {
    let mut args = vec![
        "explore",
        "anderson.6",
        "--threads",
        "1",
        "--max-states",
        "3000000",
    ];
    args.extend_from_slice(extra);
    let o = with_progress(&args);
    assert_eq!(o.status.code(), Some(4), "stderr: {}", stderr(&o));
    o
}

#[test]
fn off_a_terminal_progress_is_a_plain_line_per_interval() {
    let o = long_run(&["--progress-interval", "0.2"]);
    let lines = progress_lines(&o);
    assert!(!lines.is_empty(), "no progress line; stderr: {}", stderr(&o));
    for l in &lines {
        // The counters, the rate, the level, the memory, the elapsed time;
        // no cursor control (a log keeps every line as written).
        for part in ["states (", "/s)", "transitions", "level ", "mem ", "s"] {
            assert!(l.contains(part), "{part:?} missing from {l:?}");
        }
        assert!(!l.contains('\r') && !l.contains('\x1b'), "{l:?}");
    }
    // None goes to standard output.
    assert!(!stdout(&o).contains("progress: "));
}

#[test]
fn quiet_leaves_no_progress_and_the_same_result() {
    let o = long_run(&["--progress-interval", "0.2", "--quiet"]);
    assert!(progress_lines(&o).is_empty(), "stderr: {}", stderr(&o));
    assert!(stdout(&o).contains("states:"), "{}", stdout(&o));
    // A run shorter than the interval writes none either.
    let o = with_progress(&["explore", "--progress-interval", "30"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(progress_lines(&o).is_empty(), "stderr: {}", stderr(&o));
}

#[test]
fn a_bad_interval_is_a_usage_error() {
    for bad in ["0", "-1", "-0.5", "soon", "inf", ""] {
        let o = with_progress(&["explore", "--progress-interval", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("--progress-interval") && err.contains("positive number of seconds"),
            "{bad:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{bad:?}: partial output");
    }
}

#[test]
fn the_sweep_line_options_answer_to_their_old_names_too() {
    let phils = example("phils2.dve");
    let states = |args: &[&str]| {
        let mut v = vec!["explore", phils.as_str(), "--json"];
        v.extend_from_slice(args);
        let o = with_progress(&v);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        (j["states"].clone(), j["config"].clone())
    };
    let new = states(&["--sweep-level", "1", "--sweep-derivation", "greedy"]);
    let old = states(&["--progress-level", "1", "--progress-derivation", "greedy"]);
    assert_eq!(new, old);
    assert_eq!(new.1, "bfs --sweep-level 1 --sweep-derivation greedy");
    // An error in a measure names the option by its new name, given either.
    for flag in ["--sweep-measure", "--progress"] {
        let o = with_progress(&["explore", &phils, flag, "nosuch"]);
        assert_eq!(o.status.code(), Some(3));
        assert!(
            stderr(&o).starts_with("--sweep-measure:1:1: error: unknown variable"),
            "{}",
            stderr(&o)
        );
    }
    // The old names are not advertised.
    let help = stdout(&with_progress(&["explore", "--help"]));
    assert!(help.contains("--sweep-measure <EXPR>") && help.contains("--sweep-level <L>"));
    assert!(
        !help.contains("--progress <") && !help.contains("--progress-level <"),
        "{help}"
    );
}
