//! Matrices: TOML files naming instances, backends, strategies with
//! parameter grids, seeds and budgets; expanded into a deterministic list of
//! [`Cell`]s, each one run of `dvemc explore`.
//!
//! ```toml
//! name = "example"
//! backends = ["interp"]            # default ["jit"], as `explore`
//! seeds = [1, 2]                   # default: none (no --seed)
//!
//! [instances]
//! names = ["adding.1", "../examples/phils2.dve"]  # BEEM names or .dve paths
//! globs = ["brp.*"]                # over instances.csv names
//! families = ["bakery"]
//! min_states = 1000                # instances.csv state counts
//! max_states = 100000
//! complete = true                  # only instances whose count is exact
//! exclude = ["brp.6"]
//! every_model = true               # every dve/*.dve but the .prop files
//!
//! checkpoints = true               # cells keep a checkpoint (explore --checkpoint), see below
//!
//! [budgets]
//! time = "60s"                     # --time-limit, and the child is killed at time + grace
//! grace = "5s"                     # default 5 s
//! memory = "2G"                    # RLIMIT_AS of the child; 3/4 of it is --memory-limit
//! max_states = 1000000             # --max-states
//! max_visits = 5                   # --max-visits (passed as written)
//!
//! [[strategies]]
//! spec = "bfs"
//!
//! [[strategies]]
//! spec = "bbfs:{w}"                # {key} takes the grid value of `key` (or {seed})
//! # A value may name the instance's figures: "{states}" (instances.csv),
//! # "{levels}" or "{depth}" (its stats file), scaled: "{states*0.15}".
//! params = { w = [1, 16, 256], cache = ["10%", "20%"], edge_lean = [false, true] }
//! ```
//!
//! **Grid to command line.** Every key of `params` is a list of values (a
//! single value is a list of one). The cells are the cartesian product, keys
//! in sorted order, the last key varying fastest. A key that appears as
//! `{key}` in `spec` is substituted there; every other key becomes the flag
//! `--key-with-dashes VALUE` of `dvemc explore` (`true` gives the bare flag
//! `--key`, `false` leaves it out). `strategies = ["bfs", "dfs"]` is short
//! for tables with only `spec`. A strategy table may also set its own
//! `seeds`, `backends`, `instances` and `budgets` (merged over the
//! matrix's).
//!
//! **Checkpoints.** With `checkpoints = true` every cell runs with
//! `--checkpoint DIR/KEY.ckpt` (DIR: the results file's name with
//! `.checkpoints` for `.csv`; KEY: the cell's key, its characters other
//! than letters, digits, `.`, `-` and `_` as `_`), so a search stopped by
//! its time budget, its memory budget or an interruption of the run goes
//! on from where it was when the cell runs again (`--resume
//! --retry-failed` runs a time-limited cell with a checkpoint again: each
//! pass adds a time budget), and a results row counts the processor and
//! wall-clock time of every part. Only `bfs --store ctree` cells take
//! the option. The checkpoint of a cell stopped by its memory budget is
//! removed once its row is written: the same budget would stop it there
//! again, and the file is as large as the store.
//!
//! **Cells** are ordered instance (by name), backend, strategy (as listed),
//! grid point, seed. A cell's key, `instance|backend|spec args|seed`, is
//! unique in a matrix and stable across runs: resume, shards and merges go
//! by it.

mod expand;
mod grid;
mod locate;
mod param_search;
mod selection;

use grid::*;
pub use locate::{locate, MATRICES_ENV};
use param_search::*;
pub use param_search::{decimals_of, search_text, Search};
use selection::*;
pub use selection::{Instance, Selection};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use crate::engine::units::{parse_bytes, parse_duration};
use crate::experiments::util::shell_quote;

/// Default margin between a cell's time budget and the parent's kill.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct RawMatrix {
    name: Option<String>,
    #[allow(dead_code)]
    description: Option<String>,
    #[serde(default)]
    instances: Selection,
    backends: Option<Vec<String>>,
    seeds: Option<Vec<u64>>,
    #[serde(default)]
    budgets: RawBudgets,
    #[serde(default)]
    strategies: Vec<toml::Value>,
    /// Cells whose search can stop and go on (`bfs --store ctree`) keep a
    /// checkpoint beside the results file (`explore --checkpoint`).
    #[serde(default)]
    checkpoints: bool,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawBudgets {
    time: Option<toml::Value>,
    grace: Option<toml::Value>,
    memory: Option<toml::Value>,
    max_states: Option<u64>,
    max_visits: Option<toml::Value>,
}

impl RawBudgets {
    fn over(&self, base: &RawBudgets) -> RawBudgets {
        RawBudgets {
            time: self.time.clone().or_else(|| base.time.clone()),
            grace: self.grace.clone().or_else(|| base.grace.clone()),
            memory: self.memory.clone().or_else(|| base.memory.clone()),
            max_states: self.max_states.or(base.max_states),
            max_visits: self.max_visits.clone().or_else(|| base.max_visits.clone()),
        }
    }

    fn resolve(&self) -> Result<Budgets> {
        let dur = |v: &toml::Value, what: &str| -> Result<Duration> {
            match v {
                toml::Value::Integer(i) if *i >= 0 => Ok(Duration::from_secs(*i as u64)),
                toml::Value::Float(f) if *f >= 0.0 => {
                    Duration::try_from_secs_f64(*f).map_err(|e| anyhow!("budgets.{what}: {e}"))
                }
                toml::Value::String(s) => parse_duration(s).map_err(|e| anyhow!("budgets.{what}: {e}")),
                other => bail!("budgets.{what}: expected seconds or a duration string, got {other}"),
            }
        };
        Ok(Budgets {
            time: self.time.as_ref().map(|v| dur(v, "time")).transpose()?,
            grace: self
                .grace
                .as_ref()
                .map(|v| dur(v, "grace"))
                .transpose()?
                .unwrap_or(DEFAULT_GRACE),
            memory: match &self.memory {
                None => None,
                Some(toml::Value::Integer(i)) if *i > 0 => Some(*i as u64),
                Some(toml::Value::String(s)) => {
                    Some(parse_bytes(s).map_err(|e| anyhow!("budgets.memory: {e}"))?)
                }
                Some(other) => bail!("budgets.memory: expected bytes or a size string, got {other}"),
            },
            max_states: self.max_states,
            max_visits: self.max_visits.as_ref().map(scalar_text).transpose()?,
        })
    }
}

/// A cell's budgets.
#[derive(Clone, Debug, PartialEq)]
pub struct Budgets {
    /// `--time-limit`; the parent kills the child at `time + grace`.
    pub time: Option<Duration>,
    pub grace: Duration,
    /// The child's address-space limit (RLIMIT_AS), in bytes.
    pub memory: Option<u64>,
    /// `--max-states`.
    pub max_states: Option<u64>,
    /// `--max-visits` (as written in the matrix).
    pub max_visits: Option<String>,
}

impl Budgets {
    /// When the parent kills the child.
    pub fn deadline(&self) -> Option<Duration> {
        self.time.map(|t| t + self.grace)
    }

    /// The run's own memory limit (`--memory-limit`): see
    /// [`run_memory_limit`].
    pub fn memory_limit(&self) -> Option<u64> {
        self.memory.map(run_memory_limit)
    }
}

/// The memory limit a run gets (`--memory-limit`) from a budget of
/// `address_space` bytes (its RLIMIT_AS): 3/4 of it, the rest left to
/// code, stacks and the allocator's slack.
pub fn run_memory_limit(address_space: u64) -> u64 {
    address_space / 4 * 3
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RawStrategy {
    spec: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
    seeds: Option<Vec<u64>>,
    backends: Option<Vec<String>>,
    instances: Option<Selection>,
    #[serde(default)]
    budgets: RawBudgets,
    search: Option<RawSearch>,
}

/// One run: `dvemc explore MODEL --strategy SPEC --backend B [--seed S] ARGS.. BUDGET FLAGS --json`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Position in the whole expansion (before sharding).
    pub index: usize,
    pub key: String,
    pub instance: Instance,
    pub backend: String,
    /// The algorithm: `spec` up to the first `:`.
    pub strategy: String,
    /// The `--strategy` value.
    pub spec: String,
    /// The grid's flags, in key order.
    pub args: Vec<String>,
    /// The grid point (key → value as JSON), for the `params` column.
    pub params: serde_json::Map<String, serde_json::Value>,
    pub seed: Option<u64>,
    /// The seed went into `spec` (`{seed}`) rather than `--seed`.
    pub seed_in_spec: bool,
    pub budgets: Budgets,
    /// Set when the cell belongs to a searched parameter.
    pub search: Option<Search>,
}

impl Cell {
    /// The threads one run of this cell uses (`--threads N`; 1 without).
    pub fn threads(&self) -> usize {
        self.args
            .iter()
            .position(|a| a == "--threads")
            .and_then(|i| self.args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(1)
            .max(1)
    }

    /// The same cell with the searched parameter set to `value` (a
    /// bisection step).
    pub fn with_search_value(&self, value: f64) -> Cell {
        let search = self.search.as_ref().expect("a searched cell");
        let decimals = search.bisect.map(decimals_of).unwrap_or(0);
        let text = search_text(value, &search.unit, decimals);
        let flag = format!("--{}", search.param.replace('_', "-"));
        let mut c = self.clone();
        if let Some(i) = c.args.iter().position(|a| *a == flag) {
            c.args[i + 1] = text.clone();
        }
        c.params.insert(search.param.clone(), text.into());
        c.search = Some(Search {
            value,
            ..search.clone()
        });
        c.key = cell_key(&c.instance.name, &c.backend, &c.spec_with_args(), c.seed);
        c
    }

    /// `args` as one shell-quoted string.
    pub fn args_text(&self) -> String {
        self.args
            .iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `spec` followed by the grid's flags: the key's spec part.
    pub fn spec_with_args(&self) -> String {
        let a = self.args_text();
        if a.is_empty() {
            self.spec.clone()
        } else {
            format!("{} {a}", self.spec)
        }
    }

    /// The arguments of `dvemc` for this cell (without the program).
    /// The checkpoint of this cell in `dir` (see the module comment).
    pub fn checkpoint_in(&self, dir: &Path) -> PathBuf {
        let name: String = self
            .key
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        dir.join(format!("{name}.ckpt"))
    }

    pub fn argv(&self, beem: Option<&Path>) -> Vec<String> {
        let mut v = vec![
            "explore".to_string(),
            self.instance.model.display().to_string(),
            "--strategy".into(),
            self.spec.clone(),
            "--backend".into(),
            self.backend.clone(),
        ];
        if let Some(s) = self.seed {
            if !self.seed_in_spec {
                v.push("--seed".into());
                v.push(s.to_string());
            }
        }
        v.extend(self.args.iter().cloned());
        if let Some(t) = self.budgets.time {
            v.push("--time-limit".into());
            v.push(format!("{}", t.as_secs_f64()));
        }
        if let Some(n) = self.budgets.max_states {
            v.push("--max-states".into());
            v.push(n.to_string());
        }
        if let Some(m) = &self.budgets.max_visits {
            v.push("--max-visits".into());
            v.push(m.clone());
        }
        if let Some(m) = self.budgets.memory_limit() {
            // The search stops by itself, with its counters, before the
            // address-space limit is reached.
            v.push("--memory-limit".into());
            v.push(m.to_string());
        }
        if let Some(b) = beem {
            v.push("--beem".into());
            v.push(b.display().to_string());
        }
        v.push("--json".into());
        v
    }

    /// The command line, shell-quoted (for `bench list` and messages).
    pub fn command_line(&self, exe: &str, beem: Option<&Path>) -> String {
        std::iter::once(exe.to_string())
            .chain(self.argv(beem))
            .map(|a| shell_quote(&a))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `instance|backend|spec args|seed` (seed empty when none).
pub fn cell_key(instance: &str, backend: &str, spec_with_args: &str, seed: Option<u64>) -> String {
    let seed = seed.map(|s| s.to_string()).unwrap_or_default();
    format!("{instance}|{backend}|{spec_with_args}|{seed}")
}

/// A parsed matrix file.
#[derive(Debug)]
pub struct Matrix {
    /// `name`, else the file stem.
    pub name: String,
    pub path: PathBuf,
    raw: RawMatrix,
    strategies: Vec<RawStrategy>,
}

impl Matrix {
    /// Loads the matrix `arg` names, found as [`locate`] says; `path` is
    /// where it was found.
    pub fn load(arg: &Path) -> Result<Matrix> {
        let path = locate(arg)?;
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("reading matrix {}", path.display()))?;
        Matrix::parse(&path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Matrix> {
        let raw: RawMatrix = toml::from_str(text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let mut strategies = Vec::new();
        for (i, v) in raw.strategies.iter().enumerate() {
            let s = match v {
                toml::Value::String(spec) => RawStrategy {
                    spec: spec.clone(),
                    params: BTreeMap::new(),
                    seeds: None,
                    backends: None,
                    instances: None,
                    budgets: RawBudgets::default(),
                    search: None,
                },
                toml::Value::Table(_) => v
                    .clone()
                    .try_into::<RawStrategy>()
                    .map_err(|e| anyhow!("{}: strategies[{i}]: {e}", path.display()))?,
                other => bail!(
                    "{}: strategies[{i}]: expected a spec string or a table, got {other}",
                    path.display()
                ),
            };
            strategies.push(s);
        }
        if strategies.is_empty() {
            bail!("{}: the matrix has no strategies", path.display());
        }
        let name = raw.name.clone().unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "matrix".into())
        });
        Ok(Matrix {
            name,
            path: path.to_path_buf(),
            raw,
            strategies,
        })
    }

    /// Whether its cells keep checkpoints (`checkpoints = true`).
    pub fn checkpoints(&self) -> bool {
        self.raw.checkpoints
    }

    /// Whether expanding needs the BEEM directory.
    pub fn needs_beem(&self) -> bool {
        let uses =
            |s: &Selection| s.filters_manifest() || s.every_model || s.names.iter().any(|n| !is_file_name(n));
        uses(&self.raw.instances)
            || self
                .strategies
                .iter()
                .any(|s| s.instances.as_ref().is_some_and(uses))
    }
}

/// The JSON of a cell's grid point for the `params` column.
pub fn params_json(cell: &Cell) -> String {
    serde_json::Value::Object(cell.params.clone()).to_string()
}

/// Parses `K/N` (1 ≤ K ≤ N).
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("`{s}` is not K/N"))?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| format!("`{s}`: K is not a number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("`{s}`: N is not a number"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("`{s}`: need 1 <= K <= N"));
    }
    Ok((k, n))
}

/// The cells on the named instances only (`bench run --instances`: a
/// slice of a matrix, e.g. the few instances `make bench` reproduces of a
/// paper). A name that no cell has is an error, so a typo does not run an
/// empty slice. Searches are per instance, so they stay whole.
pub fn only_instances(cells: Vec<Cell>, names: &[String]) -> Result<Vec<Cell>> {
    let present: std::collections::BTreeSet<&str> = cells.iter().map(|c| c.instance.name.as_str()).collect();
    let missing: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !present.contains(n))
        .collect();
    if !missing.is_empty() {
        bail!(
            "--instances: {} not in the matrix (its instances: {})",
            missing.join(", "),
            present.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(cells
        .into_iter()
        .filter(|c| names.contains(&c.instance.name))
        .collect())
}

/// The cells of shard K of N: every N-th cell of the expansion, starting at
/// the K-th (round robin, so shards get a mix of small and large instances).
/// A search stays in one shard: its cells go with its first cell.
pub fn shard(cells: Vec<Cell>, k: usize, n: usize) -> Vec<Cell> {
    let mut first: HashMap<String, usize> = HashMap::new();
    for c in &cells {
        if let Some(s) = &c.search {
            first.entry(s.group.clone()).or_insert(c.index);
        }
    }
    cells
        .into_iter()
        .filter(|c| {
            let i = c.search.as_ref().map(|s| first[&s.group]).unwrap_or(c.index);
            i % n == k - 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::beem::Beem;

    fn cells(text: &str) -> Vec<Cell> {
        let dir = std::env::temp_dir().join(format!("dvemc-matrix-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("m.dve"),
            "process P { state s; init s; }\nsystem async;\n",
        )
        .unwrap();
        let m = Matrix::parse(&dir.join("t.toml"), text).unwrap();
        m.expand(None).unwrap()
    }

    #[test]
    fn grid_maps_keys_to_spec_and_flags() {
        let c = cells(
            r#"
            [instances]
            names = ["m.dve"]
            [[strategies]]
            spec = "bbfs:{w}"
            params = { w = [1, 16], cache = ["10%", "20%"], edge_lean = [false, true] }
            "#,
        );
        assert_eq!(c.len(), 8);
        let keys: Vec<&str> = c.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(
            keys[0], "m|jit|bbfs:1 --cache 10%|",
            "the backend of explore by default"
        );
        assert_eq!(keys[1], "m|jit|bbfs:16 --cache 10%|");
        assert_eq!(keys[2], "m|jit|bbfs:1 --cache 10% --edge-lean|");
        assert_eq!(keys[7], "m|jit|bbfs:16 --cache 20% --edge-lean|");
        assert_eq!(c[7].strategy, "bbfs");
        assert_eq!(params_json(&c[7]), r#"{"cache":"20%","edge_lean":true,"w":16}"#);
        let argv = c[1].argv(None);
        assert_eq!(argv[2..6], ["--strategy", "bbfs:16", "--backend", "jit"]);
        assert!(argv.ends_with(&["--cache".into(), "10%".into(), "--json".into()]));
    }

    #[test]
    fn every_model_takes_each_instance_file_with_the_manifest_figures() {
        let root = std::env::temp_dir().join(format!("dvemc-matrix-beem-{}", std::process::id()));
        std::fs::create_dir_all(root.join("dve")).unwrap();
        for f in ["a.1.dve", "a.2.dve", "a.2.prop1.dve", "b.1.dve", "notes.txt"] {
            std::fs::write(root.join("dve").join(f), "").unwrap();
        }
        std::fs::write(
            root.join("instances.csv"),
            "instance,family,states,complete,state_size_bytes,beem_reach_time_s\na.1,a,10,yes,4,0.1\nb.1,b,99,no,4,0.1\n",
        )
        .unwrap();
        let beem = Beem::at(&root);
        let m = Matrix::parse(
            &root.join("c.toml"),
            "strategies = [\"bfs\"]\n[instances]\nevery_model = true\nexclude = [\"b.*\"]\n",
        )
        .unwrap();
        assert!(m.needs_beem());
        let c = m.expand(Some(&beem)).unwrap();
        let got: Vec<(&str, Option<u64>, Option<bool>)> = c
            .iter()
            .map(|c| {
                (
                    c.instance.name.as_str(),
                    c.instance.manifest_states,
                    c.instance.manifest_complete,
                )
            })
            .collect();
        assert_eq!(got, [("a.1", Some(10), Some(true)), ("a.2", None, None)]);
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn seeds_budgets_and_shards() {
        let c = cells(
            r#"
            seeds = [3, 4]
            strategies = ["bfs", { spec = "dfs", seeds = [7], budgets = { time = 2 } }]
            [instances]
            names = ["m.dve"]
            [budgets]
            time = "1m"
            memory = "1G"
            "#,
        );
        let keys: Vec<&str> = c.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["m|jit|bfs|3", "m|jit|bfs|4", "m|jit|dfs|7"]);
        assert_eq!(c[0].budgets.time, Some(Duration::from_secs(60)));
        assert_eq!(c[2].budgets.time, Some(Duration::from_secs(2)));
        assert_eq!(c[2].budgets.memory, Some(1 << 30));
        assert_eq!(c[2].budgets.deadline(), Some(Duration::from_secs(7)));
        let argv = c[0].argv(None);
        assert!(argv.windows(2).any(|w| w == ["--seed", "3"]));
        assert!(argv.windows(2).any(|w| w == ["--time-limit", "60"]));
        let s: Vec<usize> = shard(c.clone(), 2, 2).iter().map(|c| c.index).collect();
        assert_eq!(s, [1]);
        assert_eq!(parse_shard("2/3"), Ok((2, 3)));
        assert!(parse_shard("0/3").is_err() && parse_shard("4/3").is_err());
    }

    #[test]
    fn errors() {
        let dir = std::env::temp_dir();
        let bad = |t: &str| {
            Matrix::parse(&dir.join("x.toml"), t)
                .and_then(|m| m.expand(None))
                .unwrap_err()
                .to_string()
        };
        assert!(bad("strategies = []").contains("no strategies"));
        assert!(bad("strategies = [{ spec = \"x:{w}\" }]").contains("not a key of params"));
        assert!(bad("strategies = [\"bfs\"]\nbogus = 1").contains("bogus"));
        let search = |params: &str, search: &str| {
            let dir = std::env::temp_dir().join(format!("dvemc-matrix-search-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("m.dve"), "").unwrap();
            let text = format!(
                "[instances]\nnames = [\"m.dve\"]\n[[strategies]]\nspec = \"dfs\"\nparams = {params}\nsearch = {search}\n"
            );
            Matrix::parse(&dir.join("t.toml"), &text)
                .and_then(|m| m.expand(None))
                .map_err(|e| format!("{e:#}"))
        };
        let err = |p: &str, s: &str| search(p, s).unwrap_err();
        assert!(err("{ cache = [\"5%\"] }", "{ param = \"nosuch\" }").contains("`nosuch` is not a key"));
        assert!(err("{ cache = [\"10%\", \"5%\"] }", "{ param = \"cache\" }").contains("increasing"));
        assert!(err("{ cache = [\"5%\", 10] }", "{ param = \"cache\" }").contains("one unit"));
        assert!(err("{ cache = [\"5%\"] }", "{ param = \"cache\", per = [\"cr\"] }").contains("`cr`"));
        assert!(err("{ cache = [\"5%\"] }", "{ param = \"cache\", bisect = \"1\" }").contains("unit"));
        assert!(err("{ cache = [\"x%\"] }", "{ param = \"cache\" }").contains("not a number"));
        assert!(err("{ cache = [nan, 5.0] }", "{ param = \"cache\" }").contains("non-negative"));
        assert!(err("{ cache = [] }", "{ param = \"cache\", bisect = \"1\" }").contains("no values"));
        assert!(err(
            "{ cache = [\"5%\", \"10%\"] }",
            "{ param = \"cache\", descending = true }"
        )
        .contains("decreasing"));
        assert!(err(
            "{ cache = [\"10%\", \"5%\"] }",
            "{ param = \"cache\", descending = true, bisect = \"1%\" }"
        )
        .contains("cannot be combined"));
        let ok = search(
            "{ cache = [\"5%\", \"10%\"], chain_reduction = [false, true] }",
            "{ param = \"cache\", per = [\"chain_reduction\"], bisect = \"0.1%\" }",
        )
        .unwrap();
        let groups: std::collections::HashSet<&str> = ok
            .iter()
            .map(|c| c.search.as_ref().unwrap().group.as_str())
            .collect();
        assert_eq!((ok.len(), groups.len()), (4, 2));
        // A shard holds whole searches (every third cell would split them).
        let three = search(
            "{ cache = [\"5%\", \"10%\", \"15%\"], chain_reduction = [false, true] }",
            "{ param = \"cache\", per = [\"chain_reduction\"] }",
        )
        .unwrap();
        let shards: Vec<Vec<Cell>> = (1..=3).map(|k| shard(three.clone(), k, 3)).collect();
        assert_eq!(shards.iter().map(Vec::len).sum::<usize>(), three.len());
        for s in &shards {
            for c in s {
                let g = &c.search.as_ref().unwrap().group;
                assert_eq!(
                    three
                        .iter()
                        .filter(|x| &x.search.as_ref().unwrap().group == g)
                        .count(),
                    s.iter()
                        .filter(|x| &x.search.as_ref().unwrap().group == g)
                        .count()
                );
            }
        }
        let mid = ok[0].with_search_value(7.5);
        assert!(mid.key.contains("--cache 7.5%"), "{}", mid.key);
        assert_eq!(ok[0].with_search_value(7.0).params["cache"], "7%");
    }
}
