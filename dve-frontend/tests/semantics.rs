//! The traps of `docs/dve-language.md` §10 and the other semantic rules of
//! §5–§8, each pinned by a small model. States are compared through their
//! decoded text (`x=1, P=idle, ...`), so a failure shows what differs.

use dve_frontend::interp::Interpreter;
use dve_frontend::model::{NextState, SuccBuf, NONE};
use std::collections::{HashMap, VecDeque};

fn load(src: &str) -> Interpreter {
    match dve_frontend::load_str("test.dve", src) {
        Ok(m) => Interpreter::new(m),
        Err(e) => panic!("model does not load:\n{e}"),
    }
}

fn text(m: &Interpreter, s: &[u8]) -> String {
    m.info().state_text(s)
}

/// Successors of `s` as (error flag, decoded state).
fn succs(m: &Interpreter, s: &[u8]) -> Vec<(bool, String)> {
    let mut buf = SuccBuf::new(m.state_len());
    m.successors(s, &mut buf);
    buf.iter().map(|(e, st)| (e.error, text(m, st))).collect()
}

fn first_succ(m: &Interpreter) -> Vec<(bool, String)> {
    succs(m, &m.initial_vec())
}

/// Reachable states (BFS) and edges.
fn explore(m: &Interpreter) -> (Vec<Vec<u8>>, usize) {
    let mut seen = HashMap::new();
    let mut order = vec![m.initial_vec()];
    seen.insert(order[0].clone(), ());
    let mut queue = VecDeque::from([0usize]);
    let mut buf = SuccBuf::new(m.state_len());
    let mut edges = 0;
    while let Some(i) = queue.pop_front() {
        let s = order[i].clone();
        m.successors(&s, &mut buf);
        edges += buf.len();
        for (_, t) in buf.iter() {
            if seen.insert(t.to_vec(), ()).is_none() {
                order.push(t.to_vec());
                queue.push_back(order.len() - 1);
            }
        }
    }
    (order, edges)
}

fn eval_init(expr: &str) -> i32 {
    let src = format!("int r = {expr}; process P {{ state s; init s; }} system async;");
    let m = load(&src);
    let s = m.initial_vec();
    i16::from_le_bytes([s[0], s[1]]) as i32
}

// Trap 1 and §6: an out-of-range store is an error, not a wrap.
#[test]
fn overflow_is_an_error_not_a_wrap() {
    let m = load(
        "byte x = 255; process P { state a, b; init a; trans a -> b { effect x = x + 1; }; } system async;",
    );
    let s = first_succ(&m);
    assert_eq!(s.len(), 1);
    assert!(s[0].0, "the store of 256 into a byte must be an error");
    assert_eq!(s[0].1, "x=0, P=<error>");
    let m = load(
        "int y = -32768; process P { state a; init a; trans a -> a { effect y = y - 1; }; } system async;",
    );
    assert!(first_succ(&m)[0].0);
    // In range after the expression is fine even if an intermediate is not.
    let m = load("byte x = 200; process P { state a; init a; trans a -> a { effect x = x * 2 - 200; }; } system async;");
    assert_eq!(first_succ(&m), vec![(false, "x=200, P=a".to_string())]);
}

// Traps 2 and 3, §8.3: the error state is all zeros with process 0 in its
// non-existent state, the others in their *first declared* state; it is
// expanded unless process 0 has an even number of states.
#[test]
fn error_state_layout_and_expansion() {
    // Process 0 has 3 states (odd): the error state is expanded like any state.
    let src = "byte x = 255;
        process A { state a0, a1, a2; init a1; trans a1 -> a2 { effect x = x + 1; }; }
        process B { byte k = 7; state b0, b1; init b1; trans b0 -> b1 { effect k = k + 1; }; }
        system async;";
    let m = load(src);
    let s = first_succ(&m);
    assert_eq!(s, vec![(true, "x=0, A=<error>, B=b0, B.k=0".to_string())]);
    let (states, edges) = explore(&m);
    // initial, error state, and B's move out of the error state.
    assert_eq!(states.len(), 3);
    assert_eq!(edges, 2);
    assert_eq!(text(&m, &states[2]), "x=0, A=<error>, B=b1, B.k=1");

    // Process 0 has 2 states (even): its stray committed flag reads true, so
    // only committed processes may move and the error state is terminal.
    let src = "byte x = 255;
        process A { state a0, a1; init a1; trans a1 -> a0 { effect x = x + 1; }; }
        process B { byte k = 7; state b0, b1; init b1; trans b0 -> b1 { effect k = k + 1; }; }
        system async;";
    let (states, edges) = explore(&load(src));
    assert_eq!((states.len(), edges), (2, 1));
}

// Trap 4, §7.2: effects are sequential.
#[test]
fn effects_are_sequential() {
    let m = load("byte seq = 2, buf[3] = {5, 5, 5}; process P { state a; init a; trans a -> a { effect seq = (seq + 1) % 3, buf[seq] = 0; }; } system async;");
    assert_eq!(
        first_succ(&m),
        vec![(false, "seq=0, buf[0]=0, buf[1]=5, buf[2]=5, P=a".to_string())]
    );
}

// Trap 5: the own control state is updated before the effects run.
#[test]
fn control_state_is_set_before_effects() {
    let m = load("byte x; process P { state a, b; init a; trans a -> b { effect x = P.b * 10 + P.a; }; } system async;");
    assert_eq!(first_succ(&m), vec![(false, "x=10, P=b".to_string())]);
}

// Trap 6, §7.3, with the document's own illustration: value, receiver, sender.
#[test]
fn rendezvous_order_of_side_effects() {
    let src = "byte x = 7, g = 5, a, b; channel c;
        process S { state s0, s1; init s0; trans s0 -> s1 { sync c!x+g; effect g = g+1, a = R->r; }; }
        process R { byte r, y; state r0, r1; init r0; trans r0 -> r1 { sync c?r; effect y = r, b = g; }; }
        system async;";
    // `R->r` must name an earlier process, so read it through a global instead.
    let src = src.replace("a = R->r", "a = b + 7");
    let m = load(&src);
    assert_eq!(
        first_succ(&m),
        vec![(
            false,
            "x=7, g=6, a=12, b=5, S=s1, R=r1, R.r=12, R.y=12".to_string()
        )]
    );
}

// Several values: later values see earlier receive assignments; receive
// target indices use the original state.
#[test]
fn rendezvous_with_several_values() {
    let src = "byte i, a[3]; channel c;
        process S { state s; init s; trans s -> s { sync c!{2, i + 5}; }; }
        process R { state r; init r; trans r -> r { sync c?{i, a[i]}; }; }
        system async;";
    let m = load(src);
    // i becomes 2 first; the second value is then 2 + 5 = 7, stored at the
    // index evaluated in the original state (i = 0).
    assert_eq!(
        first_succ(&m),
        vec![(false, "i=2, a[0]=7, a[1]=0, a[2]=0, S=s, R=r".to_string())]
    );
}

// Trap 7: no self-synchronisation; both sides writing a global is an error.
#[test]
fn rendezvous_pairs_and_conflicts() {
    let m = load("channel c; process P { state a, b; init a; trans a -> b { sync c!; }, a -> b { sync c?; }; } system async;");
    assert!(
        first_succ(&m).is_empty(),
        "a process never synchronises with itself"
    );
    let src = "byte g; channel c;
        process S { state a, b; init a; trans a -> b { sync c!; effect g = 1; }; }
        process R { state a, b; init a; trans a -> b { sync c?; effect g = 2; }; }
        system async;";
    let s = first_succ(&load(src));
    assert_eq!(s.len(), 1);
    assert!(s[0].0, "both sides assign g: the pair leads to the error state");
}

// Trap 8, §8.2: a guard error enables the transition towards the error
// state; short-circuiting decides whether the error happens.
#[test]
fn guard_errors_and_short_circuit() {
    let m =
        load("byte x; process P { state a, b; init a; trans a -> b { guard 10 / x > 1; }; } system async;");
    assert_eq!(first_succ(&m), vec![(true, "x=0, P=<error>".to_string())]);
    let m = load("byte x; process P { state a, b; init a; trans a -> b { guard x != 0 and 10 / x > 1; }; } system async;");
    assert!(first_succ(&m).is_empty(), "the division is never evaluated");
    let m = load("byte x, a[2]; process P { state a0, b; init a0; trans a0 -> b { guard a[x + 2] == 0; }; } system async;");
    assert!(first_succ(&m)[0].0, "index out of range in a guard");
    let m =
        load("byte x; process P { state a, b; init a; trans a -> b { effect x = 5 % x; }; } system async;");
    assert!(first_succ(&m)[0].0, "modulo by zero is an error");
}

// Folding `and` / `or` / `imply` with a constant operand (which shrinks
// generated guards such as plc's) keeps the short-circuit semantics: what
// is never evaluated cannot fail, what is evaluated still can, and the
// right operand is still tested with `> 0`.
#[test]
fn constant_operands_of_logical_operators_keep_their_semantics() {
    let guard = |g: &str| {
        let src = format!(
            "const byte K = 8; byte x = 0, y = 3, a[2]; process P {{ state s, t; init s; trans s -> t {{ guard {g}; }}; }} system async;"
        );
        first_succ(&load(&src))
            .iter()
            .map(|(e, _)| *e)
            .collect::<Vec<bool>>()
    };
    let (disabled, enabled, error) = (vec![], vec![false], vec![true]);
    assert_eq!(guard("(K == 7) and a[y] == 0"), disabled, "never evaluated");
    assert_eq!(guard("(K == 8) and a[y] == 0"), error, "evaluated");
    assert_eq!(guard("(K == 8) or a[y] == 0"), enabled);
    assert_eq!(guard("(K == 7) or a[y] == 0"), error);
    assert_eq!(guard("(K == 7) imply a[y] == 0"), enabled);
    assert_eq!(guard("(K == 8) imply a[y] == 0"), error);
    assert_eq!(
        guard("a[y] == 0 and (K == 7)"),
        error,
        "left operand still evaluated"
    );
    assert_eq!(guard("10 / x > 1 or (K == 8)"), error);
    assert_eq!(guard("10 / x > 1 imply (K == 8)"), error);
    assert_eq!(guard("y == 3 and (K == 7)"), disabled);
    assert_eq!(guard("y == 0 or (K == 8)"), enabled);
    assert_eq!(guard("(K == 8) and y - 3"), disabled, "0 is not > 0");
    assert_eq!(guard("(K == 8) and 3 - y - 1"), disabled, "-1 is not > 0");
    assert_eq!(guard("(K == 8) and y"), enabled);
    assert_eq!(guard("(K == 7) or -1 + x"), disabled, "-1 is not > 0");
    assert_eq!(
        guard("y - 4 and 1"),
        enabled,
        "the left operand is tested with != 0"
    );
    assert_eq!(guard("y - 3 or 0"), disabled);
    assert_eq!(guard("y - 4 imply 0"), disabled);
    assert_eq!(guard("y - 3 imply 0"), enabled);
    assert_eq!(eval_init("8 == 8 and -3"), 0);
    assert_eq!(eval_init("-3 and 8 == 8"), 1);
}

// §8.2 corner case: an erroneous receiver guard flags the channel, making
// every sender on it enabled and erroneous, even one not in its source state.
#[test]
fn erroneous_receiver_flags_the_channel() {
    let src = "byte z; channel c;
        process S { state s0, s1; init s1; trans s0 -> s1 { sync c!; }; }
        process R { state r; init r; trans r -> r { guard 1 / z; sync c?; }; }
        system async;";
    let s = first_succ(&load(src));
    assert_eq!(s.len(), 1);
    assert!(s[0].0);
}

// Traps 9 and 10, §2 and §5: precedence and boolean operators.
#[test]
fn precedence_and_boolean_operators() {
    assert_eq!(eval_init("1 || 1 && 0"), 0, "and/or share one level, left-assoc");
    assert_eq!(eval_init("1 | 2 & 0"), 0, "bit operators share one level");
    assert_eq!(eval_init("not 1 + 1"), 1, "not binds tighter than +");
    assert_eq!(eval_init("3 > 2 > 1"), 0);
    assert_eq!(eval_init("1 + 2 * 3 - 4 / 2"), 5);
    assert_eq!(eval_init("1 and -1"), 0, "right operand tested with > 0");
    assert_eq!(eval_init("-1 and 1"), 1);
    assert_eq!(eval_init("0 or -1"), 0);
    assert_eq!(eval_init("0 imply 0"), 1);
    assert_eq!(eval_init("1 imply 0 imply 0"), 1, "imply is left-associative");
    assert_eq!(eval_init("-7 / 2"), -3, "division truncates toward zero");
    assert_eq!(eval_init("-7 % 2"), -1, "remainder has the sign of the dividend");
    assert_eq!(eval_init("1 << 3 >> 1"), 4);
    assert_eq!(eval_init("~0"), -1);
    assert_eq!(
        eval_init("6 ^ 3"),
        5,
        "^ is bitwise xor (unconfirmed in the reference)"
    );
    assert_eq!(eval_init("- - 3"), 3);
    assert_eq!(eval_init("true + true"), 2);
    assert_eq!(eval_init("1 == 1 != 0"), 1);
}

// Trap 11: `P.s` may name a process declared later.
#[test]
fn forward_state_references() {
    let src = "process A { state a, b; init a; trans a -> b { guard B.y; }; }
        process B { state x, y; init y; }
        system async;";
    assert_eq!(first_succ(&load(src)), vec![(false, "A=b, B=y".to_string())]);
}

// Trap 12: array initialiser lists are truncated or zero-padded.
#[test]
fn array_initialisers() {
    let m = load("byte a[2] = {1, 2, 3}, b[3] = {4}; int c[2] = {-5, 300}; process P { state s; init s; } system async;");
    assert_eq!(
        text(&m, &m.initial_vec()),
        "a[0]=1, a[1]=2, b[0]=4, b[1]=0, b[2]=0, c[0]=-5, c[1]=300, P=s"
    );
}

// Trap 13, §4: constants are free, control states take 2 bytes, ints 2.
#[test]
fn state_vector_layout() {
    let m = load("const byte K = 3; int c, x1, x2; process A { state q; init q; } process B { byte l; int m; state q; init q; } system async;");
    assert_eq!(m.state_len(), 3 * 2 + 2 + (2 + 1 + 2));
    // Initialisers may use constants and earlier initialised variables.
    let m = load("const byte K = 3; byte a = K + 2, b = a * 2; process P { state s; init s; } system async;");
    assert_eq!(text(&m, &m.initial_vec()), "a=5, b=10, P=s");
}

// Trap 14, §7.6: the property product.
#[test]
fn property_product() {
    // The property guard is evaluated on the pre-state.
    let src = "byte x;
        process P { state a; init a; trans a -> a { guard x < 1; effect x = x + 1; }; }
        process Prop { state q0, q1; init q0; accept q1; trans q0 -> q1 { guard x == 1; }, q0 -> q0 {}; }
        system async property Prop;";
    let m = load(src);
    assert_eq!(first_succ(&m), vec![(false, "x=1, P=a, Prop=q0".to_string())]);
    // In x=1 the system is deadlocked, so the property moves alone.
    let s1 = {
        let mut buf = SuccBuf::new(m.state_len());
        m.successors(&m.initial_vec(), &mut buf);
        buf.state(0).to_vec()
    };
    let next = succs(&m, &s1);
    assert_eq!(
        next,
        vec![
            (false, "x=1, P=a, Prop=q1".to_string()),
            (false, "x=1, P=a, Prop=q0".to_string())
        ]
    );
    assert!(m.info().is_accepting(&{
        let mut buf = SuccBuf::new(m.state_len());
        m.successors(&s1, &mut buf);
        buf.state(0).to_vec()
    }));
    // No enabled property transition: no successor at all.
    let src = "byte x;
        process P { state a; init a; trans a -> a { effect x = 1; }; }
        process Prop { state q0; init q0; trans q0 -> q0 { guard x == 7; }; }
        system async property Prop;";
    assert!(first_succ(&load(src)).is_empty());
}

// Trap 15, §7.7: successor order.
#[test]
fn successor_order() {
    let src = "channel c;
        process R { state r0, r1, r2; init r0; trans r0 -> r1 { sync c?; }, r0 -> r2 { sync c?; }; }
        process S { state s0, s1, s2; init s0; trans s0 -> s1 { sync c!; }, s0 -> s2 {}; }
        process T { state t0, t1; init t0; trans t0 -> t1 { sync c?; }; }
        system async;";
    let m = load(src);
    let mut buf = SuccBuf::new(m.state_len());
    m.successors(&m.initial_vec(), &mut buf);
    let labels: Vec<String> = buf
        .entries()
        .iter()
        .map(|e| m.info().label_text(&e.label))
        .collect();
    // S's local transition first (though declared after its send), then the
    // pairs of the send, by receiver process and receiver transition order.
    assert_eq!(
        labels,
        vec![
            "S: s0 -> s2",
            "S: s0 -> s1 c! | R: r0 -> r1 c?",
            "S: s0 -> s1 c! | R: r0 -> r2 c?",
            "S: s0 -> s1 c! | T: t0 -> t1 c?",
        ]
    );
    assert_eq!(buf.entry(0).label.partner, NONE);
}

// §3.3: value passing of untyped channels does not truncate.
#[test]
fn untyped_channel_value_out_of_range() {
    let src = "channel c;
        process S { state s; init s; trans s -> s { sync c!300; }; }
        process R { byte v; state r; init r; trans r -> r { sync c?v; }; }
        system async;";
    assert!(first_succ(&load(src))[0].0);
    // A typed synchronous channel truncates: 300 arrives as 44.
    let src = "channel {byte} c[0];
        process S { state s; init s; trans s -> s { sync c!300; }; }
        process R { byte v; state r; init r; trans r -> r { sync c?v; }; }
        system async;";
    assert_eq!(
        first_succ(&load(src)),
        vec![(false, "S=s, R=r, R.v=44".to_string())]
    );
}

// §7.4 (not in BEEM): buffered channels, effects before the channel operation.
#[test]
fn buffered_channels() {
    let src = "channel {byte, int} q[2];
        process S { byte n; state s; init s; trans s -> s { sync q!{n, -n}; effect n = n + 1; }; }
        process R { byte x; int y; state r; init r; trans r -> r { sync q?{x, y}; effect x = 9; }; }
        system async;";
    let m = load(src);
    let s = first_succ(&m);
    // The sent values are evaluated after S's effect (n = 1).
    assert_eq!(
        s,
        vec![(
            false,
            "q.len=1, q[0].0=1, q[0].1=-1, q[1].0=0, q[1].1=0, S=s, S.n=1, R=r, R.x=0, R.y=0".to_string()
        )]
    );
    let (states, _) = explore(&m);
    // n counts 0..=255 but is bounded by errors; the queue never exceeds 2.
    assert!(states.len() > 3);
    for st in &states {
        let t = text(&m, st);
        assert!(!t.contains("q.len=3"), "{t}");
    }
    // Receive: the effect sees the old x, then the front item is stored.
    let mut buf = SuccBuf::new(m.state_len());
    m.successors(&m.initial_vec(), &mut buf);
    let one = buf.state(0).to_vec();
    let after: Vec<_> = succs(&m, &one);
    assert!(
        after.contains(&(
            false,
            "q.len=0, q[0].0=0, q[0].1=0, q[1].0=0, q[1].1=0, S=s, S.n=1, R=r, R.x=1, R.y=-1".to_string()
        )),
        "{after:?}"
    );
}

// §7.5 (not in BEEM): committed states restrict who may move.
#[test]
fn committed_states() {
    let src = "byte x;
        process A { state a0, a1, a2; init a0; commit a1; trans a0 -> a1 {}, a1 -> a2 {}; }
        process B { state b0, b1; init b0; trans b0 -> b1 { effect x = 1; }; }
        system async;";
    let m = load(src);
    let s = first_succ(&m);
    assert_eq!(s.len(), 2);
    let mut buf = SuccBuf::new(m.state_len());
    m.successors(&m.initial_vec(), &mut buf);
    // In A=a1 (committed) only A may move.
    let next = succs(&m, buf.state(0));
    assert_eq!(next, vec![(false, "x=0, A=a2, B=b0".to_string())]);
}

// Arrays named without an index stand for element 0 (BEEM's train-gate).
#[test]
fn array_without_index_is_element_zero() {
    let m = load("byte e[2]; process P { state s, t; init s; trans s -> t { guard e == 0; effect e = 3; }; } system async;");
    assert_eq!(first_succ(&m), vec![(false, "e[0]=3, e[1]=0, P=t".to_string())]);
}

// Deadlocks are ordinary states without successors (§7.8).
#[test]
fn deadlock_has_no_successors() {
    let m = load("process P { state a, b; init a; trans a -> b {}; } system async;");
    let (states, edges) = explore(&m);
    assert_eq!((states.len(), edges), (2, 1));
    assert!(succs(&m, &states[1]).is_empty());
}

// §7.9 (not in BEEM): `system sync` combines one transition per process.
#[test]
fn synchronous_system() {
    let src = "byte x, y;
        process A { state a; init a; trans a -> a { guard x < 2; effect x = x + 1; }, a -> a { effect x = 0; }; }
        process B { state b; init b; trans b -> b { guard y < 1; effect y = y + 1; }; }
        system sync;";
    let m = load(src);
    // Process 0's choice changes fastest.
    assert_eq!(
        first_succ(&m),
        vec![
            (false, "x=1, y=1, A=a, B=b".to_string()),
            (false, "x=0, y=1, A=a, B=b".to_string())
        ]
    );
    // In y=1, B has no enabled transition: no successors at all.
    let mut buf = SuccBuf::new(m.state_len());
    m.successors(&m.initial_vec(), &mut buf);
    assert!(succs(&m, buf.state(0)).is_empty());
}

// §7.9: chosen transitions that write the same global give the error state;
// the others compose (each process's part, the globals each writes).
#[test]
fn synchronous_system_write_conflict_is_an_error() {
    let src = "byte x, y;
        process A { state a; init a; trans a -> a { effect x = 1; }, a -> a { effect y = 3; }; }
        process B { state b; init b; trans b -> b { effect x = 2; }; }
        system sync;";
    let m = load(src);
    let s = first_succ(&m);
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(s[0].0, "A and B both write x: {s:?}");
    assert_eq!(s[1], (false, "x=2, y=3, A=a, B=b".to_string()));
}

// DiVinE numbers processes by first mention: a `P.s` naming a later process
// gives it the next number, which orders successors (BEEM's brp2 DFS figures
// depend on it).
#[test]
fn processes_are_numbered_by_first_mention() {
    let src = "process A { state a, b; init a; trans a -> b { guard C.c0; }; }
        process B { state b0, b1; init b0; trans b0 -> b1 {}; }
        process C { state c0, c1; init c0; trans c0 -> c1 {}; }
        system async;";
    let m = load(src);
    let mut buf = SuccBuf::new(m.state_len());
    m.successors(&m.initial_vec(), &mut buf);
    let labels: Vec<String> = buf
        .entries()
        .iter()
        .map(|e| m.info().label_text(&e.label))
        .collect();
    assert_eq!(labels, vec!["A: a -> b", "C: c0 -> c1", "B: b0 -> b1"]);
    assert_eq!(text(&m, &m.initial_vec()), "A=a, C=c0, B=b0");
}
