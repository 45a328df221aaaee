//! What limits a model's reduction, in words for the run record: the
//! groups that may raise a run-time error (each joins every set whose key
//! it may be co-enabled with), and the variables that every process
//! touches and several write (a key's closure then takes in every
//! process).

use dve_frontend::deps::Deps;
use dve_frontend::interp::model_info;
use dve_frontend::ir;
use dve_frontend::model::SlotKind;

/// The most items a line names before it counts the rest.
const NAMED: usize = 4;

/// The groups that may err, with where: `None` when none may.
pub fn may_err(model: &ir::Model, deps: &Deps) -> Option<String> {
    let items: Vec<String> = deps
        .groups
        .iter()
        .filter_map(|g| {
            let source = g.err_source?;
            let ts: Vec<&str> = g
                .transitions()
                .iter()
                .map(|&t| model.transitions[t].text.as_str())
                .collect();
            Some(format!("{} ({})", ts.join(" with "), source.describe(model)))
        })
        .collect();
    listed(items)
}

/// The variables that the groups of every process read or write and that
/// at least two processes write: `None` when there are none, or fewer than
/// two processes.
pub fn shared(model: &ir::Model, deps: &Deps) -> Option<String> {
    let info = model_info(model);
    let processes: Vec<usize> = {
        let mut p: Vec<usize> = deps
            .groups
            .iter()
            .flat_map(|g| g.transitions())
            .map(|t| model.transitions[t].process)
            .collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    if processes.len() < 2 {
        return None;
    }
    let mut touched = vec![Vec::new(); deps.slots];
    let mut written = vec![Vec::new(); deps.slots];
    for g in &deps.groups {
        for t in g.transitions() {
            let p = model.transitions[t].process;
            for &s in g.reads.iter().chain(&g.may_write) {
                touched[s].push(p);
            }
            for &s in &g.may_write {
                written[s].push(p);
            }
        }
    }
    let items: Vec<String> = (0..deps.slots)
        .filter(|&s| matches!(info.slots[s].kind, SlotKind::Variable))
        .filter(|&s| {
            touched[s].sort_unstable();
            touched[s].dedup();
            written[s].sort_unstable();
            written[s].dedup();
            touched[s] == processes && written[s].len() >= 2
        })
        .map(|s| info.slots[s].name.clone())
        .collect();
    listed(items)
}

fn listed(items: Vec<String>) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let mut text = items[..items.len().min(NAMED)].join("; ");
    if items.len() > NAMED {
        text.push_str(&format!("; and {} more", items.len() - NAMED));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(src: &str) -> ir::Model {
        dve_frontend::load_str("t.dve", src).unwrap()
    }

    #[test]
    fn names_the_groups_that_may_err_and_the_variables_every_process_writes() {
        let m = model(
            "byte x, y, a[2];
             process P { state s; init s; trans s -> s { effect x = x + 1, a[0] = y; }; }
             process Q { state s; init s; trans s -> s { guard x < 3; effect x = 0, y = 1; }; }
             system async;",
        );
        let d = Deps::new(&m);
        assert_eq!(
            may_err(&m, &d).as_deref(),
            Some("P: s -> s (its effects: x may be given a value outside byte)")
        );
        // x: both touch and write it; y: both touch it, Q alone writes it.
        assert_eq!(shared(&m, &d).as_deref(), Some("x"));
    }

    #[test]
    fn a_model_without_either_says_nothing() {
        let m = model(
            "byte x;
             process P { state s, t; init s; trans s -> t { effect x = 1; }; }
             process Q { state s, t; init s; trans s -> t { guard x == 1; }; }
             system async;",
        );
        let d = Deps::new(&m);
        assert_eq!(may_err(&m, &d), None);
        assert_eq!(shared(&m, &d), None);
    }
}
