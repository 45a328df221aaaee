//! What the report reads off a run (its stored and visited states, bytes
//! per state, search seconds, configuration), the state-space size per
//! instance, and how numbers are printed: shared by the summary and its
//! headline table.

use crate::engine::Outcome;
use std::collections::BTreeMap;

use crate::experiments::schema::Row;

/// Strategies that store every reachable state they find.
const EXHAUSTIVE: &[&str] = &["bfs", "dfs"];

pub(crate) fn stored(r: &Row) -> Option<f64> {
    r.num("cache_size")
        .or_else(|| r.num("stored_peak"))
        .or_else(|| r.num("states"))
}

pub(crate) fn visited(r: &Row) -> Option<f64> {
    r.num("visits")
        .or_else(|| r.num("expansions"))
        .or_else(|| r.num("states"))
}

/// The bytes a stored state cost (store and search structures) and the
/// store's size, where the run measured them (a search that does not
/// account its memory records 0).
/// Left out for runs of fewer than [`MIN_STATES_FOR_BYTES`] states.
pub(crate) fn bytes_per_state(r: &Row) -> Option<f64> {
    if r.num("states").is_some_and(|s| s < MIN_STATES_FOR_BYTES) {
        return None;
    }
    r.num("bytes_per_state").filter(|b| *b > 0.0)
}

/// Below this many states the store's first allocation (its first hash
/// table and arena chunk), not the states, decides the bytes per state
/// (results/report/NOTES.md).
pub const MIN_STATES_FOR_BYTES: f64 = 10_000.0;

pub(crate) fn store_bytes(r: &Row) -> Option<f64> {
    r.num("store_bytes").filter(|b| *b > 0.0)
}

pub(crate) fn seconds(r: &Row) -> Option<f64> {
    r.num("time_s").or_else(|| r.num("wall_s"))
}

pub(crate) fn fmt_num(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(x) if x == x.trunc() && x.abs() < 1e15 => group_digits(x as i64),
        Some(x) => format!("{x:.3}"),
    }
}

fn group_digits(v: i64) -> String {
    let s = v.abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// |S| per instance.
pub(crate) fn state_space_sizes(rows: &[Row]) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for r in rows {
        if r.get("manifest_complete") == "yes" {
            if let Some(s) = r.num("manifest_states") {
                m.insert(r.get("instance").to_string(), s);
            }
        }
    }
    for r in rows {
        if r.get("result") == Outcome::Complete.name() && EXHAUSTIVE.contains(&r.get("strategy")) {
            if let Some(s) = r.num("states") {
                let e = m.entry(r.get("instance").to_string()).or_insert(0.0);
                if r.get("manifest_complete") != "yes" && s > *e {
                    *e = s;
                }
            }
        }
    }
    m.retain(|_, v| *v > 0.0);
    m
}

/// A row's configuration: the strategy and every parameter of its cell
/// (`spec args`), the seed excepted (seeds repeat a configuration).
pub(crate) fn configuration(r: &Row) -> String {
    if r.get("args").is_empty() {
        r.get("spec").to_string()
    } else {
        format!("{} {}", r.get("spec"), r.get("args"))
    }
}
