//! The table of `explore`'s strategy options: each declared once, with
//! the strategies that take it ([`Takers`]), its help and heading, how a
//! value sets the [`Params`] and how the configuration text shows it
//! again. The command line's arguments, the registry (`dvemc
//! strategies`) and the `config` of the record all come from it.
//!
//! The order is the registry's and the configuration text's; the command
//! line places the arguments itself (`harness/src/explore.rs`).

use super::heading;
use super::values::{factor, fraction, level, parse_threads, percent, seconds};
use super::{ArgInfo, OptionInfo, Set, Shown, Takers};
use crate::engine::StoreKind;
use crate::run::strategy::{parse_count, parse_depth, parse_positive};

pub(crate) const CACHING: &[&str] = &["bfs", "dfs", "bbfs", "alt"];
pub(crate) const SWEEP: &[&str] = &["bfs", "dfs"];
/// Partial-order reduction: the exhaustive searches.
pub(crate) const REDUCED: &[&str] = &["bfs", "dfs"];
pub(crate) const SEEDED: &[&str] = &[
    "bfs",
    "dfs",
    "bbfs",
    "alt",
    "highway",
    "bbmc",
    "urs",
    "sdrs",
    "rurs",
    "rsdrs",
    "random-walk",
];
pub(crate) const DBDFS: &[&str] = &["dbdfs"];
pub(crate) const SLICES: &[&str] = &["highway", "bbmc"];
pub(crate) const REPEATED: &[&str] = &["highway", "bbmc", "urs", "sdrs", "rurs", "rsdrs", "random-walk"];
pub(crate) const MEMORY_BOUNDED: &[&str] = &["urs", "sdrs", "rurs", "rsdrs"];
pub(crate) const STEPPED: &[&str] = &["urs", "sdrs", "rurs", "rsdrs", "random-walk"];
pub(crate) const SAMPLED: &[&str] = &["bfs", "dfs", "urs", "sdrs", "rurs", "rsdrs", "random-walk"];
pub(crate) const PROPERTIES: &[&str] = &[
    "bfs",
    "dfs",
    "highway",
    "bbmc",
    "urs",
    "sdrs",
    "rurs",
    "rsdrs",
    "random-walk",
];

/// The strategies that search a product with a property process for
/// accepting cycles.
pub(crate) const LTL: &[&str] = &["bfs", "dfs", "bbmc"];

/// Every strategy option of `explore` (budgets and general options apply to
/// every strategy and are not listed). Every strategy runs on one thread
/// (`--threads`); the families' checks say which take more.
pub const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        flag: "store",
        takers: Takers::Only(&["bfs", "dfs", "dbdfs"]),
        arg: Some(ArgInfo {
            value_name: Some("NAME"),
            help: "Visited set: exact, tree, ctree, compact[:BITS], bitstate[:LOG2M[,K]]",
            more: Some(
                "exact: every state whole [default]. tree: exact, tree-compressed: long state \
                vectors that share parts cost a fraction of their length. ctree (bfs only): \
                exact, the tree with its roots in a compact set, the fewest bytes per state; \
                its states have no number, so back-level edges are not counted. compact[:BITS] \
                (bfs only): hash compaction, a BITS-bit fingerprint per state (64 by default), \
                probabilistic: states may be omitted; the result is `probabilistic` with \
                `expected_omissions`. bitstate[:LOG2M[,K]] (bfs only): probabilistic, 2^LOG2M \
                bits, K set per state (default 2^30 bits, 3). dbdfs takes exact or tree.",
            ),
            heading: heading::STORE,
            set: Set::Value(|p, s| {
                p.store = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| {
            p.store
                .filter(|s| *s != StoreKind::Exact)
                .map(|s| Shown::Value(s.to_string()))
        }),
    },
    OptionInfo {
        flag: "threads",
        takers: Takers::All,
        arg: Some(ArgInfo {
            value_name: Some("N"),
            help: "Threads (bfs, dfs, LTL) [default: bfs --store exact: all cores; else 1]",
            more: Some(
                "bfs is level-synchronous over a shared exact or tree store (the same states, \
                transitions, levels and deadlocks as one thread); dfs keeps a stack per thread \
                over the shared store, in a depth-first-like order (the same states, \
                transitions and deadlocks, no edge classes). Their checks of deadlocks, \
                assertions, goals and run-time errors run on every thread (bfs: a shortest \
                counterexample, as with one thread; dfs: a path of the search); accepting \
                cycles (--ltl, --property) by CNDFS, a nested DFS on every thread over shared \
                colours (the same verdict; states, transitions and deadlocks as one thread \
                when the property holds). 1: the sequential search. Without --threads, bfs in \
                the exact store without a property process takes every core, or the \
                environment's DVEMC_THREADS; otherwise 1 (the shared tree store takes about \
                twice the sequential one's bytes per state). Every other strategy is \
                sequential and takes 1 only (highway, bbmc and the randomized searches then \
                make their --runs one at a time rather than side by side on every core).",
            ),
            heading: heading::MODEL,
            negative: true,
            set: Set::Value(|p, s| {
                p.threads = Some(parse_threads(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.threads.filter(|t| *t > 1).map(|t| Shown::Value(t.to_string()))),
    },
    OptionInfo {
        flag: "por",
        takers: Takers::Only(REDUCED),
        arg: Some(ArgInfo {
            value_name: None,
            help: "Partial-order reduction: stubborn sets (bfs, dfs)",
            more: Some(
                "Explores a reduced state space that keeps every deadlock state, every run-time \
                error, every reachable goal (--goal, reachability properties) and every \
                assertion violation; `states`, `transitions` and `deadlocks` then count the \
                reduced graph. Exhaustive bfs and dfs, one thread or more; not with caching \
                options or another --store. An LTL property without X (--ltl, --ltl-file, \
                --property) keeps its verdict: the reduced system first (one thread), then the \
                product on it. The full product's first 65,536 states are searched before \
                both: when they hold a counterexample, or the whole product, that search gives \
                the verdict and nothing is reduced (`por not reduced` says why).",
            ),
            heading: heading::MODEL,
            set: Set::Switch(|p| p.por = true),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.por.then_some(Shown::Switch)),
    },
    OptionInfo {
        flag: "por-check",
        takers: Takers::Only(REDUCED),
        arg: Some(ArgInfo {
            value_name: None,
            help: "Run the reduced and the full search side by side and compare them",
            more: Some(
                "Both run to their end; they must have the same deadlock states and verdict, \
                and the reduced search's counterexample must replay in the full model. Prints \
                the comparison; exit 5 if they differ. Safety only: an LTL property is refused \
                (use --por).",
            ),
            heading: heading::MODEL,
            set: Set::Switch(|p| p.por_check = true),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.por_check.then_some(Shown::Switch)),
    },
    OptionInfo {
        flag: "checkpoint",
        takers: Takers::Only(&["bfs"]),
        arg: Some(ArgInfo {
            value_name: Some("FILE"),
            help: "Go on from FILE, and write it if the search stops (ctree, --distributed)",
            more: Some(
                "If FILE exists the search goes on from it; if the search stops for time, \
                memory or Ctrl-C (result time_limit, memory_limit or interrupted, exit 4) it \
                writes one there, so that the same command run again goes on where it stopped. \
                A search that ends removes it (one stopped by --max-states leaves it as it \
                was). The record's `checkpoint` gives the parts and the seconds before this \
                one; rates count every part. With --distributed each rank keeps FILE.rankR, \
                written after time, Ctrl-C or --max-states (not memory); as --max-states \
                counts every part, a larger one goes on.",
            ),
            heading: heading::STORE,
            set: Set::Path(|p, path| p.checkpoint = Some(path)),
            ..ArgInfo::PLAIN
        }),
        show: None,
    },
    OptionInfo {
        flag: "cache",
        takers: Takers::Only(CACHING),
        arg: Some(ArgInfo {
            value_name: Some("SIZE|P%"),
            help: "Keep at most SIZE states in memory, or P% of the state space",
            more: Some(
                "State caching: bfs and dfs with a cache run the general state exploring \
                algorithm of the state-caching paper. P: above 0, at most 100; |S| comes from \
                instances.csv, else from an exhaustive run first.",
            ),
            heading: heading::CACHING,
            hyphen: true,
            set: Set::Value(|p, s| {
                p.caching.cache = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.caching.cache.map(|c| Shown::Value(c.to_string()))),
    },
    OptionInfo {
        flag: "replacement",
        takers: Takers::Only(CACHING),
        arg: Some(ArgInfo {
            value_name: Some("NAME"),
            help: "Which cached state to drop when the cache is full [default: random]",
            more: Some(
                "random, depth-min, depth-max, indegree, outdegree, visits, stratified[:K], \
                age, indegree-max, outdegree-max, visits-max, newest, or FIRST+THEN (a first \
                key, ties broken by random, newest, depth, indegree, outdegree or visits; e.g. \
                depth-max+random).",
            ),
            heading: heading::CACHING,
            set: Set::Value(|p, s| {
                p.caching.replacement = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.caching.replacement.map(|r| Shown::Value(r.to_string()))),
    },
    OptionInfo {
        flag: "chain-reduction",
        takers: Takers::Only(CACHING),
        arg: Some(ArgInfo {
            value_name: None,
            help: "Single-successor chain reduction (state-caching paper, Sect. 4.1)",
            heading: heading::CACHING,
            set: Set::Switch(|p| p.caching.chain_reduction = true),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.caching.chain_reduction.then_some(Shown::Switch)),
    },
    OptionInfo {
        flag: "edge-lean",
        takers: Takers::Only(CACHING),
        arg: Some(ArgInfo {
            value_name: None,
            help: "Edge-lean reduction with static transition independence",
            heading: heading::CACHING,
            short_help: false,
            set: Set::Switch(|p| p.caching.edge_lean = true),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.caching.edge_lean.then_some(Shown::Switch)),
    },
    OptionInfo {
        flag: "max-visits",
        takers: Takers::Only(CACHING),
        arg: Some(ArgInfo {
            value_name: Some("F"),
            help: "End the run (result visit_limit) when visits exceed F × |S| [default: 5]",
            heading: heading::CACHING,
            short_help: false,
            negative: true,
            set: Set::Value(|p, s| {
                p.caching.max_visits = Some(factor(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.caching.max_visits.map(|v| Shown::Value(v.to_string()))),
    },
    OptionInfo {
        flag: "sweep-measure",
        takers: Takers::Only(SWEEP),
        arg: Some(ArgInfo {
            value_name: Some("EXPR"),
            help: "Sweep-line (bfs, dfs) with this progress measure (DVE expressions)",
            more: Some(
                "The expressions are compared lexicographically (comma-separated or repeated). \
                Formerly --progress (with --progress-level and --progress-derivation), names \
                still accepted until the next release.",
            ),
            heading: heading::CACHING,
            alias: Some("progress"),
            list: true,
            set: Set::Value(|p, s| {
                p.caching.progress.push(s.to_string());
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| (!p.caching.progress.is_empty()).then(|| Shown::Value(p.caching.progress.join(",")))),
    },
    OptionInfo {
        flag: "sweep-level",
        takers: Takers::Only(SWEEP),
        arg: Some(ArgInfo {
            value_name: Some("L"),
            help: "Sweep-line (bfs, dfs) with the automatic progress measure of level L",
            more: Some(
                "0: no regress transition; 1-5: at most 1, 2, 5, 10, 20 % of them. The measure \
                is derived from an exhaustive run first.",
            ),
            heading: heading::CACHING,
            alias: Some("progress-level"),
            negative: true,
            set: Set::Value(|p, s| {
                p.caching.progress_level = Some(level(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.caching.progress_level.map(|l| Shown::Value(l.to_string()))),
    },
    OptionInfo {
        flag: "sweep-derivation",
        takers: Takers::Only(SWEEP),
        arg: Some(ArgInfo {
            value_name: Some("HOW"),
            help: "How --sweep-level derives its measure: projection or greedy [default: projection]",
            more: Some(
                "projection: our reconstruction of Sect. 5.2, the components that each decrease \
                on at most the level's share of the transitions changing them. greedy: refined \
                while the whole vector's regress transitions stay within the level's share.",
            ),
            heading: heading::CACHING,
            short_help: false,
            alias: Some("progress-derivation"),
            set: Set::Value(|p, s| {
                p.caching.progress_derivation = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.caching.progress_derivation.map(|d| Shown::Value(d.to_string()))),
    },
    OptionInfo {
        flag: "seed",
        takers: Takers::Only(SEEDED),
        arg: Some(ArgInfo {
            value_name: Some("N"),
            help: "Seed of random choices (caching, highway, bbmc, randomized) [default: 0]",
            more: Some(
                "Drives the cache replacement (bfs and dfs with --cache, bbfs, alt), the slices \
                of highway and bbmc, and the randomized searches.",
            ),
            heading: heading::MODEL,
            negative: true,
            set: Set::Value(|p, s| {
                p.seed = Some(parse_count(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.seed.map(|s| Shown::Value(s.to_string()))),
    },
    OptionInfo {
        flag: "depth-cutoff",
        takers: Takers::Only(DBDFS),
        arg: Some(ArgInfo {
            value_name: Some("D"),
            help: "The last depth bound [default: go on until the frontier is empty]",
            heading: heading::DBDFS,
            negative: true,
            set: Set::Value(|p, s| {
                p.dbdfs.depth_cutoff = Some(parse_depth(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.dbdfs.depth_cutoff.map(|d| Shown::Value(d.to_string()))),
    },
    OptionInfo {
        flag: "increment",
        takers: Takers::Only(DBDFS),
        arg: Some(ArgInfo {
            value_name: Some("I"),
            help: "The depth added at each iteration [default: 50]",
            heading: heading::DBDFS,
            negative: true,
            set: Set::Value(|p, s| {
                p.dbdfs.increment = Some(parse_depth(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.dbdfs.increment.map(|i| Shown::Value(i.to_string()))),
    },
    OptionInfo {
        flag: "dbdfs",
        takers: Takers::Only(DBDFS),
        arg: Some(ArgInfo {
            value_name: Some("VARIANT"),
            help: "Bounded DFS: naive-unsound, naive-sound or threshold [default: threshold]",
            heading: heading::DBDFS,
            set: Set::Value(|p, s| {
                p.dbdfs.variant = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.dbdfs.variant.map(|v| Shown::Value(v.to_string()))),
    },
    OptionInfo {
        flag: "frontier",
        takers: Takers::Only(DBDFS),
        arg: Some(ArgInfo {
            value_name: Some("REPR"),
            help: "How frontier states are kept: states, traces or tree [default: tree]",
            heading: heading::DBDFS,
            set: Set::Value(|p, s| {
                p.dbdfs.frontier = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.dbdfs.frontier.map(|f| Shown::Value(f.to_string()))),
    },
    OptionInfo {
        flag: "breadth",
        takers: Takers::Only(SLICES),
        arg: Some(ArgInfo {
            value_name: Some("N"),
            help: "The breadth bound: most states per queue (required)",
            heading: heading::BREADTH,
            negative: true,
            set: Set::Value(|p, s| {
                p.slices.breadth = Some(parse_positive(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.slices.breadth.map(|b| Shown::Value(b.to_string()))),
    },
    OptionInfo {
        flag: "degrade-depth",
        takers: Takers::Only(&["bbmc"]),
        arg: Some(ArgInfo {
            value_name: Some("D"),
            help: "Graceful degradation from depth D on (bbmc, Algorithm 3)",
            heading: heading::BREADTH,
            negative: true,
            set: Set::Value(|p, s| {
                p.slices.degrade_depth = Some(parse_depth(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.slices.degrade_depth.map(|d| Shown::Value(d.to_string()))),
    },
    OptionInfo {
        flag: "export",
        takers: Takers::Only(&["bfs", "dfs", "highway", "bbmc"]),
        arg: Some(ArgInfo {
            value_name: Some("FILE"),
            help: "Write the state space to FILE: .aut (Aldebaran) or .dot (Graphviz)",
            more: Some(
                "bfs and dfs: every state and transition of a search that ran to its end \
                (nothing is written after a budget or a violation stopped it; --max-states \
                bounds what it may hold), states numbered from 0, the initial state 0, \
                transitions labelled `process: from -> to`. highway and bbmc: the first run's \
                slice. The format comes from the extension. The old name --export-lts still \
                works.",
            ),
            heading: heading::OUTPUT,
            short_help: false,
            alias: Some("export-lts"),
            set: Set::Path(|p, path| p.export = Some(path)),
            ..ArgInfo::PLAIN
        }),
        show: None,
    },
    OptionInfo {
        flag: "export-state-labels",
        takers: Takers::Only(&["bfs", "dfs"]),
        arg: Some(ArgInfo {
            value_name: None,
            help: "Label the states of a .dot export with their variables (--export)",
            heading: heading::OUTPUT,
            short_help: false,
            requires: Some("export"),
            set: Set::Switch(|p| p.export_state_labels = true),
            ..ArgInfo::PLAIN
        }),
        show: None,
    },
    OptionInfo {
        flag: "runs",
        takers: Takers::Only(REPEATED),
        arg: Some(ArgInfo {
            value_name: Some("R"),
            help: "Repeat the seeded run R times and report means (highway, bbmc, randomized)",
            more: Some(
                "The seeds of the runs are drawn from --seed; the record gives the means and \
                the witness rate [default: 1].",
            ),
            heading: heading::MODEL,
            negative: true,
            set: Set::Value(|p, s| {
                p.runs = Some(parse_positive(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.runs.map(|r| Shown::Value(r.to_string()))),
    },
    OptionInfo {
        flag: "memory-states",
        takers: Takers::Only(MEMORY_BOUNDED),
        arg: Some(ArgInfo {
            value_name: Some("N"),
            help: "Memory bound: most states stored (urs, sdrs, rurs, rsdrs; required)",
            heading: heading::RANDOMIZED,
            negative: true,
            set: Set::Value(|p, s| {
                p.random.memory_states = Some(parse_positive(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.random.memory_states.map(|m| Shown::Value(m.to_string()))),
    },
    OptionInfo {
        flag: "steps",
        takers: Takers::Only(STEPPED),
        arg: Some(ArgInfo {
            value_name: Some("N"),
            help: "Most steps [default: 1000000]",
            heading: heading::RANDOMIZED,
            negative: true,
            set: Set::Value(|p, s| {
                p.random.steps = Some(parse_count(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.random.steps.map(|s| Shown::Value(s.to_string()))),
    },
    OptionInfo {
        flag: "mixing",
        takers: Takers::Only(&["urs", "rurs"]),
        arg: Some(ArgInfo {
            value_name: Some("X"),
            help: "Probability X of selecting a leaf, not an inner node (urs, rurs)",
            more: Some(
                "A leaf is a stored state not selected yet; X is in [0, 1] [default: uniform \
                over the memory].",
            ),
            heading: heading::RANDOMIZED,
            negative: true,
            set: Set::Value(|p, s| {
                p.random.mixing = Some(fraction(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.random.mixing.map(|x| Shown::Value(x.to_string()))),
    },
    OptionInfo {
        flag: "restart",
        takers: Takers::Only(&["rurs", "rsdrs"]),
        arg: Some(ArgInfo {
            value_name: Some("FROM"),
            help: "Restart state when the memory fills: initial or random (rurs, rsdrs)",
            more: Some(
                "initial: the initial state [default]; random: a uniformly chosen state of the \
                memory being emptied. (urs and sdrs stop instead.)",
            ),
            heading: heading::RANDOMIZED,
            set: Set::Value(|p, s| {
                p.random.restart = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.random.restart.map(|r| Shown::Value(r.name().to_string()))),
    },
    OptionInfo {
        flag: "successor-choice",
        takers: Takers::Only(STEPPED),
        arg: Some(ArgInfo {
            value_name: Some("HOW"),
            help: "How a step chooses among the successors: state or transition [default: state]",
            more: Some(
                "state: a uniformly random successor state (the paper's choice). transition: a \
                uniformly random transition, so that a state reached by several transitions is \
                more likely.",
            ),
            heading: heading::RANDOMIZED,
            short_help: false,
            set: Set::Value(|p, s| {
                p.random.successor_choice = Some(s.parse()?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| {
            p.random
                .successor_choice
                .map(|c| Shown::Value(c.name().to_string()))
        }),
    },
    OptionInfo {
        flag: "cover-targets",
        takers: Takers::Only(STEPPED),
        arg: Some(ArgInfo {
            value_name: Some("P,..."),
            help: "Measure cover times of these coverage levels in % of |S| (e.g. 50,90)",
            more: Some("|S| comes from instances.csv."),
            heading: heading::RANDOMIZED,
            list: true,
            set: Set::Value(|p, s| {
                p.random.cover_targets.push(percent(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| {
            (!p.random.cover_targets.is_empty()).then(|| {
                Shown::Value(
                    p.random
                        .cover_targets
                        .iter()
                        .map(f64::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                )
            })
        }),
    },
    OptionInfo {
        flag: "stop-when-covered",
        takers: Takers::Only(STEPPED),
        arg: Some(ArgInfo {
            value_name: None,
            help: "Stop a run when it reaches the last --cover-targets level",
            heading: heading::RANDOMIZED,
            short_help: false,
            set: Set::Switch(|p| p.random.stop_when_covered = true),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.random.stop_when_covered.then_some(Shown::Switch)),
    },
    OptionInfo {
        flag: "sample-interval",
        takers: Takers::Only(SAMPLED),
        arg: Some(ArgInfo {
            value_name: Some("SECONDS"),
            help: "Keep the counters every SECONDS in the record's `samples` (bfs, dfs, randomized)",
            more: Some("States, transitions or steps over time, for plots."),
            heading: heading::OUTPUT,
            short_help: false,
            set: Set::Value(|p, s| {
                p.sample_interval = Some(seconds(s)?);
                Ok(())
            }),
            ..ArgInfo::PLAIN
        }),
        show: Some(|p| p.sample_interval.map(|s| Shown::Value(s.to_string()))),
    },
    OptionInfo {
        flag: "goal",
        takers: Takers::Only(PROPERTIES),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "property",
        takers: Takers::Only(PROPERTIES),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "ltl",
        takers: Takers::Only(LTL),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "ltl-file",
        takers: Takers::Only(LTL),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "ltl-property",
        takers: Takers::Only(LTL),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "check",
        takers: Takers::Only(&["bfs", "dfs", "highway", "bbmc"]),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "all-violations",
        takers: Takers::Only(SWEEP),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "trace-format",
        takers: Takers::Only(PROPERTIES),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "trace-out",
        takers: Takers::Only(PROPERTIES),
        arg: None,
        show: None,
    },
    OptionInfo {
        flag: "stats",
        takers: Takers::Only(SWEEP),
        arg: None,
        show: None,
    },
];
