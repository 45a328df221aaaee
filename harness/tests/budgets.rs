//! Every strategy of the registry under every budget, on a large BEEM
//! instance (leader_election.6: more than the 5,672,319 states BEEM
//! reached, of 253 bytes each, far more than any budget here lets a search
//! reach, and wide enough for a random walk to fill memory in a second):
//! the run stops within the budget, reports the
//! matching result and exit code 4, and prints one valid JSON object with
//! the counters reached.
//!
//! - `--max-states 5000`: `state_limit`, `states <= 5000`;
//! - `--memory-limit 48M`: `memory_limit`, peak resident memory at most
//!   the limit plus [`RSS_SLACK`] (the executable, the generated code and
//!   the buffers the search does not count);
//! - `--time-limit 1.5`: `time_limit`, within the limit plus one second;
//! - SIGINT after one second: `interrupted`;
//!
//! and under each, `time_s` is the time the search took (positive, within
//! the run's wall-clock time).

mod common;

use std::time::{Duration, Instant};

use common::dvemc::Dvemc;

const INSTANCE: &str = "leader_election.6";
const MAX_STATES: u64 = 5000;
const MEMORY: u64 = 48 << 20;
/// What the process holds besides what its budgets count.
const RSS_SLACK: u64 = 32 << 20;
const TIME: f64 = 1.5;

/// Every registered strategy, with the parameters it needs and values that
/// keep it searching far past every budget.
const STRATEGIES: &[&str] = &[
    "bfs", // every core (the parallel search, or DVEMC_THREADS)
    "bfs --threads 1",
    "dfs",
    "dfs --threads 2",
    "bfs --threads 1 --por",
    "dfs --por",
    "dfs --threads 2 --por",
    "bbfs:4",
    "alt:2,2",
    "dfs --cache 30% --replacement stratified",
    "dfs --sweep-level 0",
    "dbdfs",
    "dbdfs --store tree",
    "highway --breadth 100000",
    "bbmc --breadth 100000",
    "urs --memory-states 100000000 --steps 1000000000000",
    "sdrs --memory-states 100000000 --steps 1000000000000",
    "rurs --memory-states 100000 --steps 1000000000000",
    "rsdrs --memory-states 100000 --steps 1000000000000",
    "random-walk --steps 1000000000000",
];

#[derive(Clone, Copy, Debug)]
enum Budget {
    States,
    Memory,
    Time,
    Interrupt,
}

struct Ran {
    code: Option<i32>,
    json: serde_json::Value,
    wall: f64,
}

fn run(strategy: &str, budget: Budget) -> Result<Ran, String> {
    let mut args: Vec<String> = vec!["explore".into(), INSTANCE.into(), "--strategy".into()];
    args.extend(strategy.split(' ').map(str::to_string));
    match budget {
        Budget::States => args.extend(["--max-states".into(), MAX_STATES.to_string()]),
        Budget::Memory => args.extend(["--memory-limit".into(), MEMORY.to_string()]),
        Budget::Time => args.extend(["--time-limit".into(), TIME.to_string()]),
        Budget::Interrupt => {}
    }
    args.push("--json".into());
    let start = Instant::now();
    let child = Dvemc::new().args(&args).spawn();
    if let Budget::Interrupt = budget {
        std::thread::sleep(Duration::from_secs(1));
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    }
    // A safety net for a budget that would not hold: fail, do not hang.
    let watchdog_pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let d = done.clone();
    std::thread::spawn(move || {
        for _ in 0..1200 {
            std::thread::sleep(Duration::from_millis(50));
            if d.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
        }
        // SAFETY: our own child, still unreaped (`done` is not set).
        unsafe { libc::kill(watchdog_pid as i32, libc::SIGKILL) };
    });
    let out = child.wait_with_output().expect("waiting for dvemc");
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let wall = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(text.trim()).map_err(|e| {
        format!(
            "{strategy} under {budget:?}: not one JSON object ({e}) after {wall:.1} s: {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    Ok(Ran {
        code: out.status.code(),
        json,
        wall,
    })
}

/// What is wrong with a run, if anything.
fn check(strategy: &str, budget: Budget, r: &Ran) -> Vec<String> {
    let mut bad = Vec::new();
    let what = format!("{strategy} under {budget:?}");
    let want = match budget {
        Budget::States => "state_limit",
        Budget::Memory => "memory_limit",
        Budget::Time => "time_limit",
        Budget::Interrupt => "interrupted",
    };
    if r.json["result"] != want {
        bad.push(format!("{what}: result {} (expected {want})", r.json["result"]));
    }
    if r.code != Some(4) {
        bad.push(format!("{what}: exit {:?} (expected 4)", r.code));
    }
    let states = r.json["states"].as_u64();
    if states.is_none() {
        bad.push(format!("{what}: no states counter: {}", r.json));
    }
    // The search's own time, however it stopped (a run stopped inside a
    // preliminary exhaustive run once reported 0).
    let time = r.json["time_s"].as_f64();
    if !time.is_some_and(|t| t > 0.0 && t <= r.wall) {
        bad.push(format!("{what}: time_s {time:?} outside (0, {:.2}] s", r.wall));
    }
    match budget {
        Budget::States => {
            if states.is_some_and(|s| s > MAX_STATES) {
                bad.push(format!("{what}: {states:?} states > {MAX_STATES}"));
            }
        }
        Budget::Memory => {
            let rss = r.json["peak_rss_bytes"].as_u64().unwrap_or(u64::MAX);
            if rss > MEMORY + RSS_SLACK {
                bad.push(format!(
                    "{what}: peak RSS {} MiB > {} MiB + {} MiB",
                    rss >> 20,
                    MEMORY >> 20,
                    RSS_SLACK >> 20
                ));
            }
        }
        Budget::Time => {
            if r.wall > TIME + 1.0 {
                bad.push(format!("{what}: {:.2} s > {TIME} s + 1 s", r.wall));
            }
        }
        Budget::Interrupt => {
            if states.is_some_and(|s| s == 0) {
                bad.push(format!("{what}: no counters so far"));
            }
        }
    }
    bad
}

#[test]
fn every_strategy_stops_within_every_budget() {
    let cells: Vec<(&str, Budget)> = STRATEGIES
        .iter()
        .flat_map(|s| {
            [Budget::States, Budget::Memory, Budget::Time, Budget::Interrupt]
                .into_iter()
                .map(move |b| (*s, b))
        })
        .collect();
    let problems = common::problems_on_two_threads(&cells, |&(s, b)| match run(s, b) {
        Ok(r) => check(s, b, &r),
        Err(e) => vec![e],
    });
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// SIGINT sent twice a moment apart, as `timeout -s INT` sends it (to the
/// command, then to its process group), is one request: the run ends with
/// its report, not killed by the copy (which the handler's reset to the
/// default action once let happen: exit by signal, no JSON, 5 runs in 5
/// with the copy 10 ms after the first).
#[test]
fn a_signal_sent_twice_at_once_is_one_interruption() {
    let child = Dvemc::new()
        .args([
            "explore",
            INSTANCE,
            "--strategy",
            "bfs",
            "--threads",
            "1",
            "--json",
        ])
        .spawn();
    std::thread::sleep(Duration::from_secs(1));
    for _ in 0..2 {
        // SAFETY: signalling our own child, not yet reaped.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("waiting for dvemc");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(4),
        "status {:?}, stdout {text}",
        out.status
    );
    let json: serde_json::Value = serde_json::from_str(text.trim()).expect("one JSON object");
    assert_eq!(json["result"], "interrupted");
}
