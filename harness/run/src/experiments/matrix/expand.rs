//! Expanding a matrix into its cells: each strategy entry into a plan (its
//! instances, grid points, backends, seeds and budgets), then the cells in
//! instance-major order (instance, backend, strategy, grid point, seed).

use std::collections::HashSet;
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::grid::*;
use super::param_search::*;
use super::selection::*;
use super::{cell_key, Budgets, Cell, Matrix, RawStrategy};
use crate::model::beem::{Beem, InstanceRow};

/// One grid point of a strategy entry.
struct Variant {
    spec: String,
    args: Vec<String>,
    params: serde_json::Map<String, serde_json::Value>,
    seed_in_spec: bool,
    /// (group part of the `per` values, step, value, unit) when searched.
    search: Option<(String, usize, f64, String)>,
}

/// One strategy entry, expanded: (instances, grid points, backends, seeds, budgets).
struct Plan {
    instances: Vec<Instance>,
    variants: Vec<Variant>,
    backends: Vec<String>,
    seeds: Vec<Option<u64>>,
    budgets: Budgets,
    /// The searched parameter, the bisection resolution, descending.
    search: Option<(String, Option<f64>, bool)>,
}

impl Matrix {
    /// All cells, in order, with their indices and keys.
    pub fn expand(&self, beem: Option<&Beem>) -> Result<Vec<Cell>> {
        let manifest: Vec<InstanceRow> = match beem {
            Some(b) if self.needs_beem() => b.instances()?,
            _ => Vec::new(),
        };
        if self.needs_beem() && beem.is_none() {
            bail!(
                "matrix {} selects BEEM instances but no BEEM directory was found",
                self.path.display()
            );
        }
        let base = self.path.parent().unwrap_or(Path::new("."));
        let default_instances = select(&self.raw.instances, beem, &manifest, base)?;
        // Strategy expansions (grid points) first, then instance-major order.
        let mut per_strategy: Vec<Plan> = Vec::new();
        for (si, st) in self.strategies.iter().enumerate() {
            let ctx = || format!("{}: strategies[{si}] (`{}`)", self.path.display(), st.spec);
            let instances = match &st.instances {
                Some(sel) => select(sel, beem, &manifest, base).with_context(ctx)?,
                None => default_instances.clone(),
            };
            per_strategy.push(self.plan(si, st, instances, &ctx)?);
        }
        self.cells(&per_strategy, beem)
    }

    /// The plan of strategy entry `si` over `instances`; `ctx` names the entry in errors.
    fn plan(
        &self,
        si: usize,
        st: &RawStrategy,
        instances: Vec<Instance>,
        ctx: &dyn Fn() -> String,
    ) -> Result<Plan> {
        let backends = st
            .backends
            .clone()
            .or_else(|| self.raw.backends.clone())
            .unwrap_or_else(|| vec![crate::model::backend::Backend::default().name().to_string()]);
        if backends.is_empty() {
            bail!("{}: no backends", ctx());
        }
        let seeds: Vec<Option<u64>> = match st.seeds.as_ref().or(self.raw.seeds.as_ref()) {
            Some(s) if !s.is_empty() => s.iter().map(|&x| Some(x)).collect(),
            _ => vec![None],
        };
        let budgets = st.budgets.over(&self.raw.budgets).resolve().with_context(ctx)?;
        let placeholders = placeholders(&st.spec).with_context(ctx)?;
        for p in &placeholders {
            if p != "seed" && !st.params.contains_key(p) {
                bail!("{}: `{{{p}}}` in the spec is not a key of params", ctx());
            }
        }
        let seed_in_spec = placeholders.iter().any(|p| p == "seed");
        let search = match &st.search {
            Some(sr) => Some(check_search(sr, &st.params, &placeholders).with_context(ctx)?),
            None => None,
        };
        if seed_in_spec && seeds == [None] {
            bail!("{}: the spec uses {{seed}} but the matrix gives no seeds", ctx());
        }
        let mut variants = Vec::new();
        for point in grid(&st.params).with_context(ctx)? {
            variants.push(variant(si, st, &point, &placeholders, seed_in_spec, ctx)?);
        }
        Ok(Plan {
            instances,
            variants,
            backends,
            seeds,
            budgets,
            search,
        })
    }

    /// The cells of the plans, instance by instance (by name), then per
    /// backend, strategy entry, grid point and seed.
    fn cells(&self, per_strategy: &[Plan], beem: Option<&Beem>) -> Result<Vec<Cell>> {
        let mut names: Vec<&Instance> = per_strategy.iter().flat_map(|p| p.instances.iter()).collect();
        names.sort_by(|a, b| a.name.cmp(&b.name));
        names.dedup_by(|a, b| a.name == b.name);
        // Two different files with one stem would share keys.
        let mut cells = Vec::new();
        let mut seen = HashSet::new();
        for inst in names {
            for backend in backends_of(per_strategy, &inst.name) {
                for plan in per_strategy {
                    let Some(this) = plan.instances.iter().find(|i| i.name == inst.name) else {
                        continue;
                    };
                    if this.model != inst.model {
                        bail!(
                            "two models are named `{}`: {} and {}",
                            inst.name,
                            inst.model.display(),
                            this.model.display()
                        );
                    }
                    if !plan.backends.contains(backend) {
                        continue;
                    }
                    for v in &plan.variants {
                        for &seed in &plan.seeds {
                            let mut cell = self.cell(this, backend, plan, v, seed, beem)?;
                            cell.index = cells.len();
                            if !seen.insert(cell.key.clone()) {
                                bail!("{}: two cells have the key `{}`", self.path.display(), cell.key);
                            }
                            cells.push(cell);
                        }
                    }
                }
            }
        }
        Ok(cells)
    }

    /// The cell of grid point `v` of `plan` on instance `this` with `backend`
    /// and `seed` (its index set by the caller).
    fn cell(
        &self,
        this: &Instance,
        backend: &String,
        plan: &Plan,
        v: &Variant,
        seed: Option<u64>,
        beem: Option<&Beem>,
    ) -> Result<Cell> {
        let mut spec = v.spec.clone();
        if v.seed_in_spec {
            spec = spec.replace("{seed}", &seed.map(|s| s.to_string()).unwrap_or_default());
        }
        let strategy = spec.split(':').next().unwrap_or("").to_string();
        let mut params = v.params.clone();
        let args = v
            .args
            .iter()
            .map(|a| instance_value(a, this, beem))
            .collect::<Result<Vec<_>>>()
            .with_context(|| format!("{}: instance {}", self.path.display(), this.name))?;
        for p in params.values_mut() {
            if let serde_json::Value::String(s) = p {
                if s.contains('{') {
                    *s = instance_value(s, this, beem)?;
                }
            }
        }
        let mut cell = Cell {
            index: 0,
            key: String::new(),
            instance: this.clone(),
            backend: backend.clone(),
            strategy,
            spec,
            args,
            params,
            seed,
            seed_in_spec: v.seed_in_spec,
            budgets: plan.budgets.clone(),
            search: v.search.as_ref().map(|(group, step, value, unit)| {
                let (param, bisect, descending) = plan.search.clone().expect("a searched entry");
                Search {
                    group: format!(
                        "{}|{backend}|{}|{group}",
                        this.name,
                        seed.map(|s| s.to_string()).unwrap_or_default()
                    ),
                    param,
                    step: *step,
                    value: *value,
                    unit: unit.clone(),
                    bisect,
                    descending,
                }
            }),
        };
        cell.key = cell_key(&this.name, backend, &cell.spec_with_args(), seed);
        Ok(cell)
    }
}

/// The backends of the plans that run `name`, in the order they first appear.
fn backends_of<'p>(per_strategy: &'p [Plan], name: &str) -> Vec<&'p String> {
    let mut backends_in_order: Vec<&String> = Vec::new();
    for p in per_strategy {
        if p.instances.iter().any(|i| i.name == name) {
            for b in &p.backends {
                if !backends_in_order.contains(&b) {
                    backends_in_order.push(b);
                }
            }
        }
    }
    backends_in_order
}

/// Grid point `point` of strategy entry `si`: its spec with the placeholders
/// filled, the other parameters as flags, and its place in a searched parameter.
fn variant(
    si: usize,
    st: &RawStrategy,
    point: &[(String, toml::Value)],
    placeholders: &[String],
    seed_in_spec: bool,
    ctx: &dyn Fn() -> String,
) -> Result<Variant> {
    let mut spec = st.spec.clone();
    let mut args = Vec::new();
    let mut params = serde_json::Map::new();
    for (k, v) in point {
        params.insert(k.clone(), toml_to_json(v));
        if placeholders.contains(k) {
            spec = spec.replace(&format!("{{{k}}}"), &scalar_text(v).with_context(ctx)?);
        } else {
            let flag = format!("--{}", k.replace('_', "-"));
            match v {
                toml::Value::Boolean(true) => args.push(flag),
                toml::Value::Boolean(false) => {}
                other => {
                    args.push(flag);
                    args.push(scalar_text(other).with_context(ctx)?);
                }
            }
        }
    }
    let searched = match &st.search {
        Some(sr) => {
            let (_, v) = point.iter().find(|(k, _)| *k == sr.param).expect("checked");
            let (value, unit) = search_value(v).with_context(ctx)?;
            let list = match &st.params[&sr.param] {
                toml::Value::Array(a) => a.clone(),
                one => vec![one.clone()],
            };
            let step = list.iter().position(|x| x == v).expect("a value of the list");
            let per: Vec<String> = sr
                .per
                .iter()
                .map(|k| {
                    let (_, v) = point.iter().find(|(kk, _)| kk == k).expect("checked");
                    format!("{k}={v}")
                })
                .collect();
            Some((format!("{si}|{}", per.join(",")), step, value, unit))
        }
        None => None,
    };
    Ok(Variant {
        spec,
        args,
        params,
        seed_in_spec,
        search: searched,
    })
}
