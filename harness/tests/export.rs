//! `dvemc explore --export FILE`: the state space of bfs and dfs (one
//! thread or several) as Aldebaran `.aut` or Graphviz DOT, compared with
//! the search's own counters.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;
use common::dvemc::{stderr, Dvemc, TempDir};

/// `dvemc args` in the repository's root (models are named from it).
fn at_root(args: &[&str]) -> std::process::Output {
    Dvemc::new().args(args).in_workspace().run()
}

/// An `.aut` file read: the header's (initial, transitions, states) and
/// the transitions.
/// A transition of an `.aut` file: (from, label, to).
type AutEdge = (u64, String, u64);

fn read_aut(path: &Path) -> ((u64, u64, u64), Vec<AutEdge>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines.next().expect("a header");
    let nums: Vec<u64> = header
        .strip_prefix("des (")
        .and_then(|h| h.strip_suffix(')'))
        .unwrap_or_else(|| panic!("header {header}"))
        .split(", ")
        .map(|n| n.parse().unwrap())
        .collect();
    let edges = lines
        .map(|l| {
            let inner = l.strip_prefix('(').and_then(|l| l.strip_suffix(')')).expect(l);
            let (from, rest) = inner.split_once(", \"").expect(l);
            let (label, to) = rest.rsplit_once("\", ").expect(l);
            (from.parse().unwrap(), label.to_string(), to.parse().unwrap())
        })
        .collect();
    ((nums[0], nums[1], nums[2]), edges)
}

/// lann.2 (BEEM: 12,784 states), bfs and dfs on one thread and two: the
/// header has the search's states and transitions, every line is a
/// transition between dense state numbers, every state is reached from 0,
/// and the labels (a multiset) are the same whatever the numbering.
#[test]
fn aut_of_lann_2_has_the_search_counts() {
    let dir = TempDir::new("export-lann");
    let mut labels_seen: Option<BTreeMap<String, usize>> = None;
    for strategy in ["bfs", "dfs"] {
        for threads in ["1", "2"] {
            let aut = dir.join(format!("{strategy}-{threads}.aut"));
            let o = at_root(&[
                "explore",
                "lann.2",
                "--strategy",
                strategy,
                "--threads",
                threads,
                "--json",
                "--export",
                aut.to_str().unwrap(),
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            let rec: Value = serde_json::from_slice(&o.stdout).expect("the record");
            let (states, transitions) = (
                rec["states"].as_u64().unwrap(),
                rec["transitions"].as_u64().unwrap(),
            );
            assert_eq!(states, 12_784, "BEEM's count");
            let ((initial, t, s), edges) = read_aut(&aut);
            assert_eq!((initial, t, s), (0, transitions, states), "{strategy} {threads}");
            assert_eq!(edges.len() as u64, transitions);
            let mut reached = vec![false; states as usize];
            reached[0] = true;
            let mut succ = vec![Vec::new(); states as usize];
            for (from, _, to) in &edges {
                assert!(*from < states && *to < states);
                succ[*from as usize].push(*to);
            }
            let mut stack = vec![0u64];
            while let Some(v) = stack.pop() {
                for &w in &succ[v as usize] {
                    if !reached[w as usize] {
                        reached[w as usize] = true;
                        stack.push(w);
                    }
                }
            }
            assert!(
                reached.iter().all(|&r| r),
                "{strategy} {threads}: a state not reached from 0"
            );
            let mut labels = BTreeMap::new();
            for (_, label, _) in &edges {
                assert!(label.contains(": ") && label.contains(" -> "), "{label}");
                *labels.entry(label.clone()).or_insert(0) += 1;
            }
            match &labels_seen {
                None => labels_seen = Some(labels),
                Some(first) => assert_eq!(&labels, first, "{strategy} {threads}"),
            }
            assert!(stderr(&o).contains(&format!(
                "--export: wrote {states} states and {transitions} transitions to {}",
                aut.display()
            )));
        }
    }
}

/// The built-in example as DOT: one node a state, one edge a transition,
/// states labelled when asked; Graphviz reads it.
#[test]
fn dot_of_the_built_in_example_opens_with_dot() {
    let dir = TempDir::new("export-dot");
    let dot = dir.join("phils.dot");
    let o = at_root(&[
        "explore",
        "--json",
        "--export",
        dot.to_str().unwrap(),
        "--export-state-labels",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rec: Value = serde_json::from_slice(&o.stdout).expect("the record");
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph lts {\n"), "{text}");
    let edges = text
        .lines()
        .filter(|l| l.contains(" -> ") && l.contains("[label="))
        .count();
    assert_eq!(edges as u64, rec["transitions"].as_u64().unwrap());
    let labelled = text
        .lines()
        .filter(|l| l.contains("[label=\"") && !l.contains(" -> "))
        .count();
    assert_eq!(labelled as u64, rec["states"].as_u64().unwrap());
    assert!(
        text.contains(
            "0 [label=\"0\\nfork1=0, fork2=0, Philosopher1=think, Philosopher2=think\", style=bold];"
        ),
        "{text}"
    );
    // The deadlock is a box.
    assert_eq!(
        text.matches("shape=box").count() as u64,
        rec["deadlocks"].as_u64().unwrap()
    );
    // Without labels, states are bare numbers.
    let plain = dir.join("plain.dot");
    let o = at_root(&["explore", "--export", plain.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!std::fs::read_to_string(&plain).unwrap().contains("fork1="));
    let has_dot = Command::new("dot").arg("-V").output().is_ok();
    if has_dot {
        for f in [&dot, &plain] {
            let svg = Command::new("dot").arg("-Tsvg").arg(f).output().unwrap();
            assert!(svg.status.success(), "{}", String::from_utf8_lossy(&svg.stderr));
            assert!(String::from_utf8_lossy(&svg.stdout).contains("<svg"));
        }
    }
}

/// Nothing is written when the search did not see every state: a budget
/// (--max-states) or a violation stopped it; each says why.
#[test]
fn nothing_written_from_a_partial_search() {
    let dir = TempDir::new("export-partial");
    let aut = dir.join("x.aut");
    let path = aut.to_str().unwrap();
    let o = at_root(&["explore", "lann.2", "--max-states", "1000", "--export", path]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--export: nothing written to"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("stopped before its end"), "{}", stderr(&o));
    assert!(!aut.exists());
    let o = at_root(&["explore", "--check", "deadlock", "--export", path]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("stopped at a violation"), "{}", stderr(&o));
    assert!(!aut.exists());
    // --all-violations sees every state: the file is written.
    let o = at_root(&[
        "explore",
        "--check",
        "deadlock",
        "--all-violations",
        "--json",
        "--export",
        path,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rec: Value = serde_json::from_slice(&o.stdout).expect("the record");
    let ((_, t, s), _) = read_aut(&aut);
    assert_eq!(
        (t, s),
        (
            rec["transitions"].as_u64().unwrap(),
            rec["states"].as_u64().unwrap()
        )
    );
}

#[test]
fn bad_export_options_are_usage_errors() {
    let dir = TempDir::new("export-bad");
    let txt = dir.join("x.txt");
    let aut = dir.join("x.aut");
    let aut = aut.to_str().unwrap();
    for (args, says) in [
        (vec!["explore", "--export", txt.to_str().unwrap()], "--export"),
        (vec!["explore", "--export", aut, "--store", "tree"], "--store"),
        (vec!["explore", "--export", aut, "--por"], "--por"),
        (
            vec!["explore", "--export", aut, "--ltl", "F Philosopher1.eat"],
            "--ltl",
        ),
        (
            vec![
                "explore",
                "--export",
                aut,
                "--strategy",
                "urs",
                "--memory-states",
                "5",
            ],
            "--export",
        ),
        (vec!["explore", "--export-state-labels"], "--export"),
    ] {
        let o = at_root(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    assert!(!Path::new(aut).exists());
    // The old name is the same option.
    let o = at_root(&["explore", "--json", "--export-lts", aut]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rec: Value = serde_json::from_slice(&o.stdout).expect("the record");
    let ((_, t, s), _) = read_aut(Path::new(aut));
    assert_eq!(
        (t, s),
        (
            rec["transitions"].as_u64().unwrap(),
            rec["states"].as_u64().unwrap()
        )
    );
}
