//! Syntax tree of a DVE file. Every node keeps its source span (byte
//! offsets into the file), so diagnostics can point at it.

/// Byte range `[start, end)` in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeName {
    Byte,
    Int,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    pub decls: Vec<GlobalDecl>,
    pub processes: Vec<Process>,
    pub system: System,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobalDecl {
    Var(VarDecl),
    Channel(ChannelDecl),
}

/// `const? type d1, d2, ...;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    pub is_const: bool,
    pub ty: TypeName,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declarator {
    pub name: Ident,
    /// `[NUM]`: the literal size and its span.
    pub array_size: Option<(i64, Span)>,
    pub init: Option<Initializer>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Initializer {
    Scalar(Expr),
    List(Vec<Expr>, Span),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelDecl {
    /// `Some(types)` for `channel {t, ...} c[N]`.
    pub types: Option<Vec<TypeName>>,
    /// Each channel name with its `[N]` buffer size (typed channels only).
    pub channels: Vec<(Ident, Option<(i64, Span)>)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Process {
    pub name: Ident,
    pub vars: Vec<VarDecl>,
    pub states: Vec<Ident>,
    pub init: Ident,
    pub commit: Vec<Ident>,
    pub accept: Accept,
    /// `assert s: expr, ...;`
    pub asserts: Vec<(Ident, Expr)>,
    pub transitions: Vec<Transition>,
    pub span: Span,
}

/// Acceptance condition of a (property) process.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Accept {
    #[default]
    None,
    /// `accept s1, s2;` or `accept buchi s1, s2;`
    Buchi(Vec<Ident>),
    /// `accept genbuchi|muller (..), (..);` — parsed, not used.
    Sets { kind: String, sets: Vec<Vec<Ident>> },
    /// `accept rabin|streett (..; ..), ...;` — parsed, not used.
    Pairs {
        kind: String,
        pairs: Vec<(Vec<Ident>, Vec<Ident>)>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// `None` for a short transition `-> s {...}` (source = the previous one's).
    pub from: Option<Ident>,
    pub to: Ident,
    pub guard: Option<Expr>,
    pub sync: Option<Sync>,
    pub effects: Vec<Assign>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncDir {
    /// `!`
    Send,
    /// `?`
    Recv,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sync {
    pub channel: Ident,
    pub dir: SyncDir,
    /// Values sent, or targets received into (as expressions; checked to be
    /// lvalues by semantic analysis). `c!{a, b}` gives two.
    pub values: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assign {
    pub target: LValue,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LValue {
    pub name: Ident,
    pub index: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct System {
    pub is_sync: bool,
    pub property: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    BitNot,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Imply,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// A number literal (at most `i32::MAX`: the lexer refuses larger ones) or
    /// `true` / `false`.
    Num(i32),
    Var(Ident),
    Index(Ident, Box<Expr>),
    /// `P.s`
    InState(Ident, Ident),
    /// `P->v`
    Remote(Ident, Ident),
    /// `P->a[i]`
    RemoteIndex(Ident, Ident, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Imply => "imply",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
        }
    }
}

/// Prints an expression as DVE text; every nested binary operation is
/// parenthesised, so the text reads the same whatever the precedence rules.
impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn operand(e: &Expr, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match e.kind {
                ExprKind::Binary(..) => write!(f, "({e})"),
                _ => write!(f, "{e}"),
            }
        }
        match &self.kind {
            ExprKind::Num(n) => write!(f, "{n}"),
            ExprKind::Var(id) => write!(f, "{}", id.name),
            ExprKind::Index(id, i) => write!(f, "{}[{i}]", id.name),
            ExprKind::InState(p, s) => write!(f, "{}.{}", p.name, s.name),
            ExprKind::Remote(p, v) => write!(f, "{}->{}", p.name, v.name),
            ExprKind::RemoteIndex(p, v, i) => write!(f, "{}->{}[{i}]", p.name, v.name),
            ExprKind::Unary(op, a) => {
                f.write_str(match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::Not => "not ",
                })?;
                operand(a, f)
            }
            ExprKind::Binary(op, a, b) => {
                operand(a, f)?;
                write!(f, " {} ", op.symbol())?;
                operand(b, f)
            }
        }
    }
}

/// The body of a transition as DVE text: `guard ...; sync c!v; effect x = e`.
impl Transition {
    pub fn body_text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(g) = &self.guard {
            parts.push(format!("guard {g}"));
        }
        if let Some(s) = &self.sync {
            let dir = if s.dir == SyncDir::Send { "!" } else { "?" };
            let vals: Vec<String> = s.values.iter().map(|v| v.to_string()).collect();
            let vals = match vals.len() {
                0 => String::new(),
                1 => vals[0].clone(),
                _ => format!("{{{}}}", vals.join(", ")),
            };
            parts.push(format!("sync {}{dir}{vals}", s.channel.name));
        }
        if !self.effects.is_empty() {
            let effects: Vec<String> = self
                .effects
                .iter()
                .map(|a| match &a.target.index {
                    Some(i) => format!("{}[{i}] = {}", a.target.name.name, a.value),
                    None => format!("{} = {}", a.target.name.name, a.value),
                })
                .collect();
            parts.push(format!("effect {}", effects.join(", ")));
        }
        parts.join("; ")
    }
}
