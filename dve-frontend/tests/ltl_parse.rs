//! LTL formula parsing: spellings, BEEM's glued operators, atoms resolved
//! against a model, DiVinE's `.ltl` files, and positioned errors.

use dve_frontend::ltl::{self, parse_file, parse_formula};

const MODEL: &str = "byte x; byte a[3]; int t = 1;
process P { byte v; state idle, CS; init idle; trans idle -> CS { effect v = 1; }, CS -> idle {}; }
process Q { state q0; init q0; }
system async;";

fn model() -> dve_frontend::ast::Model {
    dve_frontend::parser::parse("m.dve", MODEL).unwrap()
}

fn shown(text: &str) -> String {
    shown_with(text, &[])
}

fn shown_with(text: &str, defs: &[(String, String)]) -> String {
    let m = model();
    let p = parse_formula("<formula>", text, Some(&m), defs).unwrap_or_else(|e| panic!("{e}"));
    p.to_text(&p.formula)
}

fn error(text: &str) -> String {
    let src = ltl::Spec::Formula {
        text: text.to_string(),
        definitions: Vec::new(),
    };
    let dir = std::env::temp_dir().join(format!("ltl-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.dve");
    std::fs::write(&path, MODEL).unwrap();
    match ltl::load(&path, &src) {
        Ok(_) => panic!("`{text}` was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn spellings_of_the_operators() {
    for text in [
        "G (x -> F P.CS)",
        "[] (x -> <> P.CS)",
        "G(x => F(P.CS))",
        "G (x imply F P.CS)",
    ] {
        assert_eq!(shown(text), "G (x -> F P.CS)", "{text}");
    }
    assert_eq!(shown("!x U x && t R x"), "((!x U x) && (t R x))");
    assert_eq!(shown("not x or x and x"), "(!x || (x && x))");
    assert_eq!(shown("x <-> X x W x"), "(x <-> (X x W x))");
    assert_eq!(shown("x V x"), "(x R x)");
    assert_eq!(shown("true U false"), "(true U false)");
}

#[test]
fn beem_glued_operators() {
    assert_eq!(shown("GF (P.CS)"), "G F P.CS");
    assert_eq!(shown("F(G (x==1))"), "F G (x == 1)");
    let defs = vec![("p1".to_string(), "x==1".to_string())];
    assert_eq!(
        shown_with("!p1U(p1U((x==1)&& (P.CS)))", &defs),
        "(!(x == 1) U ((x == 1) U ((x == 1) && P.CS)))"
    );
}

#[test]
fn atoms_are_dve_expressions() {
    assert_eq!(shown("GF (P.CS + Q.q0 == 1)"), "G F ((P.CS + Q.q0) == 1)");
    assert_eq!(shown("(x + 1) * 2 > a[x + 1]"), "(((x + 1) * 2) > a[x + 1])");
    assert_eq!(shown("P->v == 1 -> P.v == 1"), "((P->v == 1) -> (P->v == 1))");
    assert_eq!(
        shown("(x == 1 || t == 2) + 1 == 2"),
        "((((x == 1) or (t == 2)) + 1) == 2)"
    );
    // Equal atoms are one proposition.
    let m = model();
    let p = parse_formula("<f>", "G (x == 1 -> F x == 1)", Some(&m), &[]).unwrap();
    assert_eq!(p.atoms.len(), 1);
}

#[test]
fn ltl_files() {
    let text = "// mutual exclusion\n#define in_cs P.CS\n#define big (x > 3)\n#property G (big -> F in_cs)\n\n#property GF !in_cs\n";
    let m = model();
    let props = parse_file("p.ltl", text, Some(&m)).unwrap();
    assert_eq!(props.len(), 2);
    assert_eq!(props[0].to_text(&props[0].formula), "G ((x > 3) -> F P.CS)");
    assert_eq!(props[1].text(), "GF !in_cs");
    let bad = parse_file("p.ltl", "#define a x\n#property G (a ->)\n", Some(&m)).unwrap_err();
    assert_eq!(bad.first_position(), Some((2, 18)), "{bad}");
    let none = parse_file("p.ltl", "#define a x\n", Some(&m)).unwrap_err();
    assert!(none.to_string().contains("states no property"), "{none}");
    let junk = parse_file("p.ltl", "#property F a\nproperty G a\n", Some(&m)).unwrap_err();
    assert_eq!(junk.first_position(), Some((2, 1)), "{junk}");
}

#[test]
fn errors_have_positions_inside_the_formula() {
    let e = error("G (x -> F P.nope)");
    assert!(
        e.starts_with("<formula>:1:13: error: process `P` has no state `nope`"),
        "{e}"
    );
    let e = error("G (y == 1)");
    assert!(e.starts_with("<formula>:1:4: error: unknown variable `y`"), "{e}");
    let e = error("G (R.CS)");
    assert!(e.starts_with("<formula>:1:4: error: unknown process `R`"), "{e}");
    let e = error("G (x == 1");
    assert!(
        e.starts_with("<formula>:1:10: error: expected `)`, found the end of the formula"),
        "{e}"
    );
    let e = error("G x U");
    assert!(e.starts_with("<formula>:1:6: error: expected a formula"), "{e}");
    let e = error("F x # 2");
    assert!(
        e.starts_with("<formula>:1:5: error: unexpected character `#`"),
        "{e}"
    );
    let e = error("(F x) + 1 == 2");
    assert!(
        e.contains("1:1: error: a temporal formula cannot be an operand"),
        "{e}"
    );
    let e = error("");
    assert!(e.contains("empty formula"), "{e}");
    let deep = format!("{}x{}", "(".repeat(5000), ")".repeat(5000));
    assert!(error(&deep).contains("nested too deeply"));
}

/// Long flat chains are refused with a message, never a stack overflow or a
/// formula that grows without bound: `&&` chains count toward the nesting
/// limit, and `<->` chains (each link copies both sides into negation
/// normal form) toward the size limit of the translation.
#[test]
fn long_chains_are_refused_with_a_message() {
    let m = model();
    let chain = vec!["x"; 5000].join(" && ");
    let e = parse_formula("<formula>", &chain, Some(&m), &[]).expect_err("refused");
    assert!(e.to_string().contains("nested too deeply"), "{e}");
    let chain = vec!["x == 1"; 30].join(" <-> ");
    let p = parse_formula("<formula>", &chain, Some(&m), &[]).expect("parses");
    let e = ltl::translate(&p.formula, p.atoms.len(), true).expect_err("too large");
    assert!(e.contains("too large"), "{e}");
}
