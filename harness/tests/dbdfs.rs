//! Iterative depth-bounded DFS (`dvemc_run::algo::dbdfs`, after Udupa, Desai and
//! Rajamani): the sound variants explore exactly the states within the
//! bound and return exactly the BFS level of the bound as frontier, with
//! every frontier representation, on BEEM instances and on random graphs;
//! the naive unsound variant misses s5 on the paper's Fig. 4.

use std::time::Duration;

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf};
use dvemc_run::algo::dbdfs::{self, FrontierKind, Options, Run, Variant};
use dvemc_run::engine::store::StateStore;
use dvemc_run::engine::{Store, StoreKind};
use dvemc_run::run::exhaustive::{Limits, Outcome};

mod common;
use common::dvemc::{dvemc, example, exit_code, json, stdout};
use common::{beem, example_model, Graph};

const SOUND: [Variant; 2] = [Variant::NaiveSound, Variant::Threshold];

/// A breadth-first search: the store (ids in BFS order) and the first id of
/// every level (plus the end).
struct Levels {
    store: StateStore,
    starts: Vec<u32>,
}

impl Levels {
    fn of(model: &dyn NextState) -> Levels {
        let n = model.state_len();
        let mut store = StateStore::new(n);
        let mut buf = SuccBuf::new(n);
        let init = model.initial_vec();
        store.insert(&init, model.fingerprint(&init));
        let mut starts = vec![0u32];
        let mut next = 0usize;
        while next < store.len() {
            let end = store.len();
            starts.push(end as u32);
            while next < end {
                let s = store.get(next as u32).to_vec();
                model.successors(&s, &mut buf);
                for i in 0..buf.len() {
                    let t = buf.state(i);
                    store.insert(t, model.fingerprint(t));
                }
                next += 1;
            }
        }
        // `starts` ends with the end of the last level.
        Levels { store, starts }
    }

    /// Number of levels (the last is non-empty).
    fn depth(&self) -> u32 {
        self.starts.len() as u32 - 1
    }

    fn level_of(&self, model: &dyn NextState, state: &[u8]) -> Option<u32> {
        let id = self.store.find(state, model.fingerprint(state))?;
        Some(self.starts.partition_point(|&s| s <= id) as u32 - 1)
    }

    /// States with level <= d.
    fn within(&self, d: u32) -> usize {
        self.starts[(d as usize + 1).min(self.starts.len() - 1)] as usize
    }

    /// Size of level d.
    fn level_len(&self, d: u32) -> usize {
        let d = d as usize;
        if d + 1 >= self.starts.len() {
            0
        } else {
            (self.starts[d + 1] - self.starts[d]) as usize
        }
    }
}

fn opts(cutoff: u32, inc: u32, variant: Variant, frontier: FrontierKind) -> Options {
    Options {
        depth_cutoff: Some(cutoff),
        increment: inc,
        variant,
        frontier,
        limits: Limits::default(),
        meter: None,
        record_frontiers: true,
        verify_rebuild: true,
        store: StoreKind::Exact,
    }
}

/// The bounds of the iterations of a search with this cutoff and increment.
fn bounds(cutoff: u32, inc: u32) -> Vec<u32> {
    let mut v = Vec::new();
    let mut b = inc.min(cutoff);
    loop {
        v.push(b);
        if b >= cutoff {
            return v;
        }
        b = (b + inc).min(cutoff);
    }
}

/// Checks a sound run against BFS: the states are those at distance at
/// most the cutoff, and every iteration's frontier is the BFS level of its
/// bound.
fn check_sound(what: &str, model: &dyn NextState, lv: &Levels, run: &Run, cutoff: u32, inc: u32) {
    let r = &run.report;
    assert_eq!(r.result, Outcome::Complete, "{what}");
    assert_eq!(
        run.rebuild_mismatches, 0,
        "{what}: rebuilt frontier states differ"
    );
    let all = bounds(cutoff, inc);
    // Iterations stop at the first empty frontier.
    let expected_iters = all
        .iter()
        .position(|&b| lv.level_len(b) == 0)
        .map_or(all.len(), |p| p + 1);
    assert_eq!(run.frontiers.len(), expected_iters, "{what}: iterations");
    let last = all[expected_iters - 1];
    assert_eq!(r.max_depth_explored, last, "{what}: max depth explored");
    assert_eq!(
        r.state_space_exhausted,
        lv.level_len(last) == 0,
        "{what}: exhausted"
    );
    // States: exactly those within the last bound.
    assert_eq!(
        run.store.len(),
        lv.within(last),
        "{what}: number of states within {last}"
    );
    assert_eq!(r.states as usize, run.store.len(), "{what}");
    for id in 0..run.store.len() as u32 {
        let s = run.store.get(id);
        match lv.level_of(model, s) {
            Some(l) => assert!(l <= last, "{what}: state at level {l} beyond bound {last}"),
            None => panic!("{what}: explored an unreachable state"),
        }
    }
    // Frontiers: exactly the BFS level of each bound.
    for (j, f) in run.frontiers.iter().enumerate() {
        let b = all[j];
        assert_eq!(f.len(), lv.level_len(b), "{what}: frontier size at bound {b}");
        assert_eq!(r.frontier_sizes[j] as usize, f.len(), "{what}");
        let mut ids = f.clone();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(
            ids.len(),
            f.len(),
            "{what}: duplicate frontier entries at bound {b}"
        );
        for &id in f {
            assert_eq!(
                lv.level_of(model, run.store.get(id)),
                Some(b),
                "{what}: frontier state not at BFS level {b}"
            );
        }
    }
}

fn beem_model(name: &str) -> Interpreter {
    let ir = dve_frontend::load_file(&beem().model_path(name)).expect("BEEM model loads");
    Interpreter::new(ir)
}

fn check_beem(name: &str, cases: &[(u32, u32)]) {
    let model = beem_model(name);
    let lv = Levels::of(&model);
    for &(cutoff, inc) in cases {
        for variant in SOUND {
            for frontier in FrontierKind::ALL {
                let run = dbdfs::run(&model, &opts(cutoff, inc, variant, frontier));
                let what = format!("{name} cutoff {cutoff} inc {inc} {variant} {frontier}");
                check_sound(&what, &model, &lv, &run, cutoff, inc);
            }
        }
    }
}

#[test]
fn adding_1_sound_variants_match_bfs_levels() {
    // 31 BFS levels: bounds below, at and beyond the depth.
    check_beem("adding.1", &[(30, 1), (30, 7), (12, 4), (40, 40), (100, 10)]);
}

#[test]
fn phils_2_sound_variants_match_bfs_levels() {
    check_beem("phils.2", &[(12, 1), (12, 5), (20, 20), (13, 3)]);
}

#[test]
fn anderson_1_sound_variants_match_bfs_levels() {
    check_beem("anderson.1", &[(9, 1), (12, 4), (14, 14)]);
}

#[test]
fn at_1_sound_variants_match_bfs_levels() {
    check_beem("at.1", &[(37, 3), (20, 20), (50, 10)]);
}

// ---- The paper's Fig. 4 -------------------------------------------------

fn fig4() -> Interpreter {
    example_model("fig4.dve")
}

/// The control state (`s1` .. `s5`) of a state of fig4.dve.
fn fig4_name(model: &Interpreter, state: &[u8]) -> String {
    let info = model.info();
    info.processes[0].states[info.control_state(0, state) as usize].clone()
}

fn names(model: &Interpreter, run: &Run, ids: &[u32]) -> Vec<String> {
    let mut v: Vec<String> = ids
        .iter()
        .map(|&id| fig4_name(model, run.store.get(id)))
        .collect();
    v.sort();
    v
}

fn all_names(model: &Interpreter, run: &Run) -> Vec<String> {
    let ids: Vec<u32> = (0..run.store.len() as u32).collect();
    names(model, run, &ids)
}

#[test]
fn fig4_naive_unsound_misses_s5() {
    let model = fig4();
    let lv = Levels::of(&model);
    assert_eq!(lv.depth(), 4, "levels {{s1}} {{s2, s3}} {{s4}} {{s5}}");
    for frontier in FrontierKind::ALL {
        // Depth bound 3: s5 is reachable in three steps (e3 e4 e5) ...
        let run = dbdfs::run(&model, &opts(3, 3, Variant::NaiveUnsound, frontier));
        // ... but Fig. 3 explores s3 only at depth 2 (after e1 e2), puts s4
        // into the frontier at depth 3, and skips s3 when e3 reaches it again.
        assert_eq!(all_names(&model, &run), ["s1", "s2", "s3", "s4"], "{frontier}");
        assert_eq!(names(&model, &run, &run.frontiers[0]), ["s4"], "{frontier}");
        assert_eq!(run.report.revisits, 0);

        // The sound variants revisit s3 at depth 1 and find s5; the frontier
        // at bound 3 is {s5}.
        for variant in SOUND {
            let run = dbdfs::run(&model, &opts(3, 3, variant, frontier));
            assert_eq!(
                all_names(&model, &run),
                ["s1", "s2", "s3", "s4", "s5"],
                "{variant} {frontier}"
            );
            assert_eq!(
                names(&model, &run, &run.frontiers[0]),
                ["s5"],
                "{variant} {frontier}"
            );
            assert_eq!(run.report.revisits, 1, "{variant} {frontier}: s3 revisited once");
            check_sound(&format!("fig4 {variant} {frontier}"), &model, &lv, &run, 3, 3);
        }
    }
}

// ---- Random graphs --------------------------------------------------------

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_graph(rng: &mut Rng) -> Graph {
    let nodes = 2 + rng.below(40) as usize;
    let max_deg = 1 + rng.below(4);
    let succ = (0..nodes)
        .map(|i| {
            let deg = rng.below(max_deg + 1);
            (0..deg)
                .map(|_| {
                    // Mostly forward edges (deep graphs), some back edges,
                    // self-loops and duplicates.
                    if rng.below(3) == 0 {
                        rng.below(nodes as u64) as u32
                    } else {
                        (i as u64 + 1 + rng.below(3)).min(nodes as u64 - 1) as u32
                    }
                })
                .collect()
        })
        .collect();
    Graph::new("random", succ)
}

#[test]
fn sound_variants_match_bfs_on_random_graphs() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut unsound_misses = 0;
    for g in 0..600 {
        let graph = random_graph(&mut rng);
        let lv = Levels::of(&graph);
        let depth = lv.depth();
        for (cutoff, inc) in [
            (depth + 1, depth + 1),
            (depth, 1),
            (depth + 2, 3),
            (depth / 2 + 1, 2),
        ] {
            for variant in SOUND {
                for frontier in FrontierKind::ALL {
                    let run = dbdfs::run(&graph, &opts(cutoff, inc, variant, frontier));
                    let what = format!(
                        "graph {g} {:?} cutoff {cutoff} inc {inc} {variant} {frontier}",
                        graph.succ
                    );
                    check_sound(&what, &graph, &lv, &run, cutoff, inc);
                }
            }
            let run = dbdfs::run(
                &graph,
                &opts(cutoff, inc, Variant::NaiveUnsound, FrontierKind::States),
            );
            assert!(run.store.len() <= lv.within(cutoff));
            if run.store.len() < lv.within(cutoff) {
                unsound_misses += 1;
            }
        }
    }
    // The generator does produce graphs on which Fig. 3 is unsound.
    assert!(unsound_misses > 0);
}

/// Thresholds cut revisits: on the same search order the threshold variant
/// never explores more than the naive sound one on these graphs, and on some
/// it explores fewer.
#[test]
fn thresholds_reduce_revisits_on_random_graphs() {
    let mut rng = Rng(42);
    let (mut naive, mut thr) = (0u64, 0u64);
    for _ in 0..300 {
        let graph = random_graph(&mut rng);
        let depth = Levels::of(&graph).depth();
        let o = |v| opts(depth + 1, depth + 1, v, FrontierKind::States);
        naive += dbdfs::run(&graph, &o(Variant::NaiveSound)).report.revisits;
        thr += dbdfs::run(&graph, &o(Variant::Threshold)).report.revisits;
    }
    assert!(thr < naive, "threshold {thr} naive {naive}");
}

// ---- Budgets, frontier representations and the command line --------------

#[test]
fn budgets_end_the_run_cleanly() {
    let model = beem_model("at.1");
    for frontier in FrontierKind::ALL {
        let mut o = opts(1000, 5, Variant::Threshold, frontier);
        o.limits.max_states = Some(1000);
        let r = dbdfs::run(&model, &o).report;
        assert_eq!(r.result, Outcome::StateLimit);
        assert_eq!(r.states, 1000);
        assert!(!r.state_space_exhausted);
        assert!(r.iterations.last().is_some_and(|i| !i.finished));
        assert_eq!(r.frontier_sizes.len() + 1, r.iterations.len());
        assert_eq!(r.max_depth_explored, 5 * r.frontier_sizes.len() as u32);

        let mut o = opts(1000, 5, Variant::Threshold, frontier);
        o.limits.time = Some(Duration::ZERO);
        let r = dbdfs::run(&model, &o).report;
        assert_eq!(r.result, Outcome::TimeLimit);
    }
}

#[test]
fn frontier_representations_agree_and_the_tree_replays_less() {
    // adding.1 with increment 1: 31 iterations; the tree replays only below
    // the common ancestor.
    let model = beem_model("adding.1");
    let mut steps = Vec::new();
    for frontier in FrontierKind::ALL {
        let mut o = opts(1000, 1, Variant::Threshold, frontier);
        o.record_frontiers = false;
        let r = dbdfs::run(&model, &o).report;
        assert!(r.state_space_exhausted);
        assert_eq!(r.states, 7372);
        steps.push((r.frontier_sizes.clone(), r.revisits, r.replay_steps));
    }
    assert_eq!(steps[0].0, steps[1].0);
    assert_eq!(steps[0].0, steps[2].0);
    assert_eq!(steps[0].1, steps[2].1);
    assert_eq!(steps[0].2, 0, "states: nothing to replay");
    assert!(
        steps[2].2 > 0 && steps[2].2 < steps[1].2,
        "tree {} traces {}",
        steps[2].2,
        steps[1].2
    );
}

#[test]
fn command_line_json() {
    let fig4 = example("fig4.dve");
    let fig4 = fig4.as_str();
    for (variant, states) in [("naive-unsound", 4), ("naive-sound", 5), ("threshold", 5)] {
        for frontier in ["states", "traces", "tree"] {
            let o = dvemc(&[
                "explore",
                fig4,
                "--strategy",
                "dbdfs",
                "--depth-cutoff",
                "3",
                "--increment",
                "3",
                "--dbdfs",
                variant,
                "--frontier",
                frontier,
                "--json",
            ]);
            let (code, out) = (exit_code(&o), stdout(&o));
            assert_eq!(code, 0, "{out}");
            let v = json(&o);
            assert_eq!(v["states"], states);
            assert_eq!(v["result"], "complete");
            assert_eq!(v["strategy"], "dbdfs");
            assert_eq!(v["dbdfs"], variant);
            assert_eq!(v["frontier"], frontier);
            assert_eq!(v["max_depth"], 3);
            assert_eq!(v["frontier_sizes"], serde_json::json!([1]));
            for key in [
                "revisits",
                "get_state_time_s",
                "replay_steps",
                "peak_rss_bytes",
                "time_s",
            ] {
                assert!(v[key].is_number(), "{key} in {out}");
            }
        }
    }
    // Without a cutoff the search runs until the frontier is empty, in
    // either store (the record names it; the tree store's bytes show it was
    // the one searched in).
    let mut bytes = Vec::new();
    for store in ["exact", "tree"] {
        let o = dvemc(&[
            "explore",
            fig4,
            "--strategy",
            "dbdfs",
            "--increment",
            "2",
            "--store",
            store,
            "--json",
        ]);
        let (code, out) = (exit_code(&o), stdout(&o));
        assert_eq!(code, 0, "{out}");
        let v = json(&o);
        assert_eq!(v["states"], 5);
        assert_eq!(v["state_space_exhausted"], true);
        assert_eq!(v["frontier_sizes"], serde_json::json!([1, 0]));
        assert_eq!(v["store"], store);
        let config = v["config"].as_str().unwrap_or_default();
        assert_eq!(config.contains("--store tree"), store == "tree", "{config}");
        bytes.push(v["store_bytes"].clone());
    }
    assert_ne!(bytes[0], bytes[1], "store bytes, exact and tree");
    // A budget: exit code 4.
    let o = dvemc(&[
        "explore",
        fig4,
        "--strategy",
        "dbdfs",
        "--max-states",
        "2",
        "--json",
    ]);
    let code = exit_code(&o);
    assert_eq!(code, 4);
    let v = json(&o);
    assert_eq!(v["result"], "state_limit");
    // Human output and usage errors.
    let o = dvemc(&["explore", fig4, "--strategy", "dbdfs", "--increment", "1"]);
    let (code, out) = (exit_code(&o), stdout(&o));
    assert_eq!(code, 0);
    assert!(
        out.contains("revisits:") && out.contains("frontier sizes:       2 1 1 0"),
        "{out}"
    );
    assert_eq!(exit_code(&dvemc(&["explore", fig4, "--increment", "3"])), 2);
    assert_eq!(
        exit_code(&dvemc(&[
            "explore",
            fig4,
            "--strategy",
            "dbdfs",
            "--dbdfs",
            "nope"
        ])),
        2
    );
    assert_eq!(
        exit_code(&dvemc(&[
            "explore",
            fig4,
            "--strategy",
            "dbdfs",
            "--increment",
            "0"
        ])),
        2
    );
    // Stores without numbered states, or without the states, are refused.
    for store in ["ctree", "compact", "bitstate"] {
        let o = dvemc(&["explore", fig4, "--strategy", "dbdfs", "--store", store, "--json"]);
        let (code, out) = (exit_code(&o), stdout(&o));
        assert_eq!(code, 2, "--store {store}: {out}");
        assert!(out.contains("takes --store exact or tree"), "{out}");
    }
}

/// The tree store in place of the exact one changes nothing the search
/// reports: the same counters and frontiers, and the same state under each
/// id (both number states in the order they are first stored), for every
/// variant and frontier representation, cutoffs below and beyond the depth.
#[test]
fn the_tree_store_gives_the_same_search() {
    for name in ["adding.1", "at.1", "phils.2"] {
        let model = beem_model(name);
        for (cutoff, inc) in [(12, 4), (1000, 7)] {
            for variant in Variant::ALL {
                for frontier in FrontierKind::ALL {
                    let o = opts(cutoff, inc, variant, frontier);
                    let what = format!("{name} cutoff {cutoff} inc {inc} {variant} {frontier}");
                    let exact = dbdfs::run(&model, &o);
                    let tree = dbdfs::run_in(&model, &o, |b| {
                        dvemc_run::engine::store::tree::leaf_order::tree_store_for(&model, b)
                    });
                    let (a, b) = (&exact.report, &tree.report);
                    assert_eq!(a.result, b.result, "{what}");
                    assert_eq!(
                        (a.states, a.expansions, a.revisits, a.transitions, a.replay_steps),
                        (b.states, b.expansions, b.revisits, b.transitions, b.replay_steps),
                        "{what}: states, expansions, revisits, transitions, replay steps"
                    );
                    assert_eq!(a.frontier_sizes, b.frontier_sizes, "{what}");
                    assert_eq!(exact.frontiers, tree.frontiers, "{what}");
                    assert_eq!(tree.rebuild_mismatches, 0, "{what}");
                    let mut scratch = Vec::new();
                    for id in 0..exact.store.len() as u32 {
                        assert_eq!(
                            exact.store.get(id),
                            tree.store.state(id, &mut scratch),
                            "{what}: state {id}"
                        );
                    }
                }
            }
        }
    }
}
