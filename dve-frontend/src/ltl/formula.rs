//! LTL formulas over numbered atomic propositions.

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ltl {
    True,
    False,
    /// Atomic proposition number `n` (an index into the property's atoms).
    Atom(usize),
    Not(Box<Ltl>),
    And(Box<Ltl>, Box<Ltl>),
    Or(Box<Ltl>, Box<Ltl>),
    Implies(Box<Ltl>, Box<Ltl>),
    Equiv(Box<Ltl>, Box<Ltl>),
    Next(Box<Ltl>),
    Finally(Box<Ltl>),
    Globally(Box<Ltl>),
    Until(Box<Ltl>, Box<Ltl>),
    Release(Box<Ltl>, Box<Ltl>),
    WeakUntil(Box<Ltl>, Box<Ltl>),
}

impl Ltl {
    /// Whether `X` occurs (a formula without it is stutter-invariant).
    pub fn has_next(&self) -> bool {
        match self {
            Ltl::True | Ltl::False | Ltl::Atom(_) => false,
            Ltl::Next(_) => true,
            Ltl::Not(a) | Ltl::Finally(a) | Ltl::Globally(a) => a.has_next(),
            Ltl::And(a, b)
            | Ltl::Or(a, b)
            | Ltl::Implies(a, b)
            | Ltl::Equiv(a, b)
            | Ltl::Until(a, b)
            | Ltl::Release(a, b)
            | Ltl::WeakUntil(a, b) => a.has_next() || b.has_next(),
        }
    }

    /// The formula as text, atoms named by `atom`; binary operators fully
    /// parenthesised, so it reads the same in any of the usual syntaxes.
    pub fn text(&self, atom: &dyn Fn(usize) -> String) -> String {
        let bin = |a: &Ltl, op: &str, b: &Ltl| format!("({} {op} {})", a.text(atom), b.text(atom));
        match self {
            Ltl::True => "true".into(),
            Ltl::False => "false".into(),
            Ltl::Atom(n) => atom(*n),
            Ltl::Not(a) => format!("!{}", a.text(atom)),
            Ltl::Next(a) => format!("X {}", a.text(atom)),
            Ltl::Finally(a) => format!("F {}", a.text(atom)),
            Ltl::Globally(a) => format!("G {}", a.text(atom)),
            Ltl::And(a, b) => bin(a, "&&", b),
            Ltl::Or(a, b) => bin(a, "||", b),
            Ltl::Implies(a, b) => bin(a, "->", b),
            Ltl::Equiv(a, b) => bin(a, "<->", b),
            Ltl::Until(a, b) => bin(a, "U", b),
            Ltl::Release(a, b) => bin(a, "R", b),
            Ltl::WeakUntil(a, b) => bin(a, "W", b),
        }
    }
}
