//! `bench report FILE --paper beem-census`: the BEEM census, from the rows
//! of `beem/matrices/census.toml` (every instance in `dve/`, the ones BEEM
//! left incomplete and the ones instances.csv does not list included, each
//! explored breadth-first to its end or its budget).
//!
//! Writes `beem-census.csv` (one row per instance: BEEM's figures beside
//! ours) and `census.md`: how many instances are complete; that every
//! count BEEM published as exact is ours too; the true sizes of the
//! instances BEEM did not finish; for those still out of reach, how far
//! the search got and the memory a complete run would need at least (at
//! the bytes per state it used); bytes per state over the rows of at least
//! a million states, as issue 14 measures them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::matrix::run_memory_limit;
use super::schema::Row;
use super::util::human;
use crate::engine::Outcome;
use crate::model::beem::{Beem, StatFile};

/// Rows of at least this many states count in the bytes-per-state figures
/// (smaller runs are dominated by fixed allocations).
const LARGE: u64 = 1_000_000;

/// One instance's line of the census.
struct Entry<'a> {
    row: &'a Row,
    beem_states: Option<u64>,
    /// Some(true): BEEM's count is exact; Some(false): BEEM ran out;
    /// None: instances.csv does not list the instance.
    beem_complete: Option<bool>,
    /// BEEM's stat file of the instance (states, edges, BFS levels of a
    /// complete exploration), where it has one.
    stat: Option<StatFile>,
    states: u64,
    complete: bool,
}

impl Entry<'_> {
    fn num(&self, name: &str) -> Option<f64> {
        self.row.num(name)
    }

    /// BEEM's exact state count: instances.csv's if it marks it exact,
    /// else the stat file's.
    fn exact(&self) -> Option<u64> {
        match self.beem_complete {
            Some(true) => self.beem_states,
            _ => self.stat.as_ref().map(|s| s.states),
        }
    }

    /// Our run gives BEEM's exact figures: the state count, and the
    /// transitions and BFS levels where a stat file has them.
    fn agrees(&self) -> bool {
        let num = |n: &str| self.num(n).map(|v| v as u64);
        self.complete
            && Some(self.states) == self.exact()
            && self
                .stat
                .as_ref()
                .is_none_or(|s| num("transitions") == Some(s.edges) && num("levels") == Some(s.levels))
    }
}

/// A ctree run stopped for memory by a version from before the root set
/// sealed a full table and opened another (`root_tables` in the record
/// since then): it stopped at the doubling that did not fit, where this
/// version goes on (driving_phils.3: 3.87 G states then, 7.73 G since), so
/// its memory stop says nothing about this version.
fn before_sealing(row: &Row, extra: Option<&serde_json::Value>) -> bool {
    row.get("store") == "ctree"
        && row.get("result") == Outcome::MemoryLimit.name()
        && extra.is_none_or(|x| x.get("root_tables").is_none())
}

fn gib(bytes: f64) -> String {
    format!("{:.1} GiB", bytes / f64::from(1u32 << 30))
}

/// Renders the census into `out`.
pub fn render(rows: &[Row], out: &Path, beem: Option<&Beem>) -> Result<Vec<PathBuf>> {
    let entries = entries(rows, beem)?;
    write_csv(&entries, &out.join("beem-census.csv"))?;
    let mut md = String::new();
    md_overview(&mut md, &entries, beem);
    md_exactness(&mut md, &entries);
    md_unfinished(&mut md, &entries);
    md_memory(&mut md, &entries);
    std::fs::write(out.join("census.md"), md)?;
    Ok(vec![out.join("beem-census.csv"), out.join("census.md")])
}

/// One entry per instance: its last exhaustive bfs row, with BEEM's figures.
fn entries<'a>(rows: &'a [Row], beem: Option<&Beem>) -> Result<Vec<Entry<'a>>> {
    // The last row of each instance (a resumed or retried cell is recorded
    // again).
    let mut last: BTreeMap<&str, &Row> = BTreeMap::new();
    // Exhaustive breadth-first runs only (a file may hold cached ones too).
    for r in rows
        .iter()
        .filter(|r| r.get("strategy") == "bfs" && r.params_value("cache").is_none())
    {
        last.insert(r.get("instance"), r);
    }
    if last.is_empty() {
        bail!("no exhaustive bfs rows: is this a run of census.toml?");
    }
    Ok(last
        .values()
        .map(|&row| Entry {
            row,
            beem_states: row.num("manifest_states").map(|s| s as u64),
            beem_complete: match row.get("manifest_complete") {
                "yes" => Some(true),
                "no" => Some(false),
                _ => None,
            },
            stat: beem.and_then(|b| b.stats(row.get("instance")).ok().flatten()),
            states: row.num("states").unwrap_or(0.0) as u64,
            complete: row.get("result") == Outcome::Complete.name(),
        })
        .collect())
}

/// `beem-census.csv`: a line per instance.
fn write_csv(entries: &[Entry], path: &Path) -> Result<()> {
    let mut csv = csv::Writer::from_path(path)?;
    csv.write_record([
        "instance",
        "family",
        "beem_states",
        "beem_complete",
        "beem_stat_states",
        "beem_stat_transitions",
        "beem_stat_levels",
        "states",
        "transitions",
        "deadlocks",
        "levels",
        "store",
        "bytes_per_state",
        "peak_rss_bytes",
        "seconds",
        "wall_seconds",
        "result",
    ])?;
    for e in entries {
        let r = e.row;
        csv.write_record([
            r.get("instance"),
            r.get("family"),
            &e.beem_states.map(|s| s.to_string()).unwrap_or_default(),
            match e.beem_complete {
                Some(true) => "yes",
                Some(false) => "no",
                None => "unlisted",
            },
            &e.stat.as_ref().map(|s| s.states.to_string()).unwrap_or_default(),
            &e.stat.as_ref().map(|s| s.edges.to_string()).unwrap_or_default(),
            &e.stat.as_ref().map(|s| s.levels.to_string()).unwrap_or_default(),
            r.get("states"),
            r.get("transitions"),
            r.get("deadlocks"),
            r.get("levels"),
            r.get("store"),
            r.get("bytes_per_state"),
            r.get("peak_rss_bytes"),
            r.get("cpu_s"),
            r.get("wall_s"),
            r.get("result"),
        ])?;
    }
    csv.flush()?;

    Ok(())
}

/// The title and what was run.
fn md_overview(md: &mut String, entries: &[Entry], beem: Option<&Beem>) {
    let complete = entries.iter().filter(|e| e.complete).count();
    let _ = writeln!(md, "# The BEEM census\n");
    let stores: Vec<&str> = {
        let mut v: Vec<&str> = entries
            .iter()
            .map(|e| e.row.get("store"))
            .filter(|s| !s.is_empty())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    // A census run is one thread: its processor time is the work it took.
    // Its wall-clock time also counts whatever else the machine ran (long
    // runs beside other work, a run paused): given, not relied on.
    let cpu: f64 = entries.iter().filter_map(|e| e.num("cpu_s")).sum();
    let wall: f64 = entries.iter().filter_map(|e| e.num("wall_s")).sum();
    // Of the suite's instances, how many have a run (the census may be
    // under way).
    let suite = beem.and_then(|b| b.models().ok()).map(|m| m.len());
    let of_suite = match suite {
        Some(n) if n > entries.len() => format!(
            " of the suite's {n} (the other {} not run yet: the census is incomplete)",
            n - entries.len()
        ),
        Some(n) => format!(" (all {n} of the suite)"),
        None => String::new(),
    };
    let _ = writeln!(
        md,
        "{} instances{of_suite}, {complete} explored to their end (breadth-first, store {}); the runs took \
         {:.1} h of processor time together, {:.1} h of wall-clock time (budgets: see the matrix; \
         seconds below are processor seconds, one thread a run).\n",
        entries.len(),
        if stores.is_empty() {
            "-".into()
        } else {
            stores.join(", ")
        },
        cpu / 3600.0,
        wall / 3600.0,
    );
}

/// Exactness against BEEM's exact figures: the count, and the instances that differ.
fn md_exactness(md: &mut String, entries: &[Entry]) {
    let exact: Vec<&Entry> = entries.iter().filter(|e| e.exact().is_some()).collect();
    let agree = exact.iter().filter(|e| e.agrees()).count();
    let _ = writeln!(md, "## BEEM's exact figures\n");
    let _ = writeln!(
        md,
        "{agree} of the {} instances whose size BEEM published exactly (instances.csv's complete \
         rows and the stat files) give BEEM's state count, and where a stat file has them its \
         transitions and BFS levels ({} stat files).",
        exact.len(),
        exact.iter().filter(|e| e.stat.is_some()).count(),
    );
    let off: Vec<&&Entry> = exact.iter().filter(|e| !e.agrees()).collect();
    if !off.is_empty() {
        let _ = writeln!(
            md,
            "\n| instance | BEEM states | ours | BEEM transitions | ours | BEEM levels | ours | result |\n|---|---:|---:|---:|---:|---:|---:|---|"
        );
        for e in off {
            let stat =
                |f: fn(&StatFile) -> u64| e.stat.as_ref().map(|s| f(s).to_string()).unwrap_or_default();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                e.row.get("instance"),
                e.exact().unwrap_or(0),
                e.states,
                stat(|s| s.edges),
                e.row.get("transitions"),
                stat(|s| s.levels),
                e.row.get("levels"),
                e.row.get("result")
            );
        }
    }
}

/// The instances BEEM did not finish, and those it does not list.
fn md_unfinished(md: &mut String, entries: &[Entry]) {
    for (title, which) in [
        ("Instances BEEM did not finish", Some(false)),
        (
            "Instances instances.csv does not list (those with a stat file are checked above)",
            None,
        ),
    ] {
        let group: Vec<&Entry> = entries.iter().filter(|e| e.beem_complete == which).collect();
        if group.is_empty() {
            continue;
        }
        let done = group.iter().filter(|e| e.complete).count();
        let _ = writeln!(md, "\n## {title}\n");
        let _ = writeln!(md, "{done} of {} are now complete.\n", group.len());
        if done < group.len() {
            let _ = writeln!(
                md,
                "A run that did not end gives what a complete one needs at least: more states than it reached, and more memory than they took at its bytes per state or, stopped by its memory limit, than that limit.\n"
            );
        }
        let _ = writeln!(
            md,
            "| instance | BEEM reached | states | transitions | levels | bytes/state | seconds | result | a complete run needs |\n|---|---:|---:|---:|---:|---:|---:|---|---|"
        );
        for e in &group {
            let bps = e.num("bytes_per_state").unwrap_or(0.0);
            let need = need(e);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {:.1} | {:.0} | {} | {} |",
                e.row.get("instance"),
                e.beem_states.map(human).unwrap_or_else(|| "-".into()),
                human(e.states),
                e.num("transitions").map(|t| human(t as u64)).unwrap_or_default(),
                e.row.get("levels"),
                bps,
                e.num("cpu_s").unwrap_or(0.0),
                e.row.get("result"),
                need,
            );
        }
    }
}

/// What a complete run of `e` needs at least (`-` when it is complete).
fn need(e: &Entry) -> String {
    let bps = e.num("bytes_per_state").unwrap_or(0.0);
    if e.complete {
        "-".to_string()
    } else {
        // The true size is unknown: at least the states reached,
        // at the bytes per state this run used; and a run stopped
        // for memory more than its limit (its store's next growth
        // would have passed it).
        let mut bytes = bps * e.states as f64;
        if e.row.get("result") == Outcome::MemoryLimit.name() {
            if let Some(budget) = e.num("budget_memory_bytes") {
                bytes = bytes.max(run_memory_limit(budget as u64) as f64);
            }
        }
        let mut need = format!("> {} states, > {}", human(e.states), gib(bytes));
        // What did not fit, where the run said (ctree's
        // `memory_need`, in the row's extra fields).
        let extra: Option<serde_json::Value> = serde_json::from_str(e.row.get("extra")).ok();
        if before_sealing(e.row, extra.as_ref()) {
            // Its memory says nothing about this version's.
            let commit = e.row.get("git_commit");
            need = format!(
                "> {} states (the memory stop of an older version{}, from before the root set sealed its full tables: this version goes further: `bench run --resume --rerun --instances` runs it again)",
                human(e.states),
                if commit.is_empty() {
                    String::new()
                } else {
                    format!(", {}", &commit[..commit.len().min(7)])
                }
            );
        }
        if let Some(n) = extra.as_ref().and_then(|x| x.get("memory_need")) {
            let g = |k: &str| gib(n.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0));
            need += &format!(
                " (had {} and {} of queues; its next batch: root set +{}, inner tables +{}, next queue +{})",
                g("store"),
                g("queues"),
                g("root_set_growth"),
                g("tables_growth"),
                g("queue_growth")
            );
        }
        need
    }
}

/// Memory per state over the large rows.
fn md_memory(md: &mut String, entries: &[Entry]) {
    let mut bps: Vec<(f64, &str)> = entries
        .iter()
        .filter(|e| e.states >= LARGE)
        .filter_map(|e| Some((e.num("bytes_per_state")?, e.row.get("instance"))))
        .collect();
    bps.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let (Some(lo), Some(hi)) = (bps.first(), bps.last()) {
        let median = if bps.len() % 2 == 1 {
            bps[bps.len() / 2].0
        } else {
            (bps[bps.len() / 2 - 1].0 + bps[bps.len() / 2].0) / 2.0
        };
        let _ = writeln!(md, "\n## Memory\n");
        let _ = writeln!(
            md,
            "Over the {} runs of at least {} states (complete or not), bytes per state (every \
             allocation of the store and the search counted): median {median:.1}, least {:.1} \
             ({}), most {:.1} ({}); {} above 16.",
            bps.len(),
            human(LARGE),
            lo.0,
            lo.1,
            hi.0,
            hi.1,
            bps.iter().filter(|b| b.0 > 16.0).count(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(instance: &str, beem: &str, beem_complete: &str, states: u64, result: &str, bps: f64) -> Row {
        let mut r = Row::empty();
        r.set("instance", instance);
        r.set("family", instance.split('.').next().unwrap());
        r.set("strategy", "bfs");
        r.set("store", "tree");
        r.set("manifest_states", beem);
        r.set("manifest_complete", beem_complete);
        r.set("states", states.to_string());
        r.set("result", result);
        r.set("bytes_per_state", bps.to_string());
        r.set("cpu_s", "1.5");
        r.set("wall_s", "3600");
        r
    }

    #[test]
    fn exact_counts_true_sizes_and_memory() {
        let rows = vec![
            row("a.1", "100", "yes", 100, "complete", 30.0),
            row("a.2", "200", "yes", 201, "complete", 30.0),
            row("b.1", "5000", "no", 3_000_000, "complete", 6.0),
            {
                // 4 GiB of address space: a limit of 3 GiB, more than the
                // 2 M states at 10 bytes.
                let mut r = row("b.2", "5000", "no", 2_000_000, "memory_limit", 10.0);
                r.set("budget_memory_bytes", (4u64 << 30).to_string());
                // What did not fit, as the run said.
                r.set(
                    "extra",
                    format!(
                        r#"{{"memory_need":{{"budget":{},"store":{},"queues":{},"root_set_growth":{},"tables_growth":0,"queue_growth":{}}}}}"#,
                        3u64 << 30,
                        2u64 << 30,
                        1u64 << 29,
                        1u64 << 30,
                        1u64 << 28
                    ),
                );
                r
            },
            row("b.3", "5000", "no", 1_000_000, "time_limit", 10.0),
            {
                // A ctree run stopped for memory before sealed tables (no
                // root_tables in its record), and one since.
                let mut r = row("b.4", "5000", "no", 4_000_000, "memory_limit", 4.0);
                r.set("store", "ctree");
                r.set("git_commit", "0123456789abcdef");
                r.set("budget_memory_bytes", (4u64 << 30).to_string());
                r.set("extra", r#"{"threads":1}"#);
                r
            },
            {
                let mut r = row("b.5", "5000", "no", 8_000_000, "memory_limit", 2.0);
                r.set("store", "ctree");
                r.set("extra", r#"{"threads":1,"root_tables":2}"#);
                r
            },
            row("c.1", "", "", 1_500_000, "complete", 20.0),
            // A cached run (another matrix's) is not a census row.
            {
                let mut r = row("d.1", "", "", 10, "visit_limit", 1.0);
                r.set("params", r#"{"cache":"10%"}"#);
                r
            },
        ];
        let out = std::env::temp_dir().join(format!("dvemc-census-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        render(&rows, &out, None).unwrap();
        let md = std::fs::read_to_string(out.join("census.md")).unwrap();
        assert!(md.contains("8 instances, 4 explored to their end"), "{md}");
        assert!(
            md.contains("0.0 h of processor time together, 8.0 h of wall-clock time"),
            "{md}"
        );
        assert!(md.contains("| 10.0 | 2 | memory_limit |"), "{md}");
        assert!(
            md.contains("1 of the 2 instances whose size BEEM published exactly"),
            "{md}"
        );
        assert!(md.contains("| a.2 | 200 | 201 |  |  |  |  | complete |"), "{md}");
        assert!(md.contains("1 of 5 are now complete"), "{md}");
        assert!(
            md.contains("> 4.000M states (the memory stop of an older version, 0123456, from before the root set sealed its full tables: this version goes further: `bench run --resume --rerun --instances` runs it again) |"),
            "{md}"
        );
        assert_eq!(md.matches("older version").count(), 1, "{md}");
        assert_eq!(md.matches("gives what a complete one needs").count(), 1, "{md}");
        assert!(
            md.contains("> 2.000M states, > 3.0 GiB (had 2.0 GiB and 0.5 GiB of queues; its next batch: root set +1.0 GiB, inner tables +0.0 GiB, next queue +0.2 GiB)"),
            "{md}"
        );
        assert!(md.contains("> 1.000M states, > 0.0 GiB"), "{md}");
        assert!(
            md.contains("median 8.0, least 2.0 (b.5), most 20.0 (c.1); 1 above 16"),
            "{md}"
        );
        let csv = std::fs::read_to_string(out.join("beem-census.csv")).unwrap();
        assert_eq!(csv.lines().count(), 9);
        assert!(csv.contains("c.1,c,,unlisted,,,,1500000"), "{csv}");
        std::fs::remove_dir_all(&out).ok();
    }

    #[test]
    fn an_unfinished_census_says_how_many_of_the_suite_are_missing() {
        let dir = std::env::temp_dir().join(format!("dvemc-census-suite-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("dve")).unwrap();
        for name in ["a.1", "a.2", "a.3", "a.1.prop1"] {
            std::fs::write(dir.join("dve").join(format!("{name}.dve")), "").unwrap();
        }
        let beem = Beem::at(&dir);
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        render(
            &[row("a.1", "100", "yes", 100, "complete", 30.0)],
            &out,
            Some(&beem),
        )
        .unwrap();
        let md = std::fs::read_to_string(out.join("census.md")).unwrap();
        assert!(
            md.contains("1 instances of the suite's 3 (the other 2 not run yet: the census is incomplete)"),
            "{md}"
        );
        let rows: Vec<Row> = ["a.1", "a.2", "a.3"]
            .iter()
            .map(|i| row(i, "100", "yes", 100, "complete", 30.0))
            .collect();
        render(&rows, &out, Some(&beem)).unwrap();
        let md = std::fs::read_to_string(out.join("census.md")).unwrap();
        assert!(
            md.contains("3 instances (all 3 of the suite), 3 explored"),
            "{md}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_stat_file_checks_transitions_and_levels_too() {
        let stat = StatFile {
            states: 50,
            edges: 80,
            levels: 7,
            max_level: None,
            back_level_edges: 0,
            max_back_level_edge: None,
            avg_back_level_edge: None,
            bfs_levels: Vec::new(),
            dfs: None,
        };
        let mut r = row("c.2", "", "", 50, "complete", 20.0);
        r.set("transitions", "80");
        r.set("levels", "7");
        fn entry<'a>(r: &'a Row, stat: &StatFile) -> Entry<'a> {
            Entry {
                row: r,
                beem_states: None,
                beem_complete: None,
                stat: Some(stat.clone()),
                states: 50,
                complete: true,
            }
        }
        assert_eq!(entry(&r, &stat).exact(), Some(50));
        assert!(entry(&r, &stat).agrees());
        r.set("levels", "8");
        assert!(!entry(&r, &stat).agrees(), "one BFS level more");
        r.set("levels", "7");
        r.set("transitions", "81");
        assert!(!entry(&r, &stat).agrees(), "one transition more");
    }
}
