//! The LTL to Büchi translation against a direct LTL evaluator: on every
//! ultimately periodic word (stem and loop of letters up to a small
//! length) over 2 or 3 propositions, the automaton accepts the word exactly
//! when the formula holds on it; for the formula and its negation.

use dve_frontend::ltl::{parse_formula, translate, Buchi, Ltl};

/// Truth of `f` at each position of the lasso `word` (loop from `back`).
fn eval(f: &Ltl, word: &[u64], back: usize) -> Vec<bool> {
    let n = word.len();
    let succ = |i: usize| if i + 1 == n { back } else { i + 1 };
    // Least (until) or greatest (release) fixpoint of v[i] = now[i] || (hold[i] && v[succ i]).
    let fix = |now: &[bool], hold: &[bool], init: bool| {
        let mut v = vec![init; n];
        for _ in 0..=n {
            v = (0..n).map(|i| now[i] || (hold[i] && v[succ(i)])).collect();
        }
        v
    };
    let all = |b: bool| vec![b; n];
    let map2 = |a: Vec<bool>, b: Vec<bool>, g: fn(bool, bool) -> bool| -> Vec<bool> {
        a.into_iter().zip(b).map(|(x, y)| g(x, y)).collect()
    };
    let not = |a: Vec<bool>| -> Vec<bool> { a.into_iter().map(|x| !x).collect() };
    let e = |g: &Ltl| eval(g, word, back);
    match f {
        Ltl::True => all(true),
        Ltl::False => all(false),
        Ltl::Atom(a) => word.iter().map(|w| w >> a & 1 == 1).collect(),
        Ltl::Not(a) => not(e(a)),
        Ltl::And(a, b) => map2(e(a), e(b), |x, y| x && y),
        Ltl::Or(a, b) => map2(e(a), e(b), |x, y| x || y),
        Ltl::Implies(a, b) => map2(e(a), e(b), |x, y| !x || y),
        Ltl::Equiv(a, b) => map2(e(a), e(b), |x, y| x == y),
        Ltl::Next(a) => {
            let v = e(a);
            (0..n).map(|i| v[succ(i)]).collect()
        }
        Ltl::Finally(a) => fix(&e(a), &all(true), false),
        // G a = !F !a
        Ltl::Globally(a) => not(fix(&not(e(a)), &all(true), false)),
        Ltl::Until(a, b) => fix(&e(b), &e(a), false),
        // a R b = !(!a U !b)
        Ltl::Release(a, b) => not(fix(&not(e(b)), &not(e(a)), false)),
        // a W b = a U b || G a
        Ltl::WeakUntil(a, b) => {
            let u = fix(&e(b), &e(a), false);
            let g = not(fix(&not(e(a)), &all(true), false));
            map2(u, g, |x, y| x || y)
        }
    }
}

/// Whether `b` accepts the lasso: an accepting product node on a cycle,
/// reachable from (position 0, state 0). Labels read the position left.
fn accepts(b: &Buchi, word: &[u64], back: usize) -> bool {
    let n = word.len();
    let m = b.states.len();
    let succ = |(i, q): (usize, usize)| -> Vec<(usize, usize)> {
        let j = if i + 1 == n { back } else { i + 1 };
        b.states[q]
            .edges
            .iter()
            .filter(|(l, _)| l.holds(word[i]))
            .map(|&(_, t)| (j, t))
            .collect()
    };
    let reach = |from: Vec<(usize, usize)>| {
        let mut seen = vec![false; n * m];
        let mut todo = from;
        while let Some(x) = todo.pop() {
            if !std::mem::replace(&mut seen[x.0 * m + x.1], true) {
                todo.extend(succ(x));
            }
        }
        seen
    };
    let from_init = reach(vec![(0, 0)]);
    (0..n * m).any(|k| {
        let (i, q) = (k / m, k % m);
        from_init[k] && b.states[q].accepting && reach(succ((i, q)))[k]
    })
}

/// Every lasso over `atoms` propositions with a stem of at most `stem`
/// letters and a loop of 1 to `cycle` letters: (word, loop start).
fn lassos(atoms: usize, stem: usize, cycle: usize) -> Vec<(Vec<u64>, usize)> {
    let letters = 1u64 << atoms;
    let mut out = Vec::new();
    for a in 0..=stem {
        for c in 1..=cycle {
            let len = a + c;
            let count = letters.pow(len as u32);
            for code in 0..count {
                let mut w = Vec::with_capacity(len);
                let mut x = code;
                for _ in 0..len {
                    w.push(x % letters);
                    x /= letters;
                }
                out.push((w, a));
            }
        }
    }
    out
}

fn check(text: &str, words: &[(Vec<u64>, usize)]) -> (usize, usize) {
    let p = parse_formula("<f>", text, None, &[]).unwrap_or_else(|e| panic!("{e}"));
    let atoms = p.atoms.len();
    let mut sizes = (0, 0);
    for negate in [false, true] {
        let b = translate(&p.formula, atoms, negate).unwrap();
        if !negate {
            sizes = (b.states.len(), b.transitions());
        }
        for (w, back) in words {
            if w.iter().any(|&l| l >> atoms != 0) {
                continue;
            }
            let holds = eval(&p.formula, w, *back)[0];
            assert_eq!(
                accepts(&b, w, *back),
                holds != negate,
                "{}{text} on {w:?} (loop from {back})\n{}",
                if negate { "!" } else { "" },
                b.text(&(0..atoms).map(|a| p.atom_text(a)).collect::<Vec<_>>())
            );
        }
    }
    sizes
}

const CLASSIC: &[&str] = &[
    "p",
    "!p",
    "X p",
    "X X p",
    "F p",
    "G p",
    "G F p",
    "F G p",
    "p U q",
    "p R q",
    "p W q",
    "p V q",
    "G (p -> F q)",
    "G (p -> X q)",
    "F p && F q",
    "G F p && G F q",
    "G F p -> G F q",
    "F G p || G F q",
    "(p U q) U r",
    "p U (q U r)",
    "!p U (p U (!p U (p U (q && r))))",
    "G (p -> (q R (!r || q)))",
    "(G F p && G F q) -> G F r",
    "p <-> X q",
    "G (p <-> F q)",
    "X (p U q) && F G !r",
    "(p U q) -> ((r || q) U p || G r)",
    "true U false",
    "G true",
    "F false",
    "p && !p",
    "G (p && X !p)",
];

#[test]
fn accepts_exactly_the_lassos_where_the_formula_holds() {
    let words = lassos(3, 2, 2);
    for f in CLASSIC {
        check(f, &words);
    }
}

/// Pseudo-random formulas (a fixed linear congruential sequence) of depth
/// up to 4 over p, q, r.
fn random_formula(seed: &mut u64, depth: u32) -> String {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let r = (*seed >> 33) % if depth == 0 { 3 } else { 14 };
    let mut sub = |d| random_formula(seed, d);
    match r {
        0 => "p".into(),
        1 => "q".into(),
        2 => "r".into(),
        3 => format!("!({})", sub(depth - 1)),
        4 => format!("X ({})", sub(depth - 1)),
        5 => format!("F ({})", sub(depth - 1)),
        6 => format!("G ({})", sub(depth - 1)),
        7 => format!("({}) && ({})", sub(depth - 1), sub(depth - 1)),
        8 => format!("({}) || ({})", sub(depth - 1), sub(depth - 1)),
        9 => format!("({}) -> ({})", sub(depth - 1), sub(depth - 1)),
        10 => format!("({}) U ({})", sub(depth - 1), sub(depth - 1)),
        11 => format!("({}) R ({})", sub(depth - 1), sub(depth - 1)),
        12 => format!("({}) W ({})", sub(depth - 1), sub(depth - 1)),
        _ => format!("({}) <-> ({})", sub(depth - 1), sub(depth - 1)),
    }
}

#[test]
fn random_formulas_against_the_evaluator() {
    let words = lassos(3, 2, 2);
    let mut seed = 47;
    for _ in 0..300 {
        let f = random_formula(&mut seed, 4);
        check(&f, &words);
    }
}

#[test]
fn longer_lassos_over_two_propositions() {
    let words = lassos(2, 3, 3);
    for f in CLASSIC.iter().filter(|f| !f.contains('r')) {
        check(f, &words);
    }
}

/// The negated formulas' automata against the size of SPIN 6.5's claims
/// (`spin -f`) for the same formulas, where the degeneralisation and the
/// one-edge-per-target guards matter; and one edge per target everywhere.
#[test]
fn no_larger_than_spins_claims() {
    // (formula, SPIN's states and transitions for its negation)
    let spin = [
        ("F G p", 2, 3),
        ("G F p -> G F q", 3, 6),
        ("(G F p && G F q) -> G F r", 4, 10),
        ("G ((p || q || r) -> F s)", 2, 3),
        ("G (p -> F q)", 2, 3),
    ];
    for (text, states, transitions) in spin {
        let p = parse_formula("<f>", text, None, &[]).unwrap();
        let b = translate(&p.formula, p.atoms.len(), true).unwrap();
        assert!(
            b.states.len() <= states && b.transitions() <= transitions,
            "!({text}): {} states, {} transitions; SPIN {states}, {transitions}",
            b.states.len(),
            b.transitions()
        );
    }
    let mut seed = 48;
    for _ in 0..200 {
        let f = random_formula(&mut seed, 4);
        let p = parse_formula("<f>", &f, None, &[]).unwrap();
        for negate in [false, true] {
            let b = translate(&p.formula, p.atoms.len(), negate).unwrap();
            for s in &b.states {
                let mut targets: Vec<usize> = s.edges.iter().map(|e| e.1).collect();
                targets.sort();
                targets.dedup();
                assert_eq!(targets.len(), s.edges.len(), "{f}: two edges to one target");
            }
        }
    }
}
