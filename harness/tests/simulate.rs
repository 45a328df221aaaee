//! `dvemc simulate`: random (seeded) and guided simulation, through the
//! library functions and through the binary with piped input.

use std::io::Cursor;
use std::process::Output;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf};
use dvemc_run::run::simulate::{self, RandomRun};

mod common;
use common::dvemc::{stderr, stdout, Dvemc, TempDir, TempFile};
use common::example_model as example;

fn toy(source: &str) -> Interpreter {
    Interpreter::new(dve_frontend::load_str("toy.dve", source).expect("toy model"))
}

/// A random run's output and outcome.
fn random(model: &Interpreter, seed: u64, steps: u64) -> (String, RandomRun) {
    let mut out = Vec::new();
    let run = simulate::random(model, "m", seed, steps, &mut out).expect("writing to a Vec");
    (String::from_utf8(out).expect("utf-8 output"), run)
}

/// A guided run fed with `input`; the commands are echoed.
fn guided(model: &Interpreter, input: &str) -> (String, usize) {
    let mut out = Vec::new();
    let depth =
        simulate::guided(model, "m", &mut Cursor::new(input), &mut out, true).expect("writing to a Vec");
    (String::from_utf8(out).expect("utf-8 output"), depth)
}

/// The `state N: ...` lines of a guided run, in order.
fn state_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("state ")).collect()
}

const PHILS_INIT: &str = "fork1=0, fork2=0, Philosopher1=think, Philosopher2=think";
const PHILS_DEADLOCK: &str = "fork1=1, fork2=1, Philosopher1=hungry, Philosopher2=hungry";

// ---------------------------------------------------------------- random

#[test]
fn random_same_seed_same_output() {
    for name in [
        "phils2.dve",
        "sum_to_n.dve",
        "bounded_buffer.dve",
        "readers_writers.dve",
    ] {
        let m = example(name);
        for seed in [0, 1, 42, u64::MAX] {
            assert_eq!(
                random(&m, seed, 200),
                random(&m, seed, 200),
                "{name}, seed {seed}"
            );
        }
    }
}

#[test]
fn random_different_seeds_different_runs() {
    let m = example("sum_to_n.dve");
    let runs: Vec<String> = (0..8).map(|seed| random(&m, seed, 100).0).collect();
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            assert_ne!(runs[i], runs[j], "seeds {i} and {j} gave the same run");
        }
    }
}

#[test]
fn random_prints_initial_state_steps_and_changes() {
    let m = example("phils2.dve");
    let (out, _) = random(&m, 0, 100);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "model: m");
    assert_eq!(lines[1], "random simulation: seed 0, at most 100 steps");
    assert_eq!(lines[2], format!("initial state: {PHILS_INIT}"));
    assert!(lines[3].starts_with("step 1: Philosopher"), "{out}");
    assert!(lines[3].contains("think -> hungry"), "{out}");
    // Each philosopher's first step takes its first fork.
    assert!(
        lines[4] == "    fork1: 0 -> 1" || lines[4] == "    fork2: 0 -> 1",
        "{out}"
    );
    assert!(lines[5].ends_with(": think -> hungry"), "{out}");
}

/// The run stops at phils2's deadlock, with the message and the state.
#[test]
fn random_stops_at_deadlock() {
    let m = example("phils2.dve");
    let mut deadlocked = 0;
    for seed in 0..20 {
        let (out, run) = random(&m, seed, 1000);
        if run.deadlock {
            deadlocked += 1;
            assert!(
                out.ends_with(&format!(
                    "deadlock: no enabled transition\nstate: {PHILS_DEADLOCK}\n"
                )),
                "seed {seed}: {out}"
            );
            assert!(out.contains(&format!("step {}: ", run.steps)), "{out}");
            assert!(!out.contains(&format!("step {}: ", run.steps + 1)), "{out}");
        } else {
            assert_eq!(run.steps, 1000);
        }
    }
    assert!(
        deadlocked > 0,
        "no seed of 20 reached phils2's deadlock in 1000 steps"
    );
}

#[test]
fn random_stops_after_n_steps() {
    // sum_to_n has no deadlock.
    let m = example("sum_to_n.dve");
    let (out, run) = random(&m, 5, 50);
    assert_eq!(
        run,
        RandomRun {
            steps: 50,
            deadlock: false
        }
    );
    assert!(out.contains("\nstep 50: "), "{out}");
    assert!(!out.contains("\nstep 51: "), "{out}");
    assert!(out.contains("\nstopped after 50 steps\nstate: "), "{out}");

    let (out, run) = random(&m, 5, 0);
    assert_eq!(
        run,
        RandomRun {
            steps: 0,
            deadlock: false
        }
    );
    assert!(!out.contains("step 1:"), "{out}");
}

/// The printed choices replay to the printed final state, and every step's
/// printed changes are those of the chosen successor.
#[test]
fn random_run_replays() {
    let m = example("bounded_buffer.dve");
    let info = m.info();
    let (out, run) = random(&m, 11, 300);
    let mut state = m.initial_vec();
    let mut succs = SuccBuf::new(m.state_len());
    let mut lines = out.lines().peekable();
    let mut steps = 0;
    while let Some(line) = lines.next() {
        if !line.starts_with("step ") {
            continue;
        }
        // "... (choice k of n)"
        let choice = line.rsplit_once("(choice ").expect("choice").1;
        let (k, n) = choice.trim_end_matches(')').split_once(" of ").expect("k of n");
        let (k, n): (usize, usize) = (k.parse().expect("k"), n.parse().expect("n"));
        m.successors(&state, &mut succs);
        assert_eq!(succs.len(), n, "{line}");
        let next = succs.state(k - 1).to_vec();
        let mut printed = Vec::new();
        while let Some(l) = lines.peek().and_then(|l| l.strip_prefix("    ")) {
            printed.push(l.to_string());
            lines.next();
        }
        let expected = dvemc_run::output::counterexample::changes(info, &state, &next);
        if expected.is_empty() {
            assert_eq!(printed, ["(no change)"]);
        } else {
            assert_eq!(printed, expected, "{line}");
        }
        state = next;
        steps += 1;
    }
    assert_eq!(steps, run.steps);
    assert!(
        out.contains(&format!("\nstate: {}\n", info.state_text(&state))),
        "{out}"
    );
}

#[test]
fn random_marks_error_transitions() {
    // From `a`, one of the two transitions divides by zero.
    let m = toy(
        "byte x; process P { state a, b; init a; trans a -> b { effect x = 1 / x; }, \
         a -> b { effect x = 2; }, b -> a { effect x = 0; }; } system async;",
    );
    let mut marked = 0;
    for seed in 0..10 {
        let (out, run) = random(&m, seed, 20);
        if out.contains("[run-time error") {
            marked += 1;
            // The error state has no successors here.
            assert!(run.deadlock, "{out}");
            assert!(
                out.contains("P: a -> b {effect x = 1 / x}  [run-time error: to the error state]"),
                "{out}"
            );
            assert!(out.contains("P: a -> <error>"), "{out}");
            assert!(out.contains("this is the error state"), "{out}");
        }
    }
    assert!(marked > 0, "no seed took the erroneous transition");
}

#[test]
fn random_initial_deadlock() {
    let m = toy("process P { state a; init a; } system async;");
    let (out, run) = random(&m, 0, 10);
    assert_eq!(
        run,
        RandomRun {
            steps: 0,
            deadlock: true
        }
    );
    assert!(
        out.ends_with("deadlock: no enabled transition\nstate: P=a\n"),
        "{out}"
    );
}

// ---------------------------------------------------------------- guided

#[test]
fn guided_choose_back_and_quit() {
    let m = example("phils2.dve");
    let (out, depth) = guided(&m, "1\n2\nback\n1\nquit\n");
    assert_eq!(depth, 2);
    let states = state_lines(&out);
    assert_eq!(
        states,
        [
            format!("state 0: {PHILS_INIT}").as_str(),
            // Philosopher1 took fork1.
            "state 1: fork1=1, fork2=0, Philosopher1=hungry, Philosopher2=think",
            // Philosopher2 took fork2: the deadlock.
            format!("state 2: {PHILS_DEADLOCK}").as_str(),
            // back
            "state 1: fork1=1, fork2=0, Philosopher1=hungry, Philosopher2=think",
            // Philosopher1 took fork2.
            "state 2: fork1=1, fork2=1, Philosopher1=eat, Philosopher2=think",
        ]
    );
    assert!(
        out.contains("  1. Philosopher1: think -> hungry {guard fork1 == 0; effect fork1 = 1}  [fork1: 0 -> 1, Philosopher1: think -> hungry]\n")
    );
    assert!(
        out.contains("  2. Philosopher2: think -> hungry {guard fork2 == 0; effect fork2 = 1}  [fork2: 0 -> 1, Philosopher2: think -> hungry]\n")
    );
    assert!(out.contains(&format!(
        "state 2: {PHILS_DEADLOCK}\ndeadlock: no enabled transition\n"
    )));
    assert!(out.contains("back to state 1\n"));
    assert!(out.contains("step 1: Philosopher1: think -> hungry {guard fork1 == 0; effect fork1 = 1}\n"));
    assert!(out.ends_with("> quit\nsimulation ended after 2 steps\n"), "{out}");
}

#[test]
fn guided_back_at_initial_state_stays() {
    let m = example("phils2.dve");
    let (out, depth) = guided(&m, "back\n2\nback\nback\n");
    assert_eq!(depth, 0);
    assert_eq!(out.matches("already at the initial state").count(), 2, "{out}");
    let states = state_lines(&out);
    assert_eq!(states.len(), 3, "{out}");
    assert_eq!(states[0], format!("state 0: {PHILS_INIT}"));
    assert_eq!(
        states[1],
        "state 1: fork1=0, fork2=1, Philosopher1=think, Philosopher2=hungry"
    );
    assert_eq!(states[2], states[0]);
}

#[test]
fn guided_bad_input_reprompts() {
    let m = example("phils2.dve");
    let (out, depth) = guided(&m, "abc\n0\n3\n\n-1\n\u{fffd}\n1\n");
    assert_eq!(depth, 1);
    assert!(out.contains("not a command: `abc`"), "{out}");
    assert!(
        out.contains("there is no transition 0: enter a number from 1 to 2"),
        "{out}"
    );
    assert!(
        out.contains("there is no transition 3: enter a number from 1 to 2"),
        "{out}"
    );
    assert!(out.contains("not a command: ``"), "{out}");
    assert!(out.contains("not a command: `-1`"), "{out}");
    // A bad command does not advance: one state before the choice, one after.
    assert_eq!(state_lines(&out).len(), 2, "{out}");
    // The input ended without `quit`.
    assert!(
        out.ends_with("end of input: simulation ended after 1 step\n"),
        "{out}"
    );
}

#[test]
fn guided_invalid_utf8_is_not_an_error() {
    let m = example("phils2.dve");
    let mut out = Vec::new();
    let input: &[u8] = b"\xff\xfe\n2\nquit\n";
    let depth = simulate::guided(&m, "m", &mut Cursor::new(input), &mut out, false).expect("guided");
    assert_eq!(depth, 1);
    assert!(String::from_utf8_lossy(&out).contains("not a command"));
}

#[test]
fn guided_deadlock_accepts_only_back_and_quit() {
    let m = example("phils2.dve");
    let (out, depth) = guided(&m, "1\n2\n1\nback\nquit\n");
    assert_eq!(depth, 1);
    assert!(
        out.contains("choose (back, quit)> 1\nthere is no transition 1: the state is a deadlock"),
        "{out}"
    );
}

#[test]
fn guided_empty_input_ends_at_once() {
    let m = example("phils2.dve");
    let (out, depth) = guided(&m, "");
    assert_eq!(depth, 0);
    assert_eq!(state_lines(&out), [format!("state 0: {PHILS_INIT}").as_str()]);
    assert!(
        out.ends_with("end of input: simulation ended after 0 steps\n"),
        "{out}"
    );
}

// ---------------------------------------------------------------- binary

/// `dvemc args` in the repository's root (models are named from it), fed
/// `stdin`.
fn at_root(args: &[&str], stdin: &str) -> Output {
    Dvemc::new().args(args).in_workspace().stdin(stdin).run()
}

#[test]
fn binary_guided_with_piped_input() {
    let o = at_root(
        &["simulate", "beem/examples/phils2.dve", "--guided"],
        "1\n2\nback\n1\nquit\n",
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("model: beem/examples/phils2.dve\n"), "{out}");
    let states = state_lines(&out);
    assert_eq!(states.len(), 5, "{out}");
    // Philosopher1's take-fork1 transition.
    assert!(
        states[1].contains("fork1=1") && states[1].contains("Philosopher1=hungry"),
        "{out}"
    );
    assert_eq!(states[2], format!("state 2: {PHILS_DEADLOCK}"));
    assert!(out.contains("deadlock: no enabled transition"), "{out}");
    // `back` returned to state 1.
    assert_eq!(states[3], states[1]);
    assert_eq!(
        states[4],
        "state 2: fork1=1, fork2=1, Philosopher1=eat, Philosopher2=think"
    );
    // Piped commands are echoed after the prompt.
    assert!(out.contains("> back\nback to state 1\n"), "{out}");
}

#[test]
fn binary_guided_eof_exits_zero() {
    let o = at_root(&["simulate", "--guided"], "2\n");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("model: phils2.dve (built-in)\n"), "{out}");
    assert!(
        out.contains("end of input: simulation ended after 1 step"),
        "{out}"
    );
}

#[test]
fn binary_random_is_reproducible() {
    let args = [
        "simulate",
        "beem/examples/sum_to_n.dve",
        "--random",
        "--seed",
        "7",
        "--steps",
        "40",
    ];
    let a = at_root(&args, "");
    let b = at_root(&args, "");
    assert_eq!(a.status.code(), Some(0), "stderr: {}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let out = stdout(&a);
    assert!(
        out.contains("random simulation: seed 7, at most 40 steps\n"),
        "{out}"
    );
    assert!(out.contains("\nstep 40: "), "{out}");
    assert!(out.contains("stopped after 40 steps"), "{out}");

    // The same run as the library gives (after the model line).
    let (lib, _) = random(&example("sum_to_n.dve"), 7, 40);
    assert_eq!(
        out.split_once('\n').map(|x| x.1),
        lib.split_once('\n').map(|x| x.1)
    );

    let c = at_root(
        &[
            "simulate",
            "beem/examples/sum_to_n.dve",
            "--random",
            "--seed",
            "8",
            "--steps",
            "40",
        ],
        "",
    );
    assert_ne!(stdout(&a), stdout(&c));
}

#[test]
fn binary_random_defaults() {
    let o = at_root(&["simulate", "--random"], "");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("model: phils2.dve (built-in)\nrandom simulation: seed 0, at most 100 steps\n"),
        "{out}"
    );
    assert!(out.contains(&format!("initial state: {PHILS_INIT}\n")), "{out}");
}

#[test]
fn binary_usage_errors() {
    for args in [
        &["simulate"][..],
        &["simulate", "--random", "--guided"],
        &["simulate", "--guided", "--seed", "3"],
        &["simulate", "--guided", "--steps", "3"],
        &["simulate", "--random", "--steps", "many"],
        &["simulate", "--random", "--seed", "-1"],
    ] {
        let o = at_root(args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
}

#[test]
fn binary_input_errors() {
    let o = at_root(&["simulate", "no/such/model.dve", "--random"], "");
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("no/such/model.dve"), "{}", stderr(&o));

    let bad = TempFile::new(
        "malformed",
        b"byte x;\nprocess P { state a; init b; }\nsystem async;\n",
    );
    let o = at_root(&["simulate", bad.path(), "--guided"], "1\n");
    assert_eq!(o.status.code(), Some(3));
    assert!(stdout(&o).is_empty());
    let err = stderr(&o);
    assert!(err.contains(&format!("{}:2:", bad.path())), "{err}");

    let o = at_root(&["simulate", "--random", "--beem", "/no/such/beem/dir"], "");
    assert_eq!(o.status.code(), Some(3));
}

// ---------------------------------------------------------------- checks

/// A model whose assertion fails two steps in.
const ASSERTING: &str = "byte x; process P { state a, b; init a; assert a: x < 2; \
    trans a -> a { guard x < 5; effect x = x + 1; }; } system async;";

#[test]
fn random_stops_at_a_failed_assertion_with_the_path() {
    let file = TempFile::new("asserting", ASSERTING.as_bytes());
    let o = at_root(&["simulate", file.path(), "--random"], "");
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("violation kind: assert\n"), "{out}");
    assert!(
        out.contains("violation: P: assert in a: x < 2, where x = 2\n"),
        "{out}"
    );
    assert!(out.contains("\ncounterexample (path, 2 steps):\n"), "{out}");
    assert!(!out.contains("step 3:"), "{out}");
    // Not checked, the run goes on to its deadlock.
    let o = at_root(&["simulate", file.path(), "--random", "--check", "none"], "");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(stdout(&o).contains("step 5:"), "{}", stdout(&o));
    assert!(stdout(&o).contains("deadlock: no enabled transition"));
}

#[test]
fn random_checks_deadlocks_and_goals_when_asked() {
    // phils2 deadlocks on some seeds: --check deadlock makes it a violation.
    let mut violated = 0;
    for seed in ["0", "1", "2", "3", "4", "5"] {
        let plain = at_root(&["simulate", "--random", "--seed", seed], "");
        let checked = at_root(
            &["simulate", "--random", "--seed", seed, "--check", "deadlock"],
            "",
        );
        assert_eq!(plain.status.code(), Some(0));
        let deadlocked = stdout(&plain).contains("deadlock: no enabled transition");
        assert_eq!(
            checked.status.code(),
            Some(if deadlocked { 1 } else { 0 }),
            "seed {seed}"
        );
        if deadlocked {
            violated += 1;
            let out = stdout(&checked);
            assert!(out.contains("violation kind: deadlock\n"), "{out}");
            assert!(
                out.contains(&format!("state: {PHILS_DEADLOCK}\n\ncounterexample (path, ")),
                "{out}"
            );
        }
    }
    assert!(violated > 0, "no seed deadlocked");
    let o = at_root(&["simulate", "--random", "--goal", "fork2 == 1"], "");
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("violation kind: goal\nviolation: fork2 == 1\nstate: "),
        "{out}"
    );
    assert!(out.contains("\n\ncounterexample (path, "), "{out}");
    // A malformed goal names the option.
    let o = at_root(&["simulate", "--random", "--goal", "x =="], "");
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--goal"), "{}", stderr(&o));
}

// ---------------------------------------------------------------- replay

/// The JSON counterexample of the built-in example's deadlock, from
/// `explore --trace-format json`.
fn deadlock_trace() -> String {
    let o = at_root(
        &[
            "explore",
            "--check",
            "deadlock",
            "--threads",
            "1",
            "--trace-format",
            "json",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    stdout(&o)
}

fn replay(contents: &str, extra: &[&str]) -> Output {
    let dir = TempDir::new("sim");
    let file = dir.write("trace.dve", contents);
    let mut args = vec!["simulate", "--replay", &file];
    args.extend(extra);
    at_root(&args, "")
}

#[test]
fn replay_of_a_deadlock_counterexample_agrees() {
    let trace = deadlock_trace();
    let o = replay(&trace, &[]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(&format!("initial state: {PHILS_INIT}\n")), "{out}");
    assert!(out.contains("\nstep 1: Philosopher"), "{out}");
    assert!(out.contains("\nstep 2: Philosopher"), "{out}");
    assert!(
        out.ends_with(&format!(
            "replayed 2 steps: the file agrees with the model\nstate: {PHILS_DEADLOCK}\ndeadlock: no enabled transition\n"
        )),
        "{out}"
    );
    // --all gives the same (standard input is not a terminal here), but
    // for the file's name.
    let after_name = |s: &str| s.split_once(": 2 steps\n").map(|x| x.1.to_string());
    assert_eq!(after_name(&stdout(&replay(&trace, &["--all"]))), after_name(&out));
}

#[test]
fn trace_out_writes_the_json_counterexample() {
    let dir = TempDir::new("trace-out");
    let path = dir.join("cex.json");
    let o = at_root(
        &[
            "explore",
            "--check",
            "deadlock",
            "--threads",
            "1",
            "--trace-out",
            path.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    // The text report is on standard output as usual.
    assert!(
        stdout(&o).contains("counterexample (path, 2 steps)"),
        "{}",
        stdout(&o)
    );
    let written = std::fs::read_to_string(&path).expect("the trace file");
    assert_eq!(written, deadlock_trace());
    let o = at_root(&["simulate", "--replay", path.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    // No counterexample, no file.
    let none = dir.join("none.json");
    let o = at_root(&["explore", "--trace-out", none.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(!none.exists());
}

#[test]
fn replay_refuses_a_broken_step_at_that_step() {
    let trace = deadlock_trace();
    // Step 2 names a transition that is enabled after step 1 but that
    // the file's state does not follow.
    let second = trace
        .match_indices("\"transition\": \"")
        .nth(1)
        .map(|(i, m)| i + m.len())
        .expect("two steps");
    let end = second + trace[second..].find('"').unwrap();
    let named = &trace[second..end];
    let other = if named.starts_with("Philosopher1") {
        "Philosopher2: think -> hungry"
    } else {
        "Philosopher1: think -> hungry"
    };
    let o = replay(&format!("{}{other}{}", &trace[..second], &trace[end..]), &[]);
    assert_eq!(o.status.code(), Some(3), "stdout: {}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("the file and the model disagree at step 2:"),
        "{err}"
    );
    // What the file says, and what the model offers there.
    assert!(err.contains(&format!("`{other}`")), "{err}");
    let out = stdout(&o);
    assert!(out.contains("step 1: "), "{out}");
    assert!(!out.contains("step 2: "), "{out}");
    assert!(!out.contains("replayed"), "{out}");

    // A transition that is not enabled at all: the model's are listed.
    let o = replay(&trace.replacen(named, "Philosopher1: eat -> done", 1), &[]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(
        err.contains("step 2: the file says `Philosopher1: eat -> done`, which is not enabled here; the model offers `Philosopher1: hungry -> eat`, `Philosopher2: think -> hungry`"),
        "{err}"
    );

    // A value changed in step 2's state.
    let state2 = trace.rfind("\"fork2\": 1").expect("fork2 in the last state");
    let edited = format!("{}\"fork2\": 0{}", &trace[..state2], &trace[state2 + 10..]);
    let o = replay(&edited, &[]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("step 2: the file's transition `")
            && stderr(&o).contains("fork2: file 0, model 1"),
        "{}",
        stderr(&o)
    );

    // Another initial state: refused before any step, nothing printed.
    let first = trace.find("\"fork1\": 0").unwrap();
    let edited = format!("{}\"fork1\": 1{}", &trace[..first], &trace[first + 10..]);
    let o = replay(&edited, &[]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("at the initial state: not the model's initial state: fork1: file 1, model 0"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
}

#[test]
fn replay_of_a_file_that_is_no_counterexample_is_an_input_error() {
    for (contents, says) in [
        ("{ not json", "not JSON"),
        ("{\"x\": 1}", "no `initial` state"),
        (
            "{\"initial\": {}, \"steps\": [{\"state\": {}}]}",
            "step 1: no `transition`",
        ),
    ] {
        let o = replay(contents, &[]);
        assert_eq!(o.status.code(), Some(3), "{contents}");
        assert!(stderr(&o).contains(says), "{contents}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("dvemc-sim-"),
            "names the file: {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty());
    }
    let o = at_root(&["simulate", "--replay", "/no/such/trace.json"], "");
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("/no/such/trace.json"));
    for args in [
        &["simulate", "--all"][..],
        &["simulate", "--random", "--replay", "x.json"],
        &["simulate", "--replay", "x.json", "--seed", "3"],
        &["simulate", "--guided", "--check", "deadlock"],
    ] {
        let o = at_root(args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

/// A lasso (an LTL counterexample) replays, its cycle closed.
#[test]
fn replay_of_a_lasso() {
    let o = at_root(
        &[
            "explore",
            "--ltl",
            "G F Philosopher1.eat",
            "--check",
            "none",
            "--trace-format",
            "json",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let lasso = stdout(&o);
    // Without the formula, the automaton's state is not the model's.
    let o = replay(&lasso, &[]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("LTL_property: in the file, not a variable of the model"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("with the --ltl formula"), "{}", stderr(&o));
    let o = replay(&lasso, &["--ltl", "G F Philosopher1.eat"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("-- the cycle starts here --\n"), "{out}");
    assert!(out.contains("the cycle repeats --\nreplayed "), "{out}");
}

/// Interactive replay waits for a line before each step; `q` stops it.
#[test]
fn replay_pauses_between_steps() {
    let m = example("phils2.dve");
    let json = r#"{"initial": {"fork1": 0, "fork2": 0, "Philosopher1": "think", "Philosopher2": "think"},
        "steps": [{"transition": "Philosopher1: think -> hungry", "state":
        {"fork1": 1, "fork2": 0, "Philosopher1": "hungry", "Philosopher2": "think"}},
        {"transition": "Philosopher1: hungry -> eat", "state":
        {"fork1": 1, "fork2": 1, "Philosopher1": "eat", "Philosopher2": "think"}}],
        "cycle_start": null}"#;
    let trace = dvemc_run::run::replay::parse(json).expect("a trace");
    let run = |input: &str| {
        let mut out = Vec::new();
        let mut input = Cursor::new(input.as_bytes().to_vec());
        let r = dvemc_run::run::replay::replay(&m, "m", "f", &trace, Some(&mut input), &mut out).unwrap();
        (String::from_utf8(out).unwrap(), r)
    };
    let (out, r) = run("\n\n");
    assert_eq!(r.unwrap().steps, 2);
    assert!(
        out.contains("press Enter for step 1 (q to stop)> step 1: "),
        "{out}"
    );
    assert!(
        out.contains("press Enter for step 2 (q to stop)> step 2: "),
        "{out}"
    );
    let (out, r) = run("\nq\n");
    assert_eq!(r.unwrap().steps, 1);
    assert!(out.ends_with("replay stopped before step 2\n"), "{out}");
}
