//! A request flows down the layers once: `explore MODEL --por --ltl F
//! --threads 2` parses its formula once and compiles its model once (the
//! first, reduced pass explores the system alone with the product's code,
//! the property process held). The counters are per process, so this file
//! holds one test.

use std::path::PathBuf;

use dvemc_run::model::backend::Backend;
use dvemc_run::run::strategy::{Params, Strategy};
use dvemc_run::run::{run, Request};

/// Three independent counters: 226,981 states, more than the full
/// product's first pass takes, so that the reduced passes run.
const COUNTERS: &str = "byte a; byte b; byte c;
process P { state s; init s; trans s -> s { guard a < 60; effect a = a + 1; }; }
process Q { state s; init s; trans s -> s { guard b < 60; effect b = b + 1; }; }
process R { state s; init s; trans s -> s { guard c < 60; effect c = c + 1; }; }
system async;";

fn model_file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dvemc-request-flow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("counters.dve");
    std::fs::write(&path, COUNTERS).unwrap();
    path
}

/// Formulas parsed and models compiled by `req`'s run, and its record.
fn counted(req: &Request) -> (u64, u64, dvemc_run::output::record::RunRecord) {
    let (parsed, compiled) = (dve_frontend::ltl::parsed(), jit::compiled());
    let ran = run(req).unwrap_or_else(|e| panic!("{e:?}"));
    (
        dve_frontend::ltl::parsed() - parsed,
        jit::compiled() - compiled,
        ran.record,
    )
}

#[test]
fn a_reduced_ltl_check_parses_its_formula_once_and_compiles_each_model_once() {
    let path = model_file();
    let request = |por: bool| Request {
        model: Some(path.clone()),
        strategy: Some(Strategy::Bfs),
        backend: Backend::Jit,
        ltl: Some(dve_frontend::ltl::Spec::Formula {
            text: "G (a < 100)".into(),
            definitions: Vec::new(),
        }),
        params: Params {
            threads: Some(2),
            por,
            ..Params::default()
        },
        given: [
            if por { vec!["por".to_string()] } else { vec![] },
            vec!["threads".into()],
        ]
        .concat(),
        ..Request::default()
    };

    // Without the reduction: the product, compiled once.
    let (parsed, compiled, rec) = counted(&request(false));
    assert_eq!(rec.core.verdict.as_deref(), Some("holds"), "{rec:?}");
    assert_eq!(rec.core.states, 226_981);
    assert_eq!((parsed, compiled), (1, 1));

    // Reduced: the product's code serves both passes.
    let (parsed, compiled, rec) = counted(&request(true));
    assert_eq!(rec.core.verdict.as_deref(), Some("holds"), "{rec:?}");
    assert!(rec.core.states < 1_000, "{}", rec.core.states);
    assert_eq!((parsed, compiled), (1, 1));
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
