//! The generated model as a small syntax tree with every name resolved,
//! and its DVE text (`Display`). Every binary and unary expression is
//! printed in parentheses, so DVE's precedence (which differs from C's)
//! never decides how a generated expression reads.

use std::fmt::{self, Display, Formatter, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Byte,
    Int,
}

impl Ty {
    /// The values a variable of this type holds.
    pub fn range(self) -> (i32, i32) {
        match self {
            Ty::Byte => (0, 255),
            Ty::Int => (-32768, 32767),
        }
    }
}

/// The operators are the front end's, so that both print them alike.
pub use dve_frontend::ast::{BinOp, UnOp};

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Num(i32),
    Var(String),
    Elem(String, Box<Expr>),
    /// `P.s`
    State(String, String),
    Un(UnOp, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct LValue {
    pub name: String,
    pub index: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Scalar(i32),
    /// May be shorter (zero-filled) or longer (cut) than the array.
    List(Vec<i32>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub is_const: bool,
    pub ty: Ty,
    pub name: String,
    pub len: Option<u32>,
    pub init: Option<Init>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ChanDecl {
    pub name: String,
    /// `channel {types} name[size]`; `None`: untyped rendezvous.
    pub typed: Option<(Vec<Ty>, u32)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Sync {
    Send(String, Vec<Expr>),
    Recv(String, Vec<LValue>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    pub from: usize,
    pub to: usize,
    pub guard: Option<Expr>,
    pub sync: Option<Sync>,
    pub effects: Vec<(LValue, Expr)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Process {
    pub name: String,
    pub locals: Vec<VarDecl>,
    pub states: Vec<String>,
    pub init: usize,
    pub commit: Vec<usize>,
    pub accept: Vec<usize>,
    pub asserts: Vec<(usize, Expr)>,
    pub trans: Vec<Transition>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub globals: Vec<VarDecl>,
    pub channels: Vec<ChanDecl>,
    /// The property process, if any, is the last one.
    pub processes: Vec<Process>,
    pub has_property: bool,
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(n) if *n < 0 => write!(f, "(-{})", -(*n as i64)),
            Expr::Num(n) => write!(f, "{n}"),
            Expr::Var(v) => f.write_str(v),
            Expr::Elem(a, i) => write!(f, "{a}[{i}]"),
            Expr::State(p, s) => write!(f, "{p}.{s}"),
            Expr::Un(op, a) => {
                let op = match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::Not => "not ",
                };
                write!(f, "({op}{a})")
            }
            Expr::Bin(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
        }
    }
}

impl Display for LValue {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.index {
            None => f.write_str(&self.name),
            Some(i) => write!(f, "{}[{i}]", self.name),
        }
    }
}

fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::Byte => "byte",
        Ty::Int => "int",
    }
}

fn join<T: Display>(items: &[T], sep: &str) -> String {
    let mut s = String::new();
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        write!(s, "{x}").unwrap();
    }
    s
}

fn number(n: i32) -> String {
    Expr::Num(n).to_string()
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.is_const {
            f.write_str("const ")?;
        }
        write!(f, "{} {}", ty_name(self.ty), self.name)?;
        if let Some(n) = self.len {
            write!(f, "[{n}]")?;
        }
        match &self.init {
            None => {}
            Some(Init::Scalar(v)) => write!(f, " = {}", number(*v))?,
            Some(Init::List(vs)) => {
                let vs: Vec<String> = vs.iter().map(|&v| number(v)).collect();
                write!(f, " = {{{}}}", vs.join(", "))?
            }
        }
        f.write_str(";")
    }
}

impl Display for ChanDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.typed {
            None => write!(f, "channel {};", self.name),
            Some((types, size)) => {
                let types: Vec<&str> = types.iter().map(|&t| ty_name(t)).collect();
                write!(f, "channel {{{}}} {}[{size}];", types.join(", "), self.name)
            }
        }
    }
}

impl Display for Process {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, "process {} {{", self.name)?;
        for v in &self.locals {
            writeln!(f, "  {v}")?;
        }
        writeln!(f, "  state {};", self.states.join(", "))?;
        writeln!(f, "  init {};", self.states[self.init])?;
        let names = |ix: &[usize]| {
            ix.iter()
                .map(|&i| self.states[i].clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !self.commit.is_empty() {
            writeln!(f, "  commit {};", names(&self.commit))?;
        }
        if !self.accept.is_empty() {
            writeln!(f, "  accept {};", names(&self.accept))?;
        }
        if !self.asserts.is_empty() {
            let a: Vec<String> = self
                .asserts
                .iter()
                .map(|(s, e)| format!("{}: {e}", self.states[*s]))
                .collect();
            writeln!(f, "  assert {};", a.join(", "))?;
        }
        if !self.trans.is_empty() {
            writeln!(f, "  trans")?;
            for (i, t) in self.trans.iter().enumerate() {
                write!(f, "    {} -> {} {{", self.states[t.from], self.states[t.to])?;
                if let Some(g) = &t.guard {
                    write!(f, " guard {g};")?;
                }
                match &t.sync {
                    None => {}
                    Some(Sync::Send(c, vs)) => match vs.len() {
                        0 => write!(f, " sync {c}!;")?,
                        1 => write!(f, " sync {c}!{};", vs[0])?,
                        _ => write!(f, " sync {c}!{{{}}};", join(vs, ", "))?,
                    },
                    Some(Sync::Recv(c, ls)) => match ls.len() {
                        0 => write!(f, " sync {c}?;")?,
                        1 => write!(f, " sync {c}?{};", ls[0])?,
                        _ => write!(f, " sync {c}?{{{}}};", join(ls, ", "))?,
                    },
                }
                if !t.effects.is_empty() {
                    let e: Vec<String> = t.effects.iter().map(|(l, e)| format!("{l} = {e}")).collect();
                    write!(f, " effect {};", e.join(", "))?;
                }
                let end = if i + 1 == self.trans.len() { ";" } else { "," };
                writeln!(f, " }}{end}")?;
            }
        }
        writeln!(f, "}}")
    }
}

impl Display for Model {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for v in &self.globals {
            writeln!(f, "{v}")?;
        }
        for c in &self.channels {
            writeln!(f, "{c}")?;
        }
        for p in &self.processes {
            writeln!(f, "{p}")?;
        }
        match self.processes.last() {
            Some(p) if self.has_property => writeln!(f, "system async property {};", p.name),
            _ => writeln!(f, "system async;"),
        }
    }
}
