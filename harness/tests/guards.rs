//! What keeps a run from hanging or filling the machine outside the search:
//!
//! - models too large for the JIT are explored by the interpreter, and ones
//!   too large for a state vector are refused, in seconds;
//! - a first SIGTERM or SIGINT, or the time budget, while the JIT compiles
//!   ends the run with exit 4 and a record;
//! - without `--memory-limit`, a search stops with `memory_limit` at the
//!   default budget (lowered here through `DVEMC_MEMORY_AVAILABLE`), and
//!   `--memory-limit none` lifts it.

use std::process::Output;
use std::time::{Duration, Instant};

mod common;
use common::dvemc::{json, Dvemc, TempFile as Model};

fn array_model(n: u64) -> String {
    format!("byte x[{n}];\nprocess P {{ state a, b; init a; trans a -> b {{ effect x[0] = 1; }}, b -> a {{}}; }}\nsystem async;\n")
}

/// One process with `n` transitions in a ring: a few seconds of Cranelift
/// for n = 7000 (under the JIT's limits), one state to explore.
fn many_transitions(n: usize) -> String {
    let mut s = String::from("byte x; int y;\nprocess P { state ");
    for i in 0..n {
        s += &format!("s{i}, ");
    }
    s += &format!("s{n}; init s0; trans\n");
    for i in 0..n {
        s += &format!(
            " s{i} -> s{} {{ guard x < 200 && y != {i}; effect x = x + 1, y = y + {i}; }},\n",
            i + 1
        );
    }
    s += &format!(" s{n} -> s0 {{}}; }}\nsystem async;\n");
    s
}

/// `dvemc args` with `env`, and how long it took; the default memory
/// budget is the machine's unless `env` lowers it.
fn timed(args: &[&str], env: &[(&str, &str)]) -> (Output, f64) {
    let start = Instant::now();
    let mut c = Dvemc::new().args(args).env_remove("DVEMC_MEMORY_AVAILABLE");
    for (k, v) in env {
        c = c.env(k, v);
    }
    (c.run(), start.elapsed().as_secs_f64())
}

#[test]
fn models_too_large_for_the_jit_are_explored_by_the_interpreter() {
    for n in [100_000u64, 1_000_000] {
        let m = Model::new(&format!("array{n}"), array_model(n));
        let (o, secs) = timed(&["explore", m.path(), "--json"], &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "x[{n}]: {err}");
        let r = json(&o);
        assert_eq!(r["backend"], "interp", "x[{n}]");
        assert_eq!(r["result"], "complete", "x[{n}]");
        assert_eq!(r["states"], 3, "x[{n}]");
        assert_eq!(r["state_len"], n + 2, "x[{n}]");
        assert!(
            err.contains(
                "the JIT declined this model (the model is too large for the JIT: a state vector of"
            ),
            "x[{n}]: {err}"
        );
        assert!(secs < 10.0, "x[{n}] took {secs:.1} s");
    }
    // Past the state vector's limit: refused with the size, at its place.
    let m = Model::new("array1e8", array_model(100_000_000));
    let (o, secs) = timed(&["explore", m.path(), "--json"], &[]);
    assert_eq!(o.status.code(), Some(3));
    let r = json(&o);
    assert_eq!(r["error"], "input");
    assert_eq!((r["line"].as_u64(), r["column"].as_u64()), (Some(1), Some(8)));
    assert!(
        r["message"]
            .as_str()
            .is_some_and(|m| m.contains("array size 100000000 is too large for the state vector")),
        "{r}"
    );
    assert!(secs < 10.0, "x[100000000] took {secs:.1} s");
}

/// The model with too much code for the JIT, and one just under: both
/// explored, the first by the interpreter.
#[test]
fn too_much_code_for_the_jit_goes_to_the_interpreter() {
    let m = Model::new("ring9000", many_transitions(9000));
    let (o, secs) = timed(&["explore", m.path(), "--json"], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let r = json(&o);
    assert_eq!(r["backend"], "interp");
    assert!(
        err.contains("instructions of generated code (the JIT compiles at most 400000)"),
        "{err}"
    );
    assert!(secs < 10.0, "took {secs:.1} s");
}

/// Spawns `explore` on a model whose compilation takes seconds, signals it
/// after `delay` and returns its output.
fn signalled(m: &Model, signal: libc::c_int, delay: Duration, extra: &[&str]) -> (Output, f64) {
    let start = Instant::now();
    let child = Dvemc::new()
        .args(["explore", m.path(), "--json"])
        .args(extra)
        .spawn();
    if signal != 0 {
        std::thread::sleep(delay);
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
    }
    let out = child.wait_with_output().expect("waiting for dvemc");
    (out, start.elapsed().as_secs_f64())
}

#[test]
fn a_first_signal_or_the_time_limit_during_compilation_ends_the_run_with_a_record() {
    let m = Model::new("ring7000", many_transitions(7000));
    // How long loading takes here, so that a signal can come after it,
    // while the JIT compiles (seconds for this model).
    let (o, load) = timed(&["check", m.path()], &[]);
    assert!(o.status.success());
    let compiling = Duration::from_secs_f64(load + 0.2);
    let cases = [
        (libc::SIGTERM, Duration::from_millis(100), "interrupted"),
        (libc::SIGTERM, compiling, "interrupted"),
        (libc::SIGINT, compiling, "interrupted"),
        (0, compiling, "time_limit"),
    ];
    for (signal, delay, want) in cases {
        let time = format!("{:.3}", delay.as_secs_f64());
        let extra: &[&str] = if signal == 0 {
            &["--time-limit", &time]
        } else {
            &[]
        };
        let (o, secs) = signalled(&m, signal, delay, extra);
        let what = format!("signal {signal} after {delay:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(4), "{what}: {err}");
        let r = json(&o);
        assert_eq!(r["result"], want, "{what}");
        assert_eq!(r["backend"], "jit", "{what}");
        // Stopped before the search (a compilation that had finished would
        // have let the search explore the initial state).
        assert_eq!(r["states"], 0, "{what}");
        assert!(
            err.contains("while the model was loaded or compiled, before the search"),
            "{what}: {err}"
        );
        assert!(secs < 10.0, "{what}: the run took {secs:.1} s to stop");
    }
}

#[test]
fn without_memory_limit_a_search_stops_at_the_default_budget() {
    let model = "leader_election.6".to_string();
    // 80 MB available: a budget of 64 MiB, far less than the state space.
    let avail = [("DVEMC_MEMORY_AVAILABLE", "80M")];
    for strategy in ["bfs", "dfs"] {
        let (o, _) = timed(&["explore", &model, "--strategy", strategy, "--json"], &avail);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(4), "{strategy}: {err}");
        let r = json(&o);
        assert_eq!(r["result"], "memory_limit", "{strategy}");
        assert!(r["states"].as_u64().is_some_and(|s| s > 1000), "{strategy}: {r}");
        assert_eq!(r["memory_budget"]["bytes"], 64u64 << 20, "{strategy}");
        assert_eq!(r["memory_budget"]["default"], true, "{strategy}");
        assert!(
            err.contains("default memory limit of 64.0 MiB reached"),
            "{strategy}: {err}"
        );
    }
    // An explicit limit is recorded as such; `none` lifts the default.
    let (o, _) = timed(
        &[
            "explore",
            &model,
            "--memory-limit",
            "48M",
            "--max-states",
            "1000",
            "--json",
        ],
        &avail,
    );
    let r = json(&o);
    assert_eq!(r["memory_budget"]["bytes"], 48u64 << 20);
    assert_eq!(r["memory_budget"]["default"], false);
    let (o, _) = timed(
        &[
            "explore",
            &model,
            "--memory-limit",
            "none",
            "--max-states",
            "300000",
            "--json",
        ],
        &avail,
    );
    let r = json(&o);
    assert_eq!(r["result"], "state_limit", "{r}");
    assert!(r.get("memory_budget").is_none(), "{r}");
    // A malformed value is a usage error naming the variable.
    let (o, _) = timed(&["explore", &model], &[("DVEMC_MEMORY_AVAILABLE", "lots")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("DVEMC_MEMORY_AVAILABLE=lots"));
}
