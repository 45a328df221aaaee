//! DVE frontend: the input language of the DiVinE model checker, as used by
//! the BEEM benchmark suite.
//!
//! Pipeline: source → tokens ([`lexer`], logos) → syntax tree ([`parser`],
//! lalrpop; [`ast`]) → semantic analysis ([`sema`]) → [`ir::Model`] → the
//! reference [`interp::Interpreter`], which implements the model boundary
//! [`model::NextState`].
//!
//! ```
//! use dve_frontend::model::{NextState, SuccBuf};
//! let src = "byte x; process P { state a; init a; trans a -> a { guard x < 3; effect x = x + 1; }; } system async;";
//! let model = dve_frontend::load_str("counter.dve", src).unwrap();
//! let interp = dve_frontend::interp::Interpreter::new(model);
//! let init = interp.initial_vec();
//! let mut succs = SuccBuf::new(interp.state_len());
//! interp.successors(&init, &mut succs);
//! assert_eq!(succs.len(), 1);
//! ```

pub mod ast;
pub mod deps;
pub mod diag;
pub mod interp;
pub mod ir;
pub mod lexer;
pub mod ltl;
pub mod model;
pub mod parser;
pub mod property;
pub mod sema;
pub mod sync;
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused)]
    grammar
);

use diag::{Diagnostic, Diagnostics};
use std::path::{Path, PathBuf};

/// Why a model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{}: cannot read the file: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// Syntax or semantic errors, with positions; Display renders them all.
    #[error("{0}")]
    Model(Diagnostics),
    /// `--ltl-property K` past the properties of an `.ltl` file.
    #[error("{}: there is no property {index} (the file states {count}, numbered from 1)", path.display())]
    NoSuchProperty {
        path: PathBuf,
        index: usize,
        count: usize,
    },
}

/// Parses and checks a model given as text; `name` is used in messages and
/// as the model's name.
pub fn load_str(name: &str, source: &str) -> Result<ir::Model, Diagnostics> {
    let ast = parser::parse(name, source)?;
    sema::analyse(&model_name(name), &ast).map_err(|items| Diagnostics::new(name, source, items))
}

/// How to load a model.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Drop the property process (`system async property P;`) and load the
    /// plain system.
    pub ignore_property: bool,
    /// Expressions (reachability goals) to compile in the model's global
    /// scope; they are returned in the same order.
    pub exprs: Vec<String>,
    /// How messages name each expression (as the user gave it, e.g. an
    /// option); `<expression K>` past the end.
    pub expr_names: Vec<String>,
    /// How messages name a formula given as text (`Spec::Formula`);
    /// `<formula>` if none.
    pub formula_name: Option<String>,
    /// An LTL property: its automaton (of the negated formula) replaces the
    /// model's property process, if any.
    pub ltl: Option<ltl::Spec>,
}

/// A loaded model with the compiled extra expressions.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub model: ir::Model,
    pub exprs: Vec<ir::Expr>,
    /// The LTL property of the options, as parsed (the model's property
    /// process is its automaton).
    pub property: Option<ltl::Property>,
}

/// Parses and checks a model given as text, with options.
pub fn load_str_with(name: &str, source: &str, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let mut ast = parser::parse(name, source).map_err(LoadError::Model)?;
    if opts.ignore_property {
        if let Some(p) = ast.system.property.take() {
            ast.processes.retain(|q| q.name.name != p.name);
        }
    }
    let mut guards = None;
    let mut property = None;
    if let Some(spec) = &opts.ltl {
        let formula = opts.formula_name.as_deref().unwrap_or("<formula>");
        let (g, p) = ltl::attach_property(&mut ast, name, source, spec, formula)?;
        (guards, property) = (Some(g), Some(p));
    }
    let label = |i: usize| {
        opts.expr_names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("<expression {}>", i + 1))
    };
    let mut goal_asts = Vec::new();
    for (i, e) in opts.exprs.iter().enumerate() {
        goal_asts.push(parser::parse_expr(&label(i), e).map_err(LoadError::Model)?);
    }
    let (mut model, exprs) = sema::analyse_with_exprs(&model_name(name), &ast, &goal_asts)
        .map_err(|items| LoadError::Model(Diagnostics::new(name, source, items)))?;
    if let Some(g) = guards {
        g.apply(&mut model);
    }
    let mut out = Vec::new();
    for (i, r) in exprs.into_iter().enumerate() {
        match r {
            Ok(x) => out.push(x),
            Err(items) => {
                return Err(LoadError::Model(Diagnostics::new(
                    label(i),
                    opts.exprs[i].clone(),
                    items,
                )));
            }
        }
    }
    Ok(Loaded {
        model,
        exprs: out,
        property,
    })
}

pub(crate) fn model_name(name: &str) -> String {
    Path::new(name)
        .file_name()
        .map(|f| f.to_string_lossy().trim_end_matches(".dve").to_string())
        .unwrap_or_else(|| name.to_string())
}

/// Reads, parses and checks a model file, with options.
pub fn load_file_with(path: &Path, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let source = read_source(path)?;
    load_str_with(&path.display().to_string(), &source, opts)
}

/// Reads, parses and checks a model file.
pub fn load_file(path: &Path) -> Result<ir::Model, LoadError> {
    let source = read_source(path)?;
    load_str(&path.display().to_string(), &source).map_err(LoadError::Model)
}

/// Reads a model file as UTF-8 text; a binary file is a positioned error.
pub(crate) fn read_source(path: &Path) -> Result<String, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.display().to_string();
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            // Point at the first byte that is not UTF-8 text.
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let prefix_len = String::from_utf8_lossy(&e.as_bytes()[..at]).len();
            let d = Diagnostic::new(
                ast::Span::new(prefix_len, prefix_len + 1),
                "the file is not UTF-8 text (is it a binary file?)",
            );
            Err(LoadError::Model(Diagnostics::new(name, text, vec![d])))
        }
    }
}
