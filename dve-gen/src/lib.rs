//! Generated DVE models for differential testing: processes with local
//! and global `byte` and `int` variables and arrays (indexed by
//! expressions), constants, rendezvous and buffered channels of several
//! sizes and value counts, committed states, assertions, a property
//! process with accepting states now and then, and guards and effects
//! that may divide by zero, index out of range or store a value out of
//! its type's range (so the error state is reachable in some models).
//! Each model comes with a reachability goal and an LTL formula (without
//! next-time) over generated atoms.
//!
//! The models are proptest strategies ([`strategy`]): a seed gives one
//! model ([`generate`]) through proptest's deterministic ChaCha RNG, and
//! a model some check fails on shrinks ([`shrink`]) by proptest's own
//! simplification, to a model of a few lines. Names are resolved when a
//! model is lowered (`spec`), so every model, shrunk or not, parses and
//! passes the front end's checks.

pub mod model;
pub mod spec;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

pub use model::Model;

/// One generated model and what the oracles check on it.
#[derive(Clone, Debug)]
pub struct Generated {
    pub model: Model,
    /// The model's DVE text.
    pub text: String,
    /// A reachability goal (a DVE expression over globals and control
    /// states).
    pub goal: String,
    /// An LTL formula without `X` over atoms like the goal.
    pub ltl: String,
}

impl Generated {
    fn new(raw: &spec::RModel) -> Generated {
        let l = spec::lower(raw);
        Generated {
            text: l.model.to_string(),
            model: l.model,
            goal: l.goal,
            ltl: l.ltl,
        }
    }

    /// What the model uses, for the fuzz driver's coverage counts.
    pub fn features(&self) -> Features {
        let m = &self.model;
        let procs = || m.processes.iter();
        let trans = || procs().flat_map(|p| p.trans.iter());
        Features {
            arrays: m
                .globals
                .iter()
                .chain(procs().flat_map(|p| p.locals.iter()))
                .any(|v| v.len.is_some()),
            buffered: m
                .channels
                .iter()
                .any(|c| c.typed.as_ref().is_some_and(|t| t.1 > 0)),
            rendezvous: m
                .channels
                .iter()
                .any(|c| c.typed.as_ref().is_none_or(|t| t.1 == 0))
                && trans().any(|t| t.sync.is_some()),
            committed: procs().any(|p| !p.commit.is_empty()),
            asserts: procs().any(|p| !p.asserts.is_empty()),
            property: m.has_property,
        }
    }
}

/// Which features a model has.
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    pub arrays: bool,
    pub buffered: bool,
    pub rendezvous: bool,
    pub committed: bool,
    pub asserts: bool,
    pub property: bool,
}

/// The strategy every generated model comes from.
pub fn strategy() -> impl Strategy<Value = spec::RModel> {
    spec::model()
}

fn runner(seed: u64) -> TestRunner {
    // ChaCha wants 32 bytes: the seed and three more words from it.
    let mut bytes = [0u8; 32];
    let mut x = seed;
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&x.to_le_bytes());
        x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1);
    }
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// The model of `seed` (the same for the same seed, on every machine).
pub fn generate(seed: u64) -> Generated {
    let tree = strategy()
        .new_tree(&mut runner(seed))
        .expect("the strategy has no filters");
    Generated::new(&tree.current())
}

/// The model of `seed` shrunk while `fails` holds of it (at most
/// `max_steps` candidates tried), and the number of candidates tried.
/// `fails` should hold of the model of `seed` itself.
pub fn shrink(seed: u64, max_steps: usize, mut fails: impl FnMut(&Generated) -> bool) -> (Generated, usize) {
    let mut tree = strategy()
        .new_tree(&mut runner(seed))
        .expect("the strategy has no filters");
    let mut best = Generated::new(&tree.current());
    let mut steps = 0;
    if tree.simplify() {
        while steps < max_steps {
            steps += 1;
            let g = Generated::new(&tree.current());
            if fails(&g) {
                best = g;
                if !tree.simplify() {
                    break;
                }
            } else if !tree.complicate() {
                break;
            }
        }
    }
    (best, steps)
}
