//! The model a request names: a `.dve` file, or a BEEM instance found in
//! the BEEM directory, or a clear error naming what is neither.

use super::request::*;
use crate::model::beem::Beem;
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
    let instance = model
        .file_name()
        .and_then(|f| f.to_str())
        .and_then(|f| f.strip_suffix(".dve"))
        .filter(|stem| !stem.contains(".prop"))
        .map(str::to_string);
    Ok((model.to_path_buf(), instance))
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
