//! DiVinE's `.ltl` files: `#define NAME expr` lines name propositions (or
//! subformulas, which may use earlier names), `#property formula` lines
//! state the properties, in order. Blank lines and `//` comments are
//! skipped.

use super::parse::{self, Definition, Definitions, Names};
use super::{property, Property};
use crate::ast::{self, Span};
use crate::diag::{Diagnostic, Diagnostics};

/// Parses a `.ltl` file; every property's spans point into `text`.
pub fn parse_file(file: &str, text: &str, model: Option<&ast::Model>) -> Result<Vec<Property>, Diagnostics> {
    super::count_parse();
    let names = Names::new(model);
    let fail = |d: Diagnostic| Diagnostics::new(file, text, vec![d]);
    let mut defs = Definitions::new();
    let mut props = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.trim_end().len();
        let body = line.trim();
        let at = start + (line.len() - line.trim_start().len());
        start += line.len();
        if body.is_empty() || body.starts_with("//") {
            continue;
        }
        if let Some(rest) = body.strip_prefix("#define") {
            let name_at = at + "#define".len() + (rest.len() - rest.trim_start().len());
            let rest = rest.trim_start();
            let name_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if name_len == 0 || !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                return Err(fail(Diagnostic::new(
                    Span::new(name_at, name_at + 1),
                    "expected a name after `#define`",
                )));
            }
            let name = &rest[..name_len];
            let syn = parse::parse(text, name_at + name_len, end, &names, &defs).map_err(fail)?;
            defs.insert(
                name.to_string(),
                Definition {
                    syn: Ok(syn),
                    external: false,
                },
            );
        } else if body.starts_with("#property") {
            let from = at + "#property".len();
            let syn = parse::parse(text, from, end, &names, &defs).map_err(fail)?;
            props.push(property(file, text, Span::new(from, end), syn));
        } else {
            return Err(fail(Diagnostic::new(
                Span::new(at, end),
                "expected `#define NAME expression` or `#property formula`",
            )));
        }
    }
    if props.is_empty() {
        return Err(fail(Diagnostic::new(
            Span::new(text.len(), text.len()),
            "the file states no property (`#property formula`)",
        )));
    }
    Ok(props)
}
