//! Differential tests: the JIT against the reference interpreter.
//!
//! * Every BEEM file: breadth-first exploration (with the interpreter) of
//!   up to `STATE_LIMIT` states; for each state the full successor lists
//!   (labels, error flags, state bytes, in order) and the fingerprint must
//!   be identical.
//! * Handwritten models using every operator, arrays indexed out of range,
//!   division by zero, byte overflow, typed / buffered channels, committed
//!   states and a property process: compared on many random state vectors
//!   so that the error paths run.

use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use dve_frontend::interp::Interpreter;
use dve_frontend::ir::Model;
use dve_frontend::model::{NextState, SlotKind, SuccBuf};
use jit::differential::{compare_file, compare_state, Verdict};

const STATE_LIMIT: usize = 20_000;

fn beem_dir() -> PathBuf {
    match std::env::var_os("BEEM_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/beem"),
    }
}

fn check_file(path: &std::path::Path) -> (Verdict, usize, Duration) {
    let c = compare_file(path, STATE_LIMIT);
    (c.verdict, c.states as usize, c.compile_time)
}

#[test]
fn beem_differential() {
    let dir = beem_dir().join("dve");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "dve"))
            .collect(),
        Err(e) => panic!(
            "BEEM models not found at {} ({e}); set BEEM_DIR to the BEEM directory (the one containing dve/)",
            dir.display()
        ),
    };
    files.sort();
    assert!(!files.is_empty(), "no .dve files in {}", dir.display());
    // Largest files first for better load balance.
    files.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));

    let next = AtomicUsize::new(0);
    type Checked = (String, (Verdict, usize, Duration));
    let results: Mutex<Vec<Checked>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 2);
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = files.get(i) else { break };
                let r = check_file(p);
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                results.lock().unwrap().push((name, r));
            });
        }
    });
    let results = results.into_inner().unwrap();

    let mut compiled = 0;
    let mut states = 0usize;
    let mut times = Vec::new();
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    for (name, r) in &results {
        match r {
            (Verdict::Same { .. }, n, compile) => {
                compiled += 1;
                states += n;
                times.push((*compile, name.clone()));
            }
            (Verdict::Unsupported(f), ..) => unsupported.push(format!("{name}: {f}")),
            (Verdict::LoadError(m) | Verdict::CompileError(m) | Verdict::Differs(m), ..) => {
                failures.push(m.clone())
            }
        }
    }
    times.sort();
    if let (Some(first), Some(last)) = (times.first(), times.last()) {
        let median = times[times.len() / 2].0;
        eprintln!(
            "compile time over {} files: min {:?}, median {median:?}, max {:?} ({})",
            times.len(),
            first.0,
            last.0,
            last.1
        );
    }
    eprintln!(
        "{} files: {compiled} compiled and compared on {states} states, {} declined, {} failed",
        results.len(),
        unsupported.len(),
        failures.len()
    );
    for u in &unsupported {
        eprintln!("declined: {u}");
    }
    for f in failures.iter().take(5) {
        eprintln!("{f}\n");
    }
    assert!(
        unsupported.is_empty(),
        "the JIT declined {} BEEM file(s): {unsupported:?}",
        unsupported.len()
    );
    assert!(
        failures.is_empty(),
        "{} file(s) failed (first ones printed above)",
        failures.len()
    );
    assert_eq!(compiled, files.len());
}

/// A small seeded PRNG (xorshift64*), enough for test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random state in the domain of every slot: variables within their type
/// (often small, so that guards and indices hit interesting values),
/// control states among the declared ones (sometimes process 0's error
/// marker), channel counts within the capacity.
fn random_state(model: &Model, interp: &Interpreter, rng: &mut Rng) -> Vec<u8> {
    let mut s = vec![0u8; model.state_len];
    if rng.below(50) == 0 {
        model.write_error_state(&mut s);
        return s;
    }
    for slot in &interp.info().slots {
        let v: i32 = match &slot.kind {
            SlotKind::ControlState { process } => {
                let n = model.processes[*process].states.len() as u64;
                let extra = u64::from(*process == 0 && rng.below(20) == 0);
                rng.below(n + extra) as i32
            }
            SlotKind::ChannelLength => 0, // set below
            _ => {
                let small = rng.below(5) != 0;
                match (slot.width, slot.signed, small) {
                    (1, _, true) => rng.below(6) as i32,
                    (1, _, false) => rng.below(256) as i32,
                    (_, true, true) => rng.below(12) as i32 - 6,
                    (_, true, false) => rng.below(65536) as i32 - 32768,
                    (_, false, _) => rng.below(65536) as i32,
                }
            }
        };
        let bytes = v.to_le_bytes();
        s[slot.offset..slot.offset + slot.width].copy_from_slice(&bytes[..slot.width]);
    }
    for ch in &model.channels {
        if let Some(b) = &ch.buffer {
            let n = rng.below(b.capacity as u64 + 1) as u16;
            s[b.offset..b.offset + 2].copy_from_slice(&n.to_le_bytes());
        }
    }
    s
}

/// Random states plus a bounded exploration from the initial state.
fn check_handwritten(name: &str, src: &str, samples: usize, seed: u64, coverage: bool) {
    let model = dve_frontend::load_str(name, src).unwrap_or_else(|e| panic!("{name} does not load:\n{e}"));
    let jit = jit::compile(&model).unwrap_or_else(|e| panic!("{name}: {e}"));
    let interp = Interpreter::new(model.clone());
    let len = interp.state_len();
    let (mut a, mut b) = (SuccBuf::new(len), SuccBuf::new(len));
    let mut rng = Rng(seed);
    let (mut errors, mut succs) = (0usize, 0usize);
    // Transitions seen in a successful / an erroneous step.
    let mut ok_seen = vec![false; model.transitions.len()];
    let mut err_seen = vec![false; model.transitions.len()];
    for _ in 0..samples {
        let s = random_state(&model, &interp, &mut rng);
        if let Err(msg) = compare_state(name, &interp, &jit, &s, &mut a, &mut b) {
            panic!("{msg}");
        }
        succs += a.len();
        errors += a.entries().iter().filter(|e| e.error).count();
        for e in a.entries() {
            for t in [e.label.trans, e.label.partner, e.label.prop] {
                if t != dve_frontend::model::NONE {
                    if e.error {
                        err_seen[t as usize] = true;
                    } else {
                        ok_seen[t as usize] = true;
                    }
                }
            }
        }
    }
    let never_ok: Vec<&str> = model
        .transitions
        .iter()
        .filter(|t| !ok_seen[t.id])
        .map(|t| t.text.as_str())
        .collect();
    let never_err: Vec<&str> = model
        .transitions
        .iter()
        .filter(|t| !err_seen[t.id])
        .map(|t| t.text.as_str())
        .collect();
    if coverage {
        assert!(
            never_ok.is_empty(),
            "{name}: transitions never taken without error: {never_ok:?}"
        );
        assert!(
            never_err.len() < model.transitions.len() / 4,
            "{name}: transitions never erroneous: {never_err:?}"
        );
    }
    // Reachable states too (bounded).
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([interp.initial_vec()]);
    seen.insert(interp.initial_vec());
    while let Some(s) = queue.pop_front() {
        if let Err(msg) = compare_state(name, &interp, &jit, &s, &mut a, &mut b) {
            panic!("{msg}");
        }
        succs += a.len();
        errors += a.entries().iter().filter(|e| e.error).count();
        for (_, t) in a.iter() {
            if seen.len() < 5_000 && seen.insert(t.to_vec()) {
                queue.push_back(t.to_vec());
            }
        }
    }
    eprintln!(
        "{name}: {samples} random + {} reachable states, {succs} successors, {errors} erroneous",
        seen.len()
    );
    if model.property.is_some() {
        check_held(name, &model, &jit, samples / 4, &mut rng);
    }
    assert!(
        errors > samples / 50,
        "{name}: the error paths were hardly exercised ({errors} errors)"
    );
    assert!(succs > samples, "{name}: too few successors ({succs})");
}

/// The system alone from the product's code (`JitModel::property_held`)
/// against the interpreter on `system_view`: random states, half of them
/// with the property in its initial state (the only one it has moves in).
fn check_held(name: &str, model: &Model, jit: &jit::JitModel, samples: usize, rng: &mut Rng) {
    let held = jit.property_held().expect("a model with a property process");
    let system = Interpreter::new(held.system().clone());
    let p = &model.processes[model.property.unwrap()];
    let (mut a, mut b) = (SuccBuf::new(model.state_len), SuccBuf::new(model.state_len));
    let (mut succs, mut errors) = (0, 0);
    for _ in 0..samples {
        let mut s = random_state(model, &system, rng);
        if rng.below(2) == 0 {
            s[p.state_offset..p.state_offset + 2].copy_from_slice(&p.init.to_le_bytes());
        }
        if let Err(msg) = compare_state(name, &system, &held, &s, &mut a, &mut b) {
            panic!("property held: {msg}");
        }
        succs += a.len();
        errors += a.entries().iter().filter(|e| e.error).count();
    }
    eprintln!("{name}, property held: {samples} random states, {succs} successors, {errors} erroneous");
    assert!(
        succs > samples && errors > 0,
        "{name}: the held property was hardly exercised"
    );
}

/// Globals, channels and two system processes shared by the handwritten
/// models: every operator, out-of-range indices, division and remainder by
/// zero, i32::MIN / -1, byte and int overflow, shifts by large counts,
/// typed and buffered channels, committed states, a rendezvous global-write
/// conflict and erroneous receive guards (§8.2).
const SYSTEM: &str = r#"
const byte K[3] = {5, 1, 2};
const int LIM = 1000;
byte b, arr[3];
int i, ia[2] = {-1, 7};
channel c, d;
channel {byte, int} t[0];
channel {byte} q[2];
channel {int, byte} q2[3];

process P1 {
  byte k;
  state s0, s1, s2, s3;
  init s0;
  commit s3;
  trans
    s0 -> s1 { guard b / i > 0 || arr[i] == 1; effect b = b + 1, arr[b] = i % 3, i = i << b, i = i >> 2; },
    s0 -> s2 { guard (i & 7) | (b ^ 3) != ~i; effect i = -i * 3, b = not b; },
    s1 -> s0 { guard i imply b; effect ia[b] = i - 1, k = k - 1; },
    s1 -> s1 { guard b <= 10 and i >= -5; sync c!b + 1; effect b = K[i]; },
    s2 -> s0 { sync t!{i * 300, b - 1}; },
    s0 -> s0 { guard k < 4; sync q!b * 2; effect k = k + 1; },
    s2 -> s2 { guard i < 100; sync q?arr[b]; effect i = i + 1; },
    s1 -> s3 { guard b > 1 && 10 % b == 0; effect b = b - 2; },
    s3 -> s0 { guard i - 1 < i; effect i = (i * 65536) / -1, k = i % k; },
    s3 -> s1 { sync q2!{i, k + 250}; effect k = k << 30; },
    s0 -> s3 { guard i > -3 and i < 0; sync d!; effect i = i * LIM; },
    s3 -> s3 { guard k > 2; sync d!; effect k = k - 1; };
}

process P2 {
  byte x;
  int y;
  state a, b2, c3;
  init a;
  commit c3;
  trans
    a -> b2 { guard y > 0; sync c?arr[x]; effect x = x + 1, i = 0; },
    a -> a { guard arr[x % 4] > 0; sync c?x; },
    b2 -> a { sync t?{y, arr[x]}; effect y = y * 1000; },
    b2 -> b2 { guard y != 0; effect x = 255 / y, y = y % (x - 3); },
    a -> c3 { guard x > 3; sync q?x; },
    c3 -> a { sync q2?{ia[x], x}; effect x = x + y; },
    c3 -> c3 { guard x < 2; sync d?; effect y = y - 30000, y = y + 29999; },
    b2 -> c3 { guard (-2147483647 - 1) / y != 0 or y >> x > 2; effect x = x - 1; },
    b2 -> b2 { sync d?; effect y = y + 1; };
}

process P3 {
  state p, r;
  init p;
  trans
    p -> p { guard b < 5; sync c!2; effect b = 7, i = 1; },
    p -> r { guard i % 2 == 0 && ia[i] != 3; sync d!; },
    r -> p { guard 1 and -1 or b == 3; effect i = i + 1; },
    r -> p { guard -1 and 1; effect i = i - 1, arr[i] = 1; },
    r -> r { guard b >= 250; effect b = b + 3; },
    p -> p { guard i >> 1 < 0 and ia[1] << 33 != 14; effect i = i >> 3, ia[0] = ia[1] << (b % 40), i = i / 2 >> 1; };
}
"#;

#[test]
fn handwritten_models_random_states() {
    let plain = format!("{SYSTEM}\nsystem async;\n");
    check_handwritten("ops.dve", &plain, 40_000, 0x1234_5678_9ABC_DEF1, true);

    let with_prop = format!(
        "{SYSTEM}
process Prop {{
  state q0, q1, q2;
  init q0;
  accept q1;
  commit q2;
  trans
    q0 -> q0 {{}},
    q0 -> q1 {{ guard 10 / b > 1; }},
    q1 -> q1 {{ guard P2->x < 200; }},
    q1 -> q0 {{ sync d?; }},
    q1 -> q2 {{ guard arr[P2->x] == 0; }},
    q2 -> q0 {{}};
}}
system async property Prop;
"
    );
    check_handwritten("ops_prop.dve", &with_prop, 40_000, 0x0F0F_1234_5555_9999, true);

    // A property that receives from its initial state, with a guard that
    // can err (§8.2): held, it receives nothing and errs nowhere.
    let receiving = format!(
        "{SYSTEM}
process Prop {{
  state q0, q1;
  init q0;
  accept q1;
  trans
    q0 -> q1 {{ guard 10 / b > 1; sync d?; }},
    q0 -> q0 {{ guard P2->x < 200; }},
    q1 -> q1 {{}};
}}
system async property Prop;
"
    );
    check_handwritten(
        "ops_prop_recv.dve",
        &receiving,
        20_000,
        0x5151_0042_7777_1357,
        false,
    );
}

#[test]
fn documentation_example_counts() {
    // The made-up model of docs/dve-language.md §2, whose reference counts
    // are known; explored with the JIT alone.
    let src = r#"
const byte LIMIT = 3;
byte level = 0, log[4] = {7, 7};
int  acc;
channel ping, data;
process Producer {
  byte k;
  state idle, busy;
  init idle;
  trans
    idle -> busy { guard level < LIMIT; effect k = (k + 1) % 4, level = level + 1; },
    busy -> idle { sync data!k * 2; };
}
process Consumer {
  byte got;
  state wait, use;
  init wait;
  trans
    wait -> use  { sync data?got; effect log[level] = got; },
    use  -> wait { guard Producer.idle or level > 1; effect acc = (acc + got) % 100, level = 0; };
}
process Prop {
  state q0, q1;
  init q0;
  accept q1;
  trans q0 -> q0 {}, q0 -> q1 { guard Consumer->got == 4; }, q1 -> q1 {};
}
system async property Prop;
"#;
    let model = dve_frontend::load_str("example.dve", src).unwrap();
    let jit = jit::compile(&model).unwrap();
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([jit.initial_vec()]);
    seen.insert(jit.initial_vec());
    let mut out = SuccBuf::new(jit.state_len());
    let mut edges = 0;
    while let Some(s) = queue.pop_front() {
        jit.successors(&s, &mut out);
        edges += out.len();
        for (_, t) in out.iter() {
            if seen.insert(t.to_vec()) {
                queue.push_back(t.to_vec());
            }
        }
    }
    assert_eq!((seen.len(), edges, jit.state_len()), (5802, 7877, 15));
}

#[test]
fn sync_system_random_states() {
    // §7.9: one transition per process, sync parts ignored, a conflict on
    // a global written by two chosen transitions, erroneous guards and
    // effects. Labels name the transitions of processes 0 and 1 only.
    let src = r#"
byte g, h, arr[2];
int w;
channel c;
process A {
  byte k;
  state a0, a1;
  init a0;
  trans
    a0 -> a1 { guard g < 5; effect g = g + 1, k = arr[k]; },
    a0 -> a0 { guard 10 / k > 1; effect h = h + 1; },
    a1 -> a0 { sync c!k; effect w = w * 200; },
    a1 -> a1 { effect k = k + 100; };
}
process B {
  byte m;
  state b0, b1;
  init b0;
  trans
    b0 -> b1 { sync c?m; effect g = 0; },
    b0 -> b0 { guard arr[m] == 0; effect m = m + 1; },
    b1 -> b0 { effect h = m, w = w - 1; },
    b1 -> b1 { guard m > 2; effect arr[m - 3] = 1; };
}
process C {
  state x;
  init x;
  trans x -> x {}, x -> x { guard g == 2; effect g = 3; };
}
system sync;
"#;
    check_handwritten("sync.dve", src, 20_000, 0xABCD_EF01_2345_6789, false);
}

#[test]
fn shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<jit::JitModel>();
    let src = "byte x, y; process P { state a; init a; trans a -> a { guard x < 200; effect x = x + 1; }; }
               process Q { state b; init b; trans b -> b { guard y < 200; effect y = y + 3; }; } system async;";
    let model = dve_frontend::load_str("threads.dve", src).unwrap();
    let jit = jit::compile(&model).unwrap();
    let interp = Interpreter::new(model);
    let counts: Vec<usize> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..2)
            .map(|_| {
                sc.spawn(|| {
                    let mut seen = HashSet::from([jit.initial_vec()]);
                    let mut queue = VecDeque::from([jit.initial_vec()]);
                    let mut out = SuccBuf::new(jit.state_len());
                    let mut check = SuccBuf::new(jit.state_len());
                    while let Some(s) = queue.pop_front() {
                        jit.successors(&s, &mut out);
                        interp.successors(&s, &mut check);
                        assert!(out.iter().eq(check.iter()));
                        for (_, t) in out.iter() {
                            if seen.insert(t.to_vec()) {
                                queue.push_back(t.to_vec());
                            }
                        }
                    }
                    seen.len()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // x in 0..=200, y in 0, 3, ..., 201.
    assert_eq!(counts, vec![201 * 68, 201 * 68]);
}
