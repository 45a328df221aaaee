//! Semantic errors name the file, line and column, show the line, and
//! several are reported at once.

fn errors(src: &str) -> String {
    match dve_frontend::load_str("m.dve", src) {
        Ok(_) => panic!("model should not load"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn several_errors_at_once_with_positions() {
    let src = "byte x;\nprocess P {\n  state a;\n  init a;\n  trans a -> b { effect y = 1; },\n        a -> a { guard Q.s; };\n}\nsystem async;\n";
    let e = errors(src);
    assert!(
        e.contains("m.dve:5:14: error: process `P` has no state `b`"),
        "{e}"
    );
    assert!(e.contains("m.dve:5:25: error: unknown variable `y`"), "{e}");
    assert!(e.contains("m.dve:6:24: error: unknown process `Q`"), "{e}");
    assert!(e.contains("    5 |   trans a -> b { effect y = 1; },"), "{e}");
}

#[test]
fn type_errors() {
    let e = errors("const byte K = 1; byte a[2]; process P { state s; init s; trans s -> s { effect K = 2; }; } system async;");
    assert!(e.contains("cannot assign to constant `K`"), "{e}");
    let e = errors("byte x; process P { state s; init s; trans s -> s { effect x[1] = 2; }; } system async;");
    assert!(e.contains("`x` is not an array"), "{e}");
    let e = errors("byte x = 256; process P { state s; init s; } system async;");
    assert!(
        e.contains("m.dve:1:10: error: initial value 256 is out of range for byte"),
        "{e}"
    );
    let e = errors("byte x = y; byte y; process P { state s; init s; } system async;");
    assert!(e.contains("unknown variable `y`"), "{e}");
    let e = errors("byte y; byte x = y; process P { state s; init s; } system async;");
    assert!(
        e.contains("initialiser reads `y`, which has no initial value"),
        "{e}"
    );
    let e = errors("channel c; process P { state s; init s; trans s -> s { sync c!1; }, s -> s { sync c?; }; } system async;");
    assert!(
        e.contains("channel `c` carries 1 value(s) but this sync passes 0"),
        "{e}"
    );
    let e = errors("byte x; byte x; process x { state s; init s; } system async;");
    assert!(e.matches("declared twice").count() >= 2, "{e}");
    let e = errors(
        "byte g; process P { state s; init s; trans s -> s { effect g = 1; }; } system async property P;",
    );
    assert!(e.contains("property process cannot assign global"), "{e}");
    assert!(
        e.contains("at least one process besides the property process"),
        "{e}"
    );
}

/// A literal is checked with the value written, not one wrapped to 32 bits,
/// and an array too large for the state vector says so, once.
#[test]
fn literals_are_checked_before_they_are_narrowed() {
    let e = errors("const int N = 99999999999999999999; process P { state s; init s; } system async;");
    assert!(
        e.contains("m.dve:1:15: error: number 99999999999999999999 is out of range (at most 2147483647)"),
        "{e}"
    );
    let e = errors("int x = 99999; process P { state s; init s; } system async;");
    assert!(
        e.contains("m.dve:1:9: error: initial value 99999 is out of range for int"),
        "{e}"
    );
    let e = errors(
        "byte x[4294967296]; process P { state s; init s; trans s -> s { effect x[0] = 1; }; } system async;",
    );
    assert!(
        e.contains("m.dve:1:8: error: number 4294967296 is out of range (at most 2147483647)"),
        "{e}"
    );
    let e = errors(
        "byte x[100000000]; process P { state s; init s; trans s -> s { effect x[0] = 1; }; } system async;",
    );
    assert!(
        e.contains("m.dve:1:8: error: array size 100000000 is too large for the state vector: it would take 100000000 bytes, more than the 4194304 a state may have"),
        "{e}"
    );
    assert_eq!(e.matches("error:").count(), 1, "{e}");
    let e = errors("const byte K[2000000]; process P { state s; init s; } system async;");
    assert!(e.contains("constant array size 2000000 is too large"), "{e}");
    // The last byte that fits, then one more (the control state takes 2).
    let fits = format!(
        "byte x[{}]; process P {{ state s; init s; }} system async;",
        (4 << 20) - 2
    );
    assert!(dve_frontend::load_str("m.dve", &fits).is_ok());
    let e = errors(&format!(
        "byte x[{}]; process P {{ state s; init s; }} system async;",
        (4 << 20) - 1
    ));
    assert!(
        e.contains(
            "error: the state vector would take 4194305 bytes, more than the 4194304 a state may have"
        ),
        "{e}"
    );
}
