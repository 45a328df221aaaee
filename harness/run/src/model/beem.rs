//! The BEEM benchmark directory: where it is and what its reference files say.
//!
//! [`locate_beem`] finds the directory (flag, `BEEM_DIR`, the working
//! directory, the executable's location, the source tree); [`Beem`] reads
//! `instances.csv`, `properties.csv` and `stats/<instance>.stat.xml`.
//! The BEEM files are read-only data and never copied into the project.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::engine::DfsStats;

/// Environment variable naming the BEEM directory.
pub const BEEM_DIR_ENV: &str = "BEEM_DIR";

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("BEEM directory {path} (from {origin}) does not exist or is not a directory")]
    BadDir { path: PathBuf, origin: &'static str },
    #[error(
        "BEEM directory not found; use --beem DIR or set {BEEM_DIR_ENV} (looked in: {})",
        tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NotFound { tried: Vec<PathBuf> },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Csv { path: PathBuf, source: csv::Error },
    #[error("{}:{line}: {msg}", path.display())]
    Parse { path: PathBuf, line: u64, msg: String },
}

/// Whether `dir` looks like a BEEM directory (has `instances.csv` or `dve/`).
pub fn looks_like_beem(dir: &Path) -> bool {
    dir.is_dir() && (dir.join("instances.csv").is_file() || dir.join("dve").is_dir())
}

/// The candidate directories in order of precedence, each with its origin.
/// The flag and the environment variable, when given, are taken as they are.
fn candidates(explicit: Option<&Path>) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    if let Some(p) = explicit {
        out.push((p.to_path_buf(), "--beem"));
    }
    if let Some(v) = std::env::var_os(BEEM_DIR_ENV) {
        if !v.is_empty() {
            out.push((PathBuf::from(v), BEEM_DIR_ENV));
        }
    }
    if let Ok(cwd) = std::env::current_dir() {
        out.push((cwd.join("../shared/beem"), "working directory"));
    }
    if let Ok(exe) = std::env::current_exe() {
        let exe = exe.canonicalize().unwrap_or(exe);
        for dir in exe.ancestors().skip(1) {
            out.push((dir.join("../shared/beem"), "executable location"));
        }
    }
    out.push((
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/beem"),
        "source tree",
    ));
    out
}

/// Finds the BEEM directory: `--beem DIR` > `$BEEM_DIR` > `../shared/beem`
/// from the working directory > `../shared/beem` from any ancestor of the
/// executable's directory > `../../shared/beem` from this crate's source.
/// An explicitly given directory (flag or variable) that does not exist is
/// an error, not a reason to look elsewhere.
pub fn locate_beem(explicit: Option<&Path>) -> Result<PathBuf, ManifestError> {
    let mut tried = Vec::new();
    for (path, origin) in candidates(explicit) {
        let strict = origin == "--beem" || origin == BEEM_DIR_ENV;
        if strict {
            if path.is_dir() {
                return Ok(path);
            }
            return Err(ManifestError::BadDir { path, origin });
        }
        if looks_like_beem(&path) {
            return Ok(normalize(&path));
        }
        tried.push(path);
    }
    Err(ManifestError::NotFound { tried })
}

fn normalize(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// A row of `instances.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstanceRow {
    pub instance: String,
    pub family: String,
    /// Reachable states (exact when `complete`, else a lower bound).
    pub states: Option<u64>,
    pub complete: bool,
    pub state_size_bytes: Option<u32>,
    pub beem_reach_time_s: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PropertyKind {
    Reachability,
    Ltl,
}

/// `beem_answer`: yes = goal reachable / LTL property violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Yes,
    No,
    Unknown,
}

/// A row of `properties.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PropertyRow {
    pub instance: String,
    pub family: String,
    pub prop_id: u32,
    pub kind: PropertyKind,
    pub formula: String,
    pub beem_answer: Answer,
    pub cex_length: Option<u64>,
    pub parameters: String,
    pub description: String,
}

/// One `<level>` of `<bfs-levels>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StatLevel {
    pub states: u64,
    pub edges: u64,
}

/// What the harness uses of a `stats/<instance>.stat.xml` file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatFile {
    pub states: u64,
    pub edges: u64,
    pub levels: u64,
    /// Largest number of states in one level (`<max-level>`).
    pub max_level: Option<u64>,
    pub back_level_edges: u64,
    pub max_back_level_edge: Option<u64>,
    pub avg_back_level_edge: Option<f64>,
    pub bfs_levels: Vec<StatLevel>,
    pub dfs: Option<DfsStats>,
}

/// A BEEM directory.
#[derive(Clone, Debug)]
pub struct Beem {
    root: PathBuf,
}

impl Beem {
    /// Uses `root` as it is.
    pub fn at(root: impl Into<PathBuf>) -> Beem {
        Beem { root: root.into() }
    }

    /// [`locate_beem`] then [`Beem::at`].
    pub fn locate(explicit: Option<&Path>) -> Result<Beem, ManifestError> {
        locate_beem(explicit).map(Beem::at)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `dve/<instance>.dve`.
    pub fn model_path(&self, instance: &str) -> PathBuf {
        self.root.join("dve").join(format!("{instance}.dve"))
    }

    /// The instances of `dve/`: every `<instance>.dve` that is not a
    /// property model (`*.prop<k>.dve`), by name. instances.csv lists only
    /// some of them.
    pub fn models(&self) -> std::io::Result<Vec<String>> {
        let mut names: Vec<String> = std::fs::read_dir(self.root.join("dve"))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let stem = name.strip_suffix(".dve")?;
                let is_property = stem
                    .rsplit_once('.')
                    .is_some_and(|(_, last)| last.starts_with("prop"));
                (!is_property).then(|| stem.to_string())
            })
            .collect();
        names.sort();
        Ok(names)
    }

    /// `dve/<instance>.prop<k>.dve`.
    pub fn property_model_path(&self, instance: &str, prop_id: u32) -> PathBuf {
        self.root
            .join("dve")
            .join(format!("{instance}.prop{prop_id}.dve"))
    }

    /// The atomic propositions `families/<family>.xml` names (`<ap-name>`,
    /// `<ap-expression>`), in file order; BEEM's LTL formulas may use them.
    pub fn family_propositions(&self, family: &str) -> Result<Vec<(String, String)>, ManifestError> {
        let path = self.root.join("families").join(format!("{family}.xml"));
        let text = std::fs::read_to_string(&path).map_err(|source| ManifestError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(parse_family_propositions(&text))
    }

    /// `stats/<instance>.stat.xml`.
    pub fn stats_path(&self, instance: &str) -> PathBuf {
        self.root.join("stats").join(format!("{instance}.stat.xml"))
    }

    pub fn instances(&self) -> Result<Vec<InstanceRow>, ManifestError> {
        read_instances(&self.root.join("instances.csv"))
    }

    pub fn properties(&self) -> Result<Vec<PropertyRow>, ManifestError> {
        read_properties(&self.root.join("properties.csv"))
    }

    /// The parsed stat file of `instance`, `None` if there is none.
    pub fn stats(&self, instance: &str) -> Result<Option<StatFile>, ManifestError> {
        let path = self.stats_path(instance);
        if !path.is_file() {
            return Ok(None);
        }
        read_stat_xml(&path).map(Some)
    }

    /// Instances that have a stat file, sorted.
    pub fn stats_instances(&self) -> Result<Vec<String>, ManifestError> {
        let dir = self.root.join("stats");
        let rd = std::fs::read_dir(&dir).map_err(|source| ManifestError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut out = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|source| ManifestError::Io {
                path: dir.clone(),
                source,
            })?;
            if let Some(name) = entry.file_name().to_str() {
                if let Some(inst) = name.strip_suffix(".stat.xml") {
                    out.push(inst.to_string());
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

/// Reads a CSV file with a header into (header index lookup, records).
fn read_csv(path: &Path) -> Result<(csv::StringRecord, Vec<csv::StringRecord>), ManifestError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .map_err(|e| csv_err(path, e))?;
    let headers = rdr.headers().map_err(|e| csv_err(path, e))?.clone();
    let mut rows = Vec::new();
    for rec in rdr.records() {
        rows.push(rec.map_err(|e| csv_err(path, e))?);
    }
    Ok((headers, rows))
}

fn csv_err(path: &Path, e: csv::Error) -> ManifestError {
    ManifestError::Csv {
        path: path.to_path_buf(),
        source: e,
    }
}

struct Columns<'a> {
    path: &'a Path,
    headers: csv::StringRecord,
}

impl Columns<'_> {
    fn index(&self, name: &str) -> Result<usize, ManifestError> {
        self.headers
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| ManifestError::Parse {
                path: self.path.to_path_buf(),
                line: 1,
                msg: format!("missing column `{name}`"),
            })
    }
    fn err(&self, rec: &csv::StringRecord, msg: String) -> ManifestError {
        ManifestError::Parse {
            path: self.path.to_path_buf(),
            line: rec.position().map(|p| p.line()).unwrap_or(0),
            msg,
        }
    }
}

fn field(rec: &csv::StringRecord, i: usize) -> &str {
    rec.get(i).unwrap_or("").trim()
}

fn opt_num<T: std::str::FromStr>(
    cols: &Columns,
    rec: &csv::StringRecord,
    i: usize,
    name: &str,
) -> Result<Option<T>, ManifestError> {
    let s = field(rec, i);
    if s.is_empty() {
        return Ok(None);
    }
    s.parse::<T>()
        .map(Some)
        .map_err(|_| cols.err(rec, format!("bad {name} `{s}`")))
}

/// Reads `instances.csv`.
pub fn read_instances(path: &Path) -> Result<Vec<InstanceRow>, ManifestError> {
    let (headers, rows) = read_csv(path)?;
    let cols = Columns { path, headers };
    let (ci, cf, cs, cc, csz, ct) = (
        cols.index("instance")?,
        cols.index("family")?,
        cols.index("states")?,
        cols.index("complete")?,
        cols.index("state_size_bytes")?,
        cols.index("beem_reach_time_s")?,
    );
    let mut out = Vec::with_capacity(rows.len());
    for rec in &rows {
        let complete = match field(rec, cc) {
            "yes" | "true" | "1" => true,
            "no" | "false" | "0" | "" => false,
            other => return Err(cols.err(rec, format!("bad complete `{other}`"))),
        };
        out.push(InstanceRow {
            instance: field(rec, ci).to_string(),
            family: field(rec, cf).to_string(),
            states: opt_num(&cols, rec, cs, "states")?,
            complete,
            state_size_bytes: opt_num(&cols, rec, csz, "state_size_bytes")?,
            beem_reach_time_s: opt_num(&cols, rec, ct, "beem_reach_time_s")?,
        });
    }
    Ok(out)
}

/// Reads `properties.csv`.
pub fn read_properties(path: &Path) -> Result<Vec<PropertyRow>, ManifestError> {
    let (headers, rows) = read_csv(path)?;
    let cols = Columns { path, headers };
    let idx = [
        "instance",
        "family",
        "prop_id",
        "type",
        "formula",
        "beem_answer",
        "cex_length",
        "parameters",
        "description",
    ]
    .map(|n| cols.index(n));
    let mut ix = [0usize; 9];
    for (k, r) in idx.into_iter().enumerate() {
        ix[k] = r?;
    }
    let mut out = Vec::with_capacity(rows.len());
    for rec in &rows {
        let kind = match field(rec, ix[3]).to_ascii_lowercase().as_str() {
            "reachability" => PropertyKind::Reachability,
            "ltl" => PropertyKind::Ltl,
            other => return Err(cols.err(rec, format!("bad type `{other}`"))),
        };
        let beem_answer = match field(rec, ix[5]) {
            "yes" => Answer::Yes,
            "no" => Answer::No,
            "unknown" | "" => Answer::Unknown,
            other => return Err(cols.err(rec, format!("bad beem_answer `{other}`"))),
        };
        out.push(PropertyRow {
            instance: field(rec, ix[0]).to_string(),
            family: field(rec, ix[1]).to_string(),
            prop_id: opt_num(&cols, rec, ix[2], "prop_id")?
                .ok_or_else(|| cols.err(rec, "empty prop_id".into()))?,
            kind,
            // The formulas were expanded from m4 templates; "`'" is m4's empty
            // quoted string, left in some (`Bottle_1.q`'4` means `Bottle_1.q4`).
            formula: field(rec, ix[4]).replace("`'", ""),
            beem_answer,
            cex_length: opt_num(&cols, rec, ix[6], "cex_length")?,
            parameters: field(rec, ix[7]).to_string(),
            description: field(rec, ix[8]).to_string(),
        });
    }
    Ok(out)
}

/// Reads and parses a `stat.xml` file.
pub fn read_stat_xml(path: &Path) -> Result<StatFile, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_stat_xml(&text).map_err(|msg| ManifestError::Parse {
        path: path.to_path_buf(),
        line: 0,
        msg,
    })
}

/// The text between `<tag>` (or `<tag attrs>`) and `</tag>`, first occurrence.
fn element<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}");
    let mut from = 0;
    loop {
        let at = from + text[from..].find(&open)?;
        let after = &text[at + open.len()..];
        // Must be exactly this tag: next char ends the name.
        match after.chars().next() {
            Some('>') | Some(' ') | Some('\t') | Some('\n') | Some('\r') => {
                let gt = after.find('>')?;
                let body_start = at + open.len() + gt + 1;
                let close = format!("</{tag}>");
                let end = body_start + text[body_start..].find(&close)?;
                return Some(&text[body_start..end]);
            }
            _ => from = at + open.len(),
        }
    }
}

fn num<T: std::str::FromStr>(text: &str, tag: &str) -> Result<T, String> {
    let v = element(text, tag)
        .ok_or_else(|| format!("missing <{tag}>"))?
        .trim();
    v.parse::<T>().map_err(|_| format!("bad <{tag}> value `{v}`"))
}

fn opt<T: std::str::FromStr>(text: &str, tag: &str) -> Result<Option<T>, String> {
    match element(text, tag) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<T>()
            .map(Some)
            .map_err(|_| format!("bad <{tag}> value `{}`", v.trim())),
    }
}

/// The `(<ap-name>, <ap-expression>)` pairs of a family file's text.
pub fn parse_family_propositions(text: &str) -> Vec<(String, String)> {
    fn element<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
        let open = format!("<{tag}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&format!("</{tag}>"))? + start;
        Some(&text[start..end])
    }
    let unescape = |s: &str| {
        s.trim()
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    };
    text.split("<ap>")
        .skip(1)
        .filter_map(|ap| {
            let name = element(ap, "ap-name")?;
            let expr = element(ap, "ap-expression")?;
            Some((unescape(name), unescape(expr)))
        })
        .collect()
}

/// Parses the parts of a BEEM `stat.xml` text the harness uses: total states
/// and edges, the BFS summary and level table, and the DFS counters.
pub fn parse_stat_xml(text: &str) -> Result<StatFile, String> {
    let bfs_at = text.find("<bfs-info").unwrap_or(text.len());
    let head = &text[..bfs_at];
    let states = num(head, "states")?;
    let edges = num(head, "edges")?;
    let bfs = element(text, "bfs-info").ok_or("missing <bfs-info>")?;
    let mut bfs_levels = Vec::new();
    if let Some(table) = element(bfs, "bfs-levels") {
        let mut rest = table;
        while let Some(at) = rest.find("<level") {
            let after = &rest[at..];
            let end = after.find("</level>").ok_or("unterminated <level>")?;
            let item = &after[..end];
            let id_ok = item.find("id=\"").and_then(|i| {
                let s = &item[i + 4..];
                s.find('"').and_then(|j| s[..j].parse::<usize>().ok())
            });
            if id_ok != Some(bfs_levels.len()) {
                return Err(format!("level ids out of order at level {}", bfs_levels.len()));
            }
            bfs_levels.push(StatLevel {
                states: num(item, "states")?,
                edges: num(item, "edges")?,
            });
            rest = &after[end + "</level>".len()..];
        }
    }
    let dfs = match element(text, "dfs-info") {
        None => None,
        Some(d) => Some(DfsStats {
            max_stack: num(d, "max-stack")?,
            front_edges: num(d, "front-edges")?,
            back_edges: num(d, "back-edges")?,
            cross_edges: num(d, "cross-edges")?,
        }),
    };
    Ok(StatFile {
        states,
        edges,
        levels: num(bfs, "levels")?,
        max_level: opt(bfs, "max-level")?,
        back_level_edges: num(bfs, "back-level-edges")?,
        max_back_level_edge: opt(bfs, "max-back-level-edge")?,
        avg_back_level_edge: opt(bfs, "avg-back-level-edge")?,
        bfs_levels,
        dfs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<?xml version="1.0"?>
<state-space-info>
<states>80</states>
<edges>212</edges>
<bfs-info>
 <levels>3</levels>
<max-level>16</max-level>

<back-level-edges>68</back-level-edges>
<max-back-level-edge>3</max-back-level-edge>
<avg-back-level-edge>3</avg-back-level-edge>
<bfs-levels>
<level id="0"><states>1</states><edges>4</edges></level>
<level id="1"><states>4</states><edges>12</edges></level>
<level id="2"><states>75</states><edges>196</edges></level>
</bfs-levels>
<back-level-length id="0">0</back-level-length>
</bfs-info>
<dfs-info>
<stack-size id="36">0.217037</stack-size>
<max-stack>58</max-stack>
<front-edges>79</front-edges>
<back-edges>55</back-edges>
<cross-edges>78</cross-edges>
</dfs-info>
</state-space-info>
"#;

    #[test]
    fn parses_sample() {
        let s = parse_stat_xml(SAMPLE).unwrap();
        assert_eq!(s.states, 80);
        assert_eq!(s.edges, 212);
        assert_eq!(s.levels, 3);
        assert_eq!(s.max_level, Some(16));
        assert_eq!(s.back_level_edges, 68);
        assert_eq!(s.max_back_level_edge, Some(3));
        assert_eq!(s.bfs_levels.len(), 3);
        assert_eq!(
            s.bfs_levels[2],
            StatLevel {
                states: 75,
                edges: 196
            }
        );
        assert_eq!(
            s.dfs,
            Some(DfsStats {
                max_stack: 58,
                front_edges: 79,
                back_edges: 55,
                cross_edges: 78
            })
        );
    }

    #[test]
    fn element_matches_whole_tag_names() {
        assert_eq!(element("<levels>3</levels><level>x</level>", "level"), Some("x"));
        assert_eq!(element("<a>1</a>", "b"), None);
    }

    #[test]
    fn rejects_missing_fields() {
        assert!(parse_stat_xml("<state-space-info></state-space-info>").is_err());
    }

    #[test]
    fn reads_csvs_with_quoted_fields() {
        let dir = std::env::temp_dir().join(format!("dvemc-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let inst = dir.join("instances.csv");
        std::fs::write(
            &inst,
            "instance,family,states,complete,state_size_bytes,beem_reach_time_s\n\
             a.1,a,7372,yes,10,0.5\nb.2,b,99,no,,\n",
        )
        .unwrap();
        let rows = read_instances(&inst).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].states, Some(7372));
        assert!(rows[0].complete);
        assert!(!rows[1].complete);
        assert_eq!(rows[1].state_size_bytes, None);
        let props = dir.join("properties.csv");
        std::fs::write(
            &props,
            "instance,family,prop_id,type,formula,beem_answer,cex_length,parameters,description\n\
             a.1,a,1,reachability,(c==17),yes,16,\"MAX=20, VAL=17\",Variable c equals, really.\n",
        )
        .unwrap();
        // The unquoted description with a comma makes one field too many.
        assert!(read_properties(&props).is_err());
        std::fs::write(
            &props,
            "instance,family,prop_id,type,formula,beem_answer,cex_length,parameters,description\n\
             a.1,a,1,reachability,(c==17),yes,16,\"MAX=20, VAL=17\",\"Variable c, equals\"\n\
             a.1,a,2,LTL,G F p,unknown,0,N=3,x\n",
        )
        .unwrap();
        let p = read_properties(&props).unwrap();
        assert_eq!(p[0].parameters, "MAX=20, VAL=17");
        assert_eq!(p[0].description, "Variable c, equals");
        assert_eq!(p[0].kind, PropertyKind::Reachability);
        assert_eq!(p[0].beem_answer, Answer::Yes);
        assert_eq!(p[1].kind, PropertyKind::Ltl);
        assert_eq!(p[1].beem_answer, Answer::Unknown);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn explicit_missing_dir_is_an_error() {
        let e = locate_beem(Some(Path::new("/nonexistent/beem/dir"))).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/beem/dir"));
    }

    /// Reads the real BEEM files when they are there.
    #[test]
    fn real_beem_files_parse() {
        let Ok(root) = locate_beem(None) else { return };
        let beem = Beem::at(root);
        let inst = beem.instances().unwrap();
        assert!(inst.len() > 200);
        let a = inst.iter().find(|r| r.instance == "adding.1").unwrap();
        assert_eq!(
            (a.states, a.complete, a.state_size_bytes),
            (Some(7372), true, Some(10))
        );
        let props = beem.properties().unwrap();
        assert!(props.len() > 600);
        let s = beem.stats("adding.1").unwrap().unwrap();
        assert_eq!(
            (s.states, s.edges, s.levels, s.back_level_edges),
            (7372, 11144, 31, 2380)
        );
        assert_eq!(s.bfs_levels.len(), 31);
        assert_eq!(s.bfs_levels.iter().map(|l| l.states).sum::<u64>(), 7372);
        assert_eq!(s.bfs_levels.iter().map(|l| l.edges).sum::<u64>(), 11144);
        assert_eq!(s.dfs.unwrap().max_stack, 40);
        for inst in beem.stats_instances().unwrap() {
            let s = beem.stats(&inst).unwrap().unwrap();
            assert_eq!(s.bfs_levels.len() as u64, s.levels, "{inst}");
            assert_eq!(
                s.bfs_levels.iter().map(|l| l.states).sum::<u64>(),
                s.states,
                "{inst}"
            );
            assert!(s.dfs.is_some(), "{inst}");
        }
    }
}
