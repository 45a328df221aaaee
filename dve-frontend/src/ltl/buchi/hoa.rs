//! Printing an automaton: the Hanoi Omega-Automata format (HOA v1, read by
//! Spot, Owl and other tools) and a readable listing.

use std::fmt::Write;

use super::{Buchi, Guard, Label};

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

impl Label {
    /// `0 & !1` over atom numbers (HOA), or `t`.
    fn hoa(self) -> String {
        let lits = self.literals();
        if lits.is_empty() {
            return "t".into();
        }
        let l: Vec<String> = lits
            .into_iter()
            .map(|(a, p)| if p { a.to_string() } else { format!("!{a}") })
            .collect();
        l.join(" & ")
    }

    /// `P.CS && !(x > 1)` with the atoms named, or `true`.
    pub fn text(self, names: &[String]) -> String {
        let lits = self.literals();
        if lits.is_empty() {
            return "true".into();
        }
        let l: Vec<String> = lits
            .into_iter()
            .map(|(a, p)| {
                let n = &names[a];
                let n = if n.contains(' ') {
                    format!("({n})")
                } else {
                    n.clone()
                };
                if p {
                    n
                } else {
                    format!("!{n}")
                }
            })
            .collect();
        l.join(" && ")
    }
}

impl Guard {
    /// `(0 & !1) | 2` (HOA), or `t`.
    fn hoa(&self) -> String {
        self.join(Label::hoa, " | ")
    }

    /// `(P.CS && !q) || r` with the atoms named, or `true`.
    pub fn text(&self, names: &[String]) -> String {
        self.join(|l| l.text(names), " || ")
    }

    fn join(&self, show: impl Fn(Label) -> String, or: &str) -> String {
        if self.0.len() == 1 {
            return show(self.0[0]);
        }
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|&l| {
                if l.literals().len() > 1 {
                    format!("({})", show(l))
                } else {
                    show(l)
                }
            })
            .collect();
        parts.join(or)
    }
}

impl Buchi {
    /// The automaton in HOA v1; `names` are the atomic propositions.
    pub fn hoa(&self, title: &str, names: &[String]) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "HOA: v1");
        let _ = writeln!(o, "name: {}", quoted(title));
        let _ = writeln!(o, "States: {}", self.states.len());
        let _ = writeln!(o, "Start: 0");
        let aps: Vec<String> = names.iter().map(|n| quoted(n)).collect();
        let _ = writeln!(
            o,
            "AP: {}{}{}",
            names.len(),
            if names.is_empty() { "" } else { " " },
            aps.join(" ")
        );
        let _ = writeln!(o, "acc-name: Buchi");
        let _ = writeln!(o, "Acceptance: 1 Inf(0)");
        let _ = writeln!(o, "properties: trans-labels explicit-labels state-acc");
        let _ = writeln!(o, "--BODY--");
        for (i, s) in self.states.iter().enumerate() {
            let _ = writeln!(o, "State: {i}{}", if s.accepting { " {0}" } else { "" });
            for (l, to) in &s.edges {
                let _ = writeln!(o, "[{}] {to}", l.hoa());
            }
        }
        let _ = writeln!(o, "--END--");
        o
    }

    /// A readable listing: one block per state, its transitions below.
    pub fn text(&self, names: &[String]) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} states, {} transitions; state 0 is initial",
            self.states.len(),
            self.transitions()
        );
        for (i, s) in self.states.iter().enumerate() {
            let _ = writeln!(o, "state {i}{}", if s.accepting { " (accepting)" } else { "" });
            if s.edges.is_empty() {
                let _ = writeln!(o, "  (no transitions)");
            }
            for (l, to) in &s.edges {
                let _ = writeln!(o, "  {} -> {to}", l.text(names));
            }
        }
        o
    }
}
