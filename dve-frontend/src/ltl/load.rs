//! Loading a model with an LTL property: the plain model (a property
//! process it has is dropped), the property parsed against it, and its
//! atoms lowered.

use std::path::Path;

use super::{lower_atoms, parse_file, parse_formula, Property};
use crate::{ir, parser, read_source, LoadError};

/// Where the property comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A formula; `definitions` name propositions used in it.
    Formula {
        text: &'a str,
        definitions: &'a [(String, String)],
    },
    /// Property `index` (from 1) of a DiVinE `.ltl` file.
    File { path: &'a Path, index: usize },
}

/// A model and an LTL property over it.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub model: ir::Model,
    pub property: Property,
    /// The property's atoms lowered in the model, numbered as its atoms.
    pub atoms: Vec<ir::Expr>,
}

/// Loads `model_path` and the property `source` over it.
pub fn load(model_path: &Path, source: Source) -> Result<Loaded, LoadError> {
    let model_text = read_source(model_path)?;
    let model_file = model_path.display().to_string();
    let mut ast = parser::parse(&model_file, &model_text).map_err(LoadError::Model)?;
    if let Some(p) = ast.system.property.take() {
        ast.processes.retain(|q| q.name.name != p.name);
    }
    let property = match source {
        Source::Formula { text, definitions } => {
            parse_formula("<formula>", text, Some(&ast), definitions).map_err(LoadError::Model)?
        }
        Source::File { path, index } => {
            let text = read_source(path)?;
            let file = path.display().to_string();
            let mut props = parse_file(&file, &text, Some(&ast)).map_err(LoadError::Model)?;
            if index == 0 || index > props.len() {
                return Err(LoadError::NoSuchProperty {
                    path: path.to_path_buf(),
                    index,
                    count: props.len(),
                });
            }
            props.swap_remove(index - 1)
        }
    };
    let name = crate::model_name(&model_file);
    // The model checks on its own first, so its errors point into its file.
    crate::sema::analyse(&name, &ast)
        .map_err(|items| LoadError::Model(crate::diag::Diagnostics::new(&model_file, &model_text, items)))?;
    let (model, atoms) = lower_atoms(&name, &ast, &property).map_err(LoadError::Model)?;
    Ok(Loaded {
        model,
        property,
        atoms,
    })
}
