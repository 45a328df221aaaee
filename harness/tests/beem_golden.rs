//! BEEM golden figures: every instance of `instances.csv` marked complete
//! with at most 300,000 states is explored with BFS and with DFS, and every
//! figure BEEM published for it must come out exactly: the state count, and
//! where `stats/` has the instance, the edges, the states and edges of every
//! BFS level, the back-level edges and DFS's maximum stack and front, back
//! and cross edges. The state vector size must equal `state_size_bytes` for
//! every row of `instances.csv`.

use dve_frontend::interp::Interpreter;
use dvemc_run::model::beem::Beem;
use dvemc_run::run::exhaustive::{explore, ExploreOptions, Traversal};
use std::sync::Mutex;

mod common;
use common::beem;

const MAX_STATES: u64 = 300_000;

fn check_instance(beem: &Beem, name: &str, expected_states: u64) -> Vec<String> {
    let mut problems = Vec::new();
    let model = match dve_frontend::load_file(&beem.model_path(name)) {
        Ok(m) => m,
        Err(e) => return vec![format!("{name}: does not load: {e}")],
    };
    let interp = Interpreter::new(model);
    let stats = beem
        .stats(name)
        .unwrap_or_else(|e| panic!("{name}: bad stats file: {e}"));
    let bfs_opts = ExploreOptions {
        traversal: Traversal::Bfs,
        level_table: true,
        ..Default::default()
    };
    let bfs = explore(&interp, &bfs_opts);
    let dfs = explore(
        &interp,
        &ExploreOptions {
            traversal: Traversal::Dfs,
            ..Default::default()
        },
    );
    for (r, what) in [(&bfs, "bfs"), (&dfs, "dfs")] {
        if !r.core.result.is_complete() {
            problems.push(format!("{name} {what}: ended {}", r.core.result));
        }
        if r.core.states != expected_states {
            problems.push(format!(
                "{name} {what}: {} states, BEEM {}",
                r.core.states, expected_states
            ));
        }
        if let Some(st) = &stats {
            if r.core.transitions != st.edges {
                problems.push(format!(
                    "{name} {what}: {} transitions, BEEM {}",
                    r.core.transitions, st.edges
                ));
            }
        }
    }
    if bfs.core.transitions != dfs.core.transitions || bfs.core.deadlocks != dfs.core.deadlocks {
        problems.push(format!(
            "{name}: BFS and DFS disagree on transitions or deadlocks"
        ));
    }
    if let Some(st) = stats {
        if bfs.bfs.as_ref().and_then(|g| g.levels) != Some(st.levels) {
            problems.push(format!(
                "{name}: {:?} BFS levels, BEEM {}",
                bfs.bfs.as_ref().and_then(|g| g.levels),
                st.levels
            ));
        }
        let table = bfs.details.level_table.as_deref().unwrap_or(&[]);
        let ours: Vec<(u64, u64)> = table.iter().map(|l| (l.states, l.edges)).collect();
        let theirs: Vec<(u64, u64)> = st.bfs_levels.iter().map(|l| (l.states, l.edges)).collect();
        if ours != theirs {
            problems.push(format!("{name}: BFS level profile differs from BEEM's"));
        }
        if bfs.bfs.as_ref().and_then(|g| g.back_level_edges) != Some(st.back_level_edges) {
            problems.push(format!(
                "{name}: {:?} back-level edges, BEEM {}",
                bfs.bfs.as_ref().and_then(|g| g.back_level_edges),
                st.back_level_edges
            ));
        }
        if let (Some(expected), Some(got)) = (st.dfs, dfs.dfs_stats()) {
            if expected != got {
                problems.push(format!("{name}: DFS statistics {got:?}, BEEM {expected:?}"));
            }
        }
    }
    problems
}

#[test]
fn complete_instances_up_to_300k_states_match_beem() {
    let beem = beem();
    let rows = beem.instances().expect("instances.csv");
    let mut todo: Vec<(String, u64)> = rows
        .iter()
        .filter(|r| r.complete)
        .filter_map(|r| {
            r.states
                .filter(|&s| s <= MAX_STATES)
                .map(|s| (r.instance.clone(), s))
        })
        .collect();
    assert!(
        todo.len() >= 100,
        "expected over 100 instances, found {}",
        todo.len()
    );
    // Workers pop from the end: largest first, so the two finish together.
    todo.sort_by_key(|(_, s)| *s);
    let with_stats = todo.iter().filter(|(n, _)| beem.stats_path(n).exists()).count();
    let queue = Mutex::new(todo.clone());
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let next = queue.lock().unwrap().pop();
                let Some((name, states)) = next else { break };
                let p = check_instance(&beem, &name, states);
                problems.lock().unwrap().extend(p);
            });
        }
    });
    let problems = problems.into_inner().unwrap();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!(
        "{} instances ({} with stats files) match BEEM",
        todo.len(),
        with_stats
    );
}

#[test]
fn state_vector_size_matches_every_instance_row() {
    let beem = beem();
    let rows = beem.instances().expect("instances.csv");
    let mut problems = Vec::new();
    for r in &rows {
        let Some(expected) = r.state_size_bytes else {
            continue;
        };
        match dve_frontend::load_file(&beem.model_path(&r.instance)) {
            Ok(m) if m.state_len as u32 == expected => {}
            Ok(m) => problems.push(format!(
                "{}: {} bytes, BEEM {}",
                r.instance, m.state_len, expected
            )),
            Err(e) => problems.push(format!("{}: {e}", r.instance)),
        }
    }
    assert_eq!(rows.len(), 237);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
