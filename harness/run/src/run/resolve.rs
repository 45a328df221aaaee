//! The model a request names: a `.dve` file, or a BEEM instance found in
//! the BEEM directory, or a clear error naming what is neither.

use super::request::*;
use crate::algo::check::Goal;
use crate::engine;
use crate::model::beem::{Beem, PropertyKind};
use crate::model::example::{EMBEDDED_NAME, EMBEDDED_SOURCE};
use dve_frontend::ltl::Spec;
use std::path::{Path, PathBuf};

/// A BEEM instance name (no directory part, no extension, not an existing file).
pub(crate) fn is_instance_name(p: &Path) -> bool {
    let s = p.to_string_lossy();
    !p.exists() && !s.contains('/') && !s.ends_with(".dve") && !s.is_empty()
}

/// Resolves MODEL: an existing path as it is; a bare BEEM instance name to
/// `dve/<name>.dve` in the BEEM directory. Returns the path and the BEEM
/// instance name when the model is one; an input error when a bare name is
/// neither a file nor an instance.
pub fn resolve_model(model: &Path, beem: Option<&Path>) -> Result<(PathBuf, Option<String>), RunError> {
    if is_instance_name(model) {
        let name = model.to_string_lossy().into_owned();
        if let Ok(b) = Beem::locate(beem) {
            let path = b.model_path(&name);
            if path.is_file() {
                return Ok((path, Some(name)));
            }
        }
        return Err(no_such_model(&name, beem));
    }
    // A file is a BEEM instance when BEEM has one of its name (a copy of
    // dve/adding.1.dve, say), so that --property and --stats find it.
    let instance = dve_stem(model)
        .filter(|stem| !stem.contains(".prop"))
        .filter(|stem| Beem::locate(beem).is_ok_and(|b| b.model_path(stem).is_file()))
        .map(str::to_string);
    Ok((model.to_path_buf(), instance))
}

/// `adding.1` of `dir/adding.1.dve` (`None` for a file not named `.dve`).
fn dve_stem(model: &Path) -> Option<&str> {
    model.file_name()?.to_str()?.strip_suffix(".dve")
}

/// The named propositions an LTL formula over a model of a BEEM family may
/// use: the `<ap-name>`s of the family file its name gives (`anderson.1.dve`
/// or a generated `anderson.9.dve`: anderson's); none for other models, or
/// when the file is missing.
pub fn ltl_definitions(model: &Path, beem: Option<&Path>) -> Vec<(String, String)> {
    let Some(stem) = dve_stem(model) else {
        return Vec::new();
    };
    let family = stem.split_once('.').map_or(stem, |(f, _)| f);
    Beem::locate(beem)
        .and_then(|b| b.family_propositions(family))
        .unwrap_or_default()
}

/// The error for a MODEL that is neither a file nor a BEEM instance, naming
/// the instances of its family, else the nearest names.
pub(crate) fn no_such_model(name: &str, beem: Option<&Path>) -> RunError {
    let error = |m: String| RunError {
        file: Some(name.to_string()),
        ..RunError::input(m)
    };
    let b = match Beem::locate(beem) {
        Ok(b) => b,
        Err(e) => {
            return error(format!(
                "{name}: no such file, nor a BEEM instance to look up: {e}"
            ))
        }
    };
    let names = b.models().unwrap_or_default();
    let family = |n: &str| n.rsplit_once('.').map_or(n, |(f, _)| f).to_string();
    let mut near: Vec<&str> = names
        .iter()
        .filter(|n| family(n) == family(name))
        .map(String::as_str)
        .collect();
    if near.is_empty() {
        let mut by_distance: Vec<(usize, &str)> = names
            .iter()
            .map(|n| (strsim::levenshtein(name, n), n.as_str()))
            .filter(|&(d, _)| d <= 2)
            .collect();
        by_distance.sort();
        near = by_distance.into_iter().take(3).map(|(_, n)| n).collect();
    }
    let hint = match near[..] {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        _ => format!("; did you mean one of {}?", near.join(", ")),
    };
    error(format!(
        "{name}: no such file, and no BEEM instance of that name in {}{hint}",
        b.root().join("dve").display()
    ))
}

/// `|S|` of a complete BEEM instance from instances.csv.
pub fn known_size(instance: &str, beem: Option<&Path>) -> Option<u64> {
    let b = Beem::locate(beem).ok()?;
    b.instances()
        .ok()?
        .into_iter()
        .find(|r| r.instance == instance && r.complete)
        .and_then(|r| r.states)
}

/// What [`load`] gives: the model, its goals and progress expressions
/// compiled against it, and what the record and a checkpoint need.
pub(super) struct Loaded {
    pub ir: dve_frontend::ir::Model,
    pub goals: Vec<Goal>,
    pub progress_exprs: Vec<dve_frontend::ir::Expr>,
    /// A checkpoint belongs to the model's text (and to whether its
    /// property process is kept).
    pub digest: u64,
    pub instance: Option<String>,
    pub display_name: String,
    /// The formula of a BEEM LTL property (`--property N`), as
    /// properties.csv writes it.
    pub beem_ltl: Option<String>,
    /// The LTL property given (`--ltl`, `--ltl-file`), as parsed.
    pub formula: Option<dve_frontend::ltl::Property>,
}

/// How messages name the expressions given on the command line: `given`
/// from `--goal` (`--goal #K` of several), then the BEEM property's up to
/// `goals`, then `progress` from `--sweep-measure`.
fn expr_names(given: usize, goals: usize, progress: usize, property: Option<u32>) -> Vec<String> {
    let numbered = |option: &str, n: usize, k: usize| {
        if n == 1 {
            option.to_string()
        } else {
            format!("{option} #{k}")
        }
    };
    (1..=given)
        .map(|k| numbered("--goal", given, k))
        .chain(
            (given..goals).map(|_| property.map_or_else(|| "--property".into(), |n| format!("property {n}"))),
        )
        .chain((1..=progress).map(|k| numbered("--sweep-measure", progress, k)))
        .collect()
}

/// Loads the model a request names (the built-in example without one), with
/// a BEEM property's goal or product model (`--property`) and the
/// expressions `progress` the sweep-line measures; a note for the property.
pub(super) fn load(req: &Request, progress: &[String], notes: &mut Vec<String>) -> Result<Loaded, RunError> {
    let mut goals = req.goals.clone();
    let mut model_path = req
        .model
        .as_deref()
        .map(|m| resolve_model(m, req.beem.as_deref()))
        .transpose()?;
    let mut beem_ltl = None;
    if let Some(n) = req.property {
        let Some((_, Some(instance))) = model_path.clone() else {
            return Err(RunError::usage(
                "--property needs a BEEM instance as MODEL (such as `adding.1` or a path to dve/adding.1.dve)",
            ));
        };
        let beem = Beem::locate(req.beem.as_deref()).map_err(|e| RunError::input(e.to_string()))?;
        let row = beem
            .properties()
            .map_err(|e| RunError::input(e.to_string()))?
            .into_iter()
            .find(|r| r.instance == instance && r.prop_id == n)
            .ok_or_else(|| RunError::input(format!("properties.csv has no property {n} for {instance}")))?;
        let kind = match row.kind {
            PropertyKind::Reachability => {
                goals.push(row.formula.clone());
                "reachability"
            }
            PropertyKind::Ltl => {
                beem_ltl = Some(row.formula.clone());
                let prop_path = beem.property_model_path(&instance, n);
                if !prop_path.is_file() {
                    return Err(RunError::input(format!(
                        "{} (the model of LTL property {n}) does not exist",
                        prop_path.display()
                    )));
                }
                model_path = Some((prop_path, None));
                "LTL"
            }
        };
        notes.push(format!("property {n} of {instance} ({kind}): {}", row.formula));
    }
    let ltl = match &req.ltl {
        None => None,
        Some(_) if req.property.is_some() => {
            return Err(RunError::usage(
                "--ltl and --ltl-file state a property: give them without --property",
            ));
        }
        Some(Spec::Formula { text, definitions }) => {
            notes.push(format!("LTL property: {text}"));
            let definitions = match &model_path {
                Some((path, _)) if definitions.is_empty() => ltl_definitions(path, req.beem.as_deref()),
                _ => definitions.clone(),
            };
            Some(Spec::Formula {
                text: text.clone(),
                definitions,
            })
        }
        Some(spec @ Spec::File { path, index }) => {
            notes.push(format!("LTL property {index} of {}", path.display()));
            Some(spec.clone())
        }
    };
    let mut exprs = goals.clone();
    exprs.extend(progress.iter().cloned());
    let load_opts = dve_frontend::LoadOptions {
        ignore_property: req.ignore_property,
        expr_names: expr_names(req.goals.len(), goals.len(), progress.len(), req.property),
        exprs,
        formula_name: Some("--ltl".into()),
        ltl,
    };
    if let Some(m) = &req.meter {
        m.set_phase("loading");
    }
    let digest = match &model_path {
        Some((path, _)) => std::fs::read(path)
            .map(|b| engine::checkpoint::digest(&b))
            .unwrap_or(0),
        None => engine::checkpoint::digest(EMBEDDED_SOURCE.as_bytes()),
    } ^ u64::from(req.ignore_property)
        ^ req
            .ltl
            .as_ref()
            .map_or(0, |l| engine::checkpoint::digest(format!("{l:?}").as_bytes()));
    let (loaded, instance, display_name) = match &model_path {
        Some((path, instance)) => (
            dve_frontend::load_file_with(path, &load_opts).map_err(RunError::load)?,
            instance.clone(),
            path.display().to_string(),
        ),
        None => (
            dve_frontend::load_str_with(EMBEDDED_NAME, EMBEDDED_SOURCE, &load_opts)
                .map_err(RunError::load)?,
            None,
            format!("{EMBEDDED_NAME} (built-in)"),
        ),
    };
    let ir = loaded.model;
    let formula = loaded.property;
    let mut exprs = loaded.exprs;
    let progress_exprs = exprs.split_off(goals.len());
    let goals: Vec<Goal> = goals
        .into_iter()
        .zip(exprs)
        .map(|(text, expr)| Goal { text, expr })
        .collect();
    Ok(Loaded {
        ir,
        goals,
        progress_exprs,
        digest,
        instance,
        display_name,
        beem_ltl,
        formula,
    })
}
