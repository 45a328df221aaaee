//! The report's first table: per instance, and over all instances, the
//! fastest configuration and the one that needed least memory, from the
//! complete runs.
//!
//! Fastest: the shortest search (`time_s`). Least memory: the fewest bytes
//! of store and search structures (`store_bytes` + `frontier_bytes`) where
//! every complete run of the instance measured them, else the smallest peak
//! resident memory of the child (`peak_mem_bytes`): on small instances the
//! peak is mostly the program and the compiled model, the same for all.
//! A configuration is a strategy with its parameters and
//! backend. Over all instances the table names the configuration that is
//! fastest (least memory) on the most instances, ties broken by the total
//! search time (peak memory) over those instances: configurations that ran
//! on different instances are not compared by sums.

use std::collections::BTreeMap;

use super::figures::{configuration, fmt_num, seconds, state_space_sizes, store_bytes};
use super::table::ReportTable;
use crate::engine::Outcome;
use crate::experiments::schema::Row;

fn peak_mem(r: &Row) -> Option<f64> {
    r.num("peak_mem_bytes")
        .or_else(|| r.num("peak_rss_bytes"))
        .filter(|b| *b > 0.0)
}

fn label(r: &Row) -> String {
    format!("{} ({})", configuration(r), r.get("backend"))
}

fn mib(b: Option<f64>) -> String {
    b.map_or_else(|| "—".into(), |b| format!("{:.1}", b / 1048576.0))
}

/// The run of `rs` least by `key` (ties: the cell key, for a stable
/// answer).
fn least<'a>(rs: &[&'a Row], key: impl Fn(&Row) -> Option<(f64, f64)>) -> Option<&'a Row> {
    rs.iter()
        .copied()
        .filter_map(|r| key(r).map(|k| (k, r)))
        .min_by(|(a, ra), (b, rb)| {
            a.0.total_cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then_with(|| ra.key().cmp(rb.key()))
        })
        .map(|(_, r)| r)
}

fn by_time(r: &Row) -> Option<(f64, f64)> {
    seconds(r).map(|t| (t, 0.0))
}

/// The bytes of the store and the search structures, where measured.
fn search_bytes(r: &Row) -> Option<f64> {
    store_bytes(r).map(|s| s + r.num("frontier_bytes").unwrap_or(0.0))
}

fn by_search_bytes(r: &Row) -> Option<(f64, f64)> {
    search_bytes(r).map(|b| (b, peak_mem(r).unwrap_or(f64::MAX)))
}

fn by_peak(r: &Row) -> Option<(f64, f64)> {
    peak_mem(r).map(|m| (m, search_bytes(r).unwrap_or(f64::MAX)))
}

/// The configuration that wins most often among `wins` (label, figure),
/// ties broken by the smaller summed figure; with its count.
fn most_wins(wins: &[(String, f64)]) -> Option<(String, usize)> {
    let mut tally: BTreeMap<&str, (usize, f64)> = BTreeMap::new();
    for (l, f) in wins {
        let e = tally.entry(l).or_default();
        e.0 += 1;
        e.1 += f;
    }
    tally
        .into_iter()
        .min_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.total_cmp(&b.1 .1)))
        .map(|(l, (n, _))| (l.to_string(), n))
}

/// The headline table of `rows` (`None` without a complete run).
pub fn headline(rows: &[Row]) -> Option<ReportTable> {
    let sizes = state_space_sizes(rows);
    let mut by_instance: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.get("result") == Outcome::Complete.name())
    {
        by_instance.entry(r.get("instance")).or_default().push(r);
    }
    if by_instance.is_empty() {
        return None;
    }
    let mut t = ReportTable::new(
        "headline",
        "Fastest and least memory",
        "From the complete runs. Fastest: the shortest search. Least memory: the fewest bytes of \
         store and search structures where every run of the instance measured them, else the \
         smallest peak resident memory of the run's process. Over all instances: the configuration \
         fastest (least memory) on the most instances.",
        &[
            "instance",
            "|S|",
            "fastest",
            "search s",
            "least memory",
            "store + search bytes",
            "peak MiB",
        ],
    )
    .code_columns(&["fastest", "least memory"]);
    let (mut fast_wins, mut mem_wins) = (Vec::new(), Vec::new());
    for (inst, rs) in &by_instance {
        let fast = least(rs, by_time);
        let measured = rs.iter().all(|r| search_bytes(r).is_some());
        let small = if measured {
            least(rs, by_search_bytes)
        } else {
            least(rs, by_peak)
        };
        if let Some(f) = fast {
            fast_wins.push((label(f), seconds(f).unwrap_or(0.0)));
        }
        if let Some(m) = small {
            let figure = if measured { search_bytes(m) } else { peak_mem(m) };
            mem_wins.push((label(m), figure.unwrap_or(0.0)));
        }
        t.rows.push(vec![
            inst.to_string(),
            fmt_num(sizes.get(*inst).copied()),
            fast.map_or_else(|| "—".into(), label),
            fast.and_then(seconds)
                .map_or_else(|| "—".into(), |s| format!("{s:.3}")),
            small.map_or_else(|| "—".into(), label),
            fmt_num(small.and_then(search_bytes)),
            mib(small.and_then(peak_mem)),
        ]);
    }
    if by_instance.len() > 1 {
        let n = by_instance.len();
        let on =
            |w: Option<(String, usize)>| w.map_or_else(|| "—".into(), |(l, k)| format!("{l}: on {k} of {n}"));
        t.rows.insert(
            0,
            vec![
                format!("all {n} instances"),
                String::new(),
                on(most_wins(&fast_wins)),
                String::new(),
                on(most_wins(&mem_wins)),
                String::new(),
                String::new(),
            ],
        );
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(inst: &str, args: &str, time: f64, mem: u64) -> Row {
        let mut r = Row::empty();
        for (c, v) in [
            ("key", format!("{inst}|jit|bfs {args}|")),
            ("instance", inst.into()),
            ("backend", "jit".into()),
            ("strategy", "bfs".into()),
            ("spec", "bfs".into()),
            ("args", args.into()),
            ("result", "complete".into()),
            ("states", "1000".into()),
            ("time_s", time.to_string()),
            ("peak_mem_bytes", mem.to_string()),
            ("store_bytes", (mem / 1000).to_string()),
        ] {
            r.set(c, v);
        }
        r
    }

    #[test]
    fn the_fastest_and_the_smallest_per_instance_and_overall() {
        let mut slow_failed = run("b", "--store exact", 0.01, 1);
        slow_failed.set("result", "time_limit");
        let rows = [
            run("a", "--store exact", 1.0, 300 << 20),
            run("a", "--store tree", 2.0, 100 << 20),
            run("b", "--store exact", 0.5, 200 << 20),
            run("b", "--store tree", 0.9, 150 << 20),
            slow_failed,
            run("c", "--store tree", 0.1, 10 << 20),
        ];
        let t = headline(&rows).expect("a table");
        let cell = |row: usize, h: &str| t.rows[row][t.headers.iter().position(|x| x == h).unwrap()].clone();
        assert_eq!(cell(0, "instance"), "all 3 instances");
        assert_eq!(cell(0, "fastest"), "bfs --store exact (jit): on 2 of 3");
        assert_eq!(cell(0, "least memory"), "bfs --store tree (jit): on 3 of 3");
        assert_eq!(cell(1, "instance"), "a");
        assert_eq!(cell(1, "fastest"), "bfs --store exact (jit)");
        assert_eq!(cell(1, "search s"), "1.000");
        assert_eq!(cell(1, "least memory"), "bfs --store tree (jit)");
        assert_eq!(cell(1, "peak MiB"), "100.0");
        // An incomplete run, however quick, is not the fastest.
        assert_eq!(cell(2, "fastest"), "bfs --store exact (jit)");
        assert_eq!(cell(2, "search s"), "0.500");
        // Where a run did not measure its store, the peak memory decides.
        let mut unmeasured = run("a", "--store ctree", 3.0, 50 << 20);
        unmeasured.set("store_bytes", "");
        let t = headline(&[rows[0].clone(), rows[1].clone(), unmeasured]).unwrap();
        assert_eq!(t.rows[0][4], "bfs --store ctree (jit)");
        assert_eq!(t.rows[0][6], "50.0");
        // On a tiny instance the store bytes decide, not the peak, which
        // is mostly the program's.
        let mut tiny = [
            run("d", "--store exact", 0.1, 11 << 20),
            run("d", "--store ctree", 0.2, 12 << 20),
        ];
        tiny[1].set("store_bytes", "1000");
        let t = headline(&tiny).unwrap();
        assert_eq!(t.rows[0][4], "bfs --store ctree (jit)");
        assert!(headline(&[]).is_none());
    }
}
