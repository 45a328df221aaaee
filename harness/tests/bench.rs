//! `dvemc bench`: kill and resume, memory and time budgets, shards and
//! merge, the Slurm script, the regression check, the schema document.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use dvemc_run::experiments::schema::{Row, Table, COLUMNS, VOLATILE};

mod common;
use common::dvemc::{dvemc, example, workspace, Dvemc, TempDir, BIN};

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Rows by key with the columns that vary from run to run blanked, and
/// timing keys (`*_s`, `*_ms`, `*_per_s`) removed from `extra`.
fn comparable(path: &str) -> BTreeMap<String, Vec<String>> {
    let t = Table::read(Path::new(path)).unwrap();
    let mut out = BTreeMap::new();
    for r in t.rows {
        let mut r: Row = r;
        for c in VOLATILE {
            r.set(c, "");
        }
        let mut extra = serde_json::Value::Object(r.extra());
        strip_timing(&mut extra);
        r.set("extra", extra.to_string());
        assert!(
            out.insert(r.key().to_string(), r.0).is_none(),
            "duplicate key in {path}"
        );
    }
    out
}

/// Removes timing keys (`*_s`, `*_ms`, `*_per_s`) at any depth.
fn strip_timing(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !(k.ends_with("_s") || k.ends_with("_ms")));
            m.values_mut().for_each(strip_timing);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_timing),
        _ => {}
    }
}

/// Asserts two `comparable` tables are equal, naming the differing cells.
fn assert_same(a: &BTreeMap<String, Vec<String>>, b: &BTreeMap<String, Vec<String>>) {
    let ka: Vec<&String> = a.keys().collect();
    let kb: Vec<&String> = b.keys().collect();
    assert_eq!(ka, kb, "different cells");
    let mut diffs = Vec::new();
    for (k, ra) in a {
        for (i, (x, y)) in ra.iter().zip(&b[k]).enumerate() {
            if x != y {
                diffs.push(format!("{k}: {}: `{x}` vs `{y}`", COLUMNS[i]));
            }
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

fn rows_in(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|s| s.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

#[test]
fn killed_midway_then_resumed_equals_an_uninterrupted_run() {
    let d = TempDir::new("bench-resume");
    // 8 cells of about 0.1-0.3 s each.
    let m = d.write(
        "m.toml",
        r#"
        name = "resume"
        backends = ["interp"]
        strategies = ["bfs", "dfs"]
        [instances]
        names = ["adding.2", "brp2.5", "krebs.3", "leader_election.3"]
        [budgets]
        time = "60s"
        "#,
    );
    let out = d.join("killed.csv");
    let mut child = Dvemc::new()
        .args(["bench", "run", &m, "--jobs", "1", "--out", out.to_str().unwrap()])
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while rows_in(&out) < 2 {
        assert!(start.elapsed() < Duration::from_secs(30), "no rows appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = rows_in(&out);
    assert!(
        (2..8).contains(&before),
        "the run should have been cut short: {before} rows"
    );
    // A write cut short by the kill leaves an unfinished line: resume drops it.
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
        f.write_all(b"krebs.3|interp|dfs|,resume,krebs.3,kre").unwrap();
    }
    let o = dvemc(&[
        "bench",
        "run",
        &m,
        "--jobs",
        "2",
        "--resume",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains(&format!("({} run now, {before} already in the file)", 8 - before)),
        "{}",
        text(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unfinished last line"),
        "{}",
        text(&o)
    );

    let full = d.s("full.csv");
    let o = dvemc(&["bench", "run", &m, "--jobs", "2", "--out", &full]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let (a, b) = (comparable(out.to_str().unwrap()), comparable(&full));
    assert_eq!(a.len(), 8);
    assert_same(&a, &b);
    let states = Table::read(&out)
        .unwrap()
        .rows
        .iter()
        .find(|r| r.key() == "krebs.3|interp|dfs|")
        .map(|r| r.get("states").to_string());
    assert_eq!(states.as_deref(), Some("238876"));

    // Running again without --resume refuses to touch the file.
    let o = dvemc(&["bench", "run", &m, "--out", &full]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--resume"),
        "{}",
        text(&o)
    );
}

#[test]
fn memory_and_time_budgets_become_rows_and_the_rest_completes() {
    let d = TempDir::new("bench-budgets");
    let m = d.write(
        "m.toml",
        r#"
        name = "budgets"
        backends = ["interp"]
        [instances]
        names = ["adding.1", "bakery.1"]

        [[strategies]]
        spec = "bfs"

        [[strategies]]
        spec = "dfs"

        # adding.5 (5.3 million states of 10 bytes) needs far more than 48 MB
        # of address space.
        [[strategies]]
        spec = "bfs"
        instances = { names = ["adding.5"] }
        budgets = { memory = "48M" }

        # adding.5 takes seconds; the runner kills it at 0.3 s.
        [[strategies]]
        spec = "dfs"
        instances = { names = ["adding.5"] }
        budgets = { time = "0.3s", grace = "0s" }
        "#,
    );
    let out = d.s("out.csv");
    let o = dvemc(&["bench", "run", &m, "--jobs", "2", "--out", &out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let t = Table::read(Path::new(&out)).unwrap();
    let by: BTreeMap<&str, &Row> = t.rows.iter().map(|r| (r.key(), r)).collect();
    assert_eq!(by.len(), 6, "{:?}", by.keys());
    let oom = by["adding.5|interp|bfs|"];
    // The child ends cleanly: its search stops at the memory limit the
    // runner passes, or its allocator refuses past the address-space
    // limit; either way exit 4 and result memory_limit.
    assert_eq!(oom.get("result"), "memory_limit", "{oom:?}");
    assert_eq!(oom.get("exit_code"), "4", "{oom:?}");
    assert_eq!(oom.get("signal"), "", "{oom:?}");
    assert_eq!(oom.get("budget_memory_bytes"), (48u64 << 20).to_string());
    let slow = by["adding.5|interp|dfs|"];
    assert_eq!(slow.get("result"), "time_limit", "{slow:?}");
    assert!(slow.num("wall_s").unwrap() < 5.0, "{slow:?}");
    for k in [
        "adding.1|interp|bfs|",
        "adding.1|interp|dfs|",
        "bakery.1|interp|bfs|",
        "bakery.1|interp|dfs|",
    ] {
        assert_eq!(by[k].get("result"), "complete", "{:?}", by[k]);
    }
    assert_eq!(by["adding.1|interp|bfs|"].get("states"), "7372");
    assert_eq!(by["bakery.1|interp|dfs|"].get("states"), "1506");
}

const SHARD_MATRIX: &str = r#"
    name = "shards"
    backends = ["interp"]
    [instances]
    names = ["adding.1", "anderson.2", "bakery.1", "bakery.2", "brp.1", "PHILS"]
    [[strategies]]
    spec = "bfs"
    [[strategies]]
    spec = "urs"
    seeds = [1]
    params = { memory_states = 100, steps = 1000 }
    [[strategies]]
    spec = "dbdfs"
    params = { increment = [5, 50], dbdfs = "threshold" }
"#;

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let d = TempDir::new("bench-shards");
    let m = d.write("m.toml", SHARD_MATRIX.replace("PHILS", &example("phils2.dve")));
    let m = m.as_str();

    let shards: Vec<_> = (1..=3)
        .map(|k| {
            Dvemc::new()
                .args([
                    "bench",
                    "run",
                    m,
                    "--shard",
                    &format!("{k}/3"),
                    "--out",
                    &d.s(&format!("s{k}.csv")),
                ])
                .spawn()
        })
        .collect();
    for s in shards {
        let o = s.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    let whole = d.s("whole.csv");
    let o = dvemc(&["bench", "run", m, "--jobs", "2", "--out", &whole]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let merged = d.s("merged.csv");
    let o = dvemc(&[
        "bench",
        "merge",
        &d.s("s1.csv"),
        &d.s("s2.csv"),
        &d.s("s3.csv"),
        &merged,
    ]);
    assert_eq!(o.status.code(), Some(2), "--out is required: {}", text(&o));
    let o = dvemc(&[
        "bench",
        "merge",
        &d.s("s1.csv"),
        &d.s("s2.csv"),
        &d.s("s3.csv"),
        "--out",
        &merged,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let n: Vec<usize> = (1..=3).map(|k| rows_in(&d.join(format!("s{k}.csv")))).collect();
    assert_eq!(n, [8, 8, 8], "24 cells, round robin");
    assert_same(&comparable(&merged), &comparable(&whole));
    let keys: Vec<String> = Table::read(Path::new(&merged))
        .unwrap()
        .rows
        .iter()
        .map(|r| r.key().to_string())
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "merge sorts by key");
    assert!(
        keys.contains(&"phils2|interp|dbdfs --dbdfs threshold --increment 5|".to_string())
            && keys.contains(&"phils2|interp|urs --memory-states 100 --steps 1000|1".to_string()),
        "{keys:?}"
    );

    // The report of the merged file: markdown and SVG.
    let rep = d.join("report");
    let o = dvemc(&["bench", "report", &merged, "--out", rep.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let md = std::fs::read_to_string(rep.join("report.md")).unwrap();
    assert!(
        md.contains("## Best run per instance and configuration") && md.contains("| adding.1 |"),
        "{md}"
    );
    assert!(md.contains("| bytes/state | store bytes |"), "{md}");
    for svg in [
        "stored_vs_visited.svg",
        "seconds_per_instance.svg",
        "bytes_per_state.svg",
    ] {
        let s = std::fs::read_to_string(rep.join(svg)).unwrap();
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"), "{svg}");
    }
    // Throughput is plotted from complete runs of at least 0.1 s only: the
    // plot exists exactly when the file has one.
    let timed = dvemc_run::experiments::schema::Table::read(Path::new(&merged))
        .unwrap()
        .rows
        .iter()
        .any(|r| r.get("result") == "complete" && r.num("time_s").is_some_and(|t| t >= 0.1));
    assert_eq!(rep.join("states_per_s.svg").exists(), timed, "{md}");

    // The HTML report: every run a row, every chart's legend entries with
    // points (the browser check of `make check-report` reads the same).
    let o = dvemc(&[
        "bench",
        "report",
        &merged,
        "--html",
        "--out",
        rep.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let html = std::fs::read_to_string(rep.join("report.html")).unwrap();
    let runs = html.split("id=\"t-runs\"").nth(1).expect("the table of runs");
    assert_eq!(runs.matches("<tr class=").count(), 24, "one row per cell");
    let charts: Vec<&str> = html.split("<svg class=\"plot\" data-legend=\"").skip(1).collect();
    assert!(
        charts.len() >= 3,
        "overview and per-instance charts: {}",
        charts.len()
    );
    for c in charts {
        let legend = c[..c.find('"').unwrap()].replace("&quot;", "\"");
        let names: Vec<String> = serde_json::from_str(&legend).unwrap();
        let body = &c[..c.find("</svg>").unwrap()];
        for n in &names {
            assert!(
                body.contains(&format!("data-series=\"{n}\"")),
                "legend entry {n} without a point"
            );
        }
    }
}

#[test]
fn slurm_script_is_valid_bash_and_names_the_commands() {
    let d = TempDir::new("bench-slurm");
    let matrix = workspace().join("beem/matrices/quick.toml");
    let script = d.s("quick.sh");
    let o = dvemc(&[
        "bench",
        "slurm",
        matrix.to_str().unwrap(),
        "--shards",
        "4",
        "--jobs",
        "2",
        "--time",
        "01:00:00",
        "--results",
        &d.s("res"),
        "--out",
        &script,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = std::fs::read_to_string(&script).unwrap();
    let bash = Command::new("bash").args(["-n", &script]).output().unwrap();
    assert!(bash.status.success(), "bash -n: {}\n{s}", text(&bash));
    for needle in [
        "#SBATCH --array=1-4",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --time=01:00:00",
        "SHARDS=4",
        "bench run \"$MATRIX\" --jobs \"$JOBS\" --shard \"$1/$SHARDS\" --resume",
        "bench merge",
        "bench report",
        "--dependency=\"afterany:$array\"",
        "SLURM_ARRAY_TASK_ID",
    ] {
        assert!(s.contains(needle), "missing `{needle}` in\n{s}");
    }
    let exe = std::fs::canonicalize(BIN).unwrap();
    assert!(s.contains(&format!("DVEMC={}", exe.display())), "{s}");
    assert!(
        s.contains(&format!(
            "MATRIX={}",
            std::fs::canonicalize(&matrix).unwrap().display()
        )),
        "{s}"
    );
}

#[test]
fn check_regressions_fails_when_a_counter_changes() {
    let d = TempDir::new("bench-regress");
    let matrix = workspace().join("beem/matrices/regressions.toml");
    let baseline = workspace().join("results/baseline/regressions.csv");
    let cur = d.s("current.csv");
    let o = dvemc(&["bench", "run", matrix.to_str().unwrap(), "--out", &cur, "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The committed baseline holds (speed ratios are left to `make
    // check-regressions`: other tests load the machine meanwhile).
    let o = dvemc(&[
        "bench",
        "compare",
        &cur,
        baseline.to_str().unwrap(),
        "--speed-tolerance",
        "0.95",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // One altered counter in a copy of the baseline.
    let mut t = Table::read(&baseline).unwrap();
    let row = t
        .rows
        .iter_mut()
        .find(|r| r.key() == "krebs.3|interp|dfs|")
        .unwrap();
    let states: u64 = row.get("states").parse().unwrap();
    row.set("states", (states + 1).to_string());
    let altered = d.join("altered.csv");
    t.write(&altered).unwrap();
    let o = dvemc(&[
        "bench",
        "compare",
        &cur,
        altered.to_str().unwrap(),
        "--speed-tolerance",
        "0.95",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!(
            "REGRESSION krebs.3|interp|dfs|: states is `{states}` (baseline `{}`)",
            states + 1
        )),
        "{out}"
    );

    // A changed result and a missing cell.
    let mut t = Table::read(&baseline).unwrap();
    t.rows
        .iter_mut()
        .find(|r| r.key() == "phils2|jit|bfs|")
        .unwrap()
        .set("result", "state_limit");
    t.rows.retain(|r| r.key() != "brp.1|interp|dfs|");
    t.write(&altered).unwrap();
    let o = dvemc(&[
        "bench",
        "compare",
        &cur,
        altered.to_str().unwrap(),
        "--speed-tolerance",
        "0.95",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("phils2|jit|bfs|: result is `complete` (baseline `state_limit`)"),
        "{out}"
    );
    assert!(out.contains("brp.1|interp|dfs|: not in the baseline"), "{out}");

    // A jit/interp speed ratio far below the baseline's: the baseline is
    // this very run with the jit three times faster.
    let mut t = Table::read(Path::new(&cur)).unwrap();
    for r in t.rows.iter_mut().filter(|r| r.get("backend") == "jit") {
        let v = r.num("states_per_s").unwrap();
        r.set("states_per_s", (v * 3.0).to_string());
    }
    t.write(&altered).unwrap();
    let o = dvemc(&["bench", "compare", &cur, altered.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("bfs: jit/interp speed ratio") && out.contains("more than 30% below"),
        "{out}"
    );
}

#[test]
fn the_schema_document_lists_every_column_in_order() {
    let doc = std::fs::read_to_string(workspace().join("results/SCHEMA.md")).unwrap();
    let columns = doc
        .split("\n## Columns\n")
        .nth(1)
        .expect("a `## Columns` section");
    let columns = columns.split("\n## ").next().unwrap();
    let documented: Vec<&str> = columns
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` |").map(|(c, _)| c))
        .collect();
    assert_eq!(documented, *COLUMNS);
}

#[test]
fn matrices_in_the_repository_expand() {
    for entry in std::fs::read_dir(workspace().join("beem/matrices")).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let o = dvemc(&["bench", "list", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o));
        let n = String::from_utf8_lossy(&o.stdout).lines().count();
        assert!(n > 0, "{name} has no cells");
    }
}

/// A matrix is found from any working directory: by its path in the
/// clone (`beem/matrices/quick.toml`) or its bare name (`quick`), and the
/// instance files it names relative to itself are found too; a matrix
/// given by an ordinary path names its instances relative to its own file.
#[test]
fn a_matrix_is_found_from_any_directory() {
    let elsewhere = std::env::temp_dir();
    let list = |dir: &Path, matrix: &str| {
        let o = Dvemc::new()
            .args(["bench", "list", matrix])
            .current_dir(dir)
            .env_remove("DVEMC_MATRICES")
            .run();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{matrix} from {}: {}",
            dir.display(),
            text(&o)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let from_clone = list(&workspace(), "beem/matrices/quick.toml");
    for name in ["beem/matrices/quick.toml", "quick", "quick.toml"] {
        let out = list(&elsewhere, name);
        let keys = |t: &str| {
            t.lines()
                .map(|l| l.split('\t').next().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(&out), keys(&from_clone), "{name}");
        // The example models (`../examples/phils2.dve` in the matrix) are
        // files wherever the command was run.
        for line in out.lines().filter(|l| l.contains("/examples/")) {
            let model = line.split_whitespace().find(|w| w.ends_with(".dve")).unwrap();
            assert!(Path::new(model).is_file(), "{name}: {model} from {line}");
        }
    }
    // A matrix of one's own, given relative to the working directory, with
    // a model beside it.
    let own = TempDir::new("matrix-path");
    let dir = own.path();
    std::fs::create_dir_all(dir.join("m")).unwrap();
    std::fs::copy(example("phils2.dve"), dir.join("m/p.dve")).unwrap();
    std::fs::write(
        dir.join("m/own.toml"),
        "strategies = [\"bfs\"]\n[instances]\nnames = [\"p.dve\"]\n",
    )
    .unwrap();
    let out = list(dir, "m/own.toml");
    assert!(out.contains("m/p.dve"), "{out}");
    // A name found nowhere is an error naming where it was looked for.
    let o = Dvemc::new()
        .args(["bench", "list", "no-such-matrix"])
        .current_dir(&elsewhere)
        .run();
    assert_ne!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("matrix no-such-matrix not found") && err.contains("beem/matrices"),
        "{err}"
    );
}

/// A grid value may name the instance's figures: `{depth}` from its stats
/// file, `{states*F}` from instances.csv (rounded up).
#[test]
fn grid_values_take_the_instance_figures() {
    let d = TempDir::new("bench-figures");
    let m = d.write(
        "m.toml",
        r#"
        name = "figures"
        backends = ["interp"]
        [instances]
        names = ["brp2.1", "adding.1"]
        [[strategies]]
        spec = "dbdfs"
        instances = { names = ["brp2.1"] }
        params = { depth_cutoff = "{depth}", increment = 50 }
        [[strategies]]
        spec = "urs"
        instances = { names = ["adding.1"] }
        seeds = [1]
        params = { memory_states = "{states*0.15}", steps = 1000 }
        "#,
    );
    let o = dvemc(&["bench", "list", &m]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // brp2.1: 169 BFS levels in its stats file; adding.1: 7,372 states.
    assert!(
        out.contains("brp2.1|interp|dbdfs --depth-cutoff 168 --increment 50|"),
        "{out}"
    );
    assert!(
        out.contains("adding.1|interp|urs --memory-states 1106 --steps 1000|1"),
        "{out}"
    );
}

/// A paper's tables come from the rows of its matrix: a small run of the
/// randomized-search protocol renders Table 2's cover times and Fig. 5's
/// coverage; a bbmc run renders the witness table.
#[test]
fn paper_tables_from_a_small_run() {
    let d = TempDir::new("bench-papers");
    let m = d.write(
        "m.toml",
        r#"
        name = "small-abed"
        seeds = [1]
        [instances]
        names = ["reader_writer.1"]
        [[strategies]]
        spec = "bfs"
        seeds = []
        [[strategies]]
        spec = "urs"
        params = { memory_states = "{states}", steps = "{states*400}", cover_targets = "60,100", stop_when_covered = true, runs = 3 }
        [[strategies]]
        spec = "random-walk"
        budgets = { time = "0.3s" }
        params = { steps = 1000000000, sample_interval = 0.05 }
        [[strategies]]
        spec = "bbmc"
        params = { breadth = [1, 2, 3, 4, 5, 6], property = 1, runs = 5 }
        "#,
    );
    let out = d.s("out.csv");
    let o = dvemc(&["bench", "run", &m, "--jobs", "2", "--out", &out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rep = d.join("abed");
    let o = dvemc(&[
        "bench",
        "report",
        &out,
        "--paper",
        "abed-random",
        "--out",
        rep.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let md = std::fs::read_to_string(rep.join("README.md")).unwrap();
    assert!(md.contains("| size (states) | | 2666 |"), "{md}");
    assert!(md.contains("| 100 % | URS |"), "{md}");
    assert!(md.contains("### reader_writer.1"), "{md}");
    let csv = std::fs::read_to_string(rep.join("coverage.csv")).unwrap();
    assert!(csv.lines().count() > 2, "{csv}");
    let rep = d.join("meulen");
    let o = dvemc(&[
        "bench",
        "report",
        &out,
        "--paper",
        "meulen-bbmc",
        "--out",
        rep.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let md = std::fs::read_to_string(rep.join("README.md")).unwrap();
    assert!(
        md.contains("| reader_writer.1 #1 | shallow | 8 | 2666 | 12 | 550 |"),
        "{md}"
    );
    assert!(md.contains("| reader_writer.1 #1 | shallow | 550 |"), "{md}");
    let o = dvemc(&["bench", "report", &out, "--paper", "nosuch"]);
    assert_ne!(o.status.code(), Some(0));
}

/// A matrix with `checkpoints = true`: a run interrupted by SIGINT leaves
/// no row but the cell's checkpoint (the runner passes the signal on), and
/// `--resume --retry-failed` goes on from it, pass after pass of time
/// budgets, to the counts of a search run at once, with every part's
/// processor time in the row; the search that ends removes its checkpoint.
#[test]
fn a_checkpointed_cell_goes_on_across_interruptions_and_time_budgets() {
    let d = TempDir::new("bench-checkpoints");
    let m = d.write(
        "m.toml",
        r#"
        name = "parts"
        backends = ["jit"]
        checkpoints = true
        [[strategies]]
        spec = "bfs"
        params = { store = "ctree" }
        [instances]
        names = ["at.4"]
        [budgets]
        time = "2s"
        grace = "60s"
        "#,
    );
    let out = d.s("parts.csv");
    let ckpt = d
        .join("parts.checkpoints")
        .join("at.4_jit_bfs_--store_ctree_.ckpt");
    let child = Dvemc::new()
        .args(["bench", "run", &m, "--jobs", "1", "--out", &out])
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(rows_in(Path::new(&out)), 0, "an interrupted cell is not recorded");
    assert!(ckpt.is_file(), "the child wrote its checkpoint when interrupted");

    let mut passes = 0;
    let row = loop {
        passes += 1;
        assert!(passes <= 30, "at.4 takes a few seconds");
        let o = dvemc(&[
            "bench",
            "run",
            &m,
            "--jobs",
            "1",
            "--resume",
            "--retry-failed",
            "--out",
            &out,
        ]);
        assert!(matches!(o.status.code(), Some(0) | Some(4)), "{}", text(&o));
        let t = Table::read(Path::new(&out)).unwrap();
        assert_eq!(t.rows.len(), 1);
        let r = t.rows[0].clone();
        if r.get("result") == "complete" {
            break r;
        }
        assert_eq!(r.get("result"), "time_limit", "{}", text(&o));
        assert!(ckpt.is_file());
    };
    assert_eq!(
        (
            r_get(&row, "states"),
            r_get(&row, "transitions"),
            r_get(&row, "levels")
        ),
        ("6597245".into(), "25470140".into(), "48".into())
    );
    let extra = row.extra();
    let c = &extra["checkpoint"];
    assert_eq!(c["resumed_parts"].as_u64(), Some(passes), "{c}");
    assert_eq!(c["saved"], false);
    let cpu: f64 = row.get("cpu_s").parse().unwrap();
    assert!(cpu > c["prior_cpu_s"].as_f64().unwrap(), "{cpu} {c}");
    assert!(!ckpt.exists(), "the search that ended removed its checkpoint");
}

fn r_get(r: &Row, c: &str) -> String {
    r.get(c).to_string()
}
