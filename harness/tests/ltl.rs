//! LTL formulas over BEEM's models: every LTL formula of properties.csv, as
//! written there, parses and its atoms resolve against its instance (BEEM's
//! family propositions such as elevator2's `p1` included).

use dve_frontend::ltl::{self, Source};
use harness::model::beem::{Beem, PropertyKind};

#[test]
fn every_beem_formula_parses_against_its_instance() {
    let beem = Beem::locate(None).expect("BEEM suite");
    let rows: Vec<_> = beem
        .properties()
        .expect("properties.csv")
        .into_iter()
        .filter(|r| r.kind == PropertyKind::Ltl)
        .collect();
    let mut failures = Vec::new();
    let mut atoms = 0;
    for r in &rows {
        let defs = beem.family_propositions(&r.family).expect("family file");
        let source = Source::Formula {
            text: &r.formula,
            definitions: &defs,
        };
        match ltl::load(&beem.model_path(&r.instance), source) {
            Ok(l) => {
                assert_eq!(l.atoms.len(), l.property.atoms.len());
                atoms += l.atoms.len();
            }
            Err(e) => failures.push(format!("{} prop {}: {e}", r.instance, r.prop_id)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 374 LTL rows in properties.csv.
    assert_eq!(rows.len(), 374);
    assert!(atoms >= rows.len());
}
