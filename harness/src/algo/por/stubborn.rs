//! The choice of a stubborn set in one state, after LTSmin's guard-based
//! heuristic (`src/pins-lib/por/`): from each enabled group in turn as the
//! key (with the groups that may err and may be co-enabled with it), close
//! the set greedily, for a disabled group taking the false conjunct whose
//! necessary enabling set adds the fewest new groups (an enabled one counts
//! as many); keep the closure with the fewest enabled groups.

use dve_frontend::deps::Deps;

/// What a new enabled group costs against a disabled one when choosing a
/// necessary enabling set.
const ENABLED_COST: usize = 64;

/// The groups of a stubborn set of `src` (indexed by group), given the
/// groups of its successors (`enabled`, one per successor); `None` when
/// every successor must be kept. A closure that takes in an enabled
/// `visible` group is dropped (so the set chosen has none).
pub fn select(
    deps: &Deps,
    dna: &[Vec<u32>],
    err_partners: &[Vec<u32>],
    visible: &[bool],
    src: &[u8],
    enabled: &[usize],
) -> Option<Vec<bool>> {
    let n = deps.groups.len();
    let mut is_enabled = vec![false; n];
    enabled.iter().for_each(|&g| is_enabled[g] = true);
    let mut seeds: Vec<usize> = enabled.to_vec();
    seeds.dedup();
    let n_enabled = {
        let mut e = seeds.clone();
        e.sort_unstable();
        e.dedup();
        e.len()
    };
    // Per conjunct: 0 not evaluated, 1 true, 2 false, 3 an error.
    let mut truth = vec![0u8; deps.conjuncts.len()];
    let mut best: Option<(usize, Vec<bool>)> = None;
    let mut in_set = vec![false; n];
    let mut stack = Vec::new();
    'seeds: for &seed in &seeds {
        if best.as_ref().is_some_and(|b| b.0 <= 1) {
            break;
        }
        in_set.fill(false);
        in_set[seed] = true;
        stack.clear();
        stack.push(seed);
        for &h in &err_partners[seed] {
            if !in_set[h as usize] {
                in_set[h as usize] = true;
                stack.push(h as usize);
            }
        }
        let mut count = 0;
        while let Some(g) = stack.pop() {
            if is_enabled[g] {
                if visible[g] {
                    continue 'seeds;
                }
                count += 1;
                let bound = best.as_ref().map_or(n_enabled, |b| b.0);
                if count >= bound {
                    continue 'seeds;
                }
                for &h in &dna[g] {
                    if !in_set[h as usize] {
                        in_set[h as usize] = true;
                        stack.push(h as usize);
                    }
                }
                continue;
            }
            let mut choice: Option<(usize, usize)> = None;
            for &c in &deps.groups[g].conjuncts {
                if truth[c] == 0 {
                    truth[c] = match deps.holds(c, src) {
                        Some(true) => 1,
                        Some(false) => 2,
                        None => 3,
                    };
                }
                if truth[c] != 2 {
                    continue;
                }
                // Summed only while it may beat the best so far (the first
                // of the cheapest is kept either way).
                let bound = choice.map_or(usize::MAX, |(_, best)| best);
                let mut cost = 0;
                for &h in &deps.conjuncts[c].enabling {
                    if !in_set[h] {
                        cost += if is_enabled[h] { ENABLED_COST } else { 1 };
                        if cost >= bound {
                            break;
                        }
                    }
                }
                if cost < bound {
                    choice = Some((c, cost));
                    if cost == 0 {
                        break;
                    }
                }
            }
            // A disabled group with no conjunct known false: keep everything.
            let (c, _) = choice?;
            for &h in &deps.conjuncts[c].enabling {
                if !in_set[h] {
                    in_set[h] = true;
                    stack.push(h);
                }
            }
        }
        best = Some((count, in_set.clone()));
    }
    best.map(|b| b.1)
}
