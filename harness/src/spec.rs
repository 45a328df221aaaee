//! Strategy specs: the `--strategy` value of `dvemc explore`, parsed into a
//! typed enum whose `Display` is the normalised form written into reports,
//! so a row can always be re-run. Each algorithm family adds its variant
//! and its parse arm here.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// Exhaustive breadth-first search.
    Bfs,
    /// Exhaustive depth-first search.
    Dfs,
    /// Iterative depth-bounded DFS (Udupa, Desai, Rajamani); its parameters
    /// are the `--depth-cutoff`, `--increment`, `--dbdfs` and `--frontier`
    /// options of `explore` (see `dbdfs.rs`).
    Dbdfs,
    /// Bounded-width BFS of the state-caching paper (`bbfs:W`, W a width
    /// or `inf`; `None` = ∞); runs the general algorithm of `caching`.
    Bbfs(Option<u64>),
    /// Alternation of BFS and DFS, Alt(b, d) (`alt:B,D`, each a number or
    /// `inf`); runs the general algorithm of `caching`.
    Alt(Option<u64>, Option<u64>),
    /// Highway simulation (Algorithm 1 of Meulen, Stappers, Willemse),
    /// `--breadth N`; see `bbmc.rs`.
    Highway,
    /// Breadth-bounded model checking: Algorithm 2 (`--breadth N`) or 3
    /// (`--degrade-depth D`) and a witness search on the slice; `bbmc.rs`.
    Bbmc,
    /// Uniform Random Search with a memory of `--memory-states N` states
    /// (Abed, Tripakis, Vincent); stops when the memory is full.
    Urs,
    /// Simplified Deep Random Search, memory-aware; stops when full.
    Sdrs,
    /// URS re-initialized when the memory is full (`--restart`).
    Rurs,
    /// SDRS re-initialized when the memory is full (`--restart`).
    Rsdrs,
    /// Plain random walk (restart from the initial state at deadlocks).
    RandomWalk,
}

impl Spec {
    /// The names `--strategy` accepts, for messages.
    pub const FORMS: &'static str =
        "bfs, dfs, dbdfs, bbfs:W, alt:B,D, highway, bbmc, urs, sdrs, rurs, rsdrs, random-walk";
}

impl FromStr for Spec {
    type Err = String;
    fn from_str(s: &str) -> Result<Spec, String> {
        let (name, params) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        let no_params = |spec: Spec| match params {
            None => Ok(spec),
            Some(_) => Err(format!("strategy `{name}` takes no parameters")),
        };
        match name {
            "bfs" => no_params(Spec::Bfs),
            "dfs" => no_params(Spec::Dfs),
            "bbfs" => {
                let p = params.ok_or("strategy `bbfs` needs a width: bbfs:W (a number or inf)")?;
                match parse_bound(p)? {
                    Some(0) => Err("the width of bbfs must be at least 1".into()),
                    w => Ok(Spec::Bbfs(w)),
                }
            }
            "alt" => {
                let p = params.ok_or("strategy `alt` needs two depths: alt:B,D (numbers or inf)")?;
                let (b, d) = p
                    .split_once(',')
                    .ok_or_else(|| format!("`{s}`: expected alt:B,D"))?;
                Ok(Spec::Alt(parse_bound(b)?, parse_bound(d)?))
            }
            "dbdfs" => no_params(Spec::Dbdfs),
            "highway" => no_params(Spec::Highway),
            "bbmc" => no_params(Spec::Bbmc),
            "urs" => no_params(Spec::Urs),
            "sdrs" => no_params(Spec::Sdrs),
            "rurs" => no_params(Spec::Rurs),
            "rsdrs" => no_params(Spec::Rsdrs),
            "random-walk" => no_params(Spec::RandomWalk),
            _ => Err(format!(
                "unknown strategy `{s}` (expected one of: {})",
                Spec::FORMS
            )),
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Bfs => f.write_str("bfs"),
            Spec::Dfs => f.write_str("dfs"),
            Spec::Dbdfs => f.write_str("dbdfs"),
            Spec::Bbfs(w) => write!(f, "bbfs:{}", bound_text(*w)),
            Spec::Alt(b, d) => write!(f, "alt:{},{}", bound_text(*b), bound_text(*d)),
            Spec::Highway => f.write_str("highway"),
            Spec::Bbmc => f.write_str("bbmc"),
            Spec::Urs => f.write_str("urs"),
            Spec::Sdrs => f.write_str("sdrs"),
            Spec::Rurs => f.write_str("rurs"),
            Spec::Rsdrs => f.write_str("rsdrs"),
            Spec::RandomWalk => f.write_str("random-walk"),
        }
    }
}

/// A number or `inf` (`None`).
fn parse_bound(p: &str) -> Result<Option<u64>, String> {
    match p.trim() {
        "inf" | "∞" => Ok(None),
        t => t
            .parse::<u64>()
            .map(Some)
            .map_err(|_| format!("`{p}` is not a number or `inf`")),
    }
}

fn bound_text(b: Option<u64>) -> String {
    b.map_or_else(|| "inf".to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        for s in [
            "bfs",
            "dfs",
            "dbdfs",
            "bbfs:4",
            "bbfs:inf",
            "alt:8,4",
            "alt:inf,0",
            "alt:0,inf",
            "highway",
            "bbmc",
            "urs",
            "sdrs",
            "rurs",
            "rsdrs",
            "random-walk",
        ] {
            assert_eq!(s.parse::<Spec>().unwrap().to_string(), s);
        }
        assert!("bfs:3".parse::<Spec>().unwrap_err().contains("no parameters"));
        assert!("nope".parse::<Spec>().unwrap_err().contains("unknown strategy"));
    }
}
