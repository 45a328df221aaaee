//! Parser entry point: runs the lexer and the lalrpop grammar
//! (`grammar.lalrpop`) and turns every failure into a [`Diagnostic`].

use crate::ast::{BinOp, Expr, ExprKind, Model, Span};
use crate::diag::{Diagnostic, Diagnostics};
pub use crate::lexer::MAX_EXPR_DEPTH;
use crate::lexer::{LexError, LexErrorKind, Lexer, Token};
use lalrpop_util::ParseError;

/// Parses a DVE source text. `file` is only used to label diagnostics.
pub fn parse(file: &str, source: &str) -> Result<Model, Diagnostics> {
    let parser = crate::grammar::ModelParser::new();
    parser
        .parse(Lexer::new(source))
        .map_err(|e| Diagnostics::new(file, source, vec![diagnostic(source, e, "file")]))
}

/// Parses a single expression (a reachability goal, a progress measure).
pub fn parse_expr(file: &str, source: &str) -> Result<Expr, Diagnostics> {
    if Lexer::new(source).next().is_none() {
        let d = Diagnostic::new(Span::new(0, 0), "empty expression");
        return Err(Diagnostics::new(file, source, vec![d]));
    }
    crate::grammar::ExprParser::new()
        .parse(Lexer::new(source))
        .map_err(|e| Diagnostics::new(file, source, vec![diagnostic(source, e, "expression")]))
}

type PError = ParseError<usize, Token, LexError>;

/// The diagnostic of a parse error in `source`, which is a model file or
/// an expression (`what`, for the message about its end).
fn diagnostic(source: &str, err: PError, what: &str) -> Diagnostic {
    match err {
        ParseError::InvalidToken { location } => {
            Diagnostic::new(Span::new(location, location), "invalid token")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            if Lexer::new(source).next().is_none() {
                Diagnostic::new(
                    Span::new(0, 0),
                    "empty model: expected declarations, at least one process and a 'system' declaration",
                )
            } else {
                Diagnostic::new(
                    Span::new(location, location),
                    format!("unexpected end of {what}: {}", expected_list(&expected)),
                )
            }
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let mut msg = if expected.is_empty() {
                format!(
                    "unexpected {} after the end of the model (the 'system' declaration must come last)",
                    tok.describe()
                )
            } else {
                format!("{} but found {}", expected_list(&expected), tok.describe())
            };
            msg.push_str(hint(&tok, &expected));
            Diagnostic::new(Span::new(l, r), msg)
        }
        ParseError::ExtraToken { token: (l, tok, r) } => Diagnostic::new(
            Span::new(l, r),
            format!(
                "unexpected {} after the end of the model (the 'system' declaration must come last)",
                tok.describe()
            ),
        ),
        ParseError::User { error } => Diagnostic::new(error.span, error.message(source)),
    }
}

/// Extra advice for common mistakes.
fn hint(tok: &Token, expected: &[String]) -> &'static str {
    let wants_expr = expected.iter().any(|e| e == "NUM");
    match tok {
        Token::WideArrow => " (probabilistic transitions '=>' are not supported)",
        Token::PlusPlus | Token::MinusMinus => {
            " ('++' and '--' are not DVE operators; write the assignment 'x = x + 1')"
        }
        Token::Excl if wants_expr => " (logical negation is written 'not')",
        Token::Ident(name) if matches!(name.as_str(), "bool" | "short" | "char" | "long" | "unsigned") => {
            " (the only types are 'byte' and 'int')"
        }
        _ => "",
    }
}

/// Binary operators: reported together as "an operator" when most are
/// expected.
const BINARY_OPS: [&str; 21] = [
    "imply", "or", "||", "and", "&&", "|", "&", "^", "==", "!=", "<", "<=", ">", ">=", "<<", ">>", "+", "-",
    "*", "/", "%",
];

/// Tokens that can start an expression: reported together as "an
/// expression".
const EXPR_START: [&str; 8] = ["ID", "NUM", "(", "-", "~", "not", "true", "false"];

/// Turns lalrpop's list of expected terminals into readable English.
fn expected_list(expected: &[String]) -> String {
    let names: Vec<&str> = expected.iter().map(|s| s.trim_matches('"')).collect();
    let has = |s: &str| names.contains(&s);
    let all_ops = BINARY_OPS.iter().filter(|op| has(op)).count() >= 15;
    let all_starts = EXPR_START.iter().all(|t| has(t));
    let mut items: Vec<String> = Vec::new();
    for n in &names {
        if all_ops && BINARY_OPS.contains(n) || all_starts && EXPR_START.contains(n) {
            continue;
        }
        items.push(match *n {
            "ID" => "an identifier".to_string(),
            "NUM" => "a number".to_string(),
            other => format!("'{other}'"),
        });
    }
    if all_starts {
        items.push("an expression".to_string());
    }
    if all_ops {
        items.push("an operator".to_string());
    }
    match items.as_slice() {
        [] => "unexpected input".to_string(),
        [one] => format!("expected {one}"),
        // Only quoted tokens: "expected one of ';', ','".
        _ if items.iter().all(|i| i.starts_with('\'')) => format!("expected one of {}", items.join(", ")),
        // With descriptions: "expected ',', ';' or an operator".
        [init @ .., last] => format!("expected {} or {last}", init.join(", ")),
    }
}

// ------------------------------------------------------------------------
// Helpers for the grammar's actions.

/// An expression with the depth of its tree.
pub(crate) struct DExpr {
    pub(crate) expr: Expr,
    pub(crate) depth: u32,
}

pub(crate) fn leaf(l: usize, r: usize, kind: ExprKind) -> DExpr {
    DExpr {
        expr: Expr {
            kind,
            span: Span::new(l, r),
        },
        depth: 1,
    }
}

fn too_deep(l: usize, r: usize) -> PError {
    ParseError::User {
        error: LexError {
            kind: LexErrorKind::TooDeep,
            span: Span::new(l, r),
        },
    }
}

/// A node with one sub-expression.
pub(crate) fn nested(
    l: usize,
    r: usize,
    inner: DExpr,
    make: impl FnOnce(Expr) -> ExprKind,
) -> Result<DExpr, PError> {
    let depth = inner.depth + 1;
    if depth > MAX_EXPR_DEPTH {
        return Err(too_deep(l, r));
    }
    Ok(DExpr {
        expr: Expr {
            kind: make(inner.expr),
            span: Span::new(l, r),
        },
        depth,
    })
}

pub(crate) fn binary(l: usize, a: DExpr, op: BinOp, b: DExpr, r: usize) -> Result<DExpr, PError> {
    let depth = a.depth.max(b.depth) + 1;
    if depth > MAX_EXPR_DEPTH {
        return Err(too_deep(l, r));
    }
    Ok(DExpr {
        expr: Expr {
            kind: ExprKind::Binary(op, Box::new(a.expr), Box::new(b.expr)),
            span: Span::new(l, r),
        },
        depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::*;

    fn ok(src: &str) -> Model {
        match parse("t.dve", src) {
            Ok(m) => m,
            Err(d) => panic!("parse failed:\n{d}"),
        }
    }

    fn fail(src: &str) -> (String, (usize, usize), Span) {
        match parse("t.dve", src) {
            Ok(m) => panic!("parse unexpectedly succeeded: {m:?}"),
            Err(d) => {
                assert_eq!(d.items.len(), 1);
                let pos = d.first_position().unwrap_or((0, 0));
                // Rendering must work too.
                let _ = d.to_string();
                (d.items[0].message.clone(), pos, d.items[0].span)
            }
        }
    }

    const MINI: &str = "process P { state s; init s; }\nsystem async;";

    /// Parses `expr` as a guard and returns it.
    fn expr(e: &str) -> Expr {
        let m = ok(&format!(
            "process P {{ state s; init s; trans s -> s {{ guard {e}; }}; }} system async;"
        ));
        m.processes[0].transitions[0].guard.clone().expect("guard")
    }

    /// Renders an expression fully parenthesised, for precedence tests.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Num(n) => n.to_string(),
            ExprKind::Var(v) => v.name.clone(),
            ExprKind::Index(a, i) => format!("{}[{}]", a.name, show(i)),
            ExprKind::InState(p, s) => format!("{}.{}", p.name, s.name),
            ExprKind::Remote(p, v) => format!("{}->{}", p.name, v.name),
            ExprKind::RemoteIndex(p, v, i) => format!("{}->{}[{}]", p.name, v.name, show(i)),
            ExprKind::Unary(op, a) => {
                let o = match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::Not => "not ",
                };
                format!("({o}{})", show(a))
            }
            ExprKind::Binary(op, a, b) => {
                let o = op.symbol();
                format!("({} {o} {})", show(a), show(b))
            }
        }
    }

    fn prec(e: &str) -> String {
        show(&expr(e))
    }

    #[test]
    fn minimal_model() {
        let m = ok(MINI);
        assert!(m.decls.is_empty());
        assert_eq!(m.processes.len(), 1);
        let p = &m.processes[0];
        assert_eq!(p.name.name, "P");
        assert_eq!(p.name.span, Span::new(8, 9));
        assert_eq!(p.states.len(), 1);
        assert_eq!(p.init.name, "s");
        assert!(p.transitions.is_empty());
        assert_eq!(p.accept, Accept::None);
        assert_eq!(p.span, Span::new(0, 30));
        assert!(!m.system.is_sync);
        assert_eq!(m.system.property, None);
        assert_eq!(&MINI[m.system.span.start..m.system.span.end], "system async;");
    }

    #[test]
    fn precedence() {
        assert_eq!(prec("1 || 1 && 0"), "((1 or 1) and 0)");
        assert_eq!(prec("a and b or c"), "((a and b) or c)");
        assert_eq!(prec("1 | 2 & 0"), "((1 | 2) & 0)");
        assert_eq!(prec("a ^ b | c"), "((a ^ b) | c)");
        assert_eq!(prec("a imply b imply c"), "((a imply b) imply c)");
        assert_eq!(prec("a or b imply c and d"), "((a or b) imply (c and d))");
        assert_eq!(prec("a == b | c != d"), "((a == b) | (c != d))");
        assert_eq!(prec("a | b == c"), "(a | (b == c))");
        assert_eq!(prec("3 > 2 > 1"), "((3 > 2) > 1)");
        assert_eq!(prec("a < b == c >= d"), "((a < b) == (c >= d))");
        assert_eq!(prec("a << 1 < b >> 2"), "((a << 1) < (b >> 2))");
        assert_eq!(prec("a + b << c - d"), "((a + b) << (c - d))");
        assert_eq!(prec("a - b - c"), "((a - b) - c)");
        assert_eq!(prec("a + b * c % d"), "(a + ((b * c) % d))");
        assert_eq!(prec("a / b / c"), "((a / b) / c)");
        assert_eq!(prec("not 1 + 1"), "((not 1) + 1)");
        assert_eq!(prec("- a * b"), "((-a) * b)");
        assert_eq!(prec("- - ~ not a"), "(-(-(~(not a))))");
        assert_eq!(prec("not a == b"), "((not a) == b)");
        assert_eq!(prec("not (a == b)"), "(not (a == b))");
        assert_eq!(prec("a - -b"), "(a - (-b))");
        assert_eq!(prec("(a || b) && c"), "((a or b) and c)");
        assert_eq!(prec("a[i + 1] * P.s"), "(a[(i + 1)] * P.s)");
        assert_eq!(prec("P->v + P->a[2]"), "(P->v + P->a[2])");
        assert_eq!(prec("true and false"), "(1 and 0)");
        assert_eq!(prec("x != 0 and 10 / x > 1"), "((x != 0) and ((10 / x) > 1))");
    }

    #[test]
    fn expression_spans() {
        let src = "process P { state s; init s; trans s -> s { guard (a + b) * c[1]; }; } system async;";
        let m = ok(src);
        let g = m.processes[0].transitions[0].guard.clone().expect("guard");
        assert_eq!(&src[g.span.start..g.span.end], "(a + b) * c[1]");
        let ExprKind::Binary(BinOp::Mul, a, b) = &g.kind else {
            panic!("not a product")
        };
        assert_eq!(&src[a.span.start..a.span.end], "(a + b)");
        assert_eq!(&src[b.span.start..b.span.end], "c[1]");
        let t = &m.processes[0].transitions[0];
        assert_eq!(&src[t.span.start..t.span.end], "s -> s { guard (a + b) * c[1]; }");
    }

    #[test]
    fn declarations() {
        let src = "const byte LIMIT = 3;\nbyte level = 0, log[4] = {7, 7};\nint acc;\nchannel ping, data;\n\
                   channel {byte, int} c[2], d[0];\n"
            .to_string()
            + MINI;
        let m = ok(&src);
        assert_eq!(m.decls.len(), 5);
        let GlobalDecl::Var(v) = &m.decls[0] else { panic!() };
        assert!(v.is_const);
        assert_eq!(v.ty, TypeName::Byte);
        assert_eq!(&src[v.span.start..v.span.end], "const byte LIMIT = 3;");
        assert_eq!(
            v.declarators[0].init,
            Some(Initializer::Scalar(Expr {
                kind: ExprKind::Num(3),
                span: Span::new(19, 20)
            }))
        );
        let GlobalDecl::Var(v) = &m.decls[1] else { panic!() };
        assert!(!v.is_const);
        assert_eq!(&src[v.span.start..v.span.end], "byte level = 0, log[4] = {7, 7};");
        assert_eq!(v.declarators.len(), 2);
        let d = &v.declarators[1];
        assert_eq!(d.name.name, "log");
        assert_eq!(d.array_size.map(|(n, _)| n), Some(4));
        assert_eq!(&src[d.span.start..d.span.end], "log[4] = {7, 7}");
        let Some(Initializer::List(items, sp)) = &d.init else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        assert_eq!(&src[sp.start..sp.end], "{7, 7}");
        let GlobalDecl::Var(v) = &m.decls[2] else { panic!() };
        assert_eq!(v.ty, TypeName::Int);
        assert_eq!(v.declarators[0].init, None);
        let GlobalDecl::Channel(c) = &m.decls[3] else {
            panic!()
        };
        assert_eq!(c.types, None);
        assert_eq!(
            c.channels
                .iter()
                .map(|(n, s)| (n.name.as_str(), *s))
                .collect::<Vec<_>>(),
            vec![("ping", None), ("data", None)]
        );
        let GlobalDecl::Channel(c) = &m.decls[4] else {
            panic!()
        };
        assert_eq!(c.types, Some(vec![TypeName::Byte, TypeName::Int]));
        assert_eq!(c.channels.len(), 2);
        assert_eq!(c.channels[0].1.map(|(n, _)| n), Some(2));
        assert_eq!(c.channels[1].1.map(|(n, _)| n), Some(0));
    }

    #[test]
    fn processes_and_transitions() {
        let src = "channel c;\nbyte g[3];\n\
            process A { byte k = 1, t[2]; int z; state s0, s1; init s1;\n\
              trans s0 -> s1 { guard k < 3; sync c!k * 2; effect k = (k + 1) % 4, t[k] = 0; },\n\
                    -> s0 { sync c?g[1]; },\n\
                    s1 -> s0 { sync c!{k, 1}; },\n\
                    s1 -> s1 { sync c?{t[0], z}; },\n\
                    s0 -> s0 { sync c!; },\n\
                    s0 -> s0 { sync c?; },\n\
                    s1 -> s0 {}; }\n\
            process Prop { state q0, q1; init q0; accept q1; trans q0 -> q1 { guard A.s1 and A->k == 1; }; }\n\
            system async property Prop;";
        let m = ok(src);
        assert_eq!(m.processes.len(), 2);
        let a = &m.processes[0];
        assert_eq!(a.vars.len(), 2);
        assert_eq!(
            a.states.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            vec!["s0", "s1"]
        );
        assert_eq!(a.init.name, "s1");
        let t = &a.transitions;
        assert_eq!(t.len(), 7);
        assert_eq!(t[0].from.as_ref().map(|i| i.name.as_str()), Some("s0"));
        assert_eq!(t[0].to.name, "s1");
        assert!(t[0].guard.is_some());
        let s = t[0].sync.as_ref().expect("sync");
        assert_eq!(s.channel.name, "c");
        assert_eq!(s.dir, SyncDir::Send);
        assert_eq!(s.values.len(), 1);
        assert_eq!(&src[s.span.start..s.span.end], "c!k * 2");
        assert_eq!(t[0].effects.len(), 2);
        assert_eq!(t[0].effects[1].target.name.name, "t");
        assert!(t[0].effects[1].target.index.is_some());
        assert_eq!(
            &src[t[0].effects[0].span.start..t[0].effects[0].span.end],
            "k = (k + 1) % 4"
        );
        assert_eq!(t[1].from, None);
        assert_eq!(t[1].to.name, "s0");
        let s = t[1].sync.as_ref().expect("sync");
        assert_eq!(s.dir, SyncDir::Recv);
        assert!(matches!(s.values[0].kind, ExprKind::Index(..)));
        assert_eq!(t[2].sync.as_ref().map(|s| s.values.len()), Some(2));
        assert_eq!(
            t[3].sync.as_ref().map(|s| (s.dir, s.values.len())),
            Some((SyncDir::Recv, 2))
        );
        assert_eq!(
            t[4].sync.as_ref().map(|s| (s.dir, s.values.len())),
            Some((SyncDir::Send, 0))
        );
        let s5 = t[5].sync.as_ref().expect("sync");
        assert_eq!(&src[s5.span.start..s5.span.end], "c?");
        assert!(t[6].guard.is_none() && t[6].sync.is_none() && t[6].effects.is_empty());
        let p = &m.processes[1];
        assert_eq!(
            p.accept,
            Accept::Buchi(vec![Ident {
                name: "q1".into(),
                span: p.accept_span()
            }])
        );
        assert_eq!(m.system.property.as_ref().map(|p| p.name.as_str()), Some("Prop"));
    }

    impl Process {
        fn accept_span(&self) -> Span {
            match &self.accept {
                Accept::Buchi(v) => v[0].span,
                _ => Span::default(),
            }
        }
    }

    #[test]
    fn init_commit_accept_orders() {
        for ica in [
            "init a;",
            "init a; commit b;",
            "init a; commit b; accept c;",
            "init a; accept c;",
            "init a; accept c; commit b;",
            "commit b; init a;",
            "commit b; accept c; init a;",
            "accept c; init a;",
            "accept c; commit b; init a;",
        ] {
            let m = ok(&format!("process P {{ state a, b, c; {ica} }} system sync;"));
            let p = &m.processes[0];
            assert_eq!(p.init.name, "a");
            assert_eq!(p.commit.len(), usize::from(ica.contains("commit")), "{ica}");
            assert_eq!(p.accept != Accept::None, ica.contains("accept"), "{ica}");
            assert!(m.system.is_sync);
        }
        for bad in [
            "commit b;",
            "init a; init a;",
            "init a; commit b; commit b;",
            "accept c; commit b;",
        ] {
            fail(&format!("process P {{ state a, b, c; {bad} }} system sync;"));
        }
    }

    #[test]
    fn accept_forms() {
        let acc = |s: &str| {
            ok(&format!(
                "process P {{ state a, b; init a; accept {s}; }} system async;"
            ))
            .processes[0]
                .accept
                .clone()
        };
        let names = |v: &[Ident]| v.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
        let Accept::Buchi(v) = acc("buchi a, b") else {
            panic!()
        };
        assert_eq!(names(&v), ["a", "b"]);
        let Accept::Sets { kind, sets } = acc("genbuchi (a, b), (), (b)") else {
            panic!()
        };
        assert_eq!(kind, "genbuchi");
        assert_eq!(
            sets.iter().map(|s| names(s)).collect::<Vec<_>>(),
            vec![vec!["a", "b"], vec![], vec!["b"]]
        );
        let Accept::Sets { kind, .. } = acc("muller (a)") else {
            panic!()
        };
        assert_eq!(kind, "muller");
        let Accept::Pairs { kind, pairs } = acc("rabin (a; b), (; a, b), (;)") else {
            panic!()
        };
        assert_eq!(kind, "rabin");
        assert_eq!(pairs.len(), 3);
        assert_eq!(names(&pairs[1].1), ["a", "b"]);
        assert!(pairs[2].0.is_empty() && pairs[2].1.is_empty());
        let Accept::Pairs { kind, .. } = acc("streett (a; b)") else {
            panic!()
        };
        assert_eq!(kind, "streett");
    }

    #[test]
    fn assertions() {
        let m =
            ok("process P { state a, b; init a; assert a: 1 < 2, b: P.a; trans a -> b {}; } system async;");
        let p = &m.processes[0];
        assert_eq!(p.asserts.len(), 2);
        assert_eq!(p.asserts[1].0.name, "b");
        assert_eq!(p.transitions.len(), 1);
    }

    #[test]
    fn numbers_and_identifiers() {
        assert_eq!(expr("2147483647").kind, ExprKind::Num(i32::MAX));
        let long = "x".repeat(80);
        let ExprKind::Var(v) = expr(&long).kind else {
            panic!()
        };
        assert_eq!(v.name.len(), 63);
    }

    #[test]
    fn syntax_errors() {
        let (m, pos, _) = fail("byte x\nprocess P { state s; init s; } system async;");
        assert_eq!(m, "expected one of ',', ';', '[', '=' but found 'process'");
        assert_eq!(pos, (2, 1));

        let (m, pos, _) = fail("");
        assert!(m.starts_with("empty model"), "{m}");
        assert_eq!(pos, (1, 1));
        let (m, _, _) = fail("  // nothing\n/* at all */ ");
        assert!(m.starts_with("empty model"), "{m}");

        let (m, _, sp) = fail("process P { state s; init s; }");
        assert!(m.starts_with("unexpected end of file: expected one of"), "{m}");
        assert!(m.contains("'system'"), "{m}");
        assert_eq!(sp, Span::new(30, 30));

        let src = "process P { state s; init s; trans s -> s { guard x y; }; } system async;";
        let (m, pos, sp) = fail(src);
        assert!(m.contains("but found identifier 'y'"), "{m}");
        assert!(m.contains("an operator"), "{m}");
        assert_eq!(pos, (1, src.find("y;").unwrap_or(0) + 1));
        assert_eq!(sp.end - sp.start, 1);

        let (m, _, _) = fail("process P { state s; init s; trans s -> s { guard ; }; } system async;");
        assert!(m.contains("an expression"), "{m}");

        let (m, _, _) = fail("process P { state s; init s; trans s -> s { guard !x; }; } system async;");
        assert!(m.contains("'not'"), "{m}");

        let (m, _, _) = fail("process P { state s; init s; trans s -> s { effect x++; }; } system async;");
        assert!(m.contains("'++'"), "{m}");

        let (m, _, _) = fail("process P { state s; init s; trans s => { s: 1 }; } system async;");
        assert!(m.contains("probabilistic"), "{m}");

        let (m, _, sp) = fail(&format!("{MINI} byte"));
        assert!(m.contains("after the end of the model"), "{m}");
        assert_eq!(sp.end - sp.start, 4);

        let (m, pos, _) = fail("byte x;\n  @");
        assert_eq!(m, "unexpected character '@'");
        assert_eq!(pos, (2, 3));

        let (m, pos, _) = fail("byte x; /* oops\n process");
        assert!(m.contains("unterminated"), "{m}");
        assert_eq!(pos, (1, 9));

        // Channels cannot be declared in processes, globals must come first.
        fail("process P { channel c; state s; init s; } system async;");
        fail(&format!("{MINI}\nbyte late;"));
        fail("process P { state s; init s; } byte x; process Q { state s; init s; } system async;");
        // Order of body parts is fixed; each at most once.
        fail("process P { state s; init s; trans s -> s { effect x = 1; guard 1; }; } system async;");
        fail("process P { state s; init s; trans s -> s { guard 1; guard 1; }; } system async;");
        // No short transition first; the list ends with `;`.
        fail("process P { state s; init s; trans -> s {}; } system async;");
        fail("process P { state s; init s; trans s -> s {} } system async;");
        fail("process P { state s; init s; trans s -> s {}, ; } system async;");
        // Array sizes are literals; no constant expressions.
        fail("const byte N = 2; byte a[N]; process P { state s; init s; } system async;");
        // Lvalues are identifiers or array elements.
        fail("process P { state s; init s; trans s -> s { effect Q->x = 1; }; } system async;");
        fail("process P { state s; init s; trans s -> s { effect (x) = 1; }; } system async;");
        // `state` and `init` are required; at least one process.
        fail("process P { init s; } system async;");
        fail("process P { state s; } system async;");
        fail("byte x; system async;");
        fail("process P { state s; init s; } system;");
        fail("process P { state s; init s; } system async property;");
        fail("process P { state s; init s; trans s -> s { sync c!x y; }; } system async;");
    }

    #[test]
    fn expected_message_shape() {
        assert_eq!(
            expected_list(&["\";\"".to_string(), "\",\"".to_string()]),
            "expected one of ';', ','"
        );
        assert_eq!(expected_list(&["ID".to_string()]), "expected an identifier");
        assert_eq!(expected_list(&[]), "unexpected input");
        let (m, _, _) = fail("process P { state s, ; init s; } system async;");
        assert_eq!(m, "expected an identifier but found ';'");
        let (m, _, _) = fail("process P { state s; init s } system async;");
        assert_eq!(m, "expected ';' but found '}'");
        let (m, _, _) = fail("process 3");
        assert_eq!(m, "expected an identifier but found number 3");
        let (m, _, _) = fail("process P { byte x = 3 state s; init s; } system async;");
        assert_eq!(m, "expected ',', ';' or an operator but found 'state'");
        let (m, _, _) = fail("process P { state s; init s; accept ; } system async;");
        assert_eq!(
            m,
            "expected an identifier, 'buchi', 'genbuchi', 'streett', 'rabin' or 'muller' but found ';'"
        );
    }

    #[test]
    fn deep_expressions_are_rejected_not_crashing() {
        let n = 100_000;
        let deep_unary = format!(
            "process P {{ state s; init s; trans s -> s {{ guard {}1; }}; }} system async;",
            "- ".repeat(n)
        );
        let (m, _, _) = fail(&deep_unary);
        assert!(m.contains("nested too deeply"), "{m}");
        let chain = vec!["a"; n].join(" + ");
        let (m, _, _) = fail(&format!(
            "process P {{ state s; init s; trans s -> s {{ guard {chain}; }}; }} system async;"
        ));
        assert!(m.contains("nested too deeply"), "{m}");
        let parens = format!("{}a{}", "(".repeat(n), ")".repeat(n));
        ok(&format!(
            "process P {{ state s; init s; trans s -> s {{ guard {parens}; }}; }} system async;"
        ));
        let idx = format!("{}0{}", "a[".repeat(n), "]".repeat(n));
        let (m, _, _) = fail(&format!(
            "process P {{ state s; init s; trans s -> s {{ guard {idx}; }}; }} system async;"
        ));
        assert!(m.contains("nested too deeply"), "{m}");
        // Deep but allowed.
        let ok_chain = vec!["a"; MAX_EXPR_DEPTH as usize / 2].join(" && ");
        ok(&format!(
            "process P {{ state s; init s; trans s -> s {{ guard {ok_chain}; }}; }} system async;"
        ));
        // Unclosed deep parentheses: an error, no crash.
        fail(&format!(
            "process P {{ state s; init s; trans s -> s {{ guard {}",
            "(".repeat(n)
        ));
    }
}
