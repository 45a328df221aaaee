//! Loading a model with an LTL property: the plain model (a property
//! process it has is dropped), the property parsed against it, and its
//! atoms lowered; or the product model, the property's automaton attached
//! as the property process.

use std::path::{Path, PathBuf};

use super::{lower_atoms, parse_file, parse_formula, process, translate, Property};
use crate::diag::{Diagnostic, Diagnostics};
use crate::{ast, ir, parser, read_source, LoadError};

/// Where the property comes from.
#[derive(Clone, Debug)]
pub enum Spec {
    /// A formula; `definitions` name propositions used in it (BEEM's
    /// `<ap-name>`s).
    Formula {
        text: String,
        definitions: Vec<(String, String)>,
    },
    /// Property `index` (from 1) of a DiVinE `.ltl` file.
    File { path: PathBuf, index: usize },
}

/// A model and an LTL property over it.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub model: ir::Model,
    pub property: Property,
    /// The property's atoms lowered in the model, numbered as its atoms.
    pub atoms: Vec<ir::Expr>,
}

/// Parses the property `spec` states over `model` (a syntax tree without
/// a property process); messages name a formula given as text `formula`.
pub fn property(model: &ast::Model, spec: &Spec, formula: &str) -> Result<Property, LoadError> {
    match spec {
        Spec::Formula { text, definitions } => {
            parse_formula(formula, text, Some(model), definitions).map_err(LoadError::Model)
        }
        Spec::File { path, index } => {
            let text = read_source(path)?;
            let file = path.display().to_string();
            let mut props = parse_file(&file, &text, Some(model)).map_err(LoadError::Model)?;
            if *index == 0 || *index > props.len() {
                return Err(LoadError::NoSuchProperty {
                    path: path.to_path_buf(),
                    index: *index,
                    count: props.len(),
                });
            }
            Ok(props.swap_remove(index - 1))
        }
    }
}

/// Attaches the automaton of the negated property to `model` (parsed from
/// `file`, `source`) as its property process, after checking the model
/// and the property's atoms, so that errors point into the model or the
/// formula (named `formula` when given as text). Returns the texts of the
/// automaton's guards and the property as parsed.
pub fn attach_property(
    model: &mut ast::Model,
    file: &str,
    source: &str,
    spec: &Spec,
    formula: &str,
) -> Result<(process::GuardTexts, Property), LoadError> {
    if let Some(p) = model.system.property.take() {
        model.processes.retain(|q| q.name.name != p.name);
    }
    if model.system.is_sync {
        // A synchronous system does not stutter where it deadlocks (§7.6),
        // so the product would lose the infinite runs the formula is about.
        let d = Diagnostic::new(
            model.system.span,
            "an LTL formula is checked on `system async` models only (a synchronous system does not stutter where it deadlocks)".to_string(),
        );
        return Err(LoadError::Model(Diagnostics::new(file, source, vec![d])));
    }
    let prop = property(model, spec, formula)?;
    let name = crate::model_name(file);
    crate::sema::analyse(&name, model)
        .map_err(|items| LoadError::Model(Diagnostics::new(file, source, items)))?;
    lower_atoms(&name, model, &prop).map_err(LoadError::Model)?;
    let automaton = translate(&prop.formula, prop.atoms.len(), true).map_err(|e| {
        let d = Diagnostic::new(prop.span, e);
        LoadError::Model(Diagnostics::new(prop.file.clone(), prop.source.clone(), vec![d]))
    })?;
    Ok((process::attach(model, &prop, &automaton), prop))
}

/// Loads `model_path` and the property `spec` over it (the plain model).
pub fn load(model_path: &Path, spec: &Spec) -> Result<Loaded, LoadError> {
    let model_text = read_source(model_path)?;
    let model_file = model_path.display().to_string();
    let mut ast = parser::parse(&model_file, &model_text).map_err(LoadError::Model)?;
    if let Some(p) = ast.system.property.take() {
        ast.processes.retain(|q| q.name.name != p.name);
    }
    let property = property(&ast, spec, "<formula>")?;
    let name = crate::model_name(&model_file);
    // The model checks on its own first, so its errors point into its file.
    crate::sema::analyse(&name, &ast)
        .map_err(|items| LoadError::Model(Diagnostics::new(&model_file, &model_text, items)))?;
    let (model, atoms) = lower_atoms(&name, &ast, &property).map_err(LoadError::Model)?;
    Ok(Loaded {
        model,
        property,
        atoms,
    })
}
