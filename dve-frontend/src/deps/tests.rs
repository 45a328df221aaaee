//! Exact sets on small hand-written models.

use super::*;

fn deps(src: &str) -> (Model, Deps) {
    let m = crate::load_str("t.dve", src).unwrap();
    let d = Deps::new(&m);
    (m, d)
}

/// Read, may-write and must-write sets.
fn rw(g: &Group) -> (Set, Set, Set) {
    (g.reads.clone(), g.may_write.clone(), g.must_write.clone())
}

fn guard(d: &Deps, c: usize) -> String {
    match &d.conjuncts[c].kind {
        ConjunctKind::Guard(_, t) => format!("guard {t:?}"),
        k => format!("{k:?}"),
    }
}

/// Slots: x 0, a[0] 1, a[1] 2, P 3, P.i 4, Q 5, Q.y 6.
const RENDEZVOUS: &str = "byte x, a[2]; channel c;
process P { byte i; state p0, p1; init p0;
  trans p0 -> p1 { guard x < 5 && i == 0; effect x = x + 1, a[1] = 2; },
        p1 -> p0 { sync c!x; }; }
process Q { byte y; state q0, q1; init q0;
  trans q0 -> q1 { sync c?y; },
        q1 -> q0 { effect a[y] = 1; }; }
system async;";

#[test]
fn groups_and_their_read_and_write_sets() {
    let (_, d) = deps(RENDEZVOUS);
    let kinds: Vec<_> = d.groups.iter().map(|g| g.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            GroupKind::Single(0),
            GroupKind::Rendezvous(1, 2),
            GroupKind::Single(3)
        ]
    );
    let sets: Vec<_> = d.groups.iter().map(|g| (rw(g), g.may_err)).collect();
    assert_eq!(
        sets,
        [
            ((vec![0, 3, 4], vec![0, 2, 3], vec![0, 2, 3]), false),
            ((vec![0, 3, 5], vec![3, 5, 6], vec![3, 5, 6]), false),
            // y receives x, up to 5: `a[y]` may be out of bounds.
            ((vec![5, 6], vec![1, 2, 5], vec![5]), true),
        ]
    );
    assert!(d.irreducible.is_none());
}

#[test]
fn conjuncts_with_enabling_and_disabling_sets() {
    let (_, d) = deps(RENDEZVOUS);
    let conj: Vec<_> = d.groups.iter().map(|g| g.conjuncts.clone()).collect();
    assert_eq!(conj, [vec![0, 1, 2], vec![3, 4], vec![5]]);
    assert_eq!(
        d.conjuncts[0].kind,
        ConjunctKind::Control { process: 0, state: 0 }
    );
    assert_eq!(guard(&d, 1), "guard NonZero");
    assert_eq!(guard(&d, 2), "guard Positive");
    let table: Vec<_> = d
        .conjuncts
        .iter()
        .map(|c| (c.reads.clone(), c.enabling.clone(), c.disabling.clone()))
        .collect();
    assert_eq!(
        table,
        [
            (vec![3], vec![1], vec![0]), // P in p0
            (vec![0], vec![0], vec![0]), // x < 5
            (vec![4], vec![], vec![]),   // i == 0: nothing writes i
            (vec![3], vec![0], vec![1]), // P in p1
            (vec![5], vec![2], vec![1]), // Q in q0
            (vec![5], vec![1], vec![2]), // Q in q1
        ]
    );
    assert!(!d.may_be_coenabled(0, 3));
    assert!(d.may_be_coenabled(0, 4));
    assert!(!d.groups_may_be_coenabled(0, 1));
    assert!(d.groups_may_be_coenabled(0, 2));
    assert!(d.dependent(0, 1) && d.dependent(2, 0) && d.dependent(1, 2));
}

#[test]
fn conjuncts_evaluate_on_states() {
    let (m, d) = deps(RENDEZVOUS);
    let s = m.initial.clone();
    let truth: Vec<_> = (0..d.conjuncts.len()).map(|c| d.holds(c, &s)).collect();
    assert_eq!(
        truth,
        [
            Some(true),
            Some(true),
            Some(true),
            Some(false),
            Some(true),
            Some(false)
        ]
    );
}

/// Slots: b 0, q.len 1, q[0].0 2, S 3, R 4, R.v 5.
const BUFFERED_COMMITTED: &str = "byte b; channel {byte} q[1];
process S { state s0, s1; init s0; commit s1;
  trans s0 -> s1 { sync q!1; }, s1 -> s0 { effect b = 1; }; }
process R { byte v; state r0; init r0;
  trans r0 -> r0 { sync q?v; }; }
system async;";

#[test]
fn buffers_and_committed_states() {
    let (m, d) = deps(BUFFERED_COMMITTED);
    let sets: Vec<_> = d.groups.iter().map(|g| (rw(g), g.conjuncts.clone())).collect();
    assert_eq!(
        sets,
        [
            ((vec![1, 2, 3], vec![1, 2, 3], vec![1, 3]), vec![0, 1, 2]),
            ((vec![3], vec![0, 3], vec![0, 3]), vec![3]),
            ((vec![1, 2, 3, 4], vec![1, 2, 4, 5], vec![1, 4, 5]), vec![4, 5, 6]),
        ]
    );
    let kinds: Vec<_> = d.conjuncts.iter().map(|c| c.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            ConjunctKind::Control { process: 0, state: 0 },
            ConjunctKind::BufferNotFull { channel: 0 },
            ConjunctKind::NoneCommitted { movers: vec![0] },
            ConjunctKind::Control { process: 0, state: 1 },
            ConjunctKind::Control { process: 1, state: 0 },
            ConjunctKind::BufferNotEmpty { channel: 0 },
            ConjunctKind::NoneCommitted { movers: vec![1] },
        ]
    );
    let nes: Vec<_> = d
        .conjuncts
        .iter()
        .map(|c| (c.enabling.clone(), c.disabling.clone()))
        .collect();
    assert_eq!(
        nes,
        [
            (vec![1], vec![0]),
            (vec![2], vec![0]),
            (vec![0, 1], vec![0, 1]),
            (vec![0], vec![1]),
            (vec![], vec![]),
            (vec![0], vec![2]),
            (vec![0, 1], vec![0, 1]),
        ]
    );
    assert!(d.groups.iter().all(|g| !g.may_err));
    // Only S may move while it is committed.
    assert!(!d.may_be_coenabled(3, 6));
    assert!(d.may_be_coenabled(3, 2));
    assert!(!d.groups_may_be_coenabled(1, 2));
    // With S committed, R may not move.
    let mut s = m.initial.clone();
    s[m.processes[0].state_offset] = 1;
    assert_eq!(d.holds(6, &s), Some(false));
    assert_eq!(d.holds(6, &m.initial), Some(true));
}

#[test]
fn property_process_forms_no_group() {
    let (m, d) = deps(
        "byte x; process P { state a; init a; trans a -> a { guard x < 3; effect x = x + 1; }; }
         process N { state n; init n; accept n; trans n -> n { guard x == 3; }; }
         system async property N;",
    );
    assert_eq!(m.transitions.len(), 2);
    assert_eq!(d.groups.len(), 1);
    assert_eq!((d.property, d.irreducible.as_deref()), (Some(1), None));
}

#[test]
fn a_receiver_guard_that_may_err_makes_the_model_irreducible() {
    let (_, d) = deps(
        "byte a[2], i; channel c;
         process P { state p; init p; trans p -> p { sync c!5; }; }
         process Q { state q; init q; trans q -> q { guard a[i] == 0; sync c?i; }; }
         system async;",
    );
    assert!(d.irreducible.as_deref().unwrap().contains("§8.2"));
}

#[test]
fn what_a_step_leaves_of_a_guard_and_exclusive_guards() {
    let (_, d) = deps(
        "byte x;
         process P { state a; init a; trans a -> a { guard x < 3; }, a -> a { guard x == 5; }; }
         process Q { state q; init q; trans q -> q { effect x = 5; }, q -> q { effect x = 0; }; }
         system async;",
    );
    // Conjuncts: P in a, x < 3, x == 5, Q in q.
    assert_eq!(guard(&d, 1), "guard NonZero");
    let c = &d.conjuncts[1];
    assert_eq!((c.enabling.clone(), c.disabling.clone()), (vec![3], vec![2]));
    let c = &d.conjuncts[2];
    assert_eq!((c.enabling.clone(), c.disabling.clone()), (vec![2], vec![3]));
    assert!(!d.may_be_coenabled(1, 2));
    assert!(!d.groups_may_be_coenabled(0, 1));
    // `x = 5` may disable `x < 3`; both write x.
    assert!(d.dependent(0, 2) && d.dependent(2, 3));
}

#[test]
fn a_count_of_processes_inside_cannot_underflow() {
    let inside = |extra: &str| {
        format!(
            "byte count;
             process P {{ state out, inside; init out;
               trans out -> inside {{ guard count < 5; effect count = count + 1; }},
                     inside -> out {{ effect count = count - 1; }}; }}
             process Q {{ state out, inside; init out;
               trans out -> inside {{ guard count < 5; effect count = count + 1; }},
                     inside -> out {{ effect count = count - 1; }}{extra}; }}
             system async;"
        )
    };
    let (_, d) = deps(&inside(""));
    assert!(d.groups.iter().all(|g| !g.may_err));
    // A step that leaves without having entered can underflow, and then
    // Q's path sums are unbounded below: every `count - 1` may err.
    let (_, d) = deps(&inside(", out -> out { effect count = count - 1; }"));
    assert_eq!(d.groups.iter().filter(|g| g.may_err).count(), 3);
}

#[test]
fn a_count_stays_bounded_where_another_variable_may_overflow() {
    let model = |init: u8| {
        format!(
            "byte count = {init}; byte x;
             process R {{ state r; init r; trans r -> r {{ effect x = x + 1; }}; }}
             process P {{ state out, inside; init out;
               trans out -> inside {{ guard count < 5; effect count = count + 1; }},
                     inside -> out {{ effect count = count - 1; }}; }}
             system async;"
        )
    };
    let may_err = |d: &Deps| -> Vec<bool> { d.groups.iter().map(|g| g.may_err).collect() };
    // `x` overflows; after that error P starts again from `out` with count
    // 0, and `count - 1` still follows a `count + 1`.
    let (_, d) = deps(&model(0));
    assert_eq!(may_err(&d), [true, false, false]);
    // Counting from 1, `count - 1` in `inside` cannot underflow before the
    // first error, but after it the count starts again from 0: P at `out`,
    // count 0, enters (1) and leaves (0); and from `inside`, which only a
    // run before the error reaches with count 2, count may be 1 or 2. The
    // count is never below 0 in `inside`: still no error.
    let (_, d) = deps(&model(1));
    assert_eq!(may_err(&d), [true, false, false]);
}

#[test]
fn a_count_that_restarts_at_zero_after_an_error_may_underflow() {
    // P leaves first: from 1, `count - 1` cannot underflow before an error;
    // after `x` overflows the count is 0 with P in `inside`, its first
    // declared state, and the step errs.
    let (_, d) = deps(
        "byte count = 1; byte x;
         process R { state r; init r; trans r -> r { effect x = x + 1; }; }
         process P { state inside, out; init inside;
           trans inside -> out { effect count = count - 1; },
                 out -> inside { effect count = count + 1; }; }
         system async;",
    );
    let may_err: Vec<bool> = d.groups.iter().map(|g| g.may_err).collect();
    assert_eq!(may_err, [true, true, false]);
    // With no error elsewhere the count is 1 in `inside`, 0 in `out`.
    let (_, d) = deps(
        "byte count = 1;
         process P { state inside, out; init inside;
           trans inside -> out { effect count = count - 1; },
                 out -> inside { effect count = count + 1; }; }
         system async;",
    );
    assert!(d.groups.iter().all(|g| !g.may_err));
}

#[test]
fn a_guard_on_a_quotient_and_a_remainder_bounds_an_index() {
    let (_, d) = deps(
        "byte a[2]; channel c;
         process P { byte cmd; state s, got, set; init s;
           trans s -> got { sync c?cmd; },
                 got -> set { guard cmd / 16 == 0 && cmd % 16 == 1; },
                 set -> s { effect a[cmd % 16] = 1; }; }
         process Q { state s; init s; trans s -> s { sync c!17; }, s -> s { sync c!1; }; }
         system async;",
    );
    assert!(d.groups.iter().all(|g| !g.may_err));
}
