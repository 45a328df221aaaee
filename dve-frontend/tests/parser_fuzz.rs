//! Robustness: `parse` must never panic, whatever the input, and its
//! diagnostics must point inside the source.
//!
//! Inputs: arbitrary strings, strings over the DVE alphabet, random token
//! soups, and real BEEM models (from `$BEEM_DIR/dve` or
//! `<crate>/../../shared/beem/dve`) with random byte deletions, character
//! insertions and token swaps / deletions / duplications.

use dve_frontend::lexer::tokenize;
use dve_frontend::parser::parse;
use proptest::prelude::*;
use proptest::sample::Index;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Parses and checks the result is well-formed. Panics (failing the
/// property) only on a malformed diagnostic; a panic inside `parse` fails it
/// too.
fn check(src: &str) {
    if let Err(d) = parse("fuzz.dve", src) {
        assert!(!d.items.is_empty(), "an error without diagnostics");
        for item in &d.items {
            assert!(!item.message.is_empty());
            assert!(
                item.span.start <= item.span.end && item.span.end <= src.len(),
                "span {:?} outside the source (len {})",
                item.span,
                src.len()
            );
        }
        // Rendering must not panic either.
        let _ = d.to_string();
    }
}

/// Small BEEM models (to keep the cases fast), as text.
fn corpus() -> &'static [String] {
    static CORPUS: OnceLock<Vec<String>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let base = match std::env::var_os("BEEM_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/beem"),
        };
        let dir = base.join("dve");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
            panic!(
                "BEEM models not found at {} ({e}); set BEEM_DIR to the directory that contains dve/",
                dir.display()
            )
        });
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "dve"))
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= 6000))
            .collect();
        paths.sort();
        let texts: Vec<String> = paths
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect();
        assert!(
            texts.len() >= 20,
            "too few small BEEM models found in {}",
            dir.display()
        );
        for t in &texts {
            assert!(
                parse("corpus.dve", t).is_ok(),
                "an unmutated BEEM model must parse"
            );
        }
        texts
    })
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteByte(Index),
    InsertChar(Index, char),
    InsertText(Index, &'static str),
    SwapTokens(Index, Index),
    DeleteToken(Index),
    DuplicateToken(Index),
}

/// Interesting fragments to insert.
const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "->",
    "=>",
    "++",
    "--",
    "!",
    "?",
    "/*",
    "*/",
    "//",
    "\\\n",
    "not",
    "imply",
    "guard",
    "sync",
    "effect",
    "trans",
    "process",
    "system",
    "state",
    "init",
    "accept",
    "commit",
    "assert",
    "channel",
    "const",
    "byte",
    "int",
    "4294967296",
    "0",
    "x",
    "P.s",
    "P->v",
    "- - -",
    "((((",
    "))))",
    "\u{0}",
    "é",
    "\u{feff}",
    "\r\n",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::DeleteByte),
        (any::<Index>(), any::<char>()).prop_map(|(i, c)| Mutation::InsertChar(i, c)),
        (any::<Index>(), proptest::sample::select(FRAGMENTS)).prop_map(|(i, s)| Mutation::InsertText(i, s)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Mutation::SwapTokens(i, j)),
        any::<Index>().prop_map(Mutation::DeleteToken),
        any::<Index>().prop_map(Mutation::DuplicateToken),
    ]
}

/// Byte offset `i` moved back to a char boundary.
fn boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Token spans of `s`, or of its longest lexable prefix.
fn token_spans(s: &str) -> Vec<(usize, usize)> {
    match tokenize(s) {
        Ok(t) => t.into_iter().map(|(l, _, r)| (l, r)).collect(),
        Err(_) => dve_frontend::lexer::Lexer::new(s)
            .map_while(Result::ok)
            .map(|(l, _, r)| (l, r))
            .collect(),
    }
}

fn apply(mut s: String, m: &Mutation) -> String {
    match m {
        Mutation::DeleteByte(i) => {
            if !s.is_empty() {
                let at = boundary(&s, i.index(s.len()));
                if at < s.len() {
                    s.remove(at);
                }
            }
            s
        }
        Mutation::InsertChar(i, c) => {
            let at = boundary(&s, i.index(s.len() + 1));
            s.insert(at, *c);
            s
        }
        Mutation::InsertText(i, t) => {
            let at = boundary(&s, i.index(s.len() + 1));
            s.insert_str(at, t);
            s
        }
        Mutation::SwapTokens(i, j) => {
            let spans = token_spans(&s);
            if spans.len() < 2 {
                return s;
            }
            let (a, b) = (i.index(spans.len()), j.index(spans.len()));
            let (a, b) = (a.min(b), a.max(b));
            if a == b {
                return s;
            }
            let ((al, ar), (bl, br)) = (spans[a], spans[b]);
            format!(
                "{}{}{}{}{}",
                &s[..al],
                &s[bl..br],
                &s[ar..bl],
                &s[al..ar],
                &s[br..]
            )
        }
        Mutation::DeleteToken(i) => {
            let spans = token_spans(&s);
            if spans.is_empty() {
                return s;
            }
            let (l, r) = spans[i.index(spans.len())];
            s.replace_range(l..r, "");
            s
        }
        Mutation::DuplicateToken(i) => {
            let spans = token_spans(&s);
            if spans.is_empty() {
                return s;
            }
            let (l, r) = spans[i.index(spans.len())];
            let tok = s[l..r].to_string();
            s.insert_str(r, &format!(" {tok}"));
            s
        }
    }
}

/// A token soup over the DVE vocabulary.
fn soup() -> impl Strategy<Value = String> {
    const WORDS: &[&str] = &[
        "process", "P", "Q", "{", "}", "state", "s", "t", ",", ";", "init", "trans", "->", "guard", "sync",
        "effect", "system", "async", "sync", "property", "byte", "int", "const", "channel", "c", "!", "?",
        "=", "x", "a", "[", "]", "(", ")", "1", "0", "+", "-", "*", "/", "%", "and", "or", "not", "imply",
        "&&", "||", "|", "&", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", ".", ":", "accept",
        "commit", "assert", "buchi", "genbuchi", "muller", "rabin", "streett", "~", "true", "false", "=>",
        "++", "--",
    ];
    proptest::collection::vec(proptest::sample::select(WORDS), 0..120).prop_map(|w| w.join(" "))
}

/// A mostly valid model with a random expression in a guard.
fn model_with_guard() -> impl Strategy<Value = String> {
    soup().prop_map(|e| format!("byte x, a[3]; channel c;\nprocess P {{ state s, t; init s;\n trans s -> t {{ guard {e}; }}; }}\nsystem async;"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(s in any::<String>()) {
        check(&s);
    }

    #[test]
    fn dve_alphabet_strings(s in "[a-z0-9_ \n{}();,:\\[\\]?!~=+*/%|&^<>.#$\\\\-]{0,300}") {
        check(&s);
    }

    #[test]
    fn token_soups(s in soup()) {
        check(&s);
    }

    #[test]
    fn random_guards(s in model_with_guard()) {
        check(&s);
    }

    #[test]
    fn mutated_beem_models(file in any::<Index>(), muts in proptest::collection::vec(mutation(), 1..8)) {
        let files = corpus();
        let mut s = files[file.index(files.len())].clone();
        for m in &muts {
            s = apply(s, m);
        }
        check(&s);
    }
}

/// Every prefix of a real model is handled (most are "unexpected end of file").
#[test]
fn all_prefixes_of_a_model() {
    let files = corpus();
    let src = &files[0];
    for end in 0..=src.len() {
        if src.is_char_boundary(end) {
            check(&src[..end]);
        }
    }
}
