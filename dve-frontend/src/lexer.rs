//! Lexer of the DVE language (`docs/dve-language.md` §1), built with `logos`.
//!
//! [`Lexer`] is an iterator of `Result<(start, Token, end), LexError>` items
//! (byte offsets), which is what the lalrpop-generated parser takes as an
//! external lexer. It stops after the first error.

use crate::ast::Span;
use logos::{Logos, Skip};
use std::fmt;

/// Only this many characters of an identifier are significant (the
/// reference keeps the first 63).
pub const MAX_IDENT_LEN: usize = 63;

/// Deepest expression tree accepted (a leaf has depth 1). Deeper
/// expressions are an error (raised by the parser), so that later recursive passes (and
/// dropping the tree) cannot overflow the stack. BEEM needs far less.
pub const MAX_EXPR_DEPTH: u32 = 512;

/// What went wrong while lexing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LexErrorKind {
    /// A character that starts no token.
    #[default]
    UnknownChar,
    /// `/*` without a matching `*/`.
    UnterminatedComment,
    /// A number literal above `i32::MAX`, the largest value any use of a
    /// literal takes (expressions are evaluated in 32 bits).
    NumberTooLarge,
    /// An expression nested deeper than [`MAX_EXPR_DEPTH`]
    /// (raised by the parser, not the lexer, but reported through the same
    /// error type because it is lalrpop's user error type).
    TooDeep,
}

/// A lexical error (or a parser-raised limit error, see
/// [`LexErrorKind::TooDeep`]) with its place in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub kind: LexErrorKind,
    pub span: Span,
}

#[derive(Logos, Clone, Debug, PartialEq, Eq)]
#[logos(error = LexErrorKind)]
// Blanks, tabs and newlines; `\r` is accepted too so that files with DOS line
// ends lex (the reference lexer would reject them).
#[logos(skip r"[ \t\r\n]+")]
// Line continuation: a backslash, optional blanks, a newline.
#[logos(skip r"\\[ \t]*\r?\n")]
// Line comment.
#[logos(skip r"//[^\n]*")]
pub enum Token {
    /// `/* ... */`; never produced: the callback skips the comment or fails.
    #[token("/*", block_comment)]
    BlockComment,

    #[regex(r"[a-zA-Z_][a-zA-Z0-9_$#]*", ident)]
    Ident(String),
    #[regex(r"[0-9]+", number)]
    Num(i32),

    // Keywords.
    #[token("guard")]
    Guard,
    #[token("sync")]
    Sync,
    #[token("async")]
    Async,
    #[token("effect")]
    Effect,
    #[token("process")]
    Process,
    #[token("state")]
    State,
    #[token("init")]
    Init,
    #[token("accept")]
    Accept,
    #[token("commit")]
    Commit,
    #[token("trans")]
    Trans,
    #[token("system")]
    System,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("and")]
    And,
    #[token("or")]
    Or,
    #[token("not")]
    Not,
    #[token("imply")]
    Imply,
    #[token("int")]
    Int,
    #[token("byte")]
    Byte,
    #[token("const")]
    Const,
    #[token("channel")]
    Channel,
    #[token("property")]
    Property,
    #[token("assert")]
    Assert,
    #[token("buchi")]
    Buchi,
    #[token("genbuchi")]
    Genbuchi,
    #[token("streett")]
    Streett,
    #[token("rabin")]
    Rabin,
    #[token("muller")]
    Muller,

    // Punctuation and operators.
    #[token(".")]
    Dot,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("?")]
    Question,
    #[token("!")]
    Excl,
    #[token("~")]
    Tilde,
    #[token("->")]
    Arrow,
    #[token("=>")]
    WideArrow,
    #[token("=")]
    Assign,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("|")]
    BitOr,
    #[token("&")]
    BitAnd,
    #[token("^")]
    Caret,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("||")]
    OrOr,
    #[token("&&")]
    AndAnd,
    #[token("<=")]
    Le,
    #[token("<")]
    Lt,
    #[token(">=")]
    Ge,
    #[token(">")]
    Gt,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,
}

/// Skips a block comment whose `/*` has just been matched. Inside it, `//`
/// swallows the rest of its line, `*/` on that line included.
fn block_comment(lex: &mut logos::Lexer<Token>) -> Result<Skip, LexErrorKind> {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'*' if rest.get(i + 1) == Some(&b'/') => {
                lex.bump(i + 2);
                return Ok(Skip);
            }
            b'/' if rest.get(i + 1) == Some(&b'/') => {
                // Stop at the newline (it is an ASCII byte, so always a char
                // boundary) or at the end of the input.
                match rest[i..].iter().position(|&b| b == b'\n') {
                    Some(n) => i += n,
                    None => i = rest.len(),
                }
            }
            _ => i += 1,
        }
    }
    // Leave the span on the `/*` so the error points at it.
    Err(LexErrorKind::UnterminatedComment)
}

fn ident(lex: &mut logos::Lexer<Token>) -> String {
    // Identifiers are ASCII, so bytes are characters.
    let s = lex.slice();
    s[..s.len().min(MAX_IDENT_LEN)].to_string()
}

/// A number literal, refused above `i32::MAX` rather than wrapped, so that
/// the error names the value written.
fn number(lex: &mut logos::Lexer<Token>) -> Result<i32, LexErrorKind> {
    lex.slice()
        .trim_start_matches('0')
        .bytes()
        .try_fold(0i32, |acc, d| {
            acc.checked_mul(10)?.checked_add(i32::from(d - b'0'))
        })
        .ok_or(LexErrorKind::NumberTooLarge)
}

impl Token {
    /// How the token is shown in messages: the quoted text for keywords and
    /// punctuation, a description (with the text) for identifiers and numbers.
    pub fn describe(&self) -> String {
        match self {
            Token::Ident(name) => format!("identifier '{name}'"),
            Token::Num(n) => format!("number {n}"),
            other => format!("'{}'", other.text()),
        }
    }

    /// The source text of a keyword or punctuation token (a generic word for
    /// identifiers and numbers).
    pub fn text(&self) -> &'static str {
        match self {
            Token::BlockComment => "/*",
            Token::Ident(_) => "identifier",
            Token::Num(_) => "number",
            Token::Guard => "guard",
            Token::Sync => "sync",
            Token::Async => "async",
            Token::Effect => "effect",
            Token::Process => "process",
            Token::State => "state",
            Token::Init => "init",
            Token::Accept => "accept",
            Token::Commit => "commit",
            Token::Trans => "trans",
            Token::System => "system",
            Token::True => "true",
            Token::False => "false",
            Token::And => "and",
            Token::Or => "or",
            Token::Not => "not",
            Token::Imply => "imply",
            Token::Int => "int",
            Token::Byte => "byte",
            Token::Const => "const",
            Token::Channel => "channel",
            Token::Property => "property",
            Token::Assert => "assert",
            Token::Buchi => "buchi",
            Token::Genbuchi => "genbuchi",
            Token::Streett => "streett",
            Token::Rabin => "rabin",
            Token::Muller => "muller",
            Token::Dot => ".",
            Token::Comma => ",",
            Token::Semi => ";",
            Token::Colon => ":",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::Question => "?",
            Token::Excl => "!",
            Token::Tilde => "~",
            Token::Arrow => "->",
            Token::WideArrow => "=>",
            Token::Assign => "=",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Percent => "%",
            Token::BitOr => "|",
            Token::BitAnd => "&",
            Token::Caret => "^",
            Token::Shl => "<<",
            Token::Shr => ">>",
            Token::OrOr => "||",
            Token::AndAnd => "&&",
            Token::Le => "<=",
            Token::Lt => "<",
            Token::Ge => ">=",
            Token::Gt => ">",
            Token::EqEq => "==",
            Token::Ne => "!=",
            Token::PlusPlus => "++",
            Token::MinusMinus => "--",
        }
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl LexError {
    /// A human-readable message (without position).
    pub fn message(&self, source: &str) -> String {
        match self.kind {
            LexErrorKind::UnknownChar => {
                let text = source.get(self.span.start..self.span.end).unwrap_or("");
                match text.chars().next() {
                    Some(c) if c.is_control() || c.is_whitespace() => {
                        format!("unexpected character {c:?} (U+{:04X})", u32::from(c))
                    }
                    Some(c) => format!("unexpected character '{c}'"),
                    None => "unexpected character".to_string(),
                }
            }
            LexErrorKind::UnterminatedComment => {
                "unterminated block comment: '/*' has no matching '*/'".into()
            }
            LexErrorKind::NumberTooLarge => format!(
                "number {} is out of range (at most {})",
                source.get(self.span.start..self.span.end).unwrap_or(""),
                i32::MAX
            ),
            LexErrorKind::TooDeep => format!(
                "expression nested too deeply (more than {} levels)",
                MAX_EXPR_DEPTH
            ),
        }
    }
}

/// The token stream of a source text, as lalrpop wants it: `Ok((start, token,
/// end))` items, then at most one `Err` after which the stream ends.
pub struct Lexer<'s> {
    inner: logos::Lexer<'s, Token>,
    failed: bool,
}

impl<'s> Lexer<'s> {
    pub fn new(source: &'s str) -> Lexer<'s> {
        Lexer {
            inner: Token::lexer(source),
            failed: false,
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Result<(usize, Token, usize), LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let tok = self.inner.next()?;
        let span = self.inner.span();
        match tok {
            Ok(t) => Some(Ok((span.start, t, span.end))),
            Err(kind) => {
                self.failed = true;
                let mut end = span.end;
                // Make the span of an unknown character cover the whole
                // (possibly multi-byte) character.
                if kind == LexErrorKind::UnknownChar {
                    let src = self.inner.source();
                    if let Some(c) = src.get(span.start..).and_then(|s| s.chars().next()) {
                        end = span.start + c.len_utf8();
                    }
                }
                Some(Err(LexError {
                    kind,
                    span: Span::new(span.start, end),
                }))
            }
        }
    }
}

/// Lexes a whole source text.
pub fn tokenize(source: &str) -> Result<Vec<(usize, Token, usize)>, LexError> {
    Lexer::new(source).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Token> {
        tokenize(s)
            .expect("lexes")
            .into_iter()
            .map(|(_, t, _)| t)
            .collect()
    }

    fn err(s: &str) -> LexError {
        tokenize(s).expect_err("must fail")
    }

    #[test]
    fn keywords_and_identifiers() {
        use Token::*;
        assert_eq!(
            toks("guard sync async effect process state init accept commit trans system"),
            vec![Guard, Sync, Async, Effect, Process, State, Init, Accept, Commit, Trans, System]
        );
        assert_eq!(
            toks("true false and or not imply int byte const channel property assert"),
            vec![True, False, And, Or, Not, Imply, Int, Byte, Const, Channel, Property, Assert]
        );
        assert_eq!(
            toks("buchi genbuchi streett rabin muller"),
            vec![Buchi, Genbuchi, Streett, Rabin, Muller]
        );
        assert_eq!(
            toks("guards _x a$b#1 Sync"),
            vec![
                Ident("guards".into()),
                Ident("_x".into()),
                Ident("a$b#1".into()),
                Ident("Sync".into())
            ]
        );
    }

    #[test]
    fn long_identifiers_are_truncated() {
        let long = "a".repeat(100);
        assert_eq!(toks(&long), vec![Token::Ident("a".repeat(63))]);
        let exact = "b".repeat(63);
        assert_eq!(toks(&exact), vec![Token::Ident(exact.clone())]);
    }

    #[test]
    fn numbers_like_atoi() {
        assert_eq!(
            toks("0 42 007"),
            vec![Token::Num(0), Token::Num(42), Token::Num(7)]
        );
        assert_eq!(toks("2147483647"), vec![Token::Num(i32::MAX)]);
        assert_eq!(toks("12ab"), vec![Token::Num(12), Token::Ident("ab".into())]);
        assert_eq!(toks(&format!("{}5", "0".repeat(100))), vec![Token::Num(5)]);
    }

    #[test]
    fn punctuation() {
        use Token::*;
        assert_eq!(
            toks(". , ; : { } [ ] ( ) ? ! ~ -> => = + - * / % | & ^ << >> || && <= < >= > == != ++ --"),
            vec![
                Dot, Comma, Semi, Colon, LBrace, RBrace, LBracket, RBracket, LParen, RParen, Question, Excl,
                Tilde, Arrow, WideArrow, Assign, Plus, Minus, Star, Slash, Percent, BitOr, BitAnd, Caret,
                Shl, Shr, OrOr, AndAnd, Le, Lt, Ge, Gt, EqEq, Ne, PlusPlus, MinusMinus
            ]
        );
        assert_eq!(toks("a->b"), vec![Ident("a".into()), Arrow, Ident("b".into())]);
        assert_eq!(toks("c!=d"), vec![Ident("c".into()), Ne, Ident("d".into())]);
        assert_eq!(
            toks("x---y"),
            vec![Ident("x".into()), MinusMinus, Minus, Ident("y".into())]
        );
    }

    #[test]
    fn comments_and_whitespace() {
        use Token::*;
        assert_eq!(toks("a // b c\n d"), vec![Ident("a".into()), Ident("d".into())]);
        assert_eq!(
            toks("a /* b \n c */ d"),
            vec![Ident("a".into()), Ident("d".into())]
        );
        assert_eq!(
            toks("a /* b ** / */ d"),
            vec![Ident("a".into()), Ident("d".into())]
        );
        assert_eq!(toks("a /*/ b */ d"), vec![Ident("a".into()), Ident("d".into())]);
        assert_eq!(toks("a /**/ d"), vec![Ident("a".into()), Ident("d".into())]);
        // `//` inside a block comment swallows a `*/` on the same line.
        assert_eq!(
            toks("a /* x // y */ z \n */ d"),
            vec![Ident("a".into()), Ident("d".into())]
        );
        // Comments do not nest.
        assert_eq!(toks("a /* /* */ d"), vec![Ident("a".into()), Ident("d".into())]);
        assert_eq!(toks("a\t\r\n  b"), vec![Ident("a".into()), Ident("b".into())]);
        // Line continuation.
        assert_eq!(
            toks("a \\  \t\n b \\\r\n c"),
            vec![Ident("a".into()), Ident("b".into()), Ident("c".into())]
        );
        assert_eq!(toks("// only a comment"), vec![]);
        assert_eq!(toks(""), vec![]);
        assert_eq!(toks("a/b"), vec![Ident("a".into()), Slash, Ident("b".into())]);
    }

    #[test]
    fn spans() {
        let t = tokenize("ab  ->\n 12").expect("lexes");
        assert_eq!(
            t,
            vec![
                (0, Token::Ident("ab".into()), 2),
                (4, Token::Arrow, 6),
                (8, Token::Num(12), 10)
            ]
        );
    }

    #[test]
    fn errors() {
        let e = err("a @ b");
        assert_eq!(e.kind, LexErrorKind::UnknownChar);
        assert_eq!(e.span, Span::new(2, 3));
        assert_eq!(e.message("a @ b"), "unexpected character '@'");

        let src = "x é";
        let e = err(src);
        assert_eq!(e.span, Span::new(2, 4));
        assert_eq!(e.message(src), "unexpected character 'é'");

        let e = err("a /* never closed");
        assert_eq!(e.kind, LexErrorKind::UnterminatedComment);
        assert_eq!(e.span, Span::new(2, 4));

        // The `*/` is swallowed by the `//`.
        let e = err("a /* x // */\n");
        assert_eq!(e.kind, LexErrorKind::UnterminatedComment);

        // Literals past 32 bits are refused with the value written.
        let src = "x = 99999999999999999999;";
        let e = err(src);
        assert_eq!(e.kind, LexErrorKind::NumberTooLarge);
        assert_eq!(e.span, Span::new(4, 24));
        assert_eq!(
            e.message(src),
            "number 99999999999999999999 is out of range (at most 2147483647)"
        );
        assert_eq!(err("2147483648").kind, LexErrorKind::NumberTooLarge);

        // A backslash not followed by a newline.
        let e = err("a \\ b");
        assert_eq!(e.span, Span::new(2, 3));
        assert_eq!(
            err("\u{c}").message("\u{c}"),
            "unexpected character '\\u{c}' (U+000C)"
        );
        // `"`, `'`, `#`, `$` start no token.
        for s in ["\"", "'", "#", "$", "`"] {
            assert_eq!(err(s).kind, LexErrorKind::UnknownChar);
        }
        // The stream stops at the first error.
        let all: Vec<_> = Lexer::new("a @ b @").collect();
        assert_eq!(all.len(), 2);
    }
}
