//! `dvemc ltl2ba`: an LTL formula's Büchi automaton, in HOA or as text.

use std::path::PathBuf;

use anyhow::Result;
use dve_frontend::ltl;
use dvemc_run::run::{ltl_definitions, resolve_model};

use crate::{Printed, EXIT_OK};

#[derive(clap::Args, Debug)]
pub(crate) struct Ltl2baArgs {
    /// The formula, e.g. 'G (P_0.wait -> F P_0.CS)'
    ///
    /// Operators: ! not, && and, || or, -> imply, <->, X, F <>, G [], U, R V,
    /// W; atomic propositions are DVE expressions (`x > 3`, `P.state`,
    /// `P->v`, `a[i] == 1`).
    #[arg(value_name = "FORMULA")]
    formula: String,
    /// The automaton of the negated formula (the one a check searches the product with)
    #[arg(long)]
    negate: bool,
    /// Output: hoa (Hanoi Omega-Automata v1) or text (a readable listing)
    #[arg(long, value_name = "FORMAT", default_value = "hoa")]
    format: Format,
    /// Check the atoms against this model (a .dve file or a BEEM instance name)
    ///
    /// Names of a BEEM instance's family file (`<ap-name>`) may then be used
    /// as propositions, as BEEM's formulas do.
    #[arg(long, value_name = "MODEL")]
    model: Option<PathBuf>,
    /// BEEM directory [default: $BEEM_DIR, else ../shared/beem]
    #[arg(long, value_name = "DIR")]
    beem: Option<PathBuf>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Format {
    Hoa,
    Text,
}

pub(crate) fn run(args: &Ltl2baArgs) -> Result<u8> {
    let property = match &args.model {
        Some(m) => {
            let (path, _) = resolve_model(m, args.beem.as_deref())?;
            let defs = ltl_definitions(&path, args.beem.as_deref());
            let spec = ltl::Spec::Formula {
                text: args.formula.clone(),
                definitions: defs,
            };
            ltl::load(&path, &spec)
                .map_err(|e| Printed(e.to_string()))?
                .property
        }
        None => {
            ltl::parse_formula("<formula>", &args.formula, None, &[]).map_err(|e| Printed(e.to_string()))?
        }
    };
    let names: Vec<String> = (0..property.atoms.len()).map(|a| property.atom_text(a)).collect();
    let automaton = ltl::translate(&property.formula, names.len(), args.negate)
        .map_err(|e| Printed(format!("dvemc: error: {e}")))?;
    let title = if args.negate {
        format!("!({})", property.text())
    } else {
        property.text().to_string()
    };
    match args.format {
        Format::Hoa => print!("{}", automaton.hoa(&title, &names)),
        Format::Text => {
            println!("automaton of {title}");
            // The formula over p0, p1, ... as other translators take it.
            let abstract_name = |a: usize| format!("p{a}");
            let f = property.formula.text(&abstract_name);
            println!("formula: {}", if args.negate { format!("!{f}") } else { f });
            for (a, n) in names.iter().enumerate() {
                println!("  p{a} = {n}");
            }
            print!("{}", automaton.text(&names));
        }
    }
    Ok(EXIT_OK)
}
