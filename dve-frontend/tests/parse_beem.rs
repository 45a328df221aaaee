//! Parses every model of the BEEM suite and checks a few structural facts,
//! including the feature counts of `docs/dve-language.md` §9.
//!
//! The suite is looked up in `$BEEM_DIR/dve`, or else in
//! `<crate>/../../shared/beem/dve`. A missing suite is a test failure.

use dve_frontend::ast::*;
use dve_frontend::parser::parse;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn beem_dir() -> PathBuf {
    let base = match std::env::var_os("BEEM_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/beem"),
    };
    let dir = base.join("dve");
    assert!(
        dir.is_dir(),
        "BEEM models not found at {} (set BEEM_DIR to the directory that contains dve/)",
        dir.display()
    );
    dir
}

fn read(name: &str) -> String {
    let path = beem_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn parse_ok(name: &str) -> Model {
    let src = read(name);
    match parse(name, &src) {
        Ok(m) => m,
        Err(d) => panic!("{name} does not parse:\n{d}"),
    }
}

/// All files of the suite, sorted by name.
fn all_files() -> Vec<(String, String)> {
    let dir = beem_dir();
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            if path.extension().is_some_and(|x| x == "dve") {
                let name = path.file_name()?.to_string_lossy().into_owned();
                let bytes =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                let text = String::from_utf8(bytes).unwrap_or_else(|_| panic!("{name} is not UTF-8"));
                Some((name, text))
            } else {
                None
            }
        })
        .collect();
    files.sort();
    files
}

/// Visits every expression node of a model.
fn for_each_expr(m: &Model, f: &mut dyn FnMut(&Expr)) {
    fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
        f(e);
        match &e.kind {
            ExprKind::Num(_) | ExprKind::Var(_) | ExprKind::InState(..) | ExprKind::Remote(..) => {}
            ExprKind::Index(_, i) | ExprKind::RemoteIndex(_, _, i) | ExprKind::Unary(_, i) => walk(i, f),
            ExprKind::Binary(_, a, b) => {
                walk(a, f);
                walk(b, f);
            }
        }
    }
    let decl = |d: &VarDecl, f: &mut dyn FnMut(&Expr)| {
        for dc in &d.declarators {
            match &dc.init {
                Some(Initializer::Scalar(e)) => walk(e, f),
                Some(Initializer::List(v, _)) => v.iter().for_each(|e| walk(e, f)),
                None => {}
            }
        }
    };
    for g in &m.decls {
        if let GlobalDecl::Var(d) = g {
            decl(d, f);
        }
    }
    for p in &m.processes {
        p.vars.iter().for_each(|d| decl(d, f));
        for (_, e) in &p.asserts {
            walk(e, f);
        }
        for t in &p.transitions {
            if let Some(g) = &t.guard {
                walk(g, f);
            }
            if let Some(s) = &t.sync {
                s.values.iter().for_each(|e| walk(e, f));
            }
            for a in &t.effects {
                if let Some(i) = &a.target.index {
                    walk(i, f);
                }
                walk(&a.value, f);
            }
        }
    }
}

fn any_expr(m: &Model, pred: impl Fn(&Expr) -> bool) -> bool {
    let mut found = false;
    for_each_expr(m, &mut |e| found |= pred(e));
    found
}

#[test]
fn all_beem_models_parse() {
    let files = all_files();
    let mut failures = Vec::new();
    // Feature name -> number of files using it.
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    let mut bump = |key: &'static str, yes: bool| *count.entry(key).or_default() += usize::from(yes);
    let mut processes = 0usize;
    let mut transitions = 0usize;
    for (name, src) in &files {
        let m = match parse(name, src) {
            Ok(m) => m,
            Err(d) => {
                failures.push(d.to_string());
                continue;
            }
        };
        processes += m.processes.len();
        transitions += m.processes.iter().map(|p| p.transitions.len()).sum::<usize>();
        assert!(!m.system.is_sync, "{name}: BEEM has no 'system sync'");
        bump("property", m.system.property.is_some());
        if let Some(prop) = &m.system.property {
            let last = m.processes.last().map(|p| p.name.name.as_str());
            assert_eq!(
                last,
                Some(prop.name.as_str()),
                "{name}: the property process is the last one"
            );
        }
        let vars = || {
            m.decls.iter().filter_map(|d| match d {
                GlobalDecl::Var(v) => Some(v),
                GlobalDecl::Channel(_) => None,
            })
        };
        bump("const", vars().any(|v| v.is_const));
        bump(
            "global int scalar",
            vars().any(|v| {
                !v.is_const && v.ty == TypeName::Int && v.declarators.iter().any(|d| d.array_size.is_none())
            }),
        );
        bump(
            "global int array",
            vars().any(|v| v.ty == TypeName::Int && v.declarators.iter().any(|d| d.array_size.is_some())),
        );
        bump(
            "untyped channels",
            m.decls
                .iter()
                .any(|d| matches!(d, GlobalDecl::Channel(c) if c.types.is_none())),
        );
        bump(
            "typed channels",
            m.decls
                .iter()
                .any(|d| matches!(d, GlobalDecl::Channel(c) if c.types.is_some())),
        );
        bump("accept", m.processes.iter().any(|p| p.accept != Accept::None));
        bump("commit", m.processes.iter().any(|p| !p.commit.is_empty()));
        bump("assert", m.processes.iter().any(|p| !p.asserts.is_empty()));
        bump(
            "short transitions",
            m.processes
                .iter()
                .flat_map(|p| &p.transitions)
                .any(|t| t.from.is_none()),
        );
        bump(
            "multi-value sync",
            m.processes
                .iter()
                .flat_map(|p| &p.transitions)
                .any(|t| t.sync.as_ref().is_some_and(|s| s.values.len() > 1)),
        );
        bump("P.s", any_expr(&m, |e| matches!(e.kind, ExprKind::InState(..))));
        bump(
            "P->v",
            any_expr(&m, |e| {
                matches!(e.kind, ExprKind::Remote(..) | ExprKind::RemoteIndex(..))
            }),
        );
        bump(
            "<<",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::Shl, ..))),
        );
        bump(
            "&",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::BitAnd, ..))),
        );
        bump(
            "|",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::BitOr, ..))),
        );
        bump(
            "%",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::Rem, ..))),
        );
        bump(
            "/",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::Div, ..))),
        );
        bump(
            "*",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::Mul, ..))),
        );
        bump(
            "unary -",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Unary(UnOp::Neg, _))),
        );
        bump(
            "not",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Unary(UnOp::Not, _))),
        );
        bump(
            "and",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::And, ..))),
        );
        bump(
            "or",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Binary(BinOp::Or, ..))),
        );
        bump(
            "unused ops",
            any_expr(&m, |e| {
                matches!(
                    e.kind,
                    ExprKind::Binary(BinOp::Shr | BinOp::BitXor | BinOp::Imply, ..)
                        | ExprKind::Unary(UnOp::BitNot, _)
                )
            }),
        );
        bump(
            "literal > 255",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Num(n) if n > 255)),
        );
        bump(
            "literal > 32767",
            any_expr(&m, |e| matches!(e.kind, ExprKind::Num(n) if n > 32767)),
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} BEEM files fail to parse:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
    assert_eq!(files.len(), 757, "the BEEM suite has 757 .dve files");
    eprintln!(
        "parsed {} BEEM files: {processes} processes, {transitions} transitions",
        files.len()
    );

    // Feature counts (files using the feature) from docs/dve-language.md §9.
    let expected: &[(&str, usize)] = &[
        ("property", 457),
        ("const", 42),
        ("global int scalar", 63),
        ("global int array", 15),
        ("untyped channels", 384),
        ("typed channels", 0),
        ("accept", 457),
        ("commit", 0),
        ("assert", 0),
        ("short transitions", 0),
        ("multi-value sync", 0),
        ("P.s", 430),
        ("P->v", 8),
        ("<<", 21),
        ("&", 45),
        ("|", 66),
        ("%", 276),
        ("/", 163),
        ("*", 247),
        ("unary -", 52),
        ("not", 527),
        ("and", 658),
        ("or", 356),
        ("unused ops", 0),
        ("literal > 255", 17),
        ("literal > 32767", 0),
    ];
    let mismatches: Vec<String> = expected
        .iter()
        .filter(|(k, n)| count.get(k).copied().unwrap_or(0) != *n)
        .map(|(k, n)| {
            format!(
                "{k}: expected {n} files, found {}",
                count.get(k).copied().unwrap_or(0)
            )
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "feature counts differ from the reference:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn adding_1_structure() {
    let m = parse_ok("adding.1.dve");
    assert_eq!(m.decls.len(), 1);
    let GlobalDecl::Var(v) = &m.decls[0] else {
        panic!("expected a variable declaration")
    };
    assert_eq!(v.ty, TypeName::Int);
    assert!(!v.is_const);
    let names: Vec<&str> = v.declarators.iter().map(|d| d.name.name.as_str()).collect();
    assert_eq!(names, ["c", "x1", "x2"]);
    assert!(matches!(
        v.declarators[0].init,
        Some(Initializer::Scalar(Expr {
            kind: ExprKind::Num(1),
            ..
        }))
    ));
    let procs: Vec<&str> = m.processes.iter().map(|p| p.name.name.as_str()).collect();
    assert_eq!(procs, ["a1", "a2"]);
    for p in &m.processes {
        assert!(p.vars.is_empty());
        assert_eq!(p.states.len(), 3);
        assert_eq!(p.init.name, "Q");
        assert_eq!(p.transitions.len(), 3);
        assert!(p.transitions[0].guard.is_some());
    }
    assert_eq!(m.system.property, None);
}

#[test]
fn anderson_1_structure() {
    let m = parse_ok("anderson.1.dve");
    let GlobalDecl::Var(v) = &m.decls[0] else {
        panic!("expected a variable declaration")
    };
    assert_eq!(v.declarators[0].name.name, "Slot");
    assert_eq!(v.declarators[0].array_size.map(|(n, _)| n), Some(2));
    // The initialiser list is longer than the array (`{1, 0 ,0 }`).
    let Some(Initializer::List(items, _)) = &v.declarators[0].init else {
        panic!("expected a list initialiser")
    };
    assert_eq!(items.len(), 3);
    assert_eq!(m.processes.len(), 2);
    assert_eq!(m.processes[0].vars.len(), 1);
    assert_eq!(m.processes[1].transitions.len(), 6);
    // `p1 -> p2 { guard my_place == 2-1; ... }`
    let g = m.processes[0].transitions[1].guard.as_ref().expect("guard");
    assert!(
        matches!(&g.kind, ExprKind::Binary(BinOp::Eq, _, b) if matches!(b.kind, ExprKind::Binary(BinOp::Sub, ..)))
    );
}

#[test]
fn anderson_1_prop2_structure() {
    let m = parse_ok("anderson.1.prop2.dve");
    assert_eq!(m.processes.len(), 3);
    let prop = &m.processes[2];
    assert_eq!(prop.name.name, "LTL_property");
    assert_eq!(
        m.system.property.as_ref().map(|p| p.name.as_str()),
        Some("LTL_property")
    );
    let Accept::Buchi(acc) = &prop.accept else {
        panic!("expected Büchi acceptance")
    };
    assert_eq!(acc.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["q2"]);
    assert_eq!(prop.transitions.len(), 3);
    // `(P_0.p1 or P_0.p2 or P_0.p3) && not (P_0.CS)`
    let g = prop.transitions[1].guard.as_ref().expect("guard");
    let ExprKind::Binary(BinOp::And, a, b) = &g.kind else {
        panic!("expected &&: {g:?}")
    };
    assert!(
        matches!(&a.kind, ExprKind::Binary(BinOp::Or, l, _) if matches!(l.kind, ExprKind::Binary(BinOp::Or, ..)))
    );
    assert!(
        matches!(&b.kind, ExprKind::Unary(UnOp::Not, s) if matches!(&s.kind, ExprKind::InState(p, st) if p.name == "P_0" && st.name == "CS"))
    );
}

#[test]
fn pgm_protocol_structure() {
    let m = parse_ok("pgm_protocol.1.prop3.dve");
    let names: Vec<&str> = m.processes.iter().map(|p| p.name.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "sender",
            "clock",
            "element",
            "receiver",
            "SN",
            "NS",
            "NR",
            "RN",
            "LTL_property"
        ]
    );
    let consts = m
        .decls
        .iter()
        .filter(|d| matches!(d, GlobalDecl::Var(v) if v.is_const))
        .count();
    assert_eq!(consts, 3);
}

#[test]
fn plc_largest_file() {
    // 1.8 MB, mostly blank lines.
    let m = parse_ok("plc.4.dve");
    assert_eq!(m.processes.len(), 12);
    assert!(m.processes.iter().map(|p| p.transitions.len()).sum::<usize>() > 200);
}

/// Every BEEM file also passes semantic analysis (names, types, layout) and
/// its initial state is computed.
#[test]
fn all_beem_models_check() {
    let files = all_files();
    assert_eq!(files.len(), 757);
    let mut failures = Vec::new();
    for (name, text) in &files {
        match dve_frontend::load_str(name, text) {
            Ok(m) => assert_eq!(m.initial.len(), m.state_len, "{name}"),
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(
        failures.is_empty(),
        "{} files fail to check:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
