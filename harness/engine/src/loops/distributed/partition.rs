//! Which rank owns a state: a hash of some of its bytes, chosen so that
//! most transitions leave them unchanged.
//!
//! A hash of the whole state sends about `1 - 1/ranks` of the successors to
//! another rank, and it scatters the two paths of every diamond (`s -> a ->
//! c`, `s -> b -> c`, two processes moving in either order) over the ranks,
//! so that `c`, met twice, is met twice cold. Hashing only bytes that most
//! transitions do not write keeps most successors with their source and
//! most diamonds on one rank (Lerda and Sisto's distributed SPIN hashed one
//! process's state for the same reason). The bytes are chosen from a sample
//! of the state space, a breadth-first prefix and random walks from a fixed
//! seed ([`Partition::choose`], the same on every rank): bytes in the order
//! of how seldom the sample's transitions write them, until the sample's
//! states take enough distinct values on them and spread evenly over the
//! ranks; where that needs every byte, or bytes that most transitions
//! write, the whole state is hashed. The sample foretells the spread, it
//! does not guarantee it.

use dve_frontend::model::{NextState, SuccBuf};
use rustc_hash::FxHashSet;

use crate::comm::owner;

/// States the sample explores.
const SAMPLE: usize = 1 << 14;

/// Distinct values per rank the chosen bytes must take in the sample.
const SPREAD: usize = 64;

/// The share of the sample's transitions that may write a chosen byte
/// (above it, the whole state is hashed).
const MAX_MOVED: f64 = 0.8;

/// The most states a rank may own in the sample beyond an even share: a
/// tenth of it, or four standard deviations of a perfect hash's count
/// where that is more (many ranks, a small share each).
const MAX_EXCESS: f64 = 0.1;

/// The bytes of a state that decide its owner (all of them: its
/// fingerprint).
#[derive(Clone, Debug)]
pub struct Partition {
    bytes: Option<Vec<u32>>,
}

impl Partition {
    /// The whole state, by its fingerprint.
    pub fn whole() -> Partition {
        Partition { bytes: None }
    }

    /// The rank of `ranks` that owns state `s` of fingerprint `fp`.
    #[inline]
    pub fn owner(&self, fp: u64, s: &[u8], ranks: usize) -> usize {
        match &self.bytes {
            None => owner(fp, ranks),
            Some(bytes) => owner(hash(bytes.iter().map(|&b| s[b as usize])), ranks),
        }
    }

    /// The partition for `ranks` ranks, from a sample of `model`
    /// (deterministic: every rank chooses the same).
    pub fn choose(model: &dyn NextState, ranks: usize) -> Partition {
        if ranks <= 1 {
            return Partition::whole();
        }
        let (states, written, transitions) = sample(model);
        if transitions == 0 {
            return Partition::whole();
        }
        let len = model.state_len();
        // Bytes the sample's transitions write, most seldom first (a byte
        // never written is the same in every state: it tells none apart).
        let mut order: Vec<usize> = (0..len).filter(|&b| written[b] > 0).collect();
        order.sort_by_key(|&b| (written[b], b));
        let need = (SPREAD * ranks).min(states.len());
        // Each state's hash of the bytes chosen so far, in the order chosen
        // (the order `owner` reads them in).
        let mut hashes = vec![SEED; states.len()];
        let mut distinct = FxHashSet::default();
        let mut count = vec![0usize; ranks];
        let mut chosen = Vec::new();
        for &b in &order {
            for (h, s) in hashes.iter_mut().zip(&states) {
                *h = mix(*h, s[b]);
            }
            chosen.push(b as u32);
            distinct.clear();
            distinct.extend(hashes.iter().copied());
            if distinct.len() < need {
                continue;
            }
            count.fill(0);
            for &h in &hashes {
                count[owner(finish(h), ranks)] += 1;
            }
            let even = states.len() as f64 / ranks as f64;
            let most = *count.iter().max().expect("ranks > 1") as f64;
            if most <= even + (MAX_EXCESS * even).max(4.0 * even.sqrt()) {
                break;
            }
        }
        if chosen.len() == order.len() || moved_share(model, &states, &chosen, transitions) > MAX_MOVED {
            return Partition::whole();
        }
        Partition { bytes: Some(chosen) }
    }
}

const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

fn mix(h: u64, byte: u8) -> u64 {
    (h ^ byte as u64)
        .wrapping_mul(0x0000_0100_0000_01B3)
        .rotate_left(23)
}

/// A hash of `bytes` whose low 32 bits [`owner`] reads.
fn hash(bytes: impl Iterator<Item = u8>) -> u64 {
    finish(bytes.fold(SEED, mix))
}

/// The last mixing of [`hash`], so that its low bits depend on every byte.
fn finish(h: u64) -> u64 {
    let h = (h ^ (h >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^ (h >> 29)
}

/// Random walks from the initial state, and their steps each.
const WALKS: usize = 32;
const WALK: usize = 1024;

/// The first [`SAMPLE`] states of a breadth-first search of `model` and
/// the states of [`WALKS`] random walks (a fixed seed) that reach deeper,
/// how many transitions out of them write each byte, and their
/// transitions.
fn sample(model: &dyn NextState) -> (Vec<Vec<u8>>, Vec<u64>, u64) {
    let len = model.state_len();
    let init = model.initial_vec();
    let mut seen: FxHashSet<Vec<u8>> = FxHashSet::default();
    seen.insert(init.clone());
    let mut states = vec![init];
    let mut written = vec![0u64; len];
    let mut transitions = 0;
    let mut buf = SuccBuf::new(len);
    let mut count = |s: &[u8], buf: &SuccBuf, transitions: &mut u64| {
        for i in 0..buf.len() {
            let t = buf.state(i);
            *transitions += 1;
            for b in 0..len {
                if t[b] != s[b] {
                    written[b] += 1;
                }
            }
        }
    };
    // Breadth-first: `states` is the queue.
    let mut next = 0;
    while next < states.len() {
        let s = states[next].clone();
        next += 1;
        model.successors(&s, &mut buf);
        count(&s, &buf, &mut transitions);
        for i in 0..buf.len() {
            let t = buf.state(i);
            if states.len() < SAMPLE && seen.insert(t.to_vec()) {
                states.push(t.to_vec());
            }
        }
    }
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..WALKS {
        let mut s = model.initial_vec();
        // Each state of the walk is expanded once: to be counted if new,
        // and to take the next step.
        for step in 0..=WALK {
            model.successors(&s, &mut buf);
            if step > 0 && seen.insert(s.clone()) {
                count(&s, &buf, &mut transitions);
                states.push(s.clone());
            }
            if step == WALK || buf.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            s = buf.state((rng % buf.len() as u64) as usize).to_vec();
        }
    }
    (states, written, transitions)
}

/// The share of the transitions out of `states` that write a byte of
/// `chosen` (so go to another rank's hash).
fn moved_share(model: &dyn NextState, states: &[Vec<u8>], chosen: &[u32], transitions: u64) -> f64 {
    let mut buf = SuccBuf::new(model.state_len());
    let mut moved = 0u64;
    for s in states {
        model.successors(s, &mut buf);
        for i in 0..buf.len() {
            let t = buf.state(i);
            if chosen.iter().any(|&b| t[b as usize] != s[b as usize]) {
                moved += 1;
            }
        }
    }
    moved as f64 / transitions.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use dve_frontend::interp::Interpreter;

    fn model(src: &str) -> Box<dyn NextState> {
        Box::new(Interpreter::new(dve_frontend::load_str("t.dve", src).unwrap()))
    }

    /// Three counters, each written by one process only.
    const COUNTERS: &str = "byte a; byte b; byte c;
        process P { state s; init s; trans s -> s { guard a < 200; effect a = a + 1; }; }
        process Q { state s; init s; trans s -> s { guard b < 200; effect b = b + 1; }; }
        process R { state s; init s; trans s -> s { guard c < 200; effect c = c + 1; }; }
        system async;";

    #[test]
    fn independent_counters_hash_fewer_than_all_of_them_the_same_on_every_call() {
        let m = model(COUNTERS);
        let p = Partition::choose(m.as_ref(), 2);
        let bytes = p.bytes.clone().expect("a part of the state");
        assert!(!bytes.is_empty() && bytes.len() < 3, "{bytes:?}");
        assert_eq!(Partition::choose(m.as_ref(), 2).bytes, p.bytes);
        // The states a transition leaves the chosen bytes alone in keep
        // their owner.
        let init = m.initial_vec();
        let mut buf = SuccBuf::new(m.state_len());
        m.successors(&init, &mut buf);
        let stays = (0..buf.len())
            .filter(|&i| p.owner(0, buf.state(i), 2) == p.owner(0, &init, 2))
            .count();
        assert!(stays >= 2, "{stays} of 3 successors stay");
    }

    #[test]
    fn one_rank_a_deadlock_or_one_byte_for_everything_hash_the_whole_state() {
        assert!(Partition::choose(model(COUNTERS).as_ref(), 1).bytes.is_none());
        let stuck =
            model("byte x; process P { state s; init s; trans s -> s { guard x > 0; }; } system async;");
        assert!(Partition::choose(stuck.as_ref(), 2).bytes.is_none());
        // Every transition writes the one byte that varies.
        let one =
            model("byte x; process P { state s; init s; trans s -> s { effect x = x + 1; }; } system async;");
        assert!(Partition::choose(one.as_ref(), 2).bytes.is_none());
    }
}
