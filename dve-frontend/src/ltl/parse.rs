//! The formula parser: LTL operators over atomic propositions that are DVE
//! expressions (comparison level and below: `P_0.CS + P_1.CS == 1`).
//!
//! Precedence, loosest first: `<->`; `->` (right); `||`; `&&`; `U R V W`
//! (right); the unary `! X F G [] <>`; then the atoms. Boolean operators are
//! read as LTL operators, so `(a == 1 || b == 1)` is two propositions; a
//! parenthesised group followed by an arithmetic or comparison operator is
//! an expression again (`(a + b) == 1`).
//!
//! BEEM writes operators glued to names: `GF (x)`, `F(G (p==1))`,
//! `!p1U(p1U(...))`. A word made only of `G F X` is those operators unless
//! it is a name of the model (or a definition) and no formula follows it; an
//! unknown word that is a known name followed by `U R V W` is split there.

use std::collections::HashMap;

use super::lexer::{tokens, Tok};
use crate::ast::{self, BinOp, ExprKind, Ident, Span, UnOp};
use crate::diag::Diagnostic;
use crate::lexer::MAX_EXPR_DEPTH;

/// A parsed formula before its atoms are numbered.
#[derive(Clone, Debug)]
pub(super) struct Syn {
    pub kind: SynKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(super) enum SynKind {
    Const(bool),
    Atom(ast::Expr),
    Unary(Temporal, Box<Syn>),
    Binary(Temporal, Box<Syn>, Box<Syn>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Temporal {
    Not,
    Next,
    Finally,
    Globally,
    And,
    Or,
    Implies,
    Equiv,
    Until,
    Release,
    WeakUntil,
}

/// The names of a model the parser needs to tell `P->v` (remote variable)
/// from `p -> q` (implication) and `P.v` (variable) from `P.s` (state).
pub(super) struct Names<'a> {
    model: Option<&'a ast::Model>,
}

impl<'a> Names<'a> {
    pub fn new(model: Option<&'a ast::Model>) -> Names<'a> {
        Names { model }
    }

    fn process(&self, name: &str) -> Option<&'a ast::Process> {
        self.model?.processes.iter().find(|p| p.name.name == name)
    }

    fn process_var(&self, p: &str, v: &str) -> bool {
        self.process(p).is_some_and(|p| {
            p.vars
                .iter()
                .any(|d| d.declarators.iter().any(|x| x.name.name == v))
        })
    }

    fn process_state(&self, p: &str, s: &str) -> bool {
        self.process(p)
            .is_some_and(|p| p.states.iter().any(|x| x.name == s))
    }

    fn is_name(&self, name: &str) -> bool {
        let Some(m) = self.model else { return false };
        self.process(name).is_some()
            || m.decls.iter().any(|d| match d {
                ast::GlobalDecl::Var(v) => v.declarators.iter().any(|x| x.name.name == name),
                ast::GlobalDecl::Channel(_) => false,
            })
    }
}

/// A named proposition or subformula (`#define`, or BEEM's `<ap-name>`).
#[derive(Clone, Debug)]
pub(super) struct Definition {
    /// The parsed definition, or why it does not parse (reported at a use).
    pub syn: Result<Syn, String>,
    /// Defined in another text: its spans are replaced by the span of each
    /// use, so messages point into the formula.
    pub external: bool,
}

pub(super) type Definitions = HashMap<String, Definition>;

/// Parses `text[start..end]` as one formula.
pub(super) fn parse(
    text: &str,
    start: usize,
    end: usize,
    names: &Names,
    defs: &Definitions,
) -> Result<Syn, Diagnostic> {
    let toks = tokens(text, start, end)?;
    if toks.len() == 1 {
        return Err(Diagnostic::new(toks[0].1, "empty formula"));
    }
    let mut p = Parser {
        toks,
        pos: 0,
        names,
        defs,
        depth: 0,
    };
    let f = p.formula()?;
    match p.peek() {
        Tok::End => Ok(f),
        _ => Err(p.unexpected("an operator or the end of the formula")),
    }
}

struct Parser<'a> {
    toks: Vec<(Tok, Span)>,
    pos: usize,
    names: &'a Names<'a>,
    defs: &'a Definitions,
    depth: u32,
}

fn syn(kind: SynKind, span: Span) -> Syn {
    Syn { kind, span }
}

/// Levels of the DVE binary operators allowed inside an atom (tighter is higher).
fn atom_level(t: &Tok) -> Option<(u8, BinOp)> {
    let Tok::Sym(s) = t else { return None };
    Some(match *s {
        "|" => (1, BinOp::BitOr),
        "&" => (1, BinOp::BitAnd),
        "^" => (1, BinOp::BitXor),
        "==" => (2, BinOp::Eq),
        "!=" => (2, BinOp::Ne),
        "<" => (3, BinOp::Lt),
        "<=" => (3, BinOp::Le),
        ">" => (3, BinOp::Gt),
        ">=" => (3, BinOp::Ge),
        "<<" => (4, BinOp::Shl),
        ">>" => (4, BinOp::Shr),
        "+" => (5, BinOp::Add),
        "-" => (5, BinOp::Sub),
        "*" => (6, BinOp::Mul),
        "/" => (6, BinOp::Div),
        "%" => (6, BinOp::Rem),
        _ => return None,
    })
}

fn is_op_word(w: &str) -> bool {
    !w.is_empty() && w.chars().all(|c| matches!(c, 'G' | 'F' | 'X'))
}

fn binary_word(w: &str) -> Option<Temporal> {
    Some(match w {
        "U" => Temporal::Until,
        "R" | "V" => Temporal::Release,
        "W" => Temporal::WeakUntil,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].0
    }

    fn span(&self) -> Span {
        self.toks[self.pos].1
    }

    fn prev_end(&self) -> usize {
        self.toks[self.pos.saturating_sub(1)].1.end
    }

    fn bump(&mut self) -> Span {
        let s = self.span();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        s
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(x) if x == w)
    }

    fn expect_sym(&mut self, s: &str) -> Result<Span, Diagnostic> {
        if self.is_sym(s) {
            Ok(self.bump())
        } else {
            Err(self.unexpected(&format!("`{s}`")))
        }
    }

    fn unexpected(&self, what: &str) -> Diagnostic {
        let found = match self.peek() {
            Tok::End => "the end of the formula".to_string(),
            Tok::Ident(w) => format!("`{w}`"),
            Tok::Num(n) => format!("`{n}`"),
            Tok::Sym(s) => format!("`{s}`"),
        };
        Diagnostic::new(self.span(), format!("expected {what}, found {found}"))
    }

    fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(Diagnostic::new(self.span(), "formula nested too deeply"));
        }
        Ok(())
    }

    fn formula(&mut self) -> Result<Syn, Diagnostic> {
        let mut a = self.implies()?;
        // Each link deepens the tree the later passes walk.
        let mut links = 0;
        while self.is_sym("<->") || self.is_sym("<=>") {
            self.bump();
            self.enter()?;
            links += 1;
            let b = self.implies()?;
            a = self.binary(Temporal::Equiv, a, b);
        }
        self.depth -= links;
        Ok(a)
    }

    fn implies(&mut self) -> Result<Syn, Diagnostic> {
        let a = self.or()?;
        if self.is_sym("->") || self.is_sym("=>") || self.is_word("imply") {
            self.bump();
            self.enter()?;
            let b = self.implies()?;
            self.depth -= 1;
            return Ok(self.binary(Temporal::Implies, a, b));
        }
        Ok(a)
    }

    fn or(&mut self) -> Result<Syn, Diagnostic> {
        let mut a = self.and()?;
        // Each link deepens the tree the later passes walk.
        let mut links = 0;
        while self.is_sym("||") || self.is_word("or") {
            self.bump();
            self.enter()?;
            links += 1;
            let b = self.and()?;
            a = self.binary(Temporal::Or, a, b);
        }
        self.depth -= links;
        Ok(a)
    }

    fn and(&mut self) -> Result<Syn, Diagnostic> {
        let mut a = self.temporal()?;
        // Each link deepens the tree the later passes walk.
        let mut links = 0;
        while self.is_sym("&&") || self.is_word("and") {
            self.bump();
            self.enter()?;
            links += 1;
            let b = self.temporal()?;
            a = self.binary(Temporal::And, a, b);
        }
        self.depth -= links;
        Ok(a)
    }

    fn temporal(&mut self) -> Result<Syn, Diagnostic> {
        let a = self.unary()?;
        let op = match self.peek() {
            Tok::Ident(w) => binary_word(w),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            self.enter()?;
            let b = self.temporal()?;
            self.depth -= 1;
            return Ok(self.binary(op, a, b));
        }
        Ok(a)
    }

    fn binary(&self, op: Temporal, a: Syn, b: Syn) -> Syn {
        let span = a.span.to(b.span);
        syn(SynKind::Binary(op, Box::new(a), Box::new(b)), span)
    }

    /// Whether the current token can start a formula.
    fn starts_formula(&self) -> bool {
        match self.peek() {
            Tok::Ident(w) => binary_word(w).is_none() && !matches!(w.as_str(), "and" | "or" | "imply"),
            Tok::Num(_) => true,
            Tok::Sym(s) => matches!(*s, "(" | "!" | "[]" | "<>"),
            Tok::End => false,
        }
    }

    fn known(&self, w: &str) -> bool {
        self.names.is_name(w) || self.defs.contains_key(w)
    }

    /// Splits a glued `nameU` into `name` `U` when `name` is known and the
    /// whole word is not.
    fn split_glued(&mut self) {
        let Tok::Ident(w) = self.peek().clone() else {
            return;
        };
        if self.known(&w) || w.len() < 2 {
            return;
        }
        let (head, tail) = w.split_at(w.len() - 1);
        if binary_word(tail).is_some() && self.known(head) {
            let span = self.span();
            let cut = span.start + head.len();
            self.toks[self.pos] = (Tok::Ident(head.to_string()), Span::new(span.start, cut));
            self.toks.insert(
                self.pos + 1,
                (Tok::Ident(tail.to_string()), Span::new(cut, span.end)),
            );
        }
    }

    fn unary(&mut self) -> Result<Syn, Diagnostic> {
        self.enter()?;
        self.split_glued();
        let start = self.span().start;
        let ops: Vec<Temporal> = match self.peek().clone() {
            Tok::Sym("!") => vec![Temporal::Not],
            Tok::Sym("[]") => vec![Temporal::Globally],
            Tok::Sym("<>") => vec![Temporal::Finally],
            Tok::Ident(w) if w == "not" => vec![Temporal::Not],
            Tok::Ident(w) if is_op_word(&w) => {
                let saved = self.pos;
                self.bump();
                if self.known(&w) && !self.starts_formula() {
                    self.pos = saved;
                    Vec::new()
                } else {
                    self.pos = saved;
                    w.chars()
                        .map(|c| match c {
                            'G' => Temporal::Globally,
                            'F' => Temporal::Finally,
                            _ => Temporal::Next,
                        })
                        .collect()
                }
            }
            _ => Vec::new(),
        };
        let f = if ops.is_empty() {
            self.primary()?
        } else {
            self.bump();
            let mut f = self.unary()?;
            for op in ops.into_iter().rev() {
                let span = Span::new(start, f.span.end);
                f = syn(SynKind::Unary(op, Box::new(f)), span);
            }
            f
        };
        self.depth -= 1;
        Ok(f)
    }

    fn primary(&mut self) -> Result<Syn, Diagnostic> {
        let first = match self.peek().clone() {
            Tok::Sym("(") => {
                let start = self.bump().start;
                let mut f = self.formula()?;
                let end = self.expect_sym(")")?.end;
                f.span = Span::new(start, end);
                f
            }
            Tok::Ident(w) if (w == "true" || w == "false") && !self.known(&w) => {
                let span = self.bump();
                syn(SynKind::Const(w == "true"), span)
            }
            Tok::Ident(w) if self.defs.contains_key(&w) => {
                let span = self.bump();
                self.definition(&w, span)?
            }
            _ => syn_atom(self.atom_unary()?),
        };
        if atom_level(self.peek()).is_some() {
            let e = to_expr(first)?;
            return Ok(syn_atom(self.climb(e, 1)?));
        }
        Ok(first)
    }

    fn definition(&self, name: &str, use_span: Span) -> Result<Syn, Diagnostic> {
        let d = &self.defs[name];
        let mut f = d.syn.clone().map_err(|why| {
            Diagnostic::new(
                use_span,
                format!("the definition of `{name}` does not parse: {why}"),
            )
        })?;
        if d.external {
            respan(&mut f, use_span);
        }
        f.span = use_span;
        Ok(f)
    }

    /// Precedence climbing over the DVE binary operators, from `lhs`.
    fn climb(&mut self, mut lhs: ast::Expr, min: u8) -> Result<ast::Expr, Diagnostic> {
        while let Some((level, op)) = atom_level(self.peek()) {
            if level < min {
                break;
            }
            self.bump();
            let mut rhs = self.atom_unary()?;
            while let Some((next, _)) = atom_level(self.peek()) {
                if next <= level {
                    break;
                }
                rhs = self.climb(rhs, level + 1)?;
            }
            let span = lhs.span.to(rhs.span);
            lhs = ast::Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok(lhs)
    }

    fn atom_unary(&mut self) -> Result<ast::Expr, Diagnostic> {
        self.enter()?;
        let start = self.span().start;
        let op = match self.peek() {
            Tok::Sym("-") => Some(UnOp::Neg),
            Tok::Sym("~") => Some(UnOp::BitNot),
            _ => None,
        };
        let e = match op {
            Some(op) => {
                self.bump();
                let a = self.atom_unary()?;
                let span = Span::new(start, a.span.end);
                ast::Expr {
                    kind: ExprKind::Unary(op, Box::new(a)),
                    span,
                }
            }
            None => self.atom_primary()?,
        };
        self.depth -= 1;
        Ok(e)
    }

    /// A full expression inside `[...]` or `(...)` of an atom.
    fn inner_expr(&mut self) -> Result<ast::Expr, Diagnostic> {
        let f = self.formula()?;
        to_expr(f)
    }

    fn atom_primary(&mut self) -> Result<ast::Expr, Diagnostic> {
        let start = self.span().start;
        let leaf = |kind, end| ast::Expr {
            kind,
            span: Span::new(start, end),
        };
        match self.peek().clone() {
            Tok::Num(n) => {
                let s = self.bump();
                Ok(leaf(ExprKind::Num(n), s.end))
            }
            Tok::Sym("(") => {
                self.bump();
                let mut e = self.inner_expr()?;
                e.span = Span::new(start, self.expect_sym(")")?.end);
                Ok(e)
            }
            Tok::Ident(w) if self.defs.contains_key(&w) => {
                let span = self.bump();
                to_expr(self.definition(&w, span)?)
            }
            Tok::Ident(w) if w == "true" || w == "false" => {
                let s = self.bump();
                Ok(leaf(ExprKind::Num(i32::from(w == "true")), s.end))
            }
            // An operator word here can only be a name (`R.CS`).
            Tok::Ident(w) => {
                let id = Ident {
                    name: w.clone(),
                    span: self.bump(),
                };
                self.after_name(id, start)
            }
            _ => Err(self.unexpected("a formula")),
        }
    }

    /// `a`, `a[i]`, `P.s`, `P.v`, `P->v`, `P->v[i]`.
    fn after_name(&mut self, id: Ident, start: usize) -> Result<ast::Expr, Diagnostic> {
        let second = |p: &mut Parser| -> Result<Ident, Diagnostic> {
            match p.peek().clone() {
                Tok::Ident(name) => Ok(Ident { name, span: p.bump() }),
                _ => Err(p.unexpected("a name")),
            }
        };
        let kind = if self.is_sym("[") {
            self.bump();
            let i = self.inner_expr()?;
            self.expect_sym("]")?;
            ExprKind::Index(id, Box::new(i))
        } else if self.is_sym(".") {
            self.bump();
            let s = second(self)?;
            if !self.names.process_state(&id.name, &s.name) && self.names.process_var(&id.name, &s.name) {
                self.remote(id, s)?
            } else {
                ExprKind::InState(id, s)
            }
        } else if self.is_sym("->")
            && matches!(self.peek_at(1), Tok::Ident(v) if self.names.process_var(&id.name, v))
        {
            self.bump();
            let v = second(self)?;
            self.remote(id, v)?
        } else {
            ExprKind::Var(id)
        };
        Ok(ast::Expr {
            kind,
            span: Span::new(start, self.prev_end()),
        })
    }

    fn remote(&mut self, p: Ident, v: Ident) -> Result<ExprKind, Diagnostic> {
        if self.is_sym("[") {
            self.bump();
            let i = self.inner_expr()?;
            self.expect_sym("]")?;
            return Ok(ExprKind::RemoteIndex(p, v, Box::new(i)));
        }
        Ok(ExprKind::Remote(p, v))
    }
}

fn syn_atom(e: ast::Expr) -> Syn {
    let span = e.span;
    syn(SynKind::Atom(e), span)
}

/// A propositional formula as a DVE expression (for `(a || b) + 1` and
/// array indices); a temporal operator there is an error.
fn to_expr(f: Syn) -> Result<ast::Expr, Diagnostic> {
    let span = f.span;
    let kind = match f.kind {
        SynKind::Atom(mut e) => {
            e.span = span;
            return Ok(e);
        }
        SynKind::Const(b) => ExprKind::Num(i32::from(b)),
        SynKind::Unary(Temporal::Not, a) => ExprKind::Unary(UnOp::Not, Box::new(to_expr(*a)?)),
        SynKind::Binary(op @ (Temporal::And | Temporal::Or | Temporal::Implies), a, b) => {
            let op = match op {
                Temporal::And => BinOp::And,
                Temporal::Or => BinOp::Or,
                _ => BinOp::Imply,
            };
            ExprKind::Binary(op, Box::new(to_expr(*a)?), Box::new(to_expr(*b)?))
        }
        _ => {
            return Err(Diagnostic::new(
                span,
                "a temporal formula cannot be an operand of an arithmetic or comparison operator",
            ))
        }
    };
    Ok(ast::Expr { kind, span })
}

/// Gives every node of `f` the span `s`.
fn respan(f: &mut Syn, s: Span) {
    f.span = s;
    match &mut f.kind {
        SynKind::Const(_) => {}
        SynKind::Atom(e) => respan_expr(e, s),
        SynKind::Unary(_, a) => respan(a, s),
        SynKind::Binary(_, a, b) => {
            respan(a, s);
            respan(b, s);
        }
    }
}

fn respan_expr(e: &mut ast::Expr, s: Span) {
    e.span = s;
    match &mut e.kind {
        ExprKind::Num(_) => {}
        ExprKind::Var(a) => a.span = s,
        ExprKind::InState(a, b) | ExprKind::Remote(a, b) => {
            a.span = s;
            b.span = s;
        }
        ExprKind::Index(a, i) => {
            a.span = s;
            respan_expr(i, s);
        }
        ExprKind::RemoteIndex(a, b, i) => {
            a.span = s;
            b.span = s;
            respan_expr(i, s);
        }
        ExprKind::Unary(_, a) => respan_expr(a, s),
        ExprKind::Binary(_, a, b) => {
            respan_expr(a, s);
            respan_expr(b, s);
        }
    }
}
