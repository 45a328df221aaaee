//! Shorter lassos: the accepting cycle a depth-first search finds is read
//! off its stacks (nested DFS: the outer stack to the seed, then the inner
//! one back to the outer stack), which wander. Without a new search, the
//! lasso's own states give shortcuts: a transition from one of its states
//! to a later one (or, from the stem, to any state of the cycle). The
//! cycle becomes the fewest such steps from one of its accepting states
//! around to it again, and the stem the fewest from the initial state to
//! any state of that cycle, where the cycle then starts. Each step is a
//! transition of the model, so the result replays as the original did; it
//! is no longer than the original, and not in general a shortest lasso.

use std::collections::{HashMap, HashSet};

use dve_frontend::model::{NextState, SuccBuf};

use dvemc_engine::{Step, Trace};

/// `t` with shortcuts taken (`t` itself unless a lasso through an
/// accepting state).
pub fn shorten(model: &dyn NextState, t: &Trace) -> Trace {
    let Some((stem, cycle)) = t.lasso() else {
        return t.clone();
    };
    let ring: Vec<&[u8]> = (stem..stem + cycle).map(|i| t.state(i)).collect();
    let Some(a) = ring.iter().position(|s| model.info().is_accepting(s)) else {
        return t.clone();
    };
    let mut buf = SuccBuf::new(model.state_len());
    // Around from the accepting state back to it.
    let around: Vec<&[u8]> = (0..=cycle).map(|k| ring[(a + k) % cycle]).collect();
    let back: HashSet<&[u8]> = HashSet::from([around[0]]);
    let loop_steps = fewest_steps(model, &mut buf, &around, &back);
    // The stem, to any state of the new cycle.
    let on_cycle: Vec<&[u8]> = std::iter::once(around[0])
        .chain(loop_steps.iter().map(|s| &s.state[..]))
        .collect();
    let targets: HashSet<&[u8]> = on_cycle.iter().copied().collect();
    // The stem, then the old cycle on to its accepting state, which the new
    // cycle holds (the stem's last state may be one the new cycle skips).
    let stem_states: Vec<&[u8]> = (0..=stem)
        .map(|i| t.state(i))
        .chain(ring[1..=a].iter().copied())
        .collect();
    let stem_steps = if targets.contains(stem_states[0]) {
        Vec::new()
    } else {
        fewest_steps(model, &mut buf, &stem_states, &targets)
    };
    let entry: &[u8] = stem_steps.last().map_or(&t.initial, |s| &s.state);
    // The cycle rotated to start at the stem's end.
    let r = on_cycle
        .iter()
        .position(|s| *s == entry)
        .expect("the stem ends on the cycle")
        % loop_steps.len();
    let mut steps = stem_steps;
    let start = steps.len();
    steps.extend(loop_steps[r..].iter().chain(&loop_steps[..r]).cloned());
    Trace {
        initial: t.initial.clone(),
        steps,
        cycle_start: Some(start),
    }
}

/// The fewest steps from `path[0]` to a state of `targets`, each a
/// transition from a state of `path` to a later one of it (by position)
/// or to a target. `path`'s consecutive states are transitions, the last
/// one a target, so there is a way.
fn fewest_steps(
    model: &dyn NextState,
    buf: &mut SuccBuf,
    path: &[&[u8]],
    targets: &HashSet<&[u8]>,
) -> Vec<Step> {
    let m = path.len() - 1;
    let pos: HashMap<&[u8], usize> = (1..m).map(|i| (path[i], i)).collect();
    // Per position: the fewest steps to a target, the first of them, and
    // the position it leads to (`m` for a target).
    let mut best: Vec<(usize, Option<Step>, usize)> = vec![(usize::MAX, None, m); m + 1];
    best[m].0 = 0;
    for i in (0..m).rev() {
        model.successors(path[i], buf);
        for (e, s) in buf.iter() {
            let (len, to) = if targets.contains(s) {
                (1, m)
            } else {
                match pos.get(s) {
                    Some(&j) if j > i && best[j].0 < usize::MAX => (1 + best[j].0, j),
                    _ => continue,
                }
            };
            if len < best[i].0 {
                best[i] = (len, Some(Step::new(e, s)), to);
            }
        }
    }
    let mut steps = Vec::new();
    let mut i = 0;
    while i < m {
        let (_, step, to) = &best[i];
        steps.push(step.clone().expect("a way from every position of the path"));
        i = *to;
    }
    steps
}
