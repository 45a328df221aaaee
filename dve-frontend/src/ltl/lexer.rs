//! Tokens of an LTL formula: the DVE expression tokens plus the temporal and
//! boolean operators in their common spellings (`[]`, `<>`, `<->`, `=>`).
//! Words (`G`, `U`, `and`, ...) stay identifiers; the parser decides what
//! they are, because BEEM glues operators to names (`GF`, `p1U`).

use crate::ast::Span;
use crate::diag::Diagnostic;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Num(i32),
    Sym(&'static str),
    End,
}

/// Longest first, so that `<->` is not read as `<` `->`.
const SYMBOLS: [&str; 33] = [
    "<->", "<=>", "[]", "<>", "->", "=>", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "(", ")", "[", "]",
    ".", ",", "!", "~", "+", "-", "*", "/", "%", "|", "&", "^", "<", ">", "=",
];

/// Splits `text[range]` into tokens with spans (byte offsets into `text`).
/// The last token is always [`Tok::End`].
pub fn tokens(text: &str, start: usize, end: usize) -> Result<Vec<(Tok, Span)>, Diagnostic> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = start;
    'next: while i < end {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < end && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(text[s..i].to_string()), Span::new(s, i)));
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < end && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let Ok(n) = text[s..i].parse::<i32>() else {
                return Err(Diagnostic::new(Span::new(s, i), "number out of range"));
            };
            out.push((Tok::Num(n), Span::new(s, i)));
            continue;
        }
        for sym in SYMBOLS {
            if text[i..end].starts_with(sym) {
                out.push((Tok::Sym(sym), Span::new(i, i + sym.len())));
                i += sym.len();
                continue 'next;
            }
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        return Err(Diagnostic::new(
            Span::new(i, i + ch.len_utf8()),
            format!("unexpected character `{ch}` in a formula"),
        ));
    }
    out.push((Tok::End, Span::new(end, end)));
    Ok(out)
}
