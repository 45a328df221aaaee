//! LTL properties: formulas whose atomic propositions are DVE expressions
//! over a model (globals, `P.v`, `P->v`, array elements, `P.state`).
//!
//! A formula is given on its own (`--ltl`) or in DiVinE's `.ltl` file
//! format (`#define NAME expr` and `#property formula` lines). Atoms are
//! checked by the model's own expression checker, so an unknown variable is
//! reported at its line and column inside the formula (or the file).

mod buchi;
mod file;
mod formula;
mod lexer;
mod load;
mod parse;
mod process;

pub use buchi::{translate, Buchi, Guard, Label};
pub use file::parse_file;
pub use formula::Ltl;
pub use load::{attach_property, load, property as parse_spec, Loaded, Spec};
pub use process::GuardTexts;

use crate::ast::{self, Span};
use crate::diag::Diagnostics;
use crate::ir;
use parse::{Definition, Definitions, Names, Syn, SynKind, Temporal};

/// A parsed property: the formula over numbered atoms, and where it came
/// from (every span points into `source`).
#[derive(Clone, Debug)]
pub struct Property {
    /// File name (or `<formula>`) for messages.
    pub file: String,
    /// The text the spans point into (the formula, or the whole file).
    pub source: String,
    /// The formula's own place in `source`.
    pub span: Span,
    pub formula: Ltl,
    /// The atomic propositions, numbered as in `formula`; equal texts are
    /// one proposition.
    pub atoms: Vec<ast::Expr>,
}

impl Property {
    /// The formula as written.
    pub fn text(&self) -> &str {
        self.source[self.span.start..self.span.end].trim()
    }

    /// Atom `n` as DVE text.
    pub fn atom_text(&self, n: usize) -> String {
        self.atoms[n].to_string()
    }

    /// Atom `n` as the user wrote it (its text in the formula, or in the
    /// definition it comes from), else as DVE text.
    pub fn atom_source(&self, n: usize) -> String {
        let span = self.atoms[n].span;
        match self.source.get(span.start..span.end) {
            Some(text) if !text.trim().is_empty() => text.split_whitespace().collect::<Vec<_>>().join(" "),
            _ => self.atom_text(n),
        }
    }

    /// The formula with its atoms written out.
    pub fn to_text(&self, formula: &Ltl) -> String {
        let name = |n: usize| {
            let t = self.atom_text(n);
            if t.contains(' ') {
                format!("({t})")
            } else {
                t
            }
        };
        formula.text(&name)
    }
}

/// Formulas and `.ltl` files parsed by this process: a run parses its
/// property once (a test counts it).
static PARSED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many formulas and `.ltl` files this process has parsed.
pub fn parsed() -> u64 {
    PARSED.load(std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn count_parse() {
    PARSED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// Parses one formula. `model` (when given) tells process and variable
/// names apart for `P->v` and `P.v`; `definitions` are named propositions
/// written elsewhere (BEEM's `<ap-name>`/`<ap-expression>`), each parsed on
/// first use and reported at the use.
pub fn parse_formula(
    file: &str,
    text: &str,
    model: Option<&ast::Model>,
    definitions: &[(String, String)],
) -> Result<Property, Diagnostics> {
    count_parse();
    let names = Names::new(model);
    let mut defs = Definitions::new();
    for (name, expr) in definitions {
        let syn = parse::parse(expr, 0, expr.len(), &names, &defs).map_err(|d| {
            let (line, col) = crate::diag::line_col(expr, d.span.start);
            format!("{line}:{col}: {} (in `{expr}`)", d.message)
        });
        defs.insert(name.clone(), Definition { syn, external: true });
    }
    let syn = parse::parse(text, 0, text.len(), &names, &defs)
        .map_err(|d| Diagnostics::new(file, text, vec![d]))?;
    Ok(property(file, text, Span::new(0, text.len()), syn))
}

/// Numbers the atoms of a parsed formula.
fn property(file: &str, source: &str, span: Span, syn: Syn) -> Property {
    let mut atoms: Vec<ast::Expr> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let formula = number(syn, &mut atoms, &mut keys);
    Property {
        file: file.to_string(),
        source: source.to_string(),
        span,
        formula,
        atoms,
    }
}

fn number(f: Syn, atoms: &mut Vec<ast::Expr>, keys: &mut Vec<String>) -> Ltl {
    let mut sub = |g: Box<Syn>| Box::new(number(*g, atoms, keys));
    match f.kind {
        SynKind::Const(true) => Ltl::True,
        SynKind::Const(false) => Ltl::False,
        SynKind::Atom(e) => {
            let key = e.to_string();
            match keys.iter().position(|k| *k == key) {
                Some(n) => Ltl::Atom(n),
                None => {
                    keys.push(key);
                    atoms.push(e);
                    Ltl::Atom(atoms.len() - 1)
                }
            }
        }
        SynKind::Unary(op, a) => {
            let a = sub(a);
            match op {
                Temporal::Not => Ltl::Not(a),
                Temporal::Next => Ltl::Next(a),
                Temporal::Finally => Ltl::Finally(a),
                _ => Ltl::Globally(a),
            }
        }
        SynKind::Binary(op, a, b) => {
            let (a, b) = (sub(a), sub(b));
            match op {
                Temporal::And => Ltl::And(a, b),
                Temporal::Or => Ltl::Or(a, b),
                Temporal::Implies => Ltl::Implies(a, b),
                Temporal::Equiv => Ltl::Equiv(a, b),
                Temporal::Until => Ltl::Until(a, b),
                Temporal::Release => Ltl::Release(a, b),
                _ => Ltl::WeakUntil(a, b),
            }
        }
    }
}

/// Lowers the atoms of `prop` in the global scope of `model` (which must
/// check): one IR expression per atom, or the errors, positioned in the
/// property's source.
pub fn lower_atoms(
    name: &str,
    model: &ast::Model,
    prop: &Property,
) -> Result<(ir::Model, Vec<ir::Expr>), Diagnostics> {
    let in_prop = |items| Diagnostics::new(prop.file.clone(), prop.source.clone(), items);
    let (m, lowered) = crate::sema::analyse_with_exprs(name, model, &prop.atoms).map_err(in_prop)?;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for r in lowered {
        match r {
            Ok(e) => out.push(e),
            Err(items) => errors.extend(items),
        }
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| d.span.start);
        return Err(in_prop(errors));
    }
    Ok((m, out))
}
