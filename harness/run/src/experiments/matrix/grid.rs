//! Parameter grids: the cartesian product of a strategy's `params`, and
//! the `{key}` placeholders of its spec.

use anyhow::{anyhow, bail, Result};
use std::collections::BTreeMap;

/// `{name}` placeholders of a spec, in order.
pub(crate) fn placeholders(spec: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = spec;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        let j = after
            .find('}')
            .ok_or_else(|| anyhow!("unclosed `{{` in spec `{spec}`"))?;
        let name = &after[..j];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            bail!("bad placeholder `{{{name}}}` in spec `{spec}`");
        }
        out.push(name.to_string());
        rest = &after[j + 1..];
    }
    Ok(out)
}

/// The cartesian product of the parameter lists, keys in sorted order, the
/// last key varying fastest.
pub(crate) fn grid(params: &BTreeMap<String, toml::Value>) -> Result<Vec<Vec<(String, toml::Value)>>> {
    let mut points: Vec<Vec<(String, toml::Value)>> = vec![Vec::new()];
    for (k, v) in params {
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            bail!("bad parameter name `{k}`");
        }
        let values: Vec<toml::Value> = match v {
            toml::Value::Array(a) if a.is_empty() => bail!("parameter `{k}` has an empty list"),
            toml::Value::Array(a) => a.clone(),
            other => vec![other.clone()],
        };
        let mut next = Vec::with_capacity(points.len() * values.len());
        for p in &points {
            for val in &values {
                let mut q = p.clone();
                q.push((k.clone(), val.clone()));
                next.push(q);
            }
        }
        points = next;
    }
    Ok(points)
}

/// A scalar TOML value as command-line text.
pub(crate) fn scalar_text(v: &toml::Value) -> Result<String> {
    Ok(match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => bail!("`{other}` is not a number, string or boolean"),
    })
}

pub(crate) fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    match v {
        toml::Value::String(s) => s.clone().into(),
        toml::Value::Integer(i) => (*i).into(),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(Into::into)
            .unwrap_or(serde_json::Value::Null),
        toml::Value::Boolean(b) => (*b).into(),
        other => other.to_string().into(),
    }
}
