//! The `dvemc` binary: exit codes, JSON output and error messages.

use std::process::Command;

mod common;
use common::dvemc::{dvemc, example, json, stderr, stdout, Dvemc, TempDir, TempFile, BIN};

#[test]
fn embedded_model_json() {
    let o = dvemc(&["explore", "--json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    for key in [
        "states",
        "transitions",
        "deadlocks",
        "levels",
        "time_s",
        "states_per_s",
        "bytes_per_state",
        "peak_rss_bytes",
        "result",
        "strategy",
        "model",
        "state_len",
        "backend",
    ] {
        assert!(v.get(key).is_some(), "missing key {key} in {v}");
    }
    assert_eq!(v["result"], "complete");
    assert_eq!(v["strategy"], "bfs");
    assert_eq!(v["backend"], "jit", "the JIT is the default backend");
    assert!(v["compile_ms"].as_f64().is_some_and(|ms| ms > 0.0));
    // beem/examples/phils2.dve (figures from beem/examples/oracle/oracle.py).
    assert_eq!(v["states"], 10);
    assert_eq!(v["transitions"], 14);
    assert_eq!(v["deadlocks"], 1);
    assert_eq!(v["levels"], 5);
}

#[test]
fn embedded_model_dfs_and_human_output() {
    let o = dvemc(&["explore", "--strategy", "dfs", "--json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["strategy"], "dfs");
    assert_eq!(v["states"], 10);
    assert_eq!(v["dfs_front_edges"], 9);

    let o = dvemc(&["explore", "--stats"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    for needle in [
        "states:",
        "transitions:",
        "deadlocks:",
        "levels:",
        "<bfs-levels>",
        "<level id=\"0\">",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
}

#[test]
fn state_limit_exits_4() {
    let o = dvemc(&["explore", "--max-states", "5", "--json"]);
    assert_eq!(o.status.code(), Some(4), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["result"], "state_limit");
    assert_eq!(v["states"], 5);
    assert!(stderr(&o).contains("state limit"), "stderr: {}", stderr(&o));
}

#[test]
fn memory_limit_exits_4() {
    let o = dvemc(&["explore", "--memory-limit", "150"]);
    assert_eq!(o.status.code(), Some(4), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("memory limit"), "stderr: {}", stderr(&o));
}

#[test]
fn missing_file_exits_3_and_names_it() {
    let path = std::env::temp_dir().join(format!("dvemc-no-such-{}.dve", std::process::id()));
    let p = path.to_str().unwrap();
    for cmd in ["check", "explore"] {
        let o = dvemc(&[cmd, p]);
        assert_eq!(o.status.code(), Some(3), "{cmd}: stderr: {}", stderr(&o));
        assert!(
            stderr(&o).contains(p),
            "{cmd}: stderr does not name the file: {}",
            stderr(&o)
        );
    }
}

/// `--store tree` explores like the exact store; where a search keeps
/// states another way, the option is refused by name.
#[test]
fn the_tree_store_on_the_command_line() {
    for (strategy, store) in [
        ("bfs", "tree"),
        ("dfs", "tree"),
        ("bfs", "ctree"),
        ("dbdfs", "tree"),
    ] {
        let o = dvemc(&["explore", "--json", "--strategy", strategy, "--store", store]);
        assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["store"], store);
        assert_eq!(v["config"], format!("{strategy} --store {store}"));
        assert_eq!(
            (v["states"].as_u64(), v["transitions"].as_u64()),
            (Some(10), Some(14))
        );
    }
    for (args, says) in [
        (&["--store", "zip"][..], "unknown store `zip`"),
        (
            &["--strategy", "dbdfs", "--store", "ctree"],
            "takes --store exact or tree",
        ),
        (
            &["--strategy", "bbfs:4", "--store", "tree"],
            "--store is not an option",
        ),
        (&["--store", "tree", "--cache", "50%"], "keeps its own cache"),
        (&["--store", "tree", "--check", "deadlock"], "property checks"),
        (&["--store", "compact", "--strategy", "dfs"], "serves bfs"),
        (&["--store", "ctree", "--strategy", "dfs"], "serves bfs only"),
        (&["--store", "ctree", "--check", "deadlock"], "property checks"),
        (&["--store", "ctree", "--threads", "2"], "not --store ctree"),
        (&["--store", "compact:0"], "1 to 64 bits"),
        (&["--store", "compact", "--threads", "2"], "not --store compact"),
        (&["--store", "bitstate", "--strategy", "dfs"], "serves bfs"),
        (&["--store", "bitstate:5"], "LOG2M 6 to 40"),
    ] {
        let o = dvemc(&[&["explore"][..], args].concat());
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn checks_on_threads_on_the_command_line() {
    let one = json(&dvemc(&[
        "explore",
        "--json",
        "--check",
        "deadlock,assert",
        "--threads",
        "1",
    ]));
    let o = dvemc(&[
        "explore",
        "--json",
        "--check",
        "deadlock,assert",
        "--threads",
        "2",
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "stderr: {}", stderr(&o));
    let two = json(&o);
    assert_eq!(two["threads"], 2);
    assert_eq!(two["config"], "bfs --threads 2 --check deadlock,assert");
    for key in ["verdict", "violation_kind", "cex_length"] {
        assert_eq!(two[key], one[key], "{key}");
    }
    // Depth-first: the same verdict (the counterexample is a path of the
    // search, not necessarily as long as one thread's).
    let dfs = |threads: &str| {
        let o = dvemc(&[
            "explore",
            "--json",
            "--strategy",
            "dfs",
            "--check",
            "deadlock,assert",
            "--threads",
            threads,
        ]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "stderr: {}", stderr(&o));
        json(&o)
    };
    let (one, two) = (dfs("1"), dfs("2"));
    assert_eq!(two["threads"], 2);
    assert_eq!(two["strategy"], "dfs");
    for key in ["verdict", "violation_kind"] {
        assert_eq!(two[key], one[key], "{key}");
    }
    for (args, says) in [
        (
            &["--threads", "2", "--strategy", "bbfs:4"][..],
            "--threads 2: the general algorithm (state caching, sweep-line) is sequential",
        ),
        (
            &["--threads", "2", "--strategy", "dbdfs"],
            "--threads 2: dbdfs is sequential",
        ),
    ] {
        let o = dvemc(&[&["explore"][..], args].concat());
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    // Accepting cycles on two threads: CNDFS, whether the property process
    // comes from --property or from the model file; the same verdict (BEEM:
    // property 3 of anderson.2 does not hold) and a lasso.
    let prop_file = beem_dve("anderson.2.prop3.dve");
    for args in [
        &["anderson.2", "--threads", "2", "--property", "3"][..],
        &[prop_file.as_str(), "--threads", "2"],
    ] {
        let o = dvemc(&[&["explore", "--json"][..], args].concat());
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["strategy"], "cndfs", "{args:?}");
        assert_eq!(v["threads"], 2, "{args:?}");
        assert!(v["cycle_length"].as_u64() >= Some(1), "{args:?}: {v}");
    }
}

/// `--threads 1` is one thread: every strategy takes it.
#[test]
fn every_strategy_takes_threads_1() {
    for spec in dvemc_run::run::strategy::Strategy::EXAMPLES.map(|s| s.to_string()) {
        let needs: &[&str] = match spec.as_str() {
            "highway" | "bbmc" => &["--breadth", "2", "--runs", "3"],
            "random-walk" => &["--steps", "100", "--runs", "3"],
            "urs" | "sdrs" | "rurs" | "rsdrs" => &["--memory-states", "5", "--steps", "100", "--runs", "3"],
            _ => &[],
        };
        let o = dvemc(
            &[
                &["explore", "--json", "--strategy", &spec, "--threads", "1"][..],
                needs,
            ]
            .concat(),
        );
        assert!(
            matches!(o.status.code(), Some(0 | 1 | 4)),
            "{spec}: {}",
            stderr(&o)
        );
        assert!(json(&o)["states"].as_u64().is_some_and(|n| n > 0), "{spec}");
    }
}

/// Exhaustive bfs takes every core unless told (`--threads`, or
/// `DVEMC_THREADS`); other searches one.
#[test]
fn the_default_threads() {
    let with_env = |v: &str, args: &[&str]| Dvemc::new().env("DVEMC_THREADS", v).args(args).run();
    let v = json(&with_env("3", &["explore", "--json"]));
    assert_eq!(
        (v["threads"].as_u64(), v["config"].as_str()),
        (Some(3), Some("bfs --threads 3"))
    );
    assert_eq!(v["states"], 10);
    let v = json(&with_env("3", &["explore", "--json", "--threads", "1"]));
    assert_eq!(
        (v["threads"].as_u64(), v["config"].as_str()),
        (Some(1), Some("bfs"))
    );
    for args in [
        &["explore", "--json", "--strategy", "dfs"][..],
        &["explore", "--json", "--store", "tree"],
    ] {
        let v = json(&with_env("3", args));
        assert_eq!(v["threads"], 1, "{args:?}");
    }
    let o = with_env("lots", &["explore"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("DVEMC_THREADS=lots"), "{}", stderr(&o));
}

/// Hash compaction: probabilistic, said so in the result, exit 0.
#[test]
fn the_compact_store_on_the_command_line() {
    let o = dvemc(&["explore", "--json", "--store", "compact:40"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["result"], "probabilistic");
    assert_eq!(v["config"], "bfs --store compact:40");
    assert_eq!(v["states"], 10);
    let e = v["expected_omissions"].as_f64().expect("an estimate");
    assert!(e > 0.0 && e < 1e-9, "{e}");
    let o = dvemc(&["explore", "--json", "--store", "bitstate:20,3"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(
        (v["result"].as_str(), v["config"].as_str()),
        (Some("probabilistic"), Some("bfs --store bitstate:20,3"))
    );
    assert_eq!(v["states"], 10);
    assert!(v.get("back_level_edges").is_none(), "a bit array gives no ids");
}

#[test]
fn bad_options_exit_2() {
    for args in [
        &["explore", "--no-such-option"][..],
        &["explore", "--strategy", "sideways"],
        &["explore", "--max-states", "many"],
        &["explore", "--memory-limit", "12X"],
        &["explore", "--time-limit", "soon"],
        &["explore", "--partition", "local"],
        &["explore", "--distributed", "--partition", "nearby"],
        &["frobnicate"],
        &[],
        // A property needs a BEEM instance: the option's fault, not the model's.
        &["explore", "--property", "1"],
    ] {
        let o = dvemc(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: stderr: {}", stderr(&o));
    }
}

/// A negative number is a value out of range, not an argument to put
/// after `--`; an expression that ends early says so, not "end of file".
#[test]
fn bad_values_are_named_as_values() {
    let o = dvemc(&["explore", "--threads", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value '-1' for '--threads <N>'"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("-- -1"), "{}", stderr(&o));
    let o = dvemc(&["explore", "--goal", "x =="]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("--goal:1:5: error: unexpected end of expression"),
        "{}",
        stderr(&o)
    );
}

/// With `--json`, every error is one JSON object on stdout (kind, message,
/// and the place when there is one), and the exit code is kept.
#[test]
fn errors_are_json_with_json() {
    let f = TempFile::new(
        "bad-json",
        b"byte x;\nprocess P { state a; init a; trans a -> a { effect y = 1; }; }\nsystem async;\n",
    );
    let o = dvemc(&["explore", f.path(), "--json"]);
    assert_eq!(o.status.code(), Some(3), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["error"], "input");
    assert_eq!(v["file"], f.path());
    assert_eq!(v["line"], 2);
    assert!(v["column"].as_u64().unwrap() > 1, "{v}");
    assert_eq!(v["exit_code"], 3);
    let missing = std::env::temp_dir().join(format!("dvemc-no-such-{}.dve", std::process::id()));
    let o = dvemc(&["explore", missing.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(json(&o)["error"], "input");
    for args in [
        &["explore", "--json", "--max-states", "-5"][..],
        &["explore", "--json", "--cache", "150%"],
        &["explore", "--json", "--strategy", "dbdfs", "--cache", "10%"],
        &["explore", "--json", "--strategy", "sideways"],
        &["explore", "--json", "--no-such-option"],
    ] {
        let o = dvemc(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["error"], "usage", "{args:?}");
        assert_eq!(v["exit_code"], 2);
    }
    let o = dvemc(&["explore", "adding.1", "--json", "--partition", "local"]);
    assert_eq!(o.status.code(), Some(2));
    let message = json(&o)["message"].as_str().unwrap().to_string();
    assert!(message.ends_with("not provided: --distributed"), "{message}");
    let o = dvemc(&["explore", "--json", "--max-states", "-5"]);
    assert!(
        json(&o)["message"]
            .as_str()
            .unwrap()
            .contains("must be a non-negative integer"),
        "{}",
        stdout(&o)
    );
    let o = dvemc(&["explore", "--json", "--cache", "150%"]);
    assert!(
        json(&o)["message"].as_str().unwrap().contains("150%"),
        "{}",
        stdout(&o)
    );
    let o = dvemc(&["explore", "--json", "--strategy", "dbdfs", "--cache", "10%"]);
    assert!(
        json(&o)["message"]
            .as_str()
            .unwrap()
            .starts_with("--cache is not an option of --strategy dbdfs"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn help_documents_exit_codes() {
    let o = dvemc(&["explore", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("Exit codes:"), "{out}");
    assert!(out.contains("stopped before its end"), "{out}");
}

#[test]
fn bad_beem_dir_is_an_input_error() {
    let o = dvemc(&["explore", "--beem", "/nonexistent/beem"]);
    assert_eq!(o.status.code(), Some(3), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("/nonexistent/beem"));
}

// --- malformed models (need the DVE frontend) -------------------------------

/// `check` and `explore` both exit 3; stderr names the file and, when
/// `line_col` is given, the position `:LINE:COL`.
fn assert_input_error(contents: &[u8], line_col: Option<&str>) {
    let f = TempFile::new("bad", contents);
    for cmd in ["check", "explore"] {
        let o = dvemc(&[cmd, f.path()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{cmd}: stderr: {err}");
        assert!(
            err.contains(f.path()),
            "{cmd}: stderr does not name the file: {err}"
        );
        if let Some(lc) = line_col {
            assert!(
                err.contains(&format!("{}{lc}", f.path())),
                "{cmd}: no {lc} in: {err}"
            );
        }
        assert!(!err.contains("panicked"), "{cmd}: {err}");
    }
}

#[test]
fn syntax_error_names_line_and_column() {
    // Missing `;` after the state list: the error is at `init` on line 3.
    assert_input_error(
        b"byte x;\nprocess P { state a, b\ninit a;\ntrans a -> b {};\n}\nsystem async;\n",
        Some(":3:1"),
    );
}

#[test]
fn unknown_name_is_an_error() {
    assert_input_error(
        b"byte x;\nprocess P {\nstate a, b;\ninit a;\ntrans a -> b { effect y = 1; };\n}\nsystem async;\n",
        Some(":5:"),
    );
}

#[test]
fn type_error_is_an_error() {
    // A scalar initialiser on an array.
    assert_input_error(
        b"byte x;\nbyte a[2] = 3;\nprocess P {\nstate s, t;\ninit s;\ntrans s -> t {};\n}\nsystem async;\n",
        Some(":2:"),
    );
}

#[test]
fn scalar_indexed_as_array_is_an_error() {
    // (An array named without an index means element 0, as in DiVinE; the
    // opposite mistake is an error.)
    assert_input_error(
        b"byte a;\nprocess P {\nstate s, t;\ninit s;\ntrans s -> t { effect a[1] = 1; };\n}\nsystem async;\n",
        Some(":5:"),
    );
}

#[test]
fn empty_file_is_an_error() {
    assert_input_error(b"", None);
}

#[test]
fn binary_file_is_an_error() {
    let mut junk = vec![0u8, 159, 146, 150, 0xff, 0xfe, b'\n'];
    junk.extend((0..=255u8).cycle().take(2000));
    assert_input_error(&junk, None);
}

#[test]
fn check_prints_summary() {
    let f = TempFile::new(
        "ok",
        b"byte fork[2];\nprocess P {\nstate a, b;\ninit a;\ntrans a -> b { guard fork[0] == 0; effect fork[0] = 1; };\n}\nsystem async;\n",
    );
    let o = dvemc(&["check", f.path()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("1 processes"), "{out}");
    assert!(out.contains("transitions"), "{out}");
}

#[test]
fn verify_beem_writes_a_report() {
    let dir = TempDir::new("cli-verify");
    let out = dir.join("verify.csv");
    let o = dvemc(&[
        "verify-beem",
        "--max-states",
        "3000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let csv = std::fs::read_to_string(&out).expect("report written");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("instance,expected,got,match,seconds,bytes_per_state,result")
    );
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() >= 10, "{csv}");
    assert!(rows.iter().all(|r| r.split(',').nth(3) == Some("true")), "{csv}");
    assert!(
        stdout(&o).contains(&format!("{} of {} complete instances", rows.len(), rows.len())),
        "{}",
        stdout(&o)
    );
}

/// A model file of the BEEM suite beside the repository.
fn beem_dve(file: &str) -> String {
    format!("{}/../../shared/beem/dve/{file}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn goal_found_gives_a_shortest_trace_and_exit_1() {
    let o = dvemc(&[
        "explore",
        &example("phils2.dve"),
        "--goal",
        "Philosopher1.eat",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["verdict"], "violated");
    assert_eq!(v["violation_kind"], "goal");
    assert_eq!(v["cex_length"], 2);
    let steps = v["trace"]["steps"].as_array().expect("trace steps");
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["state"]["Philosopher1"], "eat");
    assert_eq!(steps[0]["changes"]["fork1"], serde_json::json!([0, 1]));
}

#[test]
fn deadlock_check_and_holding_goal() {
    let o = dvemc(&["explore", &example("phils2.dve"), "--check", "deadlock"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("verdict:              violated\nviolation kind:       deadlock\n"),
        "{out}"
    );
    assert!(out.contains("counterexample (path, 2 steps)"), "{out}");
    assert!(out.contains("Philosopher2: think -> hungry"), "{out}");
    // An unreachable goal holds (exit 0) after the whole state space.
    let o = dvemc(&[
        "explore",
        &example("phils2.dve"),
        "--goal",
        "fork1 == 2",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["verdict"], "holds");
    assert_eq!(v["states"], 10);
    assert!(v["violation_kind"].is_null());
}

/// `--trace-format json`: standard output is the counterexample alone (it
/// pipes into `jq`), the summary goes to standard error.
#[test]
fn a_json_trace_alone_on_standard_output() {
    let o = dvemc(&[
        "explore",
        &example("phils2.dve"),
        "--check",
        "deadlock",
        "--trace-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let trace: serde_json::Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {}", stdout(&o)));
    assert_eq!(trace["steps"].as_array().map(Vec::len), Some(2), "{trace}");
    assert!(
        stderr(&o).contains("violation kind:       deadlock"),
        "{}",
        stderr(&o)
    );
    // No counterexample: nothing on standard output.
    let o = dvemc(&[
        "explore",
        &example("phils2.dve"),
        "--goal",
        "fork1 == 2",
        "--trace-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("verdict:"), "{}", stderr(&o));
}

#[test]
fn bad_goal_expression_is_an_input_error() {
    let o = dvemc(&["explore", &example("phils2.dve"), "--goal", "fork1 == nosuch"]);
    assert_eq!(o.status.code(), Some(3));
    let e = stderr(&o);
    assert!(e.contains("--goal:1:10: error: unknown variable `nosuch`"), "{e}");
    let o = dvemc(&["explore", &example("phils2.dve"), "--goal", "fork1 =="]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--goal:1:"), "{}", stderr(&o));
    // Of several, the one at fault is numbered; --sweep-measure is named too.
    let o = dvemc(&[
        "explore",
        &example("phils2.dve"),
        "--goal",
        "fork1 == 2",
        "--goal",
        "fork1 == nosuch",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).starts_with("--goal #2:1:10: error: unknown variable"),
        "{}",
        stderr(&o)
    );
    let o = dvemc(&["explore", &example("phils2.dve"), "--sweep-measure", "nosuch"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).starts_with("--sweep-measure:1:1: error: unknown variable"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn beem_properties_from_the_manifest() {
    // adding.1 property 1 is a reachability goal BEEM found.
    let o = dvemc(&["explore", "adding.1", "--property", "1", "--json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    assert_eq!(json(&o)["violation_kind"], "goal");
    // anderson.2 property 3 is an LTL property BEEM answers "no": a lasso.
    let o = dvemc(&["explore", "anderson.2", "--property", "3", "--json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["violation_kind"], "accepting_cycle");
    assert_eq!(v["strategy"], "ndfs");
    assert!(v["trace"]["cycle_start"].is_u64());
    // The same model with its property process ignored is the plain system.
    let path = beem_dve("anderson.2.prop3.dve");
    let o = dvemc(&["explore", &path, "--ignore-property", "--json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let plain = dvemc(&["explore", "anderson.2", "--json"]);
    assert_eq!(json(&o)["states"], json(&plain)["states"]);
    // A property the manifest does not have.
    let o = dvemc(&["explore", "adding.1", "--property", "99"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("no property 99"), "{}", stderr(&o));
}

/// The help of `dvemc` with no terminal: clap then neither wraps it nor
/// colours it.
fn help(args: &[&str]) -> String {
    let o = Dvemc::new().args(args).env_remove("COLUMNS").run();
    assert_eq!(o.status.code(), Some(0), "{args:?}: stderr: {}", stderr(&o));
    stdout(&o)
}

/// The commands a `--help` lists (its "Commands:" section).
fn commands_of(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().expect("a name").to_string())
        .filter(|c| c != "help")
        .collect()
}

/// Every command in `dvemc --help` says what it does (a doc comment put on
/// the wrong variant once left `verify-beem` blank), in one line; they are
/// listed in the order of use; and every command's own `--help` (bench's
/// too) ends with its exit codes.
#[test]
fn help_describes_every_command() {
    let text = help(&["--help"]);
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    for line in &lines {
        assert!(
            !line.starts_with("   "),
            "a summary in `dvemc --help` takes two lines (keep it within 100 columns):\n{text}"
        );
        let mut words = line.split_whitespace();
        let name = words.next().expect("a command name");
        assert!(
            words.next().is_some(),
            "`{name}` has no description in `dvemc --help`"
        );
    }
    assert_eq!(
        commands_of(&text).join(" "),
        "explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions",
        "the commands in the order of use"
    );
    assert!(text.contains("Exit codes:"), "dvemc --help: {text}");
    let mut commands: Vec<Vec<String>> = commands_of(&text).into_iter().map(|c| vec![c]).collect();
    commands.extend(
        commands_of(&help(&["bench", "--help"]))
            .into_iter()
            .map(|c| vec!["bench".to_string(), c]),
    );
    assert!(commands.len() >= 15, "{commands:?}");
    for cmd in &commands {
        let args: Vec<&str> = cmd.iter().map(String::as_str).chain(["--help"]).collect();
        let text = help(&args);
        let codes: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "Exit codes:")
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(
            codes.contains(&"0") && codes.contains(&"2"),
            "`dvemc {}` lacks its exit codes:\n{text}",
            cmd.join(" ")
        );
    }
}

/// `explore -h` reads at a glance: one line an option, at most 60 lines of
/// at most 120 characters; `--help` gives the details under headings.
#[test]
fn explore_short_help_fits_a_screen() {
    let short = help(&["explore", "-h"]);
    let lines: Vec<&str> = short.lines().collect();
    assert!(
        lines.len() <= 60,
        "explore -h has {} lines:\n{short}",
        lines.len()
    );
    for l in &lines {
        assert!(l.chars().count() <= 120, "a line of explore -h is too long:\n{l}");
    }
    for l in lines.iter().filter(|l| l.trim_start().starts_with("--")) {
        let (_, about) = l
            .trim()
            .split_once("  ")
            .unwrap_or_else(|| panic!("no help on: {l}"));
        assert!(!about.trim().is_empty(), "no help on: {l}");
    }
    let long = help(&["explore", "--help"]);
    let headings = sections(&long);
    assert!(
        headings.len() >= 5,
        "explore --help has {} headings: {:?}",
        headings.len(),
        headings.iter().map(|(h, _)| h).collect::<Vec<_>>()
    );
    assert!(long.lines().count() > lines.len(), "--help gives more than -h");
}

/// The headings of a `--help` and the long options under each.
fn sections(help: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for l in help.lines() {
        let trimmed = l.trim_start();
        let indent = l.len() - trimmed.len();
        if indent == 0 && l.ends_with(':') && !l.starts_with("Usage") {
            out.push((l.trim_end_matches(':').to_string(), Vec::new()));
        } else if (1..=6).contains(&indent) && trimmed.starts_with('-') {
            let flag = trimmed
                .split_whitespace()
                .find_map(|w| w.strip_prefix("--"))
                .expect("a long option");
            if let Some((_, flags)) = out.last_mut() {
                flags.push(flag.trim_end_matches(',').to_string());
            }
        }
    }
    out
}

/// Each heading of `explore --help` that names strategies, e.g.
/// "Breadth-bounded (highway, bbmc)", holds only options the registry gives
/// to those strategies, and each strategy it names takes one of them; an
/// option every strategy takes sits under a heading that names none. So a
/// user sees under which heading the options of a strategy are.
#[test]
fn explore_options_are_grouped_by_the_strategies_that_take_them() {
    use dvemc_run::run::options::OPTIONS;
    use dvemc_run::run::strategy::Strategy;
    let long = help(&["explore", "--help"]);
    let named = |token: &str| -> Vec<&'static str> {
        let by_family: Vec<&'static str> = Strategy::EXAMPLES
            .iter()
            .filter(|s| s.family().name() == token)
            .map(|s| s.name())
            .collect();
        if !by_family.is_empty() {
            return by_family;
        }
        let s = Strategy::EXAMPLES
            .iter()
            .find(|s| s.name() == token)
            .unwrap_or_else(|| panic!("`{token}` in a heading is no strategy or family"));
        vec![s.name()]
    };
    let mut seen = Vec::new();
    for (heading, flags) in sections(&long) {
        let listed: Option<Vec<&str>> = heading
            .split_once(" (")
            .map(|(_, list)| list.trim_end_matches(')').split(", ").flat_map(named).collect());
        let mut takers: Vec<&str> = Vec::new();
        for flag in &flags {
            seen.push(flag.clone());
            let option = OPTIONS.iter().find(|o| o.flag == flag);
            let Some(listed) = &listed else { continue };
            let option = option
                .unwrap_or_else(|| panic!("--{flag}, an option of every strategy, is under `{heading}`"));
            for s in Strategy::EXAMPLES.iter().filter(|s| option.takers.take(**s)) {
                assert!(
                    listed.contains(&s.name()),
                    "--{flag} is under `{heading}`, but {} takes it too",
                    s.name()
                );
                takers.push(s.name());
            }
        }
        if let Some(listed) = &listed {
            for s in listed {
                assert!(
                    takers.contains(s),
                    "`{heading}` names {s}, which takes none of its options {flags:?}"
                );
            }
        }
    }
    for o in OPTIONS {
        assert!(
            seen.iter().any(|f| f == o.flag),
            "--{} is under no heading of explore --help",
            o.flag
        );
    }
}

/// `dvemc strategies` (which `explore --help` points to) lists every
/// strategy `--strategy` takes, with the options the registry gives it.
#[test]
fn strategies_lists_the_registry() {
    let o = dvemc(&["strategies", "--json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON array");
    let list = v.as_array().expect("an array");
    let forms: Vec<&str> = list.iter().map(|s| s["form"].as_str().expect("form")).collect();
    assert_eq!(
        forms.join(", "),
        dvemc_run::run::strategy::Strategy::forms(),
        "the strategies listed are those --strategy names"
    );
    let opts = |form: &str| -> Vec<String> {
        let s = list.iter().find(|s| s["form"] == form).expect("listed");
        s["options"]
            .as_array()
            .expect("options")
            .iter()
            .map(|o| o.as_str().unwrap().to_string())
            .collect()
    };
    assert!(opts("bfs").contains(&"--store".to_string()));
    assert!(opts("dbdfs").contains(&"--frontier".to_string()));
    assert!(!opts("dbdfs").contains(&"--cache".to_string()));
    let text = stdout(&dvemc(&["strategies"]));
    for form in forms {
        assert!(
            text.lines().any(|l| l.starts_with(form)),
            "{form} missing:\n{text}"
        );
    }
}

/// A line of the human report: its label, padded as the report pads it.
fn report_line(out: &str, label: &str) -> String {
    let key = format!("{label}:");
    out.lines()
        .find(|l| l.starts_with(&format!("{key:<22}")))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{out}"))[22..]
        .to_string()
}

/// A deadlock found while only assertions were checked is no violation
/// (exit 0), and the report says what holds and names the check it lacked.
#[test]
fn unchecked_deadlocks_are_named_with_their_check() {
    let f = TempFile::new(
        "deadlocks",
        b"byte x;\nprocess P {\nstate a, b;\ninit a;\nassert a: x < 5;\ntrans a -> b { effect x = 1; };\n}\nsystem async;\n",
    );
    let o = dvemc(&["explore", f.path()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(report_line(&out, "verdict"), "holds (assertions)");
    assert_eq!(
        report_line(&out, "deadlocks"),
        "1 (not checked: --check deadlock checks them)"
    );
    // Checked, the deadlock is the violation.
    let o = dvemc(&["explore", f.path(), "--check", "deadlock,assert"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(report_line(&out, "verdict"), "violated");
    assert_eq!(report_line(&out, "deadlocks"), "1");
    // No assertion to check: no verdict, the deadlocks still named.
    let o = dvemc(&["explore", &example("phils2.dve")]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(
        report_line(&stdout(&o), "deadlocks").ends_with("(not checked: --check deadlock checks them)"),
        "{}",
        stdout(&o)
    );
    // What holds, when several checks hold.
    let ok = TempFile::new(
        "cycle",
        b"byte x;\nprocess P {\nstate a;\ninit a;\nassert a: x < 5;\ntrans a -> a { effect x = 1 - x; };\n}\nsystem async;\n",
    );
    let o = dvemc(&["explore", ok.path(), "--check", "deadlock,assert"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(report_line(&out, "verdict"), "holds (assertions, no deadlock)");
    assert_eq!(report_line(&out, "deadlocks"), "0");
}

/// An array written out of bounds without `--check error`: the erroneous
/// transition is counted, not a violation (exit 0), and the report names
/// the check.
#[test]
fn unchecked_run_time_errors_are_named_with_their_check() {
    let f = TempFile::new(
        "out-of-bounds",
        b"byte a[2];\nbyte i;\nprocess P {\nstate s;\ninit s;\ntrans s -> s { guard i < 3; effect a[i] = 1, i = i + 1; };\n}\nsystem async;\n",
    );
    let o = dvemc(&["explore", f.path()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(
        report_line(&stdout(&o), "error transitions"),
        "1 (not checked: --check error checks them)"
    );
    let o = dvemc(&["explore", f.path(), "--check", "error"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(report_line(&out, "verdict"), "violated");
    assert_eq!(report_line(&out, "error transitions"), "1");
}

/// `--check error` names the run-time error and the transition it happened
/// on (the JIT only flags errors; the interpreter names them).
#[test]
fn a_run_time_error_is_named_with_its_transition() {
    for (model, want) in [
        (
            "byte a[2];\nbyte i;\nprocess P {\nstate s;\ninit s;\ntrans s -> s { guard i < 3; effect a[i] = 1, i = i + 1; };\n}\nsystem async;\n",
            "array index out of bounds in P: s -> s {guard i < 3; effect a[i] = 1, i = i + 1}",
        ),
        (
            "byte x;\nprocess P {\nstate s, t;\ninit s;\ntrans s -> t { guard 10 / x > 1; };\n}\nsystem async;\n",
            "division by zero in P: s -> t {guard (10 / x) > 1}",
        ),
        (
            "byte x = 200;\nprocess P {\nstate s, t;\ninit s;\ntrans s -> t { effect x = x + 100; };\n}\nsystem async;\n",
            "value out of the range of its variable's type in P: s -> t {effect x = x + 100}",
        ),
    ] {
        let f = TempFile::new("error", model.as_bytes());
        for backend in ["jit", "interp"] {
            let o = dvemc(&["explore", f.path(), "--check", "error", "--backend", backend]);
            assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(report_line(&out, "violation kind"), "error_state");
            assert_eq!(report_line(&out, "violation"), want, "{backend}");
        }
    }
}

/// A violated assertion shows its expression and the values it read in the
/// violating state.
#[test]
fn a_violated_assertion_shows_its_expression_and_values() {
    for (assertion, want) in [
        (
            "a[i] + i < 5 or P1.t",
            "P0: assert in cs: ((a[i] + i) < 5) or P1.t, where i = 1, a[1] = 4, P1 = s",
        ),
        (
            "a[i + 5] == 0",
            "P0: assert in cs: a[i + 5] == 0, which cannot be evaluated (array index out of bounds), where i = 1",
        ),
    ] {
        let f = TempFile::new(
            "assert",
            format!(
                "byte a[3] = {{0, 4, 0}};\nbyte i;\nprocess P0 {{\nstate idle, cs;\ninit idle;\nassert cs: {assertion};\ntrans idle -> cs {{ effect i = 1; }};\n}}\nprocess P1 {{\nstate s, t;\ninit s;\ntrans s -> t {{}};\n}}\nsystem async;\n"
            )
            .as_bytes(),
        );
        for backend in ["jit", "interp"] {
            let o = dvemc(&["explore", f.path(), "--backend", backend]);
            assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(report_line(&out, "violation kind"), "assert");
            assert_eq!(report_line(&out, "violation"), want, "{backend}");
        }
    }
}

/// A goal found is "reached" (BEEM: reachable, yes), one the whole state
/// space does not reach is "unreachable"; the exit codes are as for any
/// property (1 when found).
#[test]
fn goals_are_reached_or_unreachable() {
    let phils = example("phils2.dve");
    for strategy in [
        &["bfs"][..],
        &["dfs"],
        &["bbmc", "--breadth", "4"],
        &["random-walk"],
    ] {
        let mut args = vec!["explore", &phils, "--goal", "Philosopher1.eat", "--strategy"];
        args.extend(strategy);
        let o = dvemc(&args);
        assert_eq!(o.status.code(), Some(1), "{strategy:?}: {}", stderr(&o));
        assert_eq!(report_line(&stdout(&o), "verdict"), "reached", "{strategy:?}");
    }
    let o = dvemc(&["explore", &phils, "--goal", "fork1 == 2"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(report_line(&stdout(&o), "verdict"), "unreachable");
    // Beside other checks.
    let f = TempFile::new(
        "cycle",
        b"byte x;\nprocess P {\nstate a;\ninit a;\nassert a: x < 5;\ntrans a -> a { effect x = 1 - x; };\n}\nsystem async;\n",
    );
    let o = dvemc(&["explore", f.path(), "--goal", "x == 3"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(
        report_line(&stdout(&o), "verdict"),
        "holds (assertions); goal unreachable"
    );
}

/// `config` is a command line: `dvemc explore MODEL --strategy CONFIG`
/// re-runs the same search (checks, property, goals and the strategy's
/// options included): the same counters, the same verdict, the same config.
#[test]
fn config_re_runs_the_same_search() {
    let phils = example("phils2.dve");
    let asserting = TempFile::new(
        "assert",
        b"byte x;\nprocess P {\nstate a, b;\ninit a;\nassert b: x < 1;\ntrans a -> b { effect x = 1; };\n}\nsystem async;\n",
    );
    let runs: [&[&str]; 8] = [
        &[asserting.path()],
        &[asserting.path(), "--check", "none"],
        &["peterson.2", "--property", "2"],
        &["adding.1", "--property", "1", "--strategy", "dfs"],
        &[
            &phils,
            "--goal",
            "Philosopher1.eat",
            "--goal",
            "fork1 == 2",
            "--check",
            "none",
        ],
        &[&phils, "--check", "deadlock,error", "--all-violations"],
        &[&phils, "--strategy", "dfs", "--cache", "4", "--seed", "3"],
        &[
            &phils,
            "--strategy",
            "bbmc",
            "--breadth",
            "2",
            "--check",
            "deadlock",
            "--goal",
            "fork1 == 2",
        ],
    ];
    for args in runs {
        let first = json(&dvemc(&[&["explore", "--json"], args].concat()));
        let config = first["config"].as_str().expect("a config");
        let again = Command::new("sh")
            .arg("-c")
            .arg(format!("\"$0\" explore \"$1\" --json --strategy {config}"))
            .arg(BIN)
            .arg(args[0])
            .output()
            .expect("running sh");
        let again = json(&again);
        for key in [
            "config",
            "strategy",
            "states",
            "transitions",
            "deadlocks",
            "verdict",
            "violation_kind",
            "violation",
            "violations",
            "cex_length",
        ] {
            assert_eq!(first[key], again[key], "{key} of {args:?} (config: {config})");
        }
    }
}

/// A bare name that is neither a file nor a BEEM instance is an input
/// error (exit 3) that says so, with the instances of its family or the
/// nearest names.
#[test]
fn a_missing_beem_instance_is_named_with_the_nearest_ones() {
    for cmd in [&["explore"][..], &["check"], &["simulate", "--random"]] {
        let o = dvemc(&[cmd, &["nosuchinstance.7"]].concat());
        assert_eq!(o.status.code(), Some(3), "{cmd:?}: stderr: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("nosuchinstance.7: no such file, and no BEEM instance of that name in "),
            "{cmd:?}: {e}"
        );
        assert!(!e.contains("did you mean"), "{cmd:?}: {e}");
    }
    let e = stderr(&dvemc(&["explore", "adding.7"]));
    assert!(
        e.ends_with("; did you mean one of adding.1, adding.2, adding.3, adding.4, adding.5, adding.6?\n"),
        "{e}"
    );
    let e = stderr(&dvemc(&["explore", "petersen.2"]));
    assert!(e.contains("; did you mean one of peterson.2, "), "{e}");
    let o = dvemc(&["explore", "nosuchinstance.7", "--json"]);
    assert_eq!(o.status.code(), Some(3));
    let v = json(&o);
    assert_eq!(v["error"], "input");
    assert_eq!(v["file"], "nosuchinstance.7");
}

/// `--por` with an LTL formula: reduced in two passes with the verdict of
/// the full search; a formula with X, and a model whose property process
/// says no formula, are refused with the reason (exit 2).
#[test]
fn por_with_ltl_keeps_the_verdict_and_refuses_next_time() {
    let model = example("readers_writers.dve");
    let model = model.as_str();
    for formula in [
        "G F (nw == 0)",
        "G (nr < 3)",
        "G (Reader_0.reading -> F Reader_0.idle)",
    ] {
        let full = json(&dvemc(&["explore", model, "--ltl", formula, "--json"]));
        let reduced = json(&dvemc(&["explore", model, "--ltl", formula, "--por", "--json"]));
        assert_eq!(reduced["verdict"], full["verdict"], "{formula}");
        // A product this small is settled by the full first pass, and the
        // record says the reduction did not run.
        assert_eq!(reduced["states"], full["states"], "{formula}");
        assert!(reduced["por_not_reduced"].is_string(), "{reduced}");
        assert!(reduced.get("por_full").is_none(), "{reduced}");
        assert!(reduced.get("por_full_share").is_none(), "{reduced}");
    }
    let o = dvemc(&["explore", model, "--ltl", "G X (nw == 0)", "--por"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--ltl:1:3: --por: the LTL property uses X (next-time)"),
        "{}",
        stderr(&o)
    );
    let prop = TempFile::new(
        "own_property",
        b"byte x; process P { state a; init a; trans a -> a { effect x = 1 - x; }; }
          process N { state n; init n; accept n; trans n -> n { guard x == 1; }; }
          system async property N;",
    );
    let o = dvemc(&["explore", prop.path(), "--por"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--ltl"), "{}", stderr(&o));
}

/// The `--por` record says how many transition groups the model has and how
/// many the analysis could not prove free of run-time errors.
#[test]
fn por_record_counts_the_groups_that_may_err() {
    let m = TempFile::new(
        "may_err",
        b"byte x; byte y;
          process P { state a; init a; trans a -> a { effect x = x + 1; }; }
          process Q { state b; init b; trans b -> b { guard y < 5; effect y = y + 1; }; }
          system async;",
    );
    let v = json(&dvemc(&["explore", m.path(), "--por", "--json"]));
    assert_eq!(v["por_groups"], 2, "{v}");
    // x + 1 leaves the byte's range after 255 steps; y + 1 never does.
    assert_eq!(v["por_groups_may_err"], 1, "{v}");
}

/// A model of one process per letter of `vars`, each counting its own
/// variable up to `bound`: independent steps. `first` is put before them
/// (a process searched first), `system` is `async` or `sync`.
fn counters(first: &str, vars: &str, bound: u8, system: &str) -> String {
    let mut m: String = vars.chars().map(|v| format!("byte {v}; ")).collect();
    m += first;
    for v in vars.chars() {
        let p = v.to_ascii_uppercase();
        m += &format!(" process {p} {{ state s; init s; trans s -> s {{ guard {v} < {bound}; effect {v} = {v} + 1; }}; }}");
    }
    m + &format!(" system {system};")
}

/// `--por` with an LTL property searches the full product's first states
/// before reducing: a lasso near the initial state is reported as the full
/// search finds it, without the reduced system's pass first.
#[test]
fn por_with_ltl_reports_an_early_lasso_at_once() {
    let m = TempFile::new(
        "early_lasso",
        b"byte x; byte a; byte b;
          process C { state c; init c; trans c -> c { guard x < 3; effect x = x + 1; }; }
          process A { state s; init s; trans s -> s { effect a = (a + 1) % 200; }; }
          process B { state s; init s; trans s -> s { effect b = (b + 1) % 200; }; }
          system async;",
    );
    let full = json(&dvemc(&["explore", m.path(), "--ltl", "G (x < 2)", "--json"]));
    let o = dvemc(&["explore", m.path(), "--ltl", "G (x < 2)", "--por", "--json"]);
    let reduced = json(&o);
    assert_eq!(full["verdict"], "violated", "{full}");
    assert_eq!(reduced["verdict"], "violated", "{reduced}");
    assert_eq!(reduced["states"], full["states"], "{reduced}");
    assert!(
        reduced["por_not_reduced"]
            .as_str()
            .is_some_and(|w| w.contains("searched before reducing")),
        "{reduced}"
    );
    assert!(reduced.get("por_full").is_none(), "{reduced}");
}

/// `--por` with an LTL property on a product larger than the full first
/// pass: the product is reduced (fewer states, the counters of the reduced
/// search in the record) and the verdict is the full search's.
#[test]
fn por_with_ltl_reduces_a_large_product() {
    let m = TempFile::new("three_counters", counters("", "abc", 50, "async").as_bytes());
    let full = json(&dvemc(&["explore", m.path(), "--ltl", "G (a < 60)", "--json"]));
    let reduced = json(&dvemc(&[
        "explore",
        m.path(),
        "--ltl",
        "G (a < 60)",
        "--por",
        "--json",
    ]));
    assert_eq!(full["verdict"], "holds", "{full}");
    assert_eq!(reduced["verdict"], "holds", "{reduced}");
    assert!(full["states"].as_u64() > Some(1 << 16), "{full}");
    assert!(reduced["states"].as_u64() < full["states"].as_u64(), "{reduced}");
    assert!(reduced.get("por_not_reduced").is_none(), "{reduced}");
    assert!(
        reduced["por_full_share"].as_f64().is_some_and(|s| s < 1.0),
        "{reduced}"
    );
    // A lasso the full search meets only past its first pass (A's second
    // transition, after the whole subspace of its first) is found in the
    // reduced product.
    let late = TempFile::new(
        "late_lasso",
        counters(
            "process A { state s, l, r; init s; trans s -> l {}, s -> r {}; }",
            "bcd",
            50,
            "async",
        )
        .as_bytes(),
    );
    let run = |por: &[&str]| {
        let o = dvemc(
            &[
                &[
                    "explore",
                    late.path(),
                    "--ltl",
                    "G !A.r",
                    "--threads",
                    "1",
                    "--json",
                ],
                por,
            ]
            .concat(),
        );
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        json(&o)
    };
    let (full, reduced) = (run(&[]), run(&["--por"]));
    // A budget that ends the reduced system's pass ends the LTL check.
    let o = dvemc(&[
        "explore",
        late.path(),
        "--ltl",
        "G !A.r",
        "--por",
        "--max-states",
        "100",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(
        (&v["result"], &v["strategy"]),
        (&"state_limit".into(), &"ndfs".into()),
        "{v}"
    );
    assert!(full["states"].as_u64() > Some(1 << 16), "{full}");
    assert_eq!(reduced["violation_kind"], "accepting_cycle", "{reduced}");
    assert!(reduced["states"].as_u64() < Some(1000), "{reduced}");
    assert!(reduced.get("por_not_reduced").is_none(), "{reduced}");
    assert!(reduced["trace"]["cycle_start"].is_u64(), "{reduced}");
}

/// A model file is a BEEM instance when BEEM has one of its name: a copy of
/// adding.1 is `adding.1` in the record and takes its properties, another
/// file has no instance; an LTL formula over a file named after a family
/// may use the family's named propositions.
#[test]
fn a_file_is_an_instance_only_when_beem_names_it() {
    let dir = TempDir::new("cli-names");
    let adding = json(&dvemc(&["explore", "adding.1", "--json"]));
    let beem_dve = std::path::PathBuf::from(adding["model"].as_str().expect("a model path"));
    let (copy, family, other) = (
        dir.join("adding.1.dve"),
        dir.join("anderson.99.dve"),
        dir.join("counter.dve"),
    );
    std::fs::copy(&beem_dve, &copy).expect("copy");
    std::fs::copy(beem_dve.with_file_name("anderson.1.dve"), &family).expect("copy");
    std::fs::write(
        &other,
        b"byte x; process P { state a; init a; trans a -> a { guard x < 3; effect x = x + 1; }; } system async;",
    )
    .expect("write");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let v = json(&dvemc(&["explore", &path(&copy), "--json"]));
    assert_eq!(v["instance"], "adding.1", "{v}");
    let o = dvemc(&["explore", &path(&copy), "--property", "1", "--json"]);
    assert_eq!(json(&o)["violation_kind"], "goal", "{}", stderr(&o));
    let v = json(&dvemc(&["explore", &path(&other), "--json"]));
    assert!(v.get("instance").is_none(), "{v}");
    let o = dvemc(&["explore", &path(&family), "--ltl", "G F cs0", "--json"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    assert!(json(&o).get("instance").is_none());
}

/// `--por-check` runs the full and the reduced search: the record's
/// counters are the reduced search's, the full one's are beside them, the
/// verdicts are named as the record names them, and a model that cannot be
/// reduced says why.
#[test]
fn por_check_reports_both_searches_in_the_records_words() {
    let m = TempFile::new("two_counters", counters("", "ab", 20, "async").as_bytes());
    for (goal, words) in [("a == 30", "unreachable"), ("a == 20", "reached")] {
        let run = |how: &str| {
            dvemc(&[
                "explore",
                m.path(),
                "--goal",
                goal,
                "--check",
                "none",
                how,
                "--json",
            ])
        };
        let (full, o) = (json(&run("--all-violations")), run("--por-check"));
        let v = json(&o);
        assert_eq!(v["por_check"], "agree", "{v}");
        assert_eq!(v["por_check_full_states"], full["states"], "{v}");
        assert_eq!(v["por_check_full_transitions"], full["transitions"], "{v}");
        assert!(v["por_check_full_s"].as_f64().is_some(), "{v}");
        assert!(v["states"].as_u64() < full["states"].as_u64(), "{v}");
        let e = stderr(&o);
        assert!(e.contains(&format!("verdict {words}")), "{goal}: {e}");
        assert!(
            !e.contains("verdict holds") && !e.contains("verdict violated"),
            "{goal}: {e}"
        );
    }
    let sync = TempFile::new("sync_model", counters("", "ab", 3, "sync").as_bytes());
    // The two searches meet a deadlock and a goal first: the same verdict,
    // named plainly for both.
    let dg = TempFile::new(
        "deadlock_or_goal",
        b"byte a; byte b; byte c;
          process A { state s, t; init s; trans s -> t { effect a = 1; }; }
          process B { state s, t; init s; trans s -> t { effect b = 1; }; }
          process C { state s, u, stop; init s;
            trans s -> stop {}, s -> u { effect c = 1; }, u -> u { guard c < 9; effect c = c + 1; }; }
          system async;",
    );
    let o = dvemc(&[
        "explore",
        dg.path(),
        "--goal",
        "c == 2",
        "--check",
        "deadlock",
        "--por-check",
        "--threads",
        "1",
    ]);
    let e = stderr(&o);
    assert_eq!(e.matches("verdict violated").count(), 2, "{e}");
    assert!(e.contains("por-check: agree"), "{e}");
    let o = dvemc(&["explore", m.path(), "--por", "--edge-lean"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--por: --edge-lean asks for the general algorithm"),
        "{}",
        stderr(&o)
    );
    let v = json(&dvemc(&["explore", sync.path(), "--por", "--json"]));
    assert!(
        v["por_not_reduced"]
            .as_str()
            .is_some_and(|w| w.contains("system sync")),
        "{v}"
    );
    assert_eq!(v["por_full_share"], 1.0, "{v}");
}
