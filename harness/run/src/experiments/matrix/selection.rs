//! Which instances a matrix runs on: names, globs, families and sizes,
//! resolved against BEEM's instances.csv and `dve/` folder.

use crate::experiments::util::{glob_match, is_glob};
use crate::model::beem::{Beem, InstanceRow};
use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Which instances a matrix (or one strategy of it) runs on.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// BEEM instance names, or paths to `.dve` files (relative to the matrix
    /// file; a `*` in the file name globs that directory).
    #[serde(default)]
    pub names: Vec<String>,
    /// Globs over the instance names of instances.csv.
    #[serde(default)]
    pub globs: Vec<String>,
    #[serde(default)]
    pub families: Vec<String>,
    pub min_states: Option<u64>,
    pub max_states: Option<u64>,
    /// Only instances whose state count in instances.csv is exact.
    pub complete: Option<bool>,
    /// Globs of instance names to leave out (applies to `names` too).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Every instance in BEEM's `dve/` (not only instances.csv's rows),
    /// with instances.csv's figures where it has them.
    #[serde(default)]
    pub every_model: bool,
}

impl Selection {
    pub(crate) fn filters_manifest(&self) -> bool {
        !self.globs.is_empty()
            || !self.families.is_empty()
            || self.min_states.is_some()
            || self.max_states.is_some()
            || self.complete.is_some()
    }
}

/// One instance to run on.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub name: String,
    pub family: String,
    /// The file passed to `explore`.
    pub model: PathBuf,
    /// How the `model` column shows it: `$BEEM/dve/NAME.dve` for a BEEM
    /// instance, the path as the matrix wrote it for a file.
    pub model_display: String,
    pub manifest_states: Option<u64>,
    pub manifest_complete: Option<bool>,
}

/// A grid value with the instance's figures put in: `{states}` (its state
/// count in instances.csv), `{levels}` (BFS levels in its stats file),
/// `{depth}` (`levels - 1`: the depth of its deepest state), each
/// optionally scaled, `{states*0.15}` (rounded up). Other text is kept.
pub(crate) fn instance_value(v: &str, inst: &Instance, beem: Option<&Beem>) -> Result<String> {
    let Some(open) = v.find('{') else {
        return Ok(v.to_string());
    };
    let close = v[open..]
        .find('}')
        .map(|c| open + c)
        .ok_or_else(|| anyhow!("`{v}`: an unclosed {{"))?;
    let inner = &v[open + 1..close];
    let (name, factor) = match inner.split_once('*') {
        Some((n, f)) => (
            n.trim(),
            f.trim()
                .parse::<f64>()
                .map_err(|_| anyhow!("`{v}`: `{f}` is not a number"))?,
        ),
        None => (inner.trim(), 1.0),
    };
    let stats = || -> Result<crate::model::beem::StatFile> {
        beem.and_then(|b| b.stats(&inst.name).ok().flatten())
            .ok_or_else(|| anyhow!("`{v}`: {} has no stats file in the BEEM directory", inst.name))
    };
    let base = match name {
        "states" => inst
            .manifest_states
            .ok_or_else(|| anyhow!("`{v}`: {} has no state count in instances.csv", inst.name))?
            as f64,
        "levels" => stats()?.levels as f64,
        "depth" => (stats()?.levels.saturating_sub(1)) as f64,
        other => bail!("`{v}`: unknown instance figure `{other}` (states, levels, depth)"),
    };
    let x = (base * factor).ceil() as u64;
    let rest = instance_value(&v[close + 1..], inst, beem)?;
    Ok(format!("{}{x}{rest}", &v[..open]))
}

pub(crate) fn is_file_name(n: &str) -> bool {
    n.contains('/') || n.ends_with(".dve")
}

pub(crate) fn select(
    sel: &Selection,
    beem: Option<&Beem>,
    manifest: &[InstanceRow],
    base: &Path,
) -> Result<Vec<Instance>> {
    let mut out: Vec<Instance> = Vec::new();
    let from_row = |row: &InstanceRow, beem: &Beem| Instance {
        name: row.instance.clone(),
        family: row.family.clone(),
        model: beem.model_path(&row.instance),
        model_display: format!("$BEEM/dve/{}.dve", row.instance),
        manifest_states: row.states,
        manifest_complete: Some(row.complete),
    };
    for n in &sel.names {
        if is_file_name(n) {
            let p = base.join(n);
            let files: Vec<PathBuf> = if p.file_name().is_some_and(|f| is_glob(&f.to_string_lossy())) {
                let dir = p.parent().unwrap_or(Path::new("."));
                let pat = p.file_name().unwrap().to_string_lossy().into_owned();
                let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
                    .with_context(|| format!("listing {}", dir.display()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|f| {
                        f.file_name()
                            .is_some_and(|f| glob_match(&pat, &f.to_string_lossy()))
                    })
                    .collect();
                v.sort();
                if v.is_empty() {
                    bail!("no file matches {}", p.display());
                }
                v
            } else {
                if !p.is_file() {
                    bail!("model file {} does not exist", p.display());
                }
                vec![p]
            };
            for f in files {
                let stem = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let family = f
                    .parent()
                    .and_then(|d| d.file_name())
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let display = match f.strip_prefix(base) {
                    Ok(rel) => rel.display().to_string(),
                    Err(_) => f.display().to_string(),
                };
                out.push(Instance {
                    name: stem,
                    family,
                    model: f,
                    model_display: display,
                    manifest_states: None,
                    manifest_complete: None,
                });
            }
        } else {
            let beem = beem.ok_or_else(|| anyhow!("instance `{n}` needs the BEEM directory"))?;
            match manifest.iter().find(|r| &r.instance == n) {
                Some(row) => out.push(from_row(row, beem)),
                None => {
                    let model = beem.model_path(n);
                    if !model.is_file() {
                        bail!("`{n}` is neither in instances.csv nor a file {}", model.display());
                    }
                    out.push(Instance {
                        name: n.clone(),
                        family: n.split('.').next().unwrap_or("").to_string(),
                        model,
                        model_display: format!("$BEEM/dve/{n}.dve"),
                        manifest_states: None,
                        manifest_complete: None,
                    });
                }
            }
        }
    }
    if sel.filters_manifest() {
        let beem = beem.ok_or_else(|| anyhow!("instance filters need the BEEM directory"))?;
        for row in manifest {
            let ok = (sel.globs.is_empty() || sel.globs.iter().any(|g| glob_match(g, &row.instance)))
                && (sel.families.is_empty() || sel.families.contains(&row.family))
                && sel.min_states.is_none_or(|m| row.states.is_some_and(|s| s >= m))
                && sel.max_states.is_none_or(|m| row.states.is_some_and(|s| s <= m))
                && (sel.complete != Some(true) || row.complete);
            if ok && !out.iter().any(|i| i.name == row.instance) {
                let inst = from_row(row, beem);
                if !inst.model.is_file() {
                    bail!(
                        "{} (instances.csv row {}) does not exist",
                        inst.model.display(),
                        row.instance
                    );
                }
                out.push(inst);
            }
        }
    }
    if sel.every_model {
        let beem = beem.ok_or_else(|| anyhow!("every_model needs the BEEM directory"))?;
        let names = beem
            .models()
            .with_context(|| format!("listing {}", beem.root().join("dve").display()))?;
        for n in names {
            if out.iter().any(|i| i.name == n) {
                continue;
            }
            out.push(match manifest.iter().find(|r| r.instance == n) {
                Some(row) => from_row(row, beem),
                None => Instance {
                    family: n.split('.').next().unwrap_or("").to_string(),
                    model: beem.model_path(&n),
                    model_display: format!("$BEEM/dve/{n}.dve"),
                    manifest_states: None,
                    manifest_complete: None,
                    name: n,
                },
            });
        }
    }
    out.retain(|i| !sel.exclude.iter().any(|g| glob_match(g, &i.name)));
    out.sort_by(|a, b| a.name.cmp(&b.name));
    let mut dup = out.windows(2).filter(|w| w[0].name == w[1].name);
    if let Some(w) = dup.next() {
        if w[0].model != w[1].model {
            bail!(
                "two models are named `{}`: {} and {}",
                w[0].name,
                w[0].model.display(),
                w[1].model.display()
            );
        }
    }
    out.dedup_by(|a, b| a.name == b.name);
    Ok(out)
}
