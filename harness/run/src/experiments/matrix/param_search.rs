//! Searched parameters: a cache size (say) tried over a list of values, or
//! bisected, per group of cells.

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `search = { param = "cache", per = ["chain_reduction"], bisect = "0.1%" }`:
/// a protocol like the state-caching paper's "cache sizes 5, 10, ... % until a
/// run succeeds". Per group (instance, backend, seed, strategy entry and the
/// values of the `per` parameters) the values of `param` are tried in the
/// order listed; every cell of the group with that value runs (the other
/// parameters vary inside the group), and the group stops after the first
/// value at which one of them is `complete`. With `bisect`, the interval
/// between the last value that failed (or 0) and the first that succeeded is
/// then halved down to that resolution. With `descending = true` the values
/// are listed from the largest down and the group stops after the first
/// value at which no cell is `complete`: the smallest value with a complete
/// run, found from above (it assumes that where no cell completes, none
/// completes at smaller values either; it saves the runs below that value).
/// A descending search moves on at a value's first complete run and runs
/// the rest of the last such value's cells when it ends (so the file holds
/// every cell of the value found, and none of the values above it that a
/// smaller one made needless).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSearch {
    pub(crate) param: String,
    #[serde(default)]
    pub(crate) per: Vec<String>,
    pub(crate) bisect: Option<String>,
    #[serde(default)]
    pub(crate) descending: bool,
}

/// A cell's place in a searched parameter (see `RawSearch`).
#[derive(Clone, Debug, PartialEq)]
pub struct Search {
    /// Cells with one group are one search.
    pub group: String,
    /// The searched parameter (a flag of the cell's command line).
    pub param: String,
    /// The position of the cell's value in the matrix's list (bisection
    /// cells: the position of the first successful value).
    pub step: usize,
    pub value: f64,
    /// `%` or empty: how values are written.
    pub unit: String,
    /// Bisection resolution, in the value's unit.
    pub bisect: Option<f64>,
    /// Values tried from the largest down, until one where none completes.
    pub descending: bool,
}

/// A searched value: a number, or a string holding a number and an optional `%`.
pub(crate) fn search_value(v: &toml::Value) -> Result<(f64, String)> {
    let (x, unit) = match v {
        toml::Value::Integer(i) => (*i as f64, ""),
        toml::Value::Float(f) => (*f, ""),
        toml::Value::String(s) => {
            let (num, unit) = match s.strip_suffix('%') {
                Some(n) => (n, "%"),
                None => (s.as_str(), ""),
            };
            let x: f64 = num
                .trim()
                .parse()
                .map_err(|_| anyhow!("`{v}` is not a number (or a number and `%`)"))?;
            (x, unit)
        }
        other => bail!("`{other}` is not a number"),
    };
    if !x.is_finite() || x < 0.0 {
        bail!("`{v}` is not a non-negative number");
    }
    Ok((x, unit.to_string()))
}

/// A searched value as a command-line value, to `decimals` places.
pub fn search_text(value: f64, unit: &str, decimals: usize) -> String {
    let mut t = format!("{value:.decimals$}");
    if t.contains('.') {
        t = t.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    format!("{t}{unit}")
}

/// Decimal places of a resolution such as `0.1%`.
pub fn decimals_of(resolution: f64) -> usize {
    let mut d = 0;
    while d < 6 && (resolution * 10f64.powi(d as i32)).fract().abs() > 1e-9 {
        d += 1;
    }
    d
}

/// Checks a strategy entry's `search` against its parameters; returns the
/// searched parameter, the bisection resolution and whether it descends.
pub(crate) fn check_search(
    sr: &RawSearch,
    params: &BTreeMap<String, toml::Value>,
    placeholders: &[String],
) -> Result<(String, Option<f64>, bool)> {
    let Some(list) = params.get(&sr.param) else {
        bail!("search: `{}` is not a key of params", sr.param);
    };
    if placeholders.contains(&sr.param) {
        bail!(
            "search: `{}` is a placeholder of the spec; search a flag",
            sr.param
        );
    }
    let values = match list {
        toml::Value::Array(a) => a.clone(),
        one => vec![one.clone()],
    };
    if values.is_empty() {
        bail!("search: `{}` has no values", sr.param);
    }
    let mut last: Option<(f64, String)> = None;
    for v in &values {
        let (x, unit) = search_value(v).with_context(|| format!("search: `{}`", sr.param))?;
        if let Some((y, u)) = &last {
            let (ordered, order) = match sr.descending {
                false => (x > *y, "increasing"),
                true => (x < *y, "decreasing (descending = true)"),
            };
            if *u != unit || !ordered {
                bail!(
                    "search: the values of `{}` must be {order} and in one unit (`{v}` after `{y}{u}`)",
                    sr.param
                );
            }
        }
        last = Some((x, unit));
    }
    for k in &sr.per {
        if k == &sr.param || !params.contains_key(k) {
            bail!("search: `per` names `{k}`, which is not another key of params");
        }
    }
    let bisect = match &sr.bisect {
        None => None,
        Some(_) if sr.descending => bail!("search: `bisect` and `descending` cannot be combined"),
        Some(b) => {
            let (r, unit) = search_value(&toml::Value::String(b.clone()))
                .with_context(|| format!("search: bisect `{b}`"))?;
            let want = &last.as_ref().expect("a value").1;
            if r <= 0.0 || unit != *want {
                bail!("search: bisect `{b}` must be a positive step in the values' unit (`{want}`)");
            }
            Some(r)
        }
    };
    Ok((sr.param.clone(), bisect, sr.descending))
}
