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
}

impl Spec {
    /// The names `--strategy` accepts, for messages.
    pub const FORMS: &'static str = "bfs, dfs";
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
            _ => Err(format!("unknown strategy `{s}` (expected one of: {})", Spec::FORMS)),
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Bfs => f.write_str("bfs"),
            Spec::Dfs => f.write_str("dfs"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        for s in ["bfs", "dfs"] {
            assert_eq!(s.parse::<Spec>().unwrap().to_string(), s);
        }
        assert!("bfs:3".parse::<Spec>().unwrap_err().contains("no parameters"));
        assert!("nope".parse::<Spec>().unwrap_err().contains("unknown strategy"));
    }
}
